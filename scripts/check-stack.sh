#!/usr/bin/env bash
# Runs the compose stack as a dev install runs it: deploy/compose.yaml with
# deploy/compose.dev.yaml and --profile dev (camera simulator, the APNs, Web Push, FCM and
# ntfy doubles, every channel's workers pointed at its double, the proxy with the dev
# certificate), secrets from scripts/make-secrets.sh --dev in a directory of this run.
# Builds both image targets, brings every service up, waits until each one is healthy,
# imports the demo fleet, publishes one alarm, and checks that the push reaches the APNs
# sandbox with an image URL whose photo the proxy answers over TLS (checked against the
# dev CA). Then takes the stack down with its volumes. Nothing of the compose files is
# changed but the published ports and the public URL (compose variables), and, with
# --standins, the base images.
# Needs a Docker engine that reaches the base images, or their local stand-ins with
# --standins (scripts/make-standin-images.sh), and Compose (`docker compose`, or the older
# `docker-compose`, for which the files' top-level `name` is left out). Not part of
# scripts/test.sh: CI machines have no Docker engine.
#   scripts/check-stack.sh [--standins]
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib/one-alarm.sh
source scripts/lib/one-alarm.sh
# shellcheck source=scripts/lib/free-port.sh
source scripts/lib/free-port.sh
build_args=()
extra=""
if [ "${1:-}" = --standins ]; then
  # shellcheck disable=SC1091  # the stand-ins settings: build args, image names, override
  source deploy/standins/settings.sh
  build_args=("${standin_build_args[@]}")
  # shellcheck disable=SC2154  # set by the settings file
  extra=$standin_override
fi
docker info >/dev/null 2>&1 || { echo "check-stack: no Docker engine reachable" >&2; exit 2; }
project=mowdeck-check
files=(deploy/compose.yaml deploy/compose.dev.yaml)
dir=$(mktemp -d /tmp/mowdeck-stack.XXXXXX)
run=()
copies=()
cleanup() {
  status=$?
  if [ "$status" -ne 0 ] && [ ${#run[@]} -gt 0 ]; then
    "${run[@]}" logs --tail 10 >&2 2>&1 || true
  fi
  if [ ${#run[@]} -gt 0 ]; then "${run[@]}" down -v --remove-orphans >/dev/null 2>&1 || true; fi
  rm -rf "$dir"
  if [ ${#copies[@]} -gt 0 ]; then rm -f "${copies[@]}"; fi
}
trap cleanup EXIT
if docker compose version >/dev/null 2>&1; then
  compose=(docker compose)
elif command -v docker-compose >/dev/null; then
  compose=(docker-compose)
  # Compose v1 does not know the specification's top-level `name`; the project is named
  # with -p instead. The copies stay beside the originals, whose relative paths they keep.
  for i in "${!files[@]}"; do
    copy=deploy/.compose-v1-check.$i.yaml
    grep -v '^name:' "${files[$i]}" >"$copy"
    copies+=("$copy")
    files[i]=$copy
  done
else
  echo "check-stack: neither docker compose nor docker-compose" >&2
  exit 2
fi

# The stack's secrets as a dev install makes them, in a directory of this run (never
# deploy/secrets, which may hold an installation's own).
scripts/make-secrets.sh --dev "$dir/secrets"
export MOWDECK_SECRETS_DIR=$dir/secrets
# The proxy on free ports of this machine, and the public URL the processes sign image
# URLs with on that port; images of this run's own tag.
MOWDECK_HTTPS_PORT=$(free_port)
MOWDECK_HTTP_PORT=$(free_port)
export MOWDECK_HTTPS_PORT MOWDECK_HTTP_PORT
export MOWDECK_PUBLIC_HOST=localhost MOWDECK_PUBLIC_PORT_SUFFIX=:$MOWDECK_HTTPS_PORT
export MOWDECK_VERSION=check
run=("${compose[@]}" -p "$project")
for file in "${files[@]}"; do run+=(-f "$file"); done
if [ -n "$extra" ]; then run+=(-f "$extra"); fi
run+=(--profile dev)

echo "check-stack: building mowdeck:check and mowdeck-doubles:check, starting ${files[*]}" >&2
# Built here rather than by compose, on the host network: the build step fetches packages,
# and an engine without a default bridge (scripts/make-standin-images.sh) has no other.
for target in production doubles; do
  name=mowdeck
  [ "$target" = doubles ] && name=mowdeck-doubles
  docker build -q --network host "${build_args[@]}" --target "$target" -f deploy/Dockerfile \
    -t "$name:check" . >/dev/null
done
"${run[@]}" up -d --no-build >&2
# All 24 containers (postgres, nats, migrate, two replicas of seven workers, the prune
# worker, the proxy, the camera simulator, the four push doubles); each with a health
# check must report healthy, and migrate must have exited 0.
expected=24
for _ in $(seq 120); do
  states=$(docker ps -a --filter "label=com.docker.compose.project=$project" \
    --format '{{.Names}} {{.Status}}')
  count=$(echo "$states" | grep -c . || true)
  unhealthy=$(echo "$states" | grep -v -e '(healthy)' -e 'migrate.*Exited (0)' \
    -e 'gateway-simulator.*Up' -e 'apns-sandbox.*Up' -e 'webpush-sandbox.*Up' \
    -e 'fcm-sandbox.*Up' -e 'ntfy-sandbox.*Up' || true)
  [ "$count" -eq "$expected" ] && [ -z "$unhealthy" ] && break
  sleep 1
done
echo "$states" >&2
if [ "$count" -ne "$expected" ] || [ -n "$unhealthy" ]; then
  echo "check-stack: $count of $expected containers; not healthy: ${unhealthy:-none}" >&2
  exit 1
fi
echo "check-stack: every service healthy" >&2

# The CLI as an operator runs it: a one-off container of the migrate service, with its
# secrets, settings and network.
in_stack() {
  "${run[@]}" run --rm --no-deps -T "${mounts[@]}" migrate "$@"
}
mounts=(-v "$PWD/Tests/Fixtures:/fixtures:ro")
in_stack mowdeck fleet import /fixtures/fleet40.fleet.json
mounts=()
sandbox=$(docker ps -q --filter "label=com.docker.compose.project=$project" \
  --filter label=com.docker.compose.service=apns-sandbox)
# The photo is fetched from this machine through the proxy, whose certificate the dev CA
# signed (curl reads CURL_CA_BUNDLE). The camera simulator answers in 0.5-3 s; the phone's
# extension would wait as long.
export CURL_CA_BUNDLE=$MOWDECK_SECRETS_DIR/dev-ca.pem
check_one_alarm check-stack "$sandbox" 30 in_stack
echo "check-stack: ok (the compose stack pushed the alarm and served its photo through the proxy)"
