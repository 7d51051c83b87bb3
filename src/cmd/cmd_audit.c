/* cmd_audit.c - pgrtt audit: a CI gate on round trips per page and pings.
 * Exit 0 when every rule passes, 1 when one fails, 2 when an input cannot
 * be used, 64 for bad usage. */
#define _DEFAULT_SOURCE
#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "base/escape.h"
#include "findings/evidence.h"
#include "commands.h"
#include "cli/opts.h"
#include "attrib/route.h"
#include "results.h"
#include "store/store.h"
#include "audit.h"

static void help(FILE *out)
{
	/* the page figures' budgets (figure.h), a line each */
	char budgets[1024] = "";
	size_t o = 0;
	const struct proto_ops *proto;
	const struct page_figure *f;
	for (int i = 0; (f = analysis_page_figure(i, &proto)) && o < sizeof budgets; i++) {
		if (!f->option)
			continue;
		char flag[96];
		int w = snprintf(flag, sizeof flag, "      --%s N", f->option);
		o += (size_t)snprintf(budgets + o, sizeof budgets - o, "%s%*s%s per page (%s)\n", flag,
				      w < 31 ? 33 - w : 2, "", f->what, proto->port_option);
	}
	char ports[256]; /* every other protocol's port option */
	opts_usage_ports(ports, sizeof ports);
	fprintf(out, "Usage: pgrtt audit [RULES] [--http-port PORT] [-p PORT]%s FILE...\n"
	      "       pgrtt audit [RULES] --db FILE|URI [--app NAME] [--label K=V] [--run N|latest]\n"
	      "                                                   (PGRTT_DB without --db)\n"
	      "\n"
	      "Fail (exit 1) when pages cost more round trips than allowed or a pool pings;\n"
	      "exit 0 when every rule holds, 2 on an input error, 64 on a usage error.\n"
	      "\n"
	      "Rules (flags, or the same keys in --policy FILE, docs/ci.md):\n"
	      "      --max-rt-per-page N        round trips per page, every route\n"
	      "      --max-rfq-per-page N       ReadyForQuery per page\n"
	      "      --max-pings-per-page N     pings per page\n"
	      "      --max-connections-per-page N  distinct PostgreSQL connections per page\n"
	      "%s"
	      "      --route 'PATTERN=N'        round trips per page for one route\n"
	      "      --forbid WHAT              ping, acquire-ping, release-ping or\n"
	      "                                 returned-in-transaction (repeatable)\n"
	      "      --min-pages N              fail when fewer pages were seen\n"
	      "      --baseline FILE            fail when a route grew past its baseline ...\n"
	      "      --baseline-from SEL        the same against the last stored run that\n"
	      "                                 matches SEL: app=NAME,KEY=VALUE,... (--db)\n"
	      "      --max-increase N           ... by more than N round trips per page (0)\n"
	      "      --policy FILE              rules from a JSON file (flags add to it)\n"
	      "Evidence: every finding that makes the figures incomplete fails the gate\n"
	      "(no PostgreSQL packets on the port, encryption, gaps, drops, no pages...;\n"
	      "docs/ci.md); nothing usable at all exits 2.\n"
	      "      --allow CODE[,CODE]        do not fail on these findings (repeatable):\n"
	      "                                 %s\n"
	      "Input: capture files (FILE or -r FILE) with -p, --http-port, -f, --tls-keylog,\n"
	      "--grace, --route-values, --no-progress as 'analyze'; or --db FILE|URI: the newest\n"
	      "run of --app NAME with every --label KEY=VALUE (a store of one app needs no\n"
	      "--app), or "
	      "--run N; the run judged is named first.\n"
	      "Output: -F json, -o FILE (the report to FILE), --junit FILE (JUnit XML),\n"
	      "--github (::error:: annotations; on standard error when JSON is on standard\n"
	      "output), --write-baseline FILE (also write the measured routes as a baseline).\n"
	      "Exit status: 0 every rule and the evidence hold, 1 one failed, 2 the input\n"
	      "could not be used (or nothing usable was measured), 64 usage error.\n",
	      ports, budgets, ev_code_list());
}

/* ---------------------------------------------------------------------- */

