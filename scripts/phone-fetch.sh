#!/usr/bin/env bash
# Runs push-image-fetch (the phone's fetch logic on Linux) trusting a test certificate
# authority: URLSession on Linux reads only the system bundle, so the command runs in a
# private mount namespace where that bundle also holds the test CA. Nothing outside changes.
#   scripts/phone-fetch.sh CA.pem [push-image-fetch options] URL
#   scripts/phone-fetch.sh CA.pem --each FILE [push-image-fetch options]
#     fetches every URL of FILE (one a line) in one namespace and prints, for each,
#     "<exit status> <URL>" (0 attached, 1 gave up, 2 rejected).
# Builds push-image-fetch (release) first when it is missing.
set -euo pipefail
ca=${1:?usage: phone-fetch.sh CA.pem URL [options]}
shift
here=$(cd "$(dirname "$0")/.." && pwd)
package="$here/apps/mobile/ios/NotificationServiceKit"
bin=$(swift build -c release --package-path "$package" --show-bin-path)/push-image-fetch
if [ ! -x "$bin" ]; then
  swift build -c release --package-path "$package" --product push-image-fetch >&2
fi
system_bundle=/etc/ssl/certs/ca-certificates.crt
bundle=$(mktemp)
trap 'rm -f "$bundle"' EXIT
cat "$system_bundle" "$ca" >"$bundle"
if [ "${1:-}" = --each ]; then
  list=${2:?--each needs a file of URLs}
  shift 2
  # shellcheck disable=SC2016 # the inner sh expands its own arguments
  unshare -m sh -c '
    mount --bind "$1" "$2" || exit 3
    bin=$3; list=$4; shift 4
    while IFS= read -r url; do
      [ -n "$url" ] || continue
      status=0
      "$bin" "$@" "$url" >/dev/null 2>&1 || status=$?
      echo "$status $url"
    done <"$list"' sh "$bundle" "$system_bundle" "$bin" "$list" "$@"
  exit 0
fi
# shellcheck disable=SC2016 # the inner sh expands its own arguments
unshare -m sh -c 'mount --bind "$1" "$2" && shift 2 && exec "$@"' sh "$bundle" "$system_bundle" "$bin" "$@"
