#!/usr/bin/env bash
# Runs Tenure's main demo, the settlement tour: three instances share a settlement job firing every second through
# the JobCoordinator while the tour kills one, freezes another and stops Valkey; prints a summary table.
#   ./scripts/demo.sh                    the settlement tour
#   ./scripts/demo.sh <Name>             any example or tour in examples/ (see examples/README.md), e.g. PlainLockExample,
#                                        or in examples-spring-boot/ (BootSettlementExample)
# Installs valkey-server first if it is missing (without it the settlement tour runs in the DATABASE mode). Installs
# nothing into ~/.m2: the reactor compiles the modules the examples need and runs the class in a fresh JVM.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/prerequisites.sh
example="${1:-SettlementTour}"
module=examples
if [[ -f "examples-spring-boot/src/main/java/dev/tenure/examples/boot/$example.java" ]]; then
  module=examples-spring-boot
fi
mvn -B -ntp -q -pl "$module" -am process-classes -Dexample="$example"
