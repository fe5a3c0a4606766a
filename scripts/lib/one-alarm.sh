# shellcheck shell=bash
# Sourced by scripts/check-image.sh and scripts/check-stack.sh: the two waits that judge
# one alarm run through containers.

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
