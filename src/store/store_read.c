/* store_read.c - what pgrtt runs, report and audit read from the store.
 * Every SQL statement of the store is in store.c (writing, schema) and
 * here (reading); commands see records, never sqlite3. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"
#include "store_impl.h"

static void set_err(char *err, const char *what, struct db *db)
{
	snprintf(err, STORE_ERRBUF, "%s: %s", what, db_errmsg(db));
}

static void copy_col(char *dst, size_t cap, struct db_stmt *st, int i)
{
	const char *t = db_column_text(st, i);
	snprintf(dst, cap, "%s", t ? (const char *)t : "");
}

bool store_has_run(struct store *s, int64_t id)
{
	struct db_stmt *st;
	if (db_prepare(store_db(s), "SELECT 1 FROM runs WHERE id = ?", &st) != DB_OK)
		return false;
	db_bind_int64(st, 1, id);
	bool ok = db_step(st) == DB_ROW;
	db_finalize(st);
	return ok;
}

int store_delete_run(struct store *s, int64_t id, char *err)
{
	struct db *db = store_db(s);
	struct db_stmt *st;
	int rc = -1;
	if (db_prepare(db, "DELETE FROM runs WHERE id = ?", &st) == DB_OK) {
		db_bind_int64(st, 1, id);
		rc = db_step(st) == DB_DONE ? 0 : -1;
		db_finalize(st);
	}
	if (rc != 0)
		set_err(err, "deleting the run", db);
	return rc;
}

/* The runs q selects, as SQL conditions on runs x appended at sql + o;
 * bind_filter binds their values in the same order. */
static size_t filter_sql(const struct route_query *q, char *sql, size_t cap, size_t o)
{
#define ADD(...) (o += o < cap ? (size_t)snprintf(sql + o, cap - o, __VA_ARGS__) : 0)
	if (q->napps) {
		ADD(" AND x.app IN (");
		for (int i = 0; i < q->napps; i++)
			ADD("%s?", i ? "," : "");
		ADD(")");
	}
	for (int i = 0; i < q->nlabels; i++)
		ADD(" AND EXISTS (SELECT 1 FROM run_labels l WHERE l.run_id = x.id"
		    " AND l.key || '=' || l.value = ?)");
	if (q->nruns) {
		ADD(" AND x.id IN (");
		for (int i = 0; i < q->nruns; i++)
			ADD("%s?", i ? "," : "");
		ADD(")");
	}
#undef ADD
	return o; /* >= cap: it did not fit, and the caller says so */
}

static void bind_filter(const struct route_query *q, struct db_stmt *st)
{
	int k = 1;
	for (int i = 0; i < q->napps; i++)
		db_bind_text(st, k++, q->apps[i]);
	for (int i = 0; i < q->nlabels; i++)
		db_bind_text(st, k++, q->labels[i]);
	for (int i = 0; i < q->nruns; i++)
		db_bind_int64(st, k++, q->runs[i]);
}

/* head ("... FROM runs x WHERE 1 = 1"), q's filter and tail, prepared and
 * bound.  0, or -1 (err filled). */
static int prepare_filtered(struct db *db, const char *head, const struct route_query *q,
			    const char *tail, struct db_stmt **st, char *err)
{
	char sql[4096];
	size_t o = (size_t)snprintf(sql, sizeof sql, "%s", head);
	o = filter_sql(q, sql, sizeof sql, o);
	if (o + strlen(tail) + 1 >= sizeof sql) {
		snprintf(err, STORE_ERRBUF, "too many filters");
		return -1;
	}
	snprintf(sql + o, sizeof sql - o, "%s", tail);
	if (db_prepare(db, sql, st) != DB_OK) {
		set_err(err, "reading runs", db);
		return -1;
	}
	bind_filter(q, *st);
	return 0;
}

