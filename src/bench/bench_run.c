/* bench_run.c - one app's routes measured (bench_run.h). */
#define _GNU_SOURCE
#include "bench_run.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/escape.h"
#include "cli/cli.h"
#include "findings/evidence.h"
#include "report/stored_report.h"
#include "sources/feed.h"

const struct broute routes[NROUTES] = {
	{"index", "GET /", "/", "index"},
	{"detail", "GET /articles/{id}", "/articles/3", "detail"},
	{"tag", "GET /tags/{slug}", "/tags/tag-7", "tag"},
	{"cached-index", "GET /cached/", "/cached/", "cached-index"},
	{"cached-detail", "GET /cached/articles/{id}", "/cached/articles/3", "cached-detail"},
	{"compute", "GET /compute", "/compute", "compute"},
};

/* pages compared with the reference's besides each route's sample: the
 * last article and tag, and what is not there */
const char *const more_pages[NMORE] = {"/articles/1000", "/tags/tag-30", "/articles/1001",
					 "/tags/no-such-tag", "/no-such-page"};

volatile sig_atomic_t stopping;
static struct source live;

void bench_stop(void)
{
	stopping = 1;
	source_breakloop(&live);
}
struct reap reg; /* what this bench started, for one killed with -9 (bench_reap.h) */


bool listed(const char *list, const char *name)
{
	if (!list)
		return true;
	size_t n = strlen(name);
	for (const char *p = list; (p = strstr(p, name)); p += n)
		if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
			return true;
	return false;
}

double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* the status line: what runs, how far, what it measures so far, and an
 * estimate of what is left */
static void status(const struct bench *B, const char *what, double phase_left, double rt_page)
{
	if (!B->tty)
		return;
	double left = B->planned - B->done + phase_left;
	char rt[32] = "";
	if (rt_page >= 0)
		snprintf(rt, sizeof rt, " · %.2f rt/page", rt_page);
	fprintf(stderr, "\r\033[K%s · %.0f s%s · ~%.0f:%02.0f left", what, phase_left, rt,
		floor(left / 60), fmod(left, 60));
	fflush(stderr);
}

void status_clear(const struct bench *B)
{
	if (B->tty)
		fputs("\r\033[K", stderr);
}

struct phase {
	double requests, seconds, errors, non_2xx, p50_us, p99_us;
	double err_kind[4]; /* wrk's socket errors: connect, read, write, timeout */
	double rt, rfq, by_class[RT_NCLASS], acq, rel, idle, pages, drops;
	double redis_rt, redis_cmds; /* per page; < 0: Redis not captured (not on loopback) */
	double app_cpu_us, pg_cpu_us, rss_mib, ctx_per_req, pg_conns;
	bool ok;
	bool measured;      /* pages captured, and nothing the figures cannot vouch for */
	char warnings[256]; /* the capture's findings (evidence.h), codes */
	bool capture_lost;  /* the capture lost packets: kernel drops, stream gaps */
	int recaptured;     /* runs before it whose capture lost packets (bench_app) */
};

/* A run whose only fault is its capture's: the kernel or pgrtt lost
 * packets (drops, gaps) while the app answered every request well. */
#define RECAPTURES 2
static bool capture_damaged(const struct phase *ph)
{
	return ph->errors == 0 && ph->non_2xx == 0 && (ph->drops > 0 || ph->capture_lost);
}

/* What one run of wrk holds while it runs: its capture and analysis,
 * wrk's output, the /proc figures from before it. */
struct wrk_run {
	struct analysis *a;
	bool measure, redis;
	struct child w;
	char out[8192];
	size_t have;
	int status;
	struct tree_usage app0, pg0;
	long long ctx0;
	struct capture_drops drops;
	char lost[SOURCE_ERRBUF]; /* the capture stopped: why */
};

/* The capture of lo on the app's, PostgreSQL's and Redis's ports, into an
 * analysis that attributes to the app's pages.  0, or 2 (err said). */
