/* audit_rules.c - pgrtt audit's rules: budgets per page, forbidden pings,
 * findings, baselines from a file or the store, the policy file (audit.h). */
#define _DEFAULT_SOURCE /* strtok_r */
#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "results.h"

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

/* The page figures' budgets (figure.h: Redis's round trips and commands per
 * page): not measured (without the protocol's ports) is no evidence, and
 * fails; estimated where pages of several routes held the commands, a
 * figure is judged by its 95% interval as the round trips are (failed only
 * when the whole interval is over the budget), and fails where there is
 * none (a stored run keeps none). */
static void page_rules(struct checks *cs, const struct route_figures *r, const struct policy *p)
{
	const struct proto_ops *proto;
	const struct page_figure *f;
	for (int i = 0; (f = analysis_page_figure(i, &proto)); i++) {
		double limit = p->max_page[i], v = r->page[i];
		if (limit < 0 || !f->rule)
			continue;
		if (isnan(v))
			add_check(cs, r->route, f->rule, false, "%s per page not measured: analyse with %s",
				  f->what, proto->port_option);
		else if (strstr(r->attribution, "estimated") && !isnan(r->page_lo[i])) {
			double lo = r->page_lo[i], hi = r->page_hi[i];
			bool over = lo > limit + 1e-9, under = hi <= limit + 1e-9;
			add_check(cs, r->route, f->rule, !over,
				  "%.2f %s per page, estimated (95%% interval %.2f-%.2f) %s budget %g%s",
				  v, f->what, lo, hi,
				  over ? "wholly over" : under ? "within" : "straddles", limit,
				  over || under ? "" : ": not failed, the estimate cannot tell "
						       "(measure the route alone to know)");
		} else if (strstr(r->attribution, "estimated"))
			add_check(cs, r->route, f->rule, false,
				  "%.2f %s per page, estimated: pages of other routes held them, "
				  "and no interval is kept with a stored run; audit the capture",
				  v, f->what);
		else
			add_check(cs, r->route, f->rule, v <= limit + 1e-9, "%.2f %s per page %s %g",
				  v, f->what, v <= limit + 1e-9 ? "<=" : ">", limit);
	}
}

