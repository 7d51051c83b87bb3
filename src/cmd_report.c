#define _DEFAULT_SOURCE
/* cmd_report.c - pgrtt report: stored runs as Markdown, HTML (inline SVG
 * charts), JSON or CSV; --compare shows the change between two runs. */
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "escape.h"
#include "evidence.h"
#include "opts.h"
#include "results.h"
#include "store.h"

#define MAX_FILTERS 32

/* Rows of the report: one route of one run (store.h). */
struct rows {
	struct route_figures *r;
	int n;
};

static void help(FILE *out)
{
	fputs("Usage: pgrtt report --db FILE [OPTIONS]\n"
	      "\n"
	      "Round trips per page, app by route, from runs stored with 'pgrtt analyze --db'.\n"
	      "\n"
	      "Options:\n"
	      "  -F, --format FMT       md (default), html, json or csv\n"
	      "  -o, --output FILE      write to FILE instead of standard output\n"
	      "      --app NAME         only runs of this app (repeatable)\n"
	      "      --label KEY=VALUE  only runs with this label (repeatable: all must match)\n"
	      "      --run N            only this run (repeatable)\n"
	      "      --compare A B      route by route, run B against run A\n"
	      "  -h, --help             show this help\n"
	      "\n"
	      "The HTML report is one self-contained file: a bar chart of round trips per page\n"
	      "per run for each route, split into queries, pings and the rest, then the table.\n"
	      "\n"
	      "Exit status: 0 ok, 2 no such database or run, 64 usage error.\n",
	      out);
}

static void run_name(const struct route_figures *r, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s%s%s%s#%" PRId64, r->app[0] ? r->app : "(no app)", r->labels[0] ? " (" : "",
		 r->labels, r->labels[0] ? ") " : " ", r->run);
}

/* How a figure was obtained, with the interval of an estimated one. */
static const char *how(const struct route_figures *r, char *buf, size_t cap)
{
	if (strstr(r->attribution, "estimated"))
		snprintf(buf, cap, "%s (%.0f%% inferred; 95%% %.2f-%.2f)", r->attribution,
			 100 * r->inferred, r->rt_lo, r->rt_hi);
	else
		snprintf(buf, cap, "%s", r->attribution);
	return buf;
}

/* Were any of the runs measured with --redis-port?  Then the tables get
 * Redis columns; a run without is "-" there, not 0. */
static bool any_redis(const struct rows *rs)
{
	for (int i = 0; i < rs->n; i++)
		if (!isnan(rs->r[i].redis_rt))
			return true;
	return false;
}

static void redis_cell(FILE *out, double v)
{
	if (isnan(v))
		fputs("-", out);
	else
		fprintf(out, "%.2f", v);
}

/* ---------------------------------------------------------------------- */

static void md(FILE *out, const struct rows *rs)
{
	bool redis = any_redis(rs);
	fprintf(out, "| route | run | pages | round trips / page | RFQ / page | queries | pings (acquire/release) | other | p50 ms | p99 ms | attribution | warnings |%s\n",
		redis ? " Redis round trips / page | Redis commands / page |" : "");
	fprintf(out, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|%s\n",
		redis ? "---:|---:|" : "");
	for (int i = 0; i < rs->n; i++) {
		const struct route_figures *r = &rs->r[i];
		char name[300], hw[96];
		run_name(r, name, sizeof name);
		fputs("| ", out);
		esc_md(out, r->route);
		fputs(" | ", out);
		esc_md(out, name);
		fprintf(out, " | %" PRId64 " | **%.2f**%s | %.2f | %.2f | %.2f (%.2f/%.2f) | %.2f | %.2f | %.2f | %s | ",
			r->pages, r->rt, r->lower_bound ? " (at least)" : "", r->rfq, r->query, r->ping,
			r->acq, r->rel, r->other, r->p50, r->p99, how(r, hw, sizeof hw));
		esc_md(out, r->warnings);
		fputs(" |", out);
		if (redis) {
			fputc(' ', out);
			redis_cell(out, r->redis_rt);
			fputs(" | ", out);
			redis_cell(out, r->redis_cmds);
			fputs(" |", out);
		}
		fputc('\n', out);
	}
}

