/* test_checkout_runs.c - what each connection's checkouts ran (src/attrib/checkout_runs.h) */
#include "attrib/checkout_runs.h"
#include "base/hash.h"
#include "tinytest.h"

#include <string.h>

static struct checkout_runs k;
static struct run_seen seen;

static void add(uint64_t conn, enum run_mark mark, uint64_t stmt)
{
	checkout_runs_add(&k, conn, mark, stmt, &seen);
}

/* The key of a run that begins at a ping and holds stmts[0 .. n) */
static uint64_t run_key(const uint64_t *stmts, int n)
{
	add(9, RUN_PING, 0);
	for (int i = 0; i < n; i++)
		add(9, RUN_STATEMENT, stmts[i]);
	return seen.key;
}

/* A run ends at a ping: the statements after it are a new run, whose
 * first is its anchor; the key is its statements', in any order, each
 * once */
static void test_runs_end_at_pings(void)
{
	CHECK(checkout_runs_init(&k) == 0);
	add(1, RUN_PING, 0);
	add(1, RUN_STATEMENT, 5);
	CHECK(seen.first);
	CHECK_EQ_U(seen.key, 0); /* one statement: its own says all */
	checkout_runs_anchor(&k, 1, 77);
	add(1, RUN_STATEMENT, 21);
	CHECK(!seen.first && seen.known);
	CHECK_EQ_U(seen.where, 77);
	uint64_t two = seen.key;
	CHECK(two != 0);
	add(1, RUN_STATEMENT, 22);
	uint64_t three = seen.key;
	CHECK(three != two);
	add(1, RUN_STATEMENT, 21); /* again: the same set */
	CHECK_EQ_U(seen.key, three);
	add(1, RUN_PING, 0); /* release */
	add(1, RUN_PING, 0); /* and the next checkout's acquire: still no statement */
	add(1, RUN_STATEMENT, 22);
	CHECK(seen.first && !seen.known); /* a new run: the anchor is not yet told */
	add(1, RUN_STATEMENT, 21);
	add(1, RUN_STATEMENT, 5);
	CHECK_EQ_U(seen.key, three); /* the same statements in another order */
	const uint64_t other[] = {5, 31, 32};
	CHECK(run_key(other, 3) != three);
	checkout_runs_free(&k);
}

/* Runs are per connection: two connections' statements interleaved */
static void test_runs_per_connection(void)
{
	CHECK(checkout_runs_init(&k) == 0);
	add(1, RUN_PING, 0);
	add(2, RUN_PING, 0);
	add(1, RUN_STATEMENT, 5);
	checkout_runs_anchor(&k, 1, 10);
	add(2, RUN_STATEMENT, 5);
	checkout_runs_anchor(&k, 2, 20);
	add(1, RUN_STATEMENT, 11);
	uint64_t one = seen.key;
	CHECK_EQ_U(seen.where, 10);
	add(2, RUN_STATEMENT, 21);
	CHECK_EQ_U(seen.where, 20);
	CHECK(seen.key != one);
	checkout_runs_free(&k);
}

/* A transaction ends a run that no ping began (Go's database/sql: BEGIN
 * announces the checkout, COMMIT ends it); inside a run a ping began, it
 * does not (sqlx: acquire ping, a statement, BEGIN ... COMMIT, a
 * statement) */
static void test_transactions(void)
{
	CHECK(checkout_runs_init(&k) == 0);
	add(1, RUN_STARTUP, 0);
	add(1, RUN_STATEMENT, 40); /* another page's, before the BEGIN */
	add(1, RUN_BEGIN, 0);
	add(1, RUN_STATEMENT, 41);
	CHECK(seen.first);
	add(1, RUN_STATEMENT, 42);
	uint64_t tx = seen.key;
	CHECK(tx != 0);
	add(1, RUN_END, 0); /* COMMIT */
	add(1, RUN_STATEMENT, 43);
	CHECK(seen.first);
	/* a ping began it: BEGIN and COMMIT inside */
	add(1, RUN_PING, 0);
	add(1, RUN_STATEMENT, 40);
	CHECK(seen.first);
	add(1, RUN_BEGIN, 0);
	add(1, RUN_STATEMENT, 41);
	CHECK(!seen.first);
	add(1, RUN_END, 0);
	add(1, RUN_STATEMENT, 42);
	CHECK(!seen.first);
	const uint64_t all[] = {40, 41, 42};
	uint64_t whole = seen.key;
	CHECK_EQ_U(run_key(all, 3), whole);
	checkout_runs_free(&k);
}

/* A run the capture did not see begin has no key: a connection picked up
 * mid-stream, whose pool marks nothing, is one run for its whole life,
 * its first statement's key whatever came first.  The startup begins one. */
static void test_unseen_beginning(void)
{
	CHECK(checkout_runs_init(&k) == 0);
	add(3, RUN_STATEMENT, 5);
	add(3, RUN_STATEMENT, 11);
	CHECK_EQ_U(seen.key, 0);
	add(4, RUN_STARTUP, 0);
	add(4, RUN_STATEMENT, 5);
	CHECK(seen.first);
	add(4, RUN_STATEMENT, 11);
	CHECK(seen.key != 0);
	add(4, RUN_OTHER, 0); /* a statement of no key: nothing */
	add(4, RUN_STATEMENT, 11);
	CHECK(!seen.first);
	checkout_runs_free(&k);
}

