#!/usr/bin/env bash
# Installs what building, testing and running Mowdeck need on a fresh Debian machine:
# the C libraries the Swift targets link, PostgreSQL 15 and nats-server, and the browser
# and JavaScript runtime the web inbox tests use (Chromium, Node.js). Idempotent.
set -euo pipefail

packages=(pkg-config libpq-dev libnats-dev libssl-dev libmicrohttpd-dev libcurl4-openssl-dev libnghttp2-dev
  postgresql nats-server python3 curl openssl chromium nodejs socat util-linux)
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
command -v swift >/dev/null || { echo "setup: swift is not on PATH (Swift 6 toolchain needed)" >&2; exit 1; }
