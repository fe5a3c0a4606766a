#!/usr/bin/env bash
# The run command: on a fresh machine, installs what is missing, builds, starts PostgreSQL
# and nats-server with their data under .local/, migrates, imports a demo fleet, starts the
# workers, publishes a few demo alarms, shows what happened to each, and runs until Ctrl-C.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
swift build -c release >&2
bin=$(swift build -c release --show-bin-path)
state=$PWD/.local
mkdir -p "$state"
chmod 755 "$state"

pids=()
stop_all() {
  echo; echo "stopping..."
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  scripts/servers.sh stop "$state/servers"
  echo "stopped"
}
trap stop_all EXIT
trap 'exit 0' INT TERM

rm -rf "$state/servers"
scripts/servers.sh start "$state/servers"
# shellcheck disable=SC1091
source "$state/servers/env"
export MOWDECK_NOTIFICATIONS_APP_URL=${MOWDECK_NOTIFICATIONS_APP_URL:-https://127.0.0.1:8443}

# Starts one process with its log lines prefixed by its name.
start() {
  local name=$1; shift
  ( "$@" 2>&1 | sed -u "s/^/[$name] /" ) &
  pids+=($!)
}

"$bin/mowdeck" migrate
"$bin/mowdeck" fleet import Tests/Fixtures/fleet40.fleet.json
start fanout-1 "$bin/FanoutWorker"
start fanout-2 "$bin/FanoutWorker"
sleep 1

echo
echo "== publishing demo alarms =="
ids=()
for spec in "m-7-0003 mower_lifted" "m-7-0008 mower_stuck --reason trapped" "m-7-0011 battery_low" \
            "m-7-0003 geofence_exit"; do
  set -- $spec
  id=$(cat /proc/sys/kernel/random/uuid)
  ids+=("$id")
  "$bin/mowdeck" publish --mower "$1" --kind "$2" "${@:3}" --event-id "$id" --name "Robbie"
done
sleep 1
for id in "${ids[@]}"; do
  echo
  "$bin/mowdeck" trace "$id"
done

cat <<TEXT

== where to look ==
  trace an alarm:   $bin/mowdeck trace <event_id>   (or SQL: SELECT type, recorded_at, data
                    FROM events WHERE correlation_id = '<event_id>' ORDER BY position)
  database:         psql $MOWDECK_DATABASE_URL
  replay fleet40:   MOWDECK_DATABASE_URL=$MOWDECK_DATABASE_URL MOWDECK_NATS_URL=$MOWDECK_NATS_URL \\
                    $bin/mowdeck replay Tests/Fixtures/fleet40.alarms.jsonl
Running until Ctrl-C.
TEXT
wait
