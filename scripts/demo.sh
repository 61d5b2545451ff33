#!/usr/bin/env bash
# Builds Tenure and runs the main demo: three worker processes sell coupons under per-coupon leases while the
# demo kills one and freezes another; prints a summary table. Installs valkey-server first if it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/prerequisites.sh
mvn -B -ntp -q -DskipTests install
mvn -B -ntp -q -pl examples exec:exec
