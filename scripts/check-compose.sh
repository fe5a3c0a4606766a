#!/usr/bin/env bash
# Validates deploy/compose.yaml and the cluster override deploy/compose.cluster.yaml against
# the Compose Specification's JSON schema (no Docker engine runs here), checks that every
# service, variable and port compose.yaml names exists, and checks the two merged as Compose
# merges them: the merged file against the schema, and what the cluster needs of it.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v check-jsonschema >/dev/null || ! python3 -c 'import yaml' 2>/dev/null; then
  python3 -m pip install -q check-jsonschema pyyaml >/dev/null 2>&1 \
    || python3 -m pip install -q --break-system-packages check-jsonschema pyyaml >/dev/null
fi
check-jsonschema --builtin-schema vendor.compose-spec deploy/compose.yaml deploy/compose.cluster.yaml
python3 scripts/check-compose.py

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
python3 scripts/check-compose-cluster.py --merged "$tmp/merged.yaml"
check-jsonschema --builtin-schema vendor.compose-spec "$tmp/merged.yaml"
# The cluster's nats config by nats-server itself, where one is installed (scripts/setup.sh
# installs Debian's 2.9, which refuses 2.10's sync_interval: a copy without that line).
if command -v nats-server >/dev/null; then
  sed '/sync_interval/d' deploy/nats-cluster.conf > "$tmp/nats.conf"
  NATS_SERVER_NAME=check nats-server -c "$tmp/nats.conf" -t
fi
for script in deploy/postgres-cluster/*.sh; do bash -n "$script"; done
