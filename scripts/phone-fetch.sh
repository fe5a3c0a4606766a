#!/usr/bin/env bash
# Runs push-image-fetch (the phone's fetch logic on Linux) trusting a test certificate
# authority: URLSession on Linux reads only the system bundle, so the command runs in a
# private mount namespace where that bundle also holds the test CA. Nothing outside changes.
#   scripts/phone-fetch.sh CA.pem URL [push-image-fetch options]
set -euo pipefail
ca=${1:?usage: phone-fetch.sh CA.pem URL [options]}
shift
here=$(cd "$(dirname "$0")/.." && pwd)
bin=$(swift build -c release --package-path "$here/apps/mobile/ios/NotificationServiceKit" --show-bin-path)/push-image-fetch
system_bundle=/etc/ssl/certs/ca-certificates.crt
bundle=$(mktemp)
trap 'rm -f "$bundle"' EXIT
cat "$system_bundle" "$ca" >"$bundle"
# shellcheck disable=SC2016 # the inner sh expands its own arguments
unshare -m sh -c 'mount --bind "$1" "$2" && shift 2 && exec "$@"' sh "$bundle" "$system_bundle" "$bin" "$@"
