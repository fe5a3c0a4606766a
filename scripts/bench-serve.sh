#!/usr/bin/env bash
# The ImageServeWorker benchmark: wrk over loopback against a release build, next to nginx
# on the same machine in the same run, and prints a table.
#   scripts/bench-serve.sh [--seconds 10] [--runs 3]
# Rows: genuine 200s for a 20 KB and a 480 KB photo (limits raised through the env
# settings), forged-signature 404s, and the floors: nginx answering a static 404 and nginx
# serving the same 480 KB file. Each figure is the median of the runs.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=10
runs=3
while [ $# -gt 0 ]; do
  case "$1" in
  --seconds) seconds=$2; shift 2 ;;
  --runs) runs=$2; shift 2 ;;
  *) echo "usage: scripts/bench-serve.sh [--seconds N] [--runs N]" >&2; exit 2 ;;
  esac
done
scripts/setup.sh
for tool in wrk nginx; do
  command -v "$tool" >/dev/null || { echo "bench-serve: $tool is missing (apt-get install wrk nginx-light)" >&2; exit 1; }
done
# BENCH_SCRATCH_PATH: a build folder of its own (when another build holds .build).
scratch=()
[ -n "${BENCH_SCRATCH_PATH:-}" ] && scratch=(--scratch-path "$BENCH_SCRATCH_PATH")
swift build -c release "${scratch[@]}" --product ImageServeWorker >&2
bin=$(swift build -c release "${scratch[@]}" --show-bin-path)

work=$(mktemp -d /tmp/mowdeck-bench-serve.XXXXXX)
chmod 755 "$work"
worker_pid=""
cleanup() {
  [ -n "$worker_pid" ] && kill "$worker_pid" 2>/dev/null && wait "$worker_pid" 2>/dev/null
  [ -f "$work/nginx/nginx.pid" ] && nginx -c "$work/nginx/nginx.conf" -s stop 2>/dev/null
  scripts/servers.sh stop "$work/servers"
  rm -rf "$work"
}
trap cleanup EXIT
scripts/servers.sh start "$work/servers"
# shellcheck disable=SC1091
source "$work/servers/env"

# shellcheck source=scripts/lib/free-port.sh
source scripts/lib/free-port.sh
serve_port=$(free_port)
metrics_port=$(free_port)
nginx_port=$(free_port)

# The worker, limits raised so that wrk measures the server, not the 429s.
export MOWDECK_NOTIFICATIONS_HTTP_LISTEN=127.0.0.1:$serve_port
export MOWDECK_METRICS_LISTEN=127.0.0.1:$metrics_port
secret=bench-secret-of-at-least-32-bytes-long
export MOWDECK_NOTIFICATIONS_IMAGE_SECRET=$secret
export MOWDECK_NOTIFICATIONS_IMAGE_RATE_PER_NOTIFICATION=1000000000
export MOWDECK_NOTIFICATIONS_IMAGE_RATE_TOTAL=1000000000
export MOWDECK_LOG_LEVEL=warning
"$bin/ImageServeWorker" 2>"$work/worker.log" &
worker_pid=$!
for _ in $(seq 1 100); do
  curl -fs "http://127.0.0.1:$serve_port/healthz" >/dev/null 2>&1 && break
  sleep 0.1
done
curl -fs "http://127.0.0.1:$serve_port/healthz" >/dev/null || { cat "$work/worker.log" >&2; exit 1; }

# Two alarms with stored photos (the camera simulator's 20 KB and 480 KB frames), written
# as the fan-out and the PhotoWorker leave them.
seed() {  # seed NOTIFICATION_ID FILE
  # The photo goes in as a hex literal in a file: too long for a command-line argument.
  python3 - "$1" "$2" >"$work/seed.sql" <<'PY'
import sys
notification, path = sys.argv[1], sys.argv[2]
photo = open(path, "rb").read().hex()
print(f"""
INSERT INTO users (user_id, name) VALUES ('bench', 'Bench') ON CONFLICT DO NOTHING;
WITH alarm AS (
  INSERT INTO alarms (event_id, mower_id, kind, alarm_class, occurred_at, decided_on, decision,
                      photo, recipients)
  VALUES (gen_random_uuid(), 'm-bench', 'mower_lifted', 'theft', now(), now(), 'pushed',
          'reserved', 1)
  RETURNING event_id
), reservation AS (
  INSERT INTO photo_reservations (image_id, event_id, mower_id, reserved_on, state)
  SELECT gen_random_uuid(), event_id, 'm-bench', now(), 'captured' FROM alarm
  RETURNING image_id, event_id
), image AS (
  INSERT INTO notification_images (image_id, event_id, state, jpeg, byte_size, expires_at)
  SELECT image_id, event_id, 'captured', decode('{photo}', 'hex'), {len(photo) // 2},
         now() + interval '1 day'
  FROM reservation
)
INSERT INTO notifications (notification_id, event_id, user_id, image_id)
SELECT '{notification}', event_id, 'bench', image_id FROM reservation;
""")
PY
  psql "$MOWDECK_DATABASE_URL" -q -v ON_ERROR_STOP=1 -f "$work/seed.sql" >/dev/null
}
signed_target() {  # signed_target NOTIFICATION_ID KEY
  python3 - "$1" "$2" <<'PY'
import base64, hashlib, hmac, sys, time
notification, key = sys.argv[1], sys.argv[2].encode()
expiry = int(time.time()) + 3600
message = f"mowdeck.push-image.v1\n{notification}\n{expiry}".encode()
signature = base64.urlsafe_b64encode(hmac.new(key, message, hashlib.sha256).digest()).decode().rstrip("=")
print(f"/api/v1/notifications/push-images/{notification}?e={expiry}&s={signature}")
PY
}
small_id=$(python3 -c 'import uuid; print(uuid.uuid4())')
large_id=$(python3 -c 'import uuid; print(uuid.uuid4())')
seed "$small_id" deploy/frames/small.jpg
seed "$large_id" deploy/frames/near-limit.jpg
small_target=$(signed_target "$small_id" "$secret")
large_target=$(signed_target "$large_id" "$secret")
forged_target=$(signed_target "$large_id" not-the-key)
for target in "$small_target" "$large_target"; do
  [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$serve_port$target")" = 200 ] \
    || { echo "bench-serve: the seeded photo is not served" >&2; exit 1; }
