#!/usr/bin/env bash
# The role the standby streams WAL with, and the pg_hba.conf line that lets it connect for
# replication. The postgres image runs this (from /docker-entrypoint-initdb.d/) when it
# creates the primary's data directory; pg_basebackup then copies both to the standby, so
# a promoted standby accepts the old primary as its own standby. For a data directory made
# earlier (the single-node stack's), run it once by hand:
#   docker compose -f deploy/compose.yaml -f deploy/compose.cluster.yaml \
#     exec -u postgres postgres bash /docker-entrypoint-initdb.d/10-replication-user.sh
# Safe to run again. It runs in a subshell: the image sources a script without its x bit.
(
  set -euo pipefail
  # Run by hand (above), it has only the file: the entrypoint is what reads it otherwise.
  if [ -z "${REPLICATION_PASSWORD:-}" ] && [ -n "${REPLICATION_PASSWORD_FILE:-}" ]; then
    REPLICATION_PASSWORD=$(cat "$REPLICATION_PASSWORD_FILE")
  fi
  : "${REPLICATION_USER:?}" "${REPLICATION_PASSWORD:?}" "${PGDATA:?}"
  psql -v ON_ERROR_STOP=1 --no-psqlrc --username "${POSTGRES_USER:-postgres}" --dbname postgres \
    --set user="$REPLICATION_USER" --set password="$REPLICATION_PASSWORD" <<'SQL'
SELECT format('CREATE ROLE %I WITH REPLICATION LOGIN', :'user')
  WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'user') \gexec
ALTER ROLE :"user" WITH REPLICATION LOGIN PASSWORD :'password';
SQL
  line="host replication $REPLICATION_USER all scram-sha-256"
  grep -qxF "$line" "$PGDATA/pg_hba.conf" || printf '%s\n' "$line" >> "$PGDATA/pg_hba.conf"
  psql --no-psqlrc --quiet --username "${POSTGRES_USER:-postgres}" --dbname postgres \
    --command 'SELECT pg_reload_conf()' > /dev/null
)
