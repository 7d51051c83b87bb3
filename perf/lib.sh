# lib.sh - what perf/offline.sh and perf/pages.sh share (sourced;
# W is the caller's temp dir).

# capture_facts FILE: packets and bytes of FILE, set and printed
capture_facts() {
	packets=$(capinfos -c -M "$1" | awk -F': *' '/Number of packets/ {print $2}')
	bytes=$(stat -c %s "$1")
	echo "capture: $1: $packets packets, $bytes bytes"
}

# best_of_3 CMD...: the lowest wall time of five runs in best (seconds, to
# the millisecond: GNU time's hundredths are a tenth of a 0.1 s run), that
# run's CPU seconds in bestcpu and peak RSS (KiB) in bestrss.  (The name is
# older than the count.)
best_of_3() {
	best=
	for _ in 1 2 3 4 5; do
		t0=$(date +%s%N)
		/usr/bin/time -f '%e %U %S %M' -o "$W/time" sh -c "$* >/dev/null 2>&1"
		t1=$(date +%s%N)
		read -r _ user sys rss <"$W/time"
		wall=$(echo "scale=3; ($t1 - $t0) / 1000000000" | bc)
		if [ -z "$best" ] || [ "$(echo "$wall < $best" | bc)" = 1 ]; then
			best=$wall bestcpu=$(echo "$user + $sys" | bc) bestrss=$rss
		fi
	done
	[ "$(echo "$best < 0.001" | bc)" = 1 ] && best=0.001
	return 0
}

# pair_min N CMD_A CMD_B: the two commands (strings) run one after the other N
# times; the lowest wall time of each in mina and minb (seconds, to the
# millisecond).  Interleaved, so that a noisy machine's slow spells hit both
# alike: what a ratio of the two needs.
pair_min() {
	mina= minb=
	for _ in $(seq "$1"); do
		t0=$(date +%s%N)
		sh -c "$2 >/dev/null 2>&1"
		t1=$(date +%s%N)
		sh -c "$3 >/dev/null 2>&1"
		t2=$(date +%s%N)
		a=$(echo "scale=4; ($t1 - $t0) / 1000000000" | bc)
		b=$(echo "scale=4; ($t2 - $t1) / 1000000000" | bc)
		{ [ -z "$mina" ] || [ "$(echo "$a < $mina" | bc)" = 1 ]; } && mina=$a
		{ [ -z "$minb" ] || [ "$(echo "$b < $minb" | bc)" = 1 ]; } && minb=$b
	done
	return 0
}
