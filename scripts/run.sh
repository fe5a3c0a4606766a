#!/usr/bin/env bash
# The run command: on a fresh machine, installs what is missing, builds, starts PostgreSQL
# and nats-server with their data under .local/, the camera simulator, the APNs sandbox
# (HTTP/2 over TLS), the Web Push double (a browser's push service, HTTPS), the FCM double
# (FCM HTTP v1 and Google's token endpoint, HTTPS) and the ntfy double (HTTPS), and two
# replicas of every worker; gives one demo user a browser, an Android phone (FCM) and an
# ntfy topic, publishes a few demo alarms, shows what happened to each and when, and runs
# until Ctrl-C, then stops everything cleanly.
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

rm -rf "$state/servers" "$state/pushes.jsonl" "$state/webpushes.jsonl" "$state/fcm.jsonl" \
  "$state/ntfy.jsonl"
scripts/servers.sh start "$state/servers"
# shellcheck disable=SC1091
source "$state/servers/env"
scripts/make-test-pki.sh "$state/pki"
apns_port=$(free_port)
webpush_port=$(free_port)
fcm_port=$(free_port)
ntfy_port=$(free_port)
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
export MOWDECK_NOTIFICATIONS_WEBPUSH_HOSTS="localhost:$webpush_port"
# A Firebase service account made for this run, as the Firebase console's "Generate new
# private key" gives one: an RSA key whose public half the FCM double checks the signed
# assertions with, and a token_uri pointing at the double's token endpoint.
fcm_email=fcm-sender@mowdeck-demo.iam.gserviceaccount.com
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$state/fcm-key.pem" 2>/dev/null
openssl pkey -in "$state/fcm-key.pem" -pubout -out "$state/fcm-key.pub.pem"
(
  umask 077
  python3 - "$state/fcm-key.pem" "$fcm_email" "https://localhost:$fcm_port/token" \
    >"$state/fcm-service-account.json" <<'PY'
import json, sys
key, email, token_uri = sys.argv[1:]
print(json.dumps({"type": "service_account", "project_id": "mowdeck-demo",
                  "private_key_id": "demo", "private_key": open(key).read(),
                  "client_email": email, "token_uri": token_uri}, indent=2))
PY
)
export MOWDECK_NOTIFICATIONS_FCM_CREDENTIALS_PATH="$state/fcm-service-account.json"
export MOWDECK_NOTIFICATIONS_FCM_URL="https://localhost:$fcm_port"
export MOWDECK_NOTIFICATIONS_FCM_CA_FILE="$state/pki/ca.pem"
# The installation's ntfy server, closed to anonymous users: publishing needs its token.
ntfy_token=tk_$(openssl rand -hex 15)
export MOWDECK_NOTIFICATIONS_NTFY_URL="https://localhost:$ntfy_port"
export MOWDECK_NOTIFICATIONS_NTFY_TOKEN="$ntfy_token"
export MOWDECK_NOTIFICATIONS_NTFY_CA_FILE="$state/pki/ca.pem"

