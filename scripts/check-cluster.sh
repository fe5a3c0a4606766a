#!/usr/bin/env bash
# The failover check (issue 25, ADR 0040): starts a cluster on loopback (scripts/cluster.sh:
# three nats-server nodes with JetStream clustering, a PostgreSQL primary with a synchronous
# standby), names it to the tests as their servers, and runs ClusterFailoverTests: the
# recorded fleet through two replicas of every worker while the stream's leader node is
# killed and brought back and the primary fails over. Prints what each failover cost.
# Expects a build (`swift build --build-tests`), as scripts/test.sh leaves it.
set -euo pipefail
cd "$(dirname "$0")/.."
cluster=$(mktemp -d /tmp/mowdeck-cluster.XXXXXX)
chmod 755 "$cluster"
bin_dir=$(swift build --show-bin-path)
trap 'pkill -9 -f "^$bin_dir/" || true; scripts/cluster.sh stop "$cluster"; rm -rf "$cluster"' EXIT
scripts/cluster.sh start "$cluster"
# shellcheck disable=SC1091
source "$cluster/env"
export MOWDECK_TEST_DATABASE_URL=$MOWDECK_DATABASE_URL
export MOWDECK_TEST_NATS_URL=$MOWDECK_NATS_URL
export MOWDECK_CLUSTER_DIR=$cluster
export MOWDECK_BIN_DIR=$bin_dir
unset MOWDECK_DATABASE_URL MOWDECK_NATS_URL MOWDECK_JETSTREAM_REPLICAS
set +e
swift test --skip-build --filter ClusterFailoverTests 2>&1 | tee "$cluster/test.log"
status=${PIPESTATUS[0]}
set -e
grep -q "cluster: stream leader" "$cluster/test.log" || { echo "check-cluster: no figures, the check did not run" >&2; exit 1; }
exit "$status"
