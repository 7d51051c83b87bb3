/* cmd_bench.c - pgrtt bench: the benchmark's apps launched under capture,
 * the seed's table reproduced (docs/bench.md).
 *
 * The apps are manifests (bench_manifest.c; bench/apps/NAME/manifest.json
 * or --config), built once into a cache (bench_build.c).  One throwaway
 * PostgreSQL and redis-server (bench_server.c) with the seed's dataset;
 * then app by app, only that app running: its pages fetched and compared
 * byte for byte with the reference's, then route by route a warm-up and
 * the measured runs of wrk while pgrtt's own live engine captures lo.
 * Each (app, route, run) is a stored run; results.json, report.md and
 * report.html (bench_report.c) go to the output directory. */
#define _GNU_SOURCE
#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <libpq-fe.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/about.h"
#include "bench/bench_build.h"
#include "bench/bench_manifest.h"
#include "bench/bench_proc.h"
#include "bench/bench_reap.h"
#include "bench/bench_report.h"
#include "bench/bench_server.h"
#include "cli/cli.h"
#include "commands.h"
#include "dataset.h"
#include "base/escape.h"
#include "findings/evidence.h"
#include "cli/opts.h"
#include "queries.h"
#include "report/stored_report.h"
#include "results.h"
#include "sources/source.h"
#include "store/store.h"

/* the database the dataset goes into, and the mark that says pgrtt made it */
#define BENCH_DB "pgrtt_bench"
#define BENCH_DB_MARK "made by pgrtt bench: its blog dataset, reloaded by every run"

struct broute {
	const char *name, *route, *sample, *lua_kind;
};

static const struct broute routes[] = {
	{"index", "GET /", "/", "index"},
	{"detail", "GET /articles/{id}", "/articles/3", "detail"},
	{"tag", "GET /tags/{slug}", "/tags/tag-7", "tag"},
	{"cached-index", "GET /cached/", "/cached/", "cached-index"},
	{"cached-detail", "GET /cached/articles/{id}", "/cached/articles/3", "cached-detail"},
	{"compute", "GET /compute", "/compute", "compute"},
};
#define NROUTES (int)(sizeof routes / sizeof routes[0])

/* pages compared with the reference's besides each route's sample: the
 * last article and tag, and what is not there */
static const char *const more_pages[] = {"/articles/1000", "/tags/tag-30", "/articles/1001",
					 "/tags/no-such-tag", "/no-such-page"};
#define NMORE (int)(sizeof more_pages / sizeof more_pages[0])

/* varied ids, and a JSON summary wrk's done() prints */
static const char lua_script[] =
	"local kind = 'detail'\n"
	"local n = 0\n"
	"function init(args) kind = args[1] or kind end\n"
	"function request()\n"
	"  n = n + 1\n"
	"  local path = '/'\n"
	"  if kind == 'detail' then path = '/articles/' .. (n % 1000 + 1)\n"
	"  elseif kind == 'tag' then path = '/tags/tag-' .. (n % 30 + 1)\n"
	"  elseif kind == 'compute' then path = '/compute'\n"
	"  elseif kind == 'cached-index' then path = '/cached/'\n"
	"  elseif kind == 'cached-detail' then path = '/cached/articles/' .. (n % 1000 + 1) end\n"
	"  return wrk.format('GET', path)\n"
	"end\n"
	"function done(s, latency, requests)\n"
	"  local e = s.errors\n"
	"  io.write(string.format('PGRTT {\"requests\":%d,\"duration_us\":%d,\"errors\":%d,"
	"\"non_2xx\":%d,\"p50_us\":%d,\"p99_us\":%d,\"connect\":%d,\"read\":%d,"
	"\"write\":%d,\"timeout\":%d}\\n', s.requests, s.duration,"
	" e.connect + e.read + e.write + e.timeout, e.status, latency:percentile(50),"
	" latency:percentile(99), e.connect, e.read, e.write, e.timeout))\n"
	"end\n";

static volatile sig_atomic_t stopping;
static struct source live;
static struct reap reg; /* what this bench started, for one killed with -9 (bench_reap.h) */

static void stale_said(void *ctx, int owner, int procs, int dirs)
{
	(void)ctx;
	fprintf(stderr,
		"pgrtt: bench: a bench that ended without cleaning up (pid %d) left %d process%s and "
		"%d director%s: stopped and removed\n",
		owner, procs, procs == 1 ? "" : "es", dirs, dirs == 1 ? "y" : "ies");
}

static void on_signal(int sig)
{
	(void)sig;
	stopping = 1;
	source_breakloop(&live);
}

struct bench_opts {
	bool quick, list, build_only, no_progress, keep_pcaps, clean;
	const char *apps, *routes, *out, *dsn, *redis, *config, *build_dir;
	double duration, warmup, runs, connections;
};

enum { B_QUICK = 1, B_LIST, B_APPS, B_ROUTES, B_DURATION, B_WARMUP, B_RUNS, B_CONNECTIONS,
       B_OUT, B_DSN, B_REDIS, B_CONFIG, B_BUILD_DIR, B_BUILD_ONLY, B_NO_PROGRESS, B_KEEP_PCAPS,
       B_CLEAN };

static int bench_opt(void *ctx, int id, const char *arg)
{
	struct bench_opts *b = ctx;
	switch (id) {
	case B_QUICK:
		b->quick = true;
		return 0;
	case B_LIST:
		b->list = true;
		return 0;
	case B_BUILD_ONLY:
		b->build_only = true;
		return 0;
	case B_NO_PROGRESS:
		b->no_progress = true;
		return 0;
	case B_KEEP_PCAPS:
		b->keep_pcaps = true;
		return 0;
	case B_CLEAN:
		b->clean = true;
		return 0;
	case B_APPS:
		b->apps = arg;
		return 0;
	case B_ROUTES:
		b->routes = arg;
		return 0;
	case B_DURATION:
		return opt_number("--duration", arg, 1, 3600, "whole seconds, 1 to 3600", &b->duration)
			       ? 0
			       : -1;
	case B_WARMUP:
		return opt_number("--warmup", arg, 0, 3600, "seconds", &b->warmup) ? 0 : -1;
	case B_RUNS:
		return opt_number("--runs", arg, 1, 99, "1 to 99", &b->runs) ? 0 : -1;
	case B_CONNECTIONS:
		return opt_number("--connections", arg, 1, 1000, "1 to 1000", &b->connections) ? 0 : -1;
	case B_OUT:
		b->out = arg;
		return 0;
	case B_REDIS:
		b->redis = arg;
		return 0;
	case B_CONFIG:
		b->config = arg;
		return 0;
	case B_BUILD_DIR:
		b->build_dir = arg;
		return 0;
	default: /* B_DSN */
		b->dsn = arg;
		return 0;
	}
}

