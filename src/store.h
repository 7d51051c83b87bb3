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
#include "evidence.h"
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

enum store_mode {
	STORE_READ,   /* never writes: works on a read-only file, directory or mount */
	STORE_WRITE,  /* an existing database, writable (pgrtt runs delete) */
	STORE_CREATE, /* created when missing (analyze, capture) */
};

/* Open the database at path; the writing modes bring its schema up to date
 * and check that it can be written before any work is done.  NULL with a
 * reason in err when it is not a SQLite database, is another program's
 * (tables but no pgrtt schema), is from a newer pgrtt, cannot be written
 * (writing modes) or cannot be opened; nothing is changed then. */
struct store *store_open(const char *path, enum store_mode mode, char *err);
void store_close(struct store *s);

/* Start a run: its transaction begins here, so round trips can be written
 * as they come.  Returns 0 or -1 (err filled). */
int store_begin_run(struct store *s, char *err);

/* One round trip of connection conn (only with --store-round-trips).  The
 * first failure is kept: later calls do nothing and store_finish_run fails
 * with its cause, so no row can land outside the run's transaction. */
int store_round_trip(struct store *s, uint64_t conn, const struct rt *rt);

/* Write the run's totals, classes, connections and routes, and commit.
 * *run_id gets its id.  Returns 0 or -1 (err filled, nothing stored). */
int store_finish_run(struct store *s, const struct analysis *a, const struct store_run_info *info,
		     int64_t *run_id, char *err);

/* Give up the run being written. */
void store_abort_run(struct store *s);

/* The sqlite3 handle, for commands that read (pgrtt runs, report). */
struct sqlite3 *store_db(struct store *s);

/* The findings stored with a run (for a run stored before schema 4, what
 * its columns tell).  Returns 0, or -1 (err filled). */
int store_run_evidence(struct store *s, int64_t run_id, struct evidence *ev, char *err);

#endif
