/* attrib_impl.h - what the parts of the attribution share (attrib.h is
 * its face): pages, connections' checkouts, Redis flights and candidate
 * sets, and the functions one part calls in another.  attrib.c takes the
 * events in and runs the sweep; attrib_place.c gives a round trip to the
 * pages that held it; attrib_commands.c does it for Redis commands;
 * attrib_correct.c corrects the routes' sums by the fit at the end. */
#ifndef PGRTT_ATTRIB_IMPL_H
#define PGRTT_ATTRIB_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "attrib.h"

#define PAGE_CONNS 8
_Static_assert(ATTRIB_CONNS % 64 == 0, "conns_pending: a bit per entry");
#define NO_SLOT UINT32_MAX

struct attrib_page {
	uint32_t route;
	uint32_t next_free; /* in the free list */
	bool overlapped, mixed;
	uint64_t t0, t1, conn;
	uint64_t t_answer; /* in [t0, t1]: the response's first byte */
	uint64_t serial; /* which page a slot holds: slots are reused */
	double inferred;
	uint64_t len; /* t1 - t0 less its quiet stretches (quiet_time.h) */
	/* what was attributed to it */
	double rt, rfq, by_class[RT_NCLASS], pings[PING_NROLE], pg_ns;
	double cmd_rts, cmd_flights, cmds;
	double pings_amb[PING_NROLE], pings_amb_timing[PING_NROLE];
	uint64_t conns[PAGE_CONNS];
	uint32_t nconns;
	uint64_t flight_key; /* the flight of the last part it surely had, and its answer */
	uint64_t flight_answer;
	/* for on_page only */
	uint16_t status;
	char method[16];
	char target[ATTRIB_TARGET_MAX];
	struct attrib_rt_rec *list;
	uint32_t nlist, caplist;
};

/* What a feature is, for the routes' figures when infer.c corrects them. */
struct attrib_feature {
	uint8_t cls, role, amb, timing_role;
	double n, rfq, pg_ns; /* round trips of it, their ReadyForQuery and time */
	double rtw; /* what pages counted of them: less than n where parts of a flight met */
};

/* A connection's last checkout as inference saw it: the pages its last
 * query-like round trip was given to, and acquire pings waiting for the
 * query they announce. */
#define CONN_PEND_MAX 2
/* Where a connection is in a checkout, as its pings show: a pool that
 * pings on acquire opens one with the ping, one that pings (or resets) on
 * release ends one, and the next query opens the next; in between, its
 * queries serve the request of the first (checkout per page). */
enum episode { EP_NONE, EP_ACQUIRED, EP_RELEASED, EP_OPEN };

/* A Redis connection's open flight: the pages its commands went to, and
 * each page's share of them (attrib_place_cmd). */
struct attrib_open_flight {
	uint64_t conn; /* + 1: 0 is an empty entry */
	uint64_t flight, used;
	uint32_t n, next; /* pages followed; the one to replace once all are taken */
	uint32_t slot[ATTRIB_CMD_PAGES];
	uint64_t serial[ATTRIB_CMD_PAGES];
	double cmds[ATTRIB_CMD_PAGES];
	double waits[ATTRIB_CMD_PAGES]; /* the round trip it was given for the flight */
};

struct attrib_conn {
	uint64_t conn; /* + 1: 0 is an empty entry */
	uint32_t feat; /* of the query-like round trip remembered (an episode's first) */
	uint8_t ep;    /* enum episode */
	bool tx;       /* the one remembered began the transaction still open */
	bool announced; /* an acquire ping or BEGIN of the next checkout came, at ep_t0 */
	bool tx_bound; /* no ping announced the checkout: its BEGIN did, and its end ends it */
	uint64_t ep_t0;  /* where the checkout of the one remembered began */
	uint64_t anchor_t; /* the one remembered's start */
	uint64_t rec;   /* the one remembered as the fit sees it (infer_narrow), or 0 */
	bool anchor_working; /* its candidates were pages still working on their answer */
	uint64_t last_sig; /* the statement of its last query-like round trip */
	uint32_t ntie;
	uint32_t slot[ATTRIB_TIE_MAX];
	uint64_t serial[ATTRIB_TIE_MAX];
	double w[ATTRIB_TIE_MAX];
	uint32_t npend;
	struct attrib_rt_rec pend[CONN_PEND_MAX];
};