static void help(FILE *out)
{
	fputs("Usage: pgrtt bench [OPTIONS]\n"
	      "\n"
	      "The benchmark's blog apps under capture: a throwaway PostgreSQL with the seed's\n"
	      "dataset, each app alone, its pages compared with the reference's, then per route\n"
	      "a warm-up and measured wrk runs while pgrtt captures lo.  Needs root or\n"
	      "CAP_NET_RAW (capture), wrk, and PostgreSQL's server binaries.\n"
	      "\n"
	      "Options:\n"
	      "      --quick            a smoke run: every app and route, 1 s warm-up, one 1 s run,\n"
	      "                         8 connections (what is given besides stays)\n"
	      "      --apps A,B         these apps only (--list shows them)\n"
	      "      --routes R,S       these routes only: index, detail, tag, cached-index,\n"
	      "                         cached-detail, compute\n"
	      "      --duration S       seconds per measured run (default 20)\n"
	      "      --warmup S         seconds of warm-up per route (default 5)\n"
	      "      --runs N           measured runs per route; the median counts (default 3)\n"
	      "      --connections N    wrk connections (default 50)\n"
	      "      --config FILE      your apps' manifests instead of the bundled ones (the\n"
	      "                         first app is the reference; docs/bench.md)\n"
	      "      --dsn DSN          an existing server instead of a throwaway one: the dataset\n"
	      "                         goes into a database pgrtt_bench that pgrtt makes and\n"
	      "                         marks (one it did not make is left alone: exit 2)\n"
	      "      --redis HOST:PORT  an existing Redis for the page cache instead of a\n"
	      "                         throwaway redis-server (it is FLUSHALLed between apps)\n"
	      "      --db FILE|URI      the store (default OUT/bench.db; postgresql://... too)\n"
	      "      --out DIR          results.json, report.md, report.html, bench.db, logs/\n"
	      "                         (default bench-out)\n"
	      "      --build-dir DIR    where apps are built and kept between runs (default\n"
	      "                         $XDG_CACHE_HOME/pgrtt/bench or ~/.cache/pgrtt/bench)\n"
	      "      --build-only       build the apps (what is out of date), write OUT/queries.json\n"
	      "                         (their SQL, for running them by hand) and stop\n"
	      "      --keep-pcaps       also write each measured run's capture to\n"
	      "                         OUT/pcaps/APP-ROUTE-RUN.pcap (pgrtt analyze reads them)\n"
	      "      --list             the apps and routes, and what this machine can run\n"
	      "      --clean            only stop and remove what benches killed with -9 left\n"
	      "      --no-progress      no status line on a terminal (also --no-status)\n"
	      "  -h, --help             show this help\n"
	      "\n"
	      "Exit status: 0 ok, 1 a check failed (a build, pages differ, errors, non-2xx,\n"
	      "drops), 2 setup failure, 64 usage error.\n",
	      out);
}

