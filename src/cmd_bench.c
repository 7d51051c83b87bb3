/* cmd_bench.c - pgrtt bench: the benchmark's apps launched under capture,
 * the seed's table reproduced (docs/bench.md).
 *
 * One throwaway PostgreSQL (bench_server.c) with the seed's dataset; then,
 * app by app, only that app running: its pages fetched and compared byte
 * for byte with the reference's, then route by route a warm-up and the
 * measured runs of wrk while pgrtt's own live engine captures lo.  Each
 * (app, route, run) is a stored run; results.json and report.md go to the
 * output directory. */
#define _GNU_SOURCE
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <libpq-fe.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_server.h"
#include "cli.h"
#include "commands.h"
#include "dataset.h"
#include "escape.h"
#include "evidence.h"
#include "opts.h"
#include "queries.h"
#include "results.h"
#include "source.h"
#include "store.h"

struct app {
	const char *name, *stack;
	const char *mode;   /* the reference app's POOL_MODE, or NULL */
	const char *script; /* a Python app under bench/apps, or NULL */
};

/* The reference app (bench/apps/c-libpq) in the seed's pool patterns, then
 * the real stacks. */
static const struct app apps[] = {
	{"c-pgx", "C libpq, pgx's pattern: a checkout per query, no ping", "pgx", NULL},
	{"c-rustango", "C libpq, Rustango's: a checkout per page, a release ping", "rustango", NULL},
	{"c-rocket", "C libpq, Rocket's: a checkout per page, acquire + release pings", "rocket", NULL},
	{"c-axum-sqlx", "C libpq, axum + sqlx's: a checkout per query, a release ping", "axum-sqlx", NULL},
	{"c-axum-sqlx-ping", "C libpq, axum + sqlx with test_before_acquire: both pings",
	 "axum-sqlx-ping", NULL},
	{"py-sqlalchemy", "Python http.server + SQLAlchemy 1.4 QueuePool (pool_pre_ping) + psycopg2",
	 NULL, "py-sqlalchemy/app.py"},
};
#define NAPPS (int)(sizeof apps / sizeof apps[0])

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
	"\"non_2xx\":%d,\"p50_us\":%d,\"p99_us\":%d}\\n', s.requests, s.duration,"
	" e.connect + e.read + e.write + e.timeout, e.status, latency:percentile(50),"
	" latency:percentile(99)))\n"
	"end\n";

static volatile sig_atomic_t stopping;
static struct source live;

static void on_signal(int sig)
{
	(void)sig;
	stopping = 1;
	source_breakloop(&live);
}

struct bench_opts {
	bool quick, list;
	const char *apps, *routes, *out, *dsn, *db, *redis;
	double duration, warmup, runs, connections;
};

enum { B_QUICK = 1, B_LIST, B_APPS, B_ROUTES, B_DURATION, B_WARMUP, B_RUNS, B_CONNECTIONS,
       B_OUT, B_DSN, B_REDIS };

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
	      "      --quick            a smoke run: every app and route, 1 s warm-up, one 2 s run\n"
	      "      --apps A,B         these apps only (--list shows them)\n"
	      "      --routes R,S       these routes only: index, detail, tag, cached-index,\n"
	      "                         cached-detail, compute\n"
	      "      --duration S       seconds per measured run (default 20)\n"
	      "      --warmup S         seconds of warm-up per route (default 5)\n"
	      "      --runs N           measured runs per route; the median counts (default 3)\n"
	      "      --connections N    wrk connections (default 50)\n"
	      "      --dsn DSN          an existing server instead of a throwaway one (its blog\n"
	      "                         database is loaded; nothing else is dropped)\n"
	      "      --redis HOST:PORT  an existing Redis for the page cache instead of a\n"
	      "                         throwaway redis-server (it is FLUSHALLed between apps)\n"
	      "      --db FILE          the store (default OUT/bench.db)\n"
	      "      --out DIR          results.json, report.md, bench.db (default bench-out)\n"
	      "      --list             the apps and routes, and what this machine can run\n"
	      "  -h, --help             show this help\n"
	      "\n"
	      "Exit status: 0 ok, 1 a check failed (pages differ, errors, non-2xx, drops),\n"
	      "2 setup failure, 64 usage error.\n",
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

/* ------------------------------------------------------------ processes */

/* The directory of this executable: the apps are built beside it. */
static void exe_dir(char *out, size_t cap)
{
	ssize_t n = readlink("/proc/self/exe", out, cap - 1);
	out[n > 0 ? n : 0] = '\0';
	char *slash = strrchr(out, '/');
	if (slash)
		*slash = '\0';
}

static bool app_binary(char *out, size_t cap)
{
	char dir[700];
	exe_dir(dir, sizeof dir);
	snprintf(out, cap, "%s/bench/bench_app_c_libpq", dir);
	if (access(out, X_OK) == 0)
		return true;
	snprintf(out, cap, "%s/bench_app_c_libpq", dir);
	return access(out, X_OK) == 0;
}

struct child {
	pid_t pid;
	int out; /* its standard output */
};

