/* spool.h - runs a central store could not take (it was away: a restart,
 * the network), kept in a local SQLite file and delivered, oldest first,
 * once it answers again: a capture --rotate that runs for days loses no run
 * to an outage.  Bounded: past SPOOL_MAX_RUNS the oldest is dropped, said. */
#ifndef PGRTT_SPOOL_H
#define PGRTT_SPOOL_H

#include "store.h"

#define SPOOL_MAX_RUNS 1000

struct spool {
	char path[4096]; /* "" : no spool (a SQLite store is its own spool) */
	int waiting;     /* runs in it */
	int aside;       /* runs the store refused, kept aside by this process */
	int refused;     /* ... of them, spooled runs refused at delivery */
	bool warned;     /* that the spool cannot be delivered from was said */
};

/* The spool for a --db store: PATH when given, else
 * $XDG_STATE_HOME/pgrtt/spool.db ($HOME/.local/state/... without it), for
 * PostgreSQL stores only.  Counts what an earlier capture left in it. */
void spool_init(struct spool *sp, const char *db, const char *path);

/* Keep the run in the spool (its id there in *id).  0, or -1 (err). */
int spool_keep(struct spool *sp, const struct analysis *a, const struct store_run_info *info,
	       int64_t *id, char *err);

/* Deliver every spooled run to the store, oldest first, each removed from
 * the spool once stored; one the store has already (delivered before the
 * spool's delete was lost) is removed, not stored again.  A run the store
 * answers with a refusal (its content, not its absence) is kept aside
 * (spool_put_aside) and the next delivered: no run blocks the queue.
 * *delivered counts the runs stored.  0 when the spool is empty after, -1
 * at the first failure of the store (err; the rest wait). */
int spool_deliver(struct spool *sp, struct store *to, int *delivered, char *err);

/* A run the store refused, kept beside the spool (spool_aside_path: a
 * SQLite store, `pgrtt runs --db` lists them), labelled pgrtt.refused=WHY.
 * 0, or -1 (err). */
int spool_put_aside(struct spool *sp, const struct analysis *a, const struct store_run_info *info,
		    const char *why, char *err);
void spool_aside_path(const struct spool *sp, char *out, size_t cap);

#endif