static void csv(FILE *out, const struct rows *rs)
{
	fprintf(out, "run,app,labels,route,pages,round_trips_per_page,ready_for_query_per_page,"
		     "query_per_page,ping_per_page,ping_acquire_per_page,ping_release_per_page,"
		     "other_per_page,http_p50_ms,http_p99_ms,attribution,lower_bound,warnings,"
		     "inferred_share,round_trips_low,round_trips_high,redis_round_trips_per_page,"
		     "redis_commands_per_page\n");
	for (int i = 0; i < rs->n; i++) {
		const struct route_figures *r = &rs->r[i];
		fprintf(out, "%" PRId64 ",", r->run);
		esc_csv(out, r->app);
		fputc(',', out);
		esc_csv(out, r->labels);
		fputc(',', out);
		esc_csv(out, r->route);
		fprintf(out, ",%" PRId64 ",%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%s,%d,", r->pages, r->rt,
			r->rfq, r->query, r->ping, r->acq, r->rel, r->other, r->p50, r->p99,
			r->attribution, r->lower_bound);
		esc_csv(out, r->warnings);
		fprintf(out, ",%.6g,%.6g,%.6g,", r->inferred, r->rt_lo, r->rt_hi);
		if (!isnan(r->redis_rt)) /* empty: not measured */
			fprintf(out, "%.6g", r->redis_rt);
		fputc(',', out);
		if (!isnan(r->redis_cmds))
			fprintf(out, "%.6g", r->redis_cmds);
		fputc('\n', out);
	}
}

static int json(FILE *out, const struct rows *rs)
{
	cJSON *root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "pgrtt", pgrtt_version_string());
	cJSON *arr = cJSON_AddArrayToObject(root, "rows");
	for (int i = 0; i < rs->n; i++) {
		const struct route_figures *r = &rs->r[i];
		cJSON *o = cJSON_CreateObject();
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
		if (isnan(r->redis_rt)) { /* not measured with --redis-port */
			cJSON_AddNullToObject(o, "redis_round_trips_per_page");
			cJSON_AddNullToObject(o, "redis_commands_per_page");
		} else {
			cJSON_AddNumberToObject(o, "redis_round_trips_per_page", r->redis_rt);
			cJSON_AddNumberToObject(o, "redis_commands_per_page", r->redis_cmds);
		}
		cJSON_AddItemToArray(arr, o);
	}
	char *t = cJSON_Print(root);
	cJSON_Delete(root);
	if (!t)
		return -1;
	fprintf(out, "%s\n", t);
	free(t);
	return 0;
}

/* One horizontal bar chart per route: a bar per run, split by class.  All
 * charts share one scale (max) and one label width, so they compare. */
static void svg_chart(FILE *out, const struct rows *rs, int from, int to, double max, int label_w)
{
	const int bar_w = 420, row_h = 28, top = 8;
	int h = top + (to - from) * row_h + 26;
	fprintf(out, "<svg class=\"chart\" role=\"img\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n",
		label_w + bar_w + 70, h, label_w + bar_w + 70, h);
	for (int i = from; i < to; i++) {
		const struct route_figures *r = &rs->r[i];
		int y = top + (i - from) * row_h;
		char name[300];
		run_name(r, name, sizeof name);
		fprintf(out, "<text class=\"label\" x=\"%d\" y=\"%d\" text-anchor=\"end\">", label_w - 8, y + 17);
		esc_html(out, name);
		fputs("</text>\n", out);
		double rest = r->rt - r->query - r->ping; /* resets, transactions, prepares, other */
		double segs[3] = {r->query, r->ping, rest < 0 ? 0 : rest};
		static const char *cls[3] = {"query", "ping", "rest"};
		double x = label_w;
		for (int k = 0; k < 3; k++) {
			double w = segs[k] / max * bar_w;
			if (w <= 0)
				continue;
			fprintf(out, "<rect class=\"bar %s\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"20\">"
				     "<title>%s: %.2f per page</title></rect>\n",
				cls[k], x, y + 3, w, cls[k], segs[k]);
			x += w;
		}
		fprintf(out, "<text class=\"value\" x=\"%.1f\" y=\"%d\">%.2f</text>\n", x + 6, y + 17, r->rt);
	}
	int ly = top + (to - from) * row_h + 14;
	fprintf(out, "<rect class=\"bar query\" x=\"%d\" y=\"%d\" width=\"12\" height=\"12\"/>"
		     "<text class=\"legend\" x=\"%d\" y=\"%d\">queries</text>\n",
		label_w, ly - 10, label_w + 16, ly);
	fprintf(out, "<rect class=\"bar ping\" x=\"%d\" y=\"%d\" width=\"12\" height=\"12\"/>"
		     "<text class=\"legend\" x=\"%d\" y=\"%d\">pings</text>\n",
		label_w + 90, ly - 10, label_w + 106, ly);
	fprintf(out, "<rect class=\"bar rest\" x=\"%d\" y=\"%d\" width=\"12\" height=\"12\"/>"
		     "<text class=\"legend\" x=\"%d\" y=\"%d\">the rest</text>\n",
		label_w + 170, ly - 10, label_w + 186, ly);
	fputs("</svg>\n", out);
}

