/* legs.h - a pooler's or relay's two legs, both captured.
 *
 * An application that talks to PgBouncer (or pgcat, Odyssey, Pgpool-II, any
 * proxy that speaks the protocol) on one port, the pooler passing each
 * statement on to the server on another: captured on both ports (tcpdump
 * -i lo with the pooler on the app's host, or -i any), every round trip is
 * on the wire twice - the application's to the pooler, then the pooler's to
 * the server inside it.  Given both ports, the totals and every page's
 * figures count each round trip twice, and nothing in either leg alone
 * says so (docs/pools.md has the figures).
 *
 * So each finished round trip with a statement is matched against the
 * recent ones of the other legs (below): one on leg B with the same
 * statement (sql_fingerprint) that began no earlier than one on leg A and
 * ended no later, and at most LEGS_RELAY_NS before it, is B's copy of A's -
 * a proxy's leg lies inside the client's, since the pooler can only send
 * on what it has and answer after the server did, and it passes an answer
 * on at once (a statement may wait for a free server connection first, so
 * only the end is held close).  Each one is matched once.  Where most of a
 * leg's statements are copies of another's, it is a pooler's server side
 * (evidence.h, pooler-legs).  Two servers that run the same statement at
 * once (a primary and its replica) match now and then: one's round trip
 * must end inside the other's and within the relay time of its end.
 *
 * Pages count the application's leg alone, once the other is known for
 * the server's (LEGS_DECIDE copies, three quarters of its statements:
 * the round trips before that are on pages twice, and said): the server's
 * leg of a transaction pooler holds no checkout of the application's - each
 * statement and each ping goes to whichever server connection is free - so
 * its round trips, placed on pages, are not even the right ones twice
 * (docs/pools.md: the server's leg's routes off, the application's exact).
 * The totals and the connections keep both legs: they are what each port
 * carried.
 *
 * A leg is a server endpoint, address and port, not a port: one port can
 * carry both legs where the proxy and the server listen on different
 * addresses - Docker's published port (docker-proxy on the host's
 * 127.0.0.1:5432, the server in its container on 172.17.0.2:5432, `-i
 * any` seeing both), an SSH or kubectl tunnel, PgBouncer on 5432 of its own
 * host or container.  There every round trip would read twice with the
 * default `-p 5432` and nothing would say so (docs/pools.md).  So the legs
 * are followed as soon as a second endpoint shows up on the PostgreSQL
 * ports; before that nothing is kept.
 *
 * Memory is fixed: LEGS_ENDS endpoints' names, and, from the second
 * endpoint on, LEGS_SETS x LEGS_WAYS recent round trips by statement
 * (an inner one waits only until the pooler relays its answer,
 * microseconds), and a count per pair of endpoints; nothing per packet or
 * connection. */
#ifndef PGRTT_LEGS_H
#define PGRTT_LEGS_H

#include <stdbool.h>
#include <stdint.h>


#define LEGS_ENDS 32 /* server endpoints followed; more are not legs */
#define LEGS_NONE 255 /* an endpoint past them */
#define LEGS_NAME_MAX 56 /* "address:port", "[v6 address]:port" (ADDR_STR_MAX) */
#define LEGS_SETS 256
#define LEGS_WAYS 16 /* a hot statement's round trips share one set */
#define LEGS_RELAY_NS 1000000ull /* a pooler's answer passed on, on a busy host */
#define LEGS_MIN 16   /* copies before a port is called a pooler's leg */
#define LEGS_DECIDE 32 /* ... before its round trips leave pages (and 3/4 of them) */

struct legs_copy {
	uint64_t sig; /* 0: free */
	uint64_t t_start, t_end;
	uint8_t leg; /* its server endpoint's index */
};

struct legs {
	char end[LEGS_ENDS][LEGS_NAME_MAX]; /* the endpoints, "address:port", as seen */
	uint8_t nends;
	bool short_of_memory; /* no room for the recent ones: not followed (the engine counts it: proto_host.leg) */
	struct legs_copy (*recent)[LEGS_WAYS]; /* LEGS_SETS sets, from the second endpoint */
	uint64_t stmts[LEGS_ENDS];                /* round trips with a statement, by leg */
	uint64_t inside[LEGS_ENDS][LEGS_ENDS]; /* [outer][inner]: copies matched */
	bool decided;                 /* inner is a pooler's server side, outer its clients' */
	uint8_t outer, inner;
	uint64_t paged[LEGS_ENDS]; /* round trips that went to pages before it was decided */
	uint64_t left_out;            /* the inner leg's round trips kept off pages since */
};

void legs_init(struct legs *l);
void legs_free(struct legs *l);

/* The leg of a connection to server endpoint `name` ("address:port"):
 * its index, or LEGS_NONE past LEGS_ENDS of them.  The second
 * endpoint starts the following (legs_on). */
uint8_t legs_endpoint(struct legs *l, const char *name);

/* Are round trips matched (two endpoints seen, and the room for them)?
 * Until then nothing needs their statements' fingerprints. */
static inline bool legs_on(const struct legs *l)
{
	return l && l->recent;
}

/* The same for any protocol's round trip: what it sent, as a signature a
 * relay's copy shares (0: nothing to match by), and its span.  Redis's
 * flights are matched this way, in legs of their own (analysis.h). */
void legs_flight(struct legs *l, uint8_t leg, uint64_t sig, uint64_t t_start,
		    uint64_t t_end);

/* Does a round trip of leg `leg` go to pages?  (Counts it.) */
bool legs_to_pages(struct legs *l, uint8_t leg);

/* The pair of legs where the inner one's statements are most often the
 * outer one's copies, if at least half of the inner leg's (and
 * LEGS_MIN): true, with the indices and the count of copies. */
bool legs_found(const struct legs *l, uint8_t *outer, uint8_t *inner, uint64_t *copies);

#endif
