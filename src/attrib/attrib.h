/* attrib.h - PostgreSQL round trips attributed to HTTP pages and routes.
 *
 * A page is one request/response pair, from the request's first byte to the
 * response's last.  A round trip whose flight starts inside one page's
 * window (or within `grace` after its response, for release pings sent from
 * a background task) belongs to that page.  Both kinds of events arrive
 * late and out of order (round trips when complete, pages when answered),
 * so both wait in buffers until a watermark - the earliest time anything
 * still open could start at - has passed them; memory follows the pages in
 * flight, not the capture.
 *
 * Attribution per page is "exact" when its window overlaps no other page's.
 * Overlapping pages of one route share the round trips in their windows
 * equally ("aggregate").  Pages that overlap a page of another route are
 * in their routes' figures too ("estimated"): a round trip that pages of
 * several routes held is given to them by infer.h's model.
 *
 * Settling is a sweep over time: pages waiting to start and round trips
 * waiting to be placed sit in heaps ordered by their start; the pages whose
 * windows are open at the sweep's position form the active set, and a round
 * trip is placed against that set only.  Cost: O(log n) per event plus the
 * active set (the pages in flight at that moment), never the whole buffer.
 * A request still open after hold_ns stops holding the watermark back
 * (analysis.c): when it completes, its page arrives behind the sweep and is
 * counted in long_pages, not attributed; so a long poll or a stalled client
 * holds at most hold_ns of traffic in the buffers.
 */
#ifndef PGRTT_ATTRIB_H
#define PGRTT_ATTRIB_H

#include <stdbool.h>
#include <stdint.h>

#include "checkout_runs.h"
#include "base/hist.h"
#include "infer.h"
#include "quiet_time.h"
#include "route.h"
#include "proto/rt_event.h"

#define ATTRIB_ROUTES_MAX 512
#define ATTRIB_BUFFER_MAX (1u << 20) /* pages or round trips waiting: beyond, counted as dropped */
#define ATTRIB_HOLD_MAX (1u << 18)   /* waiting past this, open requests stop holding back */
#define ATTRIB_ACTIVE_MAX 4096       /* pages in flight at one moment: beyond, dropped */
#define ATTRIB_HOLD_NS 10000000000ull /* default --page-timeout: 10 s */
#define ATTRIB_DIST_MAX 64           /* distribution buckets: 0 .. 63 round trips per page */
#define ATTRIB_GRACE_NS 2000000ull   /* default --grace: 2 ms */
#define ATTRIB_FEATURES_MAX INFER_FEATURES /* statements told apart; beyond, by class */
#define ATTRIB_CONNS 1024            /* connections whose last checkout is remembered */
#define ATTRIB_CONN_CHUNK 16         /* their entries are made this many at a time */
#define ATTRIB_TIE_MAX 32            /* pages one remembered round trip was spread over */
#define ATTRIB_CMD_CONNS 1024      /* command connections whose open flight is followed */
#define ATTRIB_CMD_PAGES 16        /* pages one open flight's commands are followed in */

