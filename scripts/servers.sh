#!/usr/bin/env bash
# Starts or stops a throwaway PostgreSQL and a nats-server with JetStream, on free ports,
# with all their data under one folder. `start DIR` writes DIR/env with the URLs.
# `start DIR crash-safe` keeps every acknowledged commit across a PostgreSQL crash (the
# chaos test restarts it with `-m immediate`); the default trades that for speed.
#   scripts/servers.sh start DIR     scripts/servers.sh stop DIR
#   scripts/servers.sh restart-postgres DIR     scripts/servers.sh restart-nats DIR [clean]  (chaos tests)
set -euo pipefail
command=${1:?usage: servers.sh start|stop DIR}
dir=${2:?usage: servers.sh start|stop DIR}
pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)

# shellcheck source=scripts/lib/free-port.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/free-port.sh"

as_postgres() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "$command" in
start)
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  # fsync off survives a crash of the server process (the kernel keeps the writes), but
  # asynchronous commit does not: acknowledged commits still in WAL buffers would vanish.
  synchronous_commit=off
  if [ "${3:-}" = crash-safe ]; then synchronous_commit=on; fi
  pg_port=$(free_port)
  nats_port=$(free_port)
  mkdir -p "$dir/pg" "$dir/nats"
  if [ "$(id -u)" -eq 0 ]; then chown postgres "$dir/pg"; chmod 700 "$dir/pg"; fi
  as_postgres "$pgbin/initdb" -D "$dir/pg/data" -U postgres -A trust --no-sync >"$dir/pg/initdb.log" 2>&1
  # Throwaway settings: durability traded for speed, enough connections for parallel tests.
  cat >>"$dir/pg/data/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $pg_port
unix_socket_directories = '$dir/pg'
max_connections = 300
fsync = off
synchronous_commit = $synchronous_commit
full_page_writes = off
shared_buffers = 256MB
CONF
  as_postgres "$pgbin/pg_ctl" -D "$dir/pg/data" -l "$dir/pg/server.log" -w start >/dev/null
  as_postgres psql -h 127.0.0.1 -p "$pg_port" -U postgres -q -c "CREATE DATABASE mowdeck" >/dev/null
  nats-server -js -a 127.0.0.1 -p "$nats_port" -sd "$dir/nats" >"$dir/nats/server.log" 2>&1 &
  echo $! >"$dir/nats/pid"
  for _ in $(seq 1 50); do
    python3 -c "import socket; socket.create_connection(('127.0.0.1',$nats_port),0.2)" 2>/dev/null && break
    sleep 0.1
  done
  cat >"$dir/env" <<ENV
export MOWDECK_DATABASE_URL=postgresql://postgres@127.0.0.1:$pg_port/mowdeck
export MOWDECK_NATS_URL=nats://127.0.0.1:$nats_port
export MOWDECK_PG_DATA=$dir/pg/data
export MOWDECK_PG_BIN=$pgbin
ENV
  echo "servers: PostgreSQL on 127.0.0.1:$pg_port, nats-server on 127.0.0.1:$nats_port ($dir)" >&2
  ;;
restart-postgres)
  # Immediate stop (as a crash), then start again on the same port and data.
  as_postgres "$pgbin/pg_ctl" -D "$dir/pg/data" -m immediate stop >/dev/null
  as_postgres "$pgbin/pg_ctl" -D "$dir/pg/data" -l "$dir/pg/server.log" -w start >/dev/null
  ;;
restart-nats)
  # SIGKILL (as a crash), or with `clean` SIGTERM (an orderly restart), then the same port
  # and JetStream store.
  port=$(sed -n 's|.*MOWDECK_NATS_URL=nats://127.0.0.1:||p' "$dir/env")
  pid=$(cat "$dir/nats/pid")
  if [ "${3:-}" = clean ]; then kill "$pid" 2>/dev/null || true; else kill -9 "$pid" 2>/dev/null || true; fi
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
  kill -9 "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
  nats-server -js -a 127.0.0.1 -p "$port" -sd "$dir/nats" >>"$dir/nats/server.log" 2>&1 &
  echo $! >"$dir/nats/pid"
  for _ in $(seq 1 50); do
    python3 -c "import socket; socket.create_connection(('127.0.0.1',$port),0.2)" 2>/dev/null && break
    sleep 0.1
  done
  ;;
stop)
  [ -d "$dir" ] || exit 0
  if [ -f "$dir/nats/pid" ]; then kill "$(cat "$dir/nats/pid")" 2>/dev/null || true; fi
  if [ -d "$dir/pg/data" ]; then
    as_postgres "$pgbin/pg_ctl" -D "$dir/pg/data" -m immediate stop >/dev/null 2>&1 || true
  fi
  ;;
*)
  echo "usage: servers.sh start|stop|restart-postgres|restart-nats DIR" >&2
  exit 2
  ;;
esac
