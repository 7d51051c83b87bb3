/* test_legs.c - a pooler's server side told from a second server that
 * runs the same statements (legs.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/legs.h"
#include "tinytest.h"

#define MS 1000000ull
#define US 1000ull

struct leg {
	uint8_t port;
	uint64_t sig, t0, t1;
	bool copy; /* the test's truth: a pooler's copy of another */
};

static int by_end(const void *x, const void *y)
{
	const struct leg *a = x, *b = y;
	return a->t1 < b->t1 ? -1 : a->t1 > b->t1;
}

/* round trips that went to pages, by port (fed) */
static uint64_t paged[3];

/* Feeds the round trips in the order they end, as a capture would, each
 * to pages unless it is known for a pooler's copy by then. */
static void feed(struct legs *l, struct leg *v, uint32_t n)
{
	qsort(v, n, sizeof(*v), by_end);
	memset(paged, 0, sizeof paged);
	for (uint32_t i = 0; i < n; i++) {
		legs_flight(l, v[i].port, v[i].sig, v[i].t0, v[i].t1);
		paged[v[i].port] += legs_to_pages(l, v[i].port);
	}
}

/* Legs 0, 1 and 2: a pooler on 6432, its server on 5432, and another
 * server beside them, on one port of its own address. */
static void three_legs(struct legs *l)
{
	legs_init(l);
	CHECK_EQ_U(legs_endpoint(l, "127.0.0.1:6432"), 0);
	CHECK(!legs_on(l));
	CHECK_EQ_U(legs_endpoint(l, "127.0.0.1:5432"), 1);
	CHECK(legs_on(l));
	CHECK_EQ_U(legs_endpoint(l, "10.0.0.2:5432"), 2);
}

static uint64_t rnd_state = 42;
static uint64_t rnd(uint64_t n)
{
	rnd_state = rnd_state * 6364136223846793005ull + 1442695040888963407ull;
	return (rnd_state >> 33) % n;
}

/* clients running statements of nsig kinds through a pooler: each on port
 * 0 (the client's leg) and, inside it, on port 1 (the server's); a
 * statement may wait up to wait_ns for a server connection, and the
 * answer is passed on within relay_ns */
static uint32_t pooled(struct leg *v, uint32_t clients, uint32_t each, uint64_t nsig,
		       uint64_t wait_ns, uint64_t relay_ns)
{
	uint32_t n = 0;
	for (uint32_t c = 0; c < clients; c++) {
		uint64_t t = rnd(MS);
		for (uint32_t i = 0; i < each; i++) {
			uint64_t sig = 1 + rnd(nsig), wait = wait_ns ? rnd(wait_ns) : 0;
			uint64_t srv = 50 * US + rnd(400 * US), relay = 5 * US + rnd(relay_ns);
			uint64_t in0 = t + 10 * US + wait, in1 = in0 + srv;
			v[n++] = (struct leg){0, sig, t, in1 + relay, false};
			v[n++] = (struct leg){1, sig, in0, in1, true};
			t = in1 + relay + rnd(200 * US);
		}
	}
	return n;
}

static void test_pooler(void)
{
	static struct leg v[2 * 8 * 500];
	struct legs l;
	three_legs(&l);
	feed(&l, v, pooled(v, 8, 500, 5, 0, 30 * US));
	uint8_t outer = 9, inner = 9;
	uint64_t copies = 0;
	CHECK(legs_found(&l, &outer, &inner, &copies));
	CHECK_EQ_U(outer, 0);
	CHECK_EQ_U(inner, 1);
	CHECK_EQ_U(l.stmts[1], 4000);
	/* all but a few: where two clients' round trips of one statement
	 * nest, the longer copy may be taken for the other's (the count is
	 * the same) or one left over */
	CHECK(copies >= 4000 * 99 / 100 && copies <= 4000);
	/* known after LEGS_DECIDE copies: the server's leg off the pages
	 * from then on, every round trip of the clients' on them */
	CHECK(l.decided);
	CHECK_EQ_U(paged[0], 4000);
	CHECK(paged[1] >= LEGS_DECIDE && paged[1] <= LEGS_DECIDE * 4 / 3 + 8);
	CHECK_EQ_U(l.paged[1], paged[1]);
	CHECK_EQ_U(l.left_out + paged[1], 4000);
	legs_free(&l);
}

/* clients through a pooler (pooled's arguments): port 1 found as port
 * 0's copy, for at least pct% of its statements */