/* Some page figure has a budget. */
static bool page_budgets(const struct policy *p)
{
	for (int i = 0; i < PAGE_FIGS_MAX; i++)
		if (p->max_page[i] >= 0)
			return true;
	return false;
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

void audit_per_page(struct checks *cs, const struct adata *d, const struct policy *p)
{
	bool any = p->max_rt >= 0 || p->max_rfq >= 0 || p->max_pings >= 0 || p->max_conns >= 0 ||
		   page_budgets(p) || p->nbudgets;
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
			page_rules(cs, r, p);
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
		page_rules(cs, r, p);
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

void audit_forbids(struct checks *cs, const struct adata *d, const struct policy *p)
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
bool audit_evidence_checks(struct checks *cs, const struct adata *d, const struct policy *p)
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

int audit_parse_allow(const char *list, struct policy *p, const char *where)
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
int audit_baseline_from(struct checks *cs, const struct adata *d, const struct policy *p,
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

int audit_baseline(struct checks *cs, const struct adata *d, const struct policy *p)
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

/* A policy's "forbid": the pings and habits no page may show. */
static int policy_forbid(const cJSON *it, struct policy *p, const char *path)
{
	if (!cJSON_IsArray(it)) {
		warnx_("%s: rule \"forbid\": expected an array of strings", path);
		return -1;
	}
	for (const cJSON *x = it->child; x; x = x->next) {
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
			return -1;
		}
	}
	return 0;
}

/* A policy's "routes": a budget of round trips per page for each. */
static int policy_routes(const cJSON *it, struct policy *p, const char *path)
{
	if (!cJSON_IsObject(it)) {
		warnx_("%s: rule \"routes\": expected an object of route: number", path);
		return -1;
	}
	for (const cJSON *x = it->child; x; x = x->next) {
		if (!cJSON_IsNumber(x) || p->nbudgets == MAX_BUDGETS) {
			warnx_("%s: routes: \"%s\": expected a number", path, x->string);
			return -1;
		}
		snprintf(p->budget_route[p->nbudgets], ROUTE_MAX, "%s", x->string);
		p->budget[p->nbudgets++] = x->valuedouble;
	}
	return 0;
}

/* A policy's string rule (buf keeps it: one policy per run). */
static int policy_string(const cJSON *it, const char **out, char *buf, size_t cap,
			 const char *path, const char *expected)
{
	if (!cJSON_IsString(it)) {
		warnx_("%s: rule \"%s\": expected %s", path, it->string, expected);
		return -1;
	}
	snprintf(buf, cap, "%s", it->valuestring);
	*out = buf;
	return 0;
}

/* A policy's numeric rule, if it is one: 1 set, 0 not a numeric rule, -1
 * a bad value (said). */
static int policy_number(const cJSON *it, struct policy *p, const char *path)
{
	static const struct {
		const char *key;
		size_t off;
	} nums[] = {
		{"max_rt_per_page", offsetof(struct policy, max_rt)},
		{"max_rfq_per_page", offsetof(struct policy, max_rfq)},
		{"max_pings_per_page", offsetof(struct policy, max_pings)},
		{"max_connections_per_page", offsetof(struct policy, max_conns)},
		{"min_pages", offsetof(struct policy, min_pages)},
		{"max_increase", offsetof(struct policy, max_increase)},
	};
	for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
		if (strcmp(it->string, nums[i].key) != 0)
			continue;
		if (!cJSON_IsNumber(it) || it->valuedouble < 0) {
			warnx_("%s: rule \"%s\": expected a number >= 0", path, it->string);
			return -1;
		}
		*(double *)((char *)p + nums[i].off) = it->valuedouble;
		return 1;
	}
	const struct page_figure *f; /* a page figure's budget: its option, '_' for '-' */
	for (int i = 0; (f = analysis_page_figure(i, NULL)); i++) {
		char key[64];
		snprintf(key, sizeof key, "%s", f->option ? f->option : "");
		for (char *c = key; *c; c++)
			*c = *c == '-' ? '_' : *c;
		if (!f->option || strcmp(it->string, key) != 0)
			continue;
		if (!cJSON_IsNumber(it) || it->valuedouble < 0) {
			warnx_("%s: rule \"%s\": expected a number >= 0", path, it->string);
			return -1;
		}
		p->max_page[i] = it->valuedouble;
		return 1;
	}
	return 0;
}

int audit_load_policy(const char *path, struct policy *p)
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
	static char baseline_buf[4096], from_buf[1024];
	int rc = 0;
	for (cJSON *it = root->child; it && rc == 0; it = it->next) {
		int num = policy_number(it, p, path);
		if (num != 0)
			rc = num < 0 ? -1 : 0;
		else if (strcmp(it->string, "forbid") == 0)
			rc = policy_forbid(it, p, path);
		else if (strcmp(it->string, "routes") == 0)
			rc = policy_routes(it, p, path);
		else if (strcmp(it->string, "allow") == 0) {
			if (!cJSON_IsArray(it)) {
				warnx_("%s: \"allow\": expected an array of finding names", path);
				rc = -1;
			}
			for (cJSON *x = it->child; x && rc == 0; x = x->next)
				rc = audit_parse_allow(cJSON_IsString(x) ? x->valuestring : "?", p, path);
		} else if (strcmp(it->string, "baseline") == 0)
			rc = policy_string(it, &p->baseline, baseline_buf, sizeof baseline_buf, path,
					   "a file name");
		else if (strcmp(it->string, "baseline_from") == 0)
			rc = policy_string(it, &p->baseline_from, from_buf, sizeof from_buf, path,
					   "\"app=NAME,KEY=VALUE\"");
		else {
			warnx_("%s: unknown rule \"%s\" (docs/ci.md lists them)", path, it->string);
			rc = -1;
		}
	}
	cJSON_Delete(root);
	return rc;
}

