/* stored_csv.c - pgrtt report -F csv: one table per call (--table routes,
 * the default, or runs), RFC 4180 with esc_csv's formula guard.  New
 * columns go at the end: scripts read these by position too. */
#include <inttypes.h>
#include <math.h>

#include "base/escape.h"
#include "pattern.h"
#include "stored_report.h"

/* A number; empty when not measured. */
static void num(FILE *out, double v)
{
	if (!isnan(v))
		fprintf(out, "%.6g", v);
}

static void runs_csv(FILE *out, const struct stored_report *r)
{
	fputs("run,created_at,app,labels,round_trips,ready_for_query,query,ping_acquire,ping_release,"
	      "ping_idle,transaction,reset,prepare,other,pings_per_100_queries,"
	      "round_trips_per_query,latency_p50_ms,latency_p99_ms,connections,"
	      "startups_per_1000_round_trips,pattern,lower_bound,warnings,",
	      out);
	int nfigs = 0; /* the other protocols' kept totals (analysis_run_figure) */
	for (char key[96]; analysis_run_figure(nfigs, NULL); nfigs++) {
		stored_run_key(key, sizeof key, nfigs);
		fprintf(out, "%s,", key);
	}
	fputs("host,measured\n", out);
	for (int i = 0; i < r->nruns; i++) {
		const struct run_figures *f = &r->runs[i];
		struct run_rates rr;
		run_rates(f, &rr);
		double s[SEG_N];
		run_segments(f, 1, s);
		char pat[200];
		fprintf(out, "%" PRId64 ",", f->run);
		esc_csv(out, f->created);
		fputc(',', out);
		esc_csv(out, f->app);
		fputc(',', out);
		esc_csv(out, f->labels);
		if (!f->measured) { /* nothing measured: empty, not 0 (the warnings say why) */
			fputs(",,,,,,,,,,,,,,,,,,0,", out);
			esc_csv(out, f->warnings);
			fputc(',', out);
			for (int k = 0; k < nfigs; k++)
				fputc(',', out);
			esc_csv(out, f->host);
			fputs(",0\n", out);
			continue;
		}
		fprintf(out, ",%" PRId64 ",%" PRId64, f->rt, f->rfq);
		for (int k = 0; k < SEG_N; k++)
			fprintf(out, ",%.0f", s[k]);
		fputc(',', out);
		num(out, rr.pings_per_100q);
		fputc(',', out);
		num(out, rr.per_query);
		fputc(',', out);
		num(out, f->p50);
		fputc(',', out);
		num(out, f->p99);
		fprintf(out, ",%" PRId64 ",", f->connections);
		num(out, rr.startups_per_1k);
		fputc(',', out);
		esc_csv(out, run_pattern(f, pat, sizeof pat));
		fprintf(out, ",%d,", f->lower_bound);
		esc_csv(out, f->warnings);
		fputc(',', out);
		for (int k = 0; k < nfigs; k++) {
			num(out, f->proto_fig[k]);
			fputc(',', out);
		}
		esc_csv(out, f->host);
		fputs(",1\n", out);
	}
}

