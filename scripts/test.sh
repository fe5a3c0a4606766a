#!/usr/bin/env bash
# The test command: installs what is missing, builds, starts one throwaway PostgreSQL and
# one nats-server for the whole run, runs every test suite, and stops the servers.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh

servers=$(mktemp -d /tmp/mowdeck-test.XXXXXX)
chmod 755 "$servers"
# Workers a crashed test run could not stop would go on loading the machine (and the next
# run): every process of this build still running at the end goes with the servers.
bin_dir=$(swift build --show-bin-path)
trap 'pkill -9 -f "^$bin_dir/" || true; scripts/servers.sh stop "$servers"; rm -rf "$servers"' EXIT
scripts/servers.sh start "$servers"
# shellcheck disable=SC1091
source "$servers/env"
export MOWDECK_TEST_DATABASE_URL=$MOWDECK_DATABASE_URL
export MOWDECK_TEST_NATS_URL=$MOWDECK_NATS_URL
unset MOWDECK_DATABASE_URL MOWDECK_NATS_URL

swift build --build-tests
# The end-to-end tests fetch every photo with the phone's logic (scripts/phone-fetch.sh).
swift build -c release --package-path apps/mobile/ios/NotificationServiceKit --product push-image-fetch
export MOWDECK_BIN_DIR=$(swift build --show-bin-path)
# At most this many tests at once (ADR 0028): unbounded, a hundred tests that each start
# servers' worth of processes share two cores, and tests that wait for a state flake.
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=${MOWDECK_TEST_PARALLELISM:-4}
swift test --skip-build "$@"

if [ $# -eq 0 ]; then
  swift test --package-path apps/mobile/ios/NotificationServiceKit
  # The iOS release checks and tests, and the workflows against their schema (ADR 0038).
  scripts/check-ios-release.sh
  # With the pinned check-jsonschema and PyYAML of .local/venv (scripts/setup.sh).
  PATH="$PWD/.local/venv/bin:$PATH" scripts/check-compose.sh
  # The alert rules, the Prometheus config and the dashboard's queries, by promtool (ADR 0042).
  scripts/check-observability.sh
  # The fleet through a NATS cluster and a PostgreSQL failover, on servers of its own (ADR 0040).
  scripts/check-cluster.sh
fi
