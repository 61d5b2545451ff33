#!/usr/bin/env bash
# Builds the benchmark module, starts a private valkey-server on a free loopback port (unless --port is given),
# runs dev.tenure.bench.LockBenchmark against it, and stops the server it started (by PID) on exit.
#
#   bash benchmarks/run.sh                          # defaults: 2 s warm-up, pairs 5 s, handoff 10 s
#   bash benchmarks/run.sh --seconds 3 --warmup 1   # any LockBenchmark option; --help lists them
#   bash benchmarks/run.sh --port 6400              # use an already running server instead of starting one
#
# Environment: JAVA_OPTS (default -Xmx1g), SKIP_BUILD=1 (reuse the last build), VALKEY_SERVER (default valkey-server).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
cd "$root"

echo "== environment =="
echo "date        $(date -u +%Y-%m-%dT%H:%M:%SZ)"
commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [ -n "$(git status --porcelain -- benchmarks coordinator-core 2>/dev/null || true)" ]; then commit="$commit (+ uncommitted changes)"; fi
echo "git commit  $commit"
echo "jdk         $(java -version 2>&1 | head -n 1)"
echo "nproc       $(nproc)"
echo "loadavg     $(cut -d' ' -f1-3 /proc/loadavg)"
echo "valkey      $("${VALKEY_SERVER:-valkey-server}" --version | head -n 1)"
echo

cpfile="$here/target/bench.classpath"
if [ "${SKIP_BUILD:-0}" != "1" ] || [ ! -f "$cpfile" ]; then
  echo "building (mvn -q -B -pl benchmarks -am -DskipTests package) ..."
  # package (not install): inside the reactor, coordinator-core resolves to its freshly built jar.
  # A relative mdep.outputFile is written by each module into its own target/.
  mvn -q -B -pl benchmarks -am -DskipTests package dependency:build-classpath \
      -Dmdep.outputFile=target/bench.classpath -Dmdep.includeScope=runtime
  echo
fi
classpath="$here/target/classes:$(cat "$cpfile")"

# Does the caller point at an existing server?
external_port=""
prev=""
for a in "$@"; do
  case "$a" in
    --port=*) external_port="${a#--port=}" ;;
  esac
  if [ "$prev" = "--port" ]; then external_port="$a"; fi
  prev="$a"
done

server_pid=""
workdir=""
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  if [ -n "$workdir" ]; then rm -rf "$workdir"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

port_args=()
if [ -z "$external_port" ]; then
  workdir="$(mktemp -d -t tenure-bench.XXXXXX)"
  for attempt in 1 2 3 4 5 6 7 8 9 10; do
    port=$(( 20000 + RANDOM % 20000 ))
    [ "$port" = 6379 ] && continue
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then continue; fi   # something listens there
    "${VALKEY_SERVER:-valkey-server}" --port "$port" --bind 127.0.0.1 --save "" --appendonly no \
        --dir "$workdir" --logfile "$workdir/valkey.log" --daemonize no &
    server_pid=$!
    for _ in $(seq 1 50); do
      if valkey-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null | grep -q PONG; then break; fi
      if ! kill -0 "$server_pid" 2>/dev/null; then break; fi
      sleep 0.1
    done
    if kill -0 "$server_pid" 2>/dev/null && valkey-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null | grep -q PONG; then
      break
    fi
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=""
  done
  if [ -z "$server_pid" ]; then
    echo "could not start valkey-server (see $workdir/valkey.log)" >&2
    exit 1
  fi
  echo "started valkey-server pid $server_pid on 127.0.0.1:$port (no persistence, dir $workdir)"
  port_args=(--port "$port")
else
  echo "using the server on port $external_port (not started by this script)"
fi
echo

# Not exec: the EXIT trap must still stop the server.
# shellcheck disable=SC2086
java ${JAVA_OPTS:--Xmx1g} -cp "$classpath" dev.tenure.bench.LockBenchmark "${port_args[@]}" "$@"
