#define _DEFAULT_SOURCE
/* cmd_audit.c - pgrtt audit: a CI gate on round trips per page and pings.
 * Exit 0 when every rule passes, 1 when one fails, 2 for bad usage or input. */
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

#define AUDIT_INPUT EXIT_ERROR /* input unusable: capture, run, policy, baseline */
#define MAX_BUDGETS 64

struct adata {
	struct route_figures *r; /* routes with pages: figures per page */
	int n;
	double pages;
	uint64_t acq, rel, idle, returned_in_tx;
	bool http;                 /* HTTP ports were given: pages could be seen */
	uint64_t pages_mixed_only; /* pages of routes that had only mixed pages */
	int64_t run_id;            /* audited from the store: its run (0: capture files) */
	struct run_figures judged; /* ... its app, labels, time and host, to name it */
	struct evidence ev;
};

struct policy {
	double max_rt, max_rfq, max_pings, max_conns, min_pages, max_increase;
	double max_redis_rt, max_redis_cmds; /* Redis per page (--redis-port) */
	bool forbid_ping, forbid_acq, forbid_rel, forbid_returned;
	bool allow[EV_NCODES]; /* findings that do not fail the gate */
	int nbudgets;
	char budget_route[MAX_BUDGETS][ROUTE_MAX];
	double budget[MAX_BUDGETS];
	const char *baseline;
	const char *baseline_from; /* a stored run, by app and labels */
	bool writes_baseline; /* --write-baseline names the baseline file itself */
};

struct check {
	char cls[ROUTE_MAX], name[64], msg[EV_MSG_MAX + 32]; /* a finding's, and "(allowed)" */
	bool ok;
};

struct checks {
	struct check *c;
	int n, cap;
};

static void help(FILE *out)
{
	fprintf(out, "Usage: pgrtt audit [RULES] [--http-port PORT] [-p PORT] [--redis-port PORT] FILE...\n"
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
	      "      --max-redis-rt-per-page N  Redis round trips per page (--redis-port)\n"
	      "      --max-redis-cmds-per-page N  Redis commands per page (--redis-port)\n"
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
	      "Input: capture files (FILE or -r FILE) with -p, --http-port, -f, --grace,\n"
	      "--route-values, --no-progress as 'analyze'; or --db FILE|URI: the newest run of\n"
	      "--app NAME with every --label KEY=VALUE (a store of one app needs no --app), or\n"
	      "--run N; the run judged is named first.\n"
	      "Output: -F json, -o FILE (the report to FILE), --junit FILE (JUnit XML),\n"
	      "--github (::error:: annotations; on standard error when JSON is on standard\n"
	      "output), --write-baseline FILE (also write the measured routes as a baseline).\n"
	      "Exit status: 0 every rule and the evidence hold, 1 one failed, 2 the input\n"
	      "could not be used (or nothing usable was measured), 64 usage error.\n",
	      ev_code_list());
}

/* ---------------------------------------------------------------------- */

static int add_check(struct checks *cs, const char *cls, const char *name, bool ok,
		     const char *fmt, ...) __attribute__((format(printf, 5, 6)));


static int add_check(struct checks *cs, const char *cls, const char *name, bool ok,
		     const char *fmt, ...)
{
	if (cs->n == cs->cap) {
		int c = cs->cap ? cs->cap * 2 : 32;
		struct check *x = realloc(cs->c, (size_t)c * sizeof(*x));
		if (!x)
			return -1;
		cs->c = x;
		cs->cap = c;
	}
	struct check *k = &cs->c[cs->n++];
	snprintf(k->cls, sizeof k->cls, "%s", cls);
	snprintf(k->name, sizeof k->name, "%s", name);
	k->ok = ok;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(k->msg, sizeof k->msg, fmt, ap);
	va_end(ap);
	return 0;
}

static const char *PINGS_DOC = "see docs/pools.md for what each pool sends and the setting";

/* Redis per page: not measured (no --redis-port) is no evidence, and fails;
 * estimated where pages of several routes held the commands, it is judged
 * by its 95% interval as the round trips are (failed only when the whole
 * interval is over the budget), and fails where there is none (a stored
 * run keeps none). */