static int phase_capture_open(struct bench *B, const struct bench_app *app, int app_port,
			      const struct broute *r, int run_no, struct wrk_run *wr, char *err,
			      size_t errcap)
{
	struct analysis_opts ao = {0};
	ao.ports[0] = (uint16_t)B->pg_port;
	ao.nports = 1;
	ao.http_ports[0] = (uint16_t)app_port;
	ao.nhttp_ports = 1;
	/* Redis, the apps' page cache, is captured where it listens on lo:
	 * the capture is of lo alone */
	wr->redis = B->redis_port > 0 && strncmp(B->redis_host, "127.", 4) == 0;
	if (wr->redis) {
		ao.proto_ports[PROTO_REDIS].port[0] = (uint16_t)B->redis_port;
		ao.proto_ports[PROTO_REDIS].n = 1;
	}
	static struct route_set no_routes;
	ao.routes = &no_routes;
	/* one route of known paths a run: nothing to learn (route_learn.h), and
	 * holding the first pages back for it would keep the status line's
	 * figure away for most of a short run */
	ao.route_values = ROUTE_VALUES_OFF;
	ao.grace_ns = ATTRIB_GRACE_NS;
	char filter[160], warn[SOURCE_ERRBUF];
	if (wr->redis)
		snprintf(filter, sizeof filter, "tcp and (port %d or port %d or port %d)", B->pg_port,
			 app_port, B->redis_port);
	else
		snprintf(filter, sizeof filter, "tcp and (port %d or port %d)", B->pg_port, app_port);
	char pcap[1200];
	snprintf(pcap, sizeof pcap, "%s/pcaps/%s-%s-%d.pcap", B->outdir, app->name, r->name, run_no);
	/* 256 MiB: a cached route's pages come twice over the wire, from Redis
	 * and to the client, and a sanitizer's build of pgrtt falls behind a
	 * smaller ring */
	struct live_opts lo = {"lo", 262144, 256 << 20, filter, B->b.keep_pcaps ? pcap : NULL};
	if (source_open_live(&live, &lo, err, warn) != 0)
		return 2;
	if (analysis_init(wr->a, &ao) != 0) {
		source_close(&live);
		snprintf(err, errcap, "out of memory");
		return 2;
	}
	return 0;
}

/* Until wrk exits (or a signal, or the capture fails): packets analysed,
 * wrk's output kept, context switches sampled, the status line drawn. */
static void phase_wait(struct bench *B, const struct child *ac, double secs, const char *what,
		       struct ctx_sampler *ctx, struct wrk_run *wr)
{
	struct analysis *a = wr->a;
	struct feed f = {a, live.dlt};
	double t0 = now_s(), next_status = 0, next_ctx = t0 + 0.2;
	for (;;) {
		if (wr->measure && source_dispatch(&live, feed_analysis, &f) == SOURCE_ERROR) {
			snprintf(wr->lost, sizeof wr->lost, "%s", live.err);
			kill(-wr->w.pid, SIGTERM);
			break;
		}
		struct pollfd pf = {wr->w.out, POLLIN, 0};
		if (poll(&pf, 1, wr->measure ? 0 : 100) > 0) {
			ssize_t n = read(wr->w.out, wr->out + wr->have, sizeof wr->out - 1 - wr->have);
			if (n > 0)
				wr->have += (size_t)n;
		}
		if (child_exited(&wr->w, &wr->status))
			break;
		if (stopping)
			kill(-wr->w.pid, SIGTERM);
		double t = now_s();
		if (wr->measure && t >= next_ctx) {
			ctx_sample(ctx, ac->pid);
			next_ctx = t + 0.2;
		}
		if (t >= next_status) {
			double rt_page = -1;
			for (uint32_t i = 0; wr->measure && i < analysis_attrib(a)->nroutes; i++)
				if (analysis_attrib(a)->routes[i].pages)
					rt_page = (double)analysis_attrib(a)->routes[i].rt / (double)analysis_attrib(a)->routes[i].pages;
			status(B, what, fmax(0, ceil(secs) - (t - t0)), rt_page);
			next_status = t + 0.5;
		}
	}
	for (ssize_t n; wr->have < sizeof wr->out - 1 &&
			(n = read(wr->w.out, wr->out + wr->have, sizeof wr->out - 1 - wr->have)) > 0;)
		wr->have += (size_t)n;
	wr->out[wr->have] = '\0';
	child_stop(&wr->w, 1000);
	if (!wr->measure)
		return;
	source_drain(&live, feed_analysis, &f);
	source_stats(&live, &wr->drops);
	if (!wr->lost[0])
		source_finish_write(&live, wr->lost);
	source_close(&live);
	analysis_finish(a);
}

