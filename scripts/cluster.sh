#!/usr/bin/env bash
# A cluster on loopback, for the failover check (scripts/check-cluster.sh): three nats-server
# nodes with JetStream clustering, and a PostgreSQL primary with a synchronous streaming
# standby made by pg_basebackup. All data under one folder; `start DIR` writes DIR/env with
# the URLs every worker is given (libpq's multi-host form, nats.c's server list).
#   scripts/cluster.sh start DIR            scripts/cluster.sh stop DIR
#   scripts/cluster.sh kill-nats DIR NAME   SIGKILL one node (n1, n2 or n3), as a crash
#   scripts/cluster.sh start-nats DIR NAME  the same node again, on its port and store
#   scripts/cluster.sh fail-over-postgres DIR   crash the primary, promote the standby
set -euo pipefail
command=${1:?usage: cluster.sh start|stop|kill-nats|start-nats|fail-over-postgres DIR}
dir=${2:?usage: cluster.sh COMMAND DIR}
pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)

# shellcheck source=scripts/lib/free-port.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/free-port.sh"

as_postgres() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# Waits until an HTTP URL answers 200 (nats-server's monitoring), up to $2 seconds.
wait_http() {
  python3 - "$1" "${2:-30}" <<'PY'
import sys, time, urllib.request
url, limit = sys.argv[1], float(sys.argv[2])
end = time.time() + limit
while time.time() < end:
    try:
        if urllib.request.urlopen(url, timeout=1).status == 200:
            sys.exit(0)
    except Exception:
        pass
    time.sleep(0.1)
sys.exit(f"{url} did not answer 200 within {limit:.0f} s")
PY
}

start_nats() {
  local name=$1
  nats-server -c "$dir/nats/$name.conf" >>"$dir/nats/$name.log" 2>&1 &
  echo $! >"$dir/nats/$name.pid"
}

case "$command" in
start)
  mkdir -p "$dir/nats" "$dir/pg"
  dir=$(cd "$dir" && pwd)
  # nats-server: three nodes, each a client, a cluster-route and a monitoring port.
  declare -A client route monitor
  for name in n1 n2 n3; do
    client[$name]=$(free_port)
    route[$name]=$(free_port)
    monitor[$name]=$(free_port)
  done
  routes="nats-route://127.0.0.1:${route[n1]}, nats-route://127.0.0.1:${route[n2]}, nats-route://127.0.0.1:${route[n3]}"
  for name in n1 n2 n3; do
    cat >"$dir/nats/$name.conf" <<CONF
server_name: $name
listen: 127.0.0.1:${client[$name]}
http: 127.0.0.1:${monitor[$name]}
jetstream { store_dir: "$dir/nats/$name" }
cluster {
  name: mowdeck
  listen: 127.0.0.1:${route[$name]}
  routes: [$routes]
}
CONF
    echo "${monitor[$name]}" >"$dir/nats/$name.monitor"
    start_nats "$name"
  done

  # PostgreSQL: the primary first, then the standby copied from it while it runs.
  primary_port=$(free_port)
  standby_port=$(free_port)
  if [ "$(id -u)" -eq 0 ]; then chown postgres "$dir/pg"; chmod 700 "$dir/pg"; fi
  as_postgres "$pgbin/initdb" -D "$dir/pg/primary" -U postgres -A trust --no-sync \
    >"$dir/pg/initdb.log" 2>&1
  # fsync off (the kernel keeps the writes; no machine crashes here), but every commit
  # waits for the standby: an acknowledged commit is on both servers.
  cat >>"$dir/pg/primary/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $primary_port
