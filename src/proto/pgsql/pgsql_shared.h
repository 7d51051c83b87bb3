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
#include "proto/legs.h"
#include "rtt.h"

struct pgsql_shared {
	struct hist lat;                  /* every round trip with a measured latency */
	struct hist lat_class[RT_NCLASS]; /* by class */
	struct legs legs;                 /* a pooler's or relay's, on the PostgreSQL ports */
	struct ping_evidence ping_ev;     /* the pool's ping policy, learnt */
	enum ping_policy ping_policy;     /* what it said at the end (analysis_finish) */
	struct rtt_texts *texts;          /* the texts classified */
};

/* 0, or -1 when out of memory (pgsql_shared_free frees what it made). */
int pgsql_shared_init(struct pgsql_shared *p);
void pgsql_shared_free(struct pgsql_shared *p);

#endif
