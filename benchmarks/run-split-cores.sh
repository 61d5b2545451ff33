#!/usr/bin/env bash
# run-coordinated.sh with Postgres on a CPU of its own, as in a deployment where the database runs on its own host:
# a private Postgres cluster (initdb in a temporary directory, trust auth, a free loopback port, the settings of the
# machine's own cluster) pinned to the last CPU with taskset, and the benchmark, its node JVMs and its valkey-server
# pinned to the other CPUs. Every argument goes to run-coordinated.sh.
#
#   bash benchmarks/run-split-cores.sh --seconds 15 --warmup 40 --sync on --only "jobs shared$" --nodes 3
#
# Needs at least 2 CPUs, taskset (util-linux) and the Postgres server binaries (/usr/lib/postgresql/*/bin). The
# cluster runs as the postgres user when started by root (initdb refuses root), is stopped by pg_ctl on exit and its
# directory removed. Environment: as run-coordinated.sh, plus PG_BIN (the server binaries' directory).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cpus="$(nproc)"
if [ "$cpus" -lt 2 ]; then
  echo "run-split-cores.sh needs at least 2 CPUs (nproc says $cpus)" >&2
  exit 2
fi
command -v taskset >/dev/null || { echo "taskset not found: install util-linux" >&2; exit 2; }
pg_bin="${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)}"
if [ -z "$pg_bin" ] || [ ! -x "$pg_bin/initdb" ]; then
  echo "no Postgres server binaries: no initdb in '${pg_bin:-/usr/lib/postgresql/*/bin}' (apt-get install postgresql, or set PG_BIN)" >&2
  exit 2
fi
as_pg=()
if [ "$(id -u)" = 0 ]; then
  as_pg=(runuser -u postgres --)
fi

pg_cpu=$((cpus - 1))
app_cpus="0-$((cpus - 2))"
dir="$(mktemp -d -t tenure-split-pg.XXXXXX)"
chmod 755 "$dir"
[ "$(id -u)" = 0 ] && chown postgres "$dir"
started=""
stop_pg() {
  if [ -n "$started" ]; then
    "${as_pg[@]}" "$pg_bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || echo "could not stop the private Postgres in $dir" >&2
  fi
  rm -rf "$dir"
}
trap stop_pg EXIT
trap 'exit 130' INT TERM

port=""
for _ in 1 2 3 4 5 6 7 8 9 10; do
  p=$(( 20000 + RANDOM % 20000 ))
  if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then continue; fi   # something listens there
  port=$p
  break
done
[ -n "$port" ] || { echo "no free loopback port found" >&2; exit 1; }

"${as_pg[@]}" "$pg_bin/initdb" -D "$dir/data" -A trust -U postgres -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
  || { cat "$dir/initdb.log" >&2; exit 1; }
# the machine's own cluster's settings (Debian's defaults plus autovacuum off), with room for 8 nodes' pools
taskset -c "$pg_cpu" "${as_pg[@]}" "$pg_bin/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -w -o \
  "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=150 -c shared_buffers=128MB -c autovacuum=off -c max_wal_size=1GB -c min_wal_size=80MB" \
  start >/dev/null || { cat "$dir/postgres.log" >&2; exit 1; }
started=1
echo "private Postgres on 127.0.0.1:$port pinned to CPU $pg_cpu; the benchmark, its nodes and valkey-server on CPU(s) $app_cpus"

# Not exec: the EXIT trap must stop the cluster.
PGHOST=127.0.0.1 PGPORT="$port" PGUSER=postgres taskset -c "$app_cpus" bash "$here/run-coordinated.sh" "$@"
