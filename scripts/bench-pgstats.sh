#!/usr/bin/env bash
# The pipeline benchmark with PostgreSQL's statement statistics: runs
# `mowdeck-bench pipeline ARGS` against fresh servers that load pg_stat_statements and log
# statements over 15 ms, then prints the statements by total time, the statement count and
# the slow-statement log. For finding where PostgreSQL's share of the two cores goes.
#   scripts/bench-pgstats.sh --rate 100 --seconds 60 --camera-ms 5000
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
swift build -c release >&2
servers=$(mktemp -d /tmp/mowdeck-pgstats.XXXXXX)
chmod 755 "$servers"
trap 'scripts/servers.sh stop "$servers"; rm -rf "$servers"' EXIT
scripts/servers.sh start "$servers"
# shellcheck disable=SC1091
source "$servers/env"
cat >>"$MOWDECK_PG_DATA/postgresql.conf" <<CONF
shared_preload_libraries = 'pg_stat_statements'
pg_stat_statements.track = all
# Not the setup and clean-up (ANALYZE, DROP SCHEMA, CHECKPOINT): only the load's statements.
pg_stat_statements.track_utility = off
pg_stat_statements.track_planning = on
log_min_duration_statement = 15
log_line_prefix = '%m [%p] %a '
CONF
pg_ctl() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$MOWDECK_PG_BIN/pg_ctl" "$@"; else "$MOWDECK_PG_BIN/pg_ctl" "$@"; fi; }
pg_ctl -D "$MOWDECK_PG_DATA" -l "$servers/pg/server.log" -w restart >/dev/null
database=$MOWDECK_DATABASE_URL
psql "$database" -qc "CREATE EXTENSION pg_stat_statements"
export MOWDECK_TEST_DATABASE_URL=$MOWDECK_DATABASE_URL MOWDECK_TEST_NATS_URL=$MOWDECK_NATS_URL
unset MOWDECK_DATABASE_URL MOWDECK_NATS_URL
MOWDECK_BIN_DIR=$(swift build -c release --show-bin-path)
export MOWDECK_BIN_DIR
"$MOWDECK_BIN_DIR/mowdeck-bench" pipeline "$@"
echo
echo "PostgreSQL statements (nested ones, such as foreign-key checks, included):"
psql "$database" -c "SELECT sum(calls) AS statements, round(sum(total_exec_time)::numeric) AS execution_ms, round(sum(total_plan_time)::numeric) AS planning_ms FROM pg_stat_statements"
psql "$database" -c "
  SELECT calls, round(total_exec_time::numeric) AS total_ms, round(total_plan_time::numeric) AS plan_ms, round(mean_exec_time::numeric, 3) AS mean_ms,
         round(max_exec_time::numeric, 1) AS max_ms, left(regexp_replace(query, '\s+', ' ', 'g'), 80) AS statement
  FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 15"
echo "statements over 15 ms: $(grep -c 'duration:' "$servers/pg/server.log" || true)"