static void routes_csv(FILE *out, const struct stored_report *r)
{
	const struct page_figure *f;
	fputs("run,app,labels,route,pages,round_trips_per_page,ready_for_query_per_page,"
	      "query_per_page,ping_per_page,ping_acquire_per_page,ping_release_per_page,"
	      "other_per_page,http_p50_ms,http_p99_ms,attribution,lower_bound,warnings,"
	      "inferred_share,round_trips_low,round_trips_high,",
	      out);
	for (int k = 0; (f = analysis_page_figure(k, NULL)); k++)
		if (f->reported)
			fprintf(out, "%s,", f->key);
	fputs("ping_idle_per_page,transaction_per_page,reset_per_page,prepare_per_page\n", out);
	for (int i = 0; i < r->nrows; i++) {
		const struct route_figures *x = &r->rows[i];
		double s[SEG_N];
		route_segments(x, s);
		fprintf(out, "%" PRId64 ",", x->run);
		esc_csv(out, x->app);
		fputc(',', out);
		esc_csv(out, x->labels);
		fputc(',', out);
		esc_csv(out, x->route);
		fprintf(out, ",%" PRId64 ",%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%s,%d,", x->pages,
			x->rt, x->rfq, x->query, x->ping, x->acq, x->rel, x->other, x->p50, x->p99,
			x->attribution, x->lower_bound);
		esc_csv(out, x->warnings);
		fprintf(out, ",%.6g,%.6g,%.6g,", x->inferred, x->rt_lo, x->rt_hi);
		for (int k = 0; (f = analysis_page_figure(k, NULL)); k++) {
			if (!f->reported)
				continue;
			num(out, x->page[k]);
			fputc(',', out);
		}
		fprintf(out, "%.6g,%.6g,%.6g,%.6g\n", s[SEG_IDLE], x->tx, x->reset, x->prepare);
	}
}

/* --compare: run-level figures as metric,a,b,change; routes with status. */
static void compare_csv(FILE *out, const struct stored_report *r)
{
	const struct run_figures *a = r->ra, *b = r->rb;
	if (r->table == TABLE_RUNS) {
		struct run_rates x, y;
		run_rates(a, &x);
		run_rates(b, &y);
		double sa[SEG_N], sb[SEG_N];
		run_segments(a, (double)a->cls[RT_QUERY], sa);
		run_segments(b, (double)b->cls[RT_QUERY], sb);
		fprintf(out, "metric,run_a,run_b,a,b,change\n");
		struct {
			const char *k;
			double a, b;
		} m[4 + SEG_N] = {{"round_trips_per_query", x.per_query, y.per_query},
				  {"pings_per_100_queries", x.pings_per_100q, y.pings_per_100q},
				  {"round_trips", run_round_trips(a), run_round_trips(b)},
				  {"startups_per_1000_round_trips", x.startups_per_1k, y.startups_per_1k}};
		for (int k = 0; k < SEG_N; k++) {
			m[4 + k].k = seg_key[k];
			m[4 + k].a = a->cls[RT_QUERY] > 0 ? sa[k] : NAN;
			m[4 + k].b = b->cls[RT_QUERY] > 0 ? sb[k] : NAN;
		}
		for (int i = 0; i < 4 + SEG_N; i++) {
			fprintf(out, "%s%s,%" PRId64 ",%" PRId64 ",", m[i].k, i >= 4 ? "_per_query" : "",
				a->run, b->run);
			num(out, m[i].a);
			fputc(',', out);
			num(out, m[i].b);
			fputc(',', out);
			num(out, m[i].b - m[i].a);
			fputc('\n', out);
		}
		return;
	}
	fputs("route,run_a,run_b,round_trips_per_page_a,round_trips_per_page_b,change,"
	      "query_change,ping_change,other_change,status\n",
	      out);
	for (int i = 0; i < r->ncmp; i++) {
		const struct cmp_route *c = &r->cmp[i];
		esc_csv(out, c->route);
		fprintf(out, ",%" PRId64 ",%" PRId64 ",", a->run, b->run);
		if (c->a && c->b)
			fprintf(out, "%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,both\n", c->a->rt, c->b->rt,
				c->b->rt - c->a->rt, c->b->query - c->a->query, c->b->ping - c->a->ping,
				(c->b->rt - c->b->query - c->b->ping) - (c->a->rt - c->a->query - c->a->ping));
		else if (c->b)
			fprintf(out, ",%.6g,,,,,%s\n", c->b->rt, cmp_status(c, a, b));
		else
			fprintf(out, "%.6g,,,,,,%s\n", c->a->rt, cmp_status(c, a, b));
	}
}

void stored_csv(FILE *out, const struct stored_report *r)
{
	if (r->ra)
		compare_csv(out, r);
	else if (r->table == TABLE_RUNS)
		runs_csv(out, r);
	else
		routes_csv(out, r);
}