/* wrk's summary (the PGRTT line the Lua script prints) into ph; false
 * when there is none. */
static bool wrk_summary(const char *out, struct phase *ph)
{
	const char *line = strstr(out, "PGRTT {");
	if (!line)
		return false;
	cJSON *j = cJSON_Parse(line + 6);
	double *v[] = {&ph->requests, &ph->seconds,     &ph->errors,      &ph->non_2xx,
		       &ph->p50_us,   &ph->p99_us,      &ph->err_kind[0], &ph->err_kind[1],
		       &ph->err_kind[2], &ph->err_kind[3]};
	const char *k[] = {"requests", "duration_us", "errors",  "non_2xx", "p50_us",
			   "p99_us",   "connect",     "read",    "write",   "timeout"};
	for (int i = 0; i < 10; i++) {
		cJSON *x = cJSON_GetObjectItem(j, k[i]);
		*v[i] = cJSON_IsNumber(x) ? x->valuedouble : 0;
	}
	cJSON_Delete(j);
	ph->seconds /= 1e6;
	return true;
}

/* The app's and PostgreSQL's CPU per request, context switches, memory,
 * from /proc before and after. */
static void phase_usage(const struct bench *B, const struct child *ac, struct ctx_sampler *ctx,
			const struct wrk_run *wr, struct phase *ph)
{
	struct tree_usage app1, pg1;
	long hz = sysconf(_SC_CLK_TCK);
	ctx_sample(ctx, ac->pid);
	tree_usage(ac->pid, &app1);
	children_usage(B->postmaster, &pg1);
	if (ph->requests > 0) {
		ph->app_cpu_us = (double)(app1.cpu_ticks - wr->app0.cpu_ticks) * 1e6 / (double)hz /
				 ph->requests;
		ph->ctx_per_req = (double)(ctx_total(ctx) - wr->ctx0) / ph->requests;
		ph->pg_cpu_us = B->postmaster > 0 ? (double)(pg1.cpu_ticks - wr->pg0.cpu_ticks) * 1e6 /
							    (double)hz / ph->requests
						  : -1;
	}
	ph->rss_mib = (double)app1.rss_kib / 1024;
}

/* The route's figures per page, from the analysis. */
static void phase_figures(const struct analysis *a, const struct broute *r, bool redis,
			  struct phase *ph)
{
	ph->pg_conns = (double)analysis_pgsql(a)->tot.connections;
	const struct attrib *at = analysis_attrib(a);
	for (uint32_t i = 0; i < at->nroutes; i++) {
		const struct attrib_route *x = &at->routes[i];
		if (strcmp(x->name, r->route) != 0 || !x->pages)
			continue;
		double n = (double)x->pages;
		ph->pages = n;
		ph->rt = x->rt / n;
		ph->rfq = x->rfq / n;
		for (int c = 0; c < RT_NCLASS; c++)
			ph->by_class[c] = x->by_class[c] / n;
		ph->acq = x->pings[PING_ACQUIRE] / n;
		ph->rel = x->pings[PING_RELEASE] / n;
		ph->idle = x->pings[PING_IDLE] / n;
		ph->redis_rt = redis ? x->cmd_rts / n : -1;
		ph->redis_cmds = redis ? x->cmds / n : -1;
	}
}

/* What the capture cannot vouch for: a route that touches no database
 * leaves no PostgreSQL traffic (that is its figure, 0); anything else -
 * encryption (--dsn with TLS), gaps, drops, no pages - and the phase is
 * not measured.  The codes into ph->warnings; true when one blocks. */
static bool phase_evidence(const struct analysis *a, const struct broute *r,
			   const struct capture_drops *drops, struct phase *ph, char *err,
			   size_t errcap)
{
	struct report_input in = {NULL, 0, false, drops};
	struct evidence ev;
	evidence_of(a, &in, &ev);
	bool blocked = false;
	size_t o = 0;
	for (int i = 0; i < ev.n; i++) {
		int code = ev.f[i].code;
		if (ev.f[i].severity == EV_NOTE)
			continue;
		/* no Redis traffic is a route's figure unless it is a cached one */
		if (code == EV_NO_REDIS && strncmp(r->name, "cached", 6) != 0)
			continue;
		o += (size_t)snprintf(ph->warnings + o, sizeof ph->warnings - o, "%s%s", o ? " " : "",
				      ev_code_name(code));
		if (o >= sizeof ph->warnings)
			o = sizeof ph->warnings - 1;
		ph->capture_lost |= code == EV_DROPS || code == EV_GAPS;
		if (code != EV_NO_POSTGRESQL && code != EV_NO_ROUND_TRIPS &&
		    code != EV_PAGES_WITHOUT_ROUND_TRIPS) {
			blocked = true;
			snprintf(err, errcap, "%s", ev.f[i].message);
		}
	}
	return blocked;
}

