/* checkout_runs.c - what each connection's checkouts ran (checkout_runs.h) */
#include "checkout_runs.h"
#include "hash.h"

#include <stdlib.h>
#include <string.h>

struct checkout_runs_conn {
	uint64_t conn;   /* + 1: 0 is an empty entry */
	uint64_t where;  /* the caller's mark for the run's first statement */
	bool known;      /* where is set */
	bool pinged;     /* a ping began the run: a transaction inside does not end it */
	bool begun;      /* the capture saw the run begin: a boundary, or the startup */
	uint32_t n;      /* the run's distinct statements, up to RUNS_STMTS */
	uint64_t stmt[RUNS_STMTS];
};

int checkout_runs_init(struct checkout_runs *k)
{
	k->conns = calloc(RUNS_CONNS, sizeof(*k->conns));
	return k->conns ? 0 : -1;
}

void checkout_runs_free(struct checkout_runs *k)
{
	free(k->conns);
	k->conns = NULL;
}

static struct checkout_runs_conn *entry(const struct checkout_runs *k, uint64_t conn)
{
	return &k->conns[conn_hash(conn) % RUNS_CONNS];
}

/* The set's key: the same whatever order the statements came in */
static uint64_t key_of(const struct checkout_runs_conn *c)
{
	if (c->n < 2 || !c->begun)
		return 0;
	uint64_t key = 0;
	for (uint32_t i = 0; i < c->n; i++) {
		uint64_t x = c->stmt[i] * 0xff51afd7ed558ccdull;
		key ^= x ^ x >> 33;
	}
	return key ? key : 1;
}

/* begun: what follows begins a checkout (a ping, a BEGIN, the startup) -
 * not the end of a transaction: Go's database/sql hands the connection
 * back at COMMIT, and what follows is whatever the pool's next borrowers
 * run, pages of every route, until the next boundary */
static void end_run(struct checkout_runs_conn *c, bool pinged, bool begun)
{
	c->n = 0;
	c->known = false;
	c->pinged = pinged;
	c->begun = begun;
}

void checkout_runs_add(struct checkout_runs *k, uint64_t conn, enum run_mark mark, uint64_t stmt,
		       struct run_seen *seen)
{
	memset(seen, 0, sizeof(*seen));
	if (!k->conns)
		return;
	struct checkout_runs_conn *c = entry(k, conn);
	if (c->conn != conn + 1) {
		memset(c, 0, sizeof(*c));
		c->conn = conn + 1;
	}
	switch (mark) {
	case RUN_PING:
		end_run(c, true, true);
		return;
	case RUN_BEGIN:
		if (!c->pinged)
			end_run(c, false, true);
		return;
	case RUN_END:
		if (!c->pinged)
			end_run(c, false, false);
		return;
	case RUN_STARTUP:
		end_run(c, false, true);
		return;
	case RUN_OTHER:
		return;
	case RUN_STATEMENT:
		break;
	}
	seen->first = c->n == 0;
	uint32_t i = 0;
	while (i < c->n && c->stmt[i] != stmt)
		i++;
	if (i == c->n && c->n < RUNS_STMTS)
		c->stmt[c->n++] = stmt;
	seen->key = key_of(c);
	seen->where = c->where;
	seen->known = c->known; /* never for the first: a run begins unanchored */
}

void checkout_runs_anchor(struct checkout_runs *k, uint64_t conn, uint64_t where)
{
	if (!k->conns)
		return;
	struct checkout_runs_conn *c = entry(k, conn);
	if (c->conn != conn + 1)
		return;
	c->where = where;
	c->known = true;
}
