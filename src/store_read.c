/* store_read.c - what pgrtt runs, report and audit read from the store.
 * Every SQL statement of the store is in store.c (writing, schema) and
 * here (reading); commands see records, never sqlite3. */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"
#include "store_impl.h"

static void set_err(char *err, const char *what, sqlite3 *db)
{
	snprintf(err, STORE_ERRBUF, "%s: %s", what, sqlite3_errmsg(db));
}

static void copy_col(char *dst, size_t cap, sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	snprintf(dst, cap, "%s", t ? (const char *)t : "");
}

bool store_has_run(struct store *s, int64_t id)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(store_db(s), "SELECT 1 FROM runs WHERE id = ?", -1, &st, NULL) !=
	    SQLITE_OK)
		return false;
	sqlite3_bind_int64(st, 1, id);
	bool ok = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return ok;
}

int64_t store_latest_run(struct store *s)
{
	sqlite3_stmt *st;
	int64_t id = 0;
	if (sqlite3_prepare_v2(store_db(s), "SELECT max(id) FROM runs", -1, &st, NULL) != SQLITE_OK)
		return 0;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return id;
}

int store_delete_run(struct store *s, int64_t id, char *err)
{
	sqlite3 *db = store_db(s);
	sqlite3_stmt *st;
	int rc = -1;
	if (sqlite3_prepare_v2(db, "DELETE FROM runs WHERE id = ?", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, id);
		rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
		sqlite3_finalize(st);
	}
	if (rc != 0)
		set_err(err, "deleting the run", db);
	return rc;
}

/* The round trips per page of routes, one record per (run, route), ordered
 * by route, app and run: the same figures for report and audit. */
int store_routes(struct store *s, const struct route_query *q, struct route_figures **out, int *n,
		 char *err)
{
	sqlite3 *db = store_db(s);
	char sql[4096];
	size_t o = (size_t)snprintf(
		sql, sizeof sql,
		"SELECT r.run_id, coalesce(x.app, ''),"
		" (SELECT group_concat(key || '=' || value, ' ') FROM run_labels WHERE run_id = r.run_id),"
		" r.route, r.pages, r.pages_mixed, r.round_trips_per_page, r.ready_for_query_per_page,"
		" r.query_per_page, r.ping_per_page, r.ping_acquire_per_page, r.ping_release_per_page,"
		" r.reset_per_page, r.transaction_per_page, r.prepare_per_page, r.other_per_page,"
		" r.connections_per_page, r.http_p50_ms, r.http_p99_ms, r.attribution,"
		" coalesce(x.lower_bound, 0),"
		" (SELECT group_concat(code, ' ') FROM run_warnings w WHERE w.run_id = r.run_id"
		"  AND w.severity != 'note'),"
		" coalesce(r.inferred_share, 0), coalesce(r.round_trips_low, r.round_trips_per_page),"
		" coalesce(r.round_trips_high, r.round_trips_per_page),"
		" r.redis_round_trips_per_page, r.redis_commands_per_page"
		" FROM routes r JOIN runs x ON x.id = r.run_id WHERE %s",
		q->with_mixed_only ? "1" : "r.pages > 0");
	if (q->napps) {
		o += (size_t)snprintf(sql + o, sizeof sql - o, " AND x.app IN (");
		for (int i = 0; i < q->napps; i++)
			o += (size_t)snprintf(sql + o, sizeof sql - o, "%s?", i ? "," : "");
		o += (size_t)snprintf(sql + o, sizeof sql - o, ")");
	}
	for (int i = 0; i < q->nlabels; i++)
		o += (size_t)snprintf(sql + o, sizeof sql - o,
				      " AND EXISTS (SELECT 1 FROM run_labels l WHERE l.run_id = x.id"
				      " AND l.key || '=' || l.value = ?)");
	if (q->nruns) {
		o += (size_t)snprintf(sql + o, sizeof sql - o, " AND x.id IN (");
		for (int i = 0; i < q->nruns; i++)
			o += (size_t)snprintf(sql + o, sizeof sql - o, "%s?", i ? "," : "");
		o += (size_t)snprintf(sql + o, sizeof sql - o, ")");
	}
	snprintf(sql + o, sizeof sql - o, " ORDER BY r.route, x.app, x.id");
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		set_err(err, "reading routes", db);
		return -1;
	}
	int k = 1;
	for (int i = 0; i < q->napps; i++)
		sqlite3_bind_text(st, k++, q->apps[i], -1, SQLITE_STATIC);
	for (int i = 0; i < q->nlabels; i++)
		sqlite3_bind_text(st, k++, q->labels[i], -1, SQLITE_STATIC);
	for (int i = 0; i < q->nruns; i++)
		sqlite3_bind_int64(st, k++, q->runs[i]);
	int cap = 0, rc = 0;
	*out = NULL;
	*n = 0;
	while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 64;
			struct route_figures *r = realloc(*out, (size_t)cap * sizeof(*r));
			if (!r) {
				snprintf(err, STORE_ERRBUF, "out of memory");
				rc = -1;
				break;
			}
			*out = r;
		}
		struct route_figures *r = &(*out)[(*n)++];
		memset(r, 0, sizeof(*r));
		r->run = sqlite3_column_int64(st, 0);
		copy_col(r->app, sizeof r->app, st, 1);
		copy_col(r->labels, sizeof r->labels, st, 2);
		copy_col(r->route, sizeof r->route, st, 3);
		r->pages = sqlite3_column_int64(st, 4);
		r->pages_mixed = sqlite3_column_int64(st, 5);
		double *v[] = {&r->rt,    &r->rfq, &r->query,   &r->ping,  &r->acq,   &r->rel,
			       &r->reset, &r->tx,  &r->prepare, &r->other, &r->conns, &r->p50,
			       &r->p99};
		for (int i = 0; i < (int)(sizeof v / sizeof v[0]); i++)
			*v[i] = sqlite3_column_double(st, 6 + i);
		if (sqlite3_column_type(st, 16) == SQLITE_NULL)
			r->conns = NAN; /* every page estimated: not measured */
		copy_col(r->attribution, sizeof r->attribution, st, 19);
		r->lower_bound = sqlite3_column_int(st, 20) != 0;
		copy_col(r->warnings, sizeof r->warnings, st, 21);
		r->inferred = sqlite3_column_double(st, 22);
		r->rt_lo = sqlite3_column_double(st, 23);
		r->rt_hi = sqlite3_column_double(st, 24);
		r->redis_rt = sqlite3_column_type(st, 25) == SQLITE_NULL ? NAN
									 : sqlite3_column_double(st, 25);
		r->redis_cmds = sqlite3_column_type(st, 26) == SQLITE_NULL ? NAN
									   : sqlite3_column_double(st, 26);
	}
	sqlite3_finalize(st);
	return rc;
}