/* The run into the store, labelled app, route and run number. */
static void phase_store(struct bench *B, const struct bench_app *app, const struct broute *r,
			int run_no, const struct analysis *a, const struct capture_drops *drops)
{
	char la[96], lr[64], ln[32];
	snprintf(la, sizeof la, "app=%s", app->name);
	snprintf(lr, sizeof lr, "route=%s", r->name);
	snprintf(ln, sizeof ln, "run=%d", run_no);
	char *labels[] = {la, lr, ln};
	struct store_run_info info = {app->name, "pgrtt bench (lo)", labels, 3, false, drops};
	int64_t id;
	char serr[STORE_ERRBUF];
	if (store_finish_run(B->st, a, &info, &id, serr) != 0)
		warnx_("storing %s %s: %s", app->name, r->name, serr);
}

/* Run wrk for secs seconds against the app; when measuring, capture it,
 * store it and read /proc around it.  0 ok, 1 a check failed, 2 setup.
 * may_retry: a capture that lost packets will be made again (bench_app),
 * so it is not stored - one run in the store per (app, route, run). */
static int run_wrk(struct bench *B, const struct bench_app *app, const struct child *ac,
		   int app_port, const struct broute *r, double secs, bool measure, int run_no,
		   bool may_retry, const char *what, struct phase *ph, char *err, size_t errcap)
{
	memset(ph, 0, sizeof(*ph));
	char url[64], dur[32], cs[32];
	snprintf(url, sizeof url, "http://127.0.0.1:%d", app_port);
	snprintf(dur, sizeof dur, "%.0fs", secs < 1 ? 1 : ceil(secs)); /* wrk: whole seconds */
	snprintf(cs, sizeof cs, "%d", (int)B->b.connections);
	char *const argv[] = {"wrk", "-t", "2", "-c", cs, "-d", dur, "--latency", "-s", B->lua,
			      url, "--", (char *)r->lua_kind, NULL};
	static struct analysis *a; /* for the process' life, as the analysis' tables are */
	if (measure && !a && !(a = analysis_new())) {
		snprintf(err, errcap, "out of memory");
		return 2;
	}
	static struct wrk_run wr;
	memset(&wr, 0, sizeof wr);
	wr.a = a;
	wr.measure = measure;
	wr.w = (struct child){0, -1};
	if (measure && phase_capture_open(B, app, app_port, r, run_no, &wr, err, errcap) != 0)
		return 2;
	static struct ctx_sampler ctx;
	ctx.n = 0;
	ctx_sample(&ctx, ac->pid);
	wr.ctx0 = ctx_total(&ctx);
	tree_usage(ac->pid, &wr.app0);
	children_usage(B->postmaster, &wr.pg0);
	if (child_spawn(&wr.w, argv, NULL, NULL, NULL) == 0) {
		reap_note(&reg, REAP_GROUP, wr.w.pid, NULL);
	} else {
		snprintf(err, errcap, "wrk: %s", strerror(errno));
		if (measure) {
			source_close(&live);
			analysis_free(a);
		}
		return 2;
	}
	phase_wait(B, ac, secs, what, &ctx, &wr);
	if (measure && wr.lost[0]) {
		snprintf(err, errcap, "capture: %.200s", wr.lost);
		analysis_free(a);
		return 2;
	}
	if (!WIFEXITED(wr.status) || WEXITSTATUS(wr.status) != 0 || !wrk_summary(wr.out, ph)) {
		snprintf(err, errcap, "wrk failed: %.200s", wr.out);
		if (measure)
			analysis_free(a);
		return stopping ? 2 : 1;
	}
	if (ph->errors || ph->non_2xx)
		snprintf(err, errcap, "%.0f non-2xx responses, socket errors: %.0f connect, %.0f read,"
				      " %.0f write, %.0f timeout",
			 ph->non_2xx, ph->err_kind[0], ph->err_kind[1], ph->err_kind[2], ph->err_kind[3]);
	if (!measure)
		return ph->errors == 0 && ph->non_2xx == 0 ? 0 : 1;
	phase_usage(B, ac, &ctx, &wr, ph);
	ph->drops = (double)(wr.drops.drop + wr.drops.ifdrop);
	if (ph->drops && !err[0])
		snprintf(err, errcap, "the capture lost %.0f packets (kernel drops)", ph->drops);
	phase_figures(a, r, wr.redis, ph);
	bool blocked = phase_evidence(a, r, &wr.drops, ph, err, errcap);
	if (B->st && !(may_retry && capture_damaged(ph)))
		phase_store(B, app, r, run_no, a, &wr.drops);
	analysis_free(a);
	ph->measured = ph->pages > 0 && !blocked;
	ph->ok = ph->errors == 0 && ph->non_2xx == 0 && ph->drops == 0 && ph->measured;
	return ph->ok ? 0 : 1;
}