static void html(FILE *out, const struct rows *rs)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<title>pgrtt: PostgreSQL round trips per page</title>\n<style>\n"
	      ":root { color-scheme: light dark; --fg: #1d2329; --bg: #ffffff; --muted: #5b6670;"
	      " --query: #2f6fb3; --ping: #d9822b; --rest: #8a949e; --grid: #d8dde2; }\n"
	      "@media (prefers-color-scheme: dark) { :root { --fg: #e6e9ec; --bg: #14181c;"
	      " --muted: #9aa5ae; --query: #6ea8e8; --ping: #f0a45c; --rest: #9aa5ae; --grid: #2c343b; } }\n"
	      "body { font: 15px/1.45 system-ui, sans-serif; color: var(--fg); background: var(--bg);"
	      " margin: 2rem auto; max-width: 72rem; padding: 0 1rem; }\n"
	      "h2 { font-size: 1.05rem; margin: 2rem 0 .5rem; font-family: ui-monospace, monospace; }\n"
	      ".chart text { fill: var(--fg); font-size: 13px; } .chart .value { font-weight: 600; }\n"
	      ".bar.query { fill: var(--query); } .bar.ping { fill: var(--ping); } .bar.rest { fill: var(--rest); }\n"
	      "table { border-collapse: collapse; margin: 1rem 0; font-size: 13px; }\n"
	      "th, td { padding: .3rem .6rem; border-bottom: 1px solid var(--grid); text-align: right; }\n"
	      "th:first-child, td:first-child, th:nth-child(2), td:nth-child(2) { text-align: left; }\n"
	      "p.note { color: var(--muted); }\n"
	      "</style></head><body>\n<h1>PostgreSQL round trips per page</h1>\n"
	      "<p class=\"note\">Each bar is one stored run: round trips per page of the route, split into"
	      " queries, pool pings and the rest (resets, transactions, prepares, ...).</p>\n",
	      out);
	double max = 1;
	size_t longest = 0;
	for (int i = 0; i < rs->n; i++) {
		char name[300];
		run_name(&rs->r[i], name, sizeof name);
		if (strlen(name) > longest)
			longest = strlen(name);
		if (rs->r[i].rt > max)
			max = rs->r[i].rt;
	}
	int label_w = 24 + (int)(longest * 15 / 2); /* about 7.5 px per character at 13 px */
	for (int i = 0; i < rs->n;) {
		int j = i;
		while (j < rs->n && strcmp(rs->r[j].route, rs->r[i].route) == 0)
			j++;
		fputs("<h2>", out);
		esc_html(out, rs->r[i].route);
		fputs("</h2>\n", out);
		svg_chart(out, rs, i, j, max, label_w);
		i = j;
	}
	fputs("<table>\n<tr><th>route</th><th>run</th><th>pages</th><th>round trips / page</th>"
	      "<th>RFQ / page</th><th>queries</th><th>pings</th><th>acquire</th><th>release</th>"
	      "<th>other</th><th>p50 ms</th><th>p99 ms</th><th>attribution</th><th>warnings</th>",
	      out);
	bool redis = any_redis(rs);
	fputs(redis ? "<th>Redis round trips / page</th><th>Redis commands / page</th></tr>\n"
		    : "</tr>\n",
	      out);
	for (int i = 0; i < rs->n; i++) {
		const struct route_figures *r = &rs->r[i];
		char name[300], hw[96];
		run_name(r, name, sizeof name);
		fputs("<tr><td>", out);
		esc_html(out, r->route);
		fputs("</td><td>", out);
		esc_html(out, name);
		fprintf(out, "</td><td>%" PRId64 "</td><td class=\"rt\">%.2f</td><td>%.2f</td><td>%.2f</td>"
			     "<td>%.2f</td><td>%.2f</td><td>%.2f</td><td>%.2f</td><td>%.2f</td><td>%.2f</td>"
			     "<td>%s</td><td>",
			r->pages, r->rt, r->rfq, r->query, r->ping, r->acq, r->rel, r->other, r->p50,
			r->p99, how(r, hw, sizeof hw));
		esc_html(out, r->warnings);
		fputs("</td>", out);
		if (redis) {
			fputs("<td>", out);
			redis_cell(out, r->redis_rt);
			fputs("</td><td>", out);
			redis_cell(out, r->redis_cmds);
			fputs("</td>", out);
		}
		fputs("</tr>\n", out);
	}
	fprintf(out, "</table>\n<p class=\"note\">%s</p>\n</body></html>\n", pgrtt_version_string());
}

