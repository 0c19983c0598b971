#!/bin/sh
# The official image's start, as far as compose.yaml relies on it.
set -e
if [ "$1" != postgres ]; then
    exec "$@"
fi
chown postgres:postgres "$PGDATA"
chmod 700 "$PGDATA"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
    : "${POSTGRES_PASSWORD:?the official image refuses to start without POSTGRES_PASSWORD}"
    user=${POSTGRES_USER:-postgres}
    printf '%s\n' "$POSTGRES_PASSWORD" > /tmp/pwfile
    chown postgres /tmp/pwfile
    runuser -u postgres -- initdb --username="$user" --pwfile=/tmp/pwfile \
        --auth-local=trust --auth-host=scram-sha-256 >/dev/null
    rm /tmp/pwfile
    echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
    echo "listen_addresses = '*'" >> "$PGDATA/postgresql.auto.conf"
    db=${POSTGRES_DB:-$user}
    if [ "$db" != postgres ]; then
        runuser -u postgres -- postgres --single -D "$PGDATA" postgres >/dev/null <<SQL
CREATE DATABASE "$db" OWNER "$user";
SQL
    fi
fi
exec runuser -u postgres -- "$@"