static int spawn(struct child *c, char *const argv[], char *const env[])
{
	int p[2];
	if (pipe(p) != 0)
		return -1;
	c->pid = fork();
	if (c->pid < 0)
		return -1;
	if (c->pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		for (int i = 0; env && env[i]; i++)
			putenv(env[i]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	c->out = p[0];
	return 0;
}

static void stop_child(struct child *c)
{
	if (c->pid > 0) {
		kill(c->pid, SIGTERM);
		while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
			;
		c->pid = 0;
	}
	if (c->out > 0)
		close(c->out);
	c->out = 0;
}

/* Read the child's output until timeout_ms passes or it ends. */
static size_t read_all(struct child *c, char *buf, size_t cap, int timeout_ms)
{
	size_t n = 0;
	for (;;) {
		struct pollfd pf = {c->out, POLLIN, 0};
		int r = poll(&pf, 1, timeout_ms);
		if (r <= 0)
			break;
		ssize_t got = read(c->out, buf + n, cap - 1 - n);
		if (got <= 0)
			break;
		n += (size_t)got;
		if (n == cap - 1)
			break;
		if (memchr(buf, '\n', n) && timeout_ms < 0)
			break;
	}
	buf[n] = '\0';
	return n;
}

/* utime + stime of a process, in clock ticks; -1 if gone */
static long long cpu_ticks(long pid)
{
	char path[64], line[1024];
	snprintf(path, sizeof path, "/proc/%ld/stat", pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	size_t n = fread(line, 1, sizeof line - 1, f);
	fclose(f);
	line[n] = '\0';
	char *p = strrchr(line, ')'); /* the name may hold spaces */
	unsigned long long ut = 0, st = 0;
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
		return -1;
	return (long long)(ut + st);
}

/* The CPU of the postmaster's children (the backends and helpers). */
static long long children_ticks(long parent)
{
	DIR *d = opendir("/proc");
	long long sum = 0;
	for (struct dirent *e; d && (e = readdir(d));) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		if (*end || pid <= 0)
			continue;
		char path[64], line[512];
		snprintf(path, sizeof path, "/proc/%ld/stat", pid);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		size_t n = fread(line, 1, sizeof line - 1, f);
		fclose(f);
		line[n] = '\0';
		char *p = strrchr(line, ')');
		long ppid = 0;
		if (p && sscanf(p + 2, "%*c %ld", &ppid) == 1 && ppid == parent) {
			long long t = cpu_ticks(pid);
			if (t > 0)
				sum += t;
		}
	}
	if (d)
		closedir(d);
	return sum;
}

static long peak_rss_kib(long pid)
{
	char path[64], line[256];
	snprintf(path, sizeof path, "/proc/%ld/status", pid);
	FILE *f = fopen(path, "r");
	long kib = 0;
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "VmHWM: %ld", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib;
}

/* A GET on 127.0.0.1:port; the whole response (status line to body). */
static size_t http_get(int port, const char *path, char *buf, size_t cap)
{
	int fd = connect_port("127.0.0.1", port);
	size_t n = 0;
	if (fd >= 0) {
		char req[512];
		int len = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
				   path);
		if (send(fd, req, (size_t)len, MSG_NOSIGNAL) == len)
			for (ssize_t r; n < cap - 1 && (r = recv(fd, buf + n, cap - 1 - n, 0)) > 0;)
				n += (size_t)r;
	}
	if (fd >= 0)
		close(fd);
	buf[n] = '\0';
	return n;
}

/* ------------------------------------------------------------ one phase */

struct phase {
	double requests, seconds, errors, non_2xx, p50_us, p99_us;
	double rt, rfq, query, ping, acq, rel, startup, tx, other, pages, drops;
	double app_cpu_us, pg_cpu_us, rss_mib;
	bool ok;
	bool measured;      /* pages captured, and nothing the figures cannot vouch for */
	char warnings[256]; /* the capture's findings (evidence.h), codes */
};

/* Run wrk for secs seconds against the app; with a store, capture it. */
static int run_wrk(int app_port, int pg_port, const struct broute *r, double secs, int conns,
		   const char *lua, bool measure, long app_pid, long postmaster, struct store *st,
		   const char *app_name, int run_no, struct phase *ph, char *err, size_t errcap)
{
	memset(ph, 0, sizeof(*ph));
	char url[64], dur[32], cs[32];
	snprintf(url, sizeof url, "http://127.0.0.1:%d", app_port);
	snprintf(dur, sizeof dur, "%.0fs", secs < 1 ? 1 : ceil(secs)); /* wrk: whole seconds */
	snprintf(cs, sizeof cs, "%d", conns);
	char *const argv[] = {"wrk", "-t", "2", "-c", cs, "-d", dur, "--latency", "-s", (char *)lua,
			      url, "--", (char *)r->lua_kind, NULL};
	static struct analysis a;
	struct analysis_opts ao = {0};
	ao.ports[0] = (uint16_t)pg_port;
	ao.nports = 1;
	ao.http_ports[0] = (uint16_t)app_port;
	ao.nhttp_ports = 1;
	static struct route_set no_routes;
	ao.routes = &no_routes;
	ao.grace_ns = ATTRIB_GRACE_NS;
	char filter[128], warn[SOURCE_ERRBUF];
	snprintf(filter, sizeof filter, "tcp and (port %d or port %d)", pg_port, app_port);
	struct live_opts lo = {"lo", 262144, 64 << 20, filter, NULL};
	if (measure) {
		if (source_open_live(&live, &lo, err, warn) != 0)
			return 2;
		if (analysis_init(&a, &ao) != 0) {
			source_close(&live);
			snprintf(err, errcap, "out of memory");
			return 2;
		}
	}
	long long app0 = cpu_ticks(app_pid), pg0 = measure ? children_ticks(postmaster) : 0;
	struct child w = {0};
	if (spawn(&w, argv, NULL) != 0) {
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
	int status = 0;
	for (;;) {
		if (measure && source_dispatch(&live, feed_analysis, &f) == SOURCE_ERROR)
			break;
		struct pollfd pf = {w.out, POLLIN, 0};
		if (poll(&pf, 1, measure ? 0 : 100) > 0) {
			ssize_t n = read(w.out, out + have, sizeof out - 1 - have);
			if (n > 0)
				have += (size_t)n;
		}
		if (waitpid(w.pid, &status, WNOHANG) == w.pid) {
			w.pid = 0;
			break;
		}
		if (stopping) {
			kill(w.pid, SIGTERM);
		}
	}
	for (ssize_t n; have < sizeof out - 1 && (n = read(w.out, out + have, sizeof out - 1 - have)) > 0;)
		have += (size_t)n;
	out[have] = '\0';
	stop_child(&w);
	struct capture_drops drops = {0};
	if (measure) {
		source_drain(&live, feed_analysis, &f);
		source_stats(&live, &drops);
		source_close(&live);
		analysis_finish(&a);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !strstr(out, "PGRTT {")) {
		snprintf(err, errcap, "wrk failed: %.200s", out);
		if (measure)
			analysis_free(&a);
		return stopping ? 2 : 1;
	}
	cJSON *j = cJSON_Parse(strstr(out, "PGRTT {") + 6);
	double *v[] = {&ph->requests, &ph->seconds, &ph->errors, &ph->non_2xx, &ph->p50_us, &ph->p99_us};
	const char *k[] = {"requests", "duration_us", "errors", "non_2xx", "p50_us", "p99_us"};
	for (int i = 0; i < 6; i++) {
		cJSON *x = cJSON_GetObjectItem(j, k[i]);
		*v[i] = cJSON_IsNumber(x) ? x->valuedouble : 0;
	}
	cJSON_Delete(j);
	ph->seconds /= 1e6;
	if (!measure)
		return 0;
	long hz = sysconf(_SC_CLK_TCK);
	long long app1 = cpu_ticks(app_pid), pg1 = children_ticks(postmaster);
	if (ph->requests > 0) {
		ph->app_cpu_us = (double)(app1 - app0) * 1e6 / (double)hz / ph->requests;
		ph->pg_cpu_us = (double)(pg1 - pg0) * 1e6 / (double)hz / ph->requests;
	}
	ph->rss_mib = (double)peak_rss_kib(app_pid) / 1024;
	ph->drops = (double)(drops.drop + drops.ifdrop);
	const struct attrib *at = &a.attrib;
	for (uint32_t i = 0; i < at->nroutes; i++) {
		const struct attrib_route *x = &at->routes[i];
		if (strcmp(x->name, r->route) != 0 || !x->pages)
			continue;
		double n = (double)x->pages;
		ph->pages = n;
		ph->rt = x->rt / n;
		ph->rfq = x->rfq / n;
		ph->query = x->by_class[RT_QUERY] / n;
		ph->ping = x->by_class[RT_PING] / n;
		ph->acq = x->pings[PING_ACQUIRE] / n;
		ph->rel = x->pings[PING_RELEASE] / n;
		ph->startup = x->by_class[RT_STARTUP] / n;
		ph->tx = x->by_class[RT_TRANSACTION] / n;
		ph->other = (x->rt - x->by_class[RT_QUERY] - x->by_class[RT_PING] -
			     x->by_class[RT_STARTUP] - x->by_class[RT_TRANSACTION]) / n;
	}
	if (st) {
		char la[96], lr[64], ln[32];
		snprintf(la, sizeof la, "app=%s", app_name);
		snprintf(lr, sizeof lr, "route=%s", r->name);
		snprintf(ln, sizeof ln, "run=%d", run_no);
		char *labels[] = {la, lr, ln};
		struct store_run_info info = {app_name, "pgrtt bench (lo)", labels, 3, false, &drops};
		int64_t id;
		char serr[STORE_ERRBUF];
		if (store_finish_run(st, &a, &info, &id, serr) != 0)
			warnx_("storing %s %s: %s", app_name, r->name, serr);
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
		o += (size_t)snprintf(ph->warnings + o, sizeof ph->warnings - o, "%s%s", o ? " " : "",
				      ev_code_name(code));
		if (o >= sizeof ph->warnings)
			o = sizeof ph->warnings - 1;
		if (code != EV_NO_POSTGRESQL && code != EV_NO_ROUND_TRIPS &&
		    code != EV_PAGES_WITHOUT_ROUND_TRIPS) {
			blocked = true;
			snprintf(err, errcap, "%s", ev.f[i].message);
		}
	}
	analysis_free(&a);
	ph->measured = ph->pages > 0 && !blocked;
	ph->ok = ph->errors == 0 && ph->non_2xx == 0 && ph->drops == 0 && ph->measured;
	return ph->ok ? 0 : 1;
}

/* ------------------------------------------------------------ the run */

static int cmp_rps(const void *x, const void *y)
{
	const struct phase *a = x, *b = y;
	double ra = a->seconds > 0 ? a->requests / a->seconds : 0;
	double rb = b->seconds > 0 ? b->requests / b->seconds : 0;
	return (ra > rb) - (ra < rb);
}

static double num(cJSON *o, const char *k)
{
	cJSON *x = cJSON_GetObjectItem(o, k);
	return cJSON_IsNumber(x) ? x->valuedouble : 0;
}

/* report.html: the headline chart - round trips per detail page by app,
 * stacked by class, each bar beside the pattern it reproduces - then every
 * route's figures.  One self-contained file (inline CSS and SVG). */
static int write_html(const char *path, cJSON *root)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<title>pgrtt bench: round trips per page</title>\n<style>\n"
	      ":root { color-scheme: light dark; --fg: #1d2329; --bg: #fff; --q: #2f6fb3; --a: #d9822b;"
	      " --r: #e8b04a; --t: #7a5cb8; --o: #8a949e; --grid: #d8dde2; }\n"
	      "@media (prefers-color-scheme: dark) { :root { --fg: #e6e9ec; --bg: #14181c; --q: #6ea8e8;"
	      " --a: #f0a45c; --r: #f5c76e; --t: #a98ae0; --o: #9aa5ae; --grid: #2c343b; } }\n"
	      "body { font: 15px/1.45 system-ui, sans-serif; color: var(--fg); background: var(--bg);"
	      " margin: 2rem auto; max-width: 70rem; padding: 0 1rem; }\n"
	      "svg text { fill: var(--fg); font-size: 13px; } .q { fill: var(--q); } .a { fill: var(--a); }"
	      " .r { fill: var(--r); } .t { fill: var(--t); } .o { fill: var(--o); }\n"
	      "table { border-collapse: collapse; font-size: 13px; } th, td { padding: .3rem .6rem;"
	      " border-bottom: 1px solid var(--grid); text-align: right; } td:first-child,"
	      " td:nth-child(2), th:first-child, th:nth-child(2) { text-align: left; }\n"
	      "</style></head><body>\n<h1>Round trips to PostgreSQL per detail page</h1>\n"
	      "<p>The same three queries; what the pool adds, by app. Captured by pgrtt on loopback "
	      "under wrk.</p>\n",
	      f);
	cJSON *apps_j = cJSON_GetObjectItem(root, "apps");
	int n = cJSON_GetArraySize(apps_j), row = 0;
	double max = 1;
	cJSON *a;
	cJSON_ArrayForEach(a, apps_j)
	{
		cJSON *r;
		cJSON_ArrayForEach(r, cJSON_GetObjectItem(a, "routes"))
		if (strcmp(cJSON_GetObjectItem(r, "route")->valuestring, "GET /articles/{id}") == 0 &&
		    num(r, "round_trips_per_page") > max)
			max = num(r, "round_trips_per_page");
	}
	const int label_w = 190, bar_w = 460, row_h = 30;
	fprintf(f, "<svg role=\"img\" width=\"%d\" height=\"%d\">\n", label_w + bar_w + 520,
		n * row_h + 40);
	cJSON_ArrayForEach(a, apps_j)
	{
		cJSON *r, *detail = NULL;
		cJSON_ArrayForEach(r, cJSON_GetObjectItem(a, "routes"))
		if (strcmp(cJSON_GetObjectItem(r, "route")->valuestring, "GET /articles/{id}") == 0)
			detail = r;
		if (!detail)
			continue;
		cJSON *bc = cJSON_GetObjectItem(detail, "by_class_per_page");
		double seg[5] = {num(bc, "query"), num(bc, "ping_acquire"), num(bc, "ping_release"),
				 num(bc, "transaction"), 0};
		double rt = num(detail, "round_trips_per_page");
		seg[4] = rt - seg[0] - seg[1] - seg[2] - seg[3];
		static const char *cls[5] = {"q", "a", "r", "t", "o"};
		static const char *what[5] = {"queries", "acquire pings", "release pings",
					      "transaction", "other"};
		int y = row * row_h + 6;
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", label_w - 8, y + 16);
		esc_html(f, cJSON_GetObjectItem(a, "name")->valuestring);
		fputs("</text>\n", f);
		double x = label_w;
		for (int k = 0; k < 5; k++) {
			double w = seg[k] > 0 ? seg[k] / max * bar_w : 0;
			if (w <= 0)
				continue;
			fprintf(f, "<rect class=\"bar %s\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"20\">"
				   "<title>%s: %.2f</title></rect>\n",
				cls[k], x, y, w, what[k], seg[k]);
			x += w;
		}
		fprintf(f, "<text x=\"%.1f\" y=\"%d\"><tspan font-weight=\"600\">%.2f</tspan> ", x + 6,
			y + 16, rt);
		esc_html(f, cJSON_GetObjectItem(a, "stack")->valuestring);
		fputs("</text>\n", f);
		row++;
	}
	int ly = row * row_h + 20;
	static const char *lcls[5] = {"q", "a", "r", "t", "o"};
	static const char *lname[5] = {"queries", "acquire pings", "release pings", "transaction",
				       "other"};
	for (int k = 0; k < 5; k++)
		fprintf(f, "<rect class=\"%s\" x=\"%d\" y=\"%d\" width=\"12\" height=\"12\"/><text x=\"%d\" y=\"%d\">%s</text>\n",
			lcls[k], label_w + k * 110, ly - 10, label_w + k * 110 + 16, ly, lname[k]);
	fputs("</svg>\n<h2>Every route</h2>\n<table>\n<tr><th>app</th><th>route</th><th>round trips /"
	      " page</th><th>req/s</th><th>p50 ms</th><th>p99 ms</th><th>app CPU µs/req</th>"
	      "<th>PostgreSQL CPU µs/page</th><th>peak RSS MiB</th></tr>\n",
	      f);
	cJSON_ArrayForEach(a, apps_j)
	{
		cJSON *r;
		cJSON_ArrayForEach(r, cJSON_GetObjectItem(a, "routes"))
		{
			fputs("<tr><td>", f);
			esc_html(f, cJSON_GetObjectItem(a, "name")->valuestring);
			fputs("</td><td>", f);
			esc_html(f, cJSON_GetObjectItem(r, "route")->valuestring);
			cJSON *lat = cJSON_GetObjectItem(r, "latency_ms");
			fprintf(f, "</td><td>%.2f</td><td>%.0f</td><td>%.2f</td><td>%.2f</td><td>%.1f</td>"
				   "<td>%.1f</td><td>%.1f</td></tr>\n",
				num(r, "round_trips_per_page"), num(r, "requests_per_s"), num(lat, "p50"),
				num(lat, "p99"), num(r, "app_cpu_us_per_request"), num(r, "pg_cpu_us_per_page"),
				num(r, "rss_mib"));
		}
	}
	fprintf(f, "</table>\n<p>%s; loopback, everything on one host: round trips carry over to "
		   "other machines, absolute req/s do not.</p>\n</body></html>\n",
		pgrtt_version_string());
	return fclose(f) == 0 ? 0 : -1;
}

