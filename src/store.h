/* store.h - analysis runs kept in SQLite (docs/storage.md).
 *
 * One run is written in one transaction: a crash leaves no half run.  WAL
 * journal and a busy timeout let several pgrtt processes write one file.
 * Library code: returns an error in errbuf, never prints or exits. */
#ifndef PGRTT_STORE_H
#define PGRTT_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis.h"
#include "report.h"

#define STORE_ERRBUF 256

struct store;

struct store_run_info {
	const char *app;     /* --app, or NULL */
	const char *source;  /* the capture files, or the interface */
	char *const *labels; /* "key=value" */
	int nlabels;
	bool partial;
	const struct capture_drops *drops; /* live capture, or NULL */
};

/* Open (create: also create) the database at path and bring its schema up
 * to date.  NULL with a reason in err when it is not a SQLite database, is
 * from a newer pgrtt, or cannot be opened; nothing is changed then. */
struct store *store_open(const char *path, bool create, char *err);
void store_close(struct store *s);

/* Start a run: its transaction begins here, so round trips can be written
 * as they come.  Returns 0 or -1 (err filled). */
int store_begin_run(struct store *s, char *err);

/* One round trip of connection conn (only with --store-round-trips). */
int store_round_trip(struct store *s, uint64_t conn, const struct rt *rt);

/* Write the run's totals, classes, connections and routes, and commit.
 * *run_id gets its id.  Returns 0 or -1 (err filled, nothing stored). */
int store_finish_run(struct store *s, const struct analysis *a, const struct store_run_info *info,
		     int64_t *run_id, char *err);

/* Give up the run being written. */
void store_abort_run(struct store *s);

/* The sqlite3 handle, for commands that read (pgrtt runs, report). */
struct sqlite3 *store_db(struct store *s);

#endif