int64_t store_latest_matching(struct store *s, const struct route_query *q)
{
	struct db_stmt *st;
	char err[STORE_ERRBUF];
	int64_t id = 0;
	if (prepare_filtered(store_db(s), "SELECT max(x.id) FROM runs x WHERE 1 = 1", q, "", &st, err))
		return 0;
	if (db_step(st) == DB_ROW && db_column_type(st, 0) != DB_NULL)
		id = db_column_int64(st, 0);
	db_finalize(st);
	return id;
}

int store_apps(struct store *s, const struct route_query *q, char (*apps)[STORE_APP_MAX], int cap,
	       int *n, char *err)
{
	struct db *db = store_db(s);
	struct db_stmt *st;
	if (prepare_filtered(db, "SELECT DISTINCT coalesce(x.app, '') FROM runs x WHERE 1 = 1", q,
			     " ORDER BY 1", &st, err))
		return -1;
	int step;
	*n = 0;
	while ((step = db_step(st)) == DB_ROW)
		if ((*n)++ < cap)
			copy_col(apps[*n - 1], STORE_APP_MAX, st, 0);
	db_finalize(st);
	if (step != DB_DONE) {
		set_err(err, "reading apps", db);
		return -1;
	}
	return 0;
}

/* The round trips per page of routes, one record per (run, route), ordered
 * by route, app and run: the same figures for report and audit. */
int store_routes(struct store *s, const struct route_query *q, struct route_figures **out, int *n,
		 char *err)
{
	struct db *db = store_db(s);
	char sql[8192];
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
		" EXISTS (SELECT 1 FROM run_warnings w WHERE w.run_id = r.run_id"
		"  AND w.severity = 'fatal')");
	const struct page_figure *f; /* the reported page figures, from column 26 */
	for (int i = 0; (f = analysis_page_figure(i, NULL)) && o < sizeof sql; i++)
		if (f->reported)
			o += (size_t)snprintf(sql + o, sizeof sql - o, ", r.%s", f->key);
	if (o < sizeof sql)
		o += (size_t)snprintf(sql + o, sizeof sql - o,
				      " FROM routes r JOIN runs x ON x.id = r.run_id WHERE %s",
				      q->with_mixed_only ? "1 = 1" : "r.pages > 0");
	o = filter_sql(q, sql, sizeof sql, o);
	if (o + 40 >= sizeof sql) {
		snprintf(err, STORE_ERRBUF, "too many filters");
		return -1;
	}
	snprintf(sql + o, sizeof sql - o, " ORDER BY r.route, x.app, x.id");
	struct db_stmt *st;
	if (db_prepare(db, sql, &st) != DB_OK) {
		set_err(err, "reading routes", db);
		return -1;
	}
	bind_filter(q, st);
	int cap = 0, rc = 0, step;
	*out = NULL;
	*n = 0;
	while (rc == 0 && (step = db_step(st)) == DB_ROW) {
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
		r->run = db_column_int64(st, 0);
		copy_col(r->app, sizeof r->app, st, 1);
		copy_col(r->labels, sizeof r->labels, st, 2);
		copy_col(r->route, sizeof r->route, st, 3);
		r->pages = db_column_int64(st, 4);
		r->pages_mixed = db_column_int64(st, 5);
		double *v[] = {&r->rt,    &r->rfq, &r->query,   &r->ping,  &r->acq,   &r->rel,
			       &r->reset, &r->tx,  &r->prepare, &r->other, &r->conns, &r->p50,
			       &r->p99};
		/* NULL: not measured (conns: every page estimated; all of them: no
		 * PostgreSQL round trip in the run), never 0 */
		for (int i = 0; i < (int)(sizeof v / sizeof v[0]); i++)
			*v[i] = db_column_type(st, 6 + i) == DB_NULL ? NAN : db_column_double(st, 6 + i);
		copy_col(r->attribution, sizeof r->attribution, st, 19);
		r->lower_bound = db_column_int(st, 20) != 0;
		copy_col(r->warnings, sizeof r->warnings, st, 21);
		double *iv[] = {&r->inferred, &r->rt_lo, &r->rt_hi};
		for (int i = 0; i < 3; i++)
			*iv[i] = db_column_type(st, 22 + i) == DB_NULL ? NAN : db_column_double(st, 22 + i);
		for (int i = 0, col = 26; (f = analysis_page_figure(i, NULL)); i++) {
			r->page[i] = r->page_lo[i] = r->page_hi[i] = NAN;
			if (f->reported && db_column_type(st, col) != DB_NULL)
				r->page[i] = db_column_double(st, col);
			col += f->reported;
		}
		if (db_column_int(st, 25) || strcmp(r->attribution, "not measured") == 0) {
			/* a run with a fatal finding (no-postgresql...), stored before its
			 * routes' figures were NULL: 0.0 there was nothing measured */
			double *pg[] = {&r->rt,   &r->rfq, &r->query,   &r->ping,  &r->acq,
					&r->rel,  &r->reset, &r->tx,    &r->prepare, &r->other,
					&r->conns, &r->inferred, &r->rt_lo, &r->rt_hi};
			for (size_t k = 0; k < sizeof pg / sizeof pg[0]; k++)
				*pg[k] = NAN;
			snprintf(r->attribution, sizeof r->attribution, "not measured");
		}
	}
	if (rc == 0 && step == DB_ERROR) { /* not the end of the rows: a failure */
		set_err(err, "reading routes", db);
		rc = -1;
	}
	db_finalize(st);
	return rc;
}

