/* stored_md.c - pgrtt report -F md: the runs, their routes, or two runs
 * compared, as GitHub-flavoured Markdown tables that fit a pull-request
 * comment (stored_report.h).  Every text from the store is esc_md'ed. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "base/escape.h"
#include "pattern.h"
#include "stored_report.h"

/* A number, or "-" when it was not measured. */
static void num(FILE *out, int dec, double v)
{
	if (isnan(v))
		fputs("-", out);
	else
		fprintf(out, "%.*f", dec, v);
}

/* col: the other protocols' kept totals shown (stored_run_column) */
static void run_row(FILE *out, const struct run_figures *f, const bool *col)
{
	struct run_rates rr;
	run_rates(f, &rr);
	double s[SEG_N];
	run_segments(f, 1, s);
	char pat[200];
	fprintf(out, "| %" PRId64 " | ", f->run);
	esc_md(out, f->app[0] ? f->app : "-");
	fputs(" | ", out);
	esc_md(out, f->labels[0] ? f->labels : "-");
	if (!f->measured) { /* nothing measured: no count is 0 (the warnings say why) */
		fputs(" | not measured | - | - | - | - | - | - | - | - | - | - | - | - | - | ", out);
		esc_md(out, f->warnings);
		fputs(" |", out);
		for (int k = 0; k < RUN_FIGS_MAX; k++)
			if (col[k])
				fputs(" - |", out);
		fputc('\n', out);
		return;
	}
	fprintf(out, " | %" PRId64 "%s | %" PRId64 " | %" PRId64 " | %.0f (%.0f/%.0f/%.0f) | %.0f | %.0f | %.0f | ",
		f->rt, f->lower_bound ? " (at least)" : "", f->rfq, f->cls[RT_QUERY],
		s[SEG_ACQUIRE] + s[SEG_RELEASE] + s[SEG_IDLE], s[SEG_ACQUIRE], s[SEG_RELEASE],
		s[SEG_IDLE], s[SEG_TX], s[SEG_RESET], s[SEG_PREPARE] + s[SEG_OTHER]);
	num(out, 1, rr.pings_per_100q);
	fputs(" | ", out);
	if (!isnan(rr.per_query))
		fputs("**", out);
	num(out, 2, rr.per_query);
	if (!isnan(rr.per_query))
		fputs("**", out);
	fputs(" | ", out);
	num(out, 3, f->p50);
	fputs(" | ", out);
	num(out, 3, f->p99);
	fprintf(out, " | %" PRId64 " | ", f->connections);
	num(out, 1, rr.startups_per_1k);
	fputs(" | ", out);
	esc_md(out, run_pattern(f, pat, sizeof pat));
	fputs(" | ", out);
	esc_md(out, f->warnings);
	fputs(" |", out);
	for (int k = 0; k < RUN_FIGS_MAX; k++) {
		if (!col[k])
			continue;
		fputc(' ', out);
		num(out, 0, f->proto_fig[k]);
		fputs(" |", out);
	}
	fputc('\n', out);
}

static void runs_table(FILE *out, const struct stored_report *r)
{
	bool col[RUN_FIGS_MAX] = {false};
	const struct conn_figure *f;
	for (int k = 0; (f = analysis_run_figure(k, NULL)); k++)
		col[k] = stored_run_column(r, k);
	fputs("## Runs\n\n"
	      "| run | app | labels | round trips | RFQ | queries | pings (acquire/release/idle) |"
	      " transactions | resets | other | pings / 100 queries | round trips / query |"
	      " p50 ms | p99 ms | connections | startups / 1,000 round trips | pattern | warnings |",
	      out);
	for (int k = 0; (f = analysis_run_figure(k, NULL)); k++)
		if (col[k])
			fprintf(out, " %s |", f->title);
	fputs("\n|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|", out);
	for (int k = 0; k < RUN_FIGS_MAX; k++)
		if (col[k])
			fputs("---:|", out);
	fputc('\n', out);
	for (int i = 0; i < r->nruns; i++)
		run_row(out, &r->runs[i], col);
}

static void left_out(FILE *out, const struct stored_report *r)
{
	if (!r->nleft)
		return;
	fputs("\nNot in this table: ", out);
	stored_left_out(out, r->left, r->nleft, esc_md);
	fputs(".\n", out);
}

static void routes_table(FILE *out, const struct stored_report *r)
{
	bool col[PAGE_FIGS_MAX] = {false}; /* the page figures shown */
	const struct page_figure *f;
	for (int k = 0; (f = analysis_page_figure(k, NULL)); k++)
		col[k] = stored_page_column(r, k);
	fputs("\n## Round trips per page, by route\n\n", out);
	if (r->nrows == 0) {
		fputs("No pages.\n", out);
		left_out(out, r);
		return;
	}
	fputs("| route | run | pages | round trips / page | RFQ / page | queries |"
	      " pings (acquire/release/idle) | transactions | resets | other | p50 ms | p99 ms |"
	      " attribution | warnings |",
	      out);
	for (int k = 0; (f = analysis_page_figure(k, NULL)); k++)
		if (col[k])
			fprintf(out, " %s |", f->title);
	fputs("\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|", out);
	for (int k = 0; (f = analysis_page_figure(k, NULL)); k++)
		if (col[k])
			fputs("---:|", out);
	fputc('\n', out);
	for (int i = 0; i < r->nrows; i++) {
		const struct route_figures *x = &r->rows[i];
		char name[300], hw[96];
		double s[SEG_N];
		route_segments(x, s);
		stored_run_name(name, sizeof name, x->run, x->app, x->labels);
		fputs("| ", out);
		esc_md(out, x->route);
		fputs(" | ", out);
		esc_md(out, name);
		fprintf(out, " | %" PRId64 " | **%.2f**%s | %.2f | %.2f | %.2f (%.2f/%.2f/%.2f) | %.2f | %.2f | %.2f | %.2f | %.2f | %s | ",
			x->pages, x->rt, x->lower_bound ? " (at least)" : "", x->rfq, x->query,
			x->ping, x->acq, x->rel, s[SEG_IDLE], x->tx, x->reset, s[SEG_PREPARE] + s[SEG_OTHER],
			x->p50, x->p99, route_how(x, hw, sizeof hw));
		esc_md(out, x->warnings);
		fputs(" |", out);
		for (int k = 0; k < PAGE_FIGS_MAX; k++) {
			if (!col[k])
				continue;
			fputc(' ', out);
			num(out, 2, x->page[k]);
			fputs(" |", out);
		}
		fputc('\n', out);
	}
	left_out(out, r);
}

