#!/bin/sh
# pg_cluster.sh start|stop|resume DIR PORT - a throwaway PostgreSQL cluster on
# 127.0.0.1 and ::1, owned by user postgres, living in DIR.  Trust
# authentication for user postgres, SCRAM for user pgrtt_scram (password
# "pgrtt"), SSL with a self-signed certificate.
set -eu
cmd=$1 dir=$2 port=$3
bindir=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
as_pg() { su postgres -s /bin/sh -c "$*"; }

run_server() {
	as_pg "'$bindir/pg_ctl' -D '$dir/data' -l '$dir/pg.log' -w start -o \"-p $port -k '$dir' \
		-c listen_addresses='127.0.0.1,::1' -c ssl=on -c max_connections=60 \
		-c fsync=off -c shared_buffers=64MB\"" >/dev/null
}

case $cmd in
start)
	mkdir -p "$dir"
	chown postgres "$dir"
	as_pg "'$bindir/initdb' -D '$dir/data' -A trust -U postgres -E UTF8 --no-sync" >"$dir/initdb.log"
	openssl req -new -x509 -days 2 -nodes -subj /CN=localhost \
		-keyout "$dir/data/server.key" -out "$dir/data/server.crt" 2>/dev/null
	chown postgres "$dir/data/server.key" "$dir/data/server.crt"
	chmod 600 "$dir/data/server.key"
	cat >"$dir/data/pg_hba.conf" <<HBA
host all pgrtt_scram 127.0.0.1/32 scram-sha-256
host all pgrtt_scram ::1/128 scram-sha-256
host all all 127.0.0.1/32 trust
host all all ::1/128 trust
local all all trust
HBA
	run_server
	as_pg "psql -h '$dir' -p $port -U postgres -qAt -c \"CREATE ROLE pgrtt_scram LOGIN PASSWORD 's3cret-pw'\""
	;;
resume) # a cluster made by start and stopped since (a store that went away comes back)
	run_server
	;;
stop)
	as_pg "'$bindir/pg_ctl' -D '$dir/data' -m fast -w stop" >/dev/null || true
	;;
*)
	echo "usage: $0 start|stop|resume DIR PORT" >&2
	exit 64
	;;
esac
