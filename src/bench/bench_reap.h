/* bench_reap.h - nothing pgrtt bench starts outlives it.
 *
 * While it runs, bench is its processes' subreaper (PR_SET_CHILD_SUBREAPER):
 * a process an app starts in a new session (setsid, a double fork) comes
 * back to bench as a child when its parent ends, and is killed with the
 * app.  Against a bench killed with SIGKILL, which can clean up nothing,
 * every bench keeps a registry: a directory /tmp/pgrtt-bench-reg-XXXXXX
 * naming its owner (pid and start time) and what it started (the
 * PostgreSQL server and its directory, redis-server, each app's process
 * group).  The next bench, or `pgrtt bench --clean`, finds registries whose
 * owner is gone and stops and removes what they name; a process is only
 * signalled when its start time is the one registered (a pid reused since
 * is left alone). */
#ifndef PGRTT_BENCH_REAP_H
#define PGRTT_BENCH_REAP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define REAP_PREFIX "/tmp/pgrtt-bench-reg-"

struct reap {
	char dir[64]; /* the registry; "" : none (it could not be made) */
};

/* Become the subreaper and make this bench's registry.  0, or -1 with the
 * reason in err (bench goes on: a bench killed with -9 then leaves what it
 * started). */
int reap_begin(struct reap *r, char *err, size_t cap);

/* What a stale bench's cleanup does with an entry. */
enum reap_kind {
	REAP_GROUP,  /* a process group: SIGKILL to all of it */
	REAP_SERVER, /* a server: SIGQUIT (PostgreSQL's immediate stop), SIGKILL after 5 s */
	REAP_DIR,    /* a directory: removed */
};

/* Note pid (its group, for REAP_GROUP) or path in the registry. */
void reap_note(struct reap *r, enum reap_kind kind, pid_t pid, const char *path);

/* Kill and reap every child of this process not in keep[] (orphans that
 * came back here from a stopped app).  The number killed. */
int reap_orphans(const pid_t *keep, int nkeep);

/* Remove this bench's registry (everything it names was stopped). */
void reap_end(struct reap *r);

/* Stop and remove what benches that are gone left behind, each told to said
 * (the gone bench's pid, the processes stopped, the directories removed).
 * The number of registries cleaned. */
typedef void reap_said_fn(void *ctx, int owner, int procs, int dirs);
int reap_stale(reap_said_fn *said, void *ctx);

#endif
