# bench_lib.sh - what tests/bench.sh and tests/bench_pages.sh share (sourced;
# W is the caller's temp dir).

# capture_facts FILE: packets and bytes of FILE, set and printed
capture_facts() {
	packets=$(capinfos -c -M "$1" | awk -F': *' '/Number of packets/ {print $2}')
	bytes=$(stat -c %s "$1")
	echo "capture: $1: $packets packets, $bytes bytes"
}

# best_of_3 CMD...: the lowest wall time of three runs in best (at least
# 0.01 s), that run's CPU seconds in bestcpu and peak RSS (KiB) in bestrss
best_of_3() {
	best=
	for _ in 1 2 3; do
		/usr/bin/time -f '%e %U %S %M' -o "$W/time" sh -c "$* >/dev/null 2>&1"
		read -r wall user sys rss <"$W/time"
		if [ -z "$best" ] || [ "$(echo "$wall < $best" | bc)" = 1 ]; then
			best=$wall bestcpu=$(echo "$user + $sys" | bc) bestrss=$rss
		fi
	done
	[ "$(echo "$best < 0.01" | bc)" = 1 ] && best=0.01
	return 0
}
