/* bench_reap.c - nothing pgrtt bench starts outlives it (bench_reap.h). */
#define _GNU_SOURCE
#include "bench_reap.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


/* A process's parent and start time (clock ticks since boot) from
 * /proc/PID/stat; false when it is gone (a zombie is there, to be reaped). */
static bool proc_stat(pid_t pid, pid_t *ppid, unsigned long long *start, char *state_out)
{
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	char *p = strrchr(buf, ')'); /* the name may hold spaces and parentheses */
	if (!p)
		return false;
	/* fields from the state (3rd) on: ppid is the 4th, starttime the 22nd */
	char state;
	int pp;
	unsigned long long st;
	if (sscanf(p + 2, "%c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
		   &state, &pp, &st) != 3)
		return false;
	if (ppid)
		*ppid = pp;
	if (start)
		*start = st;
	if (state_out)
		*state_out = state;
	return true;
}

/* A running process's start time; 0 when it is gone or a zombie. */
static unsigned long long start_of(pid_t pid)
{
	unsigned long long st = 0;
	char state = 0;
	return proc_stat(pid, NULL, &st, &state) && state != 'Z' ? st : 0;
}

int reap_begin(struct reap *r, char *err, size_t cap)
{
	r->dir[0] = '\0';
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
		snprintf(err, cap, "cannot become the subreaper of its processes: %s", strerror(errno));
		return -1;
	}
	char dir[sizeof r->dir];
	snprintf(dir, sizeof dir, REAP_PREFIX "XXXXXX");
	if (!mkdtemp(dir)) {
		snprintf(err, cap, "%s: %s", dir, strerror(errno));
		return -1;
	}
	char path[128];
	snprintf(path, sizeof path, "%s/owner", dir);
	FILE *f = fopen(path, "w");
	if (!f || fprintf(f, "%d %llu\n", (int)getpid(), start_of(getpid())) < 0 || fclose(f) != 0) {
		snprintf(err, cap, "%s: %s", path, strerror(errno));
		rmdir(dir);
		return -1;
	}
	snprintf(r->dir, sizeof r->dir, "%s", dir);
	return 0;
}

void reap_note(struct reap *r, enum reap_kind kind, pid_t pid, const char *path)
{
	if (!r->dir[0])
		return;
	char file[128];
	snprintf(file, sizeof file, "%s/entries", r->dir);
	FILE *f = fopen(file, "a");
	if (!f)
		return;
	if (kind == REAP_DIR)
		fprintf(f, "D %s\n", path);
	else if (pid > 0)
		fprintf(f, "%c %d %llu\n", kind == REAP_GROUP ? 'G' : 'S', (int)pid, start_of(pid));
	fclose(f);
}

int reap_orphans(const pid_t *keep, int nkeep)
{
	pid_t me = getpid();
	int killed = 0;
	DIR *d = opendir("/proc");
	if (!d)
		return 0;
	for (struct dirent *e; (e = readdir(d));) {
		char *end;
		long v = strtol(e->d_name, &end, 10);
		pid_t pid = (pid_t)v, ppid;
		if (*end || v <= 0 || !proc_stat(pid, &ppid, NULL, NULL) || ppid != me)
			continue;
		bool kept = false;
		for (int i = 0; i < nkeep && !kept; i++)
			kept = keep[i] == pid;
		if (kept)
			continue;
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		killed++;
	}
	closedir(d);
	return killed;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static void remove_tree(const char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

void reap_end(struct reap *r)
{
	if (r->dir[0])
		remove_tree(r->dir);
	r->dir[0] = '\0';
}

/* A registered process still running as registered: the same start time. */
static bool still_ours(pid_t pid, unsigned long long start)
{
	return pid > 1 && start && start_of(pid) == start;
}

static void stop_server(pid_t pid, unsigned long long start)
{
	kill(pid, SIGQUIT); /* PostgreSQL: immediate shutdown; its backends go with it */
	for (int i = 0; i < 50 && still_ours(pid, start); i++) {
		struct timespec ts = {0, 100 * 1000000L};
		nanosleep(&ts, NULL);
	}
	if (still_ours(pid, start))
		kill(pid, SIGKILL);
}

/* What one registry names, stopped and removed; false when its owner is
 * still running (another bench's, in use). */
static bool clean_one(const char *reg, reap_said_fn *said, void *ctx)
{
	char path[600], line[700];
	int owner = 0;
	unsigned long long ostart = 0;
	snprintf(path, sizeof path, "%s/owner", reg);
	FILE *f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%d %llu", &owner, &ostart) != 2)
			owner = 0;
		fclose(f);
	}
	if (owner && still_ours(owner, ostart))
		return false;
	snprintf(path, sizeof path, "%s/entries", reg);
	int procs = 0, dirs = 0;
	if ((f = fopen(path, "r"))) {
		while (fgets(line, sizeof line, f)) {
			int pid;
			unsigned long long st;
			line[strcspn(line, "\n")] = '\0';
			if (line[0] == 'D' && line[1] == ' ' && strncmp(line + 2, "/tmp/pgrtt-bench-", 17) == 0 &&
			    !strstr(line, "/..")) {
				remove_tree(line + 2);
				dirs++;
			} else if (sscanf(line + 1, " %d %llu", &pid, &st) == 2 && still_ours(pid, st)) {
				if (line[0] == 'S') {
					stop_server(pid, st);
				} else {
					kill(-pid, SIGKILL);
					kill(pid, SIGKILL);
				}
				procs++;
			}
		}
		fclose(f);
	}
	remove_tree(reg);
	if (said)
		said(ctx, owner, procs, dirs);
	return true;
}

int reap_stale(reap_said_fn *said, void *ctx)
{
	DIR *d = opendir("/tmp");
	if (!d)
		return 0;
	int n = 0;
	const char *base = &REAP_PREFIX[5]; /* past "/tmp/" */
	for (struct dirent *e; (e = readdir(d));) {
		if (strncmp(e->d_name, base, strlen(base)) != 0)
			continue;
		char reg[300];
		snprintf(reg, sizeof reg, "/tmp/%s", e->d_name);
		n += clean_one(reg, said, ctx);
	}
	closedir(d);
	return n;
}
