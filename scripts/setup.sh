#!/usr/bin/env bash
# Installs what building, testing and running Mowdeck need on a fresh Debian machine:
# the C libraries the Swift targets link, PostgreSQL 15 and nats-server, the browser and
# JavaScript runtime the web inbox tests use (Chromium, Node.js), and the pinned Python tools
# of the checks (scripts/requirements-checks.txt, in .local/venv). Idempotent.
set -euo pipefail

packages=(pkg-config libpq-dev libnats-dev libssl-dev libmicrohttpd-dev libcurl4-openssl-dev libnghttp2-dev
  postgresql nats-server python3 python3-venv curl openssl chromium nodejs socat util-linux zip
  prometheus caddy)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# The checks' Python tools, pinned, in a virtual environment of their own: a new pin in
# scripts/requirements-checks.txt rebuilds it.
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.local/venv"
requirements="$root/scripts/requirements-checks.txt"
if ! cmp -s "$requirements" "$venv/requirements-checks.txt"; then
  echo "setup: installing $(grep -v '^#' "$requirements" | tr '\n' ' ')into .local/venv" >&2
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/python3" -m pip install -q --disable-pip-version-check -r "$requirements"
  cp "$requirements" "$venv/requirements-checks.txt"
fi

command -v swift >/dev/null || { echo "setup: swift is not on PATH (Swift 6 toolchain needed)" >&2; exit 1; }
