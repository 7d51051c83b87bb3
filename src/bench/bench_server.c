/* bench_server.c - a throwaway PostgreSQL for pgrtt bench (bench_server.h):
 * initdb and pg_ctl from the installed server, as an unprivileged user when
 * pgrtt runs as root, on a free loopback port, in a temporary directory
 * that is removed with it. */
#define _GNU_SOURCE
#include "bench_server.h"

#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <ftw.h>
#include <arpa/inet.h>
#include <signal.h>
#include <time.h>
#include <glob.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The newest installed server's bindir: pg_config's, else /usr/lib/postgresql/N/bin. */
static bool find_bindir(char *out, size_t cap)
{
	FILE *p = popen("pg_config --bindir 2>/dev/null", "r");
	if (p) {
		char line[1024] = "";
		bool got = fgets(line, sizeof line, p) != NULL;
		pclose(p);
		line[strcspn(line, "\n")] = '\0';
		char initdb[1100];
		snprintf(initdb, sizeof initdb, "%s/initdb", line);
		if (got && access(initdb, X_OK) == 0) {
			snprintf(out, cap, "%s", line);
			return true;
		}
	}
	glob_t g;
	bool found = false;
	if (glob("/usr/lib/postgresql/*/bin/initdb", 0, NULL, &g) == 0 && g.gl_pathc > 0) {
		/* glob sorts: the last is the highest version with the same digits */
		snprintf(out, cap, "%s", g.gl_pathv[g.gl_pathc - 1]);
		char *slash = strrchr(out, '/');
		*slash = '\0';
		found = true;
	}
	globfree(&g);
	return found;
}

