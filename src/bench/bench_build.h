/* bench_build.h - building pgrtt bench's apps once: each manifest's build
 * command run into its own directory under the build root, skipped when
 * nothing it builds from has changed since the last good build. */
#ifndef PGRTT_BENCH_BUILD_H
#define PGRTT_BENCH_BUILD_H

#include <stdbool.h>
#include <stddef.h>

#include "bench_manifest.h"

/* The build root: --build-dir, else $XDG_CACHE_HOME/pgrtt/bench, else
 * ~/.cache/pgrtt/bench. */
void bench_build_root(const char *given, char *out, size_t cap);

/* The app's build directory ($BUILD): root/build_id. */
void bench_build_dir(const struct bench_app *a, const char *root, char *out, size_t cap);

/* Build a (its build_id once: variants share it), output appended to
 * log.  *cached says the build was current.  0, or -1 with the reason in
 * err (the build's last lines are in log).  *stop (a signal) kills it. */
int bench_build(const struct bench_app *a, const char *root, const char *bench_dir,
		const char *log, bool *cached, volatile int *stop, char *err, size_t cap);

/* Whether a's last good build is of what it builds from now. */
bool bench_build_current(const struct bench_app *a, const char *root, const char *bench_dir);

/* The key of what a builds from: its build command and every file of its
 * directory (dependency and output directories left out) and the shared
 * SQL; 64-bit FNV-1a, as 16 hex digits. */
void bench_build_key(const struct bench_app *a, const char *bench_dir, char out[17]);

#endif