static void redis_rules(struct checks *cs, const struct route_figures *r, const struct policy *p)
{
	const struct {
		double limit, v, lo, hi;
		const char *name, *what;
	} rules[] = {
		{p->max_redis_rt, r->redis_rt, r->redis_rt_lo, r->redis_rt_hi,
		 "redis-round-trips-per-page", "Redis round trips"},
		{p->max_redis_cmds, r->redis_cmds, r->redis_cmds_lo, r->redis_cmds_hi,
		 "redis-commands-per-page", "Redis commands"},
	};
	for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
		double limit = rules[i].limit, v = rules[i].v;
		if (limit < 0)
			continue;
		if (isnan(v))
			add_check(cs, r->route, rules[i].name, false,
				  "%s per page not measured: analyse with --redis-port", rules[i].what);
		else if (strstr(r->attribution, "estimated") && !isnan(rules[i].lo)) {
			double lo = rules[i].lo, hi = rules[i].hi;
			bool over = lo > limit + 1e-9, under = hi <= limit + 1e-9;
			add_check(cs, r->route, rules[i].name, !over,
				  "%.2f %s per page, estimated (95%% interval %.2f-%.2f) %s budget %g%s",
				  v, rules[i].what, lo, hi,
				  over ? "wholly over" : under ? "within" : "straddles", limit,
				  over || under ? "" : ": not failed, the estimate cannot tell "
						       "(measure the route alone to know)");
		} else if (strstr(r->attribution, "estimated"))
			add_check(cs, r->route, rules[i].name, false,
				  "%.2f %s per page, estimated: pages of other routes held them, "
				  "and no interval is kept with a stored run; audit the capture",
				  v, rules[i].what);
		else
			add_check(cs, r->route, rules[i].name, v <= limit + 1e-9, "%.2f %s per page %s %g",
				  v, rules[i].what, v <= limit + 1e-9 ? "<=" : ">", limit);
	}
}

/* The fatal finding allowed by name (--allow), or NULL: rules on what was
 * not measured then pass, saying so (docs/ci.md) */
static const char *fatal_allowed(const struct adata *d, const struct policy *p)
{
	for (int k = 0; k < d->ev.n; k++)
		if (d->ev.f[k].severity == EV_FATAL && p->allow[d->ev.f[k].code])
			return ev_code_name(d->ev.f[k].code);
	return NULL;
}

