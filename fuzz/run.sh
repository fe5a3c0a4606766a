#!/usr/bin/env bash
# Builds a parser of hostile input as a libFuzzer target, together with the very source files
# the workers use, and runs it: 1,000,000 inputs per target by default. Not part of CI.
#   fuzz/run.sh [image-serve|alarm|camera|all] [RUNS] [extra libFuzzer flags...]
#     image-serve  push-image URLs and inbox queries, with the signature check (the default)
#     alarm        the ingress alarm parser, IngressAlarm.parse
#     camera       the camera reply's judgement, CameraReply.classify
#     all          the three, one after the other
# Each harness (fuzz/*Fuzz.swift) says what it checks for any input. The seeds come from
# fuzz/seeds.py; inputs that once failed are kept in fuzz/corpus/<target> as regressions.
set -euo pipefail
cd "$(dirname "$0")/.."
target=image-serve
case "${1:-}" in
  image-serve | alarm | camera | all)
    target=$1
    shift
    ;;
esac
runs=1000000
if [[ "${1:-}" =~ ^[0-9]+$ ]]; then
  runs=$1
  shift
fi
out=.build/fuzz
events=Sources/Events
infra=Sources/Infrastructure
mkdir -p "$out"

compile() {
  swiftc -O -sanitize=fuzzer,address -parse-as-library "$@" \
    2> >(grep -v "Cannot export local symbol" >&2)
}

# The worker files begin with `import Events` and `import Infrastructure`, while swiftc
# compiles the files they use into the fuzz target's own module: empty modules of those
# names let the imports resolve, and every name is then found in the target itself.
empty_events_module() {
  mkdir -p "$out/stub"
  for module in Events Infrastructure; do
    echo "// Empty: see empty_events_module in fuzz/run.sh." >"$out/stub/$module.swift"
    swiftc -parse-as-library -module-name "$module" -emit-module "$out/stub/$module.swift" \
      -emit-module-path "$out/stub/$module.swiftmodule"
  done
}

build() {
  case $1 in
    image-serve)
      empty_events_module
      compile -module-name ImageServeFuzz -I Sources/COpenSSL -I "$out/stub" \
        fuzz/ImageServeFuzz.swift \
        Sources/ImageServeWorker/PushImageTarget.swift \
        Sources/ImageServeWorker/CanonicalUUID.swift Sources/ImageServeWorker/InboxQuery.swift \
        $events/Signing/ImageURLSigner.swift $infra/Crypto/Base64URL.swift \
        $infra/Crypto/Crypto.swift \
        -o "$out/image-serve-fuzz"
      ;;
    alarm)
      empty_events_module
      compile -module-name AlarmParserFuzz -I "$out/stub" \
        fuzz/AlarmParserFuzz.swift Sources/FanoutWorker/IngressAlarm.swift \
        Sources/FanoutWorker/IngressPayload.swift Sources/FanoutWorker/IngressField.swift \
        $infra/Coding/JSONValidator.swift $infra/Coding/WireCoding.swift \
        $infra/Coding/JSON.swift $infra/Coding/JSONParser.swift \
        $infra/Support/Timestamp.swift $infra/Support/CleanText.swift \
        $infra/Support/Hex.swift $infra/Support/Trimming.swift \
        Sources/FanoutWorker/AlarmCatalogue.swift $events/Messages/Subjects.swift \
        -o "$out/alarm-fuzz"
      ;;
    camera)
      empty_events_module
      compile -module-name CameraReplyFuzz -I "$out/stub" -I Sources/CNats \
        fuzz/CameraReplyFuzz.swift Sources/PhotoWorker/CameraReply.swift \
        Sources/PhotoWorker/FailureDetail.swift Sources/PhotoWorker/PhotoFailure.swift \
        $infra/Messaging/NATSMessage.swift $events/Images/ImageLimits.swift \
        $infra/Coding/JSON.swift $infra/Coding/JSONParser.swift \
        $infra/Coding/WireCoding.swift $events/Messages/PhotoRequest.swift \
        $infra/Support/Timestamp.swift $infra/Support/CleanText.swift \
        $infra/Support/Hex.swift \
        -o "$out/camera-fuzz"
      ;;
  esac
}

# What each harness prints at exit that proves the run reached past the parser's first
# refusal (the seeds are wrong otherwise), and that its checks of the boundaries past
# -max_len passed.
expect_in_log() {
  local log=$1 pattern=$2 why=$3
  grep -Eq "$pattern" "$log" || {
    echo "fuzz/run.sh: $why (see $log)" >&2
    exit 1
  }
}

run() {
  local name=$1 max_len=4096
  shift
  [ "$name" = image-serve ] && max_len=400
  build "$name"
  # New inputs go to the first folder (under .build); fuzz/corpus/<target> holds inputs that
  # once failed. A failure leaves its input in .build/fuzz/<target>-crash-* (or -timeout-).
  python3 fuzz/seeds.py "$name" "$out/$name-corpus"
  mkdir -p "fuzz/corpus/$name"
  local log="$out/$name-last-run.log"
  echo "fuzz/run.sh: $name, $runs inputs"
  SWIFT_BACKTRACE=enable=no "$out/$name-fuzz" -runs="$runs" -max_len="$max_len" -timeout=10 \
    -print_final_stats=1 -artifact_prefix="$out/$name-" "$@" \
    "$out/$name-corpus" "fuzz/corpus/$name" 2>&1 | tee "$log"
  case $name in
    image-serve)
      expect_in_log "$log" "signer accepted [1-9]" "no input reached an accepted signature"
      ;;
    alarm)
      expect_in_log "$log" "accepted [1-9][0-9]* inputs" "no input was accepted as an alarm"
      expect_in_log "$log" "boundary checks failed: 0$" "a boundary check failed"
      ;;
    camera)
      expect_in_log "$log" "captured [1-9][0-9]* inputs" "no input was captured as a photo"
      expect_in_log "$log" "boundary checks failed: 0$" "a boundary check failed"
      ;;
  esac
}

if [ "$target" = all ]; then
  for name in image-serve alarm camera; do run "$name" "$@"; done
else
  run "$target" "$@"
fi
