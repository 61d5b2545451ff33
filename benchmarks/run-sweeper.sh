#!/usr/bin/env bash
# The cost of Tenure's sweeper with many scheduled jobs (issue 21): statements and Postgres CPU per sweep, on a fresh
# database of its own (created here, dropped on exit).
#
#   bash benchmarks/run-sweeper.sh                              # 1,000 and 10,000 jobs, 10 s rate, 3 periods
#   bash benchmarks/run-sweeper.sh --jobs 10000 --periods 6     # any SweepBenchmark option
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
cd "$root"
pg_host="${PGHOST:-127.0.0.1}"; pg_port="${PGPORT:-5432}"; pg_user="${PGUSER:-postgres}"
echo "date        $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "git commit  $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo "nproc       $(nproc)"
echo "loadavg     $(cut -d' ' -f1-3 /proc/loadavg)"
cpfile="$here/target/bench.classpath"
if [ "${SKIP_BUILD:-0}" != "1" ] || [ ! -f "$cpfile" ]; then
  mvn -q -B ${MVN_FLAGS:-} -pl benchmarks -am -DskipTests package dependency:build-classpath \
      -Dmdep.outputFile=target/bench.classpath -Dmdep.includeScope=runtime
fi
db="tenure_sweep_$$"
psql -h "$pg_host" -p "$pg_port" -U "$pg_user" -d postgres -qc "CREATE DATABASE $db"
trap 'psql -h "$pg_host" -p "$pg_port" -U "$pg_user" -d postgres -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" || true' EXIT
java ${JAVA_OPTS:--Xmx512m} -cp "$here/target/classes:$(cat "$cpfile")" dev.tenure.bench.coordinated.SweepBenchmark \
  --db "$db" --pg-host "$pg_host" --pg-port "$pg_port" --pg-user "$pg_user" "$@"