static void per_page(struct checks *cs, const struct adata *d, const struct policy *p)
{
	bool any = p->max_rt >= 0 || p->max_rfq >= 0 || p->max_pings >= 0 || p->max_conns >= 0 ||
		   p->max_redis_rt >= 0 || p->max_redis_cmds >= 0 || p->nbudgets;
	if (any && d->n == 0) {
		if (!d->http)
			add_check(cs, "pages", "pages-seen", false,
				  "no pages: per-page rules need HTTP pages (give --http-port)");
		else if (d->pages_mixed_only)
			add_check(cs, "pages", "pages-seen", false,
				  "no per-route figure: every page (%llu) overlapped pages of other "
				  "routes; load one route at a time to measure each",
				  (unsigned long long)d->pages_mixed_only);
		else
			add_check(cs, "pages", "pages-seen", false,
				  "no pages: no complete HTTP request and response on the HTTP port");
		return;
	}
	for (int i = 0; i < d->n; i++) {
		const struct route_figures *r = &d->r[i];
		double rt = r->rt, pings = r->ping, acq = r->acq, rel = r->rel;
		if (isnan(rt)) {
			/* PostgreSQL not measured (a fatal finding: analysis_pg_measured):
			 * no figure to hold a rule to, and none shown as 0.  Passed
			 * only where that finding was allowed by name (the rules then
			 * run on nothing, as docs/ci.md says) */
			const char *allowed = fatal_allowed(d, p);
			if (p->max_rt >= 0 || p->nbudgets || p->max_rfq >= 0 || p->max_pings >= 0 ||
			    p->max_conns >= 0)
				add_check(cs, r->route, "round-trips-per-page", allowed != NULL,
					  "round trips per page not measured (the run measured no "
					  "PostgreSQL: %s%s)",
					  allowed ? allowed : "see its warnings", allowed ? " allowed" : "");
			redis_rules(cs, r, p);
			continue;
		}
		double limit = p->max_rt;
		for (int b = 0; b < p->nbudgets; b++) {
			const char *bn = p->budget_route[b];
			const char *sp = strchr(r->route, ' ');
			if (strcmp(bn, r->route) == 0 || (bn[0] == '/' && sp && strcmp(bn, sp + 1) == 0))
				limit = p->budget[b];
		}
		bool estimated = strstr(r->attribution, "estimated") != NULL;
		if (limit >= 0 && estimated) {
			/* an estimate fails a budget only when its whole interval is
			 * over it; one that straddles it is not proof either way */
			bool over = r->rt_lo > limit + 1e-9, under = r->rt_hi <= limit + 1e-9;
			add_check(cs, r->route, "round-trips-per-page", !over,
				  "%.2f round trips per page, estimated (%.0f%% inferred; 95%% "
				  "interval %.2f-%.2f) %s budget %g%s",
				  rt, 100 * r->inferred, r->rt_lo, r->rt_hi,
				  over ? "wholly over" : under ? "within" : "straddles", limit,
				  over ? "" : under ? "" : ": not failed, the estimate cannot tell "
							  "(measure the route alone to know)");
		} else if (limit >= 0) {
			bool ok = rt <= limit + 1e-9;
			if (ok)
				add_check(cs, r->route, "round-trips-per-page", true, "%.2f <= %g", rt, limit);
			else
				add_check(cs, r->route, "round-trips-per-page", false,
					  "%.2f round trips per page > budget %g (%.2f pings per page: "
					  "acquire %.2f, release %.2f)%s%s",
					  rt, limit, pings, acq, rel, pings > 0 ? "; " : "",
					  pings > 0 ? PINGS_DOC : "");
		}
		if (p->max_rfq >= 0) {
			double v = r->rfq;
			add_check(cs, r->route, "ready-for-query-per-page", v <= p->max_rfq + 1e-9,
				  "%.2f ReadyForQuery per page %s %g", v, v <= p->max_rfq + 1e-9 ? "<=" : ">",
				  p->max_rfq);
		}
		if (p->max_pings >= 0)
			add_check(cs, r->route, "pings-per-page", pings <= p->max_pings + 1e-9,
				  "%.2f pings per page (acquire %.2f, release %.2f) %s %g%s%s", pings, acq,
				  rel, pings <= p->max_pings + 1e-9 ? "<=" : ">", p->max_pings,
				  pings > p->max_pings + 1e-9 ? "; " : "",
				  pings > p->max_pings + 1e-9 ? PINGS_DOC : "");
		redis_rules(cs, r, p);
		if (p->max_conns >= 0 && isnan(r->conns)) {
			add_check(cs, r->route, "connections-per-page", false,
				  "connections per page not measured: every page overlapped pages of "
				  "other routes (estimated figures); measure the route alone");
		} else if (p->max_conns >= 0) {
			double v = r->conns;
			bool ok = v <= p->max_conns + 1e-9;
			add_check(cs, r->route, "connections-per-page", ok,
				  "%.2f PostgreSQL connections per page %s %g%s", v, ok ? "<=" : ">",
				  p->max_conns,
				  ok ? "" : ": a checkout per query, not per request (pass one connection "
					    "through the request)");
		}
	}
}

static void forbids(struct checks *cs, const struct adata *d, const struct policy *p)
{
	if (p->forbid_ping || p->forbid_acq)
		add_check(cs, "pings", "no-acquire-pings", d->acq == 0,
			  d->acq ? "acquire pings present (%llu): the pool pings on every checkout "
				   "(sqlx test_before_acquire, SQLAlchemy pool_pre_ping, bb8 "
				   "test_on_check_out, HikariCP aliveBypassWindowMs); see docs/pools.md"
				 : "no acquire pings (%llu)",
			  (unsigned long long)d->acq);
	if (p->forbid_ping || p->forbid_rel)
		add_check(cs, "pings", "no-release-pings", d->rel == 0,
			  d->rel ? "release pings present (%llu): the pool pings connections given "
				   "back (sqlx always does, in PoolConnection's drop); see docs/pools.md"
				 : "no release pings (%llu)",
			  (unsigned long long)d->rel);
	if (p->forbid_ping)
		add_check(cs, "pings", "no-idle-pings", d->idle == 0,
			  d->idle ? "idle pings present (%llu): keepalive or idle checks; see "
				    "docs/pools.md"
				  : "no idle pings (%llu)",
			  (unsigned long long)d->idle);
	if (p->forbid_returned)
		add_check(cs, "connections", "not-returned-in-transaction", d->returned_in_tx == 0,
			  d->returned_in_tx
				  ? "%llu connections went back to the pool inside a transaction: a "
				    "transaction neither committed nor rolled back (a dropped sqlx "
				    "Transaction, a missing commit)"
				  : "no connection returned inside a transaction (%llu)",
			  (unsigned long long)d->returned_in_tx);
	if (p->min_pages >= 0)
		add_check(cs, "pages", "min-pages", d->pages >= p->min_pages,
			  "%.0f pages %s %g%s", d->pages, d->pages >= p->min_pages ? ">=" : "<",
			  p->min_pages,
			  d->pages >= p->min_pages ? "" : " (a per-page gate on too few pages proves nothing)");
}