unix_socket_directories = '$dir/pg'
max_connections = 300
fsync = off
full_page_writes = off
shared_buffers = 256MB
wal_level = replica
max_wal_senders = 5
synchronous_commit = on
CONF
  as_postgres "$pgbin/pg_ctl" -D "$dir/pg/primary" -l "$dir/pg/primary.log" -w start >/dev/null
  as_postgres psql -h 127.0.0.1 -p "$primary_port" -U postgres -q -c "CREATE DATABASE mowdeck" >/dev/null
  as_postgres "$pgbin/pg_basebackup" -h 127.0.0.1 -p "$primary_port" -U postgres \
    -D "$dir/pg/standby" -R -X stream --checkpoint=fast --no-sync >"$dir/pg/basebackup.log" 2>&1
  # The standby names itself in its conninfo (postgresql.auto.conf wins over
  # postgresql.conf, and its last line over earlier ones).
  cat >>"$dir/pg/standby/postgresql.conf" <<CONF
port = $standby_port
CONF
  echo "primary_conninfo = 'host=127.0.0.1 port=$primary_port user=postgres application_name=standby1'" \
    >>"$dir/pg/standby/postgresql.auto.conf"
  as_postgres "$pgbin/pg_ctl" -D "$dir/pg/standby" -l "$dir/pg/standby.log" -w start >/dev/null
  # Only now the primary waits for its standby: the copy must not carry this setting, or the
  # promoted standby would wait for a standby of its own that does not exist.
  echo "synchronous_standby_names = 'standby1'" >>"$dir/pg/primary/postgresql.conf"
  as_postgres "$pgbin/pg_ctl" -D "$dir/pg/primary" reload >/dev/null
  for _ in $(seq 1 100); do
    state=$(as_postgres psql -h 127.0.0.1 -p "$primary_port" -U postgres -Atq \
      -c "SELECT sync_state FROM pg_stat_replication WHERE application_name = 'standby1'")
    [ "$state" = sync ] && break
    sleep 0.1
  done
  [ "$state" = sync ] || { echo "cluster.sh: the standby never became synchronous" >&2; exit 1; }

  for name in n1 n2 n3; do wait_http "http://127.0.0.1:${monitor[$name]}/healthz" 30; done
  cat >"$dir/env" <<ENV
export MOWDECK_DATABASE_URL='postgresql://postgres@127.0.0.1:$primary_port,127.0.0.1:$standby_port/mowdeck?target_session_attrs=read-write'
export MOWDECK_NATS_URL='nats://127.0.0.1:${client[n1]},nats://127.0.0.1:${client[n2]},nats://127.0.0.1:${client[n3]}'
export MOWDECK_JETSTREAM_REPLICAS=3
ENV
  echo "cluster: nats-server n1..n3 on ${client[n1]}, ${client[n2]}, ${client[n3]}; PostgreSQL primary on $primary_port, synchronous standby on $standby_port ($dir)" >&2
  ;;
kill-nats)
  name=${3:?usage: cluster.sh kill-nats DIR NAME}
  pid=$(cat "$dir/nats/$name.pid")
  kill -9 "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
  ;;
start-nats)
  name=${3:?usage: cluster.sh start-nats DIR NAME}
  start_nats "$name"
  wait_http "http://127.0.0.1:$(cat "$dir/nats/$name.monitor")/healthz" 60
  ;;
fail-over-postgres)
  # The primary crashes (immediate stop: no goodbye to the clients), the standby is promoted.
  as_postgres "$pgbin/pg_ctl" -D "$dir/pg/primary" -m immediate stop >/dev/null
  as_postgres "$pgbin/pg_ctl" -D "$dir/pg/standby" -w promote >/dev/null
  ;;
stop)
  [ -d "$dir" ] || exit 0
  for pidfile in "$dir"/nats/*.pid; do
    [ -f "$pidfile" ] && { kill "$(cat "$pidfile")" 2>/dev/null || true; }
  done
  for data in "$dir/pg/primary" "$dir/pg/standby"; do
    if [ -d "$data" ]; then
      as_postgres "$pgbin/pg_ctl" -D "$data" -m immediate stop >/dev/null 2>&1 || true
    fi
  done
  ;;
*)
  echo "usage: cluster.sh start|stop|kill-nats|start-nats|fail-over-postgres DIR [NAME]" >&2
  exit 2
  ;;
esac