/* ---- --compare A B ---- */

static void change(FILE *out, double a, double b, int dec, bool bold)
{
	num(out, dec, a);
	fputs(" | ", out);
	num(out, dec, b);
	fputs(" | ", out);
	if (isnan(a) || isnan(b))
		fputs("-", out);
	else
		fprintf(out, "%s%+.*f%s", bold ? "**" : "", dec, b - a, bold ? "**" : "");
}

static void compare_runs(FILE *out, const struct stored_report *r)
{
	const struct run_figures *a = r->ra, *b = r->rb;
	struct run_rates x, y;
	run_rates(a, &x);
	run_rates(b, &y);
	double sa[SEG_N], sb[SEG_N];
	double qa = (double)a->cls[RT_QUERY], qb = (double)b->cls[RT_QUERY];
	run_segments(a, qa, sa);
	run_segments(b, qb, sb);
	char na[300], nb[300];
	stored_run_name(na, sizeof na, a->run, a->app, a->labels);
	stored_run_name(nb, sizeof nb, b->run, b->app, b->labels);
	fprintf(out, "## Run %" PRId64 " against run %" PRId64 "\n\n| | ", b->run, a->run);
	esc_md(out, na);
	fputs(" | ", out);
	esc_md(out, nb);
	fputs(" | change |\n|---|---:|---:|---:|\n| round trips / query | ", out);
	change(out, x.per_query, y.per_query, 2, true);
	for (int k = 0; k < SEG_N; k++) {
		fprintf(out, " |\n| %s / query | ", seg_name[k]);
		change(out, qa > 0 ? sa[k] : NAN, qb > 0 ? sb[k] : NAN, 2, false);
	}
	fputs(" |\n| pings / 100 queries | ", out);
	change(out, x.pings_per_100q, y.pings_per_100q, 1, false);
	fputs(" |\n| round trips | ", out);
	change(out, run_round_trips(a), run_round_trips(b), 0, false);
	fputs(" |\n| p50 ms | ", out);
	change(out, a->p50, b->p50, 3, false);
	fputs(" |\n| p99 ms | ", out);
	change(out, a->p99, b->p99, 3, false);
	fputs(" |\n| startups / 1,000 round trips | ", out);
	change(out, x.startups_per_1k, y.startups_per_1k, 1, false);
	char pa[200], pb[200];
	fputs(" |\n| pattern | ", out);
	esc_md(out, run_pattern(a, pa, sizeof pa));
	fputs(" | ", out);
	esc_md(out, run_pattern(b, pb, sizeof pb));
	fputs(" | |\n", out);
}

static void compare_routes(FILE *out, const struct stored_report *r)
{
	if (r->ncmp == 0) {
		if (r->any_http)
			fputs("\nNeither run has pages.\n", out);
		return;
	}
	fprintf(out, "\n## Round trips per page, by route: run %" PRId64 " against run %" PRId64 "\n\n"
		     "| route | run %" PRId64 " | run %" PRId64 " | change | queries | pings | other | status |\n"
		     "|---|---:|---:|---:|---:|---:|---:|---|\n",
		r->rb->run, r->ra->run, r->ra->run, r->rb->run);
	for (int i = 0; i < r->ncmp; i++) {
		const struct cmp_route *c = &r->cmp[i];
		fputs("| ", out);
		esc_md(out, c->route);
		if (c->a && c->b)
			fprintf(out, " | %.2f | %.2f | **%+.2f** | %+.2f | %+.2f | %+.2f | |\n", c->a->rt,
				c->b->rt, c->b->rt - c->a->rt, c->b->query - c->a->query,
				c->b->ping - c->a->ping,
				(c->b->rt - c->b->query - c->b->ping) - (c->a->rt - c->a->query - c->a->ping));
		else if (c->b)
			fprintf(out, " | - | %.2f | - | - | - | - | %s |\n", c->b->rt,
				cmp_status(c, r->ra, r->rb));
		else
			fprintf(out, " | %.2f | - | - | - | - | - | %s |\n", c->a->rt,
				cmp_status(c, r->ra, r->rb));
	}
}

void stored_md(FILE *out, const struct stored_report *r)
{
	if (r->ra) {
		compare_runs(out, r);
		compare_routes(out, r);
		return;
	}
	runs_table(out, r);
	if (r->any_http)
		routes_table(out, r);
	else if (r->nruns)
		fputs("\nNo pages: these runs were stored without --http-port.\n", out);
}
