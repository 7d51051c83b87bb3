#define _DEFAULT_SOURCE
/* cmd_report.c - pgrtt report: reads the stored runs and their routes (or
 * two runs, --compare) into a stored_report and hands it to the format's
 * writer (stored_*.c).  Says on stderr what a report leaves out. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "commands.h"
#include "base/escape.h"
#include "findings/evidence.h"
#include "cli/opts.h"
#include "results.h"
#include "store/store.h"
#include "report/stored_report.h"

#define MAX_FILTERS 32

static void help(FILE *out)
{
	fputs("Usage: pgrtt report [--db FILE|URI] [OPTIONS]   (PGRTT_DB without --db)\n"
	      "\n"
	      "Stored runs (pgrtt analyze --db, capture --db): each run's round trips by class,\n"
	      "per query, its latency and pool pattern; then, for runs stored with --http-port,\n"
	      "round trips per page route by route.\n"
	      "\n"
	      "Options:\n"
	      "  -F, --format FMT       md (default), html, json or csv\n"
	      "  -o, --output FILE      write to FILE instead of standard output\n"
	      "      --app NAME         only runs of this app (repeatable)\n"
	      "      --label KEY=VALUE  only runs with this label (repeatable: all must match)\n"
	      "      --run N            only this run (repeatable)\n"
	      "      --compare A B      run B against run A: totals per query, then route by\n"
	      "                         route (routes in one run only: added, removed)\n"
	      "      --table T          csv: routes (default) or runs\n"
	      "  -h, --help             show this help\n"
	      "\n"
	      "The HTML report is one self-contained file: a bar chart of round trips per query\n"
	      "by class for the runs, one of round trips per page for each route, the tables.\n"
	      "\n"
	      "Exit status: 0 ok, 2 no such database or run, 64 usage error.\n",
	      out);
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
			warnx_("%s: no run %lld (pgrtt runs --db %s lists them)", store_shown(path), runs[i],
			       store_shown(path));
			return false;
		}
	}
	return true;
}

/* What the report's runs could not vouch for, on stderr like analyze. */
static void warn_runs(struct store *s, const struct run_figures *runs, int n)
{
	for (int i = 0; i < n; i++) {
		if (!runs[i].warnings[0])
			continue;
		struct evidence ev;
		char err[STORE_ERRBUF];
		if (store_run_evidence(s, runs[i].run, &ev, err) != 0)
			continue;
		for (int k = 0; k < ev.n; k++) {
			if (ev.f[k].severity == EV_NOTE)
				continue;
			char msg[EV_MSG_MAX];
			warnx_("warning: run %" PRId64 ": %s [%s]", runs[i].run,
			       esc_term_buf(msg, sizeof msg, ev.f[k].message), ev_code_name(ev.f[k].code));
		}
	}
}

/* Why run f has no row among the routes: said in the report and on stderr
 * (a report never drops a run without saying so). */
static bool left_out_why(const struct run_figures *f, char *why, size_t cap)
{
	if (f->routes_unmeasured) {
		snprintf(why, cap, "round trips per page not measured (%.80s)",
			 f->warnings[0] ? f->warnings : "PostgreSQL not measured");
		return true;
	}
	if (f->routes > 0)
		return false;
	if (!f->http)
		snprintf(why, cap, "stored without --http-port");
	else if (f->pages > 0)
		snprintf(why, cap, "its %" PRId64 " pages all overlapped other routes' and none could be estimated", f->pages);
	else
		snprintf(why, cap, "stored with --http-port, but no HTTP request was seen on it");
	return true;
}

/* The union of two runs' routes, by route (rows come ordered by route). */
static int pair_routes(const struct route_figures *rows, int n, int64_t a, int64_t b,
		       struct cmp_route *out)
{
	int m = 0;
	for (int i = 0; i < n; i++) {
		if (rows[i].run != a && rows[i].run != b)
			continue;
		if (m > 0 && strcmp(out[m - 1].route, rows[i].route) == 0) {
			if (rows[i].run == a)
				out[m - 1].a = &rows[i];
			else
				out[m - 1].b = &rows[i];
			continue;
		}
		out[m].route = rows[i].route;
		out[m].a = rows[i].run == a ? &rows[i] : NULL;
		out[m].b = rows[i].run == b ? &rows[i] : NULL;
		m++;
	}
	return m;
}

enum { R_APP = 1, R_LABEL, R_RUN, R_COMPARE, R_TABLE };

