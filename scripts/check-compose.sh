#!/usr/bin/env bash
# Validates the compose stack without a Docker engine (CI has none): deploy/compose.yaml,
# the dev override deploy/compose.dev.yaml and the cluster override
# deploy/compose.cluster.yaml, each file and each combination as Compose merges them,
# against the Compose Specification's JSON schema; then scripts/check-compose.py (every
# profile of every combination: dependencies, secrets, mounted files, hardening, variables,
# the proxy) and scripts/check-compose-cluster.py (what the cluster needs). The secret
# files are those scripts/make-secrets.sh --dev makes, in a directory of this run. Where
# caddy and nats-server are installed, they check their own configurations too.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v check-jsonschema >/dev/null || ! python3 -c 'import yaml' 2>/dev/null; then
  python3 -m pip install -q check-jsonschema pyyaml >/dev/null 2>&1 \
    || python3 -m pip install -q --break-system-packages check-jsonschema pyyaml >/dev/null
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
scripts/make-secrets.sh --dev "$tmp/secrets" 2>/dev/null
export MOWDECK_SECRETS_DIR="$tmp/secrets"

check-jsonschema --builtin-schema vendor.compose-spec deploy/compose.yaml deploy/compose.dev.yaml \
  deploy/compose.cluster.yaml
mkdir "$tmp/merged"
python3 scripts/check-compose.py --merged-dir "$tmp/merged"
python3 scripts/check-compose-cluster.py
check-jsonschema --builtin-schema vendor.compose-spec "$tmp/merged"/*.yaml

# The proxy's configurations by Caddy itself: the production one as it would start (no
# certificate is asked for), the dev one with the dev certificate.
if command -v caddy >/dev/null; then
  MOWDECK_PUBLIC_HOST=mowdeck.example.org caddy validate --adapter caddyfile \
    --config deploy/caddy/Caddyfile >"$tmp/caddy.log" 2>&1 || { cat "$tmp/caddy.log" >&2; exit 1; }
  MOWDECK_DEV_TLS_CERT="$tmp/secrets/dev-tls.pem" MOWDECK_DEV_TLS_KEY="$tmp/secrets/dev-tls.key" \
    caddy validate --adapter caddyfile --config deploy/caddy/Caddyfile.dev >"$tmp/caddy.log" 2>&1 \
    || { cat "$tmp/caddy.log" >&2; exit 1; }
  echo "caddy: both Caddyfiles valid"
fi
# The cluster's nats config by nats-server itself, where one is installed (scripts/setup.sh
# installs Debian's 2.9, which refuses 2.10's sync_interval: a copy without that line).
if command -v nats-server >/dev/null; then
  sed '/sync_interval/d' deploy/nats-cluster.conf > "$tmp/nats.conf"
  NATS_SERVER_NAME=check nats-server -c "$tmp/nats.conf" -t
fi
for script in deploy/postgres-cluster/*.sh deploy/standins/*/*.sh scripts/make-secrets.sh; do
  bash -n "$script"
done
