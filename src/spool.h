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
};

/* The spool for a --db store: PATH when given, else
 * $XDG_STATE_HOME/pgrtt/spool.db ($HOME/.local/state/... without it), for
 * PostgreSQL stores only.  Counts what an earlier capture left in it. */
void spool_init(struct spool *sp, const char *db, const char *path);

/* Keep the run in the spool (its id there in *id).  0, or -1 (err). */
int spool_keep(struct spool *sp, const struct analysis *a, const struct store_run_info *info,
	       int64_t *id, char *err);

/* Deliver every spooled run to the store, oldest first, each removed from
 * the spool once stored.  *delivered counts them.  0 when the spool is
 * empty after, -1 at the first failure (err; the rest wait). */
int spool_deliver(struct spool *sp, struct store *to, int *delivered, char *err);

#endif
