#!/usr/bin/env bash
# Builds the push-URL and inbox-query parsing, with the signature check, as a libFuzzer
# target and runs it: at least 1,000,000 inputs by default. Not part of CI.
#   fuzz/run.sh [RUNS] [extra libFuzzer flags...]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-1000000}
shift || true
out=.build/fuzz
mkdir -p "$out/corpus"

swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name ImageServeFuzz \
  -I Sources/COpenSSL \
  fuzz/ImageServeFuzz.swift \
  Sources/ImageServeWorker/PushImageTarget.swift Sources/ImageServeWorker/CanonicalUUID.swift \
  Sources/ImageServeWorker/InboxQuery.swift \
  Sources/Events/Signing/ImageURLSigner.swift Sources/Events/Signing/Base64URL.swift \
  Sources/Events/Signing/Crypto.swift \
  -o "$out/image-serve-fuzz" 2> >(grep -v "Cannot export local symbol" >&2)

# Seeds: genuine URLs for the fuzz key (valid, expired, previous key) and inbox queries,
# so that mutations start next to what the signer accepts.
python3 - "$out/corpus" <<'PY'
import base64, hashlib, hmac, os, sys, uuid
folder = sys.argv[1]
def url(key, notification, expiry):
    message = f"mowdeck.push-image.v1\n{notification}\n{expiry}".encode()
    mac = hmac.new(key, message, hashlib.sha256).digest()
    signature = base64.urlsafe_b64encode(mac).decode().rstrip("=")
    return f"/api/v1/notifications/push-images/{notification}?e={expiry}&s={signature}"
seeds = []
for index, (key, expiry) in enumerate([(b"fuzz-key", 1900000600), (b"fuzz-key", 1899999999),
                                        (b"fuzz-previous-key", 1900000000)]):
    seeds.append(url(key, str(uuid.UUID(int=index * 7919 + 1)), expiry))
seeds += ["limit=50", "before=0b7c3b0e-1234-4a5b-8c9d-0123456789ab&limit=3"]
for index, seed in enumerate(seeds):
    with open(os.path.join(folder, f"seed-{index}"), "w") as f:
        f.write(seed)
PY

# New inputs go to the first folder (under .build); fuzz/corpus holds inputs that once
# failed, kept as regressions. A failure leaves its input in .build/fuzz/crash-*.
export SWIFT_BACKTRACE=enable=no
"$out/image-serve-fuzz" -runs="$runs" -max_len=400 -print_final_stats=1 \
  -artifact_prefix="$out/" "$@" "$out/corpus" fuzz/corpus \
  2>&1 | tee "$out/last-run.log"
grep -Eq "signer accepted [1-9]" "$out/last-run.log" || {
  echo "fuzz/run.sh: no input reached an accepted signature; the seeds are wrong" >&2
  exit 1
}