static int from_analysis(const struct analysis *a, bool partial, struct adata *d)
{
	const struct attrib *at = analysis_attrib(a);
	struct report_input in = {NULL, 0, partial, NULL};
	evidence_of(a, &in, &d->ev);
	d->http = analysis_attributing(a);
	d->r = calloc(at->nroutes ? at->nroutes : 1, sizeof(*d->r));
	if (!d->r)
		return -1;
	for (uint32_t i = 0; analysis_attributing(a) && i < at->nroutes; i++) {
		const struct attrib_route *r = &at->routes[i];
		if (!r->pages) {
			d->pages_mixed_only += r->pages_mixed;
			continue;
		}
		struct route_figures *x = &d->r[d->n++];
		double n = (double)r->pages;
		snprintf(x->route, sizeof x->route, "%s", r->name);
		x->pages = (int64_t)r->pages;
		x->rt = r->rt / n;
		x->rfq = r->rfq / n;
		x->ping = r->by_class[RT_PING] / n;
		x->acq = r->pings[PING_ACQUIRE] / n;
		x->rel = r->pings[PING_RELEASE] / n;
		x->conns = route_conns_per_page(r);
		snprintf(x->attribution, sizeof x->attribution, "%s", route_attribution(r));
		x->inferred = route_inferred_share(r);
		route_interval(r, &x->rt_lo, &x->rt_hi);
		if (!analysis_pg_measured(a)) { /* as the store reads such a run */
			x->rt = x->rfq = x->ping = x->acq = x->rel = x->conns = NAN;
			x->inferred = x->rt_lo = x->rt_hi = NAN;
			snprintf(x->attribution, sizeof x->attribution, "not measured");
		}
		const struct proto_ops *proto;
		const struct page_figure *f;
		for (int k = 0; (f = analysis_page_figure(k, &proto)); k++) {
			double iv[2] = {NAN, NAN};
			bool measured = analysis_measured(a, proto->id);
			x->page[k] = measured ? route_page_count(r, f->count) / n : NAN;
			if (measured)
				route_page_interval(r, f->count, iv); /* NAN where none */
			x->page_lo[k] = iv[0];
			x->page_hi[k] = iv[1];
		}
		d->pages += n;
	}
	const struct rtt_stats *st = &analysis_pgsql(a)->tot.st;
	d->acq = st->pings[PING_ACQUIRE];
	d->rel = st->pings[PING_RELEASE];
	d->idle = st->pings[PING_IDLE];
	d->returned_in_tx = st->returned_in_tx;
	return 0;
}

/* Which run to judge: --run N, or the newest of the app and labels given.
 * A store that holds several apps is never guessed from: a gate passed on
 * another app's run would be worse than no gate.  The run's id, or 0 after
 * a one-line error (*usage set when the command line must change). */
static int64_t pick_run(struct store *s, const char *path, const char *run,
			const struct db_opts *sel, bool *usage)
{
	char err[STORE_ERRBUF];
	char *apps[1] = {(char *)sel->app};
	struct route_query q = {apps, sel->app ? 1 : 0, sel->labels, sel->nlabels, NULL, 0, false};
	if (strcmp(run, "latest") != 0) {
		char *end;
		long long want = strtoll(run, &end, 10);
		if (*end || want < 1) {
			usage_error("bad --run \"%s\": a run number or latest", run);
			*usage = true;
			return 0;
		}
		q.runs = &want;
		q.nruns = 1;
		if (store_latest_matching(s, &q) == want)
			return want;
		if (store_has_run(s, want))
			warnx_("%s: run %lld is not of the --app and --label given (pgrtt runs lists "
			       "it)", store_shown(path), want);
		else
			warnx_("%s: no run %lld", store_shown(path), want);
		return 0;
	}
	char names[8][STORE_APP_MAX];
	int napps = 0;
	if (!sel->app) {
		if (store_apps(s, &q, names, 8, &napps, err) != 0) {
			warnx_("%s: %s", store_shown(path), err);
			return 0;
		}
		if (napps > 1) {
			char list[8 * (STORE_APP_MAX + 8)] = "";
			size_t o = 0;
			for (int i = 0; i < napps && i < 8; i++) {
				char e[STORE_APP_MAX * 4];
				o += (size_t)snprintf(list + o, sizeof list - o, "%s%s", i ? ", " : "",
						      names[i][0] ? esc_term_buf(e, sizeof e, names[i])
								  : "(runs stored without --app)");
			}
			usage_error("%s holds runs of %d apps (%s%s): give --app NAME, or --run N",
				    store_shown(path), napps, list, napps > 8 ? ", ..." : "");
			*usage = true;
			return 0;
		}
	}
	int64_t id = store_latest_matching(s, &q);
	if (!id)
		warnx_("%s: no run%s", store_shown(path),
		       sel->app || sel->nlabels ? " of the --app and --label given" : "");
	return id;
}

