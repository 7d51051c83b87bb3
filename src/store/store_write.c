/* store_write.c - a run written into the store: its totals, labels,
 * classes, connections, routes and findings, in one transaction; a run
 * copied from one store to another (store.h). */
#define _DEFAULT_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "base/about.h"
#include "db.h"
#include "findings/format.h"
#include "store.h"
#include "store_impl.h"

static void now_utc(char *buf, size_t cap)
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* 128 random bits in hex: a run's key (store_schema.h, migration 8), unique
 * across every host that writes to a store. */
static void new_run_key(char key[33])
{
	unsigned char b[16];
	size_t got = 0;
	while (got < sizeof b) {
		ssize_t n = getrandom(b + got, sizeof b - got, 0);
		if (n <= 0) { /* no entropy source: time and process, still unique here */
			struct timespec t;
			clock_gettime(CLOCK_REALTIME, &t);
			uint64_t v[2] = {(uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec,
					 (uint64_t)getpid() << 32 ^ (uint64_t)(uintptr_t)&t};
			memcpy(b, v, sizeof b);
			break;
		}
		got += (size_t)n;
	}
	for (size_t i = 0; i < sizeof b; i++)
		snprintf(key + 2 * i, 3, "%02x", b[i]);
}

int store_begin_run(struct store *s, char *err)
{
	if (store_dbexec(s->db, "BEGIN IMMEDIATE", err, "locking the database") != 0)
		return -1;
	s->in_run = true;
	char created[32];
	now_utc(created, sizeof created);
	struct db_stmt *st;
	if (db_prepare(s->db,
			       "INSERT INTO runs (created_at, source, pgrtt_version, ports, packets, "
			       "postgresql_packets, connections, ready_for_query, round_trips, rows, "
			       "errors, unanswered, gaps, gap_bytes, malformed, truncated_segments, "
			       "mid_stream, tls, run_key) VALUES (?, '', ?, '', 0,0,0,0,0,0,0,0,0,0,0,0,0,0, ?)",
		       &st) != DB_OK) {
		store_dberr(err, "starting a run", s->db);
		store_abort_run(s);
		return -1;
	}
	db_bind_text(st, 1, created);
	db_bind_text(st, 2, pgrtt_version_string());
	char key[33];
	new_run_key(key);
	db_bind_text(st, 3, key);
	int rc = db_step(st);
	db_finalize(st);
	if (rc != DB_DONE) {
		store_dberr(err, "starting a run", s->db);
		store_abort_run(s);
		return -1;
	}
	s->run_id = db_last_insert_id(s->db);
	if (!s->rt_insert &&
	    db_prepare(s->db,
			       "INSERT INTO round_trips (run_id, conn_id, idx, t_start, latency_us, "
			       "class, ping_role, flight, ready_for_query, rows, errors, "
			       "status_before, status_after, damaged) "
			       "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)", &s->rt_insert) != DB_OK) {
		store_dberr(err, "preparing round-trip rows", s->db);
		store_abort_run(s);
		return -1;
	}
	return 0;
}

void store_abort_run(struct store *s)
{
	if (s->in_run)
		db_exec(s->db, "ROLLBACK");
	s->in_run = false;
}

int store_round_trip(struct store *s, uint64_t conn, const struct rt *rt)
{
	struct db_stmt *st = s->rt_insert;
	if (s->failed[0])
		return -1;
	char ts[48], sb[2] = {(char)rt->status_before, 0}, sa[2] = {(char)rt->status_after, 0};
	db_reset(st);
	db_bind_int64(st, 1, s->run_id);
	db_bind_int64(st, 2, (int64_t)conn);
	db_bind_int64(st, 3, (int64_t)rt->index);
	if (rt->has_start) {
		ts_format(ts, sizeof ts, rt->t_start);
		db_bind_text(st, 4, ts);
	} else {
		db_bind_null(st, 4);
	}
	if (rt->has_start && rt->has_end && rt->t_end >= rt->t_start)
		db_bind_double(st, 5, (double)(rt->t_end - rt->t_start) / 1e3);
	else
		db_bind_null(st, 5);
	db_bind_text(st, 6, rt_class_name(rt->cls));
	if (rt->cls == RT_PING)
		db_bind_text(st, 7, rt_ping_role_name(rt->ping_role));
	else
		db_bind_null(st, 7);
	db_bind_text(st, 8, rt->flight);
	db_bind_int(st, 9, (int)rt->rfq);
	db_bind_int(st, 10, (int)rt->rows);
	db_bind_int(st, 11, (int)rt->errors);
	db_bind_text(st, 12, sb);
	db_bind_text(st, 13, sa);
	db_bind_int(st, 14, rt->damaged);
	if (db_step(st) == DB_DONE && db_in_transaction(s->db))
		return 0;
	/* SQLITE_FULL and friends roll the transaction back on their own:
	 * nothing more may be written, or it would land outside the run */
	store_dberr(s->failed, "storing round trips", s->db);
	return -1;
}

/* ---------------------------------------------------------------------- */

static void bind_ts(struct db_stmt *st, int i, uint64_t ts, bool have)
{
	char b[48];
	if (!have) {
		db_bind_null(st, i);
		return;
	}
	ts_format(b, sizeof b, ts);
	db_bind_text(st, i, b);
}

static void ports_text(char *buf, size_t cap, const uint16_t *ports, int n)
{
	size_t o = 0;
	buf[0] = '\0';
	for (int i = 0; i < n && o + 8 < cap; i++)
		o += (size_t)snprintf(buf + o, cap - o, "%s%u", i ? "," : "", ports[i]);
}

static int step_done(struct db_stmt *st, struct db *db, char *err, const char *what)
{
	int rc = db_step(st);
	db_reset(st);
	if (rc != DB_DONE) {
		store_dberr(err, what, db);
		return -1;
	}
	return 0;
}

static int put_totals(struct store *s, const struct analysis *a, const struct store_run_info *in,
		      char *err)
{
	const struct pgsql_shared *pg = analysis_pgsql(a);
	const struct analysis_totals *t = analysis_counts(a);
	const struct http_totals *ht = analysis_http(a);
	const struct pgsql_totals *pt = &pg->tot;
	struct db_stmt *st;
	const char *sql =
		"UPDATE runs SET app=?1, source=?2, ports=?3, http_ports=?4, first_ts=?5, last_ts=?6,"
		" duration_s=?7, partial=?8, packets=?9, postgresql_packets=?10, connections=?11,"
		" ready_for_query=?12, round_trips=?13, rows=?14, errors=?15, unanswered=?16,"
		" latency_p50_us=?17, latency_p99_us=?18, latency_max_us=?19, gaps=?20,"
		" gap_bytes=?21, malformed=?22, truncated_segments=?23, mid_stream=?24, tls=?25,"
		" http_requests=?26, http_responses=?27, http_malformed=?28, http_not_decodable=?29,"
		" round_trips_outside_pages=?30, mixed_pages=?31, mixed_round_trips=?32, drops=?34,"
		" returned_in_transaction=?35, host=?36 WHERE id=?33";
	if (db_prepare(s->db, sql, &st) != DB_OK) {
		store_dberr(err, "storing the run", s->db);
		return -1;
	}
	char ports[256], hports[256];
	ports_text(ports, sizeof ports, analysis_options(a)->ports, analysis_options(a)->nports);
	ports_text(hports, sizeof hports, analysis_options(a)->http_ports, analysis_options(a)->nhttp_ports);
	const struct rtt_stats *x = &pt->st;
	if (in->app)
		db_bind_text(st, 1, in->app);
	db_bind_text(st, 2, in->source);
	db_bind_text(st, 3, ports);
	if (analysis_options(a)->nhttp_ports)
		db_bind_text(st, 4, hports);
	bind_ts(st, 5, t->first_ts, t->packets > 0);
	bind_ts(st, 6, t->last_ts, t->packets > 0);
	db_bind_double(st, 7, t->last_ts > t->first_ts ? (double)(t->last_ts - t->first_ts) / 1e9 : 0);
	db_bind_int(st, 8, in->partial);
	db_bind_int64(st, 9, (int64_t)t->packets);
	db_bind_int64(st, 10, (int64_t)pt->packets);
	db_bind_int64(st, 11, (int64_t)pt->connections);
	db_bind_int64(st, 12, (int64_t)x->rfq);
	db_bind_int64(st, 13, (int64_t)x->round_trips);
	db_bind_int64(st, 14, (int64_t)x->rows);
	db_bind_int64(st, 15, (int64_t)x->errors);
	db_bind_int64(st, 16, (int64_t)x->unanswered);
	if (pg->lat.count) {
		db_bind_double(st, 17, (double)hist_quantile(&pg->lat, 0.5) / 1e3);
		db_bind_double(st, 18, (double)hist_quantile(&pg->lat, 0.99) / 1e3);
		db_bind_double(st, 19, (double)pg->lat.max / 1e3);
	}
	db_bind_int64(st, 20, (int64_t)pt->gaps);
	db_bind_int64(st, 21, (int64_t)pt->gap_bytes);
	db_bind_int64(st, 22, (int64_t)pt->malformed);
	db_bind_int64(st, 23, (int64_t)pt->truncated_segs);
	db_bind_int64(st, 24, (int64_t)pt->mid_stream);
	db_bind_int64(st, 25, (int64_t)pt->tls);
	if (analysis_attributing(a)) {
		db_bind_int64(st, 26, (int64_t)ht->requests);
		db_bind_int64(st, 27, (int64_t)ht->responses);
		db_bind_int64(st, 28, (int64_t)ht->malformed);
		db_bind_int64(st, 29, (int64_t)ht->not_decodable);
		db_bind_int64(st, 30, (int64_t)analysis_attrib(a)->rts_outside);
		db_bind_int64(st, 31, (int64_t)analysis_attrib(a)->mixed_pages);
		db_bind_double(st, 32, analysis_attrib(a)->mixed_rts);
	}
	db_bind_int64(st, 33, s->run_id);
	if (in->drops)
		db_bind_int64(st, 34, (int64_t)(in->drops->drop + in->drops->ifdrop));
	db_bind_int64(st, 35, (int64_t)x->returned_in_tx);
	char host[256];
	if (gethostname(host, sizeof host) == 0) {
		host[sizeof host - 1] = '\0';
		db_bind_text(st, 36, host);
	} else {
		db_bind_null(st, 36);
	}
	int rc = step_done(st, s->db, err, "storing the run");
	db_finalize(st);
	return rc;
}

static int put_labels(struct store *s, const struct store_run_info *in, char *err)
{
	struct db_stmt *st;
	if (db_prepare(s->db, "INSERT INTO run_labels (run_id, key, value) VALUES (?,?,?)", &st) !=
	    DB_OK) {
		store_dberr(err, "storing labels", s->db);
		return -1;
	}
	int rc = 0;
	for (int i = 0; i < in->nlabels && rc == 0; i++) {
		const char *eq = strchr(in->labels[i], '=');
		size_t kn = (size_t)(eq - in->labels[i]);
		bool later = false; /* a key given twice: the last --label wins */
		for (int j = i + 1; j < in->nlabels && !later; j++)
			later = strncmp(in->labels[j], in->labels[i], kn + 1) == 0;
		if (later)
			continue;
		char key[256];
		snprintf(key, sizeof key, "%.*s", (int)kn, in->labels[i]);
		db_bind_int64(st, 1, s->run_id);
		db_bind_text(st, 2, key);
		db_bind_text(st, 3, eq + 1);
		rc = step_done(st, s->db, err, "storing labels");
	}
	db_finalize(st);
	return rc;
}

int store_add_label(struct store *s, int64_t run_id, const char *label, char *err)
{
	const char *eq = strchr(label, '=');
	struct db_stmt *st;
	if (!eq || db_prepare(s->db, "INSERT INTO run_labels (run_id, key, value) VALUES (?,?,?)", &st) !=
			   DB_OK) {
		store_dberr(err, "storing a label", s->db);
		return -1;
	}
	char key[256];
	snprintf(key, sizeof key, "%.*s", (int)(eq - label), label);
	db_bind_int64(st, 1, run_id);
	db_bind_text(st, 2, key);
	db_bind_text(st, 3, eq + 1);
	int rc = step_done(st, s->db, err, "storing a label");
	db_finalize(st);
	return rc;
}

static int put_classes(struct store *s, const struct analysis *a, char *err)
{
	const struct pgsql_shared *pg = analysis_pgsql(a);
	struct db_stmt *st;
	if (db_prepare(s->db, "INSERT INTO run_classes (run_id, class, round_trips, latency_p50_us,"
			       " latency_p99_us) VALUES (?,?,?,?,?)", &st) != DB_OK) {
		store_dberr(err, "storing classes", s->db);
		return -1;
	}
	int rc = 0;
	const struct rtt_stats *x = &pg->tot.st;
	/* the classes, then the ping roles, then what the pings were (a pool's
	 * signature, named in reports: docs/storage.md) */
	static const char *extra[] = {"ping_acquire", "ping_release", "ping_idle",
				      "ping_lone_sync", "ping_empty_query", "ping_select1"};
	for (int c = 0; c < RT_NCLASS + 6 && rc == 0; c++) {
		uint64_t n = c < RT_NCLASS	   ? x->by_class[c]
			     : c < RT_NCLASS + 3 ? x->pings[c - RT_NCLASS + 1]
						   : x->ping_sigs[c - RT_NCLASS - 3 + PSIG_LONE_SYNC];
		db_bind_int64(st, 1, s->run_id);
		db_bind_text(st, 2, c < RT_NCLASS ? rt_class_name(c) : extra[c - RT_NCLASS]);
		db_bind_int64(st, 3, (int64_t)n);
		if (c < RT_NCLASS && pg->lat_class[c].count) {
			db_bind_double(st, 4, (double)hist_quantile(&pg->lat_class[c], 0.5) / 1e3);
			db_bind_double(st, 5, (double)hist_quantile(&pg->lat_class[c], 0.99) / 1e3);
		} else {
			db_bind_null(st, 4);
			db_bind_null(st, 5);
		}
		rc = step_done(st, s->db, err, "storing classes");
	}
	db_finalize(st);
	return rc;
}

static void bind_text_or_null(struct db_stmt *st, int i, const char *v)
{
	if (v && v[0])
		db_bind_text(st, i, v);
	else
		db_bind_null(st, i);
}

static int put_connections(struct store *s, const struct analysis *a, char *err)
{
	struct db_stmt *st;
	if (db_prepare(s->db,
			       "INSERT INTO connections (run_id, conn_id, client, server, first_ts,"
			       " last_ts, ready_for_query, round_trips, query, ping, ping_acquire,"
			       " ping_release, ping_idle, reset, \"transaction\", prepare, \"close\","
			       " copy, startup, function, other, unknown, latency_p50_us,"
			       " latency_p99_us, gaps, malformed, mid_stream, tls, driver,"
			       " application_name, user_name, database)"
			       " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", &st) != DB_OK) {
		store_dberr(err, "storing connections", s->db);
		return -1;
	}
	int rc = 0;
	uint32_t nlisted;
	const struct conn_summary *listed = analysis_listed(a, &nlisted);
	for (uint32_t i = 0; i < nlisted && rc == 0; i++) {
		const struct conn_summary *c = &listed[i];
		if (c->proto != PROTO_PGSQL)
			continue; /* PostgreSQL's table; the others' figures are the run's (put_proto) */
		const struct rtt_stats *x = conn_rtt_stats(c);
		int k = 1;
		db_bind_int64(st, k++, s->run_id);
		db_bind_int64(st, k++, (int64_t)c->id);
		db_bind_text(st, k++, c->client);
		db_bind_text(st, k++, c->server);
		bind_ts(st, k++, c->first_ts, true);
		bind_ts(st, k++, c->last_ts, true);
		db_bind_int64(st, k++, (int64_t)x->rfq);
		db_bind_int64(st, k++, (int64_t)x->round_trips);
		static const int cls[] = {RT_QUERY, RT_PING};
		for (int j = 0; j < 2; j++)
			db_bind_int64(st, k++, (int64_t)x->by_class[cls[j]]);
		for (int j = PING_ACQUIRE; j <= PING_IDLE; j++)
			db_bind_int64(st, k++, (int64_t)x->pings[j]);
		static const int rest[] = {RT_RESET, RT_TRANSACTION, RT_PREPARE, RT_CLOSE, RT_COPY,
					   RT_STARTUP, RT_FUNCTION, RT_OTHER, RT_UNKNOWN};
		for (size_t j = 0; j < sizeof rest / sizeof rest[0]; j++)
			db_bind_int64(st, k++, (int64_t)x->by_class[rest[j]]);
		if (c->lat_count) {
			db_bind_double(st, k++, (double)c->lat_p50 / 1e3);
			db_bind_double(st, k++, (double)c->lat_p99 / 1e3);
		} else {
			db_bind_null(st, k++);
			db_bind_null(st, k++);
		}
		db_bind_int64(st, k++, (int64_t)c->gaps);
		db_bind_int64(st, k++, (int64_t)c->malformed);
		db_bind_int(st, k++, c->mid_stream);
		bind_text_or_null(st, k++, tls_name(c->tls));
		bind_text_or_null(st, k++, x->driver);
		bind_text_or_null(st, k++, x->application_name);
		bind_text_or_null(st, k++, x->user);
		bind_text_or_null(st, k++, x->database);
		rc = step_done(st, s->db, err, "storing connections");
	}
	db_finalize(st);
	return rc;
}

/* v, or NULL where it was not measured (or is NaN): never a 0 for nothing */
static void bind_measured(struct db_stmt *st, int k, bool measured, double v)
{
	if (measured && !isnan(v))
		db_bind_double(st, k, v);
	else
		db_bind_null(st, k);
}

static int put_routes(struct store *s, const struct analysis *a, char *err)
{
	if (!analysis_attributing(a))
		return 0;
	/* PostgreSQL's columns, then each page figure's (figure.h) */
	char sql[2048];
	size_t o = (size_t)snprintf(sql, sizeof sql,
				    "INSERT INTO routes (run_id, route, pages, pages_exact, pages_mixed,"
				    " attribution, round_trips_per_page, round_trips_min, round_trips_max,"
				    " ready_for_query_per_page, query_per_page, ping_per_page,"
				    " ping_acquire_per_page, ping_release_per_page, reset_per_page,"
				    " transaction_per_page, prepare_per_page, other_per_page, http_p50_ms,"
				    " http_p99_ms, pg_time_per_page_ms, connections_per_page,"
				    " inferred_share, round_trips_low, round_trips_high");
	const struct page_figure *f;
	int nfigs = 0;
	for (; (f = analysis_page_figure(nfigs, NULL)) && o < sizeof sql; nfigs++)
		o += (size_t)snprintf(sql + o, sizeof sql - o, ", %s", f->key);
	if (o < sizeof sql)
		o += (size_t)snprintf(sql + o, sizeof sql - o, ") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,"
				      "?,?,?,?,?,?,?,?,?");
	for (int i = 0; i < nfigs && o < sizeof sql; i++)
		o += (size_t)snprintf(sql + o, sizeof sql - o, ",?");
	if (o < sizeof sql)
		o += (size_t)snprintf(sql + o, sizeof sql - o, ")");
	struct db_stmt *st;
	if (o >= sizeof sql || db_prepare(s->db, sql, &st) != DB_OK) {
		store_dberr(err, "storing routes", s->db);
		return -1;
	}
	int rc = 0;
	const struct attrib *at = analysis_attrib(a);
	/* PostgreSQL not measured (a fatal finding: a wrong -p...): the pages and their
	 * latency stand, the round trips per page were not measured - NULL,
	 * not 0, and the attribution says so (analysis_pg_measured) */
	bool pg = analysis_pg_measured(a);
	for (uint32_t i = 0; i < at->nroutes && rc == 0; i++) {
		const struct attrib_route *r = &at->routes[i];
		if (!r->pages) /* no page, no figure: nothing to store as one */
			continue;
		double n = (double)r->pages;
		const double *b = r->by_class;
		double other = 0;
		for (int c = 0; c < RT_NCLASS; c++)
			other += rt_class_is_other(c) ? b[c] : 0;
		int k = 1;
		db_bind_int64(st, k++, s->run_id);
		db_bind_text(st, k++, r->name);
		db_bind_int64(st, k++, (int64_t)r->pages);
		db_bind_int64(st, k++, (int64_t)r->pages_exact);
		db_bind_int64(st, k++, (int64_t)r->pages_mixed);
		db_bind_text(st, k++, pg ? route_attribution(r) : "not measured");
		bind_measured(st, k++, pg, r->rt / n);
		if (r->pages_exact && pg) {
			db_bind_int64(st, k++, r->rt_min);
			db_bind_int64(st, k++, r->rt_max);
		} else {
			db_bind_null(st, k++);
			db_bind_null(st, k++);
		}
		double per[] = {r->rfq, b[RT_QUERY], b[RT_PING], r->pings[PING_ACQUIRE],
				r->pings[PING_RELEASE], b[RT_RESET], b[RT_TRANSACTION], b[RT_PREPARE],
				other};
		for (size_t j = 0; j < sizeof per / sizeof per[0]; j++)
			bind_measured(st, k++, pg, per[j] / n);
		db_bind_double(st, k++, (double)hist_quantile(r->http_ns, 0.5) / 1e6);
		db_bind_double(st, k++, (double)hist_quantile(r->http_ns, 0.99) / 1e6);
		bind_measured(st, k++, pg, r->pg_ns / n / 1e6);
		bind_measured(st, k++, pg, route_conns_per_page(r)); /* NaN: every page estimated */
		double lo, hi;
		route_interval(r, &lo, &hi);
		bind_measured(st, k++, pg, route_inferred_share(r));
		bind_measured(st, k++, pg, lo);
		bind_measured(st, k++, pg, hi);
		const struct proto_ops *proto;
		for (int j = 0; (f = analysis_page_figure(j, &proto)); j++) {
			if (analysis_measured(a, proto->id))
				db_bind_double(st, k++, route_page_count(r, f->count) / n);
			else
				db_bind_null(st, k++); /* not measured: not 0 */
		}
		rc = step_done(st, s->db, err, "storing routes");
	}
	db_finalize(st);
	return rc;
}

/* The run's figures of a protocol with figures of its own (figure.h's
 * conn_figs with a column; Redis's with --redis-port) in the runs'
 * columns NAME_..., and its keys by name in run_NAME_NOUNs. */
static int put_proto(struct store *s, const struct analysis *a, const struct proto_ops *p,
		     char *err)
{
	const void *shared = analysis_shared(a, p->id);
	const struct proto_totals *t = p->totals(shared);
	const void *sum = p->figures_sum(shared);
	char sql[1024], what[64];
	snprintf(what, sizeof what, "storing %s figures", p->title);
	size_t o = (size_t)snprintf(sql, sizeof sql,
				    "UPDATE runs SET %s_ports=?, %s_connections=?, %s_latency_p50_us=?,"
				    " %s_latency_p99_us=?",
				    p->name, p->name, p->name, p->name);
	for (int i = 0; i < p->nconn_figs && o < sizeof sql; i++)
		if (p->conn_figs[i].column && !p->conn_figs[i].by_class)
			o += (size_t)snprintf(sql + o, sizeof sql - o, ", %s_%s=?", p->name,
					      p->conn_figs[i].column);
	if (o < sizeof sql)
		o += (size_t)snprintf(sql + o, sizeof sql - o, " WHERE id=?");
	struct db_stmt *st;
	if (o >= sizeof sql || db_prepare(s->db, sql, &st) != DB_OK) {
		store_dberr(err, what, s->db);
		return -1;
	}
	char ports[256];
	int nports, k = 1;
	const uint16_t *port = analysis_ports(a, p->id, &nports);
	ports_text(ports, sizeof ports, port, nports);
	db_bind_text(st, k++, ports);
	db_bind_int64(st, k++, (int64_t)t->connections);
	if (t->lat.count) { /* else NULL: no round trip, no latency */
		db_bind_double(st, k, (double)hist_quantile(&t->lat, 0.5) / 1e3);
		db_bind_double(st, k + 1, (double)hist_quantile(&t->lat, 0.99) / 1e3);
	}
	k += 2;
	for (int i = 0; i < p->nconn_figs; i++)
		if (p->conn_figs[i].column && !p->conn_figs[i].by_class)
			db_bind_int64(st, k++, (int64_t)*(const uint64_t *)((const char *)sum +
									  p->conn_figs[i].at));
	db_bind_int64(st, k, s->run_id);
	int rc = step_done(st, s->db, err, what);
	db_finalize(st);
	if (rc || !p->by_name)
		return rc;
	snprintf(sql, sizeof sql, "INSERT INTO run_%s_%ss (run_id, %s, calls) VALUES (?,?,?)", p->name,
		 p->by_name_noun, p->by_name_noun);
	snprintf(what, sizeof what, "storing %s %ss", p->title, p->by_name_noun);
	if (db_prepare(s->db, sql, &st) != DB_OK) {
		store_dberr(err, what, s->db);
		return -1;
	}
	static struct name_count names[NAME_COUNTS_MAX];
	uint64_t rest;
	uint32_t n = p->by_name(shared, names, NAME_COUNTS_MAX, &rest);
	for (uint32_t i = 0; i <= n && rc == 0; i++) {
		if (i == n && !rest)
			break;
		db_bind_int64(st, 1, s->run_id);
		/* names are printable (figure.h); the rest has a name no key has */
		db_bind_text(st, 2, i < n ? names[i].name : "(other)");
		db_bind_int64(st, 3, (int64_t)(i < n ? names[i].n : rest));
		rc = step_done(st, s->db, err, what);
	}
	db_finalize(st);
	return rc;
}

/* Every other protocol asked for (put_proto). */
static int put_protos(struct store *s, const struct analysis *a, char *err)
{
	for (int p = 0; p < PROTO_N; p++) {
		const struct proto_ops *ops = analysis_protocol(p);
		if (ops && ops->nconn_figs && analysis_asked(a, p) && put_proto(s, a, ops, err) != 0)
			return -1;
	}
	return 0;
}

static int put_warnings(struct store *s, const struct analysis *a,
			const struct store_run_info *info, char *err)
{
	struct evidence ev;
	struct report_input in = {NULL, 0, info->partial, info->drops};
	evidence_of(a, &in, &ev);
	struct db_stmt *st;
	if (db_prepare(s->db, "UPDATE runs SET lower_bound = ? WHERE id = ?", &st) != DB_OK) {
		store_dberr(err, "storing warnings", s->db);
		return -1;
	}
	db_bind_int(st, 1, ev.lower_bound);
	db_bind_int64(st, 2, s->run_id);
	int rc = step_done(st, s->db, err, "storing warnings");
	db_finalize(st);
	if (rc != 0)
		return -1;
	if (db_prepare(s->db,
			       "INSERT INTO run_warnings (run_id, code, severity, count, lower_bound,"
			       " message) VALUES (?,?,?,?,?,?)", &st) != DB_OK) {
		store_dberr(err, "storing warnings", s->db);
		return -1;
	}
	for (int i = 0; i < ev.n && rc == 0; i++) {
		const struct ev_finding *f = &ev.f[i];
		db_bind_int64(st, 1, s->run_id);
		db_bind_text(st, 2, ev_code_name(f->code));
		db_bind_text(st, 3, ev_severity_name(f->severity));
		db_bind_int64(st, 4, (int64_t)f->count);
		db_bind_int(st, 5, f->lower_bound);
		db_bind_text(st, 6, f->message);
		rc = step_done(st, s->db, err, "storing warnings");
	}
	db_finalize(st);
	return rc;
}

int store_run_evidence(struct store *s, int64_t run_id, struct evidence *ev, char *err)
{
	memset(ev, 0, sizeof(*ev));
	struct db_stmt *st;
	if (db_prepare(s->db,
			       "SELECT lower_bound, postgresql_packets, round_trips, tls, partial, "
			       "coalesce(drops, 0), truncated_segments, gaps, gap_bytes, malformed, "
			       "packets FROM runs WHERE id = ?", &st) != DB_OK) {
		store_dberr(err, "reading the run", s->db);
		return -1;
	}
	db_bind_int64(st, 1, run_id);
	if (db_step(st) != DB_ROW) {
		db_finalize(st);
		snprintf(err, STORE_ERRBUF, "no run %lld", (long long)run_id);
		return -1;
	}
	bool old = db_column_type(st, 0) == DB_NULL;
	if (old) { /* stored before findings were kept: what the columns tell */
		uint64_t c[11];
		for (int i = 1; i < 11; i++)
			c[i] = (uint64_t)db_column_int64(st, i);
		if (c[1] == 0)
			evidence_add(ev, EV_NO_POSTGRESQL, c[10], false,
				     "no PostgreSQL packets in the run (stored by an older pgrtt)");
		else if (c[2] == 0)
			evidence_add(ev, EV_NO_ROUND_TRIPS, c[1], false,
				     "%llu PostgreSQL packets but not one round trip (stored by an "
				     "older pgrtt)",
				     (unsigned long long)c[1]);
		if (c[3])
			evidence_add(ev, EV_ENCRYPTED, c[3], true, "%llu connections are encrypted",
				     (unsigned long long)c[3]);
		if (c[4])
			evidence_add(ev, EV_PARTIAL_INPUT, 1, true,
				     "an input could not be read to its end");
		if (c[5])
			evidence_add(ev, EV_DROPS, c[5], true, "%llu packets dropped",
				     (unsigned long long)c[5]);
		if (c[6])
			evidence_add(ev, EV_TRUNCATED, c[6], true,
				     "%llu TCP segments cut by the snaplen", (unsigned long long)c[6]);
		if (c[7])
			evidence_add(ev, EV_GAPS, c[7], true, "%llu gaps (%llu bytes never captured)",
				     (unsigned long long)c[7], (unsigned long long)c[8]);
		if (c[9])
			evidence_add(ev, EV_MALFORMED, c[9], true,
				     "%llu malformed PostgreSQL messages", (unsigned long long)c[9]);
	}
	db_finalize(st);
	if (old)
		return 0;
	if (db_prepare(s->db,
			       "SELECT code, count, lower_bound, message FROM run_warnings "
			       "WHERE run_id = ? ORDER BY rowid", &st) != DB_OK) {
		store_dberr(err, "reading warnings", s->db);
		return -1;
	}
	db_bind_int64(st, 1, run_id);
	while (db_step(st) == DB_ROW) {
		int code = ev_code_parse(db_column_text(st, 0));
		if (code < 0)
			continue; /* unknown to this pgrtt: cannot be older than it */
		evidence_add(ev, (enum ev_code)code, (uint64_t)db_column_int64(st, 1),
			     db_column_int(st, 2) != 0, "%s",
			     db_column_text(st, 3));
	}
	db_finalize(st);
	return 0;
}

int store_finish_run(struct store *s, const struct analysis *a, const struct store_run_info *info,
		     int64_t *run_id, char *err)
{
	if (s->failed[0]) {
		snprintf(err, STORE_ERRBUF, "%.200s; nothing was stored", s->failed);
		store_abort_run(s);
		return -1;
	}
	if (s->in_run && !db_in_transaction(s->db)) {
		snprintf(err, STORE_ERRBUF, "the run's transaction was rolled back; nothing was stored");
		s->in_run = false;
		return -1;
	}
	if (!s->in_run && store_begin_run(s, err) != 0)
		return -1;
	if (put_totals(s, a, info, err) != 0 || put_labels(s, info, err) != 0 ||
	    put_classes(s, a, err) != 0 || put_connections(s, a, err) != 0 ||
	    put_routes(s, a, err) != 0 || put_protos(s, a, err) != 0 ||
	    put_warnings(s, a, info, err) != 0 ||
	    store_dbexec(s->db, "COMMIT", err, "committing the run") != 0) {
		store_abort_run(s);
		return -1;
	}
	s->in_run = false;
	*run_id = s->run_id;
	return 0;
}

/* ---- Copying a run between stores (capture's spool, store.h) ---- */

/* Every row of table t for run id (its own row, for runs) into the target,
 * the run's new id in place of the old.  Columns by name: the spool and the
 * store may be of different versions of the same schema. */
static int copy_rows(struct store *from, struct store *to, const char *t, int64_t id,
		     int64_t *new_id, char *err)
{
	bool runs = strcmp(t, "runs") == 0;
	char sql[256];
	snprintf(sql, sizeof sql, "SELECT * FROM %s WHERE %s = ?", t, runs ? "id" : "run_id");
	struct db_stmt *st, *ins = NULL;
	if (db_prepare(from->db, sql, &st) != DB_OK) {
		store_dberr(err, "reading the spool", from->db);
		return -1;
	}
	db_bind_int64(st, 1, id);
	int rc = 0, step;
	while (rc == 0 && (step = db_step(st)) == DB_ROW) {
		int nc = db_column_count(st);
		if (!ins) { /* INSERT INTO t ("a", "b", ...) VALUES (?1, ?2, ...) */
			char q[4096];
			size_t o = (size_t)snprintf(q, sizeof q, "INSERT INTO %s (", t);
			int k = 0;
			for (int i = 0; i < nc && o < sizeof q; i++)
				if (!(runs && strcmp(db_column_name(st, i), "id") == 0))
					o += (size_t)snprintf(q + o, sizeof q - o, "%s\"%s\"", k++ ? ", " : "",
							      db_column_name(st, i));
			o += (size_t)snprintf(q + o, sizeof q - o, ") VALUES (");
			for (int i = 0; i < k && o < sizeof q; i++)
				o += (size_t)snprintf(q + o, sizeof q - o, "%s?%d", i ? ", " : "", i + 1);
			snprintf(q + o, sizeof q - o, ")");
			if (o >= sizeof q || db_prepare(to->db, q, &ins) != DB_OK) {
				store_dberr(err, "delivering a spooled run", to->db);
				rc = -1;
				break;
			}
		}
		int k = 0;
		for (int i = 0; i < nc; i++) {
			const char *name = db_column_name(st, i);
			if (runs && strcmp(name, "id") == 0)
				continue;
			k++;
			if (!runs && strcmp(name, "run_id") == 0)
				db_bind_int64(ins, k, *new_id);
			else if (db_column_type(st, i) == DB_NULL)
				db_bind_null(ins, k);
			else
				db_bind_text(ins, k, db_column_text(st, i));
		}
		rc = step_done(ins, to->db, err, "delivering a spooled run");
		if (rc == 0 && runs)
			*new_id = db_last_insert_id(to->db);
	}
	if (rc == 0 && step == DB_ERROR) {
		store_dberr(err, "reading the spool", from->db);
		rc = -1;
	}
	db_finalize(ins);
	db_finalize(st);
	return rc;
}

/* The run of to with from's run id's key, in to's transaction; 0: none. */
static int64_t copied_before(struct store *from, int64_t id, struct store *to)
{
	struct db_stmt *st;
	char key[64] = "";
	int64_t there = 0;
	if (db_prepare(from->db, "SELECT run_key FROM runs WHERE id = ?", &st) != DB_OK)
		return 0; /* a spool of a pgrtt before run keys */
	db_bind_int64(st, 1, id);
	if (db_step(st) == DB_ROW && db_column_type(st, 0) != DB_NULL)
		snprintf(key, sizeof key, "%s", db_column_text(st, 0));
	db_finalize(st);
	if (!key[0] || db_prepare(to->db, "SELECT id FROM runs WHERE run_key = ?", &st) != DB_OK)
		return 0;
	db_bind_text(st, 1, key);
	if (db_step(st) == DB_ROW)
		there = db_column_int64(st, 0);
	db_finalize(st);
	return there;
}

int store_copy_run(struct store *from, int64_t id, struct store *to, int64_t *new_id, bool *was_there,
		   char *err)
{
	static const char *const tables[] = {"runs",        "run_labels", "run_classes",
					     "connections", "routes",     "round_trips",
					     "run_warnings"};
	char names[PROTO_N][64]; /* and every protocol's keys by name (put_proto) */
	int nnames = 0;
	for (int p = 0; p < PROTO_N; p++) {
		const struct proto_ops *ops = analysis_protocol(p);
		if (ops && ops->by_name)
			snprintf(names[nnames++], sizeof names[0], "run_%s_%ss", ops->name,
				 ops->by_name_noun);
	}
	if (store_dbexec(to->db, "BEGIN IMMEDIATE", err, "locking the store") != 0)
		return -1;
	*new_id = copied_before(from, id, to);
	*was_there = *new_id != 0;
	if (*was_there)
		return store_dbexec(to->db, "ROLLBACK", err, "delivering a spooled run");
	size_t n = sizeof tables / sizeof tables[0];
	for (size_t i = 0; i < n + (size_t)nnames; i++)
		if (copy_rows(from, to, i < n ? tables[i] : names[i - n], id, new_id, err) != 0) {
			db_exec(to->db, "ROLLBACK");
			return -1;
		}
	return store_dbexec(to->db, "COMMIT", err, "delivering a spooled run");
}
