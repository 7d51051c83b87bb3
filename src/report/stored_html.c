/* stored_html.c - pgrtt report -F html: one self-contained page (inline
 * CSS and SVG, no script, no fetch) in the reader's light or dark scheme:
 * the runs (a chart of round trips per query by class, then the table),
 * the routes (a chart per route of round trips per page, then the table),
 * or two runs compared.  Every text from the store is esc_html'ed. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/about.h"
#include "base/escape.h"
#include "pattern.h"
#include "stored_report.h"

static const char style[] =
	":root { color-scheme: light dark; --fg: #1d2329; --bg: #ffffff; --muted: #5b6670;"
	" --grid: #d8dde2; --query: #2f6fb3; --acquire: #d9822b; --release: #b8452f; --idle: #c9a227;"
	" --tx: #7b4fb0; --reset: #2a9d8f; --prepare: #5a8f3a; --other: #8a949e; }\n"
	"@media (prefers-color-scheme: dark) { :root { --fg: #e6e9ec; --bg: #14181c; --muted: #9aa5ae;"
	" --grid: #2c343b; --query: #6ea8e8; --acquire: #f0a45c; --release: #e8765e; --idle: #e3c454;"
	" --tx: #b08ae0; --reset: #5cc8b9; --prepare: #8cc56a; --other: #9aa5ae; } }\n"
	"body { font: 15px/1.45 system-ui, sans-serif; color: var(--fg); background: var(--bg);"
	" margin: 2rem auto; max-width: 80rem; padding: 0 1rem; }\n"
	"h2 { font-size: 1.15rem; margin: 2.2rem 0 .6rem; }\n"
	".chart { display: block; margin: 1rem 0 1.4rem; }\n"
	".chart text { fill: var(--fg); font-size: 13px; font-family: system-ui, sans-serif; }\n"
	".chart .title { font-weight: 600; font-size: 14px; } .chart .value { font-weight: 600; }\n"
	".chart .sublabel, .chart .tick, .chart .axis, .chart .missing { fill: var(--muted); }\n"
	".chart .sublabel, .chart .tick { font-size: 11px; }\n"
	".chart .grid { stroke: var(--grid); stroke-width: 1; }\n"
	".seg-query { fill: var(--query); } .seg-ping_acquire { fill: var(--acquire); }"
	" .seg-ping_release { fill: var(--release); } .seg-ping_idle { fill: var(--idle); }"
	" .seg-transaction { fill: var(--tx); } .seg-reset { fill: var(--reset); }"
	" .seg-prepare { fill: var(--prepare); } .seg-other { fill: var(--other); }\n"
	"table { border-collapse: collapse; margin: 1rem 0; font-size: 13px; }\n"
	"th, td { padding: .3rem .55rem; border-bottom: 1px solid var(--grid); text-align: right;"
	" vertical-align: top; }\n"
	"th { font-weight: 600; } td { white-space: nowrap; } td.t, th.t { text-align: left; }\n"
	".wide { overflow-x: auto; }\n"
	"p.note { color: var(--muted); max-width: 60rem; }\n";

static void head(FILE *out, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
	      out);
	esc_html(out, title);
	fprintf(out, "</title>\n<style>\n%s</style></head><body>\n<h1>", style);
	esc_html(out, title);
	fputs("</h1>\n", out);
}

static void num(FILE *out, int dec, double v)
{
	if (isnan(v))
		fputs("-", out);
	else
		fprintf(out, "%.*f", dec, v);
}

static void td_text(FILE *out, const char *s)
{
	fputs("<td class=\"t\">", out);
	esc_html(out, s);
	fputs("</td>", out);
}

static void td_num(FILE *out, int dec, double v)
{
	fputs("<td>", out);
	num(out, dec, v);
	fputs("</td>", out);
}

/* A run's bar: round trips per query by class, labelled with its name and
 * pattern; no bar for a run without queries, and why. */
