/* bench_proc.h - the processes pgrtt bench runs (builds, apps, wrk) and
 * what /proc says about them: each in its own process group so that the
 * whole tree stops with it, CPU, peak memory and context switches summed
 * over the tree. */
#ifndef PGRTT_BENCH_PROC_H
#define PGRTT_BENCH_PROC_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

struct child {
	pid_t pid; /* also its process group */
	int out;   /* its standard output (a pipe), or -1 when it goes to a file */
};

/* Start argv (PATH searched) with env added to ours, in dir if not NULL,
 * stdout to a pipe (log NULL) or with stdout and stderr appended to log.
 * 0, or -1 with errno. */
int child_spawn(struct child *c, char *const argv[], char *const env[], const char *dir,
		const char *log);

/* SIGTERM to its group, SIGKILL after grace_ms; reaped.  Returns its wait
 * status (or -1 when it was not running).  Safe to call twice. */
int child_stop(struct child *c, int grace_ms);

/* Whether it has exited (reaped then, *status set). */
int child_exited(struct child *c, int *status);

/* What the tree rooted at pid (pid and its descendants) has used so far. */
struct tree_usage {
	long long cpu_ticks;   /* utime + stime, clock ticks */
	long rss_kib;          /* the sum of each process's peak RSS (VmHWM) */
	int nproc;
};
void tree_usage(long pid, struct tree_usage *u);

/* The same for pid's children and their trees, not pid itself (the
 * postmaster's backends). */
void children_usage(long pid, struct tree_usage *u);

/* Context switches of a tree's threads, sampled: a thread that ends keeps
 * the count it had at its last sample (the kernel forgets it), so sample
 * often (every 200 ms loses at most that much of a thread's switches). */
#define CTX_MAX_TASKS 4096
struct ctx_sampler {
	int n;
	struct {
		long tid;
		long long count;
	} task[CTX_MAX_TASKS];
};
void ctx_sample(struct ctx_sampler *s, long pid);
long long ctx_total(const struct ctx_sampler *s);

/* A GET on 127.0.0.1:port through libcurl: the body (chunked or not,
 * decoded) into buf, NUL-terminated, cut at cap - 1 bytes; the status
 * code, or -1 when there was no whole HTTP response (refused, 10 s passed,
 * or *stop became non-zero: the fetch ends within a second of it). */
long http_fetch(int port, const char *path, volatile sig_atomic_t *stop, char *buf, size_t cap);

/* Whether 127.0.0.1:port accepts a connection. */
int port_open(int port);

#endif
