#!/bin/sh
# run.sh - set up and run every test on Debian 12, as root (sudo is used if
# needed): installs the packages, builds pgrtt twice (plain with -Werror, and
# with AddressSanitizer + UndefinedBehaviorSanitizer), starts a throwaway
# PostgreSQL cluster on 127.0.0.1/::1 port 55432 under a temporary directory,
# runs ctest on both builds (unit, golden, cross-check, fuzz replay and live
# tests), and stops the cluster.
set -eu
cd "$(dirname "$0")/.."
if [ "$(id -u)" != 0 ]; then
	exec sudo "$0" "$@"
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends \
	build-essential cmake pkg-config git ca-certificates openssl \
	libpcap-dev libcjson-dev libpq-dev libsqlite3-dev \
	tcpdump tshark postgresql postgresql-client \
	python3 python3-psycopg2 python3-sqlalchemy sqlite3 libxml2-utils \
	default-jdk-headless libhikaricp-java libpostgresql-jdbc-java libslf4j-java \
	chromium fonts-liberation >/dev/null

jobs=$(nproc)
cmake -S . -B build -DPGRTT_WERROR=ON >/dev/null
cmake --build build -j"$jobs"
cmake -S . -B build-asan -DPGRTT_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build build-asan -j"$jobs"

PGRTT_PGDIR=$(mktemp -d /tmp/pgrtt-test.XXXXXX)
export PGRTT_PGDIR PGRTT_PGPORT=55432 PGRTT_REQUIRE_LIVE=1
trap 'tests/pg_cluster.sh stop "$PGRTT_PGDIR" $PGRTT_PGPORT; rm -rf "$PGRTT_PGDIR"' EXIT INT TERM
tests/pg_cluster.sh start "$PGRTT_PGDIR" $PGRTT_PGPORT

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
(cd build && ctest -j"$jobs" --output-on-failure)
(cd build-asan && ctest -j"$jobs" --output-on-failure)
echo "all tests passed (plain and ASan+UBSan builds)"