/* At most RUNS_STMTS distinct statements make the key: the first ones (an
 * N+1 loop's, or a long run's, do not make every checkout a key of its
 * own) */
static void test_bounded(void)
{
	CHECK(checkout_runs_init(&k) == 0);
	uint64_t many[RUNS_STMTS + 4];
	for (int i = 0; i < RUNS_STMTS + 4; i++)
		many[i] = 100 + (uint64_t)i;
	uint64_t full = run_key(many, RUNS_STMTS);
	CHECK_EQ_U(run_key(many, RUNS_STMTS + 4), full);
	CHECK(run_key(many, RUNS_STMTS - 1) != full);
	/* a connection whose entry another took starts again, its run unseen
	 * (the table is by the connection's hash) */
	uint64_t slot9 = conn_hash(9) % RUNS_CONNS, x = 10;
	while (conn_hash(x) % RUNS_CONNS != slot9)
		x++;
	add(9, RUN_PING, 0);
	add(9, RUN_STATEMENT, 5);
	checkout_runs_anchor(&k, 9, 55);
	add(x, RUN_PING, 0); /* takes conn 9's entry */
	add(9, RUN_STATEMENT, 11);
	CHECK(seen.first && !seen.known && seen.key == 0);
	checkout_runs_free(&k);
	/* out of memory (no table): nothing said, nothing kept */
	memset(&k, 0, sizeof k);
	add(1, RUN_STATEMENT, 5);
	CHECK(!seen.first && !seen.known && seen.key == 0);
	checkout_runs_anchor(&k, 1, 3);
}

/* The key of stmt followed by up to three round trips (0: none) */
static uint64_t chain_of(uint64_t stmt, uint64_t n0, uint64_t n1, uint64_t n2)
{
	const uint64_t next[CHAIN_DEPTH] = {n0, n1, n2};
	return checkout_runs_chain(&k, stmt, next);
}

static uint64_t chain(uint64_t stmt, uint64_t next)
{
	return chain_of(stmt, next, 0, 0);
}

/* One page of a pool that marks nothing: on connection conn, the lookup
 * (5) and then the route's statements; each kept where the caller keeps
 * it (checkout_runs_last: its number) */
static uint64_t kept;
static void page(uint64_t conn, const uint64_t *stmts, int n)
{
	for (int i = 0; i < n; i++) {
		add(conn, RUN_STATEMENT, stmts[i]);
		checkout_runs_last(&k, conn, ++kept);
	}
}

/* Chains: a statement that follows another on its connection nearly
 * always (nine in ten, CHAIN_MIN times or more) tells that one apart; a
 * statement followed by one alone is not split (the pair would only be a
 * new name for it); a follower whose predecessor varies tells nothing */
static void test_chains(void)
{
	CHECK(checkout_runs_init(&k) == 0);
	const uint64_t detail[] = {5, 21, 22}, tags[] = {5, 31}, index1[] = {5}, index2[] = {11};
	kept = 0;
	/* the detail and tag pages in their checkouts; the index's lookup
	 * a checkout of its own, then anything (here, the next page's lookup,
	 * or its own second statement on another connection) */
	for (int p = 0; p < CHAIN_MIN - 1; p++) {
		page(1, detail, 3);
		page(2, tags, 2);
		page(3, index1, 1);
		page(4, index2, 1);
	}
	CHECK_EQ_U(chain(5, 21), 0); /* CHAIN_MIN - 1 times: not yet */
	add(1, RUN_STATEMENT, 5);
	checkout_runs_last(&k, 1, ++kept);
	add(1, RUN_STATEMENT, 21);
	CHECK_EQ_U(seen.chain, 21); /* what followed the last statements */
	CHECK_EQ_U(seen.nback, CHAIN_DEPTH);
	CHECK(seen.back_known[0]);
	CHECK_EQ_U(seen.back_where[0], kept);     /* the lookup's mark */
	CHECK_EQ_U(seen.back_where[1], kept - 5); /* the last detail page's 22, before 4 others */
	CHECK(chain(5, 21) != 0); /* CHAIN_MIN times */
	checkout_runs_last(&k, 1, ++kept);
	add(1, RUN_STATEMENT, 22);
	checkout_runs_last(&k, 1, ++kept);
	for (int p = 0; p < 4; p++) {
		page(2, tags, 2);
		page(3, index1, 1);
		page(3, detail, 3); /* after the index's lookup on connection 3 */
	}
	uint64_t to_detail = chain(5, 21);
	uint64_t to_tags = chain(5, 31);
	CHECK(to_detail != 0 && to_tags != 0 && to_detail != to_tags);
	CHECK_EQ_U(chain(5, 5), 0);   /* the lookup after anything */
	CHECK_EQ_U(chain(21, 22), 0); /* 21 is followed by 22 alone */
	CHECK_EQ_U(chain(5, 0), 0);
	CHECK_EQ_U(chain(0, 21), 0);
	CHECK_EQ_U(chain(7, 21), 0);  /* 21 follows 5, not 7 */
	/* not across a boundary: a ping, a startup, a transaction's end */
	const enum run_mark bounds[] = {RUN_PING, RUN_STARTUP, RUN_END, RUN_OTHER};
	for (int i = 0; i < 4; i++) {
		add(6, RUN_STATEMENT, 5);
		checkout_runs_last(&k, 6, ++kept);
		add(6, bounds[i], 0);
		add(6, RUN_STATEMENT, 21);
		CHECK_EQ_U(seen.chain, 21);
		CHECK_EQ_U(seen.nback, 0); /* it follows nothing */
	}
	/* a BEGIN follows too: the tag route in a transaction after the lookup */
	add(7, RUN_STATEMENT, 5);
	checkout_runs_last(&k, 7, ++kept);
	add(7, RUN_BEGIN, 0);
	uint64_t begin = seen.chain;
	CHECK(begin != 0 && seen.nback == 1 && seen.back_where[0] == kept);
	add(7, RUN_STATEMENT, 41); /* first after the BEGIN: nothing before it */
	CHECK_EQ_U(seen.nback, 0);
	/* nine in ten: 21 after something else now and then breaks the chain
	 * once it is more than one time in ten */
	for (int p = 0; p < 30; p++) {
		page(8, detail, 3);
		if (p % 3 == 0) {
			add(8, RUN_STATEMENT, 99);
			add(8, RUN_STATEMENT, 21);
		}
	}
	CHECK_EQ_U(chain(5, 21), 0);
	checkout_runs_free(&k);
	CHECK_EQ_U(chain(5, 31), 0); /* no table */
}