/* A port nobody listens on now (a small race with other programs). */
int free_port(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = {0};
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t len = sizeof sa;
	int port = -1;
	if (fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0 &&
	    getsockname(fd, (struct sockaddr *)&sa, &len) == 0)
		port = ntohs(sa.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

/* Run argv (as uid/gid when set), output to log; its exit status or -1. */
static int run_as(const struct pgserver *s, char *const argv[])
{
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (s->as_user && (setgid(s->gid) != 0 || setuid(s->uid) != 0))
			_exit(126);
		int fd = open(s->log, O_WRONLY | O_CREAT | O_APPEND, 0644); /* the server's user's */
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
			close(fd);
		}
		execv(argv[0], argv);
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* The log goes with the directory: keep its last line in the message. */
static void fail_with_log(const struct pgserver *s, const char *what, char *err, size_t cap)
{
	char last[300] = "", line[300];
	FILE *f = fopen(s->log, "r");
	while (f && fgets(line, sizeof line, f))
		if (line[0] != '\n')
			snprintf(last, sizeof last, "%s", line);
	if (f)
		fclose(f);
	last[strcspn(last, "\n")] = '\0';
	snprintf(err, cap, "%s: %s", what, last[0] ? last : "no output");
}

int pgserver_start(struct pgserver *s, char *err, size_t cap)
{
	memset(s, 0, sizeof(*s));
	if (!find_bindir(s->bindir, sizeof s->bindir)) {
		snprintf(err, cap,
			 "no PostgreSQL server installed (initdb not found): apt-get install -y "
			 "postgresql, or give --dsn");
		return -1;
	}
	snprintf(s->dir, sizeof s->dir, "/tmp/pgrtt-bench-XXXXXX");
	if (!mkdtemp(s->dir)) {
		snprintf(err, cap, "a temporary directory: %s", strerror(errno));
		return -1;
	}
	s->made_dir = true;
	snprintf(s->log, sizeof s->log, "%s/server.log", s->dir);
	if (geteuid() == 0) { /* initdb refuses root: the postgres user, else nobody */
		struct passwd *pw = getpwnam("postgres");
		if (!pw)
			pw = getpwnam("nobody");
		if (!pw) {
			snprintf(err, cap, "running as root, and no postgres or nobody user to run the server");
			return -1;
		}
		s->as_user = true;
		s->uid = pw->pw_uid;
		s->gid = pw->pw_gid;
		if (chown(s->dir, s->uid, s->gid) != 0) {
			snprintf(err, cap, "%s: %s", s->dir, strerror(errno));
			return -1;
		}
	}
	if ((s->port = free_port()) < 0) {
		snprintf(err, cap, "no free loopback port");
		return -1;
	}
	char data[600], initdb[600], pg_ctl[600], opts[800];
	snprintf(data, sizeof data, "%s/data", s->dir);
	snprintf(initdb, sizeof initdb, "%s/initdb", s->bindir);
	snprintf(pg_ctl, sizeof pg_ctl, "%s/pg_ctl", s->bindir);
	char *const init_argv[] = {initdb, "-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8",
				   "--no-sync", NULL};
	if (run_as(s, init_argv) != 0) {
		fail_with_log(s, "initdb failed", err, cap);
		return -1;
	}
	/* loopback only, no durability (a throwaway), room for several pools */
	snprintf(opts, sizeof opts,
		 "-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off "
		 "-c full_page_writes=off -c max_connections=200 -c shared_buffers=128MB",
		 s->port, s->dir);
	char *const start_argv[] = {pg_ctl, "-D", data, "-l", s->log, "-w", "-o", opts, "start", NULL};
	if (run_as(s, start_argv) != 0) {
		fail_with_log(s, "the server did not start", err, cap);
		return -1;
	}
	s->running = true;
	snprintf(s->dsn, sizeof s->dsn, "host=127.0.0.1 port=%d user=postgres dbname=postgres "
					"sslmode=disable",
		 s->port);
	return 0;
}

void pgserver_stop(struct pgserver *s)
{
	if (s->running) {
		char data[600], pg_ctl[600];
		snprintf(data, sizeof data, "%s/data", s->dir);
		snprintf(pg_ctl, sizeof pg_ctl, "%s/pg_ctl", s->bindir);
		char *const argv[] = {pg_ctl, "-D", data, "-m", "immediate", "-w", "stop", NULL};
		run_as(s, argv);
		s->running = false;
	}
	if (s->made_dir) {
		nftw(s->dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
		s->made_dir = false;
	}
}

long pgserver_postmaster(const struct pgserver *s)
{
	char path[600];
	snprintf(path, sizeof path, "%s/data/postmaster.pid", s->dir);
	FILE *f = fopen(path, "r");
	long pid = -1;
	if (f) {
		if (fscanf(f, "%ld", &pid) != 1)
			pid = -1;
		fclose(f);
	}
	return pid;
}

int connect_port(const char *host, int port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = {0};
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	inet_pton(AF_INET, host, &sa.sin_addr);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

int redisserver_start(struct redisserver *r, const char *dir, char *err, size_t cap)
{
	memset(r, 0, sizeof(*r));
	if (system("command -v redis-server >/dev/null 2>&1") != 0) {
		snprintf(err, cap, "redis-server not found: apt-get install -y redis-server, or give --redis");
		return -1;
	}
	if ((r->port = free_port()) < 0) {
		snprintf(err, cap, "no free loopback port");
		return -1;
	}
	char port[16];
	snprintf(port, sizeof port, "%d", r->port);
	r->pid = fork();
	if (r->pid < 0) {
		snprintf(err, cap, "fork: %s", strerror(errno));
		return -1;
	}
	if (r->pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);
		if (devnull >= 0) {
			dup2(devnull, 1);
			dup2(devnull, 2);
		}
		/* no persistence, loopback only, in the bench's directory */
		execlp("redis-server", "redis-server", "--port", port, "--bind", "127.0.0.1",
		       "--save", "", "--appendonly", "no", "--dir", dir, "--daemonize", "no",
		       (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 100; i++) { /* up to 5 s for it to listen */
		int fd = connect_port("127.0.0.1", r->port);
		if (fd >= 0) {
			close(fd);
			snprintf(r->url, sizeof r->url, "redis://127.0.0.1:%d", r->port);
			return 0;
		}
		struct timespec ts = {0, 50000000L};
		nanosleep(&ts, NULL);
	}
	snprintf(err, cap, "redis-server did not start on port %d", r->port);
	redisserver_stop(r);
	return -1;
}

void redisserver_stop(struct redisserver *r)
{
	if (r->pid > 0) {
		kill(r->pid, SIGTERM);
		while (waitpid(r->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	r->pid = 0;
}

int redis_flushall(const char *host, int port)
{
	int fd = connect_port(host, port);
	if (fd < 0)
		return -1;
	static const char cmd[] = "*1\r\n$8\r\nFLUSHALL\r\n";
	char reply[64];
	int ok = send(fd, cmd, sizeof cmd - 1, MSG_NOSIGNAL) == (ssize_t)(sizeof cmd - 1) &&
		 recv(fd, reply, sizeof reply, 0) > 0 && reply[0] == '+';
	close(fd);
	return ok ? 0 : -1;
}
