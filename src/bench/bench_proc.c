/* bench_proc.c - child processes and /proc accounting for pgrtt bench. */
#define _GNU_SOURCE
#include "bench_proc.h"

#include <curl/curl.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_server.h"

int child_spawn(struct child *c, char *const argv[], char *const env[], const char *dir,
		const char *log)
{
	int p[2] = {-1, -1};
	if (!log && pipe2(p, O_CLOEXEC) != 0)
		return -1;
	int lf = log ? open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644) : -1;
	if (log && lf < 0)
		return -1;
	c->pid = fork();
	if (c->pid < 0) {
		int e = errno;
		if (p[0] >= 0)
			close(p[0]), close(p[1]);
		if (lf >= 0)
			close(lf);
		errno = e;
		return -1;
	}
	if (c->pid == 0) {
		setpgid(0, 0); /* its own group: stopped with its children */
		signal(SIGPIPE, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		int devnull = open("/dev/null", O_RDONLY);
		if (devnull >= 0)
			dup2(devnull, 0);
		if (log) {
			dup2(lf, 1);
			dup2(lf, 2);
		} else {
			dup2(p[1], 1);
		}
		for (int i = 0; env && env[i]; i++)
			putenv(env[i]);
		if (dir && chdir(dir) != 0)
			_exit(126);
		execvp(argv[0], argv);
		fprintf(stderr, "%s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(c->pid, c->pid); /* also here: no race with a kill right after */
	if (log) {
		close(lf);
		c->out = -1;
	} else {
		close(p[1]);
		c->out = p[0];
	}
	return 0;
}

int child_exited(struct child *c, int *status)
{
	if (c->pid <= 0)
		return 1;
	pid_t r = waitpid(c->pid, status, WNOHANG);
	if (r == c->pid) {
		kill(-c->pid, SIGKILL); /* what it left running in its group */
		c->pid = 0;
		return 1;
	}
	return 0;
}

int child_stop(struct child *c, int grace_ms)
{
	int status = -1;
	if (c->pid > 0) {
		kill(-c->pid, SIGTERM);
		for (int waited = 0;; waited += 20) {
			pid_t r = waitpid(c->pid, &status, WNOHANG);
			if (r == c->pid || (r < 0 && errno != EINTR))
				break;
			if (waited >= grace_ms) {
				kill(-c->pid, SIGKILL);
				while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR)
					;
				break;
			}
			struct timespec ts = {0, 20 * 1000000L};
			nanosleep(&ts, NULL);
		}
		kill(-c->pid, SIGKILL); /* the rest of its group, if any */
		c->pid = 0;
	}
	if (c->out >= 0)
		close(c->out);
	c->out = -1;
	return status;
}

/* /proc/PID/stat: parent and CPU ticks; 0 or -1 */
static int proc_stat(long pid, long *ppid, long long *ticks)
{
	char path[64], line[1024];
	snprintf(path, sizeof path, "/proc/%ld/stat", pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	size_t n = fread(line, 1, sizeof line - 1, f);
	fclose(f);
	line[n] = '\0';
	char *p = strrchr(line, ')'); /* the name may hold spaces and parens */
	unsigned long long ut = 0, st = 0;
	if (!p || sscanf(p + 2, "%*c %ld %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", ppid, &ut,
			 &st) != 3)
		return -1;
	*ticks = (long long)(ut + st);
	return 0;
}

static long status_field(const char *path, const char *key)
{
	FILE *f = fopen(path, "r");
	char line[256];
	long v = 0;
	size_t k = strlen(key);
	while (f && fgets(line, sizeof line, f))
		if (strncmp(line, key, k) == 0) {
			v = strtol(line + k, NULL, 10);
			break;
		}
	if (f)
		fclose(f);
	return v;
}

static void add_process(long pid, long long ticks, struct tree_usage *u)
{
	char path[96];
	u->cpu_ticks += ticks;
	u->nproc++;
	snprintf(path, sizeof path, "/proc/%ld/status", pid);
	u->rss_kib += status_field(path, "VmHWM:");
}

/* every process, as (pid, ppid, ticks): one pass over /proc */
struct procs {
	int n, cap;
	long *pid, *ppid;
	long long *ticks;
};

static void procs_read(struct procs *p)
{
	memset(p, 0, sizeof *p);
	DIR *d = opendir("/proc");
	for (struct dirent *e; d && (e = readdir(d));) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		long ppid;
		long long t;
		if (*end || pid <= 0 || proc_stat(pid, &ppid, &t) != 0)
			continue;
		if (p->n == p->cap) {
			int cap = p->cap ? p->cap * 2 : 512;
			long *a = realloc(p->pid, (size_t)cap * sizeof *a);
			if (a)
				p->pid = a;
			long *b = realloc(p->ppid, (size_t)cap * sizeof *b);
			if (b)
				p->ppid = b;
			long long *c = realloc(p->ticks, (size_t)cap * sizeof *c);
			if (c)
				p->ticks = c;
			if (!a || !b || !c)
				break;
			p->cap = cap;
		}
		p->pid[p->n] = pid, p->ppid[p->n] = ppid, p->ticks[p->n] = t;
		p->n++;
	}
	if (d)
		closedir(d);
}

static void procs_free(struct procs *p)
{
	free(p->pid);
	free(p->ppid);
	free(p->ticks);
}

static void descend(const struct procs *p, long parent, int depth, struct tree_usage *u)
{
	if (depth > 32)
		return;
	for (int i = 0; i < p->n; i++)
		if (p->ppid[i] == parent && p->pid[i] != parent) {
			add_process(p->pid[i], p->ticks[i], u);
			descend(p, p->pid[i], depth + 1, u);
		}
}

static void usage_of(long pid, bool self, struct tree_usage *u)
{
	memset(u, 0, sizeof *u);
	if (pid <= 0)
		return;
	struct procs p;
	procs_read(&p);
	for (int i = 0; self && i < p.n; i++)
		if (p.pid[i] == pid)
			add_process(pid, p.ticks[i], u);
	descend(&p, pid, 0, u);
	procs_free(&p);
}

void children_usage(long pid, struct tree_usage *u)
{
	usage_of(pid, false, u);
}

void tree_usage(long pid, struct tree_usage *u)
{
	usage_of(pid, true, u);
}

static void sample_process(struct ctx_sampler *s, long pid)
{
	char path[96];
	snprintf(path, sizeof path, "/proc/%ld/task", pid);
	DIR *d = opendir(path);
	for (struct dirent *e; d && (e = readdir(d));) {
		char *end;
		long tid = strtol(e->d_name, &end, 10);
		if (*end || tid <= 0)
			continue;
		char tp[320];
		snprintf(tp, sizeof tp, "/proc/%ld/task/%ld/status", pid, tid);
		long long v = status_field(tp, "voluntary_ctxt_switches:") +
			      status_field(tp, "nonvoluntary_ctxt_switches:");
		int i = 0;
		while (i < s->n && s->task[i].tid != tid)
			i++;
		if (i == s->n) {
			if (s->n == CTX_MAX_TASKS)
				continue;
			s->n++;
			s->task[i].tid = tid;
		}
		s->task[i].count = v;
	}
	if (d)
		closedir(d);
}

static void sample_descendants(const struct procs *p, long parent, int depth, struct ctx_sampler *s)
{
	for (int i = 0; depth < 32 && i < p->n; i++)
		if (p->ppid[i] == parent && p->pid[i] != parent) {
			sample_process(s, p->pid[i]);
			sample_descendants(p, p->pid[i], depth + 1, s);
		}
}

void ctx_sample(struct ctx_sampler *s, long pid)
{
	if (pid <= 0)
		return;
	sample_process(s, pid);
	struct procs p;
	procs_read(&p);
	sample_descendants(&p, pid, 0, s);
	procs_free(&p);
}

long long ctx_total(const struct ctx_sampler *s)
{
	long long sum = 0;
	for (int i = 0; i < s->n; i++)
		sum += s->task[i].count;
	return sum;
}

struct fetch {
	char *buf;
	size_t n, cap;
	volatile sig_atomic_t *stop;
};

static size_t fetch_body(char *data, size_t size, size_t nmemb, void *ctx)
{
	struct fetch *f = ctx;
	size_t len = size * nmemb, room = f->cap - 1 - f->n;
	memcpy(f->buf + f->n, data, len < room ? len : room);
	f->n += len < room ? len : room;
	return len; /* a page past cap is cut, not an error */
}

static int fetch_progress(void *ctx, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
	(void)dt, (void)dn, (void)ut, (void)un;
	const struct fetch *f = ctx;
	return f->stop && *f->stop; /* non-zero: the transfer ends at once */
}

long http_fetch(int port, const char *path, volatile sig_atomic_t *stop, char *buf, size_t cap)
{
	static bool ready;
	if (!ready && curl_global_init(CURL_GLOBAL_NOTHING) == 0)
		ready = true;
	struct fetch f = {buf, 0, cap, stop};
	buf[0] = '\0';
	CURL *c = ready ? curl_easy_init() : NULL;
	if (!c)
		return -1;
	char url[600];
	snprintf(url, sizeof url, "http://127.0.0.1:%d%s", port, path);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http");
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_NOPROXY, "*"); /* loopback: never a proxy from the environment */
	/* an app that hangs or trickles is a failed check, not a hang */
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 10000L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, fetch_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &f);
	curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, fetch_progress);
	curl_easy_setopt(c, CURLOPT_XFERINFODATA, &f);
	curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	long status = -1;
	if (curl_easy_perform(c) == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_cleanup(c);
	buf[f.n] = '\0';
	return status;
}

int port_open(int port)
{
	int fd = connect_port("127.0.0.1", port);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}
