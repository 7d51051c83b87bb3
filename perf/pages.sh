#!/bin/sh
# pages.sh [PCAP HTTP-PORT PG-PORT] - the cost of attributing round trips
# to pages under mixed load (issue 12): `pgrtt analyze --http-port` next to
# the same capture analysed without it, libpcap's bare read loop, tcpdump -r
# and tshark decoding both protocols.
#
# Without arguments: a throwaway cluster (tests/pg_cluster.sh, port 55433)
# with the seed's dataset, the reference app (bench/apps/c-libpq) in
# POOL_MODE (default axum-sqlx-ping: a checkout per query, both pings) on
# port 18093, and `wrk -t 2 -c CONNS -d SECONDS` (defaults 16 and 10) cycling
# through the detail, index and tag routes (MIX=random: each request's path at
# random, which the routes' figures need: docs/pages.md, lockstep), captured by
# tcpdump -s 0 -B 65536: every page overlaps pages of other routes, so every
# route is estimated.
#
# Prints the best wall time of 5 runs and peak RSS for each reader (pgrtt
# --http-port also on one thread, PGRTT_THREADS=1), --http-port's cost as
# the ratio of the lowest of 30 runs interleaved with the plain analysis's,
# and the instructions each pgrtt run executes over all its threads
# (callgrind, when valgrind is there: instruction counts repeat on this
# noisy machine, times do not).  NO_TSHARK=1 leaves tshark out.  KEEP=FILE keeps the capture made.  Run as root from the source tree after building build/.
set -eu
cd "$(dirname "$0")/.."
. perf/lib.sh
PGRTT=${PGRTT:-build/pgrtt}
LOOP=${LOOP:-build/perf/pcap_loop}
W=$(mktemp -d /tmp/pgrtt-benchpages.XXXXXX)
chmod 755 "$W" # the cluster inside runs as postgres
cleanup() { # under set -e: no command here may fail
	if [ -n "${app:-}" ]; then
		kill "$app" 2>/dev/null || true
		wait "$app" 2>/dev/null || true
	fi
	if [ -n "${started:-}" ]; then
		tests/pg_cluster.sh stop "$W/pg" "$PG" || true
	fi
	rm -rf "$W"
}
trap cleanup EXIT INT TERM

if [ $# -ge 3 ]; then
	F=$1 HTTP=$2 PG=$3
else
	PG=55433 HTTP=18093 T=${1:-10}
	tests/pg_cluster.sh start "$W/pg" $PG
	started=1
	dsn="host=127.0.0.1 port=$PG user=postgres dbname=postgres sslmode=disable"
	build/bench/blogload "$dsn" >/dev/null
	PORT=$HTTP POOL_MODE=${POOL_MODE:-axum-sqlx-ping} DATABASE_URL="$dsn" \
		build/bench/bench_app_c_libpq >"$W/app.out" &
	app=$!
	for _ in $(seq 100); do grep -q ready "$W/app.out" 2>/dev/null && break; sleep 0.1; done
	cat >"$W/mixed.lua" <<'EOF'
local paths = {"/articles/3", "/", "/tags/tag-7", "/articles/11", "/articles/500"}
local i = 0
local random = os.getenv("MIX") == "random"
request = function()
  i = i + 1
  if random then i = math.random(#paths) end
  return wrk.format("GET", paths[i % #paths + 1])
end
EOF
	wrk -t 2 -c "${CONNS:-16}" -d 2 -s "$W/mixed.lua" "http://127.0.0.1:$HTTP" >/dev/null # warm-up: the pool grows
	F=$W/mixed.pcap
	tcpdump -i lo -s 0 -B 65536 -w "$F" "tcp port $PG or tcp port $HTTP" 2>"$W/td.err" &
	td=$!
	sleep 1
	wrk -t 2 -c "${CONNS:-16}" -d "$T" -s "$W/mixed.lua" "http://127.0.0.1:$HTTP" | grep -E 'requests in|Requests/sec'
	sleep 1.5 # let tcpdump drain its ring
	kill -INT $td
	wait $td || true
	tail -n 2 "$W/td.err"
	[ -n "${KEEP:-}" ] && cp "$F" "$KEEP" && echo "capture kept as $KEEP"
fi

capture_facts "$F"

measure() { # KEY NAME CMD...
	key=$1 name=$2
	shift 2
	best_of_3 "$@"
	printf '%-34s %7.2f s wall %7.2f s CPU %10s pkt/s %7s MiB peak RSS\n' "$name" "$best" \
		"$bestcpu" "$(echo "$packets / $best" | bc)" "$(echo "scale=1; $bestrss / 1024" | bc)"
	eval "t_$key=$best"
}

plain="$PGRTT analyze --no-progress -p $PG $F"
pages="$PGRTT analyze --no-progress -p $PG --http-port $HTTP $F"
measure loop "libpcap's read loop" "$LOOP" "$F"
measure plain "pgrtt analyze" "$plain"
measure pages "pgrtt analyze --http-port" "$pages"
measure one "  the same on one thread" env PGRTT_THREADS=1 $pages
measure tcpdump "tcpdump -r -nn" tcpdump -r "$F" -nn
if [ -z "${NO_TSHARK:-}" ]; then
	measure tshark "tshark (pgsql and http)" tshark -n -r "$F" -d tcp.port==$PG,pgsql \
		-d tcp.port==$HTTP,http -Y "'pgsql or http'" -T fields -e frame.number
fi
# the ratios from runs interleaved with the plain one's (a slow spell of a
# noisy machine hits both alike), the lowest of 30 each
pair_min 30 "$plain" "$pages"
r_pages=$(echo "scale=2; $minb / $mina" | bc)
pair_min 30 "$plain" "PGRTT_THREADS=1 $pages"
r_one=$(echo "scale=2; $minb / $mina" | bc)
echo "--http-port costs ${r_pages}x the plain analysis's wall time (${r_one}x on one thread;" \
	"the lowest of 30 runs interleaved with the plain one's);" \
	"it takes $(echo "scale=1; $t_pages / $t_loop" | bc)x the time of libpcap's bare loop and is" \
	"$(echo "scale=1; $t_tcpdump / $t_pages" | bc)x as fast as tcpdump -r" \
	"${t_tshark:+and $(echo "scale=1; $t_tshark / $t_pages" | bc)x as fast as tshark}"

$pages | sed -n '/^routes/,/^$/p' | head -n 8
# where one run's time went, phase by phase (PGRTT_TIMING, docs/pgrtt.1)
PGRTT_TIMING=1 $plain 2>&1 >/dev/null | grep 'timing:' | sed 's/^pgrtt: analyze: /plain:        /'
PGRTT_TIMING=1 $pages 2>&1 >/dev/null | grep 'timing:' | sed 's/^pgrtt: analyze: /--http-port: /'

if command -v valgrind >/dev/null; then
	ir() {
		valgrind --tool=callgrind --callgrind-out-file="$W/cg.out" "$@" >/dev/null 2>"$W/cg.err"
		sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$W/cg.err"
	}
	i_plain=$(ir $plain)
	i_pages=$(ir $pages)
	echo "instructions (both threads'): pgrtt analyze $i_plain, with --http-port $i_pages:" \
		"$(echo "scale=2; $i_pages / $i_plain" | bc)x;" \
		"$(echo "$i_plain / $packets" | bc) and $(echo "$i_pages / $packets" | bc) per packet"
fi
