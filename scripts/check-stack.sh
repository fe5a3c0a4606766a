#!/usr/bin/env bash
# Runs deploy/compose.yaml as a whole, with its dev profile (camera simulator, the APNs,
# Web Push, FCM and ntfy doubles): builds the image, brings every service up, waits until
# each one is healthy, imports the demo fleet, publishes one alarm, and checks that the
# push reaches the APNs sandbox with an image URL whose photo one of the serving replicas
# answers. Then takes the stack down with its volumes. The stack's own secrets are test
# keys made for the run (a Firebase service account among them), and a small override
# points each channel's workers at its double and the public origin at the published
# port; nothing else of the compose file is changed.
# Needs a Docker engine that reaches the base images, or their local stand-ins with
# --standins (scripts/make-standin-images.sh), and Compose (`docker compose`, or the older
# `docker-compose`, for which the file's top-level `name` is left out). Not part of
# scripts/test.sh: CI machines have no Docker engine.
#   scripts/check-stack.sh [--standins]
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib/one-alarm.sh
source scripts/lib/one-alarm.sh
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
file=deploy/compose.yaml
dir=$(mktemp -d /tmp/mowdeck-stack.XXXXXX)
run=()
cleanup() {
  status=$?
  if [ "$status" -ne 0 ] && [ ${#run[@]} -gt 0 ]; then
    "${run[@]}" logs --tail 10 >&2 2>&1 || true
  fi
  if [ ${#run[@]} -gt 0 ]; then "${run[@]}" down -v --remove-orphans >/dev/null 2>&1 || true; fi
  rm -rf "$dir"
  [ "$file" = deploy/compose.yaml ] || rm -f "$file"
}
trap cleanup EXIT
if docker compose version >/dev/null 2>&1; then
  compose=(docker compose)
elif command -v docker-compose >/dev/null; then
  compose=(docker-compose)
  # Compose v1 does not know the specification's top-level `name`; the project is named
  # with -p instead. The copy stays beside the original, whose relative paths it keeps.
  file=deploy/.compose-v1-check.yaml
  grep -v '^name:' deploy/compose.yaml >"$file"
else
  echo "check-stack: neither docker compose nor docker-compose" >&2
  exit 2
fi

# Test keys, readable by the image's unprivileged user, in place of deploy/secrets: the
# test PKI, and a service account whose client_email and project_id are the ones the
# compose file's fcm-sandbox checks, with its token_uri on that double.
scripts/make-test-pki.sh "$dir/pki"
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$dir/pki/fcm-key.pem" \
  2>/dev/null
openssl pkey -in "$dir/pki/fcm-key.pem" -pubout -out "$dir/pki/fcm-key.pub.pem"
python3 - "$dir/pki/fcm-key.pem" >"$dir/pki/fcm-service-account.json" <<'PY'
import json, sys
print(json.dumps({"type": "service_account", "project_id": "mowdeck-dev",
                  "private_key": open(sys.argv[1]).read(),
                  "client_email": "fcm-sender@mowdeck-dev.iam.gserviceaccount.com",
                  "token_uri": "https://fcm-sandbox:8445/token"}))
PY
chmod 755 "$dir/pki"
chmod 644 "$dir/pki"/*
cat >"$dir/override.yaml" <<YAML
services:
  apns: &to-sandbox
    environment:
      MOWDECK_NOTIFICATIONS_APNS_URL: https://apns-sandbox:8443
      MOWDECK_NOTIFICATIONS_APNS_SANDBOX_URL: https://apns-sandbox:8443
      MOWDECK_NOTIFICATIONS_APNS_CA_FILE: /run/secrets/test_ca
      MOWDECK_NOTIFICATIONS_APP_URL: http://127.0.0.1:8080
    secrets: [apns_key, vapid_key, test_ca]
  serve: *to-sandbox
  webpush:
    environment:
      MOWDECK_NOTIFICATIONS_WEBPUSH_CA_FILE: /run/secrets/test_ca
      MOWDECK_NOTIFICATIONS_WEBPUSH_HOSTS: webpush-sandbox
      MOWDECK_NOTIFICATIONS_APP_URL: http://127.0.0.1:8080
    secrets: [apns_key, vapid_key, test_ca]
  fcm:
    environment:
      MOWDECK_NOTIFICATIONS_FCM_URL: https://fcm-sandbox:8445
      MOWDECK_NOTIFICATIONS_FCM_CA_FILE: /run/secrets/test_ca
      MOWDECK_NOTIFICATIONS_APP_URL: http://127.0.0.1:8080
    secrets: [apns_key, fcm_credentials, test_ca]
  ntfy:
    environment:
      MOWDECK_NOTIFICATIONS_NTFY_URL: https://ntfy-sandbox:8446
      MOWDECK_NOTIFICATIONS_NTFY_CA_FILE: /run/secrets/test_ca
      MOWDECK_NOTIFICATIONS_APP_URL: http://127.0.0.1:8080
    secrets: [apns_key, test_ca]
secrets:
  apns_key: {file: $dir/pki/apns-key.p8}
  apns_public_key: {file: $dir/pki/apns-key.pub.pem}
  vapid_key: {file: $dir/pki/apns-key.p8}
  fcm_credentials: {file: $dir/pki/fcm-service-account.json}
  fcm_public_key: {file: $dir/pki/fcm-key.pub.pem}
  sandbox_cert: {file: $dir/pki/server.pem}
  sandbox_key: {file: $dir/pki/server.key}
  test_ca: {file: $dir/pki/ca.pem}
YAML
run=("${compose[@]}" -p "$project" -f "$file" -f "$dir/override.yaml")
if [ -n "$extra" ]; then run+=(-f "$extra"); fi
run+=(--profile dev)

echo "check-stack: building mowdeck:latest and starting $file" >&2
# Built here rather than by compose, on the host network: the build step fetches packages,
# and an engine without a default bridge (scripts/make-standin-images.sh) has no other.
docker build -q --network host "${build_args[@]}" -f deploy/Dockerfile -t mowdeck:latest . \
  >/dev/null
"${run[@]}" up -d --no-build >&2
# All 23 containers (postgres, nats, migrate, two replicas of seven workers, the prune
# worker, the camera simulator, the four push doubles); each with a health check must
# report healthy, and migrate must have exited 0.
expected=23
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

network=$(docker inspect -f '{{range $k, $v := .NetworkSettings.Networks}}{{$k}}{{end}}' \
  "$(docker ps -q --filter "label=com.docker.compose.project=$project" \
    --filter label=com.docker.compose.service=fanout | head -n 1)")
mowdeck() {
  docker run --rm --network "$network" --env-file deploy/mowdeck.env "$@"
}
image=$(docker inspect -f '{{.Config.Image}}' \
  "$(docker ps -q --filter "label=com.docker.compose.project=$project" \
    --filter label=com.docker.compose.service=fanout | head -n 1)")
mowdeck -v "$PWD/Tests/Fixtures:/fixtures:ro" "$image" mowdeck fleet import \
  /fixtures/fleet40.fleet.json
sandbox=$(docker ps -q --filter "label=com.docker.compose.project=$project" \
  --filter label=com.docker.compose.service=apns-sandbox)
# The camera simulator answers in 0.5-3 s; the phone's extension would wait as long.
check_one_alarm check-stack "$sandbox" 30 mowdeck "$image"
echo "check-stack: ok (the compose stack pushed the alarm and served its photo)"
