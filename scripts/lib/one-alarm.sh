# shellcheck shell=bash
# Sourced by scripts/check-image.sh and scripts/check-stack.sh: one alarm run through
# containers, and the two waits that judge it.

# Prints the image URL of the first push recorded by the APNs sandbox in container $1
# (its --record /tmp/pushes.jsonl), waiting up to 30 s; prints nothing if none came.
first_image_url() {
  local container=$1 url=""
  for _ in $(seq 60); do
    url=$(docker exec "$container" cat /tmp/pushes.jsonl 2>/dev/null | python3 -c '
import json, sys
for line in sys.stdin:
    url = (json.loads(line).get("payload") or {}).get("image_url")
    if url: print(url); break' || true)
    [ -n "$url" ] && break
    sleep 0.5
  done
  echo "$url"
}

# Asks the signed URL $1 as the phone's extension would, every half second, $2 times at
# most, until it answers the photo; prints the last answer ("200 image/jpeg" on success).
photo_answer() {
  local url=$1 tries=$2 answer=""
  for _ in $(seq "$tries"); do
    answer=$(curl -s --max-time 5 -o /dev/null -w '%{http_code} %{content_type}' "$url" || true)
    [ "$answer" = "200 image/jpeg" ] && break
    sleep 0.5
  done
  echo "$answer"
}

# Publishes one theft alarm by running `"$4"... mowdeck publish`, then requires a push with
# an image URL at the sandbox in container $2 and the photo served within $3 tries (half a
# second apart), and prints the alarm's trace; exits with a message naming $1 otherwise.
check_one_alarm() {
  local who=$1 sandbox=$2 tries=$3 id url answer
  shift 3
  id=$(cat /proc/sys/kernel/random/uuid)
  "$@" mowdeck publish --mower m-7-0003 --kind mower_lifted --event-id "$id" --name Robbie
  url=$(first_image_url "$sandbox")
  [ -n "$url" ] || { echo "$who: no push with an image URL reached the sandbox" >&2; exit 1; }
  echo "$who: pushed, image URL $url" >&2
  answer=$(photo_answer "$url" "$tries")
  "$@" mowdeck trace "$id" --summary || true
  [ "$answer" = "200 image/jpeg" ] || { echo "$who: the photo URL answered $answer" >&2; exit 1; }
}
