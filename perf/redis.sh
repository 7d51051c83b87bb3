#!/bin/sh
# redis.sh [PG-PCAP MIXED-PCAP PG-PORT REDIS-PORT] - what counting Redis
# costs (issue 13: a mixed PostgreSQL + Redis capture analysed at >= 80% of
# the PostgreSQL-only speed per packet).
#
# Without captures: a throwaway cluster (tests/pg_cluster.sh, port 55434) and
# redis-server (port 56380) under a temp dir; records `pgbench -S -c 4 -j 2
# -T 6` alone, then the same beside `redis-benchmark -c 4 -P 1` and `-P 16`
# (GET and SET, bounded by timeout).  Reads the PostgreSQL-only capture with
# `pgrtt analyze -p`, and the mixed one with and without `--redis-port`, next
# to libpcap's bare loop, `tcpdump -r` and tshark decoding both protocols
# (best of 5), and counts each pgrtt run's instructions with
# callgrind (repeatable where times are not): per packet, as ratios.  KEEP=DIR
# keeps the captures.  Run as root from the source tree after building build/.
set -eu
cd "$(dirname "$0")/.."
. perf/lib.sh
PGRTT=${PGRTT:-build/pgrtt}
W=$(mktemp -d /tmp/pgrtt-benchredis.XXXXXX)
chmod 755 "$W"
cleanup() {
	[ -n "${redis:-}" ] && kill "$redis" 2>/dev/null && wait "$redis" 2>/dev/null
	[ -n "${started:-}" ] && { tests/pg_cluster.sh stop "$W/pg" "$PG" || true; }
	if [ -n "${KEEP:-}" ] && [ -n "${recorded:-}" ]; then
		mkdir -p "$KEEP" && cp "$W"/pg.pcap "$W"/mixed.pcap "$KEEP"/ || true
	fi
	rm -rf "$W"
}
trap cleanup EXIT INT TERM

record() { # FILE CMD...: tcpdump on lo around CMD
	f=$1
	shift
	tcpdump -i lo -s 0 -B 262144 -w "$f" "tcp port $PG or tcp port $RP" 2>"$W/td.err" &
	td=$!
	for _ in $(seq 50); do grep -q listening "$W/td.err" && break; sleep 0.1; done
	sh -c "$*"
	sleep 1.5 # tcpdump's ring hands blocks over on a 1 s timeout
	kill -INT $td
	wait $td || true
	tail -n 1 "$W/td.err"
}

if [ $# -ge 4 ]; then
	FPG=$1 FMIX=$2 PG=$3 RP=$4
else
	PG=55434 RP=56380
	tests/pg_cluster.sh start "$W/pg" $PG
	started=1
	redis-server --port $RP --bind 127.0.0.1 --save '' --appendonly no --dir "$W" >/dev/null &
	redis=$!
	export PGHOST=127.0.0.1 PGPORT=$PG PGUSER=postgres PGSSLMODE=disable
	pgbench -i -s 1 -q postgres >/dev/null 2>&1
	FPG=$W/pg.pcap FMIX=$W/mixed.pcap
	record "$FPG" "pgbench -S -c 4 -j 2 -T 6 postgres 2>/dev/null | grep -E '^tps'"
	record "$FMIX" "pgbench -S -c 4 -j 2 -T 6 postgres 2>/dev/null | grep -E '^tps' &
		timeout 3 redis-benchmark -p $RP -c 4 -P 1 -n 10000000 -t get,set -q >/dev/null 2>&1;
		timeout 3 redis-benchmark -p $RP -c 4 -P 16 -n 100000000 -t get -q >/dev/null 2>&1; wait"
	recorded=1
fi

capture_facts "$FMIX"
mixed_packets=$packets
capture_facts "$FPG"
pg_packets=$packets

measure() { # KEY NAME PACKETS CMD...
	key=$1 name=$2 n=$3
	shift 3
	best_of_3 "$@"
	printf '%-44s %8.3f s %12s pkt/s %8s MiB peak RSS\n' "$name" "$best" \
		"$(echo "$n / $best" | bc)" "$(echo "scale=1; $bestrss / 1024" | bc)"
	eval "pps_$key=$(echo "$n / $best" | bc)"
}
echo
measure pg "pgrtt analyze -p (PostgreSQL-only capture)" "$pg_packets" \
	"$PGRTT" analyze --no-progress -p "$PG" "$FPG"
measure plain "pgrtt analyze -p (mixed capture, Redis skipped)" "$mixed_packets" \
	"$PGRTT" analyze --no-progress -p "$PG" "$FMIX"
measure redis "pgrtt analyze -p --redis-port (mixed capture)" "$mixed_packets" \
	"$PGRTT" analyze --no-progress -p "$PG" --redis-port "$RP" "$FMIX"
[ -x build/perf/pcap_loop ] && measure loop "libpcap's read loop (mixed)" "$mixed_packets" \
	build/perf/pcap_loop "$FMIX"
measure tcpdump "tcpdump -r -nn (mixed)" "$mixed_packets" tcpdump -r "$FMIX" -nn
if command -v tshark >/dev/null; then
	measure tshark "tshark, pgsql and resp decoded (mixed)" "$mixed_packets" \
		tshark -n -r "$FMIX" -d "tcp.port==$PG,pgsql" -d "tcp.port==$RP,resp"
fi
echo
pair_min 20 "$PGRTT analyze --no-progress -p $PG $FPG" \
	"$PGRTT analyze --no-progress -p $PG --redis-port $RP $FMIX"
echo "speed per packet, Redis counted, against the PostgreSQL-only capture's:" \
	"$(echo "scale=2; ($mixed_packets / $minb) / ($pg_packets / $mina)" | bc)x (target >= 0.80;" \
	"the least wall time of 20 runs each, interleaved: $mina s and $minb s)"

if command -v valgrind >/dev/null; then
	ins() { # CAPTURE ARGS...: instructions of pgrtt analyze
		f=$1
		shift
		valgrind --tool=callgrind --callgrind-out-file=/dev/null "$PGRTT" analyze --no-progress \
			"$@" "$f" 2>&1 >/dev/null | awk '/Collected/ {print $4}'
	}
	i_pg=$(ins "$FPG" -p "$PG")
	i_mix=$(ins "$FMIX" -p "$PG" --redis-port "$RP")
	echo "instructions per packet: PostgreSQL-only $(echo "$i_pg / $pg_packets" | bc)," \
		"mixed with Redis $(echo "$i_mix / $mixed_packets" | bc):" \
		"$(echo "scale=2; ($i_pg / $pg_packets) / ($i_mix / $mixed_packets)" | bc)x the speed"
fi