static int from_db(const char *path, const char *run, const struct db_opts *sel,
		   struct adata *d)
{
	struct store *s = open_db(path, STORE_READ);
	if (!s)
		return -1;
	bool usage = false;
	int64_t id = pick_run(s, path, run, sel, &usage);
	if (!id) {
		store_close(s);
		return usage ? -2 : -1;
	}
	long long want = id;
	struct route_query one = {NULL, 0, NULL, 0, &want, 1, false};
	struct run_figures *info = NULL;
	int ninfo = 0;
	char ierr[STORE_ERRBUF];
	if (store_runs(s, &one, &info, &ninfo, ierr) == 0 && ninfo == 1)
		d->judged = info[0];
	free(info);
	char err[STORE_ERRBUF];
	struct run_pings p = {0};
	struct route_query q = {NULL, 0, NULL, 0, &want, 1, true};
	d->run_id = id;
	struct route_figures *all = NULL;
	int n = 0;
	int rc = store_run_evidence(s, id, &d->ev, err) == 0 &&
				 store_routes(s, &q, &all, &n, err) == 0 &&
				 store_run_pings(s, id, &p, err) == 0
			 ? 0
			 : -1;
	if (rc != 0)
		warnx_("%s: %s", store_shown(path), err);
	for (int i = 0; i < n; i++) { /* routes with only mixed pages have no figure */
		if (all[i].pages > 0) {
			all[d->n++] = all[i];
			d->pages += (double)all[i].pages;
		} else {
			d->pages_mixed_only += (uint64_t)all[i].pages_mixed;
		}
	}
	d->r = all;
	d->acq = p.acq;
	d->rel = p.rel;
	d->idle = p.idle;
	d->returned_in_tx = p.returned_in_tx;
	d->http = p.http;
	store_close(s);
	return rc;
}

/* ---------------------------------------------------------------------- */

/* "run 17 (app shop; branch=main; stored 2026-12-07 11:00:00 on vm)": which
 * stored run was judged, for every output to say. */
static const char *judged_run(const struct adata *d, char *buf, size_t cap)
{
	const struct run_figures *r = &d->judged;
	snprintf(buf, cap, "run %" PRId64 " (app %s%s%s; stored %s%s%s)", d->run_id,
		 r->app[0] ? r->app : "not given", r->labels[0] ? "; " : "", r->labels, r->created,
		 r->host[0] ? " on " : "", r->host);
	return buf;
}

static int junit(const char *path, const struct checks *cs, const struct adata *d)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		warnx_("%s: cannot write", path);
		return -1;
	}
	int failures = 0;
	for (int i = 0; i < cs->n; i++)
		failures += !cs->c[i].ok;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"pgrtt audit\" "
		   "tests=\"%d\" failures=\"%d\">\n<testsuite name=\"pgrtt audit\" tests=\"%d\" "
		   "failures=\"%d\" errors=\"0\">\n",
		cs->n, failures, cs->n, failures);
	if (d->run_id) {
		char named[1024];
		fputs("  <properties><property name=\"pgrtt.run\" value=\"", f);
		esc_xml(f, judged_run(d, named, sizeof named));
		fputs("\"/></properties>\n", f);
	}
	for (int i = 0; i < cs->n; i++) {
		const struct check *k = &cs->c[i];
		fputs("  <testcase classname=\"", f);
		esc_xml(f, k->cls);
		fputs("\" name=\"", f);
		esc_xml(f, k->name);
		fputs("\"", f);
		if (k->ok) {
			fputs("/>\n", f);
			continue;
		}
		fputs("><failure message=\"", f);
		esc_xml(f, k->msg);
		fputs("\">", f);
		esc_xml(f, k->msg);
		fputs("</failure></testcase>\n", f);
	}
	fputs("</testsuite>\n</testsuites>\n", f);
	return fclose(f) == 0 ? 0 : -1;
}

