/* stored_json.c - pgrtt report -F json (docs/json.md, "pgrtt report"):
 * runs, rows (one per route of a run) and left_out; or, with --compare,
 * the two runs side by side with their routes' changes.  A figure that was
 * not measured is null, never 0. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>

#include "base/about.h"
#include "base/escape.h"
#include "pattern.h"
#include "stored_report.h"

static void add_num(cJSON *o, const char *k, double v)
{
	if (isnan(v))
		cJSON_AddNullToObject(o, k);
	else
		cJSON_AddNumberToObject(o, k, v);
}

static cJSON *run_json(const struct run_figures *f)
{
	cJSON *o = cJSON_CreateObject();
	struct run_rates rr;
	run_rates(f, &rr);
	double s[SEG_N];
	run_segments(f, 1, s);
	char pat[200];
	cJSON_AddNumberToObject(o, "run", (double)f->run);
	esc_json_add(o, "created_at", f->created);
	esc_json_add(o, "app", f->app);
	esc_json_add(o, "labels", f->labels);
	esc_json_add(o, "source", f->source);
	if (f->host[0])
		esc_json_add(o, "host", f->host);
	else
		cJSON_AddNullToObject(o, "host"); /* stored before pgrtt kept it */
	cJSON_AddBoolToObject(o, "measured", f->measured);
	if (!f->measured) { /* nothing measured: every figure null, not 0 (warnings say why) */
		static const char *const none[] = {
			"connections", "ready_for_query", "round_trips", "by_class",
			"round_trips_per_query", "pings_per_100_queries", "startups_per_1000_round_trips",
			"latency_p50_ms", "latency_p99_ms", "pattern", "driver", "pages"};
		for (size_t i = 0; i < sizeof none / sizeof none[0]; i++)
			cJSON_AddNullToObject(o, none[i]);
		char key[96]; /* the other protocols' kept totals */
		for (int k = 0; analysis_run_figure(k, NULL); k++) {
			stored_run_key(key, sizeof key, k);
			cJSON_AddNullToObject(o, key);
		}
		cJSON_AddBoolToObject(o, "http", f->http);
		cJSON_AddBoolToObject(o, "lower_bound", f->lower_bound);
		json_add_codes(o, "warnings", f->warnings);
		return o;
	}
	cJSON_AddNumberToObject(o, "connections", (double)f->connections);
	cJSON_AddNumberToObject(o, "ready_for_query", (double)f->rfq);
	cJSON_AddNumberToObject(o, "round_trips", (double)f->rt);
	cJSON *bc = cJSON_AddObjectToObject(o, "by_class");
	for (int k = 0; k < SEG_N; k++)
		cJSON_AddNumberToObject(bc, seg_key[k], s[k]);
	cJSON_AddNumberToObject(bc, "startup", (double)f->cls[RT_STARTUP]);
	add_num(o, "round_trips_per_query", rr.per_query);
	add_num(o, "pings_per_100_queries", rr.pings_per_100q);
	add_num(o, "startups_per_1000_round_trips", rr.startups_per_1k);
	add_num(o, "latency_p50_ms", f->p50);
	add_num(o, "latency_p99_ms", f->p99);
	run_pattern(f, pat, sizeof pat);
	if (pat[0])
		esc_json_add(o, "pattern", pat);
	else
		cJSON_AddNullToObject(o, "pattern");
	if (f->driver[0])
		esc_json_add(o, "driver", f->driver);
	else
		cJSON_AddNullToObject(o, "driver");
	cJSON_AddBoolToObject(o, "http", f->http);
	cJSON_AddNumberToObject(o, "pages", (double)f->pages);
	char key[96]; /* the other protocols' kept totals: null, not measured */
	for (int k = 0; analysis_run_figure(k, NULL); k++) {
		stored_run_key(key, sizeof key, k);
		add_num(o, key, f->proto_fig[k]);
	}
	cJSON_AddBoolToObject(o, "lower_bound", f->lower_bound);
	json_add_codes(o, "warnings", f->warnings);
	return o;
}

static cJSON *route_json(const struct route_figures *r)
{
	cJSON *o = cJSON_CreateObject();
	double s[SEG_N];
	route_segments(r, s);
	cJSON_AddNumberToObject(o, "run", (double)r->run);
	esc_json_add(o, "app", r->app);
	esc_json_add(o, "labels", r->labels);
	esc_json_add(o, "route", r->route);
	cJSON_AddNumberToObject(o, "pages", (double)r->pages);
	cJSON_AddNumberToObject(o, "round_trips_per_page", r->rt);
	cJSON_AddNumberToObject(o, "ready_for_query_per_page", r->rfq);
	cJSON_AddNumberToObject(o, "query_per_page", r->query);
	cJSON_AddNumberToObject(o, "ping_per_page", r->ping);
	cJSON_AddNumberToObject(o, "ping_acquire_per_page", r->acq);
	cJSON_AddNumberToObject(o, "ping_release_per_page", r->rel);
	cJSON_AddNumberToObject(o, "ping_idle_per_page", s[SEG_IDLE]);
	cJSON_AddNumberToObject(o, "transaction_per_page", r->tx);
	cJSON_AddNumberToObject(o, "reset_per_page", r->reset);
	cJSON_AddNumberToObject(o, "prepare_per_page", r->prepare);
	cJSON_AddNumberToObject(o, "other_per_page", r->other);
	cJSON_AddNumberToObject(o, "http_p50_ms", r->p50);
	cJSON_AddNumberToObject(o, "http_p99_ms", r->p99);
	cJSON_AddStringToObject(o, "attribution", r->attribution);
	cJSON_AddNumberToObject(o, "inferred_share", r->inferred);
	cJSON *iv = cJSON_AddArrayToObject(o, "interval95"); /* of round_trips_per_page */
	cJSON_AddItemToArray(iv, cJSON_CreateNumber(r->rt_lo));
	cJSON_AddItemToArray(iv, cJSON_CreateNumber(r->rt_hi));
	cJSON_AddBoolToObject(o, "lower_bound", r->lower_bound);
	json_add_codes(o, "warnings", r->warnings);
	const struct page_figure *f; /* null: not measured (without the protocol's ports) */
	for (int k = 0; (f = analysis_page_figure(k, NULL)); k++)
		if (f->reported)
			add_num(o, f->key, r->page[k]);
	return o;
}