struct report_args {
	char *apps[MAX_FILTERS], *labels[MAX_FILTERS];
	long long runs[MAX_FILTERS], cmp[2];
	int napps, nlabels, nruns;
	bool compare;
	enum stored_table table;
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
	case R_TABLE:
		if (strcmp(arg, "runs") == 0)
			r->table = TABLE_RUNS;
		else if (strcmp(arg, "routes") == 0)
			r->table = TABLE_ROUTES;
		else {
			usage_error("--table takes runs or routes, not \"%s\"", arg);
			return -1;
		}
		return 0;
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
		{"table", 0, true, R_TABLE},
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
	/* PGRTT_DB: the store a team shares, when --db is not given */
	const char *dbpath = co.db.db ? co.db.db : getenv("PGRTT_DB"), *format = co.format,
		   *output = co.output;
	if (!dbpath) {
		usage_error("--db FILE or URI is required (or PGRTT_DB)");
		return EXIT_USAGE;
	}
	if (ra.table != TABLE_BOTH && strcmp(format, "csv") != 0) {
		usage_error("--table is for --format csv (the other formats show both)");
		return EXIT_USAGE;
	}
	if (ra.compare && (ra.nruns || ra.napps || ra.nlabels)) {
		usage_error("--compare names its two runs: no --run, --app or --label with it");
		return EXIT_USAGE;
	}
	struct store *s = open_db(dbpath, STORE_READ);
	if (!s)
		return EXIT_ERROR;
	if (ra.compare) {
		ra.runs[0] = ra.cmp[0];
		ra.runs[1] = ra.cmp[1];
		ra.nruns = 2;
	}
	struct run_figures *runs = NULL;
	struct route_figures *rows = NULL;
	struct left_out *left = NULL;
	struct cmp_route *cmp = NULL;
	int nruns = 0, nrows = 0, rc = EXIT_OK;
	if (!runs_exist(s, dbpath, ra.runs, ra.nruns)) {
		rc = EXIT_ERROR;
		goto done;
	}
	struct route_query q = {ra.apps, ra.napps, ra.labels, ra.nlabels, ra.runs, ra.nruns, false};
	char err[STORE_ERRBUF];
	if (store_runs(s, &q, &runs, &nruns, err) != 0 || store_routes(s, &q, &rows, &nrows, err) != 0) {
		warnx_("%s: %s", store_shown(dbpath), err);
		rc = EXIT_ERROR;
		goto done;
	}
	struct stored_report rep = {runs, nruns, rows, nrows, NULL, 0, false, NULL, NULL, NULL, 0,
				    ra.table};
	left = calloc((size_t)(nruns > 0 ? nruns : 1), sizeof(*left));
	cmp = calloc((size_t)(nrows > 0 ? nrows : 1), sizeof(*cmp));
	if (!left || !cmp) {
		warnx_("out of memory");
		rc = EXIT_ERROR;
		goto done;
	}
	for (int i = 0; i < nruns; i++)
		rep.any_http |= runs[i].http;
	/* routes whose round trips were not measured (a fatal finding
	 * in their run: store_routes gives them NaN) are no row of figures:
	 * their runs are left out of the routes section, with why */
	int kept = 0;
	for (int i = 0; i < nrows; i++) {
		if (!isnan(rows[i].rt)) {
			rows[kept++] = rows[i];
			continue;
		}
		for (int j = 0; j < nruns; j++)
			if (runs[j].run == rows[i].run)
				runs[j].routes_unmeasured = true;
	}
	nrows = rep.nrows = kept;
	int nleft = 0;
	for (int i = 0; rep.any_http && i < nruns; i++)
		if (left_out_why(&runs[i], left[nleft].why, sizeof left[nleft].why))
			left[nleft++].run = runs[i].run;
	rep.left = left;
	rep.nleft = nleft;
	if (ra.compare) {
		for (int i = 0; i < nruns; i++) {
			if (runs[i].run == ra.cmp[0])
				rep.ra = &runs[i];
			if (runs[i].run == ra.cmp[1])
				rep.rb = &runs[i];
		}
		if (!rep.ra || !rep.rb) { /* runs_exist said they were there */
			warnx_("%s: the runs to compare are gone", store_shown(dbpath));
			rc = EXIT_ERROR;
			goto done;
		}
		rep.ncmp = pair_routes(rows, nrows, ra.cmp[0], ra.cmp[1], cmp);
		rep.cmp = cmp;
	}
	if (nruns == 0)
		warnx_("%s: no runs match", store_shown(dbpath));
	if (nleft && !ra.compare) {
		char *text = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&text, &len);
		if (m) {
			stored_left_out(m, left, nleft, esc_term);
			fclose(m);
			warnx_("note: not among the routes: %s", text);
			free(text);
		}
	}
	if (strcmp(format, "csv") == 0 && !ra.compare && ra.table != TABLE_RUNS && nrows == 0 && nruns)
		warnx_("note: no routes: --table runs lists the runs");
	warn_runs(s, runs, nruns);
	FILE *out = output_open(output);
	if (!out) {
		rc = EXIT_ERROR;
		goto done;
	}
	if (strcmp(format, "md") == 0)
		stored_md(out, &rep);
	else if (strcmp(format, "csv") == 0)
		stored_csv(out, &rep);
	else if (strcmp(format, "json") == 0)
		rc = stored_json(out, &rep) == 0 ? EXIT_OK : EXIT_ERROR;
	else
		stored_html(out, &rep);
	rc = output_close(out, output, rc);
done:
	free(runs);
	free(rows);
	free(left);
	free(cmp);
	store_close(s);
	return rc;
}
