#!/usr/bin/env bash
# Builds Tenure and runs the main demo: three instances share a settlement job firing every second through the
# JobCoordinator while the demo kills one, freezes another and stops Valkey; prints a summary table.
# Installs valkey-server first if it is missing (without it the demo runs in the DATABASE mode).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/prerequisites.sh
mvn -B -ntp -q -DskipTests install
mvn -B -ntp -q -pl examples exec:exec
