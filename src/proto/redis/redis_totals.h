/* redis_totals.h - a capture's Redis connections added up.
 *
 * What the Redis connections of one analysis share: the sums of their
 * figures as each closes, their commands by name, their latencies, and a
 * relay's legs (legs.h) between them.  The analysis keeps one for the
 * protocol (proto.h's shared state); the Redis glue fills it, the findings
 * and the outputs read it.  Nothing in it grows with the capture: the
 * names are a fixed table, whatever a hostile client sends. */
#ifndef PGRTT_REDIS_TOTALS_H
#define PGRTT_REDIS_TOTALS_H

#include <stdint.h>

#include "base/hist.h"
#include "proto/figure.h"
#include "proto/legs.h"
#include "redis_rtt.h"
#include "resp.h"

#define REDIS_NAMES_MAX 256 /* distinct command names counted, the rest as one */

struct redis_name_count {
	char name[RESP_NAME_MAX + 1];
	uint64_t n;
};

struct conn_summary; /* a connection's record (proto/conn_summary.h) */

/* What dump and trace watch (analysis_opts.redis): every RESP value, every
 * round trip, with the connection's record (NULL: not watched). */
typedef void redis_value_fn(void *ctx, const struct conn_summary *c, const struct resp_msg *m);
typedef void redis_flight_fn(void *ctx, const struct conn_summary *c, const struct redis_rt *rt);
struct redis_observers {
	redis_value_fn *on_value;
	redis_flight_fn *on_flight;
	void *ctx;
};

struct redis_totals {
	struct proto_totals tot; /* first: what every protocol adds up (figure.h) */
	struct redis_stats st;   /* sums over connections */
	/* commands by name, upper-cased, printable; past REDIS_NAMES_MAX names, "" */
	struct redis_name_count by_command[REDIS_NAMES_MAX];
	uint32_t nnames;
	struct legs legs;                   /* a proxy's or relay's, on the Redis ports */
	struct redis_observers observe;
};

void redis_totals_init(struct redis_totals *t, const struct redis_observers *observe);
void redis_totals_free(struct redis_totals *t);

/* One more command named raw (as sent): its entry, counted (the rest's,
 * "", past REDIS_NAMES_MAX names). */
struct redis_name_count *redis_totals_count_name(struct redis_totals *t, const char *raw);

/* The commands counted, most frequent first (names alike: by name); the
 * rest ("", past REDIS_NAMES_MAX names) left out and returned in rest.
 * out holds REDIS_NAMES_MAX.  Returns how many. */
uint32_t redis_totals_commands(const struct redis_totals *t, const struct redis_name_count **out,
			       uint64_t *rest);

/* A connection's figures added to a sum. */
void redis_stats_add(struct redis_stats *sum, const struct redis_stats *s);

#endif