static void expect_pooler(uint32_t clients, uint32_t each, uint64_t nsig, uint64_t wait_ns,
			  uint64_t relay_ns, uint64_t pct)
{
	static struct leg v[2 * 64 * 200];
	struct legs l;
	three_legs(&l);
	feed(&l, v, pooled(v, clients, each, nsig, wait_ns, relay_ns));
	uint8_t outer = 9, inner = 9;
	uint64_t copies = 0;
	CHECK(legs_found(&l, &outer, &inner, &copies));
	CHECK_EQ_U(outer, 0);
	CHECK_EQ_U(inner, 1);
	CHECK(copies >= (uint64_t)clients * each * pct / 100);
	legs_free(&l);
}

/* one statement on every page (a session lookup, pgbench -S): every round
 * trip in the same set, 64 clients at once */
static void test_hot_statement(void)
{
	expect_pooler(64, 200, 1, 0, 30 * US, 95);
}

/* a saturated pool: statements wait up to 20 ms for a server connection,
 * and a busy host passes answers on late now and then */
static void test_saturated(void)
{
	expect_pooler(32, 200, 3, 20 * MS, 300 * US, 90);
}

/* two servers, no pooler: the same statements on a primary (port 0, slow:
 * 20-80 ms) and a replica (port 1, fast), as often on each, many clients
 * at once - the replica's round trips end inside the primary's all the
 * time, but not within a pooler's relay of their end */
static void test_two_servers(void)
{
	static struct leg v[2 * 32 * 300];
	struct legs l;
	three_legs(&l);
	uint32_t n = 0;
	for (int port = 0; port < 2; port++)
		for (uint32_t c = 0; c < 32; c++) {
			uint64_t t = rnd(10 * MS);
			for (uint32_t i = 0; i < 300; i++) {
				uint64_t d = port == 0 ? 20 * MS + rnd(60 * MS) : 100 * US + rnd(MS);
				v[n++] = (struct leg){(uint8_t)port, 1 + rnd(2), t, t + d, false};
				t += d + (port == 0 ? rnd(MS) : rnd(50 * MS));
			}
		}
	feed(&l, v, n);
	uint8_t outer = 9, inner = 9;
	uint64_t copies = 0;
	CHECK(!legs_found(&l, &outer, &inner, &copies));
	CHECK(l.inside[0][1] < l.stmts[1] / 4); /* 32% with a 2 ms relay, 21% at 1 ms */
	CHECK(!l.decided);
	CHECK_EQ_U(paged[0] + paged[1], n); /* no server's round trip left the pages */
	fprintf(stderr, "two servers: %llu of %llu of the replica's inside the primary's\n",
		(unsigned long long)l.inside[0][1], (unsigned long long)l.stmts[1]);
	legs_free(&l);
}

/* a pooler's legs and a third port beside them: the pair is found, the
 * third is no one's copy; pings (no statement) are never matched */
static void test_third_port_and_pings(void)
{
	static struct leg v[2 * 8 * 300 + 4000];
	struct legs l;
	three_legs(&l);
	uint32_t n = pooled(v, 8, 300, 4, 0, 30 * US);
	for (uint32_t i = 0; i < 2000; i++) { /* port 2: another app's own server, other statements */
		uint64_t t = rnd(500 * MS);
		v[n++] = (struct leg){2, 100 + rnd(3), t, t + 100 * US + rnd(MS), false};
	}
	for (uint32_t i = 0; i < 2000; i++) { /* pings on both legs: sig 0 */
		uint64_t t = rnd(500 * MS);
		v[n++] = (struct leg){(uint8_t)(i & 1), 0, t, t + 50 * US, false};
	}
	feed(&l, v, n);
	uint8_t outer = 9, inner = 9;
	uint64_t copies = 0;
	CHECK(legs_found(&l, &outer, &inner, &copies));
	CHECK_EQ_U(outer, 0);
	CHECK_EQ_U(inner, 1);
	CHECK(copies >= 2400 * 99 / 100 && copies <= 2400);
	CHECK_EQ_U(l.stmts[0], 2400); /* the pings are not statements */
	CHECK_EQ_U(l.inside[2][0] + l.inside[2][1] + l.inside[0][2] + l.inside[1][2], 0);
	legs_free(&l);
}

/* too few to tell, a port beyond the table, a round trip without its
 * end: nothing found, nothing read out of bounds */
static void test_bounds(void)
{
	struct legs l;
	three_legs(&l);
	static struct leg v[2 * 15];
	feed(&l, v, pooled(v, 1, 15, 2, 0, 30 * US));
	uint8_t outer, inner;
	uint64_t copies = 7;
	CHECK(!legs_found(&l, &outer, &inner, &copies)); /* 15 < LEGS_MIN */
	CHECK_EQ_U(copies, 0);
	legs_flight(&l, LEGS_ENDS, 5, 1, 2);
	legs_flight(&l, LEGS_NONE, 5, 1, 2);
	legs_flight(&l, 0, 0, 1, 2); /* no statement: nothing to match by */
	CHECK_EQ_U(l.stmts[0], 15);
	legs_free(&l);
}

