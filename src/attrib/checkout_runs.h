/* checkout_runs.h - what each connection's checkouts ran, seen as their
 * round trips arrive, for the placing that comes after (attrib.c): runs
 * between the boundaries pools put on the wire, and, where there are none,
 * chains - what follows a statement on its connection (struct run_seen).
 *
 * A run is a connection's statements between two boundaries: a ping or a
 * reset; where no ping began the run, also a BEGIN and the end of its
 * transaction (as attrib.c's checkouts: a BEGIN inside a checkout that
 * pings opened is part of it).  Where pings or transactions mark a pool's
 * checkouts, a run is one checkout.  Its first statement is the
 * checkout's anchor in the fit (infer.h), and every later statement and
 * ping of it goes where the anchor goes; keyed by its own statement
 * alone, an anchor that every route runs first (a session or user lookup)
 * shared its whole checkout out among the routes as it shared the lookup:
 * the reference app with a lookup first, a checkout per page and pings,
 * read 9.78 (8.86-10.90) round trips per tag page for 7 and 4.49 for 6 on
 * the index (docs/pages.md).  Keyed by the statements its run holds, the
 * anchor is told apart by them.
 *
 * A run is known by its statements only where the capture saw it begin: at
 * a ping, a BEGIN or the connection's startup (not at the end of a
 * transaction: Go's database/sql over lib/pq, checkouts bounded by their
 * transactions alone, hands the connection back at COMMIT, and the run
 * after it held statements of several pages until the next BEGIN - its
 * first statement's key a mixture: 2.83 query round trips per index page
 * for 3, and 0.08 prepares for 0).  A connection picked up
 * mid-stream whose pool marks nothing (pgx) is one run for as long as it
 * lives, its first statement's key made of whatever eight statements came
 * first: sixteen such connections, each a feature of one record, moved the
 * index route of a pgx capture by 0.012 round trips a page and its
 * interval off the truth (3.008-3.060 for 3).
 *
 * Placing waits until every page that could hold a round trip has ended,
 * and a page ends after the statements it waited for: by the time a
 * checkout's first statement is placed, its page's statements have
 * arrived, and the caller has written the run's key into the first
 * statement's record as each came (checkout_runs_add says where).  State
 * per connection (RUNS_CONNS entries by the connection's hash, as
 * attrib.c's; a connection that finds its entry taken starts again there)
 * and per statement (CHAIN_SLOTS entries), nothing per round trip. */
#ifndef PGRTT_CHECKOUT_RUNS_H
#define PGRTT_CHECKOUT_RUNS_H

#include <stdbool.h>
#include <stdint.h>

#define RUNS_CONNS 1024 /* connections followed at once */
#define RUNS_STMTS 8    /* distinct statements a run's key is made of: its first ones */
#define CHAIN_SLOTS 2048 /* statements whose usual predecessor is followed */
#define CHAIN_MIN 8      /* times a statement came before its predecessor is trusted */
#define CHAIN_DEPTH 3    /* followers a statement is known by, at most */

struct checkout_runs_conn;
struct chain_entry;

struct checkout_runs {
	struct checkout_runs_conn *conns; /* RUNS_CONNS */
	struct chain_entry *chains;      /* CHAIN_SLOTS, open addressing, at most half full */
	uint32_t nchains;
};

/* What a round trip is to its connection's runs */
enum run_mark {
	RUN_STATEMENT, /* a statement (stmt: its key) */
	RUN_PING,      /* a ping or a reset: a run ends before and after it */
	RUN_BEGIN,     /* a BEGIN: a run ends before it, unless a ping began it */
	RUN_END,       /* it ended a transaction: a run ends after it, unless a ping began it */
	RUN_STARTUP,   /* the connection's startup: its first run begins */
	RUN_OTHER,     /* the rest: a transaction's statement of no key */
};

/* What checkout_runs_add says of a statement's run */
struct run_seen {
	uint64_t key;   /* the run's key so far: its distinct statements' (0: fewer than two) */
	bool first;     /* this statement is the run's first: its anchor (checkout_runs_anchor) */
	uint64_t where; /* the caller's mark for the run's first statement (first false) */
	bool known;     /* where is set */
	/* Chains: where nothing on the wire bounds a pool's checkouts
	 * (node-postgres, pgx), what a statement is followed by on its
	 * connection tells its page where the follower always comes right
	 * after it - a checkout holding the connection from one to the other.
	 * A lookup every route runs first is followed, in each route's
	 * checkout, by that route's own next statement (or its BEGIN); where a
	 * pool hands the connection on between them, by anything.  A link is
	 * a follower that came right after its statement at least nine times
	 * in ten, CHAIN_MIN times or more; a statement is known by its chain -
	 * its next followers while each is a link, CHAIN_DEPTH at most - where
	 * some statement of the chain is followed by others too (else the
	 * chain is the statement, and a key would only rename it): two lookups
	 * on every route, then the route's own statements, are told apart by
	 * the third (docs/pages.md).  Never across a ping, a startup or a
	 * transaction's end. */
	uint64_t chain; /* what this round trip is as a follower (0: none) */
	uint32_t nback; /* the statements before it on its connection that it follows */
	uint64_t back_where[CHAIN_DEPTH]; /* the caller's marks for them, the latest first */
	bool back_known[CHAIN_DEPTH];     /* back_where[i] is set */
};

int checkout_runs_init(struct checkout_runs *k);
void checkout_runs_free(struct checkout_runs *k);

/* A round trip of connection conn, in the connection's order. */
void checkout_runs_add(struct checkout_runs *k, uint64_t conn, enum run_mark mark, uint64_t stmt,
		       struct run_seen *seen);

/* Where the caller keeps the run's first statement (after `first`). */
void checkout_runs_anchor(struct checkout_runs *k, uint64_t conn, uint64_t where);

/* Where the caller keeps the statement just added (RUN_STATEMENT): the
 * chain key of the round trip after it goes there. */
void checkout_runs_last(struct checkout_runs *k, uint64_t conn, uint64_t where);

/* The key of statement stmt followed by next[0 .. CHAIN_DEPTH) (the
 * round trips that came after it, as run_seen's chain said; 0 past the
 * last), by what has been seen so far (asked as stmt is placed: the
 * later, the more seen); 0 where its chain tells nothing. */
uint64_t checkout_runs_chain(const struct checkout_runs *k, uint64_t stmt, const uint64_t *next);

#endif
