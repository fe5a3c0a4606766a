#!/bin/sh
# A stand-in for the official postgres image's entrypoint: POSTGRES_USER, _PASSWORD, _DB.
set -e
mkdir -p "$PGDATA" /run/postgresql
chown -R postgres "$PGDATA" /run/postgresql
chmod 700 "$PGDATA"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  pwfile=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
  chown postgres "$pwfile"
  runuser -u postgres -- initdb -D "$PGDATA" -U "$POSTGRES_USER" --pwfile="$pwfile" \
    -A scram-sha-256 >/dev/null
  rm -f "$pwfile"
  echo "listen_addresses='*'" >>"$PGDATA/postgresql.conf"
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  runuser -u postgres -- pg_ctl -D "$PGDATA" -w -o "-c listen_addresses=" start >/dev/null
  # psql quotes the name (:"db"); it interpolates variables only in what it reads.
  echo 'CREATE DATABASE :"db"' | PGPASSWORD=$POSTGRES_PASSWORD runuser -u postgres -- \
    psql -h /run/postgresql -U "$POSTGRES_USER" -d postgres -v db="$POSTGRES_DB" >/dev/null
  runuser -u postgres -- pg_ctl -D "$PGDATA" -w stop >/dev/null
fi
exec runuser -u postgres -- postgres -D "$PGDATA"