static bool listed(const char *list, const char *name)
{
	if (!list)
		return true;
	size_t n = strlen(name);
	for (const char *p = list; (p = strstr(p, name)); p += n)
		if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
			return true;
	return false;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The bench/ folder: PGRTT_BENCH_DIR, the source tree pgrtt was built
 * from, or an installed share/pgrtt/bench beside the executable. */
static void find_bench_dir(char *out, size_t cap)
{
	const char *env = getenv("PGRTT_BENCH_DIR");
	if (env && *env) {
		snprintf(out, cap, "%s", env);
		return;
	}
	snprintf(out, cap, "%s", PGRTT_BENCH_SRC);
	char probe[800];
	snprintf(probe, sizeof probe, "%s/apps", out);
	if (access(probe, R_OK) == 0)
		return;
	char exe[600];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	exe[n > 0 ? n : 0] = '\0';
	char *slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	if (snprintf(out, cap, "%s/../share/pgrtt/bench", exe) >= (int)cap)
		out[0] = '\0';
}

/* ------------------------------------------------------------ the run */

struct bench {
	struct bench_opts b;
	char outdir[600], lua[800], logdir[800], build_root[800], bench_dir[600], queries[900];
	int pg_port;
	char blog_dsn[700], db_url[900], redis_url[200], redis_host[128];
	int redis_port;
	long postmaster;
	struct store *st;
	bool tty;
	double planned, done; /* seconds of load: in all, behind us */
};

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

static void status_clear(const struct bench *B)
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

/* Run wrk for secs seconds against the app; when measuring, capture it,
 * store it and read /proc around it.  0 ok, 1 a check failed, 2 setup.
 * may_retry: a capture that lost packets will be made again (bench_app),
 * so it is not stored - one run in the store per (app, route, run): a CI
 * run under ASan stored a recaptured run twice, 61 runs for 60. */
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
	static struct analysis a;
	struct analysis_opts ao = {0};
	ao.ports[0] = (uint16_t)B->pg_port;
	ao.nports = 1;
	ao.http_ports[0] = (uint16_t)app_port;
	ao.nhttp_ports = 1;
	/* the page cache's Redis, when it is on this machine's loopback */
	bool redis = B->redis_port > 0 && strncmp(B->redis_host, "127.", 4) == 0;
	if (redis) {
		ao.redis_ports[0] = (uint16_t)B->redis_port;
		ao.nredis_ports = 1;
	}
	static struct route_set no_routes;
	ao.routes = &no_routes;
	/* one route of known paths a run: nothing to learn (route_learn.h), and
	 * holding the first pages back for it kept the status line's figure
	 * away for 2 s of a 3 s run (CI, on a loaded machine) */
	ao.route_values = ROUTE_VALUES_OFF;
	ao.grace_ns = ATTRIB_GRACE_NS;
	char filter[160], warn[SOURCE_ERRBUF];
	if (redis)
		snprintf(filter, sizeof filter, "tcp and (port %d or port %d or port %d)", B->pg_port,
			 app_port, B->redis_port);
	else
		snprintf(filter, sizeof filter, "tcp and (port %d or port %d)", B->pg_port, app_port);
	char pcap[1200];
	snprintf(pcap, sizeof pcap, "%s/pcaps/%s-%s-%d.pcap", B->outdir, app->name, r->name, run_no);
	/* 256 MiB: a cached route's pages come twice over the wire, from Redis
	 * and to the client (5 KB each, 18k pages/s), and an ASan build of
	 * pgrtt in CI fell behind 64 MiB (250 gaps on the Redis side) */
	struct live_opts lo = {"lo", 262144, 256 << 20, filter, B->b.keep_pcaps ? pcap : NULL};
	if (measure) {
		if (source_open_live(&live, &lo, err, warn) != 0)
			return 2;
		if (analysis_init(&a, &ao) != 0) {
			source_close(&live);
			snprintf(err, errcap, "out of memory");
			return 2;
		}
	}
	struct tree_usage app0, app1, pg0, pg1;
	static struct ctx_sampler ctx;
	ctx.n = 0;
	ctx_sample(&ctx, ac->pid);
	long long ctx0 = ctx_total(&ctx);
	tree_usage(ac->pid, &app0);
	children_usage(B->postmaster, &pg0);
	struct child w = {0, -1};
	if (child_spawn(&w, argv, NULL, NULL, NULL) == 0)
		reap_note(&reg, REAP_GROUP, w.pid, NULL);
	else {
		snprintf(err, errcap, "wrk: %s", strerror(errno));
		if (measure) {
			source_close(&live);
			analysis_free(&a);
		}
		return 2;
	}
	char out[8192] = "";
	size_t have = 0;
	struct feed f = {&a, live.dlt};
	int status_ = 0;
	double t0 = now_s(), next_status = 0, next_ctx = t0 + 0.2;
	char lost[SOURCE_ERRBUF] = ""; /* the capture stopped: why */
	for (;;) {
		if (measure && source_dispatch(&live, feed_analysis, &f) == SOURCE_ERROR) {
			snprintf(lost, sizeof lost, "%s", live.err);
			kill(-w.pid, SIGTERM);
			break;
		}
		struct pollfd pf = {w.out, POLLIN, 0};
		if (poll(&pf, 1, measure ? 0 : 100) > 0) {
			ssize_t n = read(w.out, out + have, sizeof out - 1 - have);
			if (n > 0)
				have += (size_t)n;
		}
		if (child_exited(&w, &status_))
			break;
		if (stopping)
			kill(-w.pid, SIGTERM);
		double t = now_s();
		if (measure && t >= next_ctx) {
			ctx_sample(&ctx, ac->pid);
			next_ctx = t + 0.2;
		}
		if (t >= next_status) {
			double rt_page = -1;
			for (uint32_t i = 0; measure && i < a.attrib.nroutes; i++)
				if (a.attrib.routes[i].pages)
					rt_page = (double)a.attrib.routes[i].rt / (double)a.attrib.routes[i].pages;
			status(B, what, fmax(0, ceil(secs) - (t - t0)), rt_page);
			next_status = t + 0.5;
		}
	}
	for (ssize_t n; have < sizeof out - 1 && (n = read(w.out, out + have, sizeof out - 1 - have)) > 0;)
		have += (size_t)n;
	out[have] = '\0';
	child_stop(&w, 1000);
	struct capture_drops drops = {0};
	if (measure) {
		source_drain(&live, feed_analysis, &f);
		source_stats(&live, &drops);
		if (!lost[0])
			source_finish_write(&live, lost);
		source_close(&live);
		analysis_finish(&a);
		if (lost[0]) {
			snprintf(err, errcap, "capture: %.200s", lost);
			analysis_free(&a);
			return 2;
		}
	}
	if (!WIFEXITED(status_) || WEXITSTATUS(status_) != 0 || !strstr(out, "PGRTT {")) {
		snprintf(err, errcap, "wrk failed: %.200s", out);
		if (measure)
			analysis_free(&a);
		return stopping ? 2 : 1;
	}
	cJSON *j = cJSON_Parse(strstr(out, "PGRTT {") + 6);
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
	if (ph->errors || ph->non_2xx)
		snprintf(err, errcap, "%.0f non-2xx responses, socket errors: %.0f connect, %.0f read,"
				      " %.0f write, %.0f timeout",
			 ph->non_2xx, ph->err_kind[0], ph->err_kind[1], ph->err_kind[2], ph->err_kind[3]);
	if (!measure)
		return ph->errors == 0 && ph->non_2xx == 0 ? 0 : 1;
	long hz = sysconf(_SC_CLK_TCK);
	ctx_sample(&ctx, ac->pid);
	tree_usage(ac->pid, &app1);
	children_usage(B->postmaster, &pg1);
	if (ph->requests > 0) {
		ph->app_cpu_us = (double)(app1.cpu_ticks - app0.cpu_ticks) * 1e6 / (double)hz /
				 ph->requests;
		ph->ctx_per_req = (double)(ctx_total(&ctx) - ctx0) / ph->requests;
		ph->pg_cpu_us = B->postmaster > 0 ? (double)(pg1.cpu_ticks - pg0.cpu_ticks) * 1e6 /
							    (double)hz / ph->requests
						  : -1;
	}
	ph->rss_mib = (double)app1.rss_kib / 1024;
	ph->drops = (double)(drops.drop + drops.ifdrop);
	if (ph->drops && !err[0])
		snprintf(err, errcap, "the capture lost %.0f packets (kernel drops)", ph->drops);
	ph->pg_conns = (double)a.tot.connections;
	const struct attrib *at = &a.attrib;
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
		ph->redis_rt = redis ? x->redis_rt / n : -1;
		ph->redis_cmds = redis ? x->redis_cmds / n : -1;
	}
	/* what the capture cannot vouch for: a route that touches no database
	 * leaves no PostgreSQL traffic (that is its figure, 0); anything else -
	 * encryption (--dsn with TLS), gaps, drops, no pages - and the phase
	 * is not measured */
	struct report_input in = {NULL, 0, false, &drops};
	struct evidence ev;
	evidence_of(&a, &in, &ev);
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
	if (B->st && !(may_retry && capture_damaged(ph))) {
		char la[96], lr[64], ln[32];
		snprintf(la, sizeof la, "app=%s", app->name);
		snprintf(lr, sizeof lr, "route=%s", r->name);
		snprintf(ln, sizeof ln, "run=%d", run_no);
		char *labels[] = {la, lr, ln};
		struct store_run_info info = {app->name, "pgrtt bench (lo)", labels, 3, false, &drops};
		int64_t id;
		char serr[STORE_ERRBUF];
		if (store_finish_run(B->st, &a, &info, &id, serr) != 0)
			warnx_("storing %s %s: %s", app->name, r->name, serr);
	}
	analysis_free(&a);
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