/* Run f's round trips by class, ping role and ping kind. */
static void run_classes(struct db_stmt *st, struct run_figures *f)
{
	static const char *const extra[] = {"ping_acquire",   "ping_release",     "ping_idle",
					    "ping_lone_sync", "ping_empty_query", "ping_select1"};
	int64_t *to[] = {&f->acq, &f->rel, &f->idle, &f->lone_sync, &f->empty_query, &f->select1};
	f->lone_sync = f->empty_query = f->select1 = -1; /* absent: stored before schema 7 */
	db_bind_int64(st, 1, f->run);
	while (db_step(st) == DB_ROW) {
		const char *c = db_column_text(st, 0);
		int64_t n = db_column_int64(st, 1);
		for (int k = 0; c && k < RT_NCLASS; k++)
			if (strcmp(c, rt_class_name(k)) == 0)
				f->cls[k] = n;
		for (int k = 0; c && k < 6; k++)
			if (strcmp(c, extra[k]) == 0)
				*to[k] = n;
	}
	db_reset(st);
}

int store_runs(struct store *s, const struct route_query *q, struct run_figures **out, int *n,
	       char *err)
{
	struct db *db = store_db(s);
	char sql[8192];
	size_t o = (size_t)snprintf(
		sql, sizeof sql,
		"SELECT x.id, x.created_at, coalesce(x.app, ''),"
		" (SELECT group_concat(key || '=' || value, ' ') FROM run_labels WHERE run_id = x.id),"
		" x.source, x.connections, x.ready_for_query, x.round_trips, x.latency_p50_us,"
		" x.latency_p99_us, coalesce(x.duration_s, 0), x.http_ports IS NOT NULL,"
		" coalesce(x.lower_bound, 0),"
		" (SELECT group_concat(code, ' ') FROM run_warnings w WHERE w.run_id = x.id"
		"  AND w.severity != 'note'),"
		" (SELECT coalesce(sum(pages), 0) FROM routes r WHERE r.run_id = x.id),"
		" (SELECT count(*) FROM routes r WHERE r.run_id = x.id AND r.pages > 0),"
		" (SELECT CASE WHEN count(DISTINCT driver) > 1 THEN 'several' ELSE max(driver) END"
		"  FROM connections c WHERE c.run_id = x.id AND driver != ''),"
		" coalesce(x.host, ''),"
		" CASE WHEN EXISTS (SELECT 1 FROM run_warnings w WHERE w.run_id = x.id"
		"  AND w.severity = 'fatal') THEN 0 ELSE 1 END");
	const struct proto_ops *proto; /* the kept totals of other protocols, from column 19 */
	const struct conn_figure *fig;
	for (int i = 0; (fig = analysis_run_figure(i, &proto)) && o < sizeof sql; i++)
		o += (size_t)snprintf(sql + o, sizeof sql - o, ", x.%s_%s", proto->name, fig->column);
	if (o < sizeof sql)
		o += (size_t)snprintf(sql + o, sizeof sql - o, " FROM runs x WHERE 1 = 1");
	o = filter_sql(q, sql, sizeof sql, o);
	if (o + 40 >= sizeof sql) {
		snprintf(err, STORE_ERRBUF, "too many filters");
		return -1;
	}
	snprintf(sql + o, sizeof sql - o, " ORDER BY x.id");
	struct db_stmt *st, *cls;
	if (db_prepare(db, sql, &st) != DB_OK) {
		set_err(err, "reading runs", db);
		return -1;
	}
	if (db_prepare(db, "SELECT class, round_trips FROM run_classes WHERE run_id = ?", &cls) != DB_OK) {
		set_err(err, "reading classes", db);
		db_finalize(st);
		return -1;
	}
	bind_filter(q, st);
	int cap = 0, rc = 0, step;
	*out = NULL;
	*n = 0;
	while (rc == 0 && (step = db_step(st)) == DB_ROW) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			struct run_figures *r = realloc(*out, (size_t)cap * sizeof(*r));
			if (!r) {
				snprintf(err, STORE_ERRBUF, "out of memory");
				rc = -1;
				break;
			}
			*out = r;
		}
		struct run_figures *f = &(*out)[(*n)++];
		memset(f, 0, sizeof(*f));
		f->run = db_column_int64(st, 0);
		copy_col(f->created, sizeof f->created, st, 1);
		copy_col(f->app, sizeof f->app, st, 2);
		copy_col(f->labels, sizeof f->labels, st, 3);
		copy_col(f->source, sizeof f->source, st, 4);
		f->connections = db_column_int64(st, 5);
		f->rfq = db_column_int64(st, 6);
		f->rt = db_column_int64(st, 7);
		f->p50 = db_column_type(st, 8) == DB_NULL ? NAN
								   : db_column_double(st, 8) / 1e3;
		f->p99 = db_column_type(st, 9) == DB_NULL ? NAN
								   : db_column_double(st, 9) / 1e3;
		f->duration = db_column_double(st, 10);
		f->http = db_column_int(st, 11) != 0;
		f->lower_bound = db_column_int(st, 12) != 0;
		copy_col(f->warnings, sizeof f->warnings, st, 13);
		f->pages = db_column_int64(st, 14);
		f->routes = db_column_int64(st, 15);
		copy_col(f->driver, sizeof f->driver, st, 16);
		copy_col(f->host, sizeof f->host, st, 17);
		f->measured = db_column_int(st, 18) != 0;
		for (int i = 0; i < RUN_FIGS_MAX; i++)
			f->proto_fig[i] = NAN;
		for (int i = 0; analysis_run_figure(i, NULL); i++)
			if (db_column_type(st, 19 + i) != DB_NULL)
				f->proto_fig[i] = (double)db_column_int64(st, 19 + i);
		run_classes(cls, f);
	}
	if (rc == 0 && step == DB_ERROR) {
		set_err(err, "reading runs", db);
		rc = -1;
	}
	db_finalize(st);
	db_finalize(cls);
	return rc;
}

