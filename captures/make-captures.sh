#!/bin/sh
# make-captures.sh PORT [NAME...] - record the committed captures again (only
# the NAMEd ones, if any, without the derived variants), against a
# running PostgreSQL on 127.0.0.1:PORT and ::1:PORT (tests/pg_cluster.sh
# makes one: user postgres trusted, user pgrtt_scram with password "s3cret-pw").
#
# Every capture is made by tcpdump on lo while a real client runs; what the
# client itself reports is written next to it as NAME.client.  Damaged
# variants are derived from the clean files with editcap.  Run as root from
# the source tree, with build/ holding tests/clients/pgclient.
# The captures are small on purpose; goldens: tests/update_golden.sh.
# --immediate-mode: without it tcpdump may exit with packets still in the
# kernel ring (TPACKET_V3 blocks are handed over on a 1 s timeout).
set -eu
PORT=${1:?usage: make-captures.sh PORT [NAME...]}
shift
ONLY=" $* "
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(dirname "$HERE")
PGCLIENT=${PGCLIENT:-$SRC/build/tests/pgclient}
export PGSSLMODE=disable PGUSER=postgres PGDATABASE=postgres PGHOST=127.0.0.1 PGPORT=$PORT
CI="host=127.0.0.1 port=$PORT user=postgres dbname=postgres sslmode=disable"
TMP=$(mktemp -d)
td=
trap '[ -n "$td" ] && kill "$td" 2>/dev/null; rm -rf "$TMP"' EXIT

# capture NAME IFACE LINKTYPE CMD...: run CMD while tcpdump records NAME.pcap
capture() {
	name=$1 iface=$2 lt=$3
	shift 3
	if [ "$ONLY" != "  " ] && ! echo "$ONLY" | grep -q " $name "; then
		return 0
	fi
	rm -f "$TMP/td.err"
	filter=${capture_filter:-tcp port $PORT}
	if [ "$lt" = - ]; then
		tcpdump -i "$iface" -s 0 -B 65536 -U --immediate-mode -Z root -w "$TMP/$name.pcap" "$filter" 2>"$TMP/td.err" &
	else
		tcpdump -i "$iface" -y "$lt" -s 0 -B 65536 -U --immediate-mode -Z root -w "$TMP/$name.pcap" "$filter" 2>"$TMP/td.err" &
	fi
	td=$!
	for _ in $(seq 50); do grep -q listening "$TMP/td.err" 2>/dev/null && break; sleep 0.1; done
	"$@" >"$HERE/$name.client"
	sleep 0.5
	kill -INT $td
	wait $td || true
	cp "$TMP/$name.pcap" "$HERE/$name.pcap"
	echo "$name: $(cat "$HERE/$name.client" | tail -n 1)"
}

# late_capture NAME DELAY SECONDS CMD...: start CMD, and only DELAY seconds
# later record SECONDS of it: every connection is picked up mid-stream, as
# when pgrtt is started next to a pool that is already connected
late_capture() {
	name=$1 delay=$2 secs=$3
	shift 3
	if [ "$ONLY" != "  " ] && ! echo "$ONLY" | grep -q " $name "; then
		return 0
	fi
	"$@" >"$HERE/$name.client" 2>&1 &
	cmd=$!
	sleep "$delay"
	rm -f "$TMP/td.err"
	tcpdump -i lo -s 0 -B 65536 -U --immediate-mode -Z root -w "$TMP/$name.pcap" "tcp port $PORT" 2>"$TMP/td.err" &
	td=$!
	sleep "$secs"
	kill -INT $td
	wait $td || true
	wait $cmd || true
	cp "$TMP/$name.pcap" "$HERE/$name.pcap"
	echo "$name: $(grep -E '^number of transactions actually' "$HERE/$name.client")"
}

pgbench_run() { # MODE
	printf '\\set aid random(1, 100000)\nSELECT abalance FROM pgbench_accounts WHERE aid = :aid;\nUPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = :aid;\n' >"$TMP/pb.sql"
	pgbench -n -M "$1" -c 2 -t 20 -f "$TMP/pb.sql" 2>&1 | grep -E '^number of (clients|transactions actually)'
}