/* The shared SQL (bench/queries.h) for apps that are not C. */
static int write_queries(const char *path)
{
	static const struct {
		const char *name, *sql;
	} q[] = {
#define Q(n) {#n, n}
		Q(Q_INDEX_ARTICLES), Q(Q_INDEX_AUTHORS), Q(Q_INDEX_TAGS), Q(Q_DETAIL_ARTICLE),
		Q(Q_DETAIL_AUTHOR), Q(Q_DETAIL_COMMENTS), Q(Q_TAG_TAG), Q(Q_TAG_ARTICLES),
		Q(Q_TAG_AUTHORS), Q(Q_TAG_TAGS),
#undef Q
	};
	cJSON *o = cJSON_CreateObject();
	for (size_t i = 0; i < sizeof q / sizeof q[0]; i++)
		cJSON_AddStringToObject(o, q[i].name, q[i].sql);
	char *t = cJSON_Print(o);
	cJSON_Delete(o);
	FILE *f = t ? fopen(path, "w") : NULL;
	int rc = f && fputs(t, f) >= 0 ? 0 : -1;
	if (f && fclose(f) != 0)
		rc = -1;
	free(t);
	return rc;
}

/* OUT/bench.lua (wrk's script) and OUT/queries.json (QUERIES: the apps'
 * SQL, by an absolute path: apps run in their own directories).  -1 with
 * the reason said. */
static int write_run_files(struct bench *B)
{
	snprintf(B->lua, sizeof B->lua, "%s/bench.lua", B->outdir);
	snprintf(B->queries, sizeof B->queries, "%s/queries.json", B->outdir);
	char real[PATH_MAX];
	if (realpath(B->outdir, real) &&
	    snprintf(B->queries, sizeof B->queries, "%s/queries.json", real) >= (int)sizeof B->queries) {
		warnx_("%s: the path is too long", real);
		return -1;
	}
	FILE *lf = fopen(B->lua, "w");
	bool ok = lf && fputs(lua_script, lf) >= 0;
	if (lf && fclose(lf) != 0)
		ok = false;
	if (!ok || write_queries(B->queries) != 0) {
		warnx_("%s: cannot write", B->outdir);
		return -1;
	}
	return 0;
}

/* %-encoded for a URL's user or password */
static void url_part(char *out, size_t cap, const char *s)
{
	size_t o = 0;
	for (; s && *s && o + 4 < cap; s++) {
		unsigned char c = (unsigned char)*s;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '.' || c == '_' || c == '~')
			out[o++] = (char)c;
		else
			o += (size_t)snprintf(out + o, cap - o, "%%%02X", c);
	}
	out[o] = '\0';
}

/* DATABASE_URL for the apps: every driver takes a postgresql:// URL */
static void database_url(PGconn *c, char *out, size_t cap)
{
	char user[200], pass[300];
	url_part(user, sizeof user, PQuser(c));
	url_part(pass, sizeof pass, PQpass(c));
	const char *host = PQhost(c);
	snprintf(out, cap, "postgresql://%s%s%s@%s:%s/" BENCH_DB "?sslmode=disable", user, pass[0] ? ":" : "",
		 pass, host && *host && host[0] != '/' ? host : "127.0.0.1", PQport(c));
}

/* The server of dsn (key=value or a URI), its database BENCH_DB: libpq
 * expands the first dbname as a connection string, the second overrides
 * its database. */
static PGconn *connect_bench_db(const char *dsn)
{
	const char *const keys[] = {"dbname", "dbname", NULL};
	const char *const vals[] = {dsn, BENCH_DB, NULL};
	return PQconnectdbParams(keys, vals, 1);
}

