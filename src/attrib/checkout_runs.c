/* checkout_runs.c - what each connection's checkouts ran (checkout_runs.h) */
#include "checkout_runs.h"
#include "base/hash.h"

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
	/* its last statements since a boundary, the latest first (chains) */
	uint32_t nlast;
	uint64_t last[CHAIN_DEPTH];
	uint64_t last_where[CHAIN_DEPTH]; /* the caller's marks for them */
	bool last_known[CHAIN_DEPTH];
};

/* A majority vote: the value most seen lately, and its count of the last
 * total (started again when another overtakes it) */
struct vote {
	uint64_t what;
	uint32_t same, total;
};

/* A statement (or BEGIN), the predecessor it has most had on its
 * connection and the follower it has most had (0: a boundary) */
struct chain_entry {
	uint64_t stmt;
	struct vote pred, next;
};

#define CHAIN_BEGIN 0x42454749ull /* a BEGIN as a follower: its own key */

int checkout_runs_init(struct checkout_runs *k)
{
	k->conns = calloc(RUNS_CONNS, sizeof(*k->conns));
	k->chains = calloc(CHAIN_SLOTS, sizeof(*k->chains));
	k->nchains = 0;
	if (k->conns && k->chains)
		return 0;
	checkout_runs_free(k);
	return -1;
}

void checkout_runs_free(struct checkout_runs *k)
{
	free(k->conns);
	free(k->chains);
	k->conns = NULL;
	k->chains = NULL;
}

static struct chain_entry *chain_find(const struct checkout_runs *k, uint64_t stmt)
{
	uint32_t at = (uint32_t)(conn_hash(stmt) % CHAIN_SLOTS);
	while (k->chains[at].stmt && k->chains[at].stmt != stmt)
		at = (at + 1) % CHAIN_SLOTS;
	return &k->chains[at];
}

/* Statement stmt's entry, a new one if there is room (else NULL) */
static struct chain_entry *chain_entry_of(struct checkout_runs *k, uint64_t stmt)
{
	struct chain_entry *e = chain_find(k, stmt);
	if (!e->stmt) {
		if (2 * (k->nchains + 1) > CHAIN_SLOTS)
			return NULL; /* full: no more statements followed, no chain for them */
		k->nchains++;
		e->stmt = stmt;
	}
	return e;
}

static void vote(struct vote *v, uint64_t what)
{
	if (v->total == 0 || v->what == what) {
		v->same++;
	} else if (2 * v->same <= v->total + 1) {
		/* another has as many: the newcomer is the candidate now */
		v->what = what;
		v->same = 1;
		v->total = 0;
	}
	if (v->total == 0)
		v->what = what;
	v->total++;
	if (v->total >= 1u << 30) { /* the shares stay, the counts stay bounded */
		v->same /= 2;
		v->total /= 2;
	}
}

/* what, nine times in ten at least, of CHAIN_MIN or more */
static bool settled(const struct vote *v, uint64_t what)
{
	return v->what == what && v->total >= CHAIN_MIN &&
	       10 * (uint64_t)v->same >= 9 * (uint64_t)v->total;
}

/* Follower next (0: a boundary) came after pred (0: a boundary, or first
 * on its connection). */
static void chain_seen(struct checkout_runs *k, uint64_t pred, uint64_t next)
{
	struct chain_entry *e;
	if (next && (e = chain_entry_of(k, next)))
		vote(&e->pred, pred);
	if (pred && (e = chain_entry_of(k, pred)))
		vote(&e->next, next);
}

static uint64_t chain_key(uint64_t pred, uint64_t next)
{
	uint64_t x = pred * 0xff51afd7ed558ccdull ^
		     (next + 0x9e3779b97f4a7c15ull) * 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 29;
	return x ? x : 1;
}

/* Round trip of mark and stmt after the connection's last statements:
 * what it is as their follower, into seen; then what it leaves as last */
static void chain_step(struct checkout_runs *k, struct checkout_runs_conn *c, enum run_mark mark,
		       uint64_t stmt, struct run_seen *seen)
{
	uint64_t next = mark == RUN_STATEMENT ? stmt : mark == RUN_BEGIN ? CHAIN_BEGIN : 0;
	uint64_t last = c->nlast ? c->last[0] : 0;
	if (next || last)
		chain_seen(k, last, next);
	if (next) {
		seen->chain = next;
		seen->nback = c->nlast;
		memcpy(seen->back_where, c->last_where, sizeof seen->back_where);
		memcpy(seen->back_known, c->last_known, sizeof seen->back_known);
	}
	if (mark != RUN_STATEMENT) {
		c->nlast = 0;
		return;
	}
	memmove(c->last + 1, c->last, (CHAIN_DEPTH - 1) * sizeof(*c->last));
	memmove(c->last_where + 1, c->last_where, (CHAIN_DEPTH - 1) * sizeof(*c->last_where));
	memmove(c->last_known + 1, c->last_known, (CHAIN_DEPTH - 1) * sizeof(*c->last_known));
	c->last[0] = stmt;
	c->last_known[0] = false;
	c->nlast = c->nlast < CHAIN_DEPTH ? c->nlast + 1 : CHAIN_DEPTH;
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
	chain_step(k, c, mark, stmt, seen);
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

void checkout_runs_last(struct checkout_runs *k, uint64_t conn, uint64_t where)
{
	if (!k->conns)
		return;
	struct checkout_runs_conn *c = entry(k, conn);
	if (c->conn != conn + 1 || !c->nlast)
		return;
	c->last_where[0] = where;
	c->last_known[0] = true;
}

uint64_t checkout_runs_chain(const struct checkout_runs *k, uint64_t stmt, const uint64_t *next)
{
	if (!k->chains || !stmt)
		return 0;
	uint64_t key = 0, prev = stmt;
	bool branch = false;
	for (uint32_t i = 0; i < CHAIN_DEPTH && next[i]; i++) {
		const struct chain_entry *to = chain_find(k, next[i]), *from = chain_find(k, prev);
		if (to->stmt != next[i] || !settled(&to->pred, prev))
			break; /* the chain ends: next[i] comes after others too */
		/* a link where the statement before is followed by others too:
		 * the chain up to it tells what came before apart */
		branch |= !(from->stmt == prev && settled(&from->next, next[i]));
		key = chain_key(key ? key : stmt, next[i]);
		prev = next[i];
	}
	return branch ? key : 0;
}