/* Endpoints: the same name the same leg; nothing followed, nor any room
 * taken, until a second one; LEGS_ENDS of them, the rest none */
static void test_endpoints(void)
{
	struct legs l;
	legs_init(&l);
	CHECK_EQ_U(legs_endpoint(&l, "127.0.0.1:5432"), 0);
	CHECK_EQ_U(legs_endpoint(&l, "127.0.0.1:5432"), 0);
	CHECK(!legs_on(&l));
	static struct leg v[2 * 8 * 100];
	uint32_t n = pooled(v, 8, 100, 3, 0, 30 * US);
	for (uint32_t i = 0; i < n; i++)
		v[i].port = 0; /* one endpoint: both "legs" are its own connections */
	feed(&l, v, n);
	uint8_t outer, inner;
	uint64_t copies;
	CHECK(!legs_found(&l, &outer, &inner, &copies));
	CHECK_EQ_U(l.stmts[0], 0); /* not followed: nothing to tell apart */
	CHECK_EQ_U(paged[0], n);
	CHECK_EQ_U(l.paged[0], n); /* on pages before any copy could be known: counted */
	/* "[::1]:5432" is another endpoint than "127.0.0.1:5432"; a prefix is not the name */
	CHECK_EQ_U(legs_endpoint(&l, "[::1]:5432"), 1);
	CHECK(legs_on(&l));
	CHECK_EQ_U(legs_endpoint(&l, "127.0.0.1:543"), 2);
	char name[64];
	for (uint32_t i = 3; i < LEGS_ENDS; i++) {
		snprintf(name, sizeof name, "10.0.%u.1:5432", i);
		CHECK_EQ_U(legs_endpoint(&l, name), i);
	}
	CHECK_EQ_U(legs_endpoint(&l, "10.9.9.9:5432"), LEGS_NONE);
	CHECK_EQ_U(legs_endpoint(&l, "10.0.3.1:5432"), 3);
	/* a name longer than any address: cut, and still one endpoint */
	memset(name, 'x', sizeof name - 1);
	name[sizeof name - 1] = '\0';
	struct legs m;
	legs_init(&m);
	CHECK_EQ_U(legs_endpoint(&m, name), 0);
	CHECK_EQ_U(legs_endpoint(&m, name), 0);
	CHECK_EQ_U(strlen(m.end[0]), LEGS_NAME_MAX - 1);
	legs_free(&m);
	legs_free(&l);
}

/* a TCP relay on the server's port at another address (Docker's
 * docker-proxy on 127.0.0.1:5432 before the server's container at
 * 172.17.0.2:5432, an SSH tunnel): every statement, each a copy; with the
 * relay's endpoint seen first or the server's */
static void relay_on_one_port(bool server_first)
{
	static struct leg v[2 * 16 * 200];
	struct legs l;
	legs_init(&l);
	uint8_t server = legs_endpoint(&l, server_first ? "172.17.0.2:5432" : "127.0.0.1:5432");
	uint8_t relay = legs_endpoint(&l, server_first ? "127.0.0.1:5432" : "172.17.0.2:5432");
	if (!server_first) {
		uint8_t t = server;
		server = relay;
		relay = t;
	}
	uint32_t n = pooled(v, 16, 200, 6, 0, 100 * US);
	for (uint32_t i = 0; i < n; i++)
		v[i].port = v[i].copy ? server : relay;
	feed(&l, v, n);
	uint8_t outer = 9, inner = 9;
	uint64_t copies = 0;
	CHECK(legs_found(&l, &outer, &inner, &copies));
	CHECK_EQ_U(outer, relay);
	CHECK_EQ_U(inner, server);
	/* 98% here: 16 clients of 6 statements nest more often (test_pooler) */
	CHECK(copies >= 3200 * 97 / 100 && copies <= 3200);
	CHECK(l.decided);
	CHECK_EQ_U(paged[relay], 3200);
	legs_free(&l);
}

static void test_relay_on_one_port(void)
{
	relay_on_one_port(false);
	relay_on_one_port(true);
}

int main(void)
{
	RUN(test_pooler);
	RUN(test_hot_statement);
	RUN(test_saturated);
	RUN(test_two_servers);
	RUN(test_third_port_and_pings);
	RUN(test_bounds);
	RUN(test_endpoints);
	RUN(test_relay_on_one_port);
	return TT_EXIT();
}