/* libpq's message on one line */
static const char *pq_error(PGconn *c)
{
	static char buf[512];
	snprintf(buf, sizeof buf, "%s", PQerrorMessage(c));
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

/* The benchmark's database: created and marked as pgrtt's, or found with
 * pgrtt's mark (a server given with --dsn may hold anything else: what
 * pgrtt did not create, it never drops).  0, or -1 with the reason. */
static int own_database(PGconn *c, char *err, size_t cap)
{
	PGresult *r = PQexec(c, "CREATE DATABASE " BENCH_DB);
	bool made = PQresultStatus(r) == PGRES_COMMAND_OK;
	PQclear(r);
	if (made) {
		r = PQexec(c, "COMMENT ON DATABASE " BENCH_DB " IS '" BENCH_DB_MARK "'");
		bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
		PQclear(r);
		if (!ok) {
			snprintf(err, cap, "COMMENT ON DATABASE " BENCH_DB ": %s", pq_error(c));
			return -1;
		}
		return 0;
	}
	r = PQexec(c, "SELECT coalesce(shobj_description(oid, 'pg_database'), '') FROM pg_database"
		      " WHERE datname = '" BENCH_DB "'");
	bool ours = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1 &&
		    strcmp(PQgetvalue(r, 0, 0), BENCH_DB_MARK) == 0;
	bool exists = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1;
	PQclear(r);
	if (ours)
		return 0;
	if (exists)
		snprintf(err, cap, "database " BENCH_DB " exists and was not made by pgrtt bench: "
				   "nothing of it is touched; drop it or give another server");
	else
		snprintf(err, cap, "CREATE DATABASE " BENCH_DB ": %s", pq_error(c));
	return -1;
}

/* client connections to the benchmark's database other than ours; -1 on error */
static int blog_connections(const char *dsn)
{
	PGconn *c = connect_bench_db(dsn);
	int n = -1;
	if (PQstatus(c) == CONNECTION_OK) {
		PGresult *r = PQexec(c, "SELECT count(*) FROM pg_stat_activity WHERE datname = '"
					BENCH_DB "' AND pid <> pg_backend_pid()");
		if (PQresultStatus(r) == PGRES_TUPLES_OK)
			n = atoi(PQgetvalue(r, 0, 0));
		PQclear(r);
	}
	PQfinish(c);
	return n;
}

/* between apps: until the last app's connections are gone */
static void wait_baseline(const struct bench *B, int baseline, const char *after)
{
	int n = -1;
	for (int i = 0; i < 100 && !stopping; i++) {
		if ((n = blog_connections(B->blog_dsn)) >= 0 && n <= baseline)
			return;
		struct timespec ts = {0, 100 * 1000000L};
		nanosleep(&ts, NULL);
	}
	if (n > baseline)
		warnx_("%d connections to " BENCH_DB " still open 10 s after %s stopped (baseline %d)",
		       n, after, baseline);
}

/* The last line of a log, for a one-line reason. */
static void log_tail(const char *path, char *out, size_t cap)
{
	FILE *f = fopen(path, "r");
	out[0] = '\0';
	if (!f)
		return;
	char line[400], last[400] = "";
	while (fgets(line, sizeof line, f))
		if (line[0] != '\n')
			snprintf(last, sizeof last, "%s", line);
	fclose(f);
	last[strcspn(last, "\n")] = '\0';
	esc_term_buf(out, cap, last); /* an app's words, for a terminal */
}

/* Start the app on port with the harness's environment; wait until it
 * accepts connections.  0, or -1 with the reason in err. */
static int start_app(const struct bench *B, const struct bench_app *a, int port, struct child *c,
		     char *err, size_t cap)
{
	char build[1100];
	bench_build_dir(a, B->build_root, build, sizeof build);
	static char argvs[BENCH_MAX_ARGS][1400];
	char *argv[BENCH_MAX_ARGS + 1];
	for (int i = 0; i < a->nrun; i++) {
		if (bench_expand(a->run[i], a->dir, build, B->bench_dir, argvs[i], sizeof argvs[0]) != 0) {
			snprintf(err, cap, "a run argument is too long");
			return -1;
		}
		argv[i] = argvs[i];
	}
	argv[a->nrun] = NULL;
	static char envs[BENCH_MAX_ENV + 8][1400];
	char *env[BENCH_MAX_ENV + 9];
	int n = 0;
	snprintf(envs[n++], sizeof envs[0], "PORT=%d", port);
	snprintf(envs[n++], sizeof envs[0], "DATABASE_URL=%s", B->db_url);
	snprintf(envs[n++], sizeof envs[0], "REDIS_URL=%s", B->redis_url);
	snprintf(envs[n++], sizeof envs[0], "QUERIES=%s", B->queries);
	snprintf(envs[n++], sizeof envs[0], "POOL_MAX=16");
	snprintf(envs[n++], sizeof envs[0], "POOL_MIN=4");
	for (int i = 0; i < a->nenv; i++)
		if (bench_expand(a->env[i], a->dir, build, B->bench_dir, envs[n], sizeof envs[0]) == 0)
			n++;
	for (int i = 0; i < n; i++)
		env[i] = envs[i];
	env[n] = NULL;
	char log[1000];
	snprintf(log, sizeof log, "%s/%s.log", B->logdir, a->name);
	unlink(log);
	if (child_spawn(c, argv, env, a->dir, log) != 0) {
		snprintf(err, cap, "cannot start %s: %s", argv[0], strerror(errno));
		return -1;
	}
	reap_note(&reg, REAP_GROUP, c->pid, NULL);
	double until = now_s() + a->start_timeout;
	while (!port_open(port)) {
		int st;
		if (child_exited(c, &st)) {
			char tail[300];
			log_tail(log, tail, sizeof tail);
			if (snprintf(err, cap, "exited (%d) before listening on %d: %s (%s)",
				     WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), port, tail,
				     log) >= (int)cap)
				err[cap - 1] = '\0';
			return -1;
		}
		if (stopping || now_s() > until) {
			child_stop(c, 2000);
			snprintf(err, cap, stopping ? "interrupted" : "not listening on %d after %.0f s (%s)",
				 port, a->start_timeout, log);
			return -1;
		}
		struct timespec ts = {0, 50 * 1000000L};
		nanosleep(&ts, NULL);
	}
	return 0;
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

#define NPAGES (NROUTES + NMORE)
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

static void reference_pages(int port, char (*ref)[1 << 17])
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

static int bench_app(struct bench *B, const struct bench_app *a, struct child *ac, int port,
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
				 * said (a CI run lost the pgx tag route's to gaps) */
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

static void list_apps(const struct bench_apps *apps, const char *build_root, const char *bench_dir)
{
	bool have_wrk = system("command -v wrk >/dev/null 2>&1") == 0;
	printf("apps:\n");
	for (int i = 0; i < apps->n; i++) {
		const struct bench_app *a = &apps->app[i];
		char why[600] = "";
		bool ok = bench_app_runnable(a, why, sizeof why);
		const char *built = !a->build[0]					? "no build"
				    : bench_build_current(a, build_root, bench_dir) ? "built"
										    : "to build";
		printf("  %-18s %s%s\n  %-18s   %s%s%s\n", a->name, a->stack, i == 0 ? " (the reference)" : "",
		       "", ok ? "can run here, " : "cannot run here: ", ok ? built : why, "");
	}
	printf("routes:\n");
	for (int i = 0; i < NROUTES; i++)
		printf("  %-13s %-26s e.g. %s\n", routes[i].name, routes[i].route, routes[i].sample);
	printf("load: wrk %s\n", have_wrk ? "found" : "missing: apt-get install -y wrk");
}

static void add_reason(cJSON *arr, const char *name, const char *reason)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "name", name);
	cJSON_AddStringToObject(o, "reason", reason);
	cJSON_AddItemToArray(arr, o);
}

static cJSON *app_json(cJSON *japps, const struct bench_app *a)
{
	cJSON *ja = cJSON_CreateObject();
	cJSON_AddStringToObject(ja, "name", a->name);
	cJSON_AddStringToObject(ja, "stack", a->stack);
	cJSON_AddStringToObject(ja, "pattern", a->pattern);
	cJSON_AddItemToArray(japps, ja);
	return ja;
}

enum app_state { APP_UNUSED, APP_SKIPPED, APP_FAILED, APP_READY };

int cmd_bench(int argc, char **argv)
{
	static const struct opt_extra own[] = {
		{"quick", 0, false, B_QUICK},         {"list", 0, false, B_LIST},
		{"apps", 0, true, B_APPS},            {"routes", 0, true, B_ROUTES},
		{"duration", 0, true, B_DURATION},    {"warmup", 0, true, B_WARMUP},
		{"runs", 0, true, B_RUNS},            {"connections", 0, true, B_CONNECTIONS},
		{"out", 0, true, B_OUT},              {"dsn", 0, true, B_DSN},
		{"redis", 0, true, B_REDIS},          {"config", 0, true, B_CONFIG},
		{"build-dir", 0, true, B_BUILD_DIR},  {"build-only", 0, false, B_BUILD_ONLY},
		{"no-progress", 0, false, B_NO_PROGRESS}, {"no-status", 0, false, B_NO_PROGRESS},
		{"keep-pcaps", 0, false, B_KEEP_PCAPS}, {"clean", 0, false, B_CLEAN},
		{NULL, 0, false, 0},
	};
	static struct bench B;
	memset(&B, 0, sizeof B);
	struct bench_opts *b = &B.b;
	b->duration = b->warmup = b->runs = b->connections = -1; /* not given */
	static struct cmd_opts co;
	int pr = opts_parse(argc, argv, OPTG_DB_READ, NULL, own, bench_opt, b, &co);
	if (pr > 0) {
		help(stdout);
		return EXIT_OK;
	}
	if (pr < 0)
		return EXIT_USAGE;
	if (co.nrest) {
		usage_error("unexpected \"%s\"", co.rest[0]);
		return EXIT_USAGE;
	}
	if (b->clean) { /* what benches killed with -9 left: nothing else */
		int n = reap_stale(stale_said, NULL);
		fprintf(stderr, "pgrtt: bench: %d stale bench%s cleaned\n", n, n == 1 ? "" : "es");
		return EXIT_OK;
	}
	if (b->routes) {
		char list[512];
		snprintf(list, sizeof list, "%s", b->routes);
		for (char *s = NULL, *t = strtok_r(list, ",", &s); t; t = strtok_r(NULL, ",", &s)) {
			bool known = false;
			for (int k = 0; k < NROUTES; k++)
				known |= strcmp(routes[k].name, t) == 0;
			if (!known) {
				usage_error("unknown route \"%s\" (pgrtt bench --list)", t);
				return EXIT_USAGE;
			}
		}
	}
	find_bench_dir(B.bench_dir, sizeof B.bench_dir);
	static struct bench_apps apps;
	apps.n = 0;
	char err[1024] = "";
	if ((b->config ? bench_manifest_load_file(b->config, &apps, err, sizeof err)
		       : bench_manifest_load_dir(B.bench_dir, &apps, err, sizeof err)) != 0) {
		warnx_("%s", err);
		return EXIT_ERROR;
	}
	if (apps.n == 0) {
		warnx_("no apps in %s", b->config ? b->config : B.bench_dir);
		return EXIT_ERROR;
	}
	if (b->apps) { /* every name given must be known */
		char list[512];
		snprintf(list, sizeof list, "%s", b->apps);
		for (char *s = NULL, *t = strtok_r(list, ",", &s); t; t = strtok_r(NULL, ",", &s)) {
			bool known = false;
			for (int k = 0; k < apps.n; k++)
				known |= strcmp(apps.app[k].name, t) == 0;
			if (!known) {
				usage_error("unknown app \"%s\" (pgrtt bench --list)", t);
				return EXIT_USAGE;
			}
		}
	}
	bench_build_root(b->build_dir, B.build_root, sizeof B.build_root);
	if (b->list) {
		list_apps(&apps, B.build_root, B.bench_dir);
		return EXIT_OK;
	}
	/* the seed's procedure, or --quick's: every app and route in 3 minutes
	 * on 2 cores (a 1 s run is still thousands of pages for most apps);
	 * what is given on the command line either way */
	if (b->warmup < 0)
		b->warmup = b->quick ? 1 : 5;
	if (b->duration < 0)
		b->duration = b->quick ? 1 : 20;
	if (b->runs < 0)
		b->runs = b->quick ? 1 : 3;
	if (b->connections < 0)
		b->connections = b->quick ? 8 : 50;
	snprintf(B.outdir, sizeof B.outdir, "%s", b->out ? b->out : "bench-out");
	snprintf(B.logdir, sizeof B.logdir, "%s/logs", B.outdir);
	if ((mkdir(B.outdir, 0755) != 0 && errno != EEXIST) ||
	    (mkdir(B.logdir, 0755) != 0 && errno != EEXIST)) {
		warnx_("%s: %s", B.logdir, strerror(errno));
		return EXIT_ERROR;
	}
	B.tty = isatty(2) && !b->no_progress;
	if (b->keep_pcaps) {
		char pcaps[900];
		snprintf(pcaps, sizeof pcaps, "%s/pcaps", B.outdir);
		if (mkdir(pcaps, 0755) != 0 && errno != EEXIST) {
			warnx_("%s: %s", pcaps, strerror(errno));
			return EXIT_ERROR;
		}
	}

	struct sigaction sa = {0};
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	int rc = EXIT_OK;
	cJSON *root = cJSON_CreateObject(), *japps = cJSON_AddArrayToObject(root, "apps");
	cJSON *jskipped = cJSON_AddArrayToObject(root, "skipped");
	static enum app_state state[BENCH_MAX_APPS];
	static char reason[BENCH_MAX_APPS][400];
	/* what runs: the apps asked for, and the reference (the first app)
	 * for the pages everything is compared with */
	int nrun = 0;
	for (int i = 0; i < apps.n && !stopping; i++) {
		const struct bench_app *a = &apps.app[i];
		state[i] = APP_UNUSED;
		if (i > 0 && !listed(b->apps, a->name))
			continue;
		if (!bench_app_runnable(a, reason[i], sizeof reason[i])) {
			state[i] = APP_SKIPPED;
			warnx_("%s skipped: %s", a->name, reason[i]);
			if (i == 0) {
				warnx_("%s is the reference every app's pages are compared with",
				       a->name);
				rc = EXIT_ERROR;
				goto finish;
			}
			if (listed(b->apps, a->name))
				add_reason(jskipped, a->name, reason[i]);
			continue;
		}
		/* variants share a build: done once */
		int same = -1;
		for (int k = 0; k < i && same < 0; k++)
			if (strcmp(apps.app[k].build_id, a->build_id) == 0 &&
			    strcmp(apps.app[k].dir, a->dir) == 0 && state[k] != APP_UNUSED &&
			    state[k] != APP_SKIPPED)
				same = k;
		if (same >= 0) {
			state[i] = state[same];
			memcpy(reason[i], reason[same], sizeof reason[i]);
		} else {
			char log[1000];
			snprintf(log, sizeof log, "%s/build-%s.log", B.logdir, a->build_id);
			unlink(log);
			if (a->build[0]) {
				if (B.tty)
					fprintf(stderr, "\r\033[Kbuilding %s ...", a->name);
			}
			bool cached;
			if (bench_build(a, B.build_root, B.bench_dir, log, &cached, &stopping, reason[i],
					sizeof reason[i]) != 0) {
				status_clear(&B);
				char tail[300];
				log_tail(log, tail, sizeof tail);
				warnx_("%s: %s%s%s", a->name, reason[i], tail[0] ? ": " : "", tail);
				state[i] = APP_FAILED;
			} else {
				status_clear(&B);
				if (a->build[0])
					fprintf(stderr, "pgrtt: bench: %s %s\n", a->build_id,
						cached ? "is built (cached)" : "built");
				state[i] = APP_READY;
			}
		}
		if (state[i] == APP_FAILED) {
			if (i == 0) {
				rc = EXIT_ERROR;
				goto finish;
			}
			cJSON *ja = app_json(japps, a);
			cJSON_AddStringToObject(ja, "error", reason[i]);
			cJSON_AddBoolToObject(ja, "html_matches_reference", false);
			cJSON_AddArrayToObject(ja, "routes");
			rc = EXIT_FAILED;
		}
		if (state[i] == APP_READY && listed(b->apps, a->name))
			nrun++;
	}
	if (stopping) {
		rc = EXIT_ERROR;
		goto finish;
	}
	if (b->build_only) {
		/* and what they read, for running them by hand */
		if (write_run_files(&B) != 0) {
			rc = EXIT_ERROR;
			goto finish;
		}
		fprintf(stderr, "pgrtt: bench: apps built in %s; their SQL in %s\n", B.build_root,
			B.queries);
		goto finish;
	}
	if (system("command -v wrk >/dev/null 2>&1") != 0) {
		warnx_("wrk not found: apt-get install -y wrk");
		rc = EXIT_ERROR;
		goto finish;
	}
	int nroutes = 0;
	for (int ri = 0; ri < NROUTES; ri++)
		nroutes += listed(b->routes, routes[ri].name);
	double per_route = ceil(b->warmup) + b->runs * ceil(b->duration);
	B.planned = nrun * nroutes * per_route;
	char est[32];
	if (B.planned < 120)
		snprintf(est, sizeof est, "%.0f s", B.planned);
	else
		snprintf(est, sizeof est, "%.0f min", ceil(B.planned / 60));
	fprintf(stderr, "pgrtt: bench: %d apps × %d routes × (%.0f s warm-up + %.0f × %.0f s) ≈ %s"
			" of load\n",
		nrun, nroutes, ceil(b->warmup), b->runs, ceil(b->duration), est);
	if (write_run_files(&B) != 0) {
		rc = EXIT_ERROR;
		goto finish;
	}
	{
		struct pgserver srv = {0};
		struct redisserver rsrv = {0};
		bool have_redis = false;
		struct child app = {0, -1};
		char dsn[600], dbpath[700];
		snprintf(dbpath, sizeof dbpath, "%s/bench.db", B.outdir);
		if (co.db.db)
			snprintf(dbpath, sizeof dbpath, "%s", co.db.db);
		/* servers and apps left by a bench killed with -9 first; then this
		 * bench's own registry, before it starts anything */
		reap_stale(stale_said, NULL);
		if (reap_begin(&reg, err, sizeof err) != 0)
			warnx_("warning: %s: a bench killed with -9 would leave its servers", err);
		if (b->dsn) {
			snprintf(dsn, sizeof dsn, "%s", b->dsn);
		} else {
			fprintf(stderr, "pgrtt: bench: starting a throwaway PostgreSQL\n");
			int started = pgserver_start(&srv, err, sizeof err);
			if (srv.made_dir)
				reap_note(&reg, REAP_DIR, 0, srv.dir);
			if (started != 0) {
				warnx_("%s", err);
				rc = EXIT_ERROR;
				goto stop;
			}
			reap_note(&reg, REAP_SERVER, (pid_t)pgserver_postmaster(&srv), NULL);
			snprintf(dsn, sizeof dsn, "%s", srv.dsn);
		}
		/* the page cache */
		snprintf(B.redis_host, sizeof B.redis_host, "127.0.0.1");
		if (b->redis) {
			if (sscanf(b->redis, "%127[^:]:%d", B.redis_host, &B.redis_port) != 2) {
				usage_error("bad --redis \"%s\": HOST:PORT", b->redis);
				rc = EXIT_USAGE;
				goto stop;
			}
		} else {
			if (redisserver_start(&rsrv, srv.made_dir ? srv.dir : "/tmp", err, sizeof err) != 0) {
				warnx_("%s", err);
				rc = EXIT_ERROR;
				goto stop;
			}
			have_redis = true;
			reap_note(&reg, REAP_GROUP, rsrv.pid, NULL);
			B.redis_port = rsrv.port;
		}
		snprintf(B.redis_url, sizeof B.redis_url, "redis://%s:%d", B.redis_host, B.redis_port);
		/* the blog database, loaded */
		PGconn *c = PQconnectdb(dsn);
		if (PQstatus(c) != CONNECTION_OK) {
			warnx_("%s", pq_error(c));
			PQfinish(c);
			rc = EXIT_ERROR;
			goto stop;
		}
		if (own_database(c, err, sizeof err) != 0) {
			warnx_("%s", err);
			PQfinish(c);
			rc = EXIT_ERROR;
			goto stop;
		}
		B.pg_port = atoi(PQport(c));
		database_url(c, B.db_url, sizeof B.db_url);
		snprintf(B.blog_dsn, sizeof B.blog_dsn, "%s", dsn); /* + dbname BENCH_DB */
		PQfinish(c);
		c = connect_bench_db(B.blog_dsn);
		size_t counts[DS_NTABLES];
		if (PQstatus(c) != CONNECTION_OK ||
		    dataset_load((struct pg_conn *)c, counts, err, sizeof err) != 0) {
			warnx_("loading the dataset: %s",
			       PQstatus(c) == CONNECTION_OK ? err : pq_error(c));
			PQfinish(c);
			rc = EXIT_ERROR;
			goto stop;
		}
		PQfinish(c);
		fprintf(stderr, "pgrtt: bench: dataset loaded (%zu articles, %zu comments) on port %d\n",
			counts[DS_ARTICLES], counts[DS_COMMENTS], B.pg_port);
		if (!(B.st = open_db(dbpath, STORE_CREATE))) {
			rc = EXIT_ERROR;
			goto stop;
		}
		B.postmaster = b->dsn ? -1 : pgserver_postmaster(&srv);
		int baseline = blog_connections(B.blog_dsn);
		static char reference[NPAGES][1 << 17];
		printf("%-18s %-13s %8s %9s %8s %10s %8s %8s\n", "app", "route", "rt/page", "acq/rel",
		       "queries", "req/s", "p50 ms", "p99 ms");
		int nth = 0;
		for (int ai = 0; ai < apps.n && !stopping; ai++) {
			const struct bench_app *a = &apps.app[ai];
			bool run = listed(b->apps, a->name);
			if (state[ai] != APP_READY || (!run && ai != 0))
				continue;
			if (redis_flushall(B.redis_host, B.redis_port) != 0)
				warnx_("redis %s:%d: FLUSHALL failed", B.redis_host, B.redis_port);
			int port = free_port();
			if (start_app(&B, a, port, &app, err, sizeof err) != 0) {
				warnx_("%s: %s", a->name, err);
				if (ai == 0) {
					rc = EXIT_ERROR;
					break;
				}
				cJSON *ja = app_json(japps, a);
				cJSON_AddStringToObject(ja, "error", err);
				cJSON_AddBoolToObject(ja, "html_matches_reference", false);
				cJSON_AddArrayToObject(ja, "routes");
				rc = EXIT_FAILED;
				continue;
			}
			if (ai == 0)
				reference_pages(port, reference);
			if (run) {
				cJSON *ja = app_json(japps, a);
				int r = bench_app(&B, a, &app, port, reference, ja, ++nth, nrun);
				if (r == EXIT_ERROR) {
					rc = EXIT_ERROR;
					stopping = 1;
				} else if (r != EXIT_OK && rc == EXIT_OK) {
					rc = r;
				}
			}
			child_stop(&app, 5000);
			/* what the app left in sessions of their own came back here */
			pid_t servers[2] = {(pid_t)B.postmaster, have_redis ? rsrv.pid : 0};
			int left = reap_orphans(servers, 2);
			if (left)
				warnx_("%s: %d process%s it started outlived it: killed", a->name, left,
				       left == 1 ? "" : "es");
			wait_baseline(&B, baseline < 0 ? 0 : baseline, a->name);
		}
		status_clear(&B);
	stop:
		child_stop(&app, 2000);
		if (have_redis)
			redisserver_stop(&rsrv);
		pgserver_stop(&srv);
		reap_orphans(NULL, 0);
		reap_end(&reg);
		store_close(B.st);
		if (rc == EXIT_USAGE || (rc == EXIT_ERROR && !cJSON_GetArraySize(japps)))
			goto finish;
		cJSON_AddStringToObject(root, "machine", "loopback, everything on one host");
		cJSON_AddStringToObject(root, "pgrtt_version", pgrtt_version_string());
		char path[900];
		snprintf(path, sizeof path, "%s/results.json", B.outdir);
		FILE *jf = fopen(path, "w");
		char *txt = cJSON_Print(root);
		if (!jf || !txt || fprintf(jf, "%s\n", txt) < 0 || fclose(jf) != 0) {
			warnx_("%s: cannot write", path);
			rc = EXIT_ERROR;
			jf = NULL;
		}
		free(txt);
		snprintf(path, sizeof path, "%s/report.md", B.outdir);
		if (bench_write_md(path, root) != 0)
			warnx_("%s: cannot write", path);
		snprintf(path, sizeof path, "%s/report.html", B.outdir);
		if (bench_write_html(path, root) != 0)
			warnx_("%s: cannot write", path);
		if (stopping && rc == EXIT_OK)
			rc = EXIT_ERROR;
		if (rc != EXIT_ERROR)
			fprintf(stderr, "pgrtt: bench: %s/results.json, report.md, report.html, %s\n",
				B.outdir, store_shown(dbpath));
	}
finish:
	cJSON_Delete(root);
	return rc;
}
