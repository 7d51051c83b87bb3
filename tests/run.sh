#!/bin/sh
# run.sh - set up and run every test on Debian 12, as root (sudo is used if
# needed): installs the packages, builds pgrtt three times (gcc plain, gcc
# with AddressSanitizer + UndefinedBehaviorSanitizer, clang plain; -Werror in
# all), starts a throwaway PostgreSQL cluster on 127.0.0.1/::1 port 55432
# (PGRTT_PGPORT; the live tests' web app: 18081, PGRTT_WEBPORT) under a
# temporary directory, runs ctest on the gcc builds (unit, golden,
# cross-check, fuzz replay, store, audit, resource and live tests) and all
# but the live tests on the clang build, and stops the cluster.
set -eu
cd "$(dirname "$0")/.."
if [ "$(id -u)" != 0 ]; then # sudo resets the environment: the ports go along by name
	exec sudo ${PGRTT_PGPORT:+PGRTT_PGPORT=$PGRTT_PGPORT} \
		${PGRTT_WEBPORT:+PGRTT_WEBPORT=$PGRTT_WEBPORT} "$0" "$@"
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends \
	build-essential clang cmake pkg-config git ca-certificates openssl \
	libpcap-dev libcjson-dev libpq-dev libsqlite3-dev libmicrohttpd-dev libcurl4-openssl-dev libssl-dev \
	tcpdump tshark wrk redis-server postgresql postgresql-client \
	python3 python3-psycopg2 python3-psycopg python3-psycopg-pool python3-asyncpg python3-sqlalchemy python3-redis python3-pil python3-yaml python3-prometheus-client curl libhiredis-dev sqlite3 libxml2-utils \
	default-jdk-headless libhikaricp-java libpostgresql-jdbc-java libslf4j-java \
	chromium fonts-liberation procps nginx-light pgbouncer \
	golang-go golang-github-jackc-pgx-v4-dev golang-github-lib-pq-dev golang-github-gomodule-redigo-dev nodejs \
	librust-tokio-postgres-dev librust-hyper-dev librust-r2d2-dev librust-tokio-dev >/dev/null
# cargo: rustup's if it is there, Debian's otherwise
command -v cargo >/dev/null || apt-get install -y -qq --no-install-recommends cargo >/dev/null
# pgrtt bench's Node app: npm comes with some nodejs builds, as a package with Debian's
command -v npm >/dev/null || apt-get install -y -qq --no-install-recommends npm >/dev/null

jobs=$(nproc)
cmake -S . -B build -DPGRTT_WERROR=ON >/dev/null
cmake --build build -j"$jobs"
cmake -S . -B build-asan -DPGRTT_SANITIZE=ON -DPGRTT_WERROR=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build build-asan -j"$jobs"
# clang too: its warnings differ from gcc's, and -Werror holds for both
CC=clang cmake -S . -B build-clang -DPGRTT_WERROR=ON >/dev/null
cmake --build build-clang -j"$jobs"

# ports from the environment when given (beside another cluster or app):
# the test cluster's, and the blog test app's of tests/live
PGRTT_PGPORT=${PGRTT_PGPORT:-55432}
PGRTT_WEBPORT=${PGRTT_WEBPORT:-18081}
for port in "$PGRTT_PGPORT" "$PGRTT_WEBPORT"; do
	# SO_REUSEADDR, as servers bind: a port left in TIME_WAIT is free, a listener is not
	if ! python3 -c 'import socket, sys; s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen()' "$port" 2>/dev/null; then
		echo "tests/run.sh: port $port is in use on 127.0.0.1: set PGRTT_PGPORT or PGRTT_WEBPORT to free ones" >&2
		exit 2
	fi
done
PGRTT_PGDIR=$(mktemp -d /tmp/pgrtt-test.XXXXXX)
export PGRTT_PGDIR PGRTT_PGPORT PGRTT_WEBPORT PGRTT_REQUIRE_LIVE=1
# pgrtt bench's apps, built once for every build of pgrtt
export PGRTT_BENCH_BUILD="$PWD/build/bench-build"
trap 'tests/pg_cluster.sh stop "$PGRTT_PGDIR" $PGRTT_PGPORT; rm -rf "$PGRTT_PGDIR"' EXIT INT TERM
tests/pg_cluster.sh start "$PGRTT_PGDIR" $PGRTT_PGPORT

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
(cd build && ctest -j"$jobs" --output-on-failure)
(cd build-asan && ctest -j"$jobs" --output-on-failure)
# the clang build: everything that needs no server (the live tests ran twice)
(cd build-clang && ctest -j"$jobs" --output-on-failure -E '^live[.]')
echo "all tests passed (gcc plain, gcc ASan+UBSan, clang builds)"