int store_run_pings(struct store *s, int64_t id, struct run_pings *p, char *err)
{
	struct db *db = store_db(s);
	struct db_stmt *st;
	memset(p, 0, sizeof(*p));
	if (db_prepare(db, "SELECT class, round_trips FROM run_classes WHERE run_id = ?", &st) != DB_OK) {
		set_err(err, "reading classes", db);
		return -1;
	}
	db_bind_int64(st, 1, id);
	while (db_step(st) == DB_ROW) {
		const char *c = db_column_text(st, 0);
		uint64_t n = (uint64_t)db_column_int64(st, 1);
		if (strcmp(c, "ping_acquire") == 0)
			p->acq = n;
		else if (strcmp(c, "ping_release") == 0)
			p->rel = n;
		else if (strcmp(c, "ping_idle") == 0)
			p->idle = n;
	}
	db_finalize(st);
	if (db_prepare(db, "SELECT returned_in_transaction, http_ports FROM runs WHERE id = ?", &st) != DB_OK) {
		set_err(err, "reading the run", db);
		return -1;
	}
	db_bind_int64(st, 1, id);
	if (db_step(st) == DB_ROW) {
		p->returned_in_tx = (uint64_t)db_column_int64(st, 0);
		p->http = db_column_type(st, 1) != DB_NULL;
	}
	db_finalize(st);
	return 0;
}

