#!/usr/bin/env bash
# Coordinated runs: Tenure (VALKEY and DATABASE modes) next to db-scheduler, a clustered Quartz JDBC store and ShedLock's
# JDBC provider, on one fresh Postgres database and one private valkey-server, in one run. Prints plain-text tables.
#
#   bash benchmarks/run-coordinated.sh                          # every row, synchronous_commit on and off
#   bash benchmarks/run-coordinated.sh --seconds 10 --sync on   # shorter; any CoordinatedBenchmark option (--help)
#   bash benchmarks/run-coordinated.sh --only "tenure-valkey 1000 jobs$|db-scheduler"  # rows by regex
#
# Postgres: 127.0.0.1:5432, user postgres, trust auth (PGHOST/PGPORT/PGUSER override); a database of its own is
# created for the run and dropped afterwards. Valkey: a private valkey-server on a free loopback port (never 6379),
# stopped by PID on exit. Environment: JAVA_OPTS (default -Xmx512m), SKIP_BUILD=1 (reuse the last build),
# MVN_FLAGS (e.g. -o), VALKEY_SERVER (default valkey-server), PG_TEST_FSYNC (default: Postgres' own, 0 to skip),
# BENCH_MAIN (the program run on that database and server; default the coordinated benchmark; run-scale.sh sets it).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
cd "$root"

pg_host="${PGHOST:-127.0.0.1}"
pg_port="${PGPORT:-5432}"
pg_user="${PGUSER:-postgres}"

echo "== environment =="
echo "date        $(date -u +%Y-%m-%dT%H:%M:%SZ)"
commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [ -n "$(git status --porcelain -- benchmarks coordinator-core db tenure-valkey 2>/dev/null || true)" ]; then
  commit="$commit (+ uncommitted changes)"
fi
echo "git commit  $commit"
echo "jdk         $(java -version 2>&1 | head -n 1)"
echo "nproc       $(nproc)"
echo "loadavg     $(cut -d' ' -f1-3 /proc/loadavg)"
echo "valkey      $("${VALKEY_SERVER:-valkey-server}" --version | head -n 1)"
echo "postgres    $(psql -h "$pg_host" -p "$pg_port" -U "$pg_user" -d postgres -Atc 'SELECT version()')"

# The disk's flush rate (the ceiling of commits/s for a single client without group commit), measured on the
# file system of the server's data directory when it is the same as /tmp's; informational.
fsync_tool="${PG_TEST_FSYNC:-$(ls /usr/lib/postgresql/*/bin/pg_test_fsync 2>/dev/null | tail -n 1 || true)}"
if [ -n "$fsync_tool" ] && [ "$fsync_tool" != "0" ]; then
  tmpf="$(mktemp -d -t tenure-fsync.XXXXXX)"
  rate="$("$fsync_tool" -s 1 -f "$tmpf/probe" 2>/dev/null | awk '/one 8kB write/ {one=1} one && $1 == "fdatasync" {print $2 " ops/s (" $4 " us/op)"; exit}' || true)"
  rm -rf "$tmpf"
  echo "fdatasync   ${rate:-?} (pg_test_fsync, one 8 kB write, $(df --output=source /tmp | tail -n 1))"
fi
echo

cpfile="$here/target/bench.classpath"
if [ "${SKIP_BUILD:-0}" != "1" ] || [ ! -f "$cpfile" ]; then
  echo "building (mvn -q -B -pl benchmarks -am -DskipTests package) ..."
  # the plugin's version is named: Maven's default for a bare dependency:build-classpath (2.8) is not in ~/.m2 offline
  # shellcheck disable=SC2086
  mvn -q -B ${MVN_FLAGS:-} -pl benchmarks -am -DskipTests package \
      org.apache.maven.plugins:maven-dependency-plugin:3.8.1:build-classpath \
      -Dmdep.outputFile=target/bench.classpath -Dmdep.includeScope=runtime
  echo
fi
classpath="$here/target/classes:$(cat "$cpfile")"

server_pid=""
workdir=""
db=""
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  if [ -n "$workdir" ]; then rm -rf "$workdir"; fi
  if [ -n "$db" ]; then
    psql -h "$pg_host" -p "$pg_port" -U "$pg_user" -d postgres -qAtc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 \
      || echo "could not drop database $db" >&2
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

workdir="$(mktemp -d -t tenure-coord.XXXXXX)"
for attempt in 1 2 3 4 5 6 7 8 9 10; do
  port=$(( 20000 + RANDOM % 20000 ))
  [ "$port" = 6379 ] && continue
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then continue; fi   # something listens there
  "${VALKEY_SERVER:-valkey-server}" --port "$port" --bind 127.0.0.1 --save "" --appendonly no \
      --dir "$workdir" --logfile "$workdir/valkey.log" --daemonize no &
  server_pid=$!
  for _ in $(seq 1 50); do
    if valkey-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null | grep -q PONG; then break; fi
    if ! kill -0 "$server_pid" 2>/dev/null; then break; fi
    sleep 0.1
  done
  if kill -0 "$server_pid" 2>/dev/null && valkey-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null | grep -q PONG; then
    break
  fi
  kill "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
  server_pid=""
done
if [ -z "$server_pid" ]; then
  echo "could not start valkey-server (see $workdir/valkey.log)" >&2
  exit 1
fi
echo "started valkey-server pid $server_pid on 127.0.0.1:$port (no persistence)"

db="tenure_coord_$(date +%Y%m%d%H%M%S)_$$"
psql -h "$pg_host" -p "$pg_port" -U "$pg_user" -d postgres -qAtc "CREATE DATABASE $db" >/dev/null
echo "created database $db (dropped on exit)"
echo

# Not exec: the EXIT trap must still stop the server and drop the database.
# shellcheck disable=SC2086
java ${JAVA_OPTS:--Xmx512m} -cp "$classpath" "${BENCH_MAIN:-dev.tenure.bench.coordinated.CoordinatedBenchmark}" \
    --pg-host "$pg_host" --pg-port "$pg_port" --pg-user "$pg_user" --db "$db" \
    --valkey-port "$port" --valkey-pid "$server_pid" "$@"