static void add_change(cJSON *o, const char *k, double a, double b)
{
	cJSON *c = cJSON_AddObjectToObject(o, k);
	add_num(c, "a", a);
	add_num(c, "b", b);
	add_num(c, "change", b - a);
}

static cJSON *compare_json(const struct stored_report *r)
{
	const struct run_figures *a = r->ra, *b = r->rb;
	cJSON *o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "a", run_json(a));
	cJSON_AddItemToObject(o, "b", run_json(b));
	struct run_rates x, y;
	run_rates(a, &x);
	run_rates(b, &y);
	double sa[SEG_N], sb[SEG_N];
	run_segments(a, (double)a->cls[RT_QUERY], sa);
	run_segments(b, (double)b->cls[RT_QUERY], sb);
	cJSON *ch = cJSON_AddObjectToObject(o, "runs");
	add_change(ch, "round_trips_per_query", x.per_query, y.per_query);
	add_change(ch, "pings_per_100_queries", x.pings_per_100q, y.pings_per_100q);
	add_change(ch, "round_trips", run_round_trips(a), run_round_trips(b));
	add_change(ch, "startups_per_1000_round_trips", x.startups_per_1k, y.startups_per_1k);
	cJSON *pq = cJSON_AddObjectToObject(ch, "per_query");
	for (int k = 0; k < SEG_N; k++)
		add_change(pq, seg_key[k], a->cls[RT_QUERY] > 0 ? sa[k] : NAN,
			   b->cls[RT_QUERY] > 0 ? sb[k] : NAN);
	cJSON *routes = cJSON_AddArrayToObject(o, "routes");
	for (int i = 0; i < r->ncmp; i++) {
		const struct cmp_route *c = &r->cmp[i];
		cJSON *e = cJSON_CreateObject();
		esc_json_add(e, "route", c->route);
		cJSON_AddStringToObject(e, "status", cmp_status(c, r->ra, r->rb));
		cJSON_AddItemToObject(e, "a", c->a ? route_json(c->a) : cJSON_CreateNull());
		cJSON_AddItemToObject(e, "b", c->b ? route_json(c->b) : cJSON_CreateNull());
		if (c->a && c->b) {
			cJSON *d = cJSON_AddObjectToObject(e, "change");
			cJSON_AddNumberToObject(d, "round_trips_per_page", c->b->rt - c->a->rt);
			cJSON_AddNumberToObject(d, "query_per_page", c->b->query - c->a->query);
			cJSON_AddNumberToObject(d, "ping_per_page", c->b->ping - c->a->ping);
			cJSON_AddNumberToObject(d, "other_per_page",
						(c->b->rt - c->b->query - c->b->ping) -
							(c->a->rt - c->a->query - c->a->ping));
		} else {
			cJSON_AddNullToObject(e, "change");
		}
		cJSON_AddItemToArray(routes, e);
	}
	return o;
}

int stored_json(FILE *out, const struct stored_report *r)
{
	cJSON *root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "pgrtt", pgrtt_version_string());
	if (r->ra) {
		cJSON_AddItemToObject(root, "compare", compare_json(r));
	} else {
		cJSON *runs = cJSON_AddArrayToObject(root, "runs");
		for (int i = 0; i < r->nruns; i++)
			cJSON_AddItemToArray(runs, run_json(&r->runs[i]));
		cJSON *rows = cJSON_AddArrayToObject(root, "rows");
		for (int i = 0; i < r->nrows; i++)
			cJSON_AddItemToArray(rows, route_json(&r->rows[i]));
		cJSON *left = cJSON_AddArrayToObject(root, "left_out");
		for (int i = 0; i < r->nleft; i++) {
			cJSON *e = cJSON_CreateObject();
			cJSON_AddNumberToObject(e, "run", (double)r->left[i].run);
			esc_json_add(e, "reason", r->left[i].why);
			cJSON_AddItemToArray(left, e);
		}
	}
	char *t = cJSON_Print(root);
	cJSON_Delete(root);
	if (!t)
		return -1;
	fprintf(out, "%s\n", t);
	free(t);
	return 0;
}