static void run_bar(struct svg_bar *b, const struct run_figures *f)
{
	memset(b, 0, sizeof(*b));
	stored_run_name(b->label, sizeof b->label, f->run, f->app, f->labels);
	run_pattern(f, b->sublabel, sizeof b->sublabel);
	if (!f->measured)
		b->missing = "not measured (see its warnings)";
	else if (f->rt == 0)
		b->missing = f->warnings[0] ? "no round trips measured (see its warnings)"
					   : "no round trips measured";
	else if (f->cls[RT_QUERY] == 0)
		b->missing = "no queries: round trips per query not defined";
	else
		run_segments(f, (double)f->cls[RT_QUERY], b->seg);
}

static double bar_sum(const struct svg_bar *b)
{
	double t = 0;
	for (int k = 0; k < SEG_N && !b->missing; k++)
		t += b->seg[k];
	return t;
}

static void runs_chart(FILE *out, const struct run_figures *const *runs, int n)
{
	if (n <= 0)
		return;
	struct svg_bar *bars = calloc((size_t)n, sizeof(*bars));
	if (!bars)
		return;
	double max = 0;
	for (int i = 0; i < n; i++) {
		run_bar(&bars[i], runs[i]);
		max = bar_sum(&bars[i]) > max ? bar_sum(&bars[i]) : max;
	}
	svg_bar_chart(out, "Round trips per query, by class",
		      "round trips per query (the run's round trips / its queries)", bars, n, max, 0);
	free(bars);
}

static void runs_table(FILE *out, const struct run_figures *const *runs, int n)
{
	fputs("<div class=\"wide\"><table>\n<tr><th>run</th><th class=\"t\">app</th><th class=\"t\">labels</th>"
	      "<th>round trips</th><th>RFQ</th>",
	      out);
	fputs("<th>queries</th><th>pings<br>acquire/release/idle</th><th>transaction<br>control</th>"
	      "<th>resets</th><th>prepares</th><th>other</th><th>pings /<br>100 queries</th>"
	      "<th>round trips<br>/ query</th><th>p50 ms</th><th>p99 ms</th><th>connections</th>"
	      "<th>startups /<br>1,000 round trips</th><th class=\"t\">pattern</th>"
	      "<th class=\"t\">warnings</th></tr>\n",
	      out);
	for (int i = 0; i < n; i++) {
		const struct run_figures *f = runs[i];
		struct run_rates rr;
		run_rates(f, &rr);
		double s[SEG_N];
		run_segments(f, 1, s);
		char pat[200];
		fprintf(out, "<tr><td>%" PRId64 "</td>", f->run);
		td_text(out, f->app);
		td_text(out, f->labels);
		if (!f->measured) { /* nothing measured: no count is 0 (the warnings say why) */
			fputs("<td>not measured</td>", out);
			for (int k = 0; k < 14; k++)
				fputs("<td>-</td>", out);
			td_text(out, f->warnings);
			fputs("</tr>\n", out);
			continue;
		}
		fprintf(out, "<td>%" PRId64 "%s</td><td>%" PRId64 "</td>", f->rt,
			f->lower_bound ? " (at least)" : "", f->rfq);
		fprintf(out, "<td>%.0f</td><td>%.0f/%.0f/%.0f</td><td>%.0f</td><td>%.0f</td><td>%.0f</td>"
			     "<td>%.0f</td>",
			s[SEG_QUERY], s[SEG_ACQUIRE], s[SEG_RELEASE], s[SEG_IDLE], s[SEG_TX], s[SEG_RESET],
			s[SEG_PREPARE], s[SEG_OTHER]);
		td_num(out, 1, rr.pings_per_100q);
		fputs("<td><b>", out);
		num(out, 2, rr.per_query);
		fputs("</b></td>", out);
		td_num(out, 3, f->p50);
		td_num(out, 3, f->p99);
		fprintf(out, "<td>%" PRId64 "</td>", f->connections);
		td_num(out, 1, rr.startups_per_1k);
		td_text(out, run_pattern(f, pat, sizeof pat));
		td_text(out, f->warnings);
		fputs("</tr>\n", out);
	}
	fputs("</table></div>\n", out);
}

