#!/usr/bin/env bash
# The console's benchmark: 1,000,000 job_run rows in a fresh database; the job list, one job's history page (first and
# deep), the whole pages over HTTP and `runs JOB` through the CLI against a 200 ms budget; EXPLAIN ANALYZE of every
# query (index use checked); a batched prune. Exits 1 if a budget or a plan check fails.
# Postgres: TENURE_PG_URL (+ TENURE_PG_USER, TENURE_PG_PASSWORD), else 127.0.0.1:5432 as postgres, else embedded.
# The database is dropped afterwards. Add -o to MVN_FLAGS to build offline.
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -q -B ${MVN_FLAGS:-} -pl tenure-console -am -DskipTests test-compile dependency:build-classpath \
    -Dmdep.outputFile=target/bench.classpath -Dmdep.includeScope=test
exec java -cp "tenure-console/target/test-classes:tenure-console/target/classes:$(cat tenure-console/target/bench.classpath)" \
    dev.tenure.console.ConsoleBenchmark "$@"
