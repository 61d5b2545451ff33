#!/usr/bin/env bash
# The Postgres cost of statement shapes for one coordinated run, without Java: pgbench runs each script of
# benchmarks/pg-shapes/ (a unit: the claim, a business row and the completion, in the shapes Tenure uses or could use)
# on 1,000 jobs with 8 clients, in turns, and prints the server CPU, WAL bytes and rate per unit. It prices a change of
# the protocol (issue 37) before it is built. The server CPU is the machine's busy time less pgbench's own, so run it
# on an otherwise idle machine.
#
#   bash benchmarks/run-pg-shapes.sh                       # every script, 3 turns of 10 s
#   SECONDS_PER_RUN=5 TURNS=2 bash benchmarks/run-pg-shapes.sh today run-row-once
#
# Postgres: 127.0.0.1:5432, user postgres, trust auth (PGHOST/PGPORT/PGUSER override); a database of its own, created
# from Tenure's Flyway migrations and dropped on exit.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
pg_host="${PGHOST:-127.0.0.1}"
pg_port="${PGPORT:-5432}"
pg_user="${PGUSER:-postgres}"
seconds="${SECONDS_PER_RUN:-10}"
turns="${TURNS:-3}"
clients="${CLIENTS:-8}"
pgbench="$(command -v pgbench || ls /usr/lib/postgresql/*/bin/pgbench 2>/dev/null | tail -n 1 || true)"
if [ -z "$pgbench" ]; then
  echo "pgbench not found: install Debian's postgresql-15 (or postgresql-client-15) package" >&2
  exit 1
fi
scripts=("$@")
if [ ${#scripts[@]} -eq 0 ]; then
  scripts=(business-only plain-floor run-row-once job-row-once today built built-no-second-read)
fi

db="tenure_shapes_$$"
psql_() { psql -h "$pg_host" -p "$pg_port" -U "$pg_user" -v ON_ERROR_STOP=1 -qAt "$@"; }
cleanup() { psql_ -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 || true; }
trap cleanup EXIT
psql_ -d postgres -c "CREATE DATABASE $db"
{
  echo "CREATE SCHEMA tenure;"
  for f in $(ls "$root"/db/src/main/resources/dev/tenure/db/migration/V*.sql | sort -V); do
    sed 's/\${schema}/tenure/g' "$f"
  done
  echo "CREATE TABLE public.biz (id bigserial PRIMARY KEY, job text, fire text, at timestamptz DEFAULT now());"
  echo "INSERT INTO tenure.job_execution (job_key) SELECT 'j' || g FROM generate_series(1, 1000) g;"
} | psql_ -d "$db" >/dev/null

busy() { awk '/^cpu /{print $2+$3+$4+$7+$8}' /proc/stat; }
wal() { psql_ -d "$db" -c "SELECT wal_bytes FROM pg_stat_wal"; }
ticks="$(getconf CLK_TCK)"

echo "date     $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "commit   $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo "loadavg  $(cut -d' ' -f1-3 /proc/loadavg)"
echo "pgbench  $pgbench, $clients clients, $seconds s per run, $turns turns, prepared statements"
printf '%-16s %5s %9s %9s %22s %18s %13s\n' script turn units units/s "server CPU us/unit" "pgbench us/unit" "WAL B/unit"
tmp="$(mktemp -d)"
for turn in $(seq 1 "$turns"); do
  for s in "${scripts[@]}"; do
    w0="$(wal)"; b0="$(busy)"
    /usr/bin/time -f "%U %S" -o "$tmp/time" "$pgbench" -h "$pg_host" -p "$pg_port" -U "$pg_user" -n -M prepared \
      -c "$clients" -j 2 -T "$seconds" -f "$here/pg-shapes/$s.sql" "$db" > "$tmp/out" 2>&1 || true
    b1="$(busy)"; w1="$(wal)"
    n="$(awk '/number of transactions actually processed/{split($NF, a, "/"); print a[1]}' "$tmp/out")"
    if [ -z "$n" ] || [ "$n" = 0 ] || grep -qi "error" "$tmp/out"; then
      echo "$s failed:" >&2; cat "$tmp/out" >&2; exit 1
    fi
    python3 - "$s" "$turn" "$n" "$seconds" "$b0" "$b1" "$w0" "$w1" "$ticks" $(cat "$tmp/time") <<'EOF'
import sys
s, turn, n, secs, b0, b1, w0, w1, ticks, user, sys_ = sys.argv[1:12]
n = int(n); tick_us = 1e6 / int(ticks)
client = (float(user) + float(sys_)) * 1e6
total = (int(b1) - int(b0)) * tick_us
print('%-16s %5s %9d %9.0f %22.0f %18.0f %13.0f' % (s, turn, n, n / float(secs), (total - client) / n, client / n,
      (int(w1) - int(w0)) / n))
EOF
  done
done
rm -rf "$tmp"
