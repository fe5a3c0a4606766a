#!/bin/sh
# A stand-in for the official postgres image's entrypoint: POSTGRES_USER, POSTGRES_DB, and
# POSTGRES_PASSWORD or POSTGRES_PASSWORD_FILE. Like the image's, it starts as root (and
# steps down to postgres) or, as compose.yaml runs it, as postgres from the start.
set -e
if [ -n "${POSTGRES_PASSWORD_FILE:-}" ]; then
  POSTGRES_PASSWORD=$(cat "$POSTGRES_PASSWORD_FILE")
fi
as_postgres() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
mkdir -p "$PGDATA" /run/postgresql
if [ "$(id -u)" = 0 ]; then chown -R postgres "$PGDATA" /run/postgresql; fi
chmod 700 "$PGDATA"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  pwfile=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
  if [ "$(id -u)" = 0 ]; then chown postgres "$pwfile"; fi
  as_postgres initdb -D "$PGDATA" -U "$POSTGRES_USER" --pwfile="$pwfile" \
    -A scram-sha-256 >/dev/null
  rm -f "$pwfile"
  echo "listen_addresses='*'" >>"$PGDATA/postgresql.conf"
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  as_postgres pg_ctl -D "$PGDATA" -w -o "-c listen_addresses=" start >/dev/null
  # psql quotes the name (:"db"); it interpolates variables only in what it reads.
  echo 'CREATE DATABASE :"db"' | PGPASSWORD=$POSTGRES_PASSWORD as_postgres \
    psql -h /run/postgresql -U "$POSTGRES_USER" -d postgres -v db="$POSTGRES_DB" >/dev/null
  as_postgres pg_ctl -D "$PGDATA" -w stop >/dev/null
fi
if [ "$(id -u)" = 0 ]; then exec runuser -u postgres -- postgres -D "$PGDATA"; fi
exec postgres -D "$PGDATA"
