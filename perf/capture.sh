#!/bin/sh
# capture.sh [SECONDS] - pgbench TPS and kernel drops with no capture,
# with `tcpdump -w`, and with `pgrtt capture`, on the same load
# (`pgbench -c 8 -j 2 -S -T SECONDS`, default 15) against a throwaway cluster
# on port 55433.  Run as root from the source tree after building build/.
# Machines are noisy: compare the rows, run it twice.
set -eu
cd "$(dirname "$0")/.."
T=${1:-15}
PORT=55433
W=$(mktemp -d /tmp/pgrtt-capbench.XXXXXX)
chmod 755 "$W"
trap 'tests/pg_cluster.sh stop "$W/pg" $PORT; rm -rf "$W"' EXIT INT TERM
tests/pg_cluster.sh start "$W/pg" $PORT
export PGHOST=127.0.0.1 PGPORT=$PORT PGUSER=postgres PGSSLMODE=disable
pgbench -i -s 1 -q postgres >/dev/null 2>&1
pgbench -S -c 8 -j 2 -T 3 postgres >/dev/null 2>&1 # warm-up

tps() { pgbench -S -c 8 -j 2 -T "$T" postgres 2>/dev/null | sed -n 's/^tps = \([0-9.]*\).*/\1/p'; }

printf '%-16s %10s %12s %10s %10s %12s\n' capture tps packets dropped cpu_s cpu_us/pkt
printf '%-16s %10s\n' none "$(tps)"

# run CAPTURE-CMD in the background during a pgbench run; print a row
measure() { # NAME PACKETS-CMD DROPS-CMD CAPTURE-CMD...
	name=$1 packets=$2 drops=$3
	shift 3
	"$@" &
	pid=$!
	sleep 1
	t=$(tps)
	sleep 1.5 # let the capture drain its ring
	cpu=$(awk '{print ($14 + $15) / 100}' /proc/$pid/stat)
	kill -INT $pid
	wait $pid || true
	pk=$(eval "$packets")
	dr=$(eval "$drops")
	printf '%-16s %10s %12s %10s %10s %12.3f\n' "$name" "$t" "$pk" "$dr" "$cpu" \
		"$(echo "$cpu * 1000000 / $pk" | bc -l)"
}

td_err="$W/td.err"
measure "tcpdump -w" \
	"sed -n 's/^\([0-9]*\) packets\? captured/\1/p' $td_err" \
	"sed -n 's/^\([0-9]*\) packets\? dropped by kernel/\1/p' $td_err" \
	sh -c "exec tcpdump -i lo -s 0 -B 65536 -w $W/td.pcap 'tcp port $PORT' 2>$td_err"
pj="$W/pgrtt.json"
measure "pgrtt capture" \
	"python3 -c \"import json; print(json.load(open('$pj'))['input']['packets']['total'])\"" \
	"python3 -c \"import json; d=json.load(open('$pj'))['drops']; print(d['dropped'] + d['interface_dropped'])\"" \
	sh -c "exec build/pgrtt capture -i lo -p $PORT --no-status -F json -o $pj 2>/dev/null"
