#!/bin/sh
# The official postgres image's contract, as far as compose.yaml uses it.
set -eu
if [ "${1:-}" != postgres ]; then exec "$@"; fi
mkdir -p "$PGDATA" /run/postgresql
chown postgres:postgres "$PGDATA" /run/postgresql
chmod 700 "$PGDATA"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  pwfile="$(mktemp)"
  printf '%s\n' "$POSTGRES_PASSWORD" > "$pwfile"
  chown postgres "$pwfile"
  setpriv --reuid=postgres --regid=postgres --init-groups \
    initdb -D "$PGDATA" -U "${POSTGRES_USER:-postgres}" --pwfile="$pwfile" --auth-local=trust --auth-host=scram-sha-256 > /dev/null
  rm -f "$pwfile"
  echo 'host all all all scram-sha-256' >> "$PGDATA/pg_hba.conf"
  db="${POSTGRES_DB:-${POSTGRES_USER:-postgres}}"
  if [ "$db" != postgres ]; then
    echo "CREATE DATABASE \"$db\" OWNER \"${POSTGRES_USER:-postgres}\"" |
      setpriv --reuid=postgres --regid=postgres --init-groups postgres --single -D "$PGDATA" postgres > /dev/null
  fi
fi
shift
exec setpriv --reuid=postgres --regid=postgres --init-groups postgres -D "$PGDATA" -c listen_addresses='*' "$@"