/* One check per finding; notes only inform.  Returns true when a fatal
 * finding was not allowed: nothing usable was measured. */
static bool evidence_checks(struct checks *cs, const struct adata *d, const struct policy *p)
{
	bool fatal = false;
	for (int i = 0; i < d->ev.n; i++) {
		const struct ev_finding *f = &d->ev.f[i];
		if (f->severity == EV_NOTE)
			continue;
		bool allowed = p->allow[f->code];
		fatal |= f->severity == EV_FATAL && !allowed;
		add_check(cs, "evidence", ev_code_name(f->code), allowed, "%s%s", f->message,
			  allowed ? " (allowed)" : "");
	}
	return fatal;
}

static int parse_allow(const char *list, struct policy *p, const char *where)
{
	char buf[512];
	snprintf(buf, sizeof buf, "%s", list);
	for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int c = ev_code_parse(t);
		if (c < 0) {
			warnx_("%s: unknown finding \"%s\" (%s)", where, t, ev_code_list());
			return -1;
		}
		p->allow[c] = true;
	}
	return 0;
}

/* Each measured route against its figure in routes ({route: round trips
 * per page}); a route new since has nothing to compare with.  from: where
 * the baseline came from, for the message ("" a file). */
static void compare_baseline(struct checks *cs, const struct adata *d, const struct policy *p,
			     const cJSON *routes, const char *from)
{
	for (int i = 0; i < d->n; i++) {
		const struct route_figures *r = &d->r[i];
		cJSON *b = cJSON_GetObjectItemCaseSensitive(routes, r->route);
		if (!cJSON_IsNumber(b) || isnan(b->valuedouble))
			continue; /* a new route (or one its baseline did not measure): nothing to compare with */
		double was = b->valuedouble, now = r->rt;
		if (isnan(now)) {
			const char *allowed = fatal_allowed(d, p);
			add_check(cs, r->route, "baseline", allowed != NULL,
				  "round trips per page not measured (the run measured no PostgreSQL: "
				  "%s%s), baseline %.2f%s",
				  allowed ? allowed : "see its warnings", allowed ? " allowed" : "", was, from);
			continue;
		}
		bool ok = now <= was + p->max_increase + 1e-9;
		add_check(cs, r->route, "baseline", ok,
			  "%.2f round trips per page, baseline %.2f%s (%+.2f, allowed +%g)%s", now, was,
			  from, now - was, p->max_increase,
			  ok ? "" : ": a new query, a lost statement cache or a pool setting; compare "
				    "with pgrtt trace");
	}
}

/* --baseline-from 'app=shop,branch=main[,last]': the baseline is the last
 * stored run with that app and those labels (not the run being audited).
 * 0, or -1 after a one-line error. */
