#!/bin/sh
# The entrypoint of the PostgreSQL image made from Debian's packages (postgres.Containerfile), doing
# what the registry's image does for docker-compose.yml: on the first start (an empty PGDATA) make
# the database cluster with POSTGRES_USER / POSTGRES_PASSWORD and the database POSTGRES_DB,
# accept password logins from the network, then run the server as the `postgres` user.
set -eu
: "${POSTGRES_USER:=postgres}"
: "${POSTGRES_DB:=$POSTGRES_USER}"
: "${PGDATA:=/var/lib/postgresql/data}"
as_postgres() { setpriv --reuid=postgres --regid=postgres --init-groups "$@"; }

if [ "$(id -u)" = 0 ]; then
    install -d -o postgres -g postgres -m 0700 "$PGDATA"
    chown -R postgres:postgres "$PGDATA"
fi
if [ ! -s "$PGDATA/PG_VERSION" ]; then
    if [ -z "${POSTGRES_PASSWORD:-}" ]; then
        echo "POSTGRES_PASSWORD is not set: refusing to make a database anyone can log in to" >&2
        exit 1
    fi
    pwfile=$(mktemp)
    printf '%s\n' "$POSTGRES_PASSWORD" > "$pwfile"
    chown postgres "$pwfile"
    as_postgres initdb --username="$POSTGRES_USER" --pwfile="$pwfile" --auth-local=trust \
        --auth-host=scram-sha-256 -D "$PGDATA" >/dev/null
    rm -f "$pwfile"
    echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
    echo "listen_addresses = '*'" >> "$PGDATA/postgresql.auto.conf"
    if [ "$POSTGRES_DB" != postgres ]; then
        as_postgres pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
        as_postgres psql -q -v ON_ERROR_STOP=1 -U "$POSTGRES_USER" -d postgres \
            -c "CREATE DATABASE \"$POSTGRES_DB\""
        as_postgres pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
    fi
    echo "made the database $POSTGRES_DB for $POSTGRES_USER in $PGDATA"
fi
if [ "${1:-}" = postgres ]; then
    exec setpriv --reuid=postgres --regid=postgres --init-groups "$@"
fi
exec "$@"