static int cmp_rps(const void *x, const void *y)
{
	const struct phase *a = x, *b = y;
	double ra = a->seconds > 0 ? a->requests / a->seconds : 0;
	double rb = b->seconds > 0 ? b->requests / b->seconds : 0;
	return (ra > rb) - (ra < rb);
}

/* A page as compared: the status code and the body (headers and reason
 * phrases differ between servers). */
static void fetch_page(int port, const char *path, char *buf, size_t cap)
{
	long code = http_fetch(port, path, &stopping, buf + 4, cap - 4);
	if (code < 100 || code > 999) {
		snprintf(buf, cap, "(no HTTP response)");
		return;
	}
	char head[5];
	snprintf(head, sizeof head, "%03ld\n", code);
	memcpy(buf, head, 4);
}

static const char *page_path(int i)
{
	return i < NROUTES ? routes[i].sample : more_pages[i - NROUTES];
}

/* every page of the app against the reference's; false (said: the first
 * differing line, and how many pages differ) if one differs */
static bool same_pages(const char *name, int port, char (*ref)[1 << 17])
{
	static char page[1 << 17];
	int differ = 0;
	for (int i = 0; i < NPAGES && !stopping; i++) {
		fetch_page(port, page_path(i), page, sizeof page);
		if (strcmp(page, "(no HTTP response)") == 0 && strcmp(ref[i], page) != 0) {
			/* refused, hung or trickling: 10 s a page would follow for each */
			warnx_("%s: %s: no whole HTTP response in 10 s: the other pages are not compared",
			       name, page_path(i));
			return false;
		}
		if (strcmp(ref[i], page) == 0 || differ++)
			continue;
		size_t k = 0;
		while (ref[i][k] && ref[i][k] == page[k])
			k++;
		char *ls = page + k, *rs = ref[i] + k;
		while (ls > page && ls[-1] != '\n')
			ls--, rs--;
		/* what an app sent goes to a terminal: escaped */
		char got[100], want[100], eg[400], ew[400];
		snprintf(got, sizeof got, "%.*s", (int)strcspn(ls, "\n"), ls);
		snprintf(want, sizeof want, "%.*s", (int)strcspn(rs, "\n"), rs);
		esc_term_buf(eg, sizeof eg, got);
		esc_term_buf(ew, sizeof ew, want);
		warnx_("%s: %s differs from the reference: \"%s\", the reference has \"%s\"", name,
		       page_path(i), eg, ew);
	}
	if (differ > 1)
		warnx_("%s: %d of the %d pages compared differ", name, differ, NPAGES);
	return !differ;
}

void reference_pages(int port, char (*ref)[1 << 17])
{
	for (int i = 0; i < NPAGES && !stopping; i++)
		fetch_page(port, page_path(i), ref[i], sizeof ref[0]);
}

/* A cached route is measured warm, as the seed's were: every page it can
 * serve fetched once first (a warm-up at a slow app's rate would leave
 * most of the 1,000 articles cold). */