static void github_annotations(FILE *f, const struct checks *cs)
{
	for (int i = 0; i < cs->n; i++) {
		if (cs->c[i].ok)
			continue;
		fputs("::error title=", f);
		char title[128];
		snprintf(title, sizeof title, "pgrtt audit %s", cs->c[i].name);
		esc_github(f, title, true);
		fputs("::", f);
		esc_github(f, cs->c[i].cls, false);
		fputs(": ", f);
		esc_github(f, cs->c[i].msg, false);
		fputc('\n', f);
	}
}

/* Written to PATH.tmp, then renamed: a failure leaves the old baseline
 * (or none), never half a file. */
static int write_baseline(const char *path, const struct adata *d)
{
	cJSON *root = cJSON_CreateObject();
	cJSON_AddNumberToObject(root, "pgrtt_baseline", 1);
	cJSON *r = cJSON_AddObjectToObject(root, "routes");
	for (int i = 0; i < d->n; i++)
		cJSON_AddNumberToObject(r, d->r[i].route, round(d->r[i].rt * 1e6) / 1e6);
	char *t = cJSON_Print(root);
	cJSON_Delete(root);
	char tmp[4200];
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	if (!t) {
		warnx_("%s: cannot write the baseline: out of memory", path);
		return -1;
	}
	FILE *f = NULL;
	if (make_parents(path, 0777) != 0 || !(f = fopen(tmp, "w"))) { /* a first run's tree */
		warnx_("%s: cannot write the baseline: %s", path, strerror(errno));
		free(t);
		return -1;
	}
	bool ok = fprintf(f, "%s\n", t) >= 0;
	free(t);
	ok &= fclose(f) == 0;
	if (!ok || rename(tmp, path) != 0) {
		warnx_("%s: cannot write the baseline: %s", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

enum {
	A_MAX_RT = 1, A_MAX_RFQ, A_MAX_PINGS, A_MAX_CONNS, A_MIN_PAGES, A_MAX_INCREASE, A_FORBID,
	A_ROUTE, A_ALLOW, A_POLICY, A_BASELINE, A_RUN, A_JUNIT, A_WRITE_BASELINE, A_GITHUB,
	A_BASELINE_FROM,
};

struct audit_args {
	struct policy p;
	struct cmd_opts *co;
	const char *policy, *run, *junit_path, *write_path;
	bool github;
};

static int audit_opt(void *ctx, int id, const char *arg)
{
	struct audit_args *x = ctx;
	struct policy *p = &x->p;
	static const char *const flags[] = {
		[A_MAX_RT] = "--max-rt-per-page",
		[A_MAX_RFQ] = "--max-rfq-per-page",
		[A_MAX_PINGS] = "--max-pings-per-page",
		[A_MAX_CONNS] = "--max-connections-per-page",
		[A_MIN_PAGES] = "--min-pages",
		[A_MAX_INCREASE] = "--max-increase",
	};
	double *nums[] = {[A_MAX_RT] = &p->max_rt,        [A_MAX_RFQ] = &p->max_rfq,
			  [A_MAX_PINGS] = &p->max_pings,  [A_MAX_CONNS] = &p->max_conns,
			  [A_MIN_PAGES] = &p->min_pages,  [A_MAX_INCREASE] = &p->max_increase};
	switch (id) {
	case A_MAX_RT:
	case A_MAX_RFQ:
	case A_MAX_PINGS:
	case A_MAX_CONNS:
	case A_MIN_PAGES:
	case A_MAX_INCREASE:
		return opt_number(flags[id], arg, 0, 1e15, "a number >= 0", nums[id]) ? 0 : -1;
	case A_FORBID:
		if (strcmp(arg, "ping") == 0)
			p->forbid_ping = true;
		else if (strcmp(arg, "acquire-ping") == 0)
			p->forbid_acq = true;
		else if (strcmp(arg, "release-ping") == 0)
			p->forbid_rel = true;
		else if (strcmp(arg, "returned-in-transaction") == 0)
			p->forbid_returned = true;
		else {
			usage_error("bad --forbid \"%s\": ping, acquire-ping, release-ping or "
				    "returned-in-transaction",
				    arg);
			return -1;
		}
		return 0;
	case A_ROUTE: {
		/* 'PATTERN=N' is a budget (its pattern also names the route);
		 * a plain pattern is a route pattern, as in analyze */
		const char *eq = strrchr(arg, '=');
		char e[160];
		if (!eq) {
			if (!route_add_pattern(x->co->ro.routes, arg, e, sizeof e)) {
				usage_error("%s", e);
				return -1;
			}
			return 0;
		}
		char *end;
		double b = strtod(eq + 1, &end);
		if (*end || end == eq + 1 || b < 0 || eq == arg || p->nbudgets == MAX_BUDGETS) {
			usage_error("bad --route \"%s\": expected 'PATTERN=N'", arg);
			return -1;
		}
		snprintf(p->budget_route[p->nbudgets], ROUTE_MAX, "%.*s", (int)(eq - arg), arg);
		p->budget[p->nbudgets++] = b;
		return 0;
	}
	case A_ALLOW:
		if (audit_parse_allow(arg, p, "--allow") != 0) {
			usage_error("bad --allow \"%s\"", arg);
			return -1;
		}
		return 0;
	case A_POLICY:
		x->policy = arg;
		return 0;
	case A_BASELINE:
		p->baseline = arg;
		return 0;
	case A_BASELINE_FROM:
		p->baseline_from = arg;
		return 0;
	case A_RUN:
		x->run = arg;
		return 0;
	case A_JUNIT:
		x->junit_path = arg;
		return 0;
	case A_WRITE_BASELINE:
		x->write_path = arg;
		return 0;
	default: /* A_GITHUB */
		x->github = true;
		return 0;
	}
}

static void audit_init(void *state, struct cmd_opts *co)
{
	struct audit_args *x = state;
	x->p.max_rt = x->p.max_rfq = x->p.max_pings = x->p.max_conns = x->p.min_pages = -1;
	x->run = "latest";
	x->co = co; /* the route patterns must exist before the options name them */
}

/* What is judged, into d: a stored run, or capture files analysed into a
 * (*analysed then).  EXIT_OK, EXIT_USAGE or AUDIT_INPUT (said). */
static int audit_gather(const struct cmd_opts *co, const struct audit_args *x,
			const struct policy *p, const char **dbpath, struct analysis *a, bool *analysed,
			struct adata *d)
{
	/* PGRTT_DB, the team's store, when --db is not given: the run to audit
	 * without capture files, the history of --baseline-from with them */
	if (!*dbpath && getenv("PGRTT_DB") && (co->nrest == 0 || p->baseline_from))
		*dbpath = getenv("PGRTT_DB");
	/* capture files with --db: the store is only --baseline-from's history */
	if (*dbpath && !(co->nrest && p->baseline_from)) {
		if (co->nrest) {
			usage_error("give capture files or --db, not both (with --baseline-from, --db "
				    "is the history it reads)");
			return EXIT_USAGE;
		}
		int r = from_db(*dbpath, x->run, &co->db, d);
		return r == 0 ? EXIT_OK : r == -2 ? EXIT_USAGE : AUDIT_INPUT;
	}
	struct read_opts ro = co->ro;
	if (co->db.app || co->db.nlabels) {
		usage_error("--app and --label pick a stored run: give --db (or PGRTT_DB)");
		return EXIT_USAGE;
	}
	if (co->nrest == 0) {
		usage_error("no capture file given");
		return EXIT_USAGE;
	}
	for (int i = 0; i < co->nrest; i++)
		ro.files[ro.nfiles++] = co->rest[i];
	/* budgets' patterns also name the routes */
	for (int b = 0; b < p->nbudgets; b++) {
		char e[160];
		route_add_pattern(ro.routes, p->budget_route[b], e, sizeof e);
	}
	struct analysis_opts ao = {0};
	bool partial;
	int rc = run_analysis(&ro, &ao, a, &partial);
	*analysed = true;
	if (rc == EXIT_ERROR && analysis_counts(a)->packets == 0 && !partial)
		return AUDIT_INPUT; /* nothing could be read */
	return from_analysis(a, partial || rc != EXIT_OK, d) == 0 ? EXIT_OK : AUDIT_INPUT;
}

/* The rules, into cs; *fatal when nothing usable was measured (with
 * nothing measured, every rule would pass on zeros).  EXIT_OK, EXIT_USAGE
 * or AUDIT_INPUT. */
static int audit_check(struct checks *cs, struct adata *d, const struct policy *p,
		       const char *dbpath, const char *write_path, bool *fatal)
{
	*fatal = audit_evidence_checks(cs, d, p);
	int nevidence = cs->n;
	if (*fatal)
		return EXIT_OK;
	audit_per_page(cs, d, p);
	audit_forbids(cs, d, p);
	if (audit_baseline(cs, d, p) != 0)
		return AUDIT_INPUT;
	int bf = p->baseline_from ? audit_baseline_from(cs, d, p, dbpath, d->run_id) : 0;
	if (bf != 0)
		return bf == -2 ? EXIT_USAGE : AUDIT_INPUT;
	if (cs->n == nevidence && !write_path) {
		usage_error("no rules: give --max-rt-per-page, --forbid, --policy ... (pgrtt audit "
			    "--help)");
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

static void audit_json(FILE *out, const struct checks *cs, const struct adata *d, bool fatal,
		       int failed)
{
	cJSON *root = cJSON_CreateObject();
	cJSON_AddBoolToObject(root, "passed", failed == 0);
	cJSON_AddBoolToObject(root, "measured", !fatal);
	cJSON_AddNumberToObject(root, "failures", failed);
	if (d->run_id) {
		cJSON *r = cJSON_AddObjectToObject(root, "run");
		cJSON_AddNumberToObject(r, "id", (double)d->run_id);
		esc_json_add(r, "app", d->judged.app);
		esc_json_add(r, "labels", d->judged.labels);
		esc_json_add(r, "created", d->judged.created);
		esc_json_add(r, "host", d->judged.host);
	}
	cJSON *arr = cJSON_AddArrayToObject(root, "checks");
	for (int i = 0; i < cs->n; i++) {
		cJSON *o = cJSON_CreateObject();
		esc_json_add(o, "subject", cs->c[i].cls);
		cJSON_AddStringToObject(o, "rule", cs->c[i].name);
		cJSON_AddBoolToObject(o, "ok", cs->c[i].ok);
		esc_json_add(o, "message", cs->c[i].msg);
		cJSON_AddItemToArray(arr, o);
	}
	cJSON *notes = cJSON_AddArrayToObject(root, "notes");
	for (int i = 0; i < d->ev.n; i++)
		if (d->ev.f[i].severity == EV_NOTE)
			cJSON_AddItemToArray(notes, esc_json_string(d->ev.f[i].message));
	char *t = cJSON_Print(root);
	cJSON_Delete(root);
	if (t)
		fprintf(out, "%s\n", t);
	free(t);
}

static void audit_text(FILE *out, const struct checks *cs, const struct adata *d, bool fatal)
{
	if (d->run_id) {
		char named[1024];
		fputs("audited ", out);
		esc_term(out, judged_run(d, named, sizeof named));
		fputs("\n", out);
	}
	for (int i = 0; i < cs->n; i++)
		fprintf(out, "%-4s %s: %s%s%s\n", cs->c[i].ok ? "ok" : "FAIL", cs->c[i].cls,
			strcmp(cs->c[i].cls, "evidence") == 0 ? cs->c[i].name : "",
			strcmp(cs->c[i].cls, "evidence") == 0 ? ": " : "", cs->c[i].msg);
	for (int i = 0; i < d->ev.n; i++)
		if (d->ev.f[i].severity == EV_NOTE)
			fprintf(out, "note %s: %s\n", ev_code_name(d->ev.f[i].code), d->ev.f[i].message);
	if (fatal)
		fprintf(out, "rules not checked: nothing usable was measured\n");
}

/* The judgement written (text or JSON, GitHub's annotations), then JUnit
 * and the baseline; the exit status. */
static int audit_report(const struct cmd_opts *co, const struct audit_args *x,
			const struct checks *cs, const struct adata *d, bool fatal)
{
	int failed = 0;
	for (int i = 0; i < cs->n; i++)
		failed += !cs->c[i].ok;
	FILE *out = output_open(co->output);
	if (!out)
		return AUDIT_INPUT;
	bool json = strcmp(co->format, "json") == 0;
	if (json)
		audit_json(out, cs, d, fatal, failed);
	else
		audit_text(out, cs, d, fatal);
	if (x->github) /* workflow commands: on stdout unless JSON holds it */
		github_annotations(json && !co->output ? stderr : out, cs);
	int rc = output_close(out, co->output, EXIT_OK);
	if (rc == EXIT_OK && x->junit_path && junit(x->junit_path, cs, d) != 0)
		rc = AUDIT_INPUT;
	const char *write_path = x->write_path;
	if (rc == EXIT_OK && write_path) {
		if (fatal || d->n == 0) { /* a baseline of nothing would pass anything later */
			warnx_("%s: not writing the baseline: no route was measured", write_path);
			rc = AUDIT_INPUT;
		} else if (write_baseline(write_path, d) != 0) {
			rc = AUDIT_INPUT;
		} else {
			warnx_("wrote a baseline of %d routes to %s", d->n, write_path);
		}
	}
	if (rc == EXIT_OK)
		rc = fatal ? EXIT_ERROR : failed ? EXIT_FAILED : EXIT_OK;
	return rc;
}

static int audit_run(const struct cmd_opts *co, void *state)
{
	struct audit_args *x = state;
	struct policy p = x->p;
	const char *dbpath = co->db.db;
	memcpy(p.max_page, co->page_budget, sizeof p.max_page);
	if (x->policy && audit_load_policy(x->policy, &p) != 0)
		return AUDIT_INPUT;
	/* the same file to compare with and to write: its first run has none */
	p.writes_baseline = p.baseline && x->write_path && strcmp(p.baseline, x->write_path) == 0;
	struct adata d = {0};
	static struct analysis *a; /* for the process' life, as the analysis' tables are */
	if (!a && !(a = analysis_new())) {
		warnx_("out of memory");
		return EXIT_ERROR;
	}
	bool analysed = false, fatal = false;
	struct checks cs = {0};
	int rc = audit_gather(co, x, &p, &dbpath, a, &analysed, &d);
	if (rc == EXIT_OK)
		rc = audit_check(&cs, &d, &p, dbpath, x->write_path, &fatal);
	if (rc == EXIT_OK)
		rc = audit_report(co, x, &cs, &d, fatal);
	free(cs.c);
	free(d.r);
	if (analysed)
		analysis_free(a);
	return rc;
}

static const char *const formats[] = {"text", "json", NULL};
static const struct opt_extra own[] = {
	{"max-rt-per-page", 0, true, A_MAX_RT},
	{"max-rfq-per-page", 0, true, A_MAX_RFQ},
	{"max-pings-per-page", 0, true, A_MAX_PINGS},
	{"max-connections-per-page", 0, true, A_MAX_CONNS},
	{"min-pages", 0, true, A_MIN_PAGES},
	{"max-increase", 0, true, A_MAX_INCREASE},
	{"forbid", 0, true, A_FORBID},
	{"route", 0, true, A_ROUTE},
	{"allow", 0, true, A_ALLOW},
	{"policy", 0, true, A_POLICY},
	{"baseline", 0, true, A_BASELINE},
	{"baseline-from", 0, true, A_BASELINE_FROM},
	{"run", 0, true, A_RUN},
	{"junit", 0, true, A_JUNIT},
	{"write-baseline", 0, true, A_WRITE_BASELINE},
	{"github", 0, false, A_GITHUB},
	{NULL, 0, false, 0},
};

const struct command cmd_audit = {
	.name = "audit",
	.summary = "CI gate: exit 1 when pages cost too many round trips or pools ping",
	.help = help,
	.groups = OPTG_READ | OPTG_INPUT | OPTG_TLS | OPTG_PORTS | OPTG_PROTO_PORTS | OPTG_PAGES | OPTG_LIMITS |
		  OPTG_OUTPUT | OPTG_FORMAT | OPTG_DB_READ | OPTG_DB_PICK | OPTG_BUDGETS,
	.formats = formats,
	.own = own,
	.own_opt = audit_opt,
	.state_size = sizeof(struct audit_args),
	.init = audit_init,
	.run = audit_run,
};
