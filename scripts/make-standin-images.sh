#!/usr/bin/env bash
# For a machine that reaches Debian's mirror but no container registry (this project's
# build machines): installs and starts a Docker engine if there is none, and builds local
# stand-ins for the base images that deploy/Dockerfile and deploy/compose.yaml name, so
# that scripts/check-image.sh and scripts/check-stack.sh can run with --standins (ADR
# 0020). Their names are their own (deploy/standins/settings.sh), never the vendors':
#   mowdeck-standin/debian:bookworm          Debian 12 made with debootstrap
#   mowdeck-standin/swift:6.3-bookworm       that, with the local toolchain (SWIFT_ROOT,
#                                            default /opt/swift)
#   mowdeck-standin/postgres:15-bookworm     Debian's PostgreSQL 15
#   mowdeck-standin/nats:2.9-bookworm        Debian's nats-server 2.9
#   mowdeck-standin/caddy:2.6-bookworm       Debian's Caddy 2.6
# Then: scripts/check-stack.sh --standins
# An image that already exists is left as it is.
set -euo pipefail
cd "$(dirname "$0")/.."
swift_root=${SWIFT_ROOT:-/opt/swift}
need=()
command -v dockerd >/dev/null || need+=(docker.io)
command -v docker-compose >/dev/null || docker compose version >/dev/null 2>&1 \
  || need+=(docker-compose)
command -v debootstrap >/dev/null || need+=(debootstrap)
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}" >/dev/null
fi
if ! docker info >/dev/null 2>&1; then
  # No default bridge or iptables rules: builds use the host network, and compose makes
  # its own network for the stack.
  nohup dockerd --iptables=false --bridge=none >/tmp/dockerd.log 2>&1 &
  for _ in $(seq 30); do docker info >/dev/null 2>&1 && break; sleep 1; done
  docker info >/dev/null 2>&1 || { echo "dockerd did not start, see /tmp/dockerd.log" >&2; exit 1; }
fi
have() { docker image inspect "$1" >/dev/null 2>&1; }
work=$(mktemp -d /tmp/mowdeck-standins.XXXXXX)
trap 'rm -rf "$work"' EXIT

if ! have mowdeck-standin/debian:bookworm; then
  echo "standins: mowdeck-standin/debian:bookworm (debootstrap)" >&2
  debootstrap --variant=minbase bookworm "$work/rootfs" http://deb.debian.org/debian >/dev/null
  rm -rf "$work/rootfs/var/cache/apt/archives/"*.deb
  tar -C "$work/rootfs" -c . | docker import - mowdeck-standin/debian:bookworm >/dev/null
  rm -rf "$work/rootfs"
fi
if ! have mowdeck-standin/swift:6.3-bookworm; then
  echo "standins: mowdeck-standin/swift:6.3-bookworm (from $swift_root)" >&2
  docker build -q --network host -t mowdeck-standin/swift:6.3-bookworm \
    -f deploy/standins/swift.Dockerfile "$swift_root" >/dev/null
fi
if ! have mowdeck-standin/postgres:15-bookworm; then
  echo "standins: mowdeck-standin/postgres:15-bookworm" >&2
  docker build -q --network host -t mowdeck-standin/postgres:15-bookworm \
    deploy/standins/postgres >/dev/null
fi
if ! have mowdeck-standin/nats:2.9-bookworm; then
  echo "standins: mowdeck-standin/nats:2.9-bookworm" >&2
  docker build -q --network host -t mowdeck-standin/nats:2.9-bookworm \
    deploy/standins/nats >/dev/null
fi
if ! have mowdeck-standin/caddy:2.6-bookworm; then
  echo "standins: mowdeck-standin/caddy:2.6-bookworm" >&2
  docker build -q --network host -t mowdeck-standin/caddy:2.6-bookworm \
    deploy/standins/caddy >/dev/null
fi
echo "standins: ready"