static void route_bar(struct svg_bar *b, const struct route_figures *r, const char *missing)
{
	memset(b, 0, sizeof(*b));
	stored_run_name(b->label, sizeof b->label, r->run, r->app, r->labels);
	if (strstr(r->attribution, "estimated"))
		snprintf(b->sublabel, sizeof b->sublabel, "estimated, 95%% %.2f-%.2f", r->rt_lo, r->rt_hi);
	else if (strcmp(r->attribution, "exact") != 0)
		snprintf(b->sublabel, sizeof b->sublabel, "%s", r->attribution);
	b->missing = missing;
	route_segments(r, b->seg);
}

static void route_chart(FILE *out, const char *route, const struct svg_bar *bars, int n, double max,
			int label_w)
{
	char title[ROUTE_MAX + 64];
	snprintf(title, sizeof title, "%s: round trips per page, by class", route);
	svg_bar_chart(out, title, "round trips per page (PostgreSQL)", bars, n, max, label_w);
}

static void routes_table(FILE *out, const struct stored_report *r)
{
	bool col[PAGE_FIGS_MAX] = {false}; /* the page figures shown */
	const struct page_figure *f;
	for (int k = 0; (f = analysis_page_figure(k, NULL)); k++)
		col[k] = stored_page_column(r, k);
	fputs("<div class=\"wide\"><table>\n<tr><th class=\"t\">route</th><th class=\"t\">run</th><th>pages</th>"
	      "<th>round trips / page</th><th>RFQ / page</th>",
	      out);
	for (int k = 0; k < SEG_N; k++)
		fprintf(out, "<th>%s</th>", seg_name[k]);
	fputs("<th>p50 ms</th><th>p99 ms</th><th class=\"t\">attribution</th><th class=\"t\">warnings</th>",
	      out);
	for (int k = 0; (f = analysis_page_figure(k, NULL)); k++)
		if (col[k])
			fprintf(out, "<th>%s</th>", f->title);
	fputs("</tr>\n", out);
	for (int i = 0; i < r->nrows; i++) {
		const struct route_figures *x = &r->rows[i];
		char name[300], hw[96];
		double s[SEG_N];
		route_segments(x, s);
		stored_run_name(name, sizeof name, x->run, x->app, x->labels);
		fputs("<tr>", out);
		td_text(out, x->route);
		td_text(out, name);
		fprintf(out, "<td>%" PRId64 "</td><td><b>%.2f</b>%s</td><td>%.2f</td>", x->pages, x->rt,
			x->lower_bound ? " (at least)" : "", x->rfq);
		for (int k = 0; k < SEG_N; k++)
			fprintf(out, "<td>%.2f</td>", s[k]);
		fprintf(out, "<td>%.2f</td><td>%.2f</td>", x->p50, x->p99);
		td_text(out, route_how(x, hw, sizeof hw));
		td_text(out, x->warnings);
		for (int k = 0; k < PAGE_FIGS_MAX; k++)
			if (col[k])
				td_num(out, 2, x->page[k]);
		fputs("</tr>\n", out);
	}
	fputs("</table></div>\n", out);
}

static void left_out(FILE *out, const struct stored_report *r)
{
	if (!r->nleft)
		return;
	fputs("<p class=\"note\">Not among the routes: ", out);
	stored_left_out(out, r->left, r->nleft, esc_html);
	fputs(".</p>\n", out);
}