static int baseline_from(struct checks *cs, const struct adata *d, const struct policy *p,
			 const char *dbpath, int64_t audited)
{
	char spec[1024], *apps[1], *labels[32];
	int napps = 0, nlabels = 0;
	snprintf(spec, sizeof spec, "%s", p->baseline_from);
	for (char *save = NULL, *t = strtok_r(spec, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (strcmp(t, "last") == 0)
			continue; /* the only choice so far, and the default */
		if (!strchr(t, '=') || t[0] == '=') {
			usage_error("--baseline-from: \"%s\" is not KEY=VALUE (app=NAME, a label, last)", t);
			return -2;
		}
		if (strncmp(t, "app=", 4) == 0 && napps == 0)
			apps[napps++] = t + 4;
		else if (nlabels < 32)
			labels[nlabels++] = t;
	}
	if (!dbpath) {
		usage_error("--baseline-from picks a stored run: give --db FILE");
		return -2;
	}
	struct store *s = open_db(dbpath, STORE_READ);
	if (!s)
		return -1;
	struct route_query q = {apps, napps, labels, nlabels, NULL, 0, false};
	struct run_figures *runs = NULL;
	int n = 0, rc = -1;
	char err[STORE_ERRBUF];
	if (store_runs(s, &q, &runs, &n, err) != 0) {
		warnx_("%s: %s", store_shown(dbpath), err);
		goto out;
	}
	int64_t id = 0;
	for (int i = 0; i < n; i++)
		if (runs[i].run != audited && runs[i].run > id && runs[i].routes > 0 &&
		    runs[i].measured) /* a run that measured nothing is no baseline */
			id = runs[i].run;
	if (!id) {
		warnx_("%s: no stored run with measured pages matches --baseline-from \"%s\"%s",
		       store_shown(dbpath),
		       p->baseline_from, audited ? " (besides the run audited)" : "");
		goto out;
	}
	long long want = id;
	struct route_query rq = {NULL, 0, NULL, 0, &want, 1, false};
	struct route_figures *rows = NULL;
	int nrows = 0;
	if (store_routes(s, &rq, &rows, &nrows, err) != 0) {
		warnx_("%s: %s", store_shown(dbpath), err);
		goto out;
	}
	cJSON *routes = cJSON_CreateObject();
	for (int i = 0; i < nrows && routes; i++)
		cJSON_AddNumberToObject(routes, rows[i].route, rows[i].rt);
	char from[64];
	snprintf(from, sizeof from, " of run %" PRId64, id);
	if (routes) {
		compare_baseline(cs, d, p, routes, from);
		rc = 0;
	}
	cJSON_Delete(routes);
	free(rows);
out:
	free(runs);
	store_close(s);
	return rc;
}

static int baseline(struct checks *cs, const struct adata *d, const struct policy *p)
{
	if (!p->baseline)
		return 0;
	FILE *f = fopen(p->baseline, "rb");
	if (!f && errno == ENOENT && p->writes_baseline) {
		/* the first run: nothing to compare with yet, and this run writes it */
		warnx_("%s: no baseline yet: this run writes it (--write-baseline)", p->baseline);
		return 0;
	}
	if (!f) {
		warnx_("%s: cannot read the baseline: %s%s", p->baseline, strerror(errno),
		       errno == ENOENT ? " (write one with --write-baseline FILE)" : "");
		return -1;
	}
	static char buf[1 << 20];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	cJSON *root = cJSON_Parse(buf);
	cJSON *routes = cJSON_GetObjectItemCaseSensitive(root, "routes");
	if (!cJSON_IsObject(routes)) {
		warnx_("%s: not a pgrtt baseline (no \"routes\" object)", p->baseline);
		cJSON_Delete(root);
		return -1;
	}
	compare_baseline(cs, d, p, routes, "");
	cJSON_Delete(root);
	return 0;
}

/* ---------------------------------------------------------------------- */

static int load_policy(const char *path, struct policy *p)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		warnx_("%s: cannot read the policy", path);
		return -1;
	}
	static char buf[1 << 16];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	cJSON *root = cJSON_Parse(buf);
	if (!cJSON_IsObject(root)) {
		warnx_("%s: not a JSON object", path);
		cJSON_Delete(root);
		return -1;
	}
	static const struct {
		const char *key;
		size_t off;
	} nums[] = {
		{"max_rt_per_page", offsetof(struct policy, max_rt)},
		{"max_rfq_per_page", offsetof(struct policy, max_rfq)},
		{"max_pings_per_page", offsetof(struct policy, max_pings)},
		{"max_connections_per_page", offsetof(struct policy, max_conns)},
		{"max_redis_rt_per_page", offsetof(struct policy, max_redis_rt)},
		{"max_redis_cmds_per_page", offsetof(struct policy, max_redis_cmds)},
		{"min_pages", offsetof(struct policy, min_pages)},
		{"max_increase", offsetof(struct policy, max_increase)},
	};
	int rc = 0;
	for (cJSON *it = root->child; it && rc == 0; it = it->next) {
		bool known = false;
		for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
			if (strcmp(it->string, nums[i].key) == 0) {
				known = true;
				if (!cJSON_IsNumber(it) || it->valuedouble < 0) {
					warnx_("%s: rule \"%s\": expected a number >= 0", path, it->string);
					rc = -1;
				} else {
					*(double *)((char *)p + nums[i].off) = it->valuedouble;
				}
			}
		}
		if (known)
			continue;
		if (strcmp(it->string, "forbid") == 0) {
			if (!cJSON_IsArray(it)) {
				warnx_("%s: rule \"forbid\": expected an array of strings", path);
				rc = -1;
			}
			for (cJSON *x = it->child; x && rc == 0; x = x->next) {
				const char *v = cJSON_IsString(x) ? x->valuestring : "";
				if (strcmp(v, "ping") == 0)
					p->forbid_ping = true;
				else if (strcmp(v, "acquire-ping") == 0)
					p->forbid_acq = true;
				else if (strcmp(v, "release-ping") == 0)
					p->forbid_rel = true;
				else if (strcmp(v, "returned-in-transaction") == 0)
					p->forbid_returned = true;
				else {
					warnx_("%s: forbid: unknown \"%s\" (ping, acquire-ping, release-ping, "
					       "returned-in-transaction)",
					       path, v);
					rc = -1;
				}
			}
		} else if (strcmp(it->string, "routes") == 0) {
			if (!cJSON_IsObject(it)) {
				warnx_("%s: rule \"routes\": expected an object of route: number", path);
				rc = -1;
			}
			for (cJSON *x = it->child; x && rc == 0; x = x->next) {
				if (!cJSON_IsNumber(x) || p->nbudgets == MAX_BUDGETS) {
					warnx_("%s: routes: \"%s\": expected a number", path, x->string);
					rc = -1;
					break;
				}
				snprintf(p->budget_route[p->nbudgets], ROUTE_MAX, "%s", x->string);
				p->budget[p->nbudgets++] = x->valuedouble;
			}
		} else if (strcmp(it->string, "allow") == 0) {
			if (!cJSON_IsArray(it)) {
				warnx_("%s: \"allow\": expected an array of finding names", path);
				rc = -1;
			}
			for (cJSON *x = it->child; x && rc == 0; x = x->next)
				rc = parse_allow(cJSON_IsString(x) ? x->valuestring : "?", p, path);
		} else if (strcmp(it->string, "baseline") == 0) {
			if (!cJSON_IsString(it)) {
				warnx_("%s: rule \"baseline\": expected a file name", path);
				rc = -1;
			} else {
				static char path_buf[4096]; /* one policy per run */
				snprintf(path_buf, sizeof path_buf, "%s", it->valuestring);
				p->baseline = path_buf;
			}
		} else if (strcmp(it->string, "baseline_from") == 0) {
			if (!cJSON_IsString(it)) {
				warnx_("%s: rule \"baseline_from\": expected \"app=NAME,KEY=VALUE\"", path);
				rc = -1;
			} else {
				static char sel_buf[1024];
				snprintf(sel_buf, sizeof sel_buf, "%s", it->valuestring);
				p->baseline_from = sel_buf;
			}
		} else {
			warnx_("%s: unknown rule \"%s\" (docs/ci.md lists them)", path, it->string);
			rc = -1;
		}
	}
	cJSON_Delete(root);
	return rc;
}

