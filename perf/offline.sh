#!/bin/sh
# offline.sh [PCAP] - pgrtt next to tshark and tcpdump on the same capture.
#
# Without PCAP: starts a throwaway cluster (tests/pg_cluster.sh, port 55433),
# records `pgbench -S -c 8 -j 2 -T 10` with tcpdump -B 65536 (about 1M
# packets), and uses that.  Then reads the file with each tool (best of 5
# runs, GNU time) and prints packets/s, MB/s, peak RSS and pgrtt's speed as a
# multiple of the others'.  Also reads the file 3 times over (mergecap -a)
# to show pgrtt's peak memory does not grow with the capture.  Ratios, not
# absolute numbers: the machine is shared and noisy.  Run as root from the
# source tree after building build/ (tests/run.sh or the README command).
set -eu
cd "$(dirname "$0")/.."
. perf/lib.sh
PGRTT=${PGRTT:-build/pgrtt}
PORT=55433
W=$(mktemp -d /tmp/pgrtt-bench.XXXXXX)
chmod 755 "$W" # the cluster inside runs as postgres
cleanup() { # under set -e: no command here may fail
	if [ -n "${started:-}" ]; then
		tests/pg_cluster.sh stop "$W/pg" $PORT || true
	fi
	rm -rf "$W"
}
trap cleanup EXIT INT TERM

if [ $# -ge 1 ]; then
	F=$1
else
	tests/pg_cluster.sh start "$W/pg" $PORT
	started=1
	export PGHOST=127.0.0.1 PGPORT=$PORT PGUSER=postgres PGSSLMODE=disable
	pgbench -i -s 1 -q postgres >/dev/null 2>&1
	F=$W/bench.pcap
	tcpdump -i lo -s 0 -B 65536 -w "$F" "tcp port $PORT" 2>"$W/td.err" &
	td=$!
	sleep 1
	pgbench -S -c 8 -j 2 -T 10 postgres 2>/dev/null | grep -E '^(number of transactions|tps)'
	sleep 1.5 # let tcpdump drain its ring (TPACKET_V3 blocks time out after 1 s)
	kill -INT $td
	wait $td || true
	tail -n 3 "$W/td.err"
fi

capture_facts "$F"

# best (lowest) wall time of 3 runs; peak RSS of that run
measure() { # KEY NAME CMD...
	key=$1 name=$2
	shift 2
	best_of_3 "$@"
	pps=$(echo "$packets / $best" | bc)
	mbs=$(echo "scale=1; $bytes / $best / 1000000" | bc)
	printf '%-22s %8.2f s %12s pkt/s %8s MB/s %8s MiB peak RSS\n' "$name" "$best" "$pps" "$mbs" \
		"$(echo "scale=1; $bestrss / 1024" | bc)"
	eval "t_$key=$best"
}

measure pgrtt "pgrtt analyze" "$PGRTT" analyze --no-progress -p $PORT "$F"
measure pgrtt_json "pgrtt analyze -F json" "$PGRTT" analyze --no-progress -p $PORT -F json "$F"
measure tshark "tshark (pgsql types)" tshark -n -r "$F" -d tcp.port==$PORT,pgsql -Y pgsql -T fields -e pgsql.type
measure tshark_io "tshark -q -z io,stat,0" tshark -n -r "$F" -q -z io,stat,0
measure tcpdump "tcpdump -r -nn" tcpdump -r "$F" -nn
echo "pgrtt is $(echo "scale=1; $t_tshark / $t_pgrtt" | bc)x as fast as tshark decoding pgsql, $(echo "scale=1; $t_tshark_io / $t_pgrtt" | bc)x tshark's packet count, $(echo "scale=1; $t_tcpdump / $t_pgrtt" | bc)x tcpdump -r"

rfq_pgrtt=$("$PGRTT" analyze --no-progress -p $PORT -F json "$F" | python3 -c 'import json,sys; print(json.load(sys.stdin)["totals"]["ready_for_query"])')
rfq_tshark=$(tshark -n -r "$F" -d tcp.port==$PORT,pgsql -Y pgsql -T fields -e pgsql.type 2>/dev/null | grep -o 'Ready for query' | wc -l)
echo "ReadyForQuery: pgrtt $rfq_pgrtt, tshark $rfq_tshark"

mergecap -a -w "$W/x3.pcap" "$F" "$F" "$F"
/usr/bin/time -f '%M' -o "$W/rss3" "$PGRTT" analyze --no-progress -p $PORT "$W/x3.pcap" >/dev/null 2>&1
/usr/bin/time -f '%M' -o "$W/rss1" "$PGRTT" analyze --no-progress -p $PORT "$F" >/dev/null 2>&1
echo "pgrtt peak RSS: 1x file $(cat "$W/rss1") KiB, 3x file $(cat "$W/rss3") KiB"
