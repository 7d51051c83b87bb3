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
#include "bench/bench_run.h"
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
	bench_stop();
}

enum { B_QUICK = 1, B_LIST, B_APPS, B_ROUTES, B_DURATION, B_WARMUP, B_RUNS, B_CONNECTIONS,
       B_OUT, B_DSN, B_REDIS, B_CONFIG, B_BUILD_DIR, B_BUILD_ONLY, B_NO_PROGRESS, B_KEEP_PCAPS,
       B_CLEAN };

static int bench_opt(void *ctx, int id, const char *arg)
{
	struct bench_opts *b = &((struct bench *)ctx)->b;
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

/* Every name in the comma-separated list must be one of names[] (what
 * says which: "route", "app").  False after a usage error. */
static bool names_known(const char *list, const char *what, const char *const *names, int n)
{
	if (!list)
		return true;
	char buf[512];
	snprintf(buf, sizeof buf, "%s", list);
	for (char *s = NULL, *t = strtok_r(buf, ",", &s); t; t = strtok_r(NULL, ",", &s)) {
		bool known = false;
		for (int k = 0; k < n; k++)
			known |= strcmp(names[k], t) == 0;
		if (!known) {
			usage_error("unknown %s \"%s\" (pgrtt bench --list)", what, t);
			return false;
		}
	}
	return true;
}

/* The seed's procedure, or --quick's: every app and route in 3 minutes on
 * 2 cores (a 1 s run is still thousands of pages for most apps); what is
 * given on the command line either way. */
static void procedure(struct bench_opts *b)
{
	if (b->warmup < 0)
		b->warmup = b->quick ? 1 : 5;
	if (b->duration < 0)
		b->duration = b->quick ? 1 : 20;
	if (b->runs < 0)
		b->runs = b->quick ? 1 : 3;
	if (b->connections < 0)
		b->connections = b->quick ? 8 : 50;
}

/* bench-out/ and its logs/ (and pcaps/ with --keep-pcaps): false, said,
 * when one cannot be made. */
static bool make_out_dirs(struct bench *B)
{
	const struct bench_opts *b = &B->b;
	snprintf(B->outdir, sizeof B->outdir, "%s", b->out ? b->out : "bench-out");
	snprintf(B->logdir, sizeof B->logdir, "%s/logs", B->outdir);
	if ((mkdir(B->outdir, 0755) != 0 && errno != EEXIST) ||
	    (mkdir(B->logdir, 0755) != 0 && errno != EEXIST)) {
		warnx_("%s: %s", B->logdir, strerror(errno));
		return false;
	}
	if (b->keep_pcaps) {
		char pcaps[900];
		snprintf(pcaps, sizeof pcaps, "%s/pcaps", B->outdir);
		if (mkdir(pcaps, 0755) != 0 && errno != EEXIST) {
			warnx_("%s: %s", pcaps, strerror(errno));
			return false;
		}
	}
	return true;
}

/* What a bench run holds from its apps' builds to its results. */
struct bench_session {
	struct bench_apps apps;
	enum app_state state[BENCH_MAX_APPS];
	char reason[BENCH_MAX_APPS][400];
	int nrun; /* apps to measure */
	cJSON *root, *japps, *jskipped;
	struct pgserver srv;
	struct redisserver rsrv;
	bool have_redis;
	struct child app;
	char dbpath[700];
	char reference[NPAGES][1 << 17];
};

/* App i built, or found built (variants share a build: done once). */
static void build_app(struct bench *B, struct bench_session *S, int i)
{
	const struct bench_app *a = &S->apps.app[i];
	for (int k = 0; k < i; k++)
		if (strcmp(S->apps.app[k].build_id, a->build_id) == 0 &&
		    strcmp(S->apps.app[k].dir, a->dir) == 0 && S->state[k] != APP_UNUSED &&
		    S->state[k] != APP_SKIPPED) {
			S->state[i] = S->state[k];
			memcpy(S->reason[i], S->reason[k], sizeof S->reason[i]);
			return;
		}
	char log[1000];
	snprintf(log, sizeof log, "%s/build-%s.log", B->logdir, a->build_id);
	unlink(log);
	if (a->build[0] && B->tty)
		fprintf(stderr, "\r\033[Kbuilding %s ...", a->name);
	bool cached;
	if (bench_build(a, B->build_root, B->bench_dir, log, &cached, &stopping, S->reason[i],
			sizeof S->reason[i]) != 0) {
		status_clear(B);
		char tail[300];
		log_tail(log, tail, sizeof tail);
		warnx_("%s: %s%s%s", a->name, S->reason[i], tail[0] ? ": " : "", tail);
		S->state[i] = APP_FAILED;
	} else {
		status_clear(B);
		if (a->build[0])
			fprintf(stderr, "pgrtt: bench: %s %s\n", a->build_id,
				cached ? "is built (cached)" : "built");
		S->state[i] = APP_READY;
	}
}

/* An app that never ran, in results.json with why. */
static void app_failed(struct bench_session *S, const struct bench_app *a, const char *why)
{
	cJSON *ja = app_json(S->japps, a);
	cJSON_AddStringToObject(ja, "error", why);
	cJSON_AddBoolToObject(ja, "html_matches_reference", false);
	cJSON_AddArrayToObject(ja, "routes");
}

/* What runs: the apps asked for, and the reference (the first app) for
 * the pages everything is compared with, each built.  EXIT_OK, EXIT_FAILED
 * (an app failed to build), or EXIT_ERROR (the reference cannot run). */
static int build_apps(struct bench *B, struct bench_session *S)
{
	const struct bench_opts *b = &B->b;
	int rc = EXIT_OK;
	for (int i = 0; i < S->apps.n && !stopping; i++) {
		const struct bench_app *a = &S->apps.app[i];
		S->state[i] = APP_UNUSED;
		if (i > 0 && !listed(b->apps, a->name))
			continue;
		if (!bench_app_runnable(a, S->reason[i], sizeof S->reason[i])) {
			S->state[i] = APP_SKIPPED;
			warnx_("%s skipped: %s", a->name, S->reason[i]);
			if (i == 0) {
				warnx_("%s is the reference every app's pages are compared with",
				       a->name);
				return EXIT_ERROR;
			}
			if (listed(b->apps, a->name))
				add_reason(S->jskipped, a->name, S->reason[i]);
			continue;
		}
		build_app(B, S, i);
		if (S->state[i] == APP_FAILED) {
			if (i == 0)
				return EXIT_ERROR;
			app_failed(S, a, S->reason[i]);
			rc = EXIT_FAILED;
		}
		if (S->state[i] == APP_READY && listed(b->apps, a->name))
			S->nrun++;
	}
	return stopping ? EXIT_ERROR : rc;
}

/* The load to come, said: apps x routes x (warm-up + runs x duration). */
static void say_plan(struct bench *B, int nrun)
{
	const struct bench_opts *b = &B->b;
	int nroutes = 0;
	for (int ri = 0; ri < NROUTES; ri++)
		nroutes += listed(b->routes, routes[ri].name);
	double per_route = ceil(b->warmup) + b->runs * ceil(b->duration);
	B->planned = nrun * nroutes * per_route;
	char est[32];
	if (B->planned < 120)
		snprintf(est, sizeof est, "%.0f s", B->planned);
	else
		snprintf(est, sizeof est, "%.0f min", ceil(B->planned / 60));
	fprintf(stderr, "pgrtt: bench: %d apps × %d routes × (%.0f s warm-up + %.0f × %.0f s) ≈ %s"
			" of load\n",
		nrun, nroutes, ceil(b->warmup), b->runs, ceil(b->duration), est);
}

/* PostgreSQL (--dsn's, or a throwaway one) and Redis (--redis's, or a
 * throwaway one), each noted in the registry a bench killed with -9
 * leaves; their addresses into B.  EXIT_OK, EXIT_USAGE or EXIT_ERROR
 * (said). */
static int start_servers(struct bench *B, struct bench_session *S, char *dsn, size_t dsn_cap)
{
	const struct bench_opts *b = &B->b;
	char err[1024] = "";
	/* servers and apps left by a bench killed with -9 first; then this
	 * bench's own registry, before it starts anything */
	reap_stale(stale_said, NULL);
	if (reap_begin(&reg, err, sizeof err) != 0)
		warnx_("warning: %s: a bench killed with -9 would leave its servers", err);
	if (b->dsn) {
		snprintf(dsn, dsn_cap, "%s", b->dsn);
	} else {
		fprintf(stderr, "pgrtt: bench: starting a throwaway PostgreSQL\n");
		int started = pgserver_start(&S->srv, err, sizeof err);
		if (S->srv.made_dir)
			reap_note(&reg, REAP_DIR, 0, S->srv.dir);
		if (started != 0) {
			warnx_("%s", err);
			return EXIT_ERROR;
		}
		reap_note(&reg, REAP_SERVER, (pid_t)pgserver_postmaster(&S->srv), NULL);
		snprintf(dsn, dsn_cap, "%s", S->srv.dsn);
	}
	/* the page cache */
	snprintf(B->redis_host, sizeof B->redis_host, "127.0.0.1");
	if (b->redis) {
		if (sscanf(b->redis, "%127[^:]:%d", B->redis_host, &B->redis_port) != 2) {
			usage_error("bad --redis \"%s\": HOST:PORT", b->redis);
			return EXIT_USAGE;
		}
	} else {
		if (redisserver_start(&S->rsrv, S->srv.made_dir ? S->srv.dir : "/tmp", err,
				      sizeof err) != 0) {
			warnx_("%s", err);
			return EXIT_ERROR;
		}
		S->have_redis = true;
		reap_note(&reg, REAP_GROUP, S->rsrv.pid, NULL);
		B->redis_port = S->rsrv.port;
	}
	snprintf(B->redis_url, sizeof B->redis_url, "redis://%s:%d", B->redis_host, B->redis_port);
	return EXIT_OK;
}

/* The blog database made on dsn's server and the dataset loaded into it.
 * EXIT_OK or EXIT_ERROR (said). */
static int load_blog(struct bench *B, const char *dsn)
{
	char err[1024] = "";
	PGconn *c = PQconnectdb(dsn);
	if (PQstatus(c) != CONNECTION_OK) {
		warnx_("%s", pq_error(c));
		PQfinish(c);
		return EXIT_ERROR;
	}
	if (own_database(c, err, sizeof err) != 0) {
		warnx_("%s", err);
		PQfinish(c);
		return EXIT_ERROR;
	}
	B->pg_port = atoi(PQport(c));
	database_url(c, B->db_url, sizeof B->db_url);
	snprintf(B->blog_dsn, sizeof B->blog_dsn, "%s", dsn); /* + dbname BENCH_DB */
	PQfinish(c);
	c = connect_bench_db(B->blog_dsn);
	size_t counts[DS_NTABLES];
	if (PQstatus(c) != CONNECTION_OK || dataset_load((struct pg_conn *)c, counts, err, sizeof err) != 0) {
		warnx_("loading the dataset: %s", PQstatus(c) == CONNECTION_OK ? err : pq_error(c));
		PQfinish(c);
		return EXIT_ERROR;
	}
	PQfinish(c);
	fprintf(stderr, "pgrtt: bench: dataset loaded (%zu articles, %zu comments) on port %d\n",
		counts[DS_ARTICLES], counts[DS_COMMENTS], B->pg_port);
	return EXIT_OK;
}

/* Each app that is ready, in turn: started on a free port, the reference's
 * pages kept, the routes measured (bench_app), stopped, and what it left
 * reaped.  The exit status so far, made worse only. */
static int run_apps(struct bench *B, struct bench_session *S, int rc)
{
	const struct bench_opts *b = &B->b;
	char err[1024] = "";
	int baseline = blog_connections(B->blog_dsn);
	printf("%-18s %-13s %8s %9s %8s %10s %8s %8s\n", "app", "route", "rt/page", "acq/rel",
	       "queries", "req/s", "p50 ms", "p99 ms");
	int nth = 0;
	for (int ai = 0; ai < S->apps.n && !stopping; ai++) {
		const struct bench_app *a = &S->apps.app[ai];
		bool run = listed(b->apps, a->name);
		if (S->state[ai] != APP_READY || (!run && ai != 0))
			continue;
		if (redis_flushall(B->redis_host, B->redis_port) != 0)
			warnx_("redis %s:%d: FLUSHALL failed", B->redis_host, B->redis_port);
		int port = free_port();
		if (start_app(B, a, port, &S->app, err, sizeof err) != 0) {
			warnx_("%s: %s", a->name, err);
			if (ai == 0)
				return EXIT_ERROR;
			app_failed(S, a, err);
			rc = EXIT_FAILED;
			continue;
		}
		if (ai == 0)
			reference_pages(port, S->reference);
		if (run) {
			cJSON *ja = app_json(S->japps, a);
			int r = bench_app(B, a, &S->app, port, S->reference, ja, ++nth, S->nrun);
			if (r == EXIT_ERROR) {
				rc = EXIT_ERROR;
				stopping = 1;
			} else if (r != EXIT_OK && rc == EXIT_OK) {
				rc = r;
			}
		}
		child_stop(&S->app, 5000);
		/* what the app left in sessions of their own came back here */
		pid_t servers[2] = {(pid_t)B->postmaster, S->have_redis ? S->rsrv.pid : 0};
		int left = reap_orphans(servers, 2);
		if (left)
			warnx_("%s: %d process%s it started outlived it: killed", a->name, left,
			       left == 1 ? "" : "es");
		wait_baseline(B, baseline < 0 ? 0 : baseline, a->name);
	}
	status_clear(B);
	return rc;
}

/* Servers, the dataset and the store, then every app measured; rc is the
 * exit status the builds left. */
static int measure(struct bench *B, struct bench_session *S, const char *db, int rc)
{
	char dsn[600];
	snprintf(S->dbpath, sizeof S->dbpath, "%s/bench.db", B->outdir);
	if (db)
		snprintf(S->dbpath, sizeof S->dbpath, "%s", db);
	int r = start_servers(B, S, dsn, sizeof dsn);
	if (r == EXIT_OK)
		r = load_blog(B, dsn);
	if (r == EXIT_OK && !(B->st = open_db(S->dbpath, STORE_CREATE)))
		r = EXIT_ERROR;
	if (r != EXIT_OK)
		return r;
	B->postmaster = B->b.dsn ? -1 : pgserver_postmaster(&S->srv);
	return run_apps(B, S, rc);
}

/* results.json, report.md and report.html in the output folder. */
static int write_results(struct bench *B, struct bench_session *S, int rc)
{
	cJSON_AddStringToObject(S->root, "machine", "loopback, everything on one host");
	cJSON_AddStringToObject(S->root, "pgrtt_version", pgrtt_version_string());
	char path[900];
	snprintf(path, sizeof path, "%s/results.json", B->outdir);
	FILE *jf = fopen(path, "w");
	char *txt = cJSON_Print(S->root);
	if (!jf || !txt || fprintf(jf, "%s\n", txt) < 0 || fclose(jf) != 0) {
		warnx_("%s: cannot write", path);
		rc = EXIT_ERROR;
	}
	free(txt);
	snprintf(path, sizeof path, "%s/report.md", B->outdir);
	if (bench_write_md(path, S->root) != 0)
		warnx_("%s: cannot write", path);
	snprintf(path, sizeof path, "%s/report.html", B->outdir);
	if (bench_write_html(path, S->root) != 0)
		warnx_("%s: cannot write", path);
	if (stopping && rc == EXIT_OK)
		rc = EXIT_ERROR;
	if (rc != EXIT_ERROR)
		fprintf(stderr, "pgrtt: bench: %s/results.json, report.md, report.html, %s\n",
			B->outdir, store_shown(S->dbpath));
	return rc;
}

/* The apps built, the load planned, then measured between servers that
 * are stopped whatever happens. */
static int bench_all(struct bench *B, struct bench_session *S, const char *db)
{
	const struct bench_opts *b = &B->b;
	int rc = build_apps(B, S);
	if (rc == EXIT_ERROR)
		return rc;
	if (b->build_only) {
		/* and what they read, for running them by hand */
		if (write_run_files(B) != 0)
			return EXIT_ERROR;
		fprintf(stderr, "pgrtt: bench: apps built in %s; their SQL in %s\n", B->build_root,
			B->queries);
		return rc;
	}
	if (system("command -v wrk >/dev/null 2>&1") != 0) {
		warnx_("wrk not found: apt-get install -y wrk");
		return EXIT_ERROR;
	}
	say_plan(B, S->nrun);
	if (write_run_files(B) != 0)
		return EXIT_ERROR;
	rc = measure(B, S, db, rc);
	child_stop(&S->app, 2000);
	if (S->have_redis)
		redisserver_stop(&S->rsrv);
	pgserver_stop(&S->srv);
	reap_orphans(NULL, 0);
	reap_end(&reg);
	store_close(B->st);
	if (rc == EXIT_USAGE || (rc == EXIT_ERROR && !cJSON_GetArraySize(S->japps)))
		return rc;
	return write_results(B, S, rc);
}

static void bench_init(void *state, struct cmd_opts *co)
{
	(void)co;
	struct bench *B = state;
	B->b.duration = B->b.warmup = B->b.runs = B->b.connections = -1; /* not given */
}

static int bench_run(const struct cmd_opts *co, void *state)
{
	struct bench *B = state;
	struct bench_opts *b = &B->b;
	if (b->clean) { /* what benches killed with -9 left: nothing else */
		int n = reap_stale(stale_said, NULL);
		fprintf(stderr, "pgrtt: bench: %d stale bench%s cleaned\n", n, n == 1 ? "" : "es");
		return EXIT_OK;
	}
	const char *route_names[NROUTES];
	for (int k = 0; k < NROUTES; k++)
		route_names[k] = routes[k].name;
	if (!names_known(b->routes, "route", route_names, NROUTES))
		return EXIT_USAGE;
	find_bench_dir(B->bench_dir, sizeof B->bench_dir);
	static struct bench_session S;
	char err[1024] = "";
	if ((b->config ? bench_manifest_load_file(b->config, &S.apps, err, sizeof err)
		       : bench_manifest_load_dir(B->bench_dir, &S.apps, err, sizeof err)) != 0) {
		warnx_("%s", err);
		return EXIT_ERROR;
	}
	if (S.apps.n == 0) {
		warnx_("no apps in %s", b->config ? b->config : B->bench_dir);
		return EXIT_ERROR;
	}
	const char *app_names[BENCH_MAX_APPS];
	for (int k = 0; k < S.apps.n; k++)
		app_names[k] = S.apps.app[k].name;
	if (!names_known(b->apps, "app", app_names, S.apps.n))
		return EXIT_USAGE;
	bench_build_root(b->build_dir, B->build_root, sizeof B->build_root);
	if (b->list) {
		list_apps(&S.apps, B->build_root, B->bench_dir);
		return EXIT_OK;
	}
	procedure(b);
	if (!make_out_dirs(B))
		return EXIT_ERROR;
	B->tty = isatty(2) && !b->no_progress;
	struct sigaction sa = {0};
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	S.app = (struct child){0, -1};
	S.root = cJSON_CreateObject();
	S.japps = cJSON_AddArrayToObject(S.root, "apps");
	S.jskipped = cJSON_AddArrayToObject(S.root, "skipped");
	int rc = bench_all(B, &S, co->db.db);
	cJSON_Delete(S.root);
	return rc;
}

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

const struct command cmd_bench = {
	.name = "bench",
	.summary = "the benchmark's apps under capture: the seed's table reproduced",
	.help = help,
	.groups = OPTG_DB_READ,
	.own = own,
	.own_opt = bench_opt,
	.rest_hint = "",
	.state_size = sizeof(struct bench),
	.init = bench_init,
	.run = bench_run,
};
