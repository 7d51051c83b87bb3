/* bench_run.h - one app's routes measured, for pgrtt bench (cmd_bench.c
 * drives it): wrk under capture for each route, the figures of each run
 * and the pages checked against the reference app's. */
#ifndef PGRTT_BENCH_RUN_H
#define PGRTT_BENCH_RUN_H

#include <cjson/cJSON.h>
#include <signal.h>
#include <stdbool.h>

#include "bench_manifest.h"
#include "bench_proc.h"
#include "bench_reap.h"
#include "store/store.h"

struct broute {
	const char *name, *route, *sample, *lua_kind;
};

/* The benchmark's routes, and the pages compared with the reference's
 * besides each route's sample. */
enum { NROUTES = 6, NMORE = 5, NPAGES = NROUTES + NMORE };
extern const struct broute routes[NROUTES];
extern const char *const more_pages[NMORE];

/* Set by bench_stop: stop what runs and wrap up. */
extern volatile sig_atomic_t stopping;
/* From a signal handler: stopping set, and the capture's loop broken. */
void bench_stop(void);
/* What this bench started, for one killed with -9 (bench_reap.h). */
extern struct reap reg;

struct bench_opts {
	bool quick, list, build_only, no_progress, keep_pcaps, clean;
	const char *apps, *routes, *out, *dsn, *redis, *config, *build_dir;
	double duration, warmup, runs, connections;
};

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

/* Whether name is in the comma-separated list (NULL: every name is). */
bool listed(const char *list, const char *name);
double now_s(void);
void status_clear(const struct bench *B);

/* The reference app's pages, every one compared with it later. */
void reference_pages(int port, char (*ref)[1 << 17]);

/* App a (started, answering on port) measured on every route listed:
 * into ja; EXIT_OK, EXIT_FAILED (a check failed) or EXIT_ERROR. */
int bench_app(struct bench *B, const struct bench_app *a, struct child *ac, int port,
	      char (*reference)[1 << 17], cJSON *ja, int nth, int nrun);

#endif