struct attrib_route {
	char name[ROUTE_MAX];
	uint64_t pages, pages_exact, pages_aggregate;
	uint64_t pages_mixed; /* overlapped pages of other routes: in pages, estimated */
	uint64_t pages_long;  /* open longer than the hold: not in the figures */
	double rt, rfq, by_class[RT_NCLASS], pings[PING_NROLE], pg_ns;
	double conns;        /* distinct connections, over its pages not estimated: */
	uint64_t conn_pages; /* those pages (which connections an estimated page used is not known) */
	/* of pings[], the ambiguous ones: by role now and by timing (rtt.h) */
	double pings_amb[PING_NROLE], pings_amb_timing[PING_NROLE];
	/* of rt, what inference gave its pages (pages of several routes held
	 * the round trip), and that sum's variance under the inference */
	double inferred, var;
	/* that sum under the inference's other density models, less under its
	 * own (<= 0, >= 0: infer.h): how much the estimate hangs on the model */
	double shift_lo, shift_hi;
	/* that sum with none (<= 0), or all (>= 0), of the statements the
	 * capture cannot place between routes that its pages could have held
	 * (infer.h: vague) */
	double unplaced_lo, unplaced_hi;
	/* that sum with none (<= 0) of the statements it shares with a route
	 * in lockstep with it, or all of theirs (>= 0): infer.c lock_bounds */
	double lockstep_lo, lockstep_hi;
	/* and with none of its shares the capture saw only beside a
	 * statement's largest route, or the largest with all of others' seen
	 * so (infer.c alike_bounds) */
	double alike_lo, alike_hi;
	/* after the fit: bit k, route k's pages and its start in lockstep
	 * (infer.h struct infer's lock; routes below INFER_LOCK_ROUTES) */
	uint64_t lockstep;
	/* A command protocol's (RT_EVENT_COMMAND and FLIGHT: Redis's): round
	 * trips as the pages waited on them, the server's flights (a pipeline
	 * shared by pages counts once), commands */
	double cmd_rts, cmd_flights, cmds;
	/* after the commands' fit (pages of several routes held them):
	 * the commands' 95% interval, totals as cmds (docs/pages.md);
	 * cmd_interval false: none (exact or aggregate, or no fit) */
	double cmd_lo, cmd_hi;
	bool cmd_interval;
	uint32_t rt_min, rt_max;                /* over exact pages */
	uint64_t rt_dist[ATTRIB_DIST_MAX + 1]; /* exact pages with k round trips; last: more */
	struct hist *http_ns;                   /* page times */
};

/* A round trip as attribution keeps it. */
struct attrib_rt_rec {
	uint64_t conn, t_start, t_end;
	uint64_t sig; /* the statement (rtt.h) */
	uint32_t rfq, rows;
	uint8_t cls, role, role_how, timing_role;
	uint8_t status_before, status_after; /* transaction status: 'I' 'T' 'E', '?' */
	bool tail_ping; /* rtt.h: its flight ends with the next checkout's test */
	bool timed;
	bool shared; /* split between several pages */
	bool cmd_proto; /* a command protocol's round trip (commands: its commands); else a ROUND_TRIP's */
	bool one_cmd;   /* with cmd_proto: one command of flight `flight`, sent at t_start */
	uint32_t commands;
	uint64_t cmd_flight; /* cmd_proto: the flight's serial on its connection (rt_event's flight) */
	float weight; /* for on_page: this page's share of it */
	char flight[RT_FLIGHT_MAX + 2];
	uint64_t text;  /* rtt.h: its statement's text (pgrtt trace) */
	uint32_t stmts;
	/* one of a flight's parts (rtt.h struct rt_part), of flight `flight_key`
	 * (0: a whole flight): a page waited once for the parts it had */
	uint64_t flight_key;
	/* the first statement of a run (checkout_runs.h): the statements its
	 * run held so far, as the fit keys it where it anchors a checkout
	 * (0: none, or fewer than two) */
	uint64_t run_key;
	/* the round trips that followed it on its connection (checkout_runs.h's
	 * chains; 0: none yet): where they always follow it, its chain is what
	 * the fit keys it by where no run does */
	uint64_t chain_next[CHAIN_DEPTH];
};

#define ATTRIB_TARGET_MAX 128

/* A finished page, for pgrtt trace: valid only during the callback. */
struct attrib_page_view {
	const char *route, *method, *target;
	uint16_t status;
	uint64_t t0, t1, http_conn;
	bool exact, mixed;
	const struct attrib_rt_rec *rts; /* in the order they started */
	uint32_t nrts;
};

typedef void attrib_page_fn(void *ctx, const struct attrib_page_view *p);

struct attrib_page;
struct attrib_conn;
struct attrib_feature;
struct attrib_cands;
struct attrib_rt_key;
struct attrib_open_flight;

/* An active page as the sweep reads it, for every round trip and every
 * page that starts: side by side, not a page's ~550 bytes apart (with 32
 * pages in flight those loops were the placing's cache misses). */