done

# nginx on the same machine: a static 404, and the same 480 KB file.
mkdir -p "$work/nginx/html" "$work/nginx/tmp"
cp deploy/frames/near-limit.jpg "$work/nginx/html/photo.jpg"
chmod -R a+rX "$work/nginx"
cat >"$work/nginx/nginx.conf" <<CONF
worker_processes 2;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $work/nginx/tmp;
  proxy_temp_path $work/nginx/tmp;
  fastcgi_temp_path $work/nginx/tmp;
  uwsgi_temp_path $work/nginx/tmp;
  scgi_temp_path $work/nginx/tmp;
  server {
    listen 127.0.0.1:$nginx_port;
    root $work/nginx/html;
    location = /photo.jpg { default_type image/jpeg; }
    location / { return 404; }
  }
}
CONF
nginx -c "$work/nginx/nginx.conf" -e "$work/nginx/error.log"

# One wrk run: prints "requests_per_second p50_ms p99_ms non_2xx".
measure() {  # measure CONNECTIONS URL (one wrk thread per connection, at most two)
  wrk -t"$(( $1 < 2 ? 1 : 2 ))" -c"$1" -d"${seconds}s" --latency "$2" | awk '
    function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /s$/) return v * 1000; return v }
    /^ +50%/ { p50 = ms($2) }
    /^ +99%/ { p99 = ms($2) }
    /Non-2xx/ { bad = $NF }
    /^Requests\/sec/ { rps = $2 }
    END { printf "%.0f %.2f %.2f %d\n", rps, p50, p99, bad }'
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

declare -A rows
scenarios=(
  "genuine 200, 20 KB photo|4|http://127.0.0.1:$serve_port$small_target"
  "genuine 200, 480 KB photo|1|http://127.0.0.1:$serve_port$large_target"
  "genuine 200, 480 KB photo|4|http://127.0.0.1:$serve_port$large_target"
  "forged signature, 404|32|http://127.0.0.1:$serve_port$forged_target"
  "nginx static 404 (floor)|32|http://127.0.0.1:$nginx_port$forged_target"
  "nginx 480 KB file (floor)|4|http://127.0.0.1:$nginx_port/photo.jpg"
)
for run in $(seq 1 "$runs"); do
  for scenario in "${scenarios[@]}"; do
    IFS='|' read -r name connections url <<<"$scenario"
    rows[$name/$connections]+="$(measure "$connections" "$url")"$'\n'
  done
  echo "run $run of $runs done" >&2
done
rss_kb=$(awk '/VmHWM/ { print $2 }' "/proc/$worker_pid/status")

echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, $(uname -r)"
echo "wrk over loopback (2 threads, 1 for one connection), ${seconds}s a row, median of $runs runs; limits raised (MOWDECK_NOTIFICATIONS_IMAGE_RATE_*)"
printf '%-28s %5s %10s %9s %9s %9s\n' "scenario" "conns" "req/s" "p50 ms" "p99 ms" "non-2xx"
declare -A rps
for scenario in "${scenarios[@]}"; do
  IFS='|' read -r name connections _ <<<"$scenario"
  column() { printf '%s' "${rows[$name/$connections]}" | awk -v c="$1" 'NF { print $c }' | median; }
  rps[$name]=$(column 1)
  printf '%-28s %5s %10s %9s %9s %9s\n' "$name" "$connections" "${rps[$name]}" "$(column 2)" "$(column 3)" "$(column 4)"
done
forged=${rps["forged signature, 404"]}
floor=${rps["nginx static 404 (floor)"]}
echo "forged 404s / nginx static 404s: $(awk -v a="$forged" -v b="$floor" 'BEGIN { printf "%.2f", a / b }') (target >= 0.50)"
echo "ImageServeWorker peak RSS: $((rss_kb / 1024)) MiB"
