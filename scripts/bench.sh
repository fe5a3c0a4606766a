#!/usr/bin/env bash
# Runs a benchmark in release mode against throwaway servers and prints its table.
#   scripts/bench.sh fanout [--rate 200] [--seconds 10] [--alarms 5000] [--replicas N]
#   scripts/bench.sh webpush [--deliveries 5000] [--subscriptions 100]
#   scripts/bench.sh fcm [--deliveries 5000] [--devices 100]
#   scripts/bench.sh ntfy [--deliveries 5000] [--topics 100]
#   scripts/bench.sh pipeline [--rate 100] [--seconds 30] [--camera-ms 5000] [--replicas 2] [--out DIR]
#   scripts/bench.sh pipeline --ramp [100,250,500,750,1000,1500,2000] [--step-seconds 30]
#       [--camera-ms 5000] [--replicas 2]   one stack at rising rates; marks the highest it sustains
# (mowdeck-bench without arguments lists every benchmark and option.)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
swift build -c release --product mowdeck-bench >&2
swift build -c release >&2
servers=$(mktemp -d /tmp/mowdeck-bench.XXXXXX)
chmod 755 "$servers"
trap 'scripts/servers.sh stop "$servers"; rm -rf "$servers"' EXIT
scripts/servers.sh start "$servers"
# shellcheck disable=SC1091
source "$servers/env"
# The ramp samples PostgreSQL's and nats-server's CPU from their pid files here.
export MOWDECK_BENCH_SERVERS=$servers
export MOWDECK_TEST_DATABASE_URL=$MOWDECK_DATABASE_URL MOWDECK_TEST_NATS_URL=$MOWDECK_NATS_URL
unset MOWDECK_DATABASE_URL MOWDECK_NATS_URL
export MOWDECK_BIN_DIR=$(swift build -c release --show-bin-path)
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, $(uname -r)"
"$MOWDECK_BIN_DIR/mowdeck-bench" "$@"