/* A page's share of a round trip. */
struct share {
	uint32_t slot;
	double w;
};

/* The candidate pages' routes, each with its pages' summed weight; grp[]
 * is what infer.c sees, in[i] is candidate i's entry there.  The fit works
 * per route: grouping first keeps its cost per round trip to the routes
 * in flight, not the pages. */
struct routes_in {
	struct infer_cand grp[64];
	uint32_t in[64];
	uint32_t n;
	uint64_t seen; /* bit route % 64 of every route in grp[]: most aren't, and need no search */
	uint8_t at[64]; /* by route % 64: the first such route's index in grp[] (valid if seen) */
	bool all_mixed; /* every candidate already overlaps another route's page */
};

/* A round trip's candidate pages, with their routes and densities.
 * Round trips come many to a page: the set is kept until a
 * page joins or leaves the active list or t reaches the next moment one
 * of them starts, ends or leaves its grace (until). */
struct attrib_cands {
	uint64_t version, from, until;
	bool valid;
	uint32_t n;
	bool working; /* c[] are the pages still working (else those answering, or after) */
	uint32_t c[64];
	float d[64];
	struct routes_in g; /* grp[].w: the route's pages' densities summed */
};

/* A share of round trip r into x's figures: a page's, or a route's (their
 * fields are named alike). */
#define ADD_SHARE(x, r, share) ADD_SHARE_RT(x, r, share, share)
/* rtw: of the round trip, what it counts as (parts of one flight a page
 * had are one round trip for it; their ReadyForQuery all count) */
#define ADD_SHARE_RT(x, r, share, rtw)                                                    \
	do {                                                                                  \
		(x)->rt += (rtw);                                                             \
		(x)->rfq += (share) * (r)->rfq;                                              \
		(x)->by_class[(r)->cls] += (rtw);                                            \
		if ((r)->cls == RT_PING) {                                                    \
			(x)->pings[(r)->role] += (rtw);                                       \
			if ((r)->role_how != ROLE_PLAIN) {                                    \
				(x)->pings_amb[(r)->role] += (rtw);                           \
				(x)->pings_amb_timing[(r)->timing_role] += (rtw);             \
			}                                                                     \
		}                                                                             \
		if ((r)->timed)                                                               \
			(x)->pg_ns += (rtw) * (double)((r)->t_end - (r)->t_start);            \
	} while (0)

/* A candidate page's density: a page's round trips spread over its window
 * but the stretches with no round trip in flight anywhere (quiet_time.h; a
 * profile of where in the window, per route, was measured worse:
 * docs/pages.md; so was the part before its answer alone: 2.15 for 2 on
 * captures/web-mixed.pcap, whose short pages then outweigh the long);
 * per second: floats keep it. */
static inline float density(uint64_t len)
{
	return (float)(1e9 / ((double)len + 1e3));
}

/* The end of a page's grace (saturating: a page ending near UINT64_MAX
 * never overflows into the past). */
static inline uint64_t page_end(const struct attrib *a, const struct attrib_page *p)
{
	return p->t1 + a->grace_ns < p->t1 ? UINT64_MAX : p->t1 + a->grace_ns;
}

/* attrib.c */
void attrib_keep(struct attrib_page *p, const struct attrib_rt_rec *r, bool shared, double w);
double attrib_add_to_page(struct attrib_page *p, const struct attrib_rt_rec *r, double share,
			  bool count_conn);
enum run_mark attrib_run_mark_of(const struct attrib_rt_rec *r, uint64_t *stmt);

/* attrib_place.c */
struct attrib_conn *attrib_slot_entry(struct attrib *a, uint32_t slot);
const struct attrib_cands *attrib_candidates(struct attrib *a, uint64_t t);
void attrib_flush_pending(struct attrib *a, struct attrib_conn *e);
void attrib_place_rt(struct attrib *a, const struct attrib_rt_rec *r, bool may_wait);

/* attrib_commands.c */
void attrib_place_cmd(struct attrib *a, const struct attrib_rt_rec *r);
void attrib_place_cmd_rt(struct attrib *a, const struct attrib_rt_rec *r);

/* attrib_correct.c */
void attrib_correct_cmds_by_fit(struct attrib *a);
void attrib_correct_by_fit(struct attrib *a);

#endif