/* Route by route: run b against run a. */
static void compare(FILE *out, const struct rows *rs, long long a, long long b, const char *fmt)
{
	bool md_ = strcmp(fmt, "md") == 0;
	if (md_) {
		fprintf(out, "| route | run %lld | run %lld | change | queries | pings | other |\n", a, b);
		fprintf(out, "|---|---:|---:|---:|---:|---:|---:|\n");
	} else {
		fprintf(out, "route,run_a,run_b,round_trips_per_page_a,round_trips_per_page_b,change,"
			     "query_change,ping_change,other_change\n");
	}
	for (int i = 0; i < rs->n; i++) {
		const struct route_figures *x = &rs->r[i];
		if (x->run != a)
			continue;
		const struct route_figures *y = NULL;
		for (int j = 0; j < rs->n; j++)
			if (rs->r[j].run == b && strcmp(rs->r[j].route, x->route) == 0)
				y = &rs->r[j];
		if (!y)
			continue;
		if (md_) {
			fputs("| ", out);
			esc_md(out, x->route);
			fprintf(out, " | %.2f | %.2f | **%+.2f** | %+.2f | %+.2f | %+.2f |\n", x->rt, y->rt,
				y->rt - x->rt, y->query - x->query, y->ping - x->ping, y->other - x->other);
		} else {
			esc_csv(out, x->route);
			fprintf(out, ",%lld,%lld,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g\n", a, b, x->rt, y->rt,
				y->rt - x->rt, y->query - x->query, y->ping - x->ping, y->other - x->other);
		}
	}
}

static bool run_number(const char *s, long long *out)
{
	char *end;
	long long v = strtoll(s, &end, 10);
	if (end == s || *end || v < 1) {
		usage_error("bad run number \"%s\"", s);
		return false;
	}
	*out = v;
	return true;
}

/* Every --run must name a stored run: a report of nothing is no report. */
static bool runs_exist(struct store *s, const char *path, const long long *runs, int n)
{
	for (int i = 0; i < n; i++) {
		if (!store_has_run(s, runs[i])) {
			warnx_("%s: no run %lld (pgrtt runs --db %s lists them)", path, runs[i], path);
			return false;
		}
	}
	return true;
}

/* What the report's runs could not vouch for, on stderr like analyze. */
static void warn_runs(struct store *s, const struct rows *rs)
{
	for (int i = 0; i < rs->n; i++) {
		bool seen = false;
		for (int j = 0; j < i && !seen; j++)
			seen = rs->r[j].run == rs->r[i].run;
		if (seen || !rs->r[i].warnings[0])
			continue;
		struct evidence ev;
		char err[STORE_ERRBUF];
		if (store_run_evidence(s, rs->r[i].run, &ev, err) != 0)
			continue;
		for (int k = 0; k < ev.n; k++) {
			if (ev.f[k].severity == EV_NOTE)
				continue;
			char msg[EV_MSG_MAX];
			warnx_("warning: run %" PRId64 ": %s [%s]", rs->r[i].run,
			       esc_term_buf(msg, sizeof msg, ev.f[k].message), ev_code_name(ev.f[k].code));
		}
	}
}

enum { R_APP = 1, R_LABEL, R_RUN, R_COMPARE };

struct report_args {
	char *apps[MAX_FILTERS], *labels[MAX_FILTERS];
	long long runs[MAX_FILTERS], cmp[2];
	int napps, nlabels, nruns;
	bool compare;
};