int store_run_pings(struct store *s, int64_t id, struct run_pings *p, char *err)
{
	sqlite3 *db = store_db(s);
	sqlite3_stmt *st;
	memset(p, 0, sizeof(*p));
	if (sqlite3_prepare_v2(db, "SELECT class, round_trips FROM run_classes WHERE run_id = ?", -1,
			       &st, NULL) != SQLITE_OK) {
		set_err(err, "reading classes", db);
		return -1;
	}
	sqlite3_bind_int64(st, 1, id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *c = (const char *)sqlite3_column_text(st, 0);
		uint64_t n = (uint64_t)sqlite3_column_int64(st, 1);
		if (strcmp(c, "ping_acquire") == 0)
			p->acq = n;
		else if (strcmp(c, "ping_release") == 0)
			p->rel = n;
		else if (strcmp(c, "ping_idle") == 0)
			p->idle = n;
	}
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(db, "SELECT returned_in_transaction, http_ports FROM runs WHERE id = ?",
			       -1, &st, NULL) != SQLITE_OK) {
		set_err(err, "reading the run", db);
		return -1;
	}
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		p->returned_in_tx = (uint64_t)sqlite3_column_int64(st, 0);
		p->http = sqlite3_column_type(st, 1) != SQLITE_NULL;
	}
	sqlite3_finalize(st);
	return 0;
}

static const char *const listings[] = {
	[STORE_LIST_RUNS] =
		"SELECT r.id, r.created_at, r.app, "
		" (SELECT group_concat(key || '=' || value, ' ') FROM run_labels WHERE run_id = r.id),"
		" r.connections, r.ready_for_query, r.round_trips, r.http_requests, r.source "
		"FROM runs r ORDER BY r.id",
	[STORE_LIST_TOTALS] = "SELECT * FROM runs WHERE id = ?1",
	[STORE_LIST_LABELS] = "SELECT key, value FROM run_labels WHERE run_id = ?1 ORDER BY key",
	[STORE_LIST_CLASSES] = "SELECT class, round_trips, latency_p50_us, latency_p99_us FROM "
			       "run_classes WHERE run_id = ?1 AND round_trips > 0",
	[STORE_LIST_WARNINGS] = "SELECT code, severity, count, message FROM run_warnings WHERE "
				"run_id = ?1 ORDER BY rowid",
	[STORE_LIST_ROUTES] = "SELECT route, pages, round_trips_per_page, ready_for_query_per_page,"
			      " query_per_page, ping_acquire_per_page, ping_release_per_page,"
			      " attribution FROM routes WHERE run_id = ?1 ORDER BY pages DESC",
};

int store_listing(struct store *s, enum store_listing what, int64_t id, store_row_fn *fn,
		  void *ctx, char *err)
{
	sqlite3 *db = store_db(s);
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, listings[what], -1, &st, NULL) != SQLITE_OK) {
		set_err(err, "reading the store", db);
		return -1;
	}
	sqlite3_bind_int64(st, 1, id);
	int nc = sqlite3_column_count(st), rows = 0;
	const char *names[64], *values[64];
	if (nc > 64)
		nc = 64;
	for (int i = 0; i < nc; i++)
		names[i] = sqlite3_column_name(st, i);
	while (sqlite3_step(st) == SQLITE_ROW) {
		for (int i = 0; i < nc; i++)
			values[i] = (const char *)sqlite3_column_text(st, i);
		fn(ctx, rows++, nc, names, values);
	}
	sqlite3_finalize(st);
	return rows;
}