struct attrib_live {
	uint64_t t0, t1, t_answer, end; /* end: of the grace after t1 */
	uint64_t len; /* t1 - t0 less its quiet stretches (quiet_time.h) */
	float density; /* of a lone round trip in it, per second (attrib.c's density) */
	uint32_t slot;
	uint16_t route;
	bool overlapped, mixed; /* as the page's: set there too when they change */
};

struct attrib {
	uint64_t grace_ns;
	attrib_page_fn *on_page; /* set: pages keep their round trips for it */
	void *ctx;
	struct attrib_route *routes;
	uint32_t nroutes;
	uint16_t *route_slots; /* routes by name's hash: id + 1, open addressing, at most half full */
	uint64_t pos; /* the sweep: everything before it is settled */
	/* round trips waiting to be placed: a min-heap of their starts, each
	 * naming its record's slot in a pool (records stay where they are) */
	struct attrib_rt_key *rts;
	struct attrib_rt_rec *rt_pool;
	uint32_t *rt_free; /* free slots of the pool: a stack */
	uint32_t nrts, cap_rts, nfree;
	uint32_t rt_seq; /* round trips come in this order (the heap's ties) */
	/* pages: a pool of slots; those waiting to start in a min-heap by t0,
	 * those whose window (and grace) is open at pos in the active list */
	struct attrib_page *pages;
	uint32_t cap_pages, free_head;
	uint32_t *waiting, nwaiting, cap_waiting;
	struct attrib_live *active; /* the active pages, what the sweep reads of them at hand */
	uint32_t nactive, cap_active;
	uint64_t active_version; /* changes when a page joins or leaves the active list */
	uint64_t next_expire;    /* no active page's grace ends before this */
	struct attrib_cands *cands; /* the last candidate set, for the next round trip */
	/* counters */
	uint64_t rts_in_pages, rts_outside, dropped;
	uint64_t cmd_rts_in_pages, cmd_rts_outside, cmd_rts_shared; /* a command protocol's round trips */
	/* whether pings mark checkouts (attrib.c, episodes_trusted): query-like
	 * round trips, pings and transactions that bound a checkout, the
	 * checkouts pings opened and those that ended unseen */
	uint64_t query_rts, boundary_rts, episodes, episodes_unseen;
	uint64_t rts_mixed; /* of rts_in_pages, held by pages of several routes: inferred */
	uint64_t long_pages; /* open longer than hold_ns: counted, not attributed */
	uint64_t hold_ns;
	/* pages that overlapped pages of other routes, and their round trips
	 * (in the routes' figures, estimated) */
	uint64_t mixed_pages;
	double mixed_rts;
	/* statements (features) whose route the capture cannot tell, and
	 * their round trips (infer.h: vague) */
	uint32_t unplaced_feats;
	double unplaced_rts;
	uint32_t lockstep_pairs; /* pairs of routes whose pages start in lockstep */
	/* the same of the commands' fit: commands whose sending route the
	 * capture cannot tell (their routes' intervals span none to all of them) */
	uint32_t unplaced_cmds;
	double unplaced_cmd_n;
	/* what inference learns: statement (or class) features, their round
	 * trips per page over all routes, and each connection's last checkout */
	uint64_t feat_key[2 * ATTRIB_FEATURES_MAX];
	uint16_t feat_id[2 * ATTRIB_FEATURES_MAX];
	struct attrib_feature *feats; /* ATTRIB_FEATURES_MAX: what each is */
	uint32_t nfeat;
	uint32_t chain_feats; /* of them, statements known by their chain (CHAIN_FEATS_MAX) */
	uint64_t page_serial;
	/* each connection's last checkout: by its hash, direct-mapped, an
	 * entry made when its slot is first used (attrib.c's conn_entry) */
	uint16_t conn_at[ATTRIB_CONNS]; /* slot -> entry + 1 (0: none yet) */
	struct attrib_conn *conn_chunks[ATTRIB_CONNS / ATTRIB_CONN_CHUNK];
	uint32_t nconns;
	bool conns_short; /* out of memory: some slots share an entry of the first chunk */
	uint64_t conns_pending[ATTRIB_CONNS / 64]; /* bit i: slot i's entry holds acquire pings waiting */
	struct attrib_open_flight *open_flights; /* ATTRIB_CMD_CONNS, in sets of 4; made by the first */
	uint64_t open_flight_clock;
	struct checkout_runs runs; /* what each connection's checkouts ran, ahead of placing */
	struct quiet_time quiet;   /* when no round trip was in flight: out of pages' lengths */
	struct infer infer;
	struct infer cmd_infer;   /* commands' routes (their keys, Redis's names, the features) */
	uint64_t cmd_feat[INFER_FEATURES]; /* a command feature's key + 1 (0: free) */
	uint64_t cmds_mixed;  /* commands held by pages of several routes */
};