static void routes(FILE *out, const struct stored_report *r)
{
	fputs("<h2>Round trips per page, by route</h2>\n"
	      "<p class=\"note\">A bar per stored run: the round trips its pages of the route made, per"
	      " page, by class. All route charts share one scale.</p>\n",
	      out);
	double max = 0;
	for (int i = 0; i < r->nrows; i++)
		max = r->rows[i].rt > max ? r->rows[i].rt : max;
	struct svg_bar *bars = calloc((size_t)(r->nrows > 0 ? r->nrows : 1), sizeof(*bars));
	if (!bars)
		return;
	for (int i = 0; i < r->nrows; i++) /* first for the widest label: the charts line up */
		route_bar(&bars[i], &r->rows[i], NULL);
	int label_w = svg_label_width(bars, r->nrows);
	for (int i = 0; i < r->nrows;) {
		int j = i;
		while (j < r->nrows && strcmp(r->rows[j].route, r->rows[i].route) == 0)
			j++;
		route_chart(out, r->rows[i].route, bars + i, j - i, max, label_w);
		i = j;
	}
	free(bars);
	if (r->nrows)
		routes_table(out, r);
	else
		fputs("<p>No pages.</p>\n", out);
	left_out(out, r);
}

/* ---- --compare A B ---- */

static void compare_row(FILE *out, const char *what, double a, double b, int dec)
{
	fprintf(out, "<tr><td class=\"t\">%s</td>", what);
	td_num(out, dec, a);
	td_num(out, dec, b);
	if (isnan(a) || isnan(b))
		fputs("<td>-</td></tr>\n", out);
	else
		fprintf(out, "<td>%+.*f</td></tr>\n", dec, b - a);
}

