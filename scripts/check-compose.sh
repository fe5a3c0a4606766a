#!/usr/bin/env bash
# Validates deploy/compose.yaml against the Compose Specification's JSON schema (no Docker
# engine runs here) and checks that every service, variable and port it names exists.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v check-jsonschema >/dev/null || ! python3 -c 'import yaml' 2>/dev/null; then
  python3 -m pip install -q check-jsonschema pyyaml >/dev/null 2>&1 \
    || python3 -m pip install -q --break-system-packages check-jsonschema pyyaml >/dev/null
fi
check-jsonschema --builtin-schema vendor.compose-spec deploy/compose.yaml
python3 scripts/check-compose.py
