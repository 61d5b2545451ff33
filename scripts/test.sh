#!/usr/bin/env bash
# Runs every test (unit and integration, against real valkey-server processes and Postgres), after installing
# what they need. This is the README's test command and what CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/prerequisites.sh
mvn -B -ntp -T 3 verify "$@"
