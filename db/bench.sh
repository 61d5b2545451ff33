#!/usr/bin/env bash
# Runs the ledger benchmark: claims/s, fence checks/s and renewals/s with p50/p99 latency.
# Usage: db/bench.sh [threads=16] [seconds per operation=10]
# Postgres: TENURE_PG_URL (+ TENURE_PG_USER, TENURE_PG_PASSWORD), else 127.0.0.1:5432 as postgres, else embedded.
# A fresh database is created for the run and dropped afterwards. Add -o to MVN_FLAGS to build offline.
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -q -B ${MVN_FLAGS:-} -pl db -am -DskipTests test-compile dependency:build-classpath \
    -Dmdep.outputFile=target/bench.classpath -Dmdep.includeScope=test
exec java -cp "db/target/test-classes:db/target/classes:$(cat db/target/bench.classpath)" \
    dev.tenure.db.LedgerBenchmark "$@"