psql -qAt -c 'SELECT 1' >/dev/null
if ! psql -qAt -c 'SELECT count(*) FROM pgbench_accounts' >/dev/null 2>&1; then
	pgbench -i -s 1 -q >/dev/null 2>&1
fi

capture pgbench-simple lo - pgbench_run simple
capture pgbench-extended lo - pgbench_run extended
capture pgbench-prepared lo - pgbench_run prepared
capture psql-mixed lo - psql -X -q -v ON_ERROR_STOP=0 -f "$SRC/tests/clients/psql-mixed.sql"
capture libpq-pipeline lo - "$PGCLIENT" "$CI" pipeline 10
capture sqlx-like lo - "$PGCLIENT" "$CI" sqlxlike 10
capture flush lo - "$PGCLIENT" "$CI" flush 5
capture fastpath lo - "$PGCLIENT" "$CI" fastpath 3
capture sqlalchemy-preping lo - /usr/bin/python3 "$SRC/tests/clients/pools.py" "$CI" sqlalchemy-preping 5
capture psycopg2-semicolon lo - /usr/bin/python3 "$SRC/tests/clients/pools.py" "$CI" psycopg2-semicolon 5
javac -d "$TMP" -cp /usr/share/java/HikariCP.jar "$SRC/tests/clients/HikariPing.java"
capture hikaricp lo - java -Dcom.zaxxer.hikari.aliveBypassWindowMs=0 \
	-cp "$TMP:/usr/share/java/HikariCP.jar:/usr/share/java/postgresql.jar:/usr/share/java/slf4j-api.jar:/usr/share/java/slf4j-nop.jar" \
	HikariPing "jdbc:postgresql://127.0.0.1:$PORT/postgres?user=postgres&sslmode=disable" 10
capture ssl lo - env PGSSLMODE=require psql -X -qAt -c 'SELECT 1'
# a TLS pool already connected when the capture starts: 4 connections, 200 tx/s
late_capture tls-midstream 2 1.5 env PGSSLMODE=require pgbench -n -S -c 4 -j 2 -R 200 -T 5
capture scram lo - env PGUSER=pgrtt_scram PGPASSWORD=s3cret-pw psql -X -qAt -c 'SELECT current_user'
capture ipv6 lo - psql -X -qAt -h ::1 -c 'SELECT 42'
capture any-sll any LINUX_SLL "$PGCLIENT" "$CI" pipeline 3
capture any-sll2 any LINUX_SLL2 "$PGCLIENT" "$CI" pipeline 3

# a blog app (tests/clients/webapp.py) on HTTP port 18080: 5 detail pages and 2
# index pages requested one after another, in each pool set-up; and 8 clients
# at once on the detail route, 5 pages each
web() { # POOL LOAD-ARGS...
	pool=$1
	shift
	/usr/bin/python3 "$SRC/tests/clients/webapp.py" "${WEB_DSN:-$CI}" 18080 "$pool" \
		>"$TMP/app.out" 2>&1 &
	app=$!
	for _ in $(seq 50); do grep -q ready "$TMP/app.out" 2>/dev/null && break; sleep 0.1; done
	/usr/bin/python3 "$SRC/tests/clients/load.py" 18080 "$@"
	kill $app
	wait $app 2>/dev/null || true
}
webcap() { # NAME POOL LOAD-ARGS...
	name=$1
	shift
	capture_filter="tcp port $PORT or tcp port 18080" capture "$name" lo - web "$@"
}
seq_pages="1 7 /articles/1 /articles/2 /articles/3 /articles/4 /articles/5 / /"
webcap web-noping noping $seq_pages
webcap web-ping-query ping-query $seq_pages
webcap web-ping-page ping-page $seq_pages
webcap web-concurrent ping-query 8 5 /articles/3
# two routes at once, 8 clients: every page overlaps the other route's (issue 12)
webcap web-mixed ping-page 8 30 /articles/3 / /articles/4
# three routes at once, the tag route's slugs words (20 of them, no digit:
# route_learn.h learns the segment for a parameter): 10 clients, 30 pages
# each, cycling a tag page, a detail page, a tag page, the index...
tags="rust go postgres python java linux docker redis nginx sqlite kernel compiler"
tags="$tags database server client cache socket index thread async"
learnt_pages=""
i=0
for t in $tags; do
	if [ $((i % 2)) = 0 ]; then
		learnt_pages="$learnt_pages /tags/$t /articles/$((i / 2 + 1))"
	else
		learnt_pages="$learnt_pages /tags/$t /"
	fi
	i=$((i + 1))
