/* store_schema.h - the SQLite schema, one migration per version, in order.
 * PRAGMA user_version is the number of migrations applied.  Never edit a
 * migration that has shipped: add the next one.  docs/storage.md documents
 * the tables and views. */
#ifndef PGRTT_STORE_SCHEMA_H
#define PGRTT_STORE_SCHEMA_H

static const char *const store_migrations[] = {
	/* 1: runs, their labels, totals by class, connections, routes */
	"CREATE TABLE runs ("
	"  id INTEGER PRIMARY KEY,"
	"  created_at TEXT NOT NULL,"
	"  app TEXT,"
	"  source TEXT NOT NULL,"
	"  pgrtt_version TEXT NOT NULL,"
	"  ports TEXT NOT NULL,"
	"  http_ports TEXT,"
	"  first_ts TEXT, last_ts TEXT, duration_s REAL,"
	"  partial INTEGER NOT NULL DEFAULT 0,"
	"  packets INTEGER NOT NULL, postgresql_packets INTEGER NOT NULL,"
	"  connections INTEGER NOT NULL,"
	"  ready_for_query INTEGER NOT NULL, round_trips INTEGER NOT NULL,"
	"  rows INTEGER NOT NULL, errors INTEGER NOT NULL, unanswered INTEGER NOT NULL,"
	"  latency_p50_us REAL, latency_p99_us REAL, latency_max_us REAL,"
	"  gaps INTEGER NOT NULL, gap_bytes INTEGER NOT NULL, malformed INTEGER NOT NULL,"
	"  truncated_segments INTEGER NOT NULL, mid_stream INTEGER NOT NULL, tls INTEGER NOT NULL,"
	"  drops INTEGER,"
	"  http_requests INTEGER, http_responses INTEGER, http_malformed INTEGER,"
	"  http_not_decodable INTEGER, round_trips_outside_pages INTEGER,"
	"  mixed_pages INTEGER, mixed_round_trips REAL"
	");"
	"CREATE TABLE run_labels ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  key TEXT NOT NULL, value TEXT NOT NULL,"
	"  PRIMARY KEY (run_id, key)"
	");"
	"CREATE TABLE run_classes ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  class TEXT NOT NULL,"
	"  round_trips INTEGER NOT NULL,"
	"  latency_p50_us REAL, latency_p99_us REAL,"
	"  PRIMARY KEY (run_id, class)"
	");"
	"CREATE TABLE connections ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  conn_id INTEGER NOT NULL,"
	"  client TEXT NOT NULL, server TEXT NOT NULL,"
	"  first_ts TEXT, last_ts TEXT,"
	"  ready_for_query INTEGER NOT NULL, round_trips INTEGER NOT NULL,"
	"  query INTEGER, ping INTEGER, ping_acquire INTEGER, ping_release INTEGER,"
	"  ping_idle INTEGER, reset INTEGER, \"transaction\" INTEGER, prepare INTEGER,"
	"  \"close\" INTEGER, copy INTEGER, startup INTEGER, function INTEGER, other INTEGER,"
	"  unknown INTEGER,"
	"  latency_p50_us REAL, latency_p99_us REAL,"
	"  gaps INTEGER, malformed INTEGER, mid_stream INTEGER, tls TEXT,"
	"  driver TEXT, application_name TEXT, user_name TEXT, database TEXT,"
	"  PRIMARY KEY (run_id, conn_id)"
	");"
	"CREATE TABLE routes ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  route TEXT NOT NULL,"
	"  pages INTEGER NOT NULL, pages_exact INTEGER NOT NULL, pages_mixed INTEGER NOT NULL,"
	"  attribution TEXT NOT NULL,"
	"  round_trips_per_page REAL, round_trips_min INTEGER, round_trips_max INTEGER,"
	"  ready_for_query_per_page REAL,"
	"  query_per_page REAL, ping_per_page REAL, ping_acquire_per_page REAL,"
	"  ping_release_per_page REAL, reset_per_page REAL, transaction_per_page REAL,"
	"  prepare_per_page REAL, other_per_page REAL,"
	"  http_p50_ms REAL, http_p99_ms REAL, pg_time_per_page_ms REAL,"
	"  connections_per_page REAL,"
	"  PRIMARY KEY (run_id, route)"
	");"
	"CREATE VIEW route_stats AS"
	"  SELECT runs.app, runs.created_at, routes.* FROM routes JOIN runs ON runs.id = routes.run_id;",

	/* 2: per-round-trip rows (pgrtt analyze --store-round-trips) */
	"CREATE TABLE round_trips ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  conn_id INTEGER NOT NULL,"
	"  idx INTEGER NOT NULL,"
	"  t_start TEXT, latency_us REAL,"
	"  class TEXT NOT NULL, ping_role TEXT,"
	"  flight TEXT, ready_for_query INTEGER, rows INTEGER, errors INTEGER,"
	"  status_before TEXT, status_after TEXT, damaged INTEGER,"
	"  PRIMARY KEY (run_id, conn_id, idx)"
	");",

	/* 3: connections handed back to the pool inside a transaction (pgrtt audit) */
	"ALTER TABLE runs ADD COLUMN returned_in_transaction INTEGER;",

	/* 4: what a run could not vouch for (evidence.h); NULL lower_bound: a run
	 * stored before pgrtt kept its findings */
	"CREATE TABLE run_warnings ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  code TEXT NOT NULL, severity TEXT NOT NULL, count INTEGER NOT NULL,"
	"  lower_bound INTEGER NOT NULL, message TEXT NOT NULL,"
	"  PRIMARY KEY (run_id, code)"
	");"
	"ALTER TABLE runs ADD COLUMN lower_bound INTEGER;",

	/* 5: per-route figures under mixed load are estimated (docs/pages.md):
	 * how much was inferred and the 95% interval; NULL for routes stored
	 * before */
	"ALTER TABLE routes ADD COLUMN inferred_share REAL;"
	"ALTER TABLE routes ADD COLUMN round_trips_low REAL;"
	"ALTER TABLE routes ADD COLUMN round_trips_high REAL;",

	/* 6: Redis (--redis-port, docs/round-trips.md): the run's figures, its
	 * commands by name, and per route (docs/pages.md); NULL for runs
	 * stored without it, or before */
	"ALTER TABLE runs ADD COLUMN redis_ports TEXT;"
	"ALTER TABLE runs ADD COLUMN redis_connections INTEGER;"
	"ALTER TABLE runs ADD COLUMN redis_commands INTEGER;"
	"ALTER TABLE runs ADD COLUMN redis_round_trips INTEGER;"
	"ALTER TABLE runs ADD COLUMN redis_pipelined_round_trips INTEGER;"
	"ALTER TABLE runs ADD COLUMN redis_latency_p50_us REAL;"
	"ALTER TABLE runs ADD COLUMN redis_latency_p99_us REAL;"
	"CREATE TABLE run_redis_commands ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  command TEXT NOT NULL, calls INTEGER NOT NULL,"
	"  PRIMARY KEY (run_id, command)"
	");"
	"ALTER TABLE routes ADD COLUMN redis_round_trips_per_page REAL;"
	"ALTER TABLE routes ADD COLUMN redis_flights_per_page REAL;"
	"ALTER TABLE routes ADD COLUMN redis_commands_per_page REAL;",

	/* 7: where the run was captured (a central store holds many hosts' runs);
	 * NULL for runs stored before */
	"ALTER TABLE runs ADD COLUMN host TEXT;",

	/* 8: each run's key, made when it is written and kept when a spool
	 * delivers it: a run delivered twice (killed between the store's commit
	 * and the spool's delete) is found and not stored again.  NULL for runs
	 * stored before */
	("ALTER TABLE runs ADD COLUMN run_key TEXT;"
	 "CREATE UNIQUE INDEX runs_run_key ON runs (run_key);"),
};

#define STORE_SCHEMA_VERSION ((int)(sizeof store_migrations / sizeof store_migrations[0]))

#endif
