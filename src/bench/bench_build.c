/* bench_build.c - build an app once, keyed by what it is built from. */
#define _GNU_SOURCE
#include "bench_build.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_proc.h"

void bench_build_root(const char *given, char *out, size_t cap)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char cwd[4096];
	/* the apps run in their own directories: a relative root is the
	 * caller's, made absolute here */
	if (given && given[0] != '/' && getcwd(cwd, sizeof cwd))
		snprintf(out, cap, "%s/%s", cwd, given);
	else if (given)
		snprintf(out, cap, "%s", given);
	else if (xdg && *xdg)
		snprintf(out, cap, "%s/pgrtt/bench", xdg);
	else
		snprintf(out, cap, "%s/.cache/pgrtt/bench", home && *home ? home : "/tmp");
}

void bench_build_dir(const struct bench_app *a, const char *root, char *out, size_t cap)
{
	snprintf(out, cap, "%s/%s", root, a->build_id);
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h;
}

static uint64_t hash_file(uint64_t h, const char *path)
{
	FILE *f = fopen(path, "rb");
	char buf[16384];
	for (size_t n; f && (n = fread(buf, 1, sizeof buf, f)) > 0;)
		h = fnv(h, buf, n);
	if (f)
		fclose(f);
	return h;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* what a build makes or fetches is not what it builds from */
static bool skipped(const char *name)
{
	static const char *const dirs[] = {".git", "node_modules", "target", "build", NULL};
	for (int i = 0; dirs[i]; i++)
		if (strcmp(name, dirs[i]) == 0)
			return true;
	return name[0] == '.';
}

static uint64_t hash_tree(uint64_t h, const char *dir, const char *rel, int depth)
{
	char path[1200];
	snprintf(path, sizeof path, "%s%s%s", dir, rel[0] ? "/" : "", rel);
	DIR *d = depth < 8 ? opendir(path) : NULL;
	if (!d)
		return h;
	char *names[512];
	int n = 0;
	for (struct dirent *e; (e = readdir(d)) && n < 512;)
		if (!skipped(e->d_name))
			names[n++] = strdup(e->d_name);
	closedir(d);
	qsort(names, (size_t)n, sizeof names[0], by_name);
	for (int i = 0; i < n; i++) {
		char r[900], full[1200];
		snprintf(r, sizeof r, "%s%s%s", rel, rel[0] ? "/" : "", names[i]);
		snprintf(full, sizeof full, "%s/%s", dir, r);
		struct stat st;
		if (names[i] && lstat(full, &st) == 0) {
			if (S_ISDIR(st.st_mode)) {
				h = hash_tree(h, dir, r, depth + 1);
			} else if (S_ISREG(st.st_mode)) {
				h = fnv(h, r, strlen(r) + 1);
				h = hash_file(h, full);
			}
		}
		free(names[i]);
	}
	return h;
}

void bench_build_key(const struct bench_app *a, const char *bench_dir, char out[17])
{
	uint64_t h = 0xcbf29ce484222325ULL;
	h = fnv(h, a->build, strlen(a->build) + 1);
	h = hash_tree(h, a->dir, "", 0);
	char q[700];
	snprintf(q, sizeof q, "%s/queries.h", bench_dir);
	h = hash_file(h, q);
	snprintf(out, 17, "%016" PRIx64, h);
}

/* the key of the last good build, or "" */
static void read_stamp(const char *path, char *out, size_t cap)
{
	FILE *f = fopen(path, "r");
	out[0] = '\0';
	if (f) {
		if (!fgets(out, (int)cap, f))
			out[0] = '\0';
		fclose(f);
	}
	out[strcspn(out, "\n")] = '\0';
}

bool bench_build_current(const struct bench_app *a, const char *root, const char *bench_dir)
{
	char dir[1100], stamp[1200], key[17], have[32];
	bench_build_dir(a, root, dir, sizeof dir);
	snprintf(stamp, sizeof stamp, "%s/.pgrtt-build-key", dir);
	read_stamp(stamp, have, sizeof have);
	bench_build_key(a, bench_dir, key);
	return strcmp(have, key) == 0;
}

static int mkdirs(const char *path)
{
	char p[1200];
	if (snprintf(p, sizeof p, "%s", path) >= (int)sizeof p)
		return -1;
	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			if (mkdir(p, 0755) != 0 && errno != EEXIST)
				return -1;
			*s = '/';
		}
	return mkdir(p, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

int bench_build(const struct bench_app *a, const char *root, const char *bench_dir,
		const char *log, bool *cached, volatile int *stop, char *err, size_t cap)
{
	*cached = false;
	char dir[1100], stamp[1200], lock[1200], key[17], have[32] = "";
	bench_build_dir(a, root, dir, sizeof dir);
	if (mkdirs(dir) != 0) {
		snprintf(err, cap, "%s: %s", dir, strerror(errno));
		return -1;
	}
	snprintf(stamp, sizeof stamp, "%s/.pgrtt-build-key", dir);
	snprintf(lock, sizeof lock, "%s/.pgrtt-build-lock", dir);
	/* two benches building one app at once wait for each other */
	int lf = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (lf >= 0)
		flock(lf, LOCK_EX);
	bench_build_key(a, bench_dir, key);
	read_stamp(stamp, have, sizeof have);
	int rc = 0;
	FILE *f;
	if (!a->build[0] || strcmp(have, key) == 0) {
		*cached = a->build[0] != '\0';
		goto out;
	}
	unlink(stamp);
	char e_app[600], e_build[1200], e_bench[700];
	snprintf(e_app, sizeof e_app, "APP=%s", a->dir);
	snprintf(e_build, sizeof e_build, "BUILD=%s", dir);
	snprintf(e_bench, sizeof e_bench, "BENCH=%s", bench_dir);
	char *env[] = {e_app, e_build, e_bench, NULL};
	char *argv[] = {"/bin/sh", "-c", (char *)a->build, NULL};
	struct child c = {0, -1};
	if (child_spawn(&c, argv, env, a->dir, log) != 0) {
		snprintf(err, cap, "cannot run the build: %s", strerror(errno));
		rc = -1;
		goto out;
	}
	int status = 0;
	while (!child_exited(&c, &status)) {
		if (*stop) {
			child_stop(&c, 2000);
			snprintf(err, cap, "build interrupted");
			rc = -1;
			goto out;
		}
		struct timespec ts = {0, 50 * 1000000L};
		nanosleep(&ts, NULL);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		snprintf(err, cap, "the build failed (exit %d): see %s",
			 WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), log);
		rc = -1;
		goto out;
	}
	f = fopen(stamp, "w");
	if (!f || fprintf(f, "%s\n", key) < 0 || fclose(f) != 0) {
		snprintf(err, cap, "%s: cannot write", stamp);
		rc = -1;
	}
out:
	if (lf >= 0)
		close(lf);
	return rc;
}