done
webcap web-learnt ping-page 10 30 $learnt_pages
# three routes at once, every page looking its user up first in its checkout
# (SESSION_LOOKUP=1: the same statement on every route, as apps with sessions
# have): 8 clients, 30 pages each (docs/pages.md, checkout_runs.h)
web_lookup() { # POOL LOAD-ARGS...
	SESSION_LOOKUP=1
	export SESSION_LOOKUP
	web "$@"
	unset SESSION_LOOKUP
}
capture_filter="tcp port $PORT or tcp port 18080" capture web-session-lookup lo - web_lookup ping-page 8 30 /articles/3 / /tags/rust /articles/4
# The apps on the seed's dataset in database blogpipe, made once for those
# that use it
BLOGPIPE="host=127.0.0.1 port=$PORT user=postgres dbname=blogpipe sslmode=disable"
if [ "$ONLY" = "  " ] || echo "$ONLY" | grep -qE " web-(pipelined|per-request|node-pg-lookup|proxied) "; then
	psql -X -qAt -c 'DROP DATABASE IF EXISTS blogpipe' -c 'CREATE DATABASE blogpipe' >/dev/null
	"$SRC/build/bench/blogload" "$BLOGPIPE" >/dev/null
fi
# load_app PID ARGS...: once the app started as PID (its output in
# $TMP/app.out) says ready, load.py 18080 ARGS on it; print the app's own
# count per route (GET /stats), the client file, and stop it
load_app() {
	app=$1
	shift
	for _ in $(seq 100); do grep -q ready "$TMP/app.out" 2>/dev/null && break; sleep 0.1; done
	/usr/bin/python3 "$SRC/tests/clients/load.py" 18080 "$@" >/dev/null
	curl -s http://127.0.0.1:18080/stats
	echo
	kill "$app"
	wait "$app" 2>/dev/null || true
}
# a pipelining driver: the blog's three routes on postgres.js with 2
# connections for 8 clients (tests/clients/pipelined_app.js; postgres.js
# from NODE_PATH, by default where tests/live/driver_pages_test.py installs it);
# the client file is [pages, statements] per route
pipelined() {
	url="postgres://postgres@127.0.0.1:$PORT/blogpipe" # the cluster's PORT, not the app's
	PORT=18080 POOL_MAX=2 DATABASE_URL="$url" \
		NODE_PATH=${NODE_PATH:-$SRC/build/bench-build/postgresjs/node_modules} \
		node "$SRC/tests/clients/pipelined_app.js" >"$TMP/app.out" 2>&1 &
	load_app $! "$@"
}
capture_filter="tcp port $PORT or tcp port 18080" capture web-pipelined lo - pipelined 8 8 /articles/3 / /tags/tag-7
# a connection per request, as PHP apps have it: the blog's three routes on
# http.server, each page connecting with psycopg2, running its statements
# and closing (tests/clients/per_request_app.py); the client file is
# [pages, statements, connections] per route
per_request() {
	/usr/bin/python3 "$SRC/tests/clients/per_request_app.py" 18080 "$BLOGPIPE" \
		>"$TMP/app.out" 2>&1 &
	load_app $! "$@"
}
capture_filter="tcp port $PORT or tcp port 18080" capture web-per-request lo - per_request 4 15 /articles/3 / /tags/tag-7
# node-postgres' Pool (4 connections, no ping: nothing on the wire bounds a
# checkout) with the same lookup first on every page (tests/clients/
# node_pg_app.js, SESSION_LOOKUP=1; pg from NODE_PG_PATH, by default where
# tests/live/driver_pages_test.py installs it); the client file is [pages,
# statements, BEGIN and COMMIT] per route
node_pg_lookup() {
	SESSION_LOOKUP=1 POOL_MAX=4 \
		NODE_PATH=${NODE_PG_PATH:-$SRC/build/bench-build/node-pg/node_modules} \
		node "$SRC/tests/clients/node_pg_app.js" 18080 \
		"postgres://postgres@127.0.0.1:$PORT/blogpipe" >"$TMP/app.out" 2>&1 &
	load_app $! "$@"
}
capture_filter="tcp port $PORT or tcp port 18080" capture web-node-pg-lookup lo - node_pg_lookup 8 15 /articles/3 / /tags/tag-7
# a reverse proxy in front of the app, both in the capture: nginx (Debian's)
# on 18081 passing every request on to per_request_app.py with a connection
# per worker (WORKERS=4) on 18080, over kept-alive connections; analysed with
# both --http-port 18080 and 18081, each page is on the wire twice.  The
# client file is the app's [pages, statements, connections opened] per route
proxied() {
	cat >"$TMP/nginx.conf" <<EOF
worker_processes 1; daemon off; pid $TMP/nginx.pid; error_log $TMP/nginx.err;
events { worker_connections 64; }
http {
	access_log off;
	upstream app { server 127.0.0.1:18080; keepalive 8; }
	server {
		listen 127.0.0.1:18081;
		location / { proxy_pass http://app; proxy_http_version 1.1; proxy_set_header Connection ""; }
	}
}
EOF
	WORKERS=4 /usr/bin/python3 "$SRC/tests/clients/per_request_app.py" 18080 "$BLOGPIPE" \
		>"$TMP/app.out" 2>&1 &
	app=$!
	nginx -c "$TMP/nginx.conf" -p "$TMP" &
	proxy=$!
	for _ in $(seq 100); do grep -q ready "$TMP/app.out" 2>/dev/null && break; sleep 0.1; done
	sleep 0.5
	/usr/bin/python3 "$SRC/tests/clients/load.py" 18081 "$@" >/dev/null
	curl -s http://127.0.0.1:18080/stats
	echo
	kill "$proxy" "$app"
	wait "$proxy" "$app" 2>/dev/null || true
}
capture_filter="tcp port $PORT or tcp port 18080 or tcp port 18081" capture web-proxied lo - proxied 8 15 /articles/3 / /tags/tag-7
# PgBouncer (transaction pooling, on 56432) between the clients and the
# server: both legs on the wire
bouncer_start() {
	mkdir -p "$TMP/pgb"
	cat >"$TMP/pgb/pgbouncer.ini" <<EOF
[databases]
* = host=127.0.0.1 port=$PORT
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = 56432
auth_type = trust
auth_file = $TMP/pgb/users.txt
pool_mode = transaction
default_pool_size = 2
logfile = $TMP/pgb/pgbouncer.log
pidfile = $TMP/pgb/pgbouncer.pid
EOF
	echo '"postgres" ""' >"$TMP/pgb/users.txt"
	chmod 755 "$TMP"
	chown -R postgres "$TMP/pgb"
	pgbouncer -d -u postgres "$TMP/pgb/pgbouncer.ini"
	for _ in $(seq 50); do [ -s "$TMP/pgb/pgbouncer.pid" ] && break; sleep 0.1; done
	sleep 0.3
}
bouncer_stop() {
	pid=$(cat "$TMP/pgb/pgbouncer.pid")
	kill "$pid"
	for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
}
# pgbench through it: every statement twice (src/proto/pgsql/pg_legs.h)
pooled() {
	bouncer_start
	pgbench -n -S -c 2 -t 25 -p 56432 2>&1 | grep -E '^number of (clients|transactions actually)'
	bouncer_stop
}
capture_filter="tcp port $PORT or tcp port 56432" capture pooler-legs lo - pooled
# a relay on the server's own port at another address (tests/clients/relay.py,
# as docker-proxy publishes a container's port): both legs on port $PORT
relayed() {
	/usr/bin/python3 "$SRC/tests/clients/relay.py" 127.0.0.5 "$PORT" 127.0.0.1 "$PORT" >"$TMP/relay.out" &
	relay=$!
	for _ in $(seq 50); do grep -q ready "$TMP/relay.out" 2>/dev/null && break; sleep 0.1; done
	pgbench -n -S -M prepared -c 2 -t 25 -h 127.0.0.5 2>&1 | grep -E '^number of (clients|transactions actually)'
	kill "$relay"
	wait "$relay" 2>/dev/null || true
}
capture relay-same-port lo - relayed
# the blog app through it, its DSN naming it, from the app's start: the
# server's leg shows PgBouncer's startups and its own SETs (pooler-server-conns
# when analysed with -p PORT alone and --http-port 18080)
pooled_web() {
	bouncer_start
	WEB_DSN="host=127.0.0.1 port=56432 user=postgres dbname=postgres sslmode=disable application_name=blog" \
		web "$@"
	bouncer_stop
}
capture_filter="tcp port $PORT or tcp port 18080 or tcp port 56432" \
	capture web-pooler-server-leg lo - pooled_web ping-page 4 5 /articles/3 / /articles/4
# app_client CLIENT ARGS...: the blog app (no pings) while a client script runs
app_client() {
	/usr/bin/python3 "$SRC/tests/clients/webapp.py" "$CI" 18080 noping >"$TMP/app.out" 2>&1 &
	app=$!
	for _ in $(seq 50); do grep -q ready "$TMP/app.out" 2>/dev/null && break; sleep 0.1; done
	/usr/bin/python3 "$SRC/tests/clients/$1" 18080
	kill $app
	wait $app 2>/dev/null || true
}
capture_filter="tcp port 18080" capture http-not-decodable lo - app_client badhttp.py
capture_filter="tcp port $PORT or tcp port 18080" capture web-hostile lo - app_client hostile.py
capture_filter="tcp port $PORT or tcp port 18080" capture web-hostile-utf8 lo - app_client hostile_utf8.py

# Redis: a throwaway redis-server (Debian's 7) on 127.0.0.1:$REDIS_PORT;
# analyse these with --redis-port 56379
REDIS_PORT=${REDIS_PORT:-56379}
redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no \
	--dir "$TMP" >"$TMP/redis.log" 2>&1 &
redis=$!
for _ in $(seq 50); do redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1 && break; sleep 0.1; done
redis_bench() { # what redis-benchmark says it sent, then what the server ran
	redis-cli -p "$REDIS_PORT" config resetstat >/dev/null
	redis-benchmark -p "$REDIS_PORT" -n 400 -c 2 -P 1 -t get,set -q | tr '\r' '\n' | grep -v -e rps= -e '^ *$'
	redis-benchmark -p "$REDIS_PORT" -n 800 -c 2 -P 16 -t get -q | tr '\r' '\n' | grep -v -e rps= -e '^ *$'
	echo "server commandstats: $(redis-cli -p "$REDIS_PORT" info commandstats | grep -o 'cmdstat_[a-z|]*:calls=[0-9]*' | tr '\n' ' ')"
	echo "round trips: 400 + 400 (-P 1), 800 / 16 = 50 (-P 16), 2 of CONFIG GET per run, 2 of redis-cli"
}
capture_filter="tcp port $REDIS_PORT" capture redis-benchmark lo - redis_bench
capture_filter="tcp port $REDIS_PORT" capture redis-py lo - /usr/bin/python3 "$SRC/tests/clients/redisclient.py" "$REDIS_PORT" redis-py
capture_filter="tcp port $REDIS_PORT" capture redis-raw lo - /usr/bin/python3 "$SRC/tests/clients/redisclient.py" "$REDIS_PORT" raw
redis_hiredis() { # what the hiredis client says it did, then what the server ran
	redis-cli -p "$REDIS_PORT" config resetstat >/dev/null
	"$SRC/build/tests/hiredisclient" "$REDIS_PORT"
	echo "server commandstats: $(redis-cli -p "$REDIS_PORT" info commandstats | grep -o 'cmdstat_[a-z|]*:calls=[0-9]*' | tr '\n' ' ')"
	echo "round trips: 8 (and 2 for the statistics)"
}
capture_filter="tcp port $REDIS_PORT" capture redis-hiredis lo - redis_hiredis
# redis-benchmark through a relay on Redis's own port at another address
# (tests/clients/relay.py, as docker-proxy): both legs on $REDIS_PORT
redis_relayed() {
	/usr/bin/python3 "$SRC/tests/clients/relay.py" 127.0.0.5 "$REDIS_PORT" 127.0.0.1 "$REDIS_PORT" >"$TMP/rrelay.out" &
	rrelay=$!
	for _ in $(seq 50); do grep -q ready "$TMP/rrelay.out" 2>/dev/null && break; sleep 0.1; done
	redis-benchmark -h 127.0.0.5 -p "$REDIS_PORT" -n 200 -c 2 -P 1 -t get,set -q | tr '\r' '\n' | grep -v -e rps= -e '^ *$'
	echo "round trips on each leg: 200 + 200 (-P 1), 2 of CONFIG GET"
	kill "$rrelay"
	wait "$rrelay" 2>/dev/null || true
}
capture_filter="tcp port $REDIS_PORT" capture redis-relay lo - redis_relayed
kill "$redis"
wait "$redis" 2>/dev/null || true

[ "$ONLY" != "  " ] && exit 0

# derived variants: formats and damage
editcap -F pcapng "$HERE/pgbench-extended.pcap" "$HERE/pgbench-extended.pcapng"
editcap -F nsecpcap "$HERE/libpq-pipeline.pcap" "$HERE/libpq-pipeline-ns.pcap"
editcap -s 80 "$HERE/pgbench-simple.pcap" "$HERE/damaged-snaplen80.pcap"
editcap "$HERE/pgbench-simple.pcap" "$HERE/damaged-dropped.pcap" $(seq 20 25 200)
editcap --seed 7 -E 0.02 -o 66 "$HERE/pgbench-simple.pcap" "$HERE/damaged-corrupt.pcap"
# starts in the middle of both pgbench connections: no SYN, no startup
editcap -r "$HERE/pgbench-extended.pcap" "$HERE/damaged-midstream.pcap" 40-100000
size=$(stat -c %s "$HERE/pgbench-prepared.pcap")
head -c $((size - 700)) "$HERE/pgbench-prepared.pcap" >"$HERE/damaged-truncated.pcap"
printf 'this is not a capture\n' >"$HERE/not-a-capture.pcap"
# Redis damaged: frames removed (both sides' data among them), picked up
# mid-stream, bytes corrupted
editcap -F pcap "$HERE/redis-benchmark.pcap" "$HERE/redis-dropped.pcap" $(seq 300 97 2000)
editcap -F pcap -r "$HERE/redis-benchmark.pcap" "$HERE/redis-midstream.pcap" 500-100000
editcap -F pcap --seed 7 -E 0.01 -o 66 "$HERE/redis-benchmark.pcap" "$HERE/redis-corrupt.pcap"
# every packet cut to 80 bytes (14 of payload: no command whole), and the
# file cut in the middle of a packet
editcap -F pcap -s 80 "$HERE/redis-benchmark.pcap" "$HERE/redis-snaplen80.pcap"
size=$(stat -c %s "$HERE/redis-benchmark.pcap")
head -c $((size / 2 + 37)) "$HERE/redis-benchmark.pcap" >"$HERE/redis-truncated.pcap"
# other link layers, packet for packet the same traffic
for k in raw null loop vlan user0; do
	/usr/bin/python3 "$SRC/tests/clients/relink.py" "$HERE/libpq-pipeline.pcap" "$HERE/link-$k.pcap" $k
done
/usr/bin/python3 "$SRC/tests/clients/relink.py" "$HERE/ipv6.pcap" "$HERE/ipv6-extension-header.pcap" ip6ext
: >"$HERE/empty.pcap"