/* Deeper: two lookups (5, 6) on every route, then the route's own; the
 * first is followed by the second alone, the second by each route's own:
 * the first is known by its chain up to where it branches, and past it
 * while each next one is a link */
static void test_chains_deeper(void)
{
	CHECK(checkout_runs_init(&k) == 0);
	const uint64_t a[] = {5, 6, 21, 22}, b[] = {5, 6, 31}, c[] = {5, 6};
	kept = 0;
	for (int p = 0; p < 2 * CHAIN_MIN; p++) {
		page(1, a, 4);
		page(2, b, 3);
		page(3, c, 2); /* then whatever comes on connection 3: the next page */
	}
	add(4, RUN_STATEMENT, 5);
	checkout_runs_last(&k, 4, 1001);
	add(4, RUN_STATEMENT, 6);
	checkout_runs_last(&k, 4, 1002);
	add(4, RUN_STATEMENT, 21);
	CHECK_EQ_U(seen.nback, 2); /* it follows 6 and, one further back, 5 */
	CHECK_EQ_U(seen.back_where[0], 1002);
	CHECK_EQ_U(seen.back_where[1], 1001);
	CHECK_EQ_U(chain(5, 6), 0); /* 5 is followed by 6 alone: no branch yet */
	uint64_t to_a = chain_of(5, 6, 21, 22), to_b = chain_of(5, 6, 31, 0);
	CHECK(to_a != 0 && to_b != 0 && to_a != to_b);
	CHECK_EQ_U(chain_of(5, 6, 21, 0) != 0, 1);
	CHECK(chain_of(5, 6, 21, 0) != to_a); /* as far as it was followed */
	CHECK_EQ_U(chain_of(5, 6, 5, 0), 0);  /* 6 then the next page's 5: no link */
	CHECK_EQ_U(chain_of(21, 22, 0, 0), 0); /* 21 is followed by 22 alone */
	CHECK_EQ_U(chain_of(5, 7, 21, 0), 0);  /* no link at the first: nothing */
	checkout_runs_free(&k);
}

/* The table of statements is bounded: past half of CHAIN_SLOTS, new
 * statements are not followed (no chain for them), nothing else changes */
static void test_chains_bounded(void)
{
	CHECK(checkout_runs_init(&k) == 0);
	for (uint64_t s = 1000; s < 1000 + CHAIN_SLOTS; s++)
		add(1, RUN_STATEMENT, s);
	CHECK_EQ_U(k.nchains, CHAIN_SLOTS / 2);
	for (int p = 0; p < 2 * CHAIN_MIN; p++) {
		add(2, RUN_STATEMENT, 7);
		add(2, RUN_STATEMENT, 8);
		add(2, RUN_STATEMENT, 1000);
	}
	CHECK_EQ_U(chain(7, 8), 0); /* 7 and 8 never found room */
	CHECK_EQ_U(k.nchains, CHAIN_SLOTS / 2);
	checkout_runs_free(&k);
}

int main(void)
{
	RUN(test_runs_end_at_pings);
	RUN(test_runs_per_connection);
	RUN(test_transactions);
	RUN(test_unseen_beginning);
	RUN(test_bounded);
	RUN(test_chains);
	RUN(test_chains_bounded);
	RUN(test_chains_deeper);
	return TT_EXIT();
}
