#!/usr/bin/env bash
# End-to-end check of push-image-fetch (and so of URLSessionPushImageHTTP) against a real TLS
# server on loopback, signed by a throwaway certificate authority.
#
# On Linux, URLSession cannot be told to trust an extra CA (see README), so the CLI runs in a
# private mount namespace where the system bundle is replaced by one that also holds the test
# CA. Nothing outside that namespace changes. Needs root, unshare, openssl and python3; without
# them it says SKIP and exits 0. Takes about 20 s (the hanging-server case uses the full 14 s).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
package="$(dirname "$here")"
system_bundle=/etc/ssl/certs/ca-certificates.crt

for tool in unshare openssl python3; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool not found" >&2; exit 0; }
done
if [[ $(id -u) != 0 || ! -f $system_bundle ]]; then
  echo "SKIP: needs root and $system_bundle" >&2
  exit 0
fi

swift build -j 1 --package-path "$package" --product push-image-fetch >/dev/null
bin="$(swift build --package-path "$package" --show-bin-path)/push-image-fetch"

work="$(mktemp -d)"
server_pid=""
cleanup() {
  if [[ -n $server_pid ]]; then kill "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

cd "$work"
openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 1 \
  -subj "/CN=push-image e2e CA" -addext "basicConstraints=critical,CA:TRUE" \
  -addext "keyUsage=critical,keyCertSign" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -keyout server.key -out server.csr -subj "/CN=localhost" \
  2>/dev/null
printf 'subjectAltName=DNS:localhost\nextendedKeyUsage=serverAuth\n' >server.ext
openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem \
  -days 1 -extfile server.ext 2>/dev/null
cat "$system_bundle" ca.pem >bundle.pem
# Something JPEG-shaped with every byte value in it.
python3 -c 'import sys
sys.stdout.buffer.write(b"\xff\xd8\xff\xe0" + bytes(range(256)) * 64 + b"\xff\xd9")' >photo.jpg

python3 "$here/push_image_server.py" server.pem server.key photo.jpg port &
server_pid=$!
for _ in $(seq 50); do [[ -s port ]] && break; sleep 0.1; done
port="$(cat port)"
mkdir out

failures=0
# expect CASE EXIT_STATUS TEXT: fetch case CASE and check the exit status and the printed line.
expect() {
  local url="https://localhost:$port/api/v1/notifications/push-images/"
  url+="00000000-0000-4000-8000-00000000000$1?e=1767225600&s=e2e-signature"
  local output status=0
  # shellcheck disable=SC2016 # the inner sh expands $1, $2 and $@
  output="$(unshare -m sh -c 'mount --bind "$1" "$2" && shift 2 && exec "$@"' sh \
    "$work/bundle.pem" "$system_bundle" "$bin" --output-dir "$work/out" "$url")" || status=$?
  if [[ $status == "$2" && $output == *"$3"* ]]; then
    echo "ok   case $1: $output"
  else
    echo "FAIL case $1: exit $status (wanted $2): $output (wanted: $3)"
    failures=$((failures + 1))
  fi
}

expect 1 0 "attempts"
file="$(find out -name '*.jpg' | head -1)"
if [[ -n $file ]] && cmp -s "$file" photo.jpg; then
  echo "ok   the attached file is byte-identical to the served photo"
else
  echo "FAIL the attached file differs from the served photo"
  failures=$((failures + 1))
fi
expect 2 1 "410"
expect 4 1 "unexpected status 302"
expect 5 1 "over"
expect 6 1 "unexpected status 429"
expect 7 1 "Content-Type text/html"
expect 3 1 "timed out"

# Without the namespace the test CA is not trusted, and --ca-file cannot change that here.
status=0
output="$("$bin" --ca-file ca.pem "https://localhost:$port/x" 2>&1)" || status=$?
if [[ $status == 2 && $output == *"works on Android only"* ]]; then
  echo "ok   --ca-file is refused with the reason"
else
  echo "FAIL --ca-file: exit $status: $output"
  failures=$((failures + 1))
fi

if ((failures > 0)); then
  echo "e2e-tls: $failures failure(s)"
  exit 1
fi
echo "e2e-tls: all passed"
