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

/* The positional run number of --compare and the flags that go together:
 * EXIT_OK with the store's path in *dbpath, or EXIT_USAGE. */
static int report_check(const struct cmd_opts *co, struct report_args *ra, const char **dbpath)
{
	int next = 0;
	if (ra->compare) {
		if (co->nrest < 1) {
			usage_error("--compare takes two run numbers");
			return EXIT_USAGE;
		}
		if (!run_number(co->rest[next++], &ra->cmp[1]))
			return EXIT_USAGE;
	}
	if (next < co->nrest) {
		usage_error("unexpected \"%s\"", co->rest[next]);
		return EXIT_USAGE;
	}
	/* PGRTT_DB: the store a team shares, when --db is not given */
	*dbpath = co->db.db ? co->db.db : getenv("PGRTT_DB");
	if (!*dbpath) {
		usage_error("--db FILE or URI is required (or PGRTT_DB)");
		return EXIT_USAGE;
	}
	if (ra->table != TABLE_BOTH && strcmp(co->format, "csv") != 0) {
		usage_error("--table is for --format csv (the other formats show both)");
		return EXIT_USAGE;
	}
	if (ra->compare && (ra->nruns || ra->napps || ra->nlabels)) {
		usage_error("--compare names its two runs: no --run, --app or --label with it");
		return EXIT_USAGE;
	}
	if (ra->compare) {
		ra->runs[0] = ra->cmp[0];
		ra->runs[1] = ra->cmp[1];
		ra->nruns = 2;
	}
	return EXIT_OK;
}

/* What the page shows, read from the store; the arrays it points into are
 * the caller's to free. */
struct report_data {
	struct stored_report rep;
	struct run_figures *runs;
	struct route_figures *rows;
	struct left_out *left;
	struct cmp_route *cmp;
};

/* Routes whose round trips were not measured (a fatal finding in their
 * run: store_routes gives them NaN) are no row of figures: their runs are
 * left out of the routes section, with why. */
static void leave_out_unmeasured(struct report_data *d, int nruns, int *nrows)
{
	int kept = 0;
	for (int i = 0; i < *nrows; i++) {
		if (!isnan(d->rows[i].rt)) {
			d->rows[kept++] = d->rows[i];
			continue;
		}
		for (int j = 0; j < nruns; j++)
			if (d->runs[j].run == d->rows[i].run)
				d->runs[j].routes_unmeasured = true;
	}
	*nrows = kept;
	int nleft = 0;
	for (int i = 0; d->rep.any_http && i < nruns; i++)
		if (left_out_why(&d->runs[i], d->left[nleft].why, sizeof d->left[nleft].why))
			d->left[nleft++].run = d->runs[i].run;
	d->rep.left = d->left;
	d->rep.nleft = nleft;
}

/* The runs and routes the filters pick, and what is left out: EXIT_OK or
 * EXIT_ERROR (said). */
static int report_read(struct store *s, const char *dbpath, const struct report_args *ra,
		       struct report_data *d)
{
	int nruns = 0, nrows = 0;
	if (!runs_exist(s, dbpath, ra->runs, ra->nruns))
		return EXIT_ERROR;
	struct route_query q = {ra->apps, ra->napps, ra->labels, ra->nlabels, ra->runs, ra->nruns,
				false};
	char err[STORE_ERRBUF];
	if (store_runs(s, &q, &d->runs, &nruns, err) != 0 ||
	    store_routes(s, &q, &d->rows, &nrows, err) != 0) {
		warnx_("%s: %s", store_shown(dbpath), err);
		return EXIT_ERROR;
	}
	d->left = calloc((size_t)(nruns > 0 ? nruns : 1), sizeof(*d->left));
	d->cmp = calloc((size_t)(nrows > 0 ? nrows : 1), sizeof(*d->cmp));
	if (!d->left || !d->cmp) {
		warnx_("out of memory");
		return EXIT_ERROR;
	}
	struct stored_report rep = {d->runs, nruns, d->rows, nrows, NULL, 0, false, NULL, NULL, NULL, 0,
				    ra->table};
	d->rep = rep;
	for (int i = 0; i < nruns; i++)
		d->rep.any_http |= d->runs[i].http;
	leave_out_unmeasured(d, nruns, &nrows);
	d->rep.nrows = nrows;
	if (!ra->compare)
		return EXIT_OK;
	for (int i = 0; i < nruns; i++) {
		if (d->runs[i].run == ra->cmp[0])
			d->rep.ra = &d->runs[i];
		if (d->runs[i].run == ra->cmp[1])
			d->rep.rb = &d->runs[i];
	}
	if (!d->rep.ra || !d->rep.rb) { /* runs_exist said they were there */
		warnx_("%s: the runs to compare are gone", store_shown(dbpath));
		return EXIT_ERROR;
	}
	d->rep.ncmp = pair_routes(d->rows, nrows, ra->cmp[0], ra->cmp[1], d->cmp);
	d->rep.cmp = d->cmp;
	return EXIT_OK;
}

