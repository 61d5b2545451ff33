#!/usr/bin/env bash
# Scale (issue 23, item 5): many jobs on one schedule across several node processes, every node firing every job at
# its slot (as @Scheduled on every instance does) and Tenure running each fire once, in VALKEY and DATABASE mode.
# Prints one table: per fire, Postgres statements, commits and CPU, Valkey commands, node JVM CPU, the start delay
# after the fire time, and the account of every fire (ran, duplicated, MISSED, open). Runs through run-coordinated.sh:
# a fresh database and a private valkey-server, both removed on exit.
#
#   bash benchmarks/run-scale.sh                                     # 1,000 and 10,000 jobs x 3 and 8 nodes x both modes
#   bash benchmarks/run-scale.sh --jobs 200 --nodes 3 --periods 1    # a smoke; any ScaleBenchmark option (--help)
#   bash benchmarks/run-scale.sh --slots spread,aligned              # also every job at the top of the period
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here/.."
commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [ -n "$(git status --porcelain -- benchmarks coordinator-core db tenure-valkey 2>/dev/null || true)" ]; then
  commit="$commit (+ uncommitted changes)"
fi
BENCH_MAIN=dev.tenure.bench.coordinated.ScaleBenchmark exec bash "$here/run-coordinated.sh" \
    --command "bash benchmarks/run-scale.sh $*" --commit "$commit" "$@"
