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

#include "engine/analysis.h"
#include "findings/evidence.h"
#include "attrib/route.h"
#include "sources/input.h"

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

/* Run id of from, with all its rows, into to as a new run (*new_id), in
 * one transaction of to: capture's spool delivering what a store that was
 * away missed.  A run whose key to holds already (delivered before, its
 * spool's delete lost) is not copied again: *was_there, *new_id its id
 * there.  Returns 0 or -1 (err filled, nothing stored in to). */
int store_copy_run(struct store *from, int64_t id, struct store *to, int64_t *new_id, bool *was_there,
		   char *err);

/* Did the last failure on s come from the store being away or busy (it may
 * pass), rather than the store refusing the run (it will not)?  And did
 * the last store_open of a PostgreSQL store fail without a server's
 * answer?  Always false for SQLite. */
bool store_failure_transient(struct store *s);
bool store_open_transient(void);

/* A live capture's stores: seconds to connect and to answer each statement
 * (db_set_deadline), past which the store is away. */
#define STORE_LIVE_DEADLINE_S 5
void store_set_deadline(int seconds);

/* One more "key=value" label on a stored run.  0, or -1 (err). */
int store_add_label(struct store *s, int64_t run_id, const char *label, char *err);

/* Give up the run being written. */
void store_abort_run(struct store *s);

/* ---- Reading (store_read.c): pgrtt runs, report and audit ---- */

bool store_has_run(struct store *s, int64_t id);
int store_delete_run(struct store *s, int64_t id, char *err);

/* One route of one run as stored: figures per page. */
struct route_figures {
	int64_t run;
	char app[64], labels[160], route[ROUTE_MAX], attribution[32];
	int64_t pages, pages_mixed;
	double rt, rfq, query, ping, acq, rel, reset, tx, prepare, conns, p50, p99;
	double other; /* round trips of no class above (rt_other, rtt.h) */
	double inferred;    /* share of rt given by inference (estimated figures) */
	double rt_lo, rt_hi; /* rt's 95% interval (docs/pages.md); rt, rt when exact */
	/* the other protocols' figures per page (figure.h: Redis's), numbered
	 * as analysis_page_figure; NAN where the run was not measured with the
	 * protocol's ports, or where the figure is not stored */
	double page[PAGE_FIGS_MAX];
	/* their 95% intervals where estimated (an analysis's; a stored run
	 * keeps none: NAN) */
	double page_lo[PAGE_FIGS_MAX], page_hi[PAGE_FIGS_MAX];
	bool lower_bound;   /* the run's counts are lower bounds */
	char warnings[256]; /* the run's findings, codes separated by spaces (no notes) */
};

struct route_query {
	char *const *apps; /* any of these apps (none: all) */
	int napps;
	char *const *labels; /* every one of these KEY=VALUE labels */
	int nlabels;
	const long long *runs; /* any of these runs (none: all) */
	int nruns;
	bool with_mixed_only; /* also routes whose pages all overlapped other routes */
};

/* The newest run matching q (with_mixed_only ignored); 0 when none does. */
int64_t store_latest_matching(struct store *s, const struct route_query *q);

/* The distinct apps of the runs matching q, "" for runs stored without
 * --app, sorted; *n counts them all, the first cap are copied.  0, or -1
 * (err filled). */
#define STORE_APP_MAX 64
int store_apps(struct store *s, const struct route_query *q, char (*apps)[STORE_APP_MAX], int cap,
	       int *n, char *err);

/* The routes matching q, by route, app and run; *out is malloc'ed.
 * Returns 0, or -1 (err filled). */
int store_routes(struct store *s, const struct route_query *q, struct route_figures **out, int *n,
		 char *err);

/* One run as stored: its totals, for the report's runs section. */
struct run_figures {
	int64_t run;
	char created[32], app[64], labels[160], source[256], host[256];
	char driver[32]; /* its connections' driver (rtt.h), "" none, "several" */
	int64_t connections, rfq, rt, pages, routes;
	int64_t cls[RT_NCLASS];                 /* round trips by class */
	int64_t acq, rel, idle;                 /* pings by role */
	int64_t lone_sync, empty_query, select1; /* pings by kind; -1: stored before pgrtt kept them */
	double p50, p99;  /* ms; NAN: no round trip */
	double duration;  /* s */
	bool http;        /* stored with --http-port */
	/* the other protocols' totals kept (analysis_run_figure's numbers:
	 * Redis's round trips); NAN: not measured with the protocol's ports */
	double proto_fig[RUN_FIGS_MAX];
	bool lower_bound; /* the counts are lower bounds */
	bool measured;    /* no fatal finding (no-postgresql ...): else its counts are not 0 but
			   * nothing measured, and every output says so */
	bool routes_unmeasured; /* its routes' round trips were not measured (pgrtt report
				 * leaves them out of the routes section and says why) */
	char warnings[256];
};

/* The runs matching q (its with_mixed_only ignored), by id; *out is
 * malloc'ed.  Returns 0, or -1 (err filled). */
int store_runs(struct store *s, const struct route_query *q, struct run_figures **out, int *n,
	       char *err);

/* What the per-connection audit rules need of a run. */
struct run_pings {
	uint64_t acq, rel, idle, returned_in_tx;
	bool http; /* stored with --http-port */
};
int store_run_pings(struct store *s, int64_t id, struct run_pings *p, char *err);

/* A table of a run (or of all runs) as text, row by row, for pgrtt runs:
 * values may be NULL. */
enum store_listing {
	STORE_LIST_RUNS,     /* every run, one line each (id ignored) */
	STORE_LIST_TOTALS,   /* the run's row, every column */
	STORE_LIST_LABELS,
	STORE_LIST_CLASSES,
	STORE_LIST_WARNINGS,
	STORE_LIST_ROUTES,
};
typedef void store_row_fn(void *ctx, int row, int ncols, const char *const *names,
			  const char *const *values);
/* Returns the number of rows, or -1 (err filled). */
int store_listing(struct store *s, enum store_listing what, int64_t id, store_row_fn *fn,
		  void *ctx, char *err);

/* The findings stored with a run (for a run stored before schema 4, what
 * its columns tell).  Returns 0, or -1 (err filled). */
int store_run_evidence(struct store *s, int64_t run_id, struct evidence *ev, char *err);

#endif
