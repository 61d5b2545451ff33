#!/usr/bin/env bash
# A Postgres-side profile of one coordinated unit (issue 23, item 3): in one process and one thread, a fixed number of
# units of tenure-db runInTransaction, tenure-db run + completeInTransaction, tenure-valkey runInTransaction,
# db-scheduler and shedlock jdbc, each on its own fresh tables. Per unit: statement texts and executions, round trips
# on the wire, commits, WAL bytes and records of the database, Postgres backend CPU; then each statement's plan
# (EXPLAIN ANALYZE with the parameters of a real execution, rolled back). Runs through run-coordinated.sh: a fresh
# database and a private valkey-server, both removed on exit.
#
#   bash benchmarks/run-pg-profile.sh                              # 2,000 warm-up + 2,000 measured units per row
#   bash benchmarks/run-pg-profile.sh --units 200 --warmup 50      # a smoke; any PgProfile option (--help)
#   bash benchmarks/run-pg-profile.sh --only 'tenure-db|db-scheduler'
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BENCH_MAIN=dev.tenure.bench.coordinated.PgProfile exec bash "$here/run-coordinated.sh" "$@"
