#!/usr/bin/env bash
# The run command: on a fresh machine, installs what is missing, builds, starts PostgreSQL
# and nats-server with their data under .local/, the camera simulator, the APNs sandbox
# (HTTP/2 over TLS), the Web Push double (a browser's push service, HTTPS) and two
# replicas of every worker, subscribes a demo browser, publishes a few demo alarms, shows
# what happened to each and when, and runs until Ctrl-C, then stops everything cleanly.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
echo "building (release)..." >&2
swift build -c release >&2
swift build -c release --package-path apps/mobile/ios/NotificationServiceKit --product push-image-fetch >&2
bin=$(swift build -c release --show-bin-path)
state=$PWD/.local
mkdir -p "$state"
chmod 755 "$state"

pids=()
stop_all() {
  echo
  echo "stopping..."
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  scripts/servers.sh stop "$state/servers"
  echo "stopped"
}
trap stop_all EXIT
trap 'exit 0' INT TERM

# shellcheck source=scripts/lib/free-port.sh
source scripts/lib/free-port.sh

rm -rf "$state/servers" "$state/pushes.jsonl" "$state/webpushes.jsonl"
scripts/servers.sh start "$state/servers"
# shellcheck disable=SC1091
source "$state/servers/env"
scripts/make-test-pki.sh "$state/pki"
apns_port=$(free_port)
webpush_port=$(free_port)
tls_port=$(free_port)
export MOWDECK_NOTIFICATIONS_APP_URL="https://localhost:$tls_port"
export MOWDECK_NOTIFICATIONS_APNS_URL="https://127.0.0.1:$apns_port"
export MOWDECK_NOTIFICATIONS_APNS_SANDBOX_URL="https://127.0.0.1:$apns_port"
export MOWDECK_NOTIFICATIONS_APNS_CA_FILE="$state/pki/ca.pem"
export MOWDECK_NOTIFICATIONS_APNS_KEY_PATH="$state/pki/apns-key.p8"
export MOWDECK_NOTIFICATIONS_APNS_KEY_ID=DEMOKEY001
export MOWDECK_NOTIFICATIONS_APNS_TEAM_ID=DEMOTEAM01
# The VAPID key of this demo installation, made once.
if [ ! -s "$state/vapid-key.pem" ]; then
  openssl ecparam -name prime256v1 -genkey -noout | openssl pkcs8 -topk8 -nocrypt \
    >"$state/vapid-key.pem"
fi
export MOWDECK_NOTIFICATIONS_WEBPUSH_VAPID_KEY_PATH="$state/vapid-key.pem"
export MOWDECK_NOTIFICATIONS_WEBPUSH_SUBJECT="mailto:ops@mowdeck.example"
export MOWDECK_NOTIFICATIONS_WEBPUSH_CA_FILE="$state/pki/ca.pem"
export MOWDECK_NOTIFICATIONS_WEBPUSH_HOSTS=localhost

# Starts one process with its log lines prefixed by its name.
start() {
  local name=$1
  shift
  ( exec "$@" 2>&1 | sed -u "s/^/[$name] /" ) &
  pids+=($!)
}

"$bin/mowdeck" migrate
"$bin/mowdeck" fleet import Tests/Fixtures/fleet40.fleet.json
start apns-sandbox "$bin/APNsSandbox" --listen "127.0.0.1:$apns_port" \
  --cert "$state/pki/server.pem" --key "$state/pki/server.key" \
  --public-key "$state/pki/apns-key.pub.pem" --team-id DEMOTEAM01 --key-id DEMOKEY001 \
  --record "$state/pushes.jsonl"
start web-push "$bin/WebPushSandbox" --listen "127.0.0.1:$webpush_port" \
  --cert "$state/pki/server.pem" --key "$state/pki/server.key" --endpoint-host localhost \
  --record "$state/webpushes.jsonl"
start camera "$bin/GatewaySimulator" --frames deploy/frames --latency-ms 800-2500
metrics=9101
for worker in FanoutWorker PhotoWorker APNsWorker WebPushWorker; do
  for replica in 1 2; do
    MOWDECK_METRICS_LISTEN=127.0.0.1:$metrics start "$worker-$replica" "$bin/$worker"
    metrics=$((metrics + 1))
  done