/* The shared SQL (bench/queries.h) for apps that are not C. */
static int write_queries(const char *outdir)
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
	char path[800];
	snprintf(path, sizeof path, "%s/queries.json", outdir);
	FILE *f = t ? fopen(path, "w") : NULL;
	int rc = f && fputs(t, f) >= 0 ? 0 : -1;
	if (f && fclose(f) != 0)
		rc = -1;
	free(t);
	return rc;
}

static void list_apps(void)
{
	char bin[800];
	bool have_app = app_binary(bin, sizeof bin);
	bool have_wrk = system("command -v wrk >/dev/null 2>&1") == 0;
	printf("apps:\n");
	for (int i = 0; i < NAPPS; i++)
		printf("  %-18s %s%s\n", apps[i].name, apps[i].stack,
		       have_app ? "" : "  (not built here: bench_app_c_libpq missing)");
	printf("routes:\n");
	for (int i = 0; i < NROUTES; i++)
		printf("  %-8s %-20s e.g. %s\n", routes[i].name, routes[i].route, routes[i].sample);
	printf("load: wrk %s\n", have_wrk ? "found" : "missing: apt-get install -y wrk");
}

int cmd_bench(int argc, char **argv)
{
	static const struct opt_extra own[] = {
		{"quick", 0, false, B_QUICK},       {"list", 0, false, B_LIST},
		{"apps", 0, true, B_APPS},          {"routes", 0, true, B_ROUTES},
		{"duration", 0, true, B_DURATION},  {"warmup", 0, true, B_WARMUP},
		{"runs", 0, true, B_RUNS},          {"connections", 0, true, B_CONNECTIONS},
		{"out", 0, true, B_OUT},            {"dsn", 0, true, B_DSN},
		{"redis", 0, true, B_REDIS},
		{NULL, 0, false, 0},
	};
	struct bench_opts b = {0};
	b.duration = 20, b.warmup = 5, b.runs = 3, b.connections = 50;
	static struct cmd_opts co;
	int pr = opts_parse(argc, argv, OPTG_DB_READ, NULL, own, bench_opt, &b, &co);
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
	if (b.list) {
		list_apps();
		return EXIT_OK;
	}
	if (b.quick) {
		b.warmup = 1;
		b.duration = 2;
		b.runs = 1;
		b.connections = 8;
	}
	if (b.apps) { /* every name given must be known */
		char list[512];
		snprintf(list, sizeof list, "%s", b.apps);
		for (char *s = NULL, *t = strtok_r(list, ",", &s); t; t = strtok_r(NULL, ",", &s)) {
			bool known = false;
			for (int k = 0; k < NAPPS; k++)
				known |= strcmp(apps[k].name, t) == 0;
			if (!known) {
				usage_error("unknown app \"%s\" (pgrtt bench --list)", t);
				return EXIT_USAGE;
			}
		}
	}
	const char *outdir = b.out ? b.out : "bench-out";
	char app_bin[800];
	if (!app_binary(app_bin, sizeof app_bin)) {
		warnx_("bench_app_c_libpq is not built beside pgrtt (cmake --build builds it)");
		return EXIT_ERROR;
	}
	if (system("command -v wrk >/dev/null 2>&1") != 0) {
		warnx_("wrk not found: apt-get install -y wrk");
		return EXIT_ERROR;
	}
	mkdir(outdir, 0755);
	char dbpath[700];
	snprintf(dbpath, sizeof dbpath, "%s/bench.db", outdir);
	if (co.db.db)
		snprintf(dbpath, sizeof dbpath, "%s", co.db.db);

	struct sigaction sa = {0};
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	int rc = EXIT_OK;
	char err[1024] = "";
	struct pgserver srv = {0};
	struct redisserver *redis_srv = NULL;
	struct store *st = NULL;
	struct child app = {0};
	char dsn[600];
	cJSON *root = cJSON_CreateObject(), *japps = cJSON_AddArrayToObject(root, "apps");
	FILE *md = NULL;
	char lua[800];
	snprintf(lua, sizeof lua, "%s/bench.lua", outdir);
	FILE *lf = fopen(lua, "w");
	if (!lf || fputs(lua_script, lf) < 0 || fclose(lf) != 0) {
		warnx_("%s: cannot write", lua);
		return EXIT_ERROR;
	}
	if (write_queries(outdir) != 0) {
		warnx_("%s/queries.json: cannot write", outdir);
		return EXIT_ERROR;
	}
	if (b.dsn) {
		snprintf(dsn, sizeof dsn, "%s", b.dsn);
	} else {
		fprintf(stderr, "pgrtt: bench: starting a throwaway PostgreSQL\n");
		if (pgserver_start(&srv, err, sizeof err) != 0) {
			warnx_("%s", err);
			rc = EXIT_ERROR;
			goto done;
		}
		snprintf(dsn, sizeof dsn, "%s", srv.dsn);
	}
	/* the page cache */
	struct redisserver rsrv = {0};
	char redis_host[128] = "127.0.0.1", redis_url[200];
	int redis_port = 0;
	if (b.redis) {
		if (sscanf(b.redis, "%127[^:]:%d", redis_host, &redis_port) != 2) {
			usage_error("bad --redis \"%s\": HOST:PORT", b.redis);
			rc = EXIT_USAGE;
			goto done;
		}
	} else {
		if (redisserver_start(&rsrv, srv.made_dir ? srv.dir : "/tmp", err, sizeof err) != 0) {
			warnx_("%s", err);
			rc = EXIT_ERROR;
			goto done;
		}
		redis_port = rsrv.port;
	}
	redis_srv = &rsrv;
	snprintf(redis_url, sizeof redis_url, "REDIS_URL=redis://%s:%d", redis_host, redis_port);
	/* the blog database, loaded */
	PGconn *c = PQconnectdb(dsn);
	if (PQstatus(c) != CONNECTION_OK) {
		warnx_("%s", PQerrorMessage(c));
		PQfinish(c);
		rc = EXIT_ERROR;
		goto done;
	}
	PQclear(PQexec(c, "CREATE DATABASE blog"));
	int pg_port = atoi(PQport(c));
	char blog_dsn[700];
	snprintf(blog_dsn, sizeof blog_dsn, "%s dbname=blog", dsn);
	PQfinish(c);
	c = PQconnectdb(blog_dsn);
	size_t counts[DS_NTABLES];
	if (PQstatus(c) != CONNECTION_OK ||
	    dataset_load((struct pg_conn *)c, counts, err, sizeof err) != 0) {
		warnx_("loading the dataset: %s", PQstatus(c) == CONNECTION_OK ? err : PQerrorMessage(c));
		PQfinish(c);
		rc = EXIT_ERROR;
		goto done;
	}
	PQfinish(c);
	fprintf(stderr, "pgrtt: bench: dataset loaded (%zu articles, %zu comments) on port %d\n",
		counts[DS_ARTICLES], counts[DS_COMMENTS], pg_port);
	if (!(st = open_db(dbpath, STORE_CREATE))) {
		rc = EXIT_ERROR;
		goto done;
	}
	long postmaster = b.dsn ? -1 : pgserver_postmaster(&srv);
	static char reference[NROUTES][1 << 17];
	bool have_reference = false;
	int app_port = 18180;
	char mdpath[800];
	snprintf(mdpath, sizeof mdpath, "%s/report.md", outdir);
	md = fopen(mdpath, "w");
	if (md)
		fprintf(md, "| app | route | round trips / page | acquire / release pings | queries | req/s | p50 ms | p99 ms | app CPU µs/req | PostgreSQL CPU µs/page |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	printf("%-18s %-8s %8s %9s %8s %10s %8s %8s\n", "app", "route", "rt/page", "acq/rel",
	       "queries", "req/s", "p50 ms", "p99 ms");
	for (int ai = 0; ai < NAPPS && !stopping; ai++) {
		if (!listed(b.apps, apps[ai].name))
			continue;
		char e1[64], e2[800], e3[32];
		snprintf(e1, sizeof e1, "PORT=%d", app_port);
		snprintf(e2, sizeof e2, "DATABASE_URL=%s", blog_dsn);
		snprintf(e3, sizeof e3, "POOL_MODE=%s", apps[ai].mode ? apps[ai].mode : "");
		char *env[] = {e1, e2, e3, "POOL_MAX=16", "POOL_MIN=4", redis_url, NULL, NULL};
		if (redis_flushall(redis_host, redis_port) != 0)
			warnx_("redis %s:%d: FLUSHALL failed", redis_host, redis_port);
		char script[900], qenv[900];
		snprintf(script, sizeof script, "%s/apps/%s", PGRTT_BENCH_SRC,
			 apps[ai].script ? apps[ai].script : "");
		snprintf(qenv, sizeof qenv, "QUERIES=%s/queries.json", outdir);
		env[6] = qenv;
		char *aargv[] = {app_bin, NULL}, *pargv[] = {"/usr/bin/python3", script, NULL};
		if (apps[ai].script && access(script, R_OK) != 0) {
			warnx_("%s: %s missing: skipped", apps[ai].name, script);
			continue;
		}
		if (spawn(&app, apps[ai].script ? pargv : aargv, env) != 0) {
			warnx_("%s: cannot start", apps[ai].name);
			rc = EXIT_ERROR;
			break;
		}
		char line[256];
		read_all(&app, line, sizeof line, 5000);
		if (!strstr(line, "ready")) {
			warnx_("%s: did not start (%s)", apps[ai].name, line);
			rc = EXIT_ERROR;
			break;
		}
		/* the same pages as the reference, byte for byte */
		bool same = true;
		static char page[1 << 17];
		for (int ri = 0; ri < NROUTES; ri++) {
			http_get(app_port, routes[ri].sample, page, sizeof page);
			/* the status line and the body: headers differ between servers */
			char *body = strstr(page, "\r\n\r\n"), *eol = strstr(page, "\r\n");
			if (body && eol)
				memmove(eol + 2, body + 4, strlen(body + 4) + 1);
			if (!have_reference) {
				memcpy(reference[ri], page, sizeof page);
			} else if (strcmp(reference[ri], page) != 0) {
				size_t k = 0;
				while (reference[ri][k] && reference[ri][k] == page[k])
					k++;
				char *ls = page + k;
				while (ls > page && ls[-1] != '\n')
					ls--;
				warnx_("%s: %s differs from the reference at \"%.80s\"", apps[ai].name,
				       routes[ri].sample, ls);
				same = false;
			}
		}
		have_reference = true;
		cJSON *ja = cJSON_CreateObject();
		cJSON_AddStringToObject(ja, "name", apps[ai].name);
		cJSON_AddStringToObject(ja, "stack", apps[ai].stack);
		cJSON_AddBoolToObject(ja, "html_matches_reference", same);
		cJSON *jr = cJSON_AddArrayToObject(ja, "routes");
		cJSON_AddItemToArray(japps, ja);
		if (!same) {
			rc = EXIT_FAILED;
			stop_child(&app);
			break;
		}
		for (int ri = 0; ri < NROUTES && !stopping; ri++) {
			if (!listed(b.routes, routes[ri].name))
				continue;
			struct phase warm, ph[99];
			int runs = (int)b.runs;
			if (b.warmup > 0)
				run_wrk(app_port, pg_port, &routes[ri], b.warmup, (int)b.connections, lua,
					false, app.pid, postmaster, NULL, apps[ai].name, 0, &warm, err,
					sizeof err);
			bool ok = true;
			for (int k = 0; k < runs && !stopping; k++) {
				int r = run_wrk(app_port, pg_port, &routes[ri], b.duration, (int)b.connections,
						lua, true, app.pid, postmaster, st, apps[ai].name, k + 1,
						&ph[k], err, sizeof err);
				if (r == 2) {
					warnx_("%s %s: %s", apps[ai].name, routes[ri].name, err);
					rc = EXIT_ERROR;
					stopping = 1;
				} else if (r == 1) {
					warnx_("%s %s run %d: %s", apps[ai].name, routes[ri].name, k + 1,
					       err[0] ? err
						      : "errors, non-2xx responses, drops or no page captured");
				}
				err[0] = '\0';
				ok &= r == 0;
			}
			if (stopping && rc == EXIT_ERROR)
				break;
			qsort(ph, (size_t)runs, sizeof ph[0], cmp_rps);
			const struct phase *m = &ph[runs / 2]; /* the median run */
			double rps = m->seconds > 0 ? m->requests / m->seconds : 0;
			if (m->measured)
				printf("%-18s %-8s %8.2f %4.2f/%-4.2f %8.2f %10.0f %8.2f %8.2f\n",
				       apps[ai].name, routes[ri].name, m->rt, m->acq, m->rel, m->query, rps,
				       m->p50_us / 1000, m->p99_us / 1000);
			else
				printf("%-18s %-8s %8s  not measured (%s)\n", apps[ai].name,
				       routes[ri].name, "-", m->warnings[0] ? m->warnings : "no page");
			fflush(stdout);
			if (md && m->measured) {
				fputs("| ", md);
				esc_md(md, apps[ai].name);
				fputs(" | ", md);
				esc_md(md, routes[ri].route);
				fprintf(md, " | **%.2f** | %.2f / %.2f | %.2f | %.0f | %.2f | %.2f | %.1f | %.1f |\n",
					m->rt, m->acq, m->rel, m->query, rps, m->p50_us / 1000, m->p99_us / 1000,
					m->app_cpu_us, m->pg_cpu_us);
			}
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "route", routes[ri].route);
			cJSON_AddBoolToObject(o, "measured", m->measured);
			cJSON *w = cJSON_AddArrayToObject(o, "warnings");
			char codes[sizeof m->warnings];
			snprintf(codes, sizeof codes, "%s", m->warnings);
			for (char *sv = NULL, *t = strtok_r(codes, " ", &sv); t; t = strtok_r(NULL, " ", &sv))
				cJSON_AddItemToArray(w, cJSON_CreateString(t));
			if (m->measured)
				cJSON_AddNumberToObject(o, "round_trips_per_page", round(m->rt * 1e4) / 1e4);
			else
				cJSON_AddNullToObject(o, "round_trips_per_page");
			cJSON_AddNumberToObject(o, "ready_for_query_per_page", round(m->rfq * 1e4) / 1e4);
			cJSON *bc = cJSON_AddObjectToObject(o, "by_class_per_page");
			cJSON_AddNumberToObject(bc, "query", round(m->query * 1e4) / 1e4);
			cJSON_AddNumberToObject(bc, "ping", round(m->ping * 1e4) / 1e4);
			cJSON_AddNumberToObject(bc, "ping_acquire", round(m->acq * 1e4) / 1e4);
			cJSON_AddNumberToObject(bc, "ping_release", round(m->rel * 1e4) / 1e4);
			/* connections the pool opened during the run: their startups */
			cJSON_AddNumberToObject(bc, "startup", round(m->startup * 1e4) / 1e4);
			cJSON_AddNumberToObject(bc, "transaction", round(m->tx * 1e4) / 1e4);
			cJSON_AddNumberToObject(bc, "other", round(m->other * 1e4) / 1e4);
			cJSON_AddNumberToObject(o, "pages", m->pages);
			cJSON_AddNumberToObject(o, "requests_per_s", round(rps));
			cJSON *lat = cJSON_AddObjectToObject(o, "latency_ms");
			cJSON_AddNumberToObject(lat, "p50", m->p50_us / 1000);
			cJSON_AddNumberToObject(lat, "p99", m->p99_us / 1000);
			cJSON_AddNumberToObject(o, "non_2xx", m->non_2xx);
			cJSON_AddNumberToObject(o, "errors", m->errors);
			cJSON_AddNumberToObject(o, "rss_mib", round(m->rss_mib * 10) / 10);
			cJSON_AddNumberToObject(o, "app_cpu_us_per_request", round(m->app_cpu_us * 10) / 10);
			cJSON_AddNumberToObject(o, "pg_cpu_us_per_page", round(m->pg_cpu_us * 10) / 10);
			cJSON_AddNumberToObject(o, "drops", m->drops);
			cJSON_AddItemToArray(jr, o);
			if (!ok && rc == EXIT_OK)
				rc = EXIT_FAILED;
		}
		stop_child(&app);
	}
	cJSON_AddStringToObject(root, "machine", "loopback, everything on one host");
	cJSON_AddStringToObject(root, "pgrtt_version", pgrtt_version_string());
	char jpath[800];
	snprintf(jpath, sizeof jpath, "%s/results.json", outdir);
	FILE *jf = fopen(jpath, "w");
	char *txt = cJSON_Print(root);
	if (jf && txt)
		fprintf(jf, "%s\n", txt);
	if (jf)
		fclose(jf);
	free(txt);
	char hpath[800];
	snprintf(hpath, sizeof hpath, "%s/report.html", outdir);
	if (write_html(hpath, root) != 0)
		warnx_("%s: cannot write", hpath);
	if (stopping && rc == EXIT_OK)
		rc = EXIT_ERROR;
done:
	stop_child(&app);
	if (redis_srv)
		redisserver_stop(redis_srv);
	if (md)
		fclose(md);
	store_close(st);
	cJSON_Delete(root);
	pgserver_stop(&srv);
	if (rc == EXIT_OK)
		fprintf(stderr, "pgrtt: bench: %s/results.json, %s/report.md, %s/report.html, %s\n",
			outdir, outdir, outdir, dbpath);
	return rc;
}