static int prime_cache(const struct bench *B, const struct bench_app *a, int port,
		       const struct broute *r)
{
	static char page[1 << 17];
	int n = strcmp(r->lua_kind, "cached-detail") == 0 ? 1000 : 1, bad = 0;
	for (int i = 1; i <= n && !stopping; i++) {
		char path[64];
		if (n > 1)
			snprintf(path, sizeof path, "/cached/articles/%d", i);
		else
			snprintf(path, sizeof path, "%s", r->sample);
		if (i % 50 == 1) {
			char what[160];
			snprintf(what, sizeof what, "%s %s: priming the cache %d/%d", a->name, r->name, i, n);
			status(B, what, 0, -1);
		}
		bad += http_fetch(port, path, &stopping, page, sizeof page) != 200;
	}
	status_clear(B);
	if (bad)
		warnx_("%s %s: %d of %d pages did not answer 200 while priming the cache", a->name,
		       r->name, bad, n);
	return bad ? -1 : 0;
}

static cJSON *route_json(const struct broute *r, const struct phase *m)
{
	double rps = m->seconds > 0 ? m->requests / m->seconds : 0;
	cJSON *o = cJSON_CreateObject();
	esc_json_add(o, "route", r->route);
	cJSON_AddBoolToObject(o, "measured", m->measured);
	json_add_codes(o, "warnings", m->warnings);
#define R4(x) (round((x) * 1e4) / 1e4)
	if (m->measured)
		cJSON_AddNumberToObject(o, "round_trips_per_page", R4(m->rt));
	else
		cJSON_AddNullToObject(o, "round_trips_per_page");
	/* every class analyze names (docs/json.md), and the pings' roles;
	 * startup: connections the pool opened during the run.  What the
	 * capture could not vouch for is null, never 0 */
	if (m->measured) {
		cJSON_AddNumberToObject(o, "ready_for_query_per_page", R4(m->rfq));
		cJSON *bc = cJSON_AddObjectToObject(o, "by_class_per_page");
		for (int c = 0; c < RT_NCLASS; c++)
			cJSON_AddNumberToObject(bc, rt_class_name(c), R4(m->by_class[c]));
		cJSON_AddNumberToObject(bc, "ping_acquire", R4(m->acq));
		cJSON_AddNumberToObject(bc, "ping_release", R4(m->rel));
		cJSON_AddNumberToObject(bc, "ping_idle", R4(m->idle));
		cJSON_AddNumberToObject(o, "pg_connections", m->pg_conns);
	}
	if (m->measured && m->redis_rt >= 0) { /* the page cache's, docs/pages.md */
		cJSON_AddNumberToObject(o, "redis_round_trips_per_page", R4(m->redis_rt));
		cJSON_AddNumberToObject(o, "redis_commands_per_page", R4(m->redis_cmds));
	} else {
		cJSON_AddNullToObject(o, "redis_round_trips_per_page");
		cJSON_AddNullToObject(o, "redis_commands_per_page");
	}
	if (!m->measured) {
		cJSON_AddNullToObject(o, "ready_for_query_per_page");
		cJSON_AddNullToObject(o, "by_class_per_page");
		cJSON_AddNullToObject(o, "pg_connections");
	}
#undef R4
	cJSON_AddNumberToObject(o, "pages", m->pages);
	/* runs captured again because their capture lost packets */
	cJSON_AddNumberToObject(o, "recaptured", m->recaptured);
	cJSON_AddNumberToObject(o, "requests_per_s", round(rps));
	cJSON *lat = cJSON_AddObjectToObject(o, "latency_ms");
	cJSON_AddNumberToObject(lat, "p50", m->p50_us / 1000);
	cJSON_AddNumberToObject(lat, "p99", m->p99_us / 1000);
	cJSON_AddNumberToObject(o, "non_2xx", m->non_2xx);
	cJSON_AddNumberToObject(o, "errors", m->errors);
	cJSON *ek = cJSON_AddObjectToObject(o, "errors_by_kind");
	static const char *const kinds[4] = {"connect", "read", "write", "timeout"};
	for (int i = 0; i < 4; i++)
		cJSON_AddNumberToObject(ek, kinds[i], m->err_kind[i]);
	cJSON_AddNumberToObject(o, "rss_mib", round(m->rss_mib * 10) / 10);
	cJSON_AddNumberToObject(o, "app_cpu_us_per_request", round(m->app_cpu_us * 10) / 10);
	if (m->pg_cpu_us >= 0)
		cJSON_AddNumberToObject(o, "pg_cpu_us_per_page", round(m->pg_cpu_us * 10) / 10);
	else /* --dsn: the server's processes are not ours to read */
		cJSON_AddNullToObject(o, "pg_cpu_us_per_page");
	cJSON_AddNumberToObject(o, "context_switches_per_request", round(m->ctx_per_req * 100) / 100);
	cJSON_AddNumberToObject(o, "drops", m->drops);
	return o;
}