static int report_opt(void *ctx, int id, const char *arg)
{
	struct report_args *r = ctx;
	switch (id) {
	case R_APP:
	case R_LABEL:
		if ((id == R_APP ? r->napps : r->nlabels) == MAX_FILTERS) {
			usage_error("at most %d --%s filters", MAX_FILTERS, id == R_APP ? "app" : "label");
			return -1;
		}
		if (id == R_APP)
			r->apps[r->napps++] = (char *)arg;
		else
			r->labels[r->nlabels++] = (char *)arg;
		return 0;
	case R_RUN:
		if (r->nruns == MAX_FILTERS) {
			usage_error("at most %d --run filters", MAX_FILTERS);
			return -1;
		}
		return run_number(arg, &r->runs[r->nruns++]) ? 0 : -1;
	default: /* R_COMPARE A: B is the next argument */
		r->compare = true;
		return run_number(arg, &r->cmp[0]) ? 0 : -1;
	}
}

int cmd_report(int argc, char **argv)
{
	static const char *const formats[] = {"md", "html", "json", "csv", NULL};
	static const struct opt_extra own[] = {
		{"app", 0, true, R_APP},
		{"label", 0, true, R_LABEL},
		{"run", 0, true, R_RUN},
		{"compare", 0, true, R_COMPARE},
		{NULL, 0, false, 0},
	};
	static struct cmd_opts co;
	static struct report_args ra;
	memset(&ra, 0, sizeof ra);
	int pr = opts_parse(argc, argv, OPTG_DB_READ | OPTG_OUTPUT | OPTG_FORMAT, formats, own,
			    report_opt, &ra, &co);
	if (pr > 0) {
		help(stdout);
		return EXIT_OK;
	}
	if (pr < 0)
		return EXIT_USAGE;
	int next = 0;
	if (ra.compare) {
		if (co.nrest < 1) {
			usage_error("--compare takes two run numbers");
			return EXIT_USAGE;
		}
		if (!run_number(co.rest[next++], &ra.cmp[1]))
			return EXIT_USAGE;
	}
	if (next < co.nrest) {
		usage_error("unexpected \"%s\"", co.rest[next]);
		return EXIT_USAGE;
	}
	const char *dbpath = co.db.db, *format = co.format, *output = co.output;
	char **apps = ra.apps, **labels = ra.labels;
	long long *runs = ra.runs, *cmp = ra.cmp;
	int napps = ra.napps, nlabels = ra.nlabels, nruns = ra.nruns;
	if (!dbpath) {
		usage_error("--db FILE is required");
		return EXIT_USAGE;
	}
	if ((cmp[0] || cmp[1]) && (cmp[0] < 1 || cmp[1] < 1 || (strcmp(format, "md") && strcmp(format, "csv")))) {
		usage_error("--compare takes two run numbers, with --format md or csv");
		return EXIT_USAGE;
	}
	struct store *s = open_db(dbpath, STORE_READ);
	if (!s)
		return EXIT_ERROR;
	if (cmp[0]) {
		runs[0] = cmp[0];
		runs[1] = cmp[1];
		nruns = 2;
	}
	struct rows rs = {0};
	int rc = EXIT_OK;
	if (!runs_exist(s, dbpath, runs, nruns)) {
		rc = EXIT_ERROR;
		goto done;
	}
	struct route_query q = {apps, napps, labels, nlabels, runs, nruns, false};
	char err[STORE_ERRBUF];
	if (store_routes(s, &q, &rs.r, &rs.n, err) != 0) {
		warnx_("%s: %s", dbpath, err);
		rc = EXIT_ERROR;
		goto done;
	}
	for (int k = 0; cmp[0] && k < 2; k++) {
		bool found = false;
		for (int i = 0; i < rs.n; i++)
			found |= rs.r[i].run == cmp[k];
		if (!found) {
			warnx_("%s: run %lld has no routes (stored without --http-port, or missing)",
			       dbpath, cmp[k]);
			rc = EXIT_ERROR;
			goto done;
		}
	}
	if (rs.n == 0 && !cmp[0])
		warnx_("%s: no routes match: store runs with analyze --db --http-port", dbpath);
	warn_runs(s, &rs);
	FILE *out = output_open(output);
	if (!out) {
		rc = EXIT_ERROR;
		goto done;
	}
	if (cmp[0])
		compare(out, &rs, cmp[0], cmp[1], format);
	else if (strcmp(format, "md") == 0)
		md(out, &rs);
	else if (strcmp(format, "csv") == 0)
		csv(out, &rs);
	else if (strcmp(format, "json") == 0)
		rc = json(out, &rs) == 0 ? EXIT_OK : EXIT_ERROR;
	else
		html(out, &rs);
	rc = output_close(out, output, rc);
done:
	free(rs.r);
	store_close(s);
	return rc;
}
