/* rt_class.h - what a round trip is for, in every protocol's words: its
 * class (query, ping, reset, ...) and, for a ping, its role in a pool's
 * checkout (acquire, release, idle).  PostgreSQL's round trips (rtt.h) and
 * Redis's (redis_rtt.h) are classified into these; pages, reports and the
 * store count by them. */
#ifndef PGRTT_RT_CLASS_H
#define PGRTT_RT_CLASS_H

#include <stdbool.h>
#include <stddef.h>

#define RT_CLASSES(X)                                                     \
	X(QUERY, "query")                                                 \
	X(PING, "ping")                                                   \
	X(RESET, "reset")                                                 \
	X(TRANSACTION, "transaction")                                     \
	X(PREPARE, "prepare")                                             \
	X(CLOSE, "close")                                                 \
	X(COPY, "copy")                                                   \
	X(STARTUP, "startup")                                             \
	X(FUNCTION, "function")                                           \
	X(OTHER, "other")                                                 \
	X(UNKNOWN, "unknown")

enum rt_class {
#define X(id, name) RT_##id,
	RT_CLASSES(X)
#undef X
	RT_NCLASS
};

enum rt_ping_role { PING_NONE, PING_ACQUIRE, PING_RELEASE, PING_IDLE, PING_NROLE };

/* How a ping's role was told: by its kind or position (a check before a
 * query, the first and last of a run of lone Syncs), by the pool's policy,
 * or by timing alone (the nearer neighbour). */
enum rt_role_how { ROLE_PLAIN, ROLE_POLICY, ROLE_TIMING };

/* A pool's ping policy: where its pings go in a checkout, known once its
 * connections showed it (a lone Sync between two queries is the first's
 * release or the second's acquire; rtt.h learns it for PostgreSQL). */
enum ping_policy { POLICY_UNKNOWN, POLICY_RELEASE, POLICY_ACQUIRE, POLICY_BOTH };

const char *rt_class_name(int cls);

/* "other" in every table (text, store, report): the classes without a column
 * of their own - all but query, ping, reset, transaction and prepare. */
bool rt_class_is_other(int cls);
const char *rt_ping_role_name(int role);

/* "query", or "ping/acquire" for a ping: class and role in one word. */
const char *rt_label(int cls, int role, char *buf, size_t cap);

/* The same, a ping's role marked by how it was told: "ping/release~" from
 * the pool's policy, "ping/release?" by timing alone. */
const char *rt_label_how(int cls, int role, int how, char *buf, size_t cap);

#endif