done
MOWDECK_METRICS_LISTEN=127.0.0.1:$metrics start PruneWorker "$bin/PruneWorker"
MOWDECK_NOTIFICATIONS_HTTP_LISTEN=127.0.0.1:8080 start serve-1 "$bin/ImageServeWorker"
MOWDECK_NOTIFICATIONS_HTTP_LISTEN=127.0.0.1:8081 start serve-2 "$bin/ImageServeWorker"
# TLS in front of the serving process, as the owner's reverse proxy would be.
start tls socat "OPENSSL-LISTEN:$tls_port,reuseaddr,fork,cert=$state/pki/server.pem,key=$state/pki/server.key,verify=0" TCP:127.0.0.1:8080
sleep 2

echo
echo "== a browser of the owner of m-7-0003 subscribes (as the inbox page does) =="
token=$("$bin/mowdeck" session create --user u-7-0003-0)
subscription=$(curl -fsS --cacert "$state/pki/ca.pem" -X POST \
  "https://localhost:$webpush_port/subscriptions" -d '{}')
curl -fsS -X POST http://127.0.0.1:8080/api/v1/notifications/devices \
  -H "Authorization: Bearer $token" -H "Content-Type: application/json" \
  -d "$(python3 -c 'import json,sys; s=json.loads(sys.argv[1]); s["platform"]="webpush"; print(json.dumps(s))' "$subscription")"
echo

echo
echo "== publishing demo alarms =="
ids=()
for spec in "m-7-0003 mower_lifted" "m-7-0008 mower_stuck --reason trapped" "m-7-0011 battery_low" \
  "m-7-0003 geofence_exit" "m-7-0019 mower_stuck --reason wheel_slip"; do
  set -- $spec
  id=$(cat /proc/sys/kernel/random/uuid)
  ids+=("$id")
  "$bin/mowdeck" publish --mower "$1" --kind "$2" "${@:3}" --event-id "$id" --name "Robbie"
done
sleep 4

echo
echo "== the phone fetches each photo through its signed URL (over TLS) =="
python3 - "$state/pushes.jsonl" >"$state/demo-urls" <<'PY'
import json, sys
seen = set()
for line in open(sys.argv[1]):
    push = json.loads(line)
    url = (push.get("payload") or {}).get("image_url")
    if url and url not in seen:
        seen.add(url)
        print(url)
PY
while read -r url; do
  scripts/phone-fetch.sh "$state/pki/ca.pem" --output-dir "$state" "$url" || true
done <"$state/demo-urls"

echo
echo "== what the browser got (decrypted by the Web Push double) =="
python3 - "$state/webpushes.jsonl" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    push = json.loads(line)
    message = json.loads(push["payload"] or "{}")
    kind = "photo follow-up" if message.get("image_url") else "alarm"
    print(f'{push["time"]}  {push["status"]}  {kind:15}  {message.get("title")}  topic={push["topic"]}')
PY

for id in "${ids[@]}"; do
  echo
  "$bin/mowdeck" trace "$id" --summary
done

cat <<TEXT

== where to look ==
  web inbox:        https://localhost:$tls_port/inbox#token=$token
                    (or http://127.0.0.1:8080/inbox#token=$token; the certificate is the test CA's)
  metrics, health:  http://127.0.0.1:9101/metrics ... :$metrics/metrics, :8080/metrics; /healthz
  pushes at APNs:   $state/pushes.jsonl
  browser pushes:   $state/webpushes.jsonl (decrypted by the Web Push double)
  trace an alarm:   $bin/mowdeck trace <event_id>    (SQL: SELECT type, recorded_at, data FROM events
                    WHERE correlation_id = '<event_id>' ORDER BY position)
  database:         psql $MOWDECK_DATABASE_URL
  replay fleet40:   MOWDECK_DATABASE_URL=$MOWDECK_DATABASE_URL MOWDECK_NATS_URL=$MOWDECK_NATS_URL \\
                      $bin/mowdeck replay Tests/Fixtures/fleet40.alarms.jsonl
Running until Ctrl-C.
TEXT
wait
