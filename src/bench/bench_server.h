/* bench_server.h - a throwaway PostgreSQL server for pgrtt bench: started
 * from the installed binaries on a free loopback port in a temporary
 * directory, stopped and removed by pgserver_stop on every way out. */
#ifndef PGRTT_BENCH_SERVER_H
#define PGRTT_BENCH_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct pgserver {
	char bindir[512];
	char dir[256]; /* the temporary directory: data/, server.log, the socket */
	char log[300];
	char dsn[256]; /* to its postgres database */
	int port;
	bool as_user; /* started as root: the server runs as uid/gid */
	uid_t uid;
	gid_t gid;
	bool made_dir, running;
};

/* Returns 0, or -1 with a one-line reason (and the fix) in err; what was
 * made is still removed by pgserver_stop. */
int pgserver_start(struct pgserver *s, char *err, size_t cap);

/* Stop the server (immediate: a throwaway) and remove its directory.  Safe
 * to call more than once and after a failed start. */
void pgserver_stop(struct pgserver *s);

/* The postmaster's pid (its backends are its children), or -1. */
long pgserver_postmaster(const struct pgserver *s);

/* A throwaway redis-server: no persistence, loopback, a free port. */
struct redisserver {
	pid_t pid;
	int port;
	char url[64]; /* redis://127.0.0.1:PORT */
};

/* Returns 0, or -1 with the reason (and the fix) in err. */
int redisserver_start(struct redisserver *r, const char *dir, char *err, size_t cap);
void redisserver_stop(struct redisserver *r);

/* A loopback port nobody listens on now (a small race with other
 * programs), or -1. */
int free_port(void);

/* A TCP connection to host:port (an IPv4 address), or -1. */
int connect_port(const char *host, int port);

/* FLUSHALL on host:port: every app fills its own cache.  0 or -1. */
int redis_flushall(const char *host, int port);

#endif