static const char *const listings[] = {
	[STORE_LIST_RUNS] =
		"SELECT r.id, r.created_at, r.app, "
		" (SELECT group_concat(key || '=' || value, ' ') FROM run_labels WHERE run_id = r.id),"
		" CASE WHEN f.fatal THEN NULL ELSE r.connections END,"
		" CASE WHEN f.fatal THEN NULL ELSE r.ready_for_query END,"
		" CASE WHEN f.fatal THEN NULL ELSE r.round_trips END, r.http_requests, r.source,"
		" CASE WHEN f.fatal THEN 'not measured: ' || f.codes ELSE NULL END "
		"FROM runs r LEFT JOIN (SELECT run_id, 1 = 1 AS fatal, group_concat(code, ' ') AS codes"
		" FROM run_warnings WHERE severity = 'fatal' GROUP BY run_id) f ON f.run_id = r.id"
		" ORDER BY r.id",
	[STORE_LIST_TOTALS] = "SELECT * FROM runs WHERE id = ?1",
	[STORE_LIST_LABELS] = "SELECT key, value FROM run_labels WHERE run_id = ?1 ORDER BY key",
	[STORE_LIST_CLASSES] = "SELECT class, round_trips, latency_p50_us, latency_p99_us FROM "
			       "run_classes WHERE run_id = ?1 AND round_trips > 0 ORDER BY class",
	[STORE_LIST_WARNINGS] = "SELECT code, severity, count, message FROM run_warnings WHERE "
				"run_id = ?1 ORDER BY rowid",
	[STORE_LIST_ROUTES] = "SELECT route, pages, round_trips_per_page, ready_for_query_per_page,"
			      " query_per_page, ping_acquire_per_page, ping_release_per_page,"
			      " attribution FROM routes WHERE run_id = ?1 ORDER BY pages DESC",
};

int store_listing(struct store *s, enum store_listing what, int64_t id, store_row_fn *fn,
		  void *ctx, char *err)
{
	struct db *db = store_db(s);
	struct db_stmt *st;
	if (db_prepare(db, listings[what], &st) != DB_OK) {
		set_err(err, "reading the store", db);
		return -1;
	}
	db_bind_int64(st, 1, id);
	int nc = 0, rows = 0, step;
	const char *names[64], *values[64];
	while ((step = db_step(st)) == DB_ROW) {
		if (rows == 0) { /* PostgreSQL's columns are known once it has answered */
			nc = db_column_count(st) < 64 ? db_column_count(st) : 64;
			for (int i = 0; i < nc; i++)
				names[i] = db_column_name(st, i);
		}
		for (int i = 0; i < nc; i++)
			values[i] = db_column_text(st, i);
		fn(ctx, rows++, nc, names, values);
	}
	if (step == DB_ERROR) {
		set_err(err, "reading the store", db);
		rows = -1;
	}
	db_finalize(st);
	return rows;
}
