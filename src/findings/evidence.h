/* evidence.h - what a finished analysis can and cannot vouch for.
 *
 * A figure is only as good as the traffic behind it: no packets on the
 * given port, encrypted connections, a capture cut by its snaplen or by
 * kernel drops, pages that no round trip fell into.  Each such condition is
 * a named finding with a count and a one-line message.  Every command that
 * shows figures shows the findings with them (stderr, JSON "warnings"), the
 * store keeps them with the run, and pgrtt audit fails on any it was not
 * told to allow: a gate never passes on a capture it could not read.
 *
 * Library code: fills a struct, never prints.
 */
#ifndef PGRTT_EVIDENCE_H
#define PGRTT_EVIDENCE_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/analysis.h"
#include "sources/input.h"

/* The names are the contract (JSON, the store, audit --allow, docs/ci.md):
 * never rename one. */
#define EVIDENCE_CODES(X)                                                                   \
	X(NO_POSTGRESQL, "no-postgresql", EV_FATAL)                                         \
	X(NO_ROUND_TRIPS, "no-round-trips", EV_FATAL)                                       \
	X(ENCRYPTED, "encrypted", EV_WARNING)                                               \
	X(UNDECODABLE, "undecodable", EV_WARNING)                                           \
	X(PARTIAL_INPUT, "partial-input", EV_WARNING)                                       \
	X(DROPS, "drops", EV_WARNING)                                                       \
	X(TRUNCATED, "truncated", EV_WARNING)                                               \
	X(GAPS, "gaps", EV_WARNING)                                                         \
	X(MALFORMED, "malformed", EV_WARNING)                                               \
	X(EVICTED, "evicted", EV_WARNING)                                                   \
	X(OUT_OF_MEMORY, "out-of-memory", EV_WARNING)                                       \
	X(SSL_INJECTION, "ssl-injection", EV_WARNING)                                       \
	X(NO_PAGES, "no-pages", EV_WARNING)                                                 \
	X(HTTP_UNDECODABLE, "http-undecodable", EV_WARNING)                                 \
	X(PAGES_WITHOUT_ROUND_TRIPS, "pages-without-round-trips", EV_WARNING)               \
	X(MIXED_ROUTES, "mixed-routes", EV_NOTE)                                            \
	X(ATTRIBUTION_DROPPED, "attribution-dropped", EV_WARNING)                           \
	X(LONG_REQUESTS, "long-requests", EV_NOTE)                                          \
	X(MID_STREAM, "mid-stream", EV_NOTE)                                               \
	X(NO_REDIS, "no-redis", EV_WARNING)                                                 \
	X(REDIS_DAMAGE, "redis-damage", EV_WARNING)                                         \
	X(REDIS_ONLY, "redis-only", EV_NOTE)                                                \
	X(UNPLACED, "unplaced-statements", EV_NOTE)                                         \
	X(UNPLACED_COMMANDS, "unplaced-commands", EV_NOTE)                                  \
	X(LOCKSTEP, "lockstep-routes", EV_NOTE)                                             \
	X(ROUTES_LEARNT, "routes-learnt", EV_NOTE)                                          \
	X(PROXIED_PAGES, "proxied-pages", EV_NOTE)                                          \
	X(POOLER_LEGS, "pooler-legs", EV_WARNING)                                           \
	X(POOLER_SERVER_LEG, "pooler-server-leg", EV_WARNING)                               \
	X(POOLER_SERVER_CONNS, "pooler-server-conns", EV_NOTE)                               \
	X(REDIS_LEGS, "redis-legs", EV_WARNING)

#define EV_ENUM(id, name, sev) EV_##id,
enum ev_code { EVIDENCE_CODES(EV_ENUM) EV_NCODES };
#undef EV_ENUM

enum ev_severity {
	EV_NOTE,    /* worth knowing; the figures stand */
	EV_WARNING, /* figures are lower bounds or incomplete: audit fails */
	EV_FATAL,   /* nothing usable was measured: audit exits 2 */
};

#define EV_MSG_MAX 1024 /* a finding with two IPv6 endpoints and the filters that part them */

struct ev_finding {
	uint8_t code;     /* enum ev_code */
	uint8_t severity; /* enum ev_severity */
	bool lower_bound; /* the run's counts are lower bounds because of it */
	uint64_t count;   /* connections, packets, pages... as the message says */
	char message[EV_MSG_MAX];
};

struct evidence {
	struct ev_finding f[EV_NCODES];
	int n;
	bool lower_bound; /* any finding makes the counts lower bounds */
	/* for no-postgresql: ports that looked like PostgreSQL, busiest first */
	struct analysis_other_port ports[ANALYSIS_OTHER_PORTS];
	int nports;
};

/* The findings of a finished analysis (in may be NULL). */
void evidence_of(const struct analysis *a, const struct report_input *in, struct evidence *ev);

/* The findings a capture still running can already vouch for - those its
 * packet counters decide (no packet on a port given: nothing measured, not
 * 0) - from now, analysis_live's figures. */
void evidence_live(const struct analysis *a, const struct analysis_live *now, struct evidence *ev);

/* Add one finding (used by evidence_of and by the store when reading back). */
void evidence_add(struct evidence *ev, enum ev_code code, uint64_t count, bool lower_bound,
		  const char *fmt, ...) __attribute__((format(printf, 5, 6)));

const char *ev_code_name(int code);
const char *ev_severity_name(int sev);
enum ev_severity ev_code_severity(int code);

/* The code of a name, or -1. */
int ev_code_parse(const char *name);

/* "no-postgresql, no-round-trips, ..." for help and errors. */
const char *ev_code_list(void);

#endif
