#!/usr/bin/env bash
# Builds the container images (deploy/Dockerfile's production target, and its doubles
# target) and runs one alarm through the pipeline with every process taken from them:
# migrate and fleet import, one replica of each worker (production image), the APNs
# sandbox and the camera simulator (doubles image), then a published alarm that must be
# pushed with an image URL whose photo the serving container answers. It also checks that
# the production image holds no test double. PostgreSQL and nats-server are
# the throwaway host servers of the tests (containers on the host network), so this checks
# the image, not deploy/compose.yaml (scripts/check-compose.sh checks that file).
# Needs a running Docker engine that can reach the image's base images, or their local
# stand-ins with --standins (scripts/make-standin-images.sh). Not part of scripts/test.sh:
# CI machines have no Docker engine.
#   scripts/check-image.sh [--standins] [IMAGE_TAG]   (the doubles get IMAGE_TAG-doubles)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib/one-alarm.sh
source scripts/lib/one-alarm.sh
build_args=()
if [ "${1:-}" = --standins ]; then
  # shellcheck disable=SC1091  # the stand-ins settings: build args, image names, override
  source deploy/standins/settings.sh
  build_args=("${standin_build_args[@]}")
  shift
fi
tag=${1:-mowdeck:check}
if ! docker info >/dev/null 2>&1; then
  echo "check-image: no Docker engine reachable" >&2
  exit 2
fi

doubles=$tag-doubles
echo "check-image: building $tag and $doubles" >&2
# The host network: the build step fetches packages, and works the same with or without a
# default bridge. The production image is the Dockerfile's last stage, built without
# --target as an operator would.
docker build -q --network host "${build_args[@]}" -f deploy/Dockerfile -t "$tag" . >/dev/null
docker build -q --network host "${build_args[@]}" --target doubles -f deploy/Dockerfile \
  -t "$doubles" . >/dev/null
for double in GatewaySimulator APNsSandbox WebPushSandbox FCMSandbox NtfySandbox; do
  if docker run --rm --entrypoint sh "$tag" -c "command -v $double" >/dev/null; then
    echo "check-image: the production image $tag holds the test double $double" >&2
    exit 1
  fi
done

dir=$(mktemp -d /tmp/mowdeck-image.XXXXXX)
chmod 755 "$dir"  # PostgreSQL runs as its own user
containers=()
cleanup() {
  status=$?
  if [ "$status" -ne 0 ]; then
    for c in "${containers[@]}"; do
      echo "--- $c" >&2
      docker logs --tail 15 "$c" >&2 2>&1 || true
    done
  fi
  for c in "${containers[@]}"; do docker rm -f "$c" >/dev/null 2>&1 || true; done
  scripts/servers.sh stop "$dir" >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap cleanup EXIT
scripts/servers.sh start "$dir" >&2
# shellcheck disable=SC1091
source "$dir/env"
scripts/make-test-pki.sh "$dir/pki"
# The image runs as an unprivileged user, which must read the mounted keys.
chmod 755 "$dir/pki"
chmod 644 "$dir/pki"/*

# shellcheck source=scripts/lib/free-port.sh
source scripts/lib/free-port.sh
apns_port=$(free_port)
http_port=$(free_port)
name=mowdeck-check-$$
settings=(
  --network host -v "$dir/pki:/pki:ro"
  -e MOWDECK_DATABASE_URL -e MOWDECK_NATS_URL
  -e MOWDECK_NOTIFICATIONS_APP_URL="http://127.0.0.1:$http_port"
  -e MOWDECK_NOTIFICATIONS_ALLOW_HTTP_ORIGIN=1
  -e MOWDECK_NOTIFICATIONS_HTTP_LISTEN="127.0.0.1:$http_port"
  -e MOWDECK_NOTIFICATIONS_APNS_URL="https://127.0.0.1:$apns_port"
  -e MOWDECK_NOTIFICATIONS_APNS_SANDBOX_URL="https://127.0.0.1:$apns_port"
  -e MOWDECK_NOTIFICATIONS_APNS_CA_FILE=/pki/ca.pem
  -e MOWDECK_NOTIFICATIONS_APNS_KEY_PATH=/pki/apns-key.p8
  -e MOWDECK_NOTIFICATIONS_APNS_KEY_ID=CHECKKEY01
  -e MOWDECK_NOTIFICATIONS_APNS_TEAM_ID=CHECKTEAM1
)
once() { docker run --rm "${settings[@]}" "$@"; }
# Starts one long-running container; $1 names it, $2 is its metrics port, $3 its image.
start() {
  local container=$name-$1 port=$2
  shift 2
  containers+=("$container")
  docker run -d --name "$container" "${settings[@]}" -e MOWDECK_METRICS_LISTEN="127.0.0.1:$port" \
    "$@" >/dev/null
}

once "$tag" mowdeck migrate
once -v "$PWD/Tests/Fixtures:/fixtures:ro" "$tag" mowdeck fleet import /fixtures/fleet40.fleet.json
start sandbox 0 "$doubles" APNsSandbox --listen "127.0.0.1:$apns_port" --cert /pki/server.pem \
  --key /pki/server.key --public-key /pki/apns-key.pub.pem --team-id CHECKTEAM1 \
  --key-id CHECKKEY01 --record /tmp/pushes.jsonl
start camera 0 "$doubles" GatewaySimulator --frames /usr/share/mowdeck/frames --latency-ms 200
port=$(free_port); start fanout "$port" "$tag" FanoutWorker; ports=("$port")
port=$(free_port); start photo "$port" "$tag" PhotoWorker; ports+=("$port")
port=$(free_port); start apns "$port" "$tag" APNsWorker; ports+=("$port")
# The serving process answers /healthz on its metrics port too, like every worker.
port=$(free_port); start serve "$port" "$tag" ImageServeWorker; ports+=("$port")
port=$(free_port); start prune "$port" "$tag" PruneWorker; ports+=("$port")

for port in "${ports[@]}"; do
  for _ in $(seq 60); do
    curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break
    sleep 0.5
  done
  curl -sf "http://127.0.0.1:$port/healthz" >/dev/null \
    || { echo "check-image: a worker never became healthy (metrics port $port)" >&2; exit 1; }
done
echo "check-image: every worker healthy" >&2

# The phone's extension waits for the photo; so does this, for a few seconds.
check_one_alarm check-image "$name-sandbox" 20 once "$tag"
echo "check-image: ok (the photo served as image/jpeg from the image's ImageServeWorker)"