/* ---------------------------------------------------------------------- */

static int from_analysis(const struct analysis *a, bool partial, struct adata *d)
{
	const struct attrib *at = &a->attrib;
	struct report_input in = {NULL, 0, partial, NULL};
	evidence_of(a, &in, &d->ev);
	d->http = a->attributing;
	d->r = calloc(at->nroutes ? at->nroutes : 1, sizeof(*d->r));
	if (!d->r)
		return -1;
	for (uint32_t i = 0; a->attributing && i < at->nroutes; i++) {
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
		x->redis_rt = analysis_redis_measured(a) ? r->redis_rt / n : NAN;
		x->redis_cmds = analysis_redis_measured(a) ? r->redis_cmds / n : NAN;
		double rrt[2], rcm[2];
		route_redis_interval(r, rrt, rcm); /* NAN where none */
		x->redis_rt_lo = rrt[0];
		x->redis_rt_hi = rrt[1];
		x->redis_cmds_lo = rcm[0];
		x->redis_cmds_hi = rcm[1];
		d->pages += n;
	}
	d->acq = a->tot.st.pings[PING_ACQUIRE];
	d->rel = a->tot.st.pings[PING_RELEASE];
	d->idle = a->tot.st.pings[PING_IDLE];
	d->returned_in_tx = a->tot.st.returned_in_tx;
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
	A_MAX_REDIS_RT, A_MAX_REDIS_CMDS, A_BASELINE_FROM,
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
		[A_MAX_REDIS_RT] = "--max-redis-rt-per-page",
		[A_MAX_REDIS_CMDS] = "--max-redis-cmds-per-page",
	};
	double *nums[] = {[A_MAX_RT] = &p->max_rt,        [A_MAX_RFQ] = &p->max_rfq,
			  [A_MAX_PINGS] = &p->max_pings,  [A_MAX_CONNS] = &p->max_conns,
			  [A_MIN_PAGES] = &p->min_pages,  [A_MAX_INCREASE] = &p->max_increase,
			  [A_MAX_REDIS_RT] = &p->max_redis_rt, [A_MAX_REDIS_CMDS] = &p->max_redis_cmds};
	switch (id) {
	case A_MAX_RT:
	case A_MAX_RFQ:
	case A_MAX_PINGS:
	case A_MAX_CONNS:
	case A_MIN_PAGES:
	case A_MAX_INCREASE:
	case A_MAX_REDIS_RT:
	case A_MAX_REDIS_CMDS:
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
		if (parse_allow(arg, p, "--allow") != 0) {
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

int cmd_audit(int argc, char **argv)
{
	static const char *const formats[] = {"text", "json", NULL};
	static const struct opt_extra own[] = {
		{"max-rt-per-page", 0, true, A_MAX_RT},
		{"max-rfq-per-page", 0, true, A_MAX_RFQ},
		{"max-pings-per-page", 0, true, A_MAX_PINGS},
		{"max-connections-per-page", 0, true, A_MAX_CONNS},
		{"max-redis-rt-per-page", 0, true, A_MAX_REDIS_RT},
		{"max-redis-cmds-per-page", 0, true, A_MAX_REDIS_CMDS},
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
	static struct cmd_opts co;
	static struct audit_args x;
	memset(&x, 0, sizeof x);
	x.p.max_rt = x.p.max_rfq = x.p.max_pings = x.p.max_conns = x.p.min_pages = -1;
	x.p.max_redis_rt = x.p.max_redis_cmds = -1;
	x.run = "latest";
	x.co = &co;
	/* the route patterns must exist before the options name them */
	int pr = opts_parse(argc, argv,
			    OPTG_READ | OPTG_INPUT | OPTG_PORTS | OPTG_REDIS | OPTG_PAGES | OPTG_LIMITS |
				    OPTG_OUTPUT | OPTG_FORMAT | OPTG_DB_READ | OPTG_DB_PICK,
			    formats, own, audit_opt, &x, &co);
	if (pr > 0) {
		help(stdout);
		return EXIT_OK;
	}
	if (pr < 0)
		return EXIT_USAGE;
	struct policy p = x.p;
	const char *policy = x.policy, *dbpath = co.db.db, *run = x.run, *junit_path = x.junit_path,
		   *write_path = x.write_path, *format = co.format, *output = co.output;
	bool github = x.github;
	if (policy && load_policy(policy, &p) != 0)
		return AUDIT_INPUT;
	/* the same file to compare with and to write: its first run has none */
	p.writes_baseline = p.baseline && write_path && strcmp(p.baseline, write_path) == 0;

	struct adata d = {0};
	static struct analysis a;
	bool analysed = false;
	/* PGRTT_DB, the team's store, when --db is not given: the run to audit
	 * without capture files, the history of --baseline-from with them */
	if (!dbpath && getenv("PGRTT_DB") && (co.nrest == 0 || p.baseline_from))
		dbpath = getenv("PGRTT_DB");
	/* capture files with --db: the store is only --baseline-from's history */
	if (dbpath && !(co.nrest && p.baseline_from)) {
		if (co.nrest) {
			usage_error("give capture files or --db, not both (with --baseline-from, --db "
				    "is the history it reads)");
			return EXIT_USAGE;
		}
		int r = from_db(dbpath, run, &co.db, &d);
		if (r != 0) {
			free(d.r);
			return r == -2 ? EXIT_USAGE : AUDIT_INPUT;
		}
	} else {
		struct read_opts ro = co.ro;
		if (co.db.app || co.db.nlabels) {
			usage_error("--app and --label pick a stored run: give --db (or PGRTT_DB)");
			return EXIT_USAGE;
		}
		if (co.nrest == 0) {
			usage_error("no capture file given");
			return EXIT_USAGE;
		}
		for (int i = 0; i < co.nrest; i++)
			ro.files[ro.nfiles++] = co.rest[i];
		/* budgets' patterns also name the routes */
		for (int b = 0; b < p.nbudgets; b++) {
			char e[160];
			route_add_pattern(ro.routes, p.budget_route[b], e, sizeof e);
		}
		struct analysis_opts ao = {0};
		bool partial;
		int rc = run_analysis(&ro, &ao, &a, &partial);
		analysed = true;
		if (rc == EXIT_ERROR && a.tot.packets == 0 && !partial) {
			analysis_free(&a);
			return AUDIT_INPUT; /* nothing could be read */
		}
		if (from_analysis(&a, partial || rc != EXIT_OK, &d) != 0) {
			analysis_free(&a);
			return AUDIT_INPUT;
		}
	}

	int rc = EXIT_OK;
	struct checks cs = {0};
	bool fatal = evidence_checks(&cs, &d, &p);
	int nevidence = cs.n;
	if (!fatal) { /* with nothing measured, every rule would pass on zeros */
		per_page(&cs, &d, &p);
		forbids(&cs, &d, &p);
		if (baseline(&cs, &d, &p) != 0) {
			rc = AUDIT_INPUT;
			goto done;
		}
		int bf = p.baseline_from ? baseline_from(&cs, &d, &p, dbpath, d.run_id) : 0;
		if (bf != 0) {
			rc = bf == -2 ? EXIT_USAGE : AUDIT_INPUT;
			goto done;
		}
		if (cs.n == nevidence && !write_path) {
			usage_error("no rules: give --max-rt-per-page, --forbid, --policy ... (pgrtt audit "
				    "--help)");
			rc = EXIT_USAGE;
			goto done;
		}
	}
	int failed = 0;
	for (int i = 0; i < cs.n; i++)
		failed += !cs.c[i].ok;
	FILE *out = output_open(output);
	if (!out) {
		rc = AUDIT_INPUT;
		goto done;
	}
	bool json = strcmp(format, "json") == 0;
	if (json) {
		cJSON *root = cJSON_CreateObject();
		cJSON_AddBoolToObject(root, "passed", failed == 0);
		cJSON_AddBoolToObject(root, "measured", !fatal);
		cJSON_AddNumberToObject(root, "failures", failed);
		if (d.run_id) {
			cJSON *r = cJSON_AddObjectToObject(root, "run");
			cJSON_AddNumberToObject(r, "id", (double)d.run_id);
			esc_json_add(r, "app", d.judged.app);
			esc_json_add(r, "labels", d.judged.labels);
			esc_json_add(r, "created", d.judged.created);
			esc_json_add(r, "host", d.judged.host);
		}
		cJSON *arr = cJSON_AddArrayToObject(root, "checks");
		for (int i = 0; i < cs.n; i++) {
			cJSON *o = cJSON_CreateObject();
			esc_json_add(o, "subject", cs.c[i].cls);
			cJSON_AddStringToObject(o, "rule", cs.c[i].name);
			cJSON_AddBoolToObject(o, "ok", cs.c[i].ok);
			esc_json_add(o, "message", cs.c[i].msg);
			cJSON_AddItemToArray(arr, o);
		}
		cJSON *notes = cJSON_AddArrayToObject(root, "notes");
		for (int i = 0; i < d.ev.n; i++)
			if (d.ev.f[i].severity == EV_NOTE)
				cJSON_AddItemToArray(notes, esc_json_string(d.ev.f[i].message));
		char *t = cJSON_Print(root);
		cJSON_Delete(root);
		if (t)
			fprintf(out, "%s\n", t);
		free(t);
	} else {
		if (d.run_id) {
			char named[1024];
			fputs("audited ", out);
			esc_term(out, judged_run(&d, named, sizeof named));
			fputs("\n", out);
		}
		for (int i = 0; i < cs.n; i++)
			fprintf(out, "%-4s %s: %s%s%s\n", cs.c[i].ok ? "ok" : "FAIL", cs.c[i].cls,
				strcmp(cs.c[i].cls, "evidence") == 0 ? cs.c[i].name : "",
				strcmp(cs.c[i].cls, "evidence") == 0 ? ": " : "", cs.c[i].msg);
		for (int i = 0; i < d.ev.n; i++)
			if (d.ev.f[i].severity == EV_NOTE)
				fprintf(out, "note %s: %s\n", ev_code_name(d.ev.f[i].code), d.ev.f[i].message);
		if (fatal)
			fprintf(out, "rules not checked: nothing usable was measured\n");
	}
	if (github) /* workflow commands: on stdout unless JSON holds it */
		github_annotations(json && !output ? stderr : out, &cs);
	rc = output_close(out, output, EXIT_OK);
	if (rc == EXIT_OK && junit_path && junit(junit_path, &cs, &d) != 0)
		rc = AUDIT_INPUT;
	if (rc == EXIT_OK && write_path) {
		if (fatal || d.n == 0) { /* a baseline of nothing would pass anything later */
			warnx_("%s: not writing the baseline: no route was measured", write_path);
			rc = AUDIT_INPUT;
		} else if (write_baseline(write_path, &d) != 0) {
			rc = AUDIT_INPUT;
		} else {
			warnx_("wrote a baseline of %d routes to %s", d.n, write_path);
		}
	}
	if (rc == EXIT_OK)
		rc = fatal ? EXIT_ERROR : failed ? EXIT_FAILED : EXIT_OK;
done:
	free(cs.c);
	free(d.r);
	if (analysed)
		analysis_free(&a);
	return rc;
}