/* One app: its pages checked, then each route's warm-up and runs.  Returns
 * EXIT_OK, EXIT_FAILED (a check) or EXIT_ERROR (setup: stop). */

int bench_app(struct bench *B, const struct bench_app *a, struct child *ac, int port,
		     char (*ref)[1 << 17], cJSON *ja, int nth, int napps)
{
	bool same = same_pages(a->name, port, ref);
	cJSON_AddBoolToObject(ja, "html_matches_reference", same);
	cJSON *jr = cJSON_AddArrayToObject(ja, "routes");
	if (!same)
		return EXIT_FAILED;
	int rc = EXIT_OK;
	char err[1024] = "";
	for (int ri = 0; ri < NROUTES && !stopping; ri++) {
		if (!listed(B->b.routes, routes[ri].name))
			continue;
		struct phase warm, ph[99];
		int runs = (int)B->b.runs;
		char what[200];
		if (strncmp(routes[ri].name, "cached", 6) == 0 && prime_cache(B, a, port, &routes[ri]) != 0)
			rc = EXIT_FAILED;
		if (B->b.warmup > 0) {
			snprintf(what, sizeof what, "[%d/%d] %s %s warm-up", nth, napps, a->name,
				 routes[ri].name);
			run_wrk(B, a, ac, port, &routes[ri], B->b.warmup, false, 0, false, what, &warm, err,
				sizeof err);
			B->done += ceil(B->b.warmup);
		}
		bool ok = true;
		for (int k = 0; k < runs && !stopping; k++) {
			int r, again = 0;
			for (;;) {
				snprintf(what, sizeof what, "[%d/%d] %s %s run %d/%d", nth, napps, a->name,
					 routes[ri].name, k + 1, runs);
				r = run_wrk(B, a, ac, port, &routes[ri], B->b.duration, true, k + 1,
					    again < RECAPTURES, what,
					    &ph[k], err, sizeof err);
				B->done += ceil(B->b.duration);
				status_clear(B);
				/* a capture that lost packets is no evidence, but the app
				 * did nothing wrong: captured again, twice at most, and
				 * said */
				if (r != 1 || again == RECAPTURES || stopping || !capture_damaged(&ph[k]))
					break;
				again++;
				warnx_("%s %s run %d: %s: captured again (%d of %d)", a->name,
				       routes[ri].name, k + 1, err[0] ? err : ph[k].warnings, again, RECAPTURES);
				err[0] = '\0';
			}
			ph[k].recaptured = again;
			if (r == 2) {
				warnx_("%s %s: %s", a->name, routes[ri].name, err);
				return EXIT_ERROR;
			}
			if (r == 1)
				warnx_("%s %s run %d: %s", a->name, routes[ri].name, k + 1,
				       err[0] ? err : "errors, non-2xx responses, drops or no page captured");
			err[0] = '\0';
			ok &= r == 0;
		}
		if (stopping)
			break;
		int recaptured = 0;
		for (int k = 0; k < runs; k++)
			recaptured += ph[k].recaptured;
		qsort(ph, (size_t)runs, sizeof ph[0], cmp_rps);
		ph[runs / 2].recaptured = recaptured; /* the route's, in its JSON */
		const struct phase *m = &ph[runs / 2]; /* the median run */
		double rps = m->seconds > 0 ? m->requests / m->seconds : 0;
		if (m->measured)
			printf("%-18s %-13s %8.2f %4.2f/%-4.2f %8.2f %10.0f %8.2f %8.2f\n", a->name,
			       routes[ri].name, m->rt, m->acq, m->rel, m->by_class[RT_QUERY], rps, m->p50_us / 1000,
			       m->p99_us / 1000);
		else
			printf("%-18s %-13s %8s  not measured (%s)\n", a->name, routes[ri].name, "-",
			       m->warnings[0] ? m->warnings : "no page");
		fflush(stdout);
		cJSON_AddItemToArray(jr, route_json(&routes[ri], m));
		if (!ok)
			rc = EXIT_FAILED;
	}
	return rc;
}

