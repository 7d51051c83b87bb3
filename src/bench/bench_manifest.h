/* bench_manifest.h - what pgrtt bench knows of an app: its manifest
 * (bench/apps/NAME/manifest.json, or a --config file), parsed and checked.
 * The format is docs/bench.md's "Adding an app". */
#ifndef PGRTT_BENCH_MANIFEST_H
#define PGRTT_BENCH_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>

#define BENCH_MAX_APPS 64
#define BENCH_MAX_ARGS 16
#define BENCH_MAX_ENV 16
#define BENCH_MAX_REQ 8

/* something the app needs on this machine: a command on PATH or a path,
 * and the Debian package(s) that provide it */
struct bench_req {
	char command[64];
	char path[256];
	char apt[160];
};

struct bench_app {
	char name[48];     /* [a-z0-9][a-z0-9._-]*, unique */
	char stack[200];   /* what it is, in words */
	char pattern[200]; /* what its pool is documented to do per page, or "" */
	char dir[512];     /* the manifest's directory: the app's source ($APP) */
	char build_id[48]; /* variants of one manifest share one build */
	char build[1024];  /* a shell command run in dir with APP, BUILD, BENCH set; "" none */
	int nrun;
	char run[BENCH_MAX_ARGS][256]; /* argv; $APP, $BUILD, $BENCH expanded */
	int nenv;
	char env[BENCH_MAX_ENV][320]; /* KEY=value, after the harness's contract */
	int nreq;
	struct bench_req req[BENCH_MAX_REQ];
	double start_timeout; /* seconds until it must accept connections */
};

struct bench_apps {
	int n;
	struct bench_app app[BENCH_MAX_APPS];
};

/* Parse one manifest, an array of them, or {"apps": [...]} (a --config
 * file) and append its apps to out.  dir is where relative "dir" values
 * and the app's own files are.  Returns 0, or -1 with a one-line reason
 * in err (nothing appended then). */
int bench_manifest_parse(const char *json, size_t len, const char *dir, struct bench_apps *out,
			 char *err, size_t cap);

/* Read path and parse it (as above, relative to the file's directory). */
int bench_manifest_load_file(const char *path, struct bench_apps *out, char *err, size_t cap);

/* Every BENCH_DIR/apps/NAME/manifest.json, in name order. */
int bench_manifest_load_dir(const char *bench_dir, struct bench_apps *out, char *err, size_t cap);

/* Whether what the app needs is on this machine; if not, why and the
 * apt-get line that fixes it, in why. */
bool bench_app_runnable(const struct bench_app *a, char *why, size_t cap);

/* s with $APP, $BUILD and $BENCH (or ${...}) replaced; -1 if too long. */
int bench_expand(const char *s, const char *app, const char *build, const char *bench, char *out,
		 size_t cap);

#endif
