#!/usr/bin/env bash
# Installs what Tenure's tests and demo need on a fresh Debian 12 machine (sourced by test.sh and demo.sh).
# Runs as root, or through sudo when not root.
set -euo pipefail


as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# Valkey 8 (valkey-server, valkey-cli, valkey-benchmark) from Debian's bookworm-backports suite.
if ! command -v valkey-server >/dev/null 2>&1 || ! command -v valkey-cli >/dev/null 2>&1; then
  echo "== installing valkey-server and valkey-tools from bookworm-backports"
  if ! grep -rqs "bookworm-backports" /etc/apt/sources.list /etc/apt/sources.list.d/; then
    echo "deb http://deb.debian.org/debian bookworm-backports main" | as_root tee /etc/apt/sources.list.d/bookworm-backports.list >/dev/null
  fi
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq -t bookworm-backports valkey-server valkey-tools
fi
valkey-server --version

# libfaketime: DatabaseClockIT runs child JVMs whose wall clocks are hours off.
if [ ! -e /usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 ]; then
  echo "== installing faketime"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq faketime
fi

# nftables: NetworkPartitionIT cuts a node's links by dropping their packets in the kernel (PacketFilter runs nft).
if [ "$(basename "$0")" != "demo.sh" ] && ! command -v nft >/dev/null 2>&1 && [ ! -x /usr/sbin/nft ]; then
  echo "== installing nftables (packet drops for coordinator-it's partition test)"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq nftables
fi

# Chromium (Debian's package): the ops console's browser test (ConsoleBrowserIT) loads the page headless. Not for the demo.
if [ "$(basename "$0")" != "demo.sh" ] && ! command -v chromium >/dev/null 2>&1; then
  echo "== installing chromium (headless browser for tenure-console's page test)"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq chromium
fi

# Postgres on 127.0.0.1:5432 (the test kit falls back to embedded Postgres, but a local server is faster).
if command -v pg_isready >/dev/null 2>&1 && ! pg_isready -q -h 127.0.0.1 -p 5432; then
  if command -v pg_ctlcluster >/dev/null 2>&1 && [ -d /etc/postgresql ]; then
    echo "== starting the local Postgres cluster"
    as_root pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n 1)" main start || true
    for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
  fi
fi
if command -v pg_isready >/dev/null 2>&1 && pg_isready -q -h 127.0.0.1 -p 5432; then
  echo "postgres answers on 127.0.0.1:5432"
else
  echo "no postgres on 127.0.0.1:5432: the test kit will use embedded Postgres"
fi

