#!/usr/bin/env bash
# Parses per second of the fan-out's ingress check (IngressAlarm.parse) over the recorded
# stream, Tests/Fixtures/fleet40.alarms.jsonl: built with `swiftc -O` from the very source
# files the worker uses, as they are in the work tree or at a git revision, to compare a
# change with what came before. Not part of CI.
#   scripts/ingress-speed.sh [REVISION] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
revision=${1:-}
rounds=${2:-20}
out=.build/ingress-speed
sources=Sources
name=worktree
mkdir -p "$out/stub"
if [ -n "$revision" ]; then
  name=$(git rev-parse --short "$revision")
  sources=$out/sources-$name
  rm -rf "$sources"
  mkdir -p "$sources"
  git archive "$revision" Sources | tar -x -C "$sources" --strip-components=1
fi
# The files of the ingress check at any revision since Infrastructure became a module: the
# ones a revision lacks are left out.
files=()
for file in FanoutWorker/IngressAlarm.swift FanoutWorker/IngressPayload.swift \
  FanoutWorker/IngressField.swift FanoutWorker/AlarmCatalogue.swift \
  Events/Messages/Subjects.swift Infrastructure/Coding/JSON.swift \
  Infrastructure/Coding/JSONParser.swift Infrastructure/Coding/JSONValidator.swift \
  Infrastructure/Coding/WireCoding.swift Infrastructure/Support/Timestamp.swift \
  Infrastructure/Support/CleanText.swift Infrastructure/Support/Hex.swift \
  Infrastructure/Support/Trimming.swift; do
  if [ -f "$sources/$file" ]; then files+=("$sources/$file"); fi
done
# Empty modules named Events and Infrastructure let the files' imports resolve while every
# name is compiled into this one program (as fuzz/run.sh does).
for module in Events Infrastructure; do
  echo "// Empty: see scripts/ingress-speed.sh." >"$out/stub/$module.swift"
  swiftc -parse-as-library -module-name "$module" -emit-module "$out/stub/$module.swift" \
    -emit-module-path "$out/stub/$module.swiftmodule"
done
swiftc -O -parse-as-library -module-name IngressSpeed -I "$out/stub" \
  scripts/lib/IngressSpeed.swift "${files[@]}" -o "$out/ingress-speed-$name"
echo "ingress-speed: $name"
"$out/ingress-speed-$name" Tests/Fixtures/fleet40.alarms.jsonl "$rounds"