static void compare(FILE *out, const struct stored_report *r)
{
	const struct run_figures *a = r->ra, *b = r->rb;
	char title[96];
	snprintf(title, sizeof title, "PostgreSQL round trips: run %" PRId64 " against run %" PRId64,
		 b->run, a->run);
	head(out, title);
	const struct run_figures *two[2] = {a, b};
	runs_chart(out, two, 2);
	struct run_rates x, y;
	run_rates(a, &x);
	run_rates(b, &y);
	double sa[SEG_N], sb[SEG_N];
	run_segments(a, (double)a->cls[RT_QUERY], sa);
	run_segments(b, (double)b->cls[RT_QUERY], sb);
	char na[300], nb[300];
	stored_run_name(na, sizeof na, a->run, a->app, a->labels);
	stored_run_name(nb, sizeof nb, b->run, b->app, b->labels);
	fputs("<div class=\"wide\"><table>\n<tr><th></th><th>", out);
	esc_html(out, na);
	fputs("</th><th>", out);
	esc_html(out, nb);
	fputs("</th><th>change</th></tr>\n", out);
	compare_row(out, "round trips / query", x.per_query, y.per_query, 2);
	for (int k = 0; k < SEG_N; k++) {
		char what[64];
		snprintf(what, sizeof what, "%s / query", seg_name[k]);
		compare_row(out, what, a->cls[RT_QUERY] > 0 ? sa[k] : NAN,
			    b->cls[RT_QUERY] > 0 ? sb[k] : NAN, 2);
	}
	compare_row(out, "pings / 100 queries", x.pings_per_100q, y.pings_per_100q, 1);
	compare_row(out, "round trips", run_round_trips(a), run_round_trips(b), 0);
	compare_row(out, "p50 ms", a->p50, b->p50, 3);
	compare_row(out, "p99 ms", a->p99, b->p99, 3);
	compare_row(out, "startups / 1,000 round trips", x.startups_per_1k, y.startups_per_1k, 1);
	fputs("</table></div>\n", out);
	if (r->ncmp == 0) {
		if (r->any_http)
			fputs("<p>Neither run has pages.</p>\n", out);
		return;
	}
	fputs("<h2>Round trips per page, by route</h2>\n", out);
	double max = 0;
	for (int i = 0; i < r->ncmp; i++) {
		max = r->cmp[i].a && r->cmp[i].a->rt > max ? r->cmp[i].a->rt : max;
		max = r->cmp[i].b && r->cmp[i].b->rt > max ? r->cmp[i].b->rt : max;
	}
	for (int i = 0; i < r->ncmp; i++) {
		const struct cmp_route *c = &r->cmp[i];
		struct svg_bar bars[2];
		const struct route_figures *sides[2] = {c->a, c->b};
		const struct run_figures *runs[2] = {a, b};
		for (int s = 0; s < 2; s++) {
			if (sides[s]) {
				route_bar(&bars[s], sides[s], NULL);
			} else {
				memset(&bars[s], 0, sizeof bars[s]);
				stored_run_name(bars[s].label, sizeof bars[s].label, runs[s]->run,
						runs[s]->app, runs[s]->labels);
				bars[s].missing = !runs[s]->http ? "no pages: stored without --http-port"
						  : runs[s]->routes_unmeasured
						  ? "round trips not measured (see its warnings)"
						  : s ? "not in this run (removed)"
						      : "not in this run (added)";
			}
		}
		route_chart(out, c->route, bars, 2, max, 0);
	}
	fprintf(out, "<div class=\"wide\"><table>\n<tr><th class=\"t\">route</th><th>run %" PRId64 "</th><th>run %" PRId64
		     "</th><th>change</th><th>queries</th><th>pings</th><th>other</th>"
		     "<th class=\"t\">status</th></tr>\n",
		a->run, b->run);
	for (int i = 0; i < r->ncmp; i++) {
		const struct cmp_route *c = &r->cmp[i];
		fputs("<tr>", out);
		td_text(out, c->route);
		if (c->a && c->b)
			fprintf(out, "<td>%.2f</td><td>%.2f</td><td><b>%+.2f</b></td><td>%+.2f</td>"
				     "<td>%+.2f</td><td>%+.2f</td><td class=\"t\"></td>",
				c->a->rt, c->b->rt, c->b->rt - c->a->rt, c->b->query - c->a->query,
				c->b->ping - c->a->ping,
				(c->b->rt - c->b->query - c->b->ping) - (c->a->rt - c->a->query - c->a->ping));
		else if (c->b)
			fprintf(out, "<td>-</td><td>%.2f</td><td>-</td><td>-</td><td>-</td><td>-</td>"
				     "<td class=\"t\">%s</td>",
				c->b->rt, cmp_status(c, a, b));
		else
			fprintf(out, "<td>%.2f</td><td>-</td><td>-</td><td>-</td><td>-</td><td>-</td>"
				     "<td class=\"t\">%s</td>",
				c->a->rt, cmp_status(c, a, b));
		fputs("</tr>\n", out);
	}
	fputs("</table></div>\n", out);
}

void stored_html(FILE *out, const struct stored_report *r)
{
	if (r->ra) {
		compare(out, r);
	} else {
		head(out, "PostgreSQL round trips");
		fputs("<h2>Runs</h2>\n<p class=\"note\">A bar per stored run: all its round trips divided by"
		      " its queries, by class. A pool that pings on checkout and return makes 3 round trips"
		      " of 1 query; under the bar, the pattern recognised (docs/pools.md).</p>\n",
		      out);
		const struct run_figures **runs = calloc((size_t)(r->nruns > 0 ? r->nruns : 1), sizeof(*runs));
		if (runs) {
			for (int i = 0; i < r->nruns; i++)
				runs[i] = &r->runs[i];
			if (r->nruns)
				runs_chart(out, runs, r->nruns);
			runs_table(out, runs, r->nruns);
			free(runs);
		}
		if (r->any_http)
			routes(out, r);
		else if (r->nruns)
			fputs("<p class=\"note\">No pages: these runs were stored without --http-port.</p>\n", out);
	}
	fprintf(out, "<p class=\"note\">%s</p>\n</body></html>\n", pgrtt_version_string());
}