/* What the page will not show, said on stderr first. */
static void report_notes(struct store *s, const char *dbpath, const struct report_args *ra,
			 const struct report_data *d, const char *format)
{
	const struct stored_report *rep = &d->rep;
	if (rep->nruns == 0)
		warnx_("%s: no runs match", store_shown(dbpath));
	if (rep->nleft && !ra->compare) {
		char *text = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&text, &len);
		if (m) {
			stored_left_out(m, rep->left, rep->nleft, esc_term);
			fclose(m);
			warnx_("note: not among the routes: %s", text);
			free(text);
		}
	}
	if (strcmp(format, "csv") == 0 && !ra->compare && ra->table != TABLE_RUNS && rep->nrows == 0 &&
	    rep->nruns)
		warnx_("note: no routes: --table runs lists the runs");
	warn_runs(s, d->runs, rep->nruns);
}

static int report_write(const struct stored_report *rep, const char *format, const char *output)
{
	FILE *out = output_open(output);
	if (!out)
		return EXIT_ERROR;
	int rc = EXIT_OK;
	if (strcmp(format, "md") == 0)
		stored_md(out, rep);
	else if (strcmp(format, "csv") == 0)
		stored_csv(out, rep);
	else if (strcmp(format, "json") == 0)
		rc = stored_json(out, rep) == 0 ? EXIT_OK : EXIT_ERROR;
	else
		stored_html(out, rep);
	return output_close(out, output, rc);
}

static int report_run(const struct cmd_opts *co, void *state)
{
	struct report_args *ra = state;
	const char *dbpath;
	int rc = report_check(co, ra, &dbpath);
	if (rc != EXIT_OK)
		return rc;
	struct store *s = open_db(dbpath, STORE_READ);
	if (!s)
		return EXIT_ERROR;
	struct report_data d = {0};
	rc = report_read(s, dbpath, ra, &d);
	if (rc == EXIT_OK) {
		report_notes(s, dbpath, ra, &d, co->format);
		rc = report_write(&d.rep, co->format, co->output);
	}
	free(d.runs);
	free(d.rows);
	free(d.left);
	free(d.cmp);
	store_close(s);
	return rc;
}

static const char *const formats[] = {"md", "html", "json", "csv", NULL};
static const struct opt_extra own[] = {
	{"app", 0, true, R_APP},
	{"label", 0, true, R_LABEL},
	{"run", 0, true, R_RUN},
	{"compare", 0, true, R_COMPARE},
	{"table", 0, true, R_TABLE},
	{NULL, 0, false, 0},
};

const struct command cmd_report = {
	.name = "report",
	.summary = "stored runs as Markdown, HTML with charts, JSON or CSV",
	.help = help,
	.groups = OPTG_DB_READ | OPTG_OUTPUT | OPTG_FORMAT,
	.formats = formats,
	.own = own,
	.own_opt = report_opt,
	.state_size = sizeof(struct report_args),
	.run = report_run,
};