# Starts one process with its log lines prefixed by its name. $! is the process itself
# (not a subshell around a pipeline, whose TERM would leave the process running), in a
# session of its own, so that Ctrl-C reaches only this script and each process gets
# stop_all's one SIGTERM: a second signal would end it at once. The prefixing sed ignores
# Ctrl-C, so that it keeps reading until the process has stopped.
start() {
  local name=$1
  shift
  setsid "$@" > >(trap '' INT; exec sed -u "s/^/[$name] /") 2>&1 &
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
start fcm "$bin/FCMSandbox" --listen "127.0.0.1:$fcm_port" \
  --cert "$state/pki/server.pem" --key "$state/pki/server.key" \
  --public-key "$state/fcm-key.pub.pem" --client-email "$fcm_email" --project-id mowdeck-demo \
  --host localhost --record "$state/fcm.jsonl"
start ntfy "$bin/NtfySandbox" --listen "127.0.0.1:$ntfy_port" \
  --cert "$state/pki/server.pem" --key "$state/pki/server.key" --token "$ntfy_token" \
  --record "$state/ntfy.jsonl"
start camera "$bin/GatewaySimulator" --frames deploy/frames --latency-ms 800-2500
metrics=9101
for worker in FanoutWorker PhotoWorker APNsWorker WebPushWorker FCMWorker NtfyWorker; do
  for replica in 1 2; do
    MOWDECK_METRICS_LISTEN=127.0.0.1:$metrics start "$worker-$replica" "$bin/$worker"
    metrics=$((metrics + 1))
  done
done
MOWDECK_METRICS_LISTEN=127.0.0.1:$metrics start PruneWorker "$bin/PruneWorker"
MOWDECK_METRICS_LISTEN=127.0.0.1:$((metrics + 1)) MOWDECK_NOTIFICATIONS_HTTP_LISTEN=127.0.0.1:8080 \
  start serve-1 "$bin/ImageServeWorker"
MOWDECK_METRICS_LISTEN=127.0.0.1:$((metrics + 2)) MOWDECK_NOTIFICATIONS_HTTP_LISTEN=127.0.0.1:8081 \
  start serve-2 "$bin/ImageServeWorker"
metrics=$((metrics + 2))
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
echo "== the same owner's Android phone (FCM) and ntfy app are registered =="
# The phone's Firebase SDK gets its registration token from FCM; here, from the double.
fcm_token=$(curl -fsS --cacert "$state/pki/ca.pem" -X POST "https://localhost:$fcm_port/tokens" \
  -d '{}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
"$bin/mowdeck" device add --user u-7-0003-0 --platform fcm --token "$fcm_token"
# The server makes the topic; the user subscribes to the URL in the ntfy app.
ntfy_device=$("$bin/mowdeck" device add --user u-7-0003-0 --platform ntfy)
echo "$ntfy_device"
ntfy_topic=$(echo "$ntfy_device" | sed -n 's|^subscribe .*/||p')

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
echo "== what the browser, the Android phone and the ntfy app got (times since the alarm) =="
psql -qAtX "$MOWDECK_DATABASE_URL" -F ' ' -c "SELECT n.data->>'notification_id',
  extract(epoch FROM a.recorded_at) FROM events n JOIN events a
  ON a.correlation_id = n.correlation_id AND a.type = 'alarm.received'
  WHERE n.type = 'notification.created'" >"$state/demo-alarm-times"
curl -fsS --cacert "$state/pki/ca.pem" \
  "https://localhost:$ntfy_port/sandbox/topics/$ntfy_topic/view" >"$state/demo-ntfy-view"
python3 - "$state" <<'PY'
import datetime, json, sys
state = sys.argv[1]
received = {}
for line in open(f"{state}/demo-alarm-times"):
    notification, epoch = line.split()
    received[notification.replace("-", "")] = float(epoch)

def records(name):
    try:
        return [json.loads(line) for line in open(f"{state}/{name}")]
    except FileNotFoundError:
        return []

def since(notification, time):
    at = datetime.datetime.fromisoformat(time.replace("Z", "+00:00")).timestamp()
    start = received.get((notification or "").replace("-", ""))
    if start is None:
        return "?"
    ms = (at - start) * 1000
    return f"+{ms:.0f} ms" if ms < 1000 else f"+{ms / 1000:.2f} s"

lines = []
for push in records("webpushes.jsonl"):
    message = json.loads(push["payload"] or "{}")
    lines.append(("Web Push", push["time"], push["status"], message.get("notification_id"),
                  bool(message.get("image_url")), message.get("title"),
                  f'Topic={push["topic"]}'))
grants = 0
for send in records("fcm.jsonl"):
    if send["route"] == "token":
        grants += send["status"] == 200
        continue
    message = send["message"] or {}
    data = message.get("data") or {}
    tag = ((message.get("android") or {}).get("notification") or {}).get("tag")
    lines.append(("FCM", send["time"], send["status"], data.get("notification_id"),
                  "image_url" in data, (message.get("notification") or {}).get("title"),
                  f"tag={tag}"))
for publish in records("ntfy.jsonl"):
    lines.append(("ntfy", publish["time"], publish["status"], publish["sequence_id"],
                  bool(publish["attach"]), publish["title"],
                  f'priority={publish["priority"]} sequence_id={publish["sequence_id"]}'))
lines.sort(key=lambda line: (line[0], line[1]))
for channel, time, status, notification, photo, title, detail in lines:
    kind = "photo follow-up" if photo else "alarm's text"
    print(f"{channel:8}  {since(notification, time):>9}  {status}  {kind:15}  {title}  {detail}")
print(f"FCM: {grants} access token(s) granted for the service account (RS256 JWT bearer grant)")
for channel in ("Web Push", "FCM", "ntfy"):
    got = [line for line in lines if line[0] == channel and 200 <= line[2] < 300]
    texts = [line for line in got if not line[4]]
    photos = [line for line in got if line[4]]
    verdict = "ok" if texts and photos and texts[0][1] < photos[-1][1] else "MISSING"
    print(f"{channel}: {verdict}: {len(texts)} text(s), then {len(photos)} photo follow-up(s)")
shown = [json.loads(line) for line in open(f"{state}/demo-ntfy-view") if line.strip()]
for message in shown:
    attachment = message.get("attachment")
    photo = f'with the photo {attachment["name"]}' if attachment else "without a photo"
    print(f"the ntfy app shows one notification: {message.get('title')}, {photo}")
PY

for id in "${ids[@]}"; do
  echo
  "$bin/mowdeck" trace "$id" --summary
done

cat <<TEXT

== where to look ==
  web inbox:        https://localhost:$tls_port/inbox#token=$token
                    (or http://127.0.0.1:8080/inbox#token=$token; the certificate is the test CA's)
  metrics, health:  http://127.0.0.1:9101/metrics ... :$metrics/metrics; /livez, /readyz, /healthz
  pushes at APNs:   $state/pushes.jsonl
  browser pushes:   $state/webpushes.jsonl (decrypted by the Web Push double)
  FCM messages:     $state/fcm.jsonl (sends and access-token grants at the FCM double)
  ntfy messages:    $state/ntfy.jsonl; the phone's view:
                    curl --cacert $state/pki/ca.pem https://localhost:$ntfy_port/sandbox/topics/$ntfy_topic/view
  trace an alarm:   $bin/mowdeck trace <event_id>    (SQL: SELECT type, recorded_at, data FROM events
                    WHERE correlation_id = '<event_id>' ORDER BY position)
  database:         psql $MOWDECK_DATABASE_URL
  replay fleet40:   MOWDECK_DATABASE_URL=$MOWDECK_DATABASE_URL MOWDECK_NATS_URL=$MOWDECK_NATS_URL \\
                      $bin/mowdeck replay Tests/Fixtures/fleet40.alarms.jsonl
Running until Ctrl-C.
TEXT
wait
