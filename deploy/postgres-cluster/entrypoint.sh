#!/usr/bin/env bash
# Entrypoint of both PostgreSQL services of deploy/compose.cluster.yaml, in front of the
# image's own docker-entrypoint.sh. It acts only on an empty data directory:
#  - REPLICATE_FROM names a server: the directory is cloned from it with `pg_basebackup -R`,
#    which leaves standby.signal and a primary_conninfo carrying application_name
#    REPLICA_NAME (the name the primary's synchronous_standby_names waits for), and the
#    server starts as a hot standby that follows it;
#  - REPLICATE_FROM is empty: the image creates a new primary as usual.
# A data directory that exists starts as what it is: a primary, a standby, or a standby
# that was promoted (promotion removes standby.signal).
set -Eeo pipefail
PGDATA="${PGDATA:-/var/lib/postgresql/data}"
# The replication role's password comes as a file (a compose secret), like the image's
# POSTGRES_PASSWORD_FILE; pg_basebackup below and replication-user.sh, which the image's
# entrypoint runs, read the variable.
if [ -n "${REPLICATION_PASSWORD_FILE:-}" ]; then
  REPLICATION_PASSWORD=$(cat "$REPLICATION_PASSWORD_FILE")
  export REPLICATION_PASSWORD
fi

# The image starts as root and steps down to postgres with gosu (su-exec on Alpine);
# pg_basebackup must write the files as postgres too.
as_postgres() {
  if [ "$(id -u)" = 0 ]; then "$(command -v gosu || command -v su-exec)" postgres "$@"; else "$@"; fi
}

if [ ! -s "$PGDATA/PG_VERSION" ]; then
  if [ -n "${REPLICATE_FROM:-}" ]; then
    : "${REPLICATION_USER:?}" "${REPLICATION_PASSWORD:?}" "${REPLICA_NAME:?}"
    mkdir -p "$PGDATA"
    chmod 700 "$PGDATA"
    if [ "$(id -u)" = 0 ]; then chown postgres:postgres "$PGDATA"; fi
    # No depends_on on the primary (compose would start an old primary again with its old
    # data, next to the promoted standby): wait for it here instead.
    until pg_isready -q -h "$REPLICATE_FROM"; do
      echo "$0: waiting for $REPLICATE_FROM to clone it"
      sleep 2
    done
    # On failure pg_basebackup empties the directory again, and the restart policy retries.
    as_postgres env PGPASSWORD="$REPLICATION_PASSWORD" pg_basebackup --pgdata="$PGDATA" \
      --write-recovery-conf --wal-method=stream --checkpoint=fast \
      --dbname="host=$REPLICATE_FROM user=$REPLICATION_USER application_name=$REPLICA_NAME"
    echo "$0: cloned $REPLICATE_FROM; starting as its standby $REPLICA_NAME"
  else
    # The image's first start runs a private server with this command's -c options before
    # the real one: with synchronous_standby_names it would wait forever, at its CREATE
    # DATABASE, for a standby that cannot reach a server listening on no address. Its
    # setup sessions (psql reads PGOPTIONS) commit locally; the server itself ignores it.
    export PGOPTIONS="-c synchronous_commit=local"
  fi
fi
exec docker-entrypoint.sh "$@"
