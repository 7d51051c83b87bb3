/* pgsql_shared.h - what a capture's PostgreSQL connections share.
 *
 * One per analysis (proto.h's shared state): their latencies, a pooler's
 * legs between them (legs.h), the evidence of their pool's ping policy
 * and the policy it gave at the end, and the statement texts classified
 * once for all of them (rtt.h's rtt_texts).  The PostgreSQL glue fills
 * it, the findings and the outputs read it. */
#ifndef PGRTT_PGSQL_SHARED_H
#define PGRTT_PGSQL_SHARED_H

#include "base/hist.h"
#include "proto/conn_summary.h"
#include "proto/legs.h"
#include "rtt.h"

/* Connections that look like a pooler's server side (rtt_stats'
 * startups_pooler, pooler_sets, pooler_names; evidence.c's
 * pooler-server-leg): how many, with its SETs, with SETs that show it
 * handed on mid-session (transaction pooling), with its statement names,
 * with resets (DISCARD ALL: session pooling); startups of its shape and of
 * any other; the first one's server port. */
struct pooler_signs {
	uint64_t conns, set_conns, relink_conns, name_conns, reset_conns, startups, other_startups;
	uint16_t port;
};

/* One connection's signs (st: its figures so far), added to p. */
void pooler_signs_add(struct pooler_signs *p, const struct rtt_stats *st, uint16_t port);

struct textring;

/* What dump, trace and the store watch (analysis_opts.pgsql), with the
 * connection's record (NULL: not watched). */
typedef void pgsql_msg_observer(void *ctx, const struct conn_summary *c, const struct pgsql_msg *m);
typedef void pgsql_rt_observer(void *ctx, const struct conn_summary *c, const struct rt *rt);
struct pgsql_observers {
	pgsql_msg_observer *on_msg;   /* every message (pgrtt dump) */
	pgsql_rt_observer *on_rt;     /* every round trip, once classified (in order per connection) */
	void *ctx;
	struct textring *texts; /* set: round trips carry their statement's text (dump, trace) */
	bool text_values;       /* ... as sent (--show-values), not normalised */
};

/* What a capture's PostgreSQL connections counted so far, the open ones
 * included: the status line, SIGUSR1 and --metrics (analysis_live).  lat,
 * when the caller sets it, gets the open connections' latencies merged in
 * (the caller merges the closed ones', pgsql_shared.lat). */
struct pgsql_live {
	uint64_t rfq, round_trips, pings;
	uint64_t by_class[RT_NCLASS], ping_roles[PING_NROLE];
	struct pooler_signs pooler; /* closed connections' and open ones' so far */
	struct hist *lat;
};

/* What the capture's PostgreSQL connections add up to as each closes. */
struct pgsql_totals {
	uint64_t packets, connections;
	struct rtt_stats st; /* sums over connections (names unused) */
	/* damage: TCP's (gaps, retransmissions, out of order, cut short),
	 * the framer's, connections picked up mid-stream, encrypted or not
	 * PostgreSQL at all */
	uint64_t gaps, gap_bytes, malformed, skipped_bytes, resyncs, retrans_bytes, ooo_segs,
		truncated_segs, mid_stream, tls, tls_mid_stream, undecodable, enc_extra_bytes;
	uint64_t tls_decrypted; /* of the encrypted connections, those read with a key log (not in tls) */
	struct pooler_signs pooler; /* closed connections' */
};

struct pgsql_shared {
	struct pgsql_totals tot;
	struct hist lat;                  /* every round trip with a measured latency */
	struct hist lat_class[RT_NCLASS]; /* by class */
	struct legs legs;                 /* a pooler's or relay's, on the PostgreSQL ports */
	struct ping_evidence ping_ev;     /* the pool's ping policy, learnt */
	enum ping_policy ping_policy;     /* what it said at the end (analysis_finish) */
	struct rtt_texts *texts;          /* the texts classified */
	struct pgsql_observers observe;
};

/* 0, or -1 when out of memory (pgsql_shared_free frees what it made). */
int pgsql_shared_init(struct pgsql_shared *p, const struct pgsql_observers *observe);
void pgsql_shared_free(struct pgsql_shared *p);

/* A PostgreSQL connection's figures in its record (zero until it closes). */
static inline const struct rtt_stats *conn_rtt_stats(const struct conn_summary *c)
{
	_Static_assert(sizeof(struct rtt_stats) <= CONN_FIGURES_MAX, "a record holds them");
	return (const struct rtt_stats *)(const void *)c->figures;
}

#endif
