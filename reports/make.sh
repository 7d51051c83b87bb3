#!/bin/sh
# make.sh [PGRTT] - the example reports, made from the committed captures:
# the blog test app under three pool set-ups and 8 clients (with pages),
# and three pools' captures without pages (sqlx-like, SQLAlchemy's
# pre-ping, HikariCP).  Writes round-trips.md, round-trips.html,
# compare.md and compare.html into OUT (default reports/); with
# SHOTS=1, Chromium's screenshots of round-trips.html in the light and the
# dark scheme (round-trips-light.png, round-trips-dark.png).
# tests/store/test_store.py (report-golden, report-chromium) makes them
# again and compares.
set -eu
cd "$(dirname "$0")/.."
P=${1:-build/pgrtt}
OUT=${OUT:-reports}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
W=$(mktemp -d /tmp/pgrtt-reports.XXXXXX)
trap 'rm -rf "$W"' EXIT INT TERM
db=$W/ex.db
web() { # POOL CAPTURE [LABEL...]
	pool=$1 cap=$2
	shift 2
	"$P" analyze -p 55432 --http-port 18080 --no-progress --db "$db" --app blog-psycopg2 \
		--label pool="$pool" "$@" "captures/$cap.pcap" >/dev/null 2>&1
}
web noping web-noping
web ping-query web-ping-query
web ping-page web-ping-page
web ping-query web-concurrent --label clients=8
for app in sqlx-like sqlalchemy-preping hikaricp; do
	"$P" analyze -p 55432 --no-progress --db "$db" --app "$app" "captures/$app.pcap" >/dev/null 2>&1
done
"$P" report --db "$db" -o "$OUT/round-trips.md" 2>/dev/null
"$P" report --db "$db" -F html -o "$OUT/round-trips.html" 2>/dev/null
"$P" report --db "$db" --compare 1 2 -o "$OUT/compare.md" 2>/dev/null
"$P" report --db "$db" --compare 1 2 -F html -o "$OUT/compare.html" 2>/dev/null
if [ "${SHOTS:-}" = 1 ]; then
	for scheme in light dark; do
		[ $scheme = dark ] && pref=0 || pref=1
		timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run \
			--disable-background-networking --disable-component-update --disable-sync \
			--hide-scrollbars --user-data-dir="$W/profile" \
			--blink-settings=preferredColorScheme=$pref --window-size=1280,1500 \
			--screenshot="$OUT/round-trips-$scheme.png" "file://$OUT/round-trips.html" \
			>/dev/null 2>&1
	done
fi