/* hold_ns: how long an open request may hold the watermark (0: the
 * default, ATTRIB_HOLD_NS); analysis.c applies it, long_pages counts it. */
int attrib_init(struct attrib *a, uint64_t grace_ns, uint64_t hold_ns);
void attrib_free(struct attrib *a);

/* The id of a route name (added on first use; past ATTRIB_ROUTES_MAX, the
 * id of "(other routes)"). */
uint32_t attrib_route_id(struct attrib *a, const char *name);

/* A complete page of route id, [t0, t1], on HTTP connection conn, its
 * answer begun at t_answer (the response's first byte: until then the app
 * works on it; after, it only sends); method, target and status are kept
 * for on_page only. */
void attrib_add_page(struct attrib *a, uint32_t route, uint64_t t0, uint64_t t_answer, uint64_t t1,
		     uint64_t conn, const char *method, const char *target, uint16_t status);

/* A round trip of connection conn, as its protocol gives it (rt_event.h).
 *
 * A ROUND_TRIP (PostgreSQL's) goes to the pages whose window holds its
 * start, classified; its pings mark checkouts.
 *
 * A COMMAND (Redis's: the nth of flight `flight`, sent at t_start) goes to
 * the pages whose window holds when it was sent, as a round trip's start
 * does - several share it equally.  A page's round trips are the flights it
 * had a command in, as it waited on them (min(1, its share of their
 * commands) each: a pipeline batching one command of each of 8 pages is one
 * round trip for every page, a lone GET beside 7 other pages an eighth of
 * one each); the flight itself counts once, for the pages its first command
 * went to (the server's count).  So a flight that runs on past the pages
 * that began it - a client that keeps its pipeline full - is every later
 * page's round trip too.  The FLIGHT, once answered, marks its span busy
 * (quiet_time.h) and lists it with its pages for on_page (those still
 * open).  Held by pages of several routes, a command goes to them by the
 * same model as the round trips' statements (infer.h), its key the
 * feature, in a model of its own (cmd_infer: the routes' round-trip intervals
 * stay theirs); at the end the fit corrects each route's commands, and its
 * flights and their round trips in proportion. */
void attrib_add(struct attrib *a, uint64_t conn, const struct rt_event *e);

/* Nothing still open starts before watermark: settle what is older. */
void attrib_settle(struct attrib *a, uint64_t watermark);

/* Pages and round trips waiting: past ATTRIB_HOLD_MAX the watermark stops
 * waiting for open requests. */
uint32_t attrib_waiting(const struct attrib *a);

/* End of input: settle everything. */
void attrib_finish(struct attrib *a);

/* Memory ran out where the estimates are made (the routes' inference, the
 * quiet stretches that set pages' lengths, the connections' checkouts):
 * their figures are rough - the out-of-memory finding.  Pages and round
 * trips lost are counted apart (dropped). */
bool attrib_short_of_memory(const struct attrib *a);

/* The pool's policy known at the end: every route's ambiguous pings
 * settled as ping_policy_settle settles a connection's. */
void attrib_settle_policy(struct attrib *a, enum ping_policy p);

#endif
