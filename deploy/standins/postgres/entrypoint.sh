#!/bin/sh
# A stand-in for the official postgres image's entrypoint: POSTGRES_USER, _PASSWORD, _DB.
set -e
mkdir -p "$PGDATA" /run/postgresql && chown -R postgres "$PGDATA" /run/postgresql && chmod 700 "$PGDATA"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  echo "$POSTGRES_PASSWORD" > /tmp/pw && chown postgres /tmp/pw
  su postgres -c "initdb -D $PGDATA -U $POSTGRES_USER --pwfile=/tmp/pw -A scram-sha-256" >/dev/null
  echo "listen_addresses='*'" >> "$PGDATA/postgresql.conf"
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  su postgres -c "pg_ctl -D $PGDATA -w -o '-c listen_addresses=' start" >/dev/null
  su postgres -c "PGPASSWORD=$POSTGRES_PASSWORD psql -h /run/postgresql -U $POSTGRES_USER -d postgres -c 'CREATE DATABASE $POSTGRES_DB'"
  su postgres -c "pg_ctl -D $PGDATA -w stop" >/dev/null
fi
exec su postgres -c "exec postgres -D $PGDATA"
