#!/usr/bin/env bash
# Runs Tenure's main demo, the settlement tour: three instances share a settlement job firing every second through
# the JobCoordinator while the tour kills one, freezes another and stops Valkey; prints a summary table.
#   ./scripts/demo.sh                    the settlement tour
#   ./scripts/demo.sh <Name>             any example or tour in examples/ (see examples/README.md), e.g. PlainLockExample,
#                                        or in examples-spring-boot/ (BootSettlementExample)
#   ./scripts/demo.sh --no-console       the settlement tour without the ops console at the end (also TENURE_DEMO_CONSOLE=off)
# The settlement tour ends with the ops console on its database (in an interactive terminal) until Enter.
# Installs valkey-server first if it is missing (without it the settlement tour runs in the DATABASE mode). Installs
# nothing into ~/.m2: the reactor compiles the modules the examples need and runs the class in a fresh JVM.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/prerequisites.sh
example=SettlementTour
for arg in "$@"; do
  case "$arg" in
    --no-console) export TENURE_DEMO_CONSOLE=off ;;
    *) example="$arg" ;;
  esac
done
module=examples
if [[ -f "examples-spring-boot/src/main/java/dev/tenure/examples/boot/$example.java" ]]; then
  module=examples-spring-boot
fi
# inheritIo: the example reads this terminal (Enter stops the console) and prints straight to it
mvn -B -ntp -q -pl "$module" -am process-classes -Dexample="$example" -Dexec.inheritIo=true
