/* attrib.c - round trips to pages to routes (see attrib.h). */
#include "attrib.h"
#include "base/hash.h"
#include "base/timing.h"

#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
	double redis_rt, redis_flights, redis_cmds;
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
 * each page's share of them (place_redis_cmd). */
struct attrib_redis_flight {
	uint64_t conn; /* + 1: 0 is an empty entry */
	uint64_t flight, used;
	uint32_t n, next; /* pages followed; the one to replace once all are taken */
	uint32_t slot[ATTRIB_REDIS_PAGES];
	uint64_t serial[ATTRIB_REDIS_PAGES];
	double cmds[ATTRIB_REDIS_PAGES];
	double waits[ATTRIB_REDIS_PAGES]; /* the round trip it was given for the flight */
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

#define ROUTE_SLOTS (2 * ATTRIB_ROUTES_MAX) /* attrib_route_id's index */

int attrib_init(struct attrib *a, uint64_t grace_ns, uint64_t hold_ns)
{
	memset(a, 0, sizeof(*a));
	a->grace_ns = grace_ns;
	a->hold_ns = hold_ns ? hold_ns : ATTRIB_HOLD_NS;
	a->free_head = NO_SLOT;
	a->nfeat = RT_NCLASS; /* ids below: a class, for round trips without a statement */
	/* Tables for the most a capture can have, touched only as far as it
	 * has: a route is cleared when it is made, a connection's entry and
	 * the Redis flights are allocated when first used.  Cleared whole by
	 * calloc, they were ~2 MB of fresh memory - a huge page, 0.4-3 ms on a
	 * virtual machine - for the few KiB of a capture's routes and
	 * connections. */
	a->routes = malloc(ATTRIB_ROUTES_MAX * sizeof(*a->routes));
	a->route_slots = calloc(ROUTE_SLOTS, sizeof(*a->route_slots));
	a->conn_chunks[0] = calloc(ATTRIB_CONN_CHUNK, sizeof(*a->conn_chunks[0]));
	a->feats = calloc(ATTRIB_FEATURES_MAX, sizeof(*a->feats));
	a->cands = calloc(1, sizeof(*a->cands));
	infer_init(&a->infer);
	infer_init(&a->rinfer);
	quiet_time_init(&a->quiet);
	bool ok = a->routes && a->route_slots && a->conn_chunks[0] && a->feats && a->cands &&
		  checkout_runs_init(&a->runs) == 0;
	return ok ? 0 : -1;
}

void attrib_free(struct attrib *a)
{
	for (uint32_t i = 0; a->routes && i < a->nroutes; i++)
		free(a->routes[i].http_ns);
	free(a->routes);
	free(a->route_slots);
	for (uint32_t i = 0; i < ATTRIB_CONNS / ATTRIB_CONN_CHUNK; i++)
		free(a->conn_chunks[i]);
	free(a->rflights);
	free(a->feats);
	free(a->cands);
	checkout_runs_free(&a->runs);
	quiet_time_free(&a->quiet);
	infer_free(&a->infer);
	infer_free(&a->rinfer);
	free(a->rts);
	free(a->rt_pool);
	free(a->rt_free);
	for (uint32_t i = 0; a->pages && i < a->cap_pages; i++)
		free(a->pages[i].list);
	free(a->pages);
	free(a->waiting);
	free(a->active);
	memset(a, 0, sizeof(*a));
}

/* A page's route name to its id: asked once a page, and a scan comparing
 * names was 1.2 M strcmp calls on 20,000 pages of 120 routes */
uint32_t attrib_route_id(struct attrib *a, const char *name)
{
	uint32_t at = str_hash(name) % ROUTE_SLOTS;
	for (; a->route_slots[at]; at = (at + 1) % ROUTE_SLOTS)
		if (strcmp(a->routes[a->route_slots[at] - 1].name, name) == 0)
			return a->route_slots[at] - 1u;
	if (a->nroutes == ATTRIB_ROUTES_MAX - 1)
		name = "(other routes)";
	if (a->nroutes == ATTRIB_ROUTES_MAX)
		return ATTRIB_ROUTES_MAX - 1;
	struct attrib_route *r = &a->routes[a->nroutes];
	memset(r, 0, sizeof(*r));
	strncpy(r->name, name, sizeof r->name - 1);
	/* by the name it keeps (for "(other routes)", its own slot) */
	for (at = str_hash(r->name) % ROUTE_SLOTS; a->route_slots[at];)
		at = (at + 1) % ROUTE_SLOTS;
	a->route_slots[at] = (uint16_t)(a->nroutes + 1);
	r->rt_min = UINT32_MAX;
	r->http_ns = malloc(sizeof(*r->http_ns));
	if (r->http_ns)
		hist_init(r->http_ns);
	infer_route(&a->infer, a->nroutes); /* false: out of memory, it learns nothing */
	infer_route(&a->rinfer, a->nroutes);
	return a->nroutes++;
}

uint32_t attrib_waiting(const struct attrib *a)
{
	return a->nrts + a->nwaiting;
}

/* Room for one more in a buffer that doubles, up to max entries. */
static bool grow(void **buf, uint32_t *cap, uint32_t n, size_t size, uint32_t max)
{
	if (n < *cap)
		return true;
	if (*cap >= max)
		return false;
	uint32_t c = *cap ? *cap * 2 : 256;
	void *p = realloc(*buf, c * size);
	if (!p)
		return false;
	*buf = p;
	*cap = c;
	return true;
}

/* ----------------------------------------------------------------------
 * Heaps: round trips by t_start, waiting pages by t0
 * ---------------------------------------------------------------------- */

struct attrib_rt_key {
	uint64_t t_start;
	uint32_t slot;
	uint32_t seq; /* arrival: ties go in it (wraps: only ties compare it) */
};

/* Key x before key y: by start, then as they came - not as the heap's
 * history has it, so that the order does not hang on when the sweep ran */
static inline bool rt_before(uint64_t xt, uint32_t xs, uint64_t yt, uint32_t ys)
{
	return xt < yt || (xt == yt && (int32_t)(xs - ys) < 0);
}

/* Room for one more waiting round trip: heap, pool and free stack grow
 * together, the new slots free. */
static bool rt_room(struct attrib *a)
{
	if (a->nfree)
		return true;
	uint32_t old = a->cap_rts;
	if (old >= ATTRIB_BUFFER_MAX)
		return false;
	uint32_t c = old ? old * 2 : 256;
	struct attrib_rt_key *h = realloc(a->rts, c * sizeof(*h));
	if (h)
		a->rts = h;
	struct attrib_rt_rec *p = realloc(a->rt_pool, c * sizeof(*p));
	if (p)
		a->rt_pool = p;
	uint32_t *f = realloc(a->rt_free, c * sizeof(*f));
	if (f)
		a->rt_free = f;
	if (!h || !p || !f)
		return false;
	a->cap_rts = c;
	for (uint32_t i = c; i-- > old;)
		a->rt_free[a->nfree++] = i;
	return true;
}

/* When a record is placed: a Redis flight's listing once it is answered,
 * after its commands; anything else as it starts. */
static uint64_t rec_at(const struct attrib_rt_rec *r)
{
	return r->redis && !r->redis_cmd && r->t_end > r->t_start ? r->t_end : r->t_start;
}

static uint32_t rt_push(struct attrib *a, const struct attrib_rt_rec *r)
{
	uint32_t slot = a->rt_free[--a->nfree];
	a->rt_pool[slot] = *r;
	uint32_t i = a->nrts++, seq = a->rt_seq++;
	uint64_t t = rec_at(r);
	while (i > 0) {
		uint32_t up = (i - 1) / 2;
		if (!rt_before(t, seq, a->rts[up].t_start, a->rts[up].seq))
			break;
		a->rts[i] = a->rts[up];
		i = up;
	}
	a->rts[i].t_start = t;
	a->rts[i].slot = slot;
	a->rts[i].seq = seq;
	return slot;
}

static void rt_pop(struct attrib *a, struct attrib_rt_rec *out)
{
	uint32_t slot = a->rts[0].slot;
	*out = a->rt_pool[slot];
	a->rt_free[a->nfree++] = slot;
	struct attrib_rt_key last = a->rts[--a->nrts];
	uint32_t i = 0, n = a->nrts;
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && rt_before(a->rts[c + 1].t_start, a->rts[c + 1].seq,
					   a->rts[c].t_start, a->rts[c].seq))
			c++;
		if (!rt_before(a->rts[c].t_start, a->rts[c].seq, last.t_start, last.seq))
			break;
		a->rts[i] = a->rts[c];
		i = c;
	}
	if (n)
		a->rts[i] = last;
}

static uint64_t page_t0(const struct attrib *a, uint32_t slot)
{
	return a->pages[slot].t0;
}

/* Page in slot x starts before the one in y: by start, then as they came */
static bool page_before(const struct attrib *a, uint32_t x, uint32_t y)
{
	const struct attrib_page *p = &a->pages[x], *q = &a->pages[y];
	return p->t0 < q->t0 || (p->t0 == q->t0 && p->serial < q->serial);
}

static void page_push(struct attrib *a, uint32_t slot)
{
	uint32_t i = a->nwaiting++;
	while (i > 0) {
		uint32_t up = (i - 1) / 2;
		if (!page_before(a, slot, a->waiting[up]))
			break;
		a->waiting[i] = a->waiting[up];
		i = up;
	}
	a->waiting[i] = slot;
}

static uint32_t page_pop(struct attrib *a)
{
	uint32_t top = a->waiting[0], last = a->waiting[--a->nwaiting];
	uint32_t i = 0, n = a->nwaiting;
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && page_before(a, a->waiting[c + 1], a->waiting[c]))
			c++;
		if (!page_before(a, a->waiting[c], last))
			break;
		a->waiting[i] = a->waiting[c];
		i = c;
	}
	if (n)
		a->waiting[i] = last;
	return top;
}

/* ----------------------------------------------------------------------
 * Page slots
 * ---------------------------------------------------------------------- */

static uint32_t slot_new(struct attrib *a)
{
	if (a->free_head == NO_SLOT) {
		uint32_t old = a->cap_pages;
		if (!grow((void **)&a->pages, &a->cap_pages, old, sizeof(*a->pages), ATTRIB_BUFFER_MAX))
			return NO_SLOT;
		for (uint32_t i = a->cap_pages; i-- > old;) {
			a->pages[i].list = NULL;
			a->pages[i].next_free = a->free_head;
			a->free_head = i;
		}
	}
	uint32_t s = a->free_head;
	a->free_head = a->pages[s].next_free;
	return s;
}

static void slot_free(struct attrib *a, uint32_t s)
{
	struct attrib_page *p = &a->pages[s];
	free(p->list);
	p->list = NULL;
	p->serial = 0; /* no page: what remembered it by its serial sees it gone */
	p->next_free = a->free_head;
	a->free_head = s;
}

/* ----------------------------------------------------------------------
 * Events in
 * ---------------------------------------------------------------------- */

static void place(struct attrib *a, const struct attrib_rt_rec *r);

void attrib_add_page(struct attrib *a, uint32_t route, uint64_t t0, uint64_t t_answer, uint64_t t1,
		     uint64_t conn, const char *method, const char *target, uint16_t status)
{
	if (t0 < a->pos) {
		/* the sweep passed its start while it was open: a request that
		 * held on longer than the hold, or one the watermark never saw */
		a->long_pages++;
		a->routes[route].pages_long++;
		return;
	}
	uint32_t s = NO_SLOT;
	if (!grow((void **)&a->waiting, &a->cap_waiting, a->nwaiting, sizeof(*a->waiting),
		  ATTRIB_BUFFER_MAX) ||
	    (s = slot_new(a)) == NO_SLOT) {
		a->dropped++;
		return;
	}
	struct attrib_page *p = &a->pages[s];
	memset(p, 0, sizeof(*p));
	p->next_free = NO_SLOT;
	p->route = route;
	p->t0 = t0;
	p->t1 = t1 >= t0 ? t1 : t0;
	p->len = p->t1 - p->t0; /* less its quiet stretches as it starts */
	p->t_answer = t_answer < p->t0 ? p->t0 : t_answer > p->t1 ? p->t1 : t_answer;
	p->conn = conn;
	p->serial = ++a->page_serial;
	p->status = status;
	if (a->on_page) {
		snprintf(p->method, sizeof p->method, "%s", method);
		snprintf(p->target, sizeof p->target, "%s", target);
	}
	page_push(a, s);
}

/* A round trip (either protocol's) waits for the sweep, or is placed now
 * if it started behind it: the pages it may belong to are active now, or
 * gone.  Returns its slot while it waits, or UINT32_MAX (placed, or
 * dropped). */
static uint32_t enqueue(struct attrib *a, const struct attrib_rt_rec *r)
{
	if (rec_at(r) < a->pos) {
		place(a, r);
		return UINT32_MAX;
	}
	if (!rt_room(a)) {
		a->dropped++;
		return UINT32_MAX;
	}
	return rt_push(a, r);
}

/* What a round trip is to its connection's runs, and its statement's key */
static enum run_mark run_mark_of(const struct attrib_rt_rec *r, uint64_t *stmt)
{
	bool in_tx = r->status_before == 'T' || r->status_before == 'E';
	*stmt = 0;
	/* a lone Sync inside a transaction is no pool's (psycopg 3 leaving
	 * pipeline mode: taken for one, the page's COMMIT and the next page's
	 * BEGIN ended no run, and its lookup's key held several pages) */
	if (r->cls == RT_PING || r->cls == RT_RESET)
		return in_tx ? RUN_OTHER : RUN_PING;
	if (in_tx && r->status_after == 'I')
		return RUN_END;
	if (r->cls == RT_TRANSACTION)
		return r->status_before == 'I' && (r->status_after == 'T' || r->status_after == 'E')
			       ? RUN_BEGIN
			       : RUN_OTHER;
	if (r->cls == RT_STARTUP)
		return RUN_STARTUP;
	if (r->cls == RT_UNKNOWN)
		return RUN_OTHER;
	*stmt = (r->sig ? r->sig : r->cls) ^ ((uint64_t)r->cls << 56);
	return RUN_STATEMENT;
}

/* Round trip r joins its connection's run: the run's key into the record
 * of its first statement while that waits (after enqueue, r's own slot),
 * and what r is as a follower into the records of the statements before
 * it (chains: checkout_runs.h) */
static void follow_run(struct attrib *a, const struct attrib_rt_rec *r, bool pushed,
		       uint32_t slot, const struct run_seen *seen, bool stmt)
{
	uint64_t mark = (uint64_t)slot | (uint64_t)(uint32_t)r->t_start << 32;
	for (uint32_t i = 0; seen->chain && i < seen->nback; i++) {
		uint32_t at = (uint32_t)seen->back_where[i];
		if (seen->back_known[i] && at < a->cap_rts && a->rt_pool[at].conn == r->conn &&
		    (uint32_t)a->rt_pool[at].t_start == (uint32_t)(seen->back_where[i] >> 32))
			a->rt_pool[at].chain_next[i] = seen->chain;
	}
	if (stmt && pushed)
		checkout_runs_last(&a->runs, r->conn, mark);
	if (seen->first) {
		if (pushed)
			checkout_runs_anchor(&a->runs, r->conn, mark);
		return;
	}
	if (!seen->known || !seen->key)
		return;
	uint32_t at = (uint32_t)seen->where;
	if (at < a->cap_rts && a->rt_pool[at].conn == r->conn &&
	    (uint32_t)a->rt_pool[at].t_start == (uint32_t)(seen->where >> 32))
		a->rt_pool[at].run_key = seen->key;
}

void attrib_add_rt(struct attrib *a, uint64_t conn, const struct rt *rt)
{
	if (!rt->has_start)
		return; /* its flight was not captured: no time to place it by */
	quiet_time_add(&a->quiet, rt->t_start, rt->has_end ? rt->t_end : 0);
	struct attrib_rt_rec r;
	r.conn = conn;
	r.t_start = rt->t_start;
	r.t_end = rt->t_end;
	r.rfq = rt->rfq;
	r.cls = rt->cls;
	r.role = rt->ping_role;
	r.role_how = rt->role_how;
	r.timing_role = rt->timing_role;
	r.rows = rt->rows;
	r.sig = rt->sig;
	r.status_before = rt->status_before;
	r.status_after = rt->status_after;
	r.tail_ping = rt->tail_ping;
	r.weight = 1;
	r.timed = rt->has_end && rt->t_end >= rt->t_start;
	r.shared = false;
	r.redis = r.redis_cmd = false;
	r.commands = 0;
	r.redis_flight = 0;
	memcpy(r.flight, rt->flight, sizeof r.flight);
	r.text = rt->text;
	r.stmts = rt->stmts;
	r.flight_key = rt->part ? ((conn + 1) * 0x9e3779b97f4a7c15ull ^ (uint32_t)rt->index) | 1 : 0;
	r.run_key = 0;
	memset(r.chain_next, 0, sizeof r.chain_next);
	uint64_t stmt = 0;
	struct run_seen seen;
	enum run_mark mk = run_mark_of(&r, &stmt);
	checkout_runs_add(&a->runs, conn, mk, stmt, &seen);
	uint32_t slot = enqueue(a, &r);
	follow_run(a, &r, slot != UINT32_MAX, slot, &seen, mk == RUN_STATEMENT);
	if (r.tail_ping) /* the next checkout's test came with it: its run begins */
		checkout_runs_add(&a->runs, conn, RUN_PING, 0, &seen);
}

void attrib_add_redis_cmd(struct attrib *a, uint64_t conn, uint64_t flight, uint64_t ts,
			  uint32_t nth, const char *name)
{
	struct attrib_rt_rec r;
	memset(&r, 0, sizeof r);
	uint64_t h = 0xcbf29ce484222325ull; /* its name: the feature */
	for (const char *p = name; *p; p++)
		h = (h ^ (uint8_t)*p) * 0x100000001b3ull;
	r.sig = h;
	r.conn = conn;
	r.t_start = r.t_end = ts;
	r.redis = r.redis_cmd = true;
	r.commands = nth; /* its place in the flight: the first counts the flight */
	r.redis_flight = flight;
	r.weight = 1;
	quiet_time_add(&a->quiet, ts, 0);
	enqueue(a, &r);
}

void attrib_add_redis_rt(struct attrib *a, uint64_t conn, const struct redis_rt *rt)
{
	/* awaited from its first byte to its answer's last: no pause (its
	 * commands counted as they were sent); a Redis slower than a pause,
	 * with nothing else in flight, made its pages' windows look idle */
	if (rt->commands && rt->t_end > rt->t_start)
		quiet_time_busy(&a->quiet, rt->t_start, rt->t_end);
	if (rt->commands == 0 || !a->on_page)
		return; /* the pages had its commands; this is their listing (trace) */
	struct attrib_rt_rec r;
	memset(&r, 0, sizeof r);
	r.conn = conn;
	r.t_start = rt->t_start;
	r.t_end = rt->t_end;
	r.cls = rt->cls;
	r.redis = true;
	r.commands = rt->commands;
	r.redis_flight = rt->serial;
	/* its first command's name, printable, where PostgreSQL's keep their flight (trace) */
	char name[RESP_NAME_MAX + 1];
	redis_name_printable(name, rt->first);
	name[sizeof r.flight - 1] = '\0'; /* cut to the room there */
	memcpy(r.flight, name, sizeof r.flight);
	r.weight = 1;
	r.timed = rt->t_end >= rt->t_start;
	enqueue(a, &r);
}

/* ----------------------------------------------------------------------
 * The sweep
 * ---------------------------------------------------------------------- */

/* Keep a copy of r with the page, for on_page (growth is per page, not per
 * round trip: lists double). */
static void keep(struct attrib_page *p, const struct attrib_rt_rec *r, bool shared, double w)
{
	if (p->nlist == p->caplist) {
		uint32_t c = p->caplist ? p->caplist * 2 : 16;
		if (c > 4096)
			return; /* a pathological page: the trace shows the first 4096 */
		struct attrib_rt_rec *l = realloc(p->list, c * sizeof(*l));
		if (!l)
			return;
		p->list = l;
		p->caplist = c;
	}
	p->list[p->nlist] = *r;
	p->list[p->nlist].weight = (float)w;
	p->list[p->nlist++].shared = shared;
}

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

/* count_conn: the round trip's connection is one the page used (not for
 * an inferred share: a page did not use every connection whose round trips
 * it might have had) */
static double add_to_page(struct attrib_page *p, const struct attrib_rt_rec *r, double share,
			  bool count_conn)
{
	double rtw = share;
	if (r->flight_key && share >= 1) {
		/* a part the page surely had, sent before the answer to the
		 * last part of the flight it surely had: it sent them together
		 * and waited once (libpq's pipeline, tokio-postgres's join) -
		 * one round trip.  Sent after that answer, it waited again (a
		 * pipelining driver keeps a flight open with other pages'
		 * statements).  Parts shared between pages count as their
		 * shares: which of them sent two parts cannot be told. */
		rtw = p->flight_key == r->flight_key && r->t_start < p->flight_answer ? 0 : 1;
		if (p->flight_key != r->flight_key || r->t_end > p->flight_answer)
			p->flight_answer = r->t_end;
		p->flight_key = r->flight_key;
	}
	ADD_SHARE_RT(p, r, share, rtw);
	if (!count_conn)
		return rtw;
	for (uint32_t i = 0; i < p->nconns; i++)
		if (p->conns[i] == r->conn)
			return rtw;
	if (p->nconns < PAGE_CONNS)
		p->conns[p->nconns++] = r->conn;
	return rtw;
}

/* ----------------------------------------------------------------------
 * A round trip held by pages of several routes at once
 *
 * Which page it came from is inferred (infer.h): by its feature - its
 * statement's fingerprint, or its class - and each candidate page's
 * length.  Pings and resets carry no statement: a release ping or
 * a reset goes where the query before it on the same connection went, an
 * acquire ping where the query after it goes (a checkout serves one
 * request); their feature names that query's, so the fit moves them with
 * it.  docs/pages.md has the method and its measured error.
 * ---------------------------------------------------------------------- */

#define FEAT_SLOTS (2 * ATTRIB_FEATURES_MAX)
#define RUN_FEATURE_SALT 0x94d049bb133111ebull /* a run's or a chain's key, as a feature's */

/* Feature key's slot in the table: its own, or the empty one it would
 * take (the table is half full at most: the probe ends); *stored: the
 * key as the table holds it */
static uint32_t feature_slot(const struct attrib *a, uint64_t key, uint64_t *stored)
{
	key *= 0x9e3779b97f4a7c15ull;
	key = key ? key : 1;
	*stored = key;
	uint32_t i = (uint32_t)(key >> 40) % FEAT_SLOTS;
	while (a->feat_key[i] != key && a->feat_key[i] != 0)
		i = (i + 1) % FEAT_SLOTS;
	return i;
}

static uint32_t feature_id(struct attrib *a, uint64_t key, uint32_t fallback)
{
	uint32_t i = feature_slot(a, key, &key);
	if (a->feat_key[i] == key)
		return a->feat_id[i];
	if (a->nfeat == ATTRIB_FEATURES_MAX)
		return fallback;
	a->feat_key[i] = key;
	a->feat_id[i] = (uint16_t)a->nfeat;
	return a->nfeat++;
}

/* A statement known by its chain (checkout_runs.h) is a feature more
 * than the statement alone: within a budget, and only while
 * the table is half empty, so that the statements themselves still find
 * room (the synthetic capture of 120 routes, 240 statements, each of half
 * of them split by what followed it, ran out of features and lumped the
 * rest by class: fewer than 90% of its routes within 5%) */
#define CHAIN_FEATS_MAX (ATTRIB_FEATURES_MAX / 8)
static uint64_t chain_room(struct attrib *a, uint64_t chain)
{
	uint64_t stored;
	if (!chain || a->feat_key[feature_slot(a, chain ^ RUN_FEATURE_SALT, &stored)] == stored)
		return chain; /* a feature already */
	if (a->nfeat >= ATTRIB_FEATURES_MAX / 2 || a->chain_feats >= CHAIN_FEATS_MAX)
		return 0;
	a->chain_feats++;
	return chain;
}

/* tied: the feature of the query it shares a page with, or INFER_NONE;
 * run: for a checkout's first statement, what its run held (checkout_runs.h;
 * 0: by its own statement) */
static uint32_t feature_of(struct attrib *a, const struct attrib_rt_rec *r, uint32_t tied,
			   uint64_t run)
{
	uint32_t f;
	if (r->cls == RT_PING || r->cls == RT_RESET) {
		bool amb = r->role_how != ROLE_PLAIN;
		uint64_t key = 1 + ((uint64_t)r->cls << 8 | (uint64_t)r->role << 16 |
				    (uint64_t)amb << 24 | (uint64_t)r->timing_role << 32 |
				    (uint64_t)(tied + 1) << 40);
		f = feature_id(a, key ^ 0x5bd1e995ull, r->cls);
		if (tied != INFER_NONE && f >= RT_NCLASS)
			infer_tie(&a->infer, f, tied);
	} else if (tied != INFER_NONE) { /* a query of a checkout: its first query's page */
		uint64_t key = (r->sig ? r->sig : r->cls) ^ ((uint64_t)r->cls << 56) ^
			       ((uint64_t)(tied + 1) * 0xc2b2ae3d27d4eb4full) ^ 0x27d4eb2full;
		f = feature_id(a, key, r->cls);
		if (f >= RT_NCLASS)
			infer_tie(&a->infer, f, tied);
	} else if (run) { /* a checkout's anchor: by the statements of its checkout */
		f = feature_id(a, run ^ RUN_FEATURE_SALT, r->cls);
	} else if (r->sig) {
		f = feature_id(a, r->sig ^ ((uint64_t)r->cls << 56), r->cls);
	} else {
		f = r->cls;
	}
	struct attrib_feature *x = a->feats ? &a->feats[f] : NULL;
	if (x && x->n == 0) {
		x->cls = r->cls;
		x->role = r->role;
		x->amb = r->role_how != ROLE_PLAIN;
		x->timing_role = r->timing_role;
	}
	if (x) {
		x->n += 1;
		x->rfq += r->rfq;
		x->pg_ns += r->timed ? (double)(r->t_end - r->t_start) : 0;
	}
	return f;
}

/* Slot `slot`'s entry (a connection's by its hash): made the first time.
 * In chunks, never moved - callers hold an entry across placing others
 * (flush_pending).  Out of memory, the slot shares one of the first chunk
 * (take_entry hands an entry from one connection to another). */
static struct attrib_conn *slot_entry(struct attrib *a, uint32_t slot)
{
	uint32_t i = a->conn_at[slot];
	if (!i) {
		i = a->nconns + 1;
		struct attrib_conn **chunk = &a->conn_chunks[a->nconns / ATTRIB_CONN_CHUNK];
		if (!*chunk && !(*chunk = calloc(ATTRIB_CONN_CHUNK, sizeof(**chunk)))) {
			i = slot % ATTRIB_CONN_CHUNK + 1;
			a->conns_short = true;
		} else {
			a->nconns++;
		}
		a->conn_at[slot] = (uint16_t)i;
	}
	i--;
	return &a->conn_chunks[i / ATTRIB_CONN_CHUNK][i % ATTRIB_CONN_CHUNK];
}

static uint32_t conn_slot(uint64_t conn)
{
	return (uint32_t)(conn_hash(conn) % ATTRIB_CONNS);
}

static struct attrib_conn *conn_entry(struct attrib *a, uint64_t conn)
{
	return slot_entry(a, conn_slot(conn));
}

/* Page p joins its route's group in g (a new one if none yet): its index. */
static uint32_t group_of(struct routes_in *g, uint32_t route, bool mixed)
{
	uint64_t bit = 1ull << (route % 64);
	uint32_t k = g->n;
	if (g->seen & bit) { /* perhaps there: where the first route of its bit went, or look */
		k = g->at[route % 64];
		if (g->grp[k].route != route)
			for (k = 0; k < g->n && g->grp[k].route != route;)
				k++;
	} else {
		g->at[route % 64] = (uint8_t)k;
	}
	g->seen |= bit;
	if (k == g->n) {
		g->grp[k].route = (uint16_t)route;
		g->grp[k].pages = 0;
		g->grp[k].w = 0;
		g->n++;
	}
	g->grp[k].pages++;
	g->all_mixed &= mixed;
	return k;
}

/* The active pages active[c[i]], grouped by route */
static void group_routes(const struct attrib *a, const uint32_t *c, uint32_t n, struct routes_in *g)
{
	g->n = 0;
	g->seen = 0;
	g->all_mixed = true;
	for (uint32_t i = 0; i < n; i++)
		g->in[i] = group_of(g, a->active[c[i]].route, a->active[c[i]].mixed);
}

/* The end of a page's grace (saturating: a page ending near UINT64_MAX
 * never overflows into the past). */
static uint64_t page_end(const struct attrib *a, const struct attrib_page *p)
{
	return p->t1 + a->grace_ns < p->t1 ? UINT64_MAX : p->t1 + a->grace_ns;
}

/* Page p (the page in slot, if it still is) could hold a round trip at t
 * tied to a checkout: its window and grace are enough for a ping (a pool's
 * release ping often follows the answer); a query needs it still working. */
static bool in_window(const struct attrib *a, uint32_t slot, uint64_t serial, uint64_t t,
		      bool working)
{
	const struct attrib_page *p = &a->pages[slot];
	return p->serial == serial && t >= p->t0 && t <= (working ? p->t_answer : page_end(a, p));
}

/* The pages of the connection's last checkout that are candidates now
 * (still working on their answer, for a query: a page that has answered
 * runs no more), weighted as that round trip was, in sh[] (normalised);
 * their routes' sums in g->grp[].w.  0 if none is. */
static uint32_t tie(const struct attrib *a, const struct attrib_conn *e, uint64_t t, bool working,
		    struct routes_in *g, struct share *sh)
{
	uint32_t m = 0;
	double sum = 0;
	for (uint32_t k = 0; k < e->ntie; k++)
		if (e->w[k] > 0 && in_window(a, e->slot[k], e->serial[k], t, working)) {
			sh[m].slot = e->slot[k];
			sh[m++].w = e->w[k];
			sum += e->w[k];
		}
	if (sum <= 0)
		return 0;
	for (uint32_t i = 0; i < m; i++) {
		sh[i].w /= sum;
		const struct attrib_page *p = &a->pages[sh[i].slot];
		g->grp[group_of(g, p->route, p->mixed)].w += sh[i].w;
	}
	return m;
}

/* The kept weights' lightest, in four lanes: lane q holds the lightest of
 * w[q], w[q + 4], ... and its first place.  Placing a heavier page where
 * the lightest was changes one lane: rescanning all ATTRIB_TIE_MAX weights
 * after each (with 50 pages in flight, ~17 times for a query's ~49 pages,
 * each step waiting on the last comparison) was a fifth of the analysis's
 * CPU time with --http-port, on a 30 s capture of the blog app. */
struct lightest {
	double w[4];
	uint32_t at[4];
};

static void lane_scan(struct lightest *l, const double *w, uint32_t q)
{
	double lw = w[q];
	uint32_t at = q;
	for (uint32_t j = q + 4; j < ATTRIB_TIE_MAX; j += 4) {
		bool lt = w[j] < lw;
		at = lt ? j : at;
		lw = lt ? w[j] : lw;
	}
	l->w[q] = lw;
	l->at[q] = at;
}

/* The first of the lightest: the same place as one scan of all finds. */
static uint32_t lanes_lightest(const struct lightest *l)
{
	uint32_t best = 0;
	for (uint32_t q = 1; q < 4; q++)
		if (l->w[q] < l->w[best] || (l->w[q] == l->w[best] && l->at[q] < l->at[best]))
			best = q;
	return l->at[best];
}

/* Remember where a query-like round trip went: its heaviest pages. */
static void remember(struct attrib *a, struct attrib_conn *e, uint32_t f, const struct share *sh,
		     uint32_t m)
{
	_Static_assert(ATTRIB_TIE_MAX % 4 == 0, "weights in four lanes");
	struct lightest lanes;
	bool scanned = false; /* lanes hold the kept weights' lightest */
	e->feat = f;
	e->ntie = 0;
	uint32_t light = 0; /* the lightest kept, once all are taken */
	for (uint32_t i = 0; i < m; i++) {
		uint32_t k = e->ntie;
		if (k == ATTRIB_TIE_MAX) { /* keep the heaviest */
			if (e->w[light] >= sh[i].w)
				continue;
			k = light;
		} else {
			e->ntie++;
		}
		e->slot[k] = sh[i].slot;
		e->serial[k] = a->pages[sh[i].slot].serial;
		e->w[k] = sh[i].w;
		if (e->ntie < ATTRIB_TIE_MAX || i + 1 == m)
			continue; /* not all taken yet, or no page left to weigh */
		if (!scanned) /* just filled */
			for (uint32_t q = 0; q < 4; q++)
				lane_scan(&lanes, e->w, q);
		else /* the lightest's place took a heavier page: its lane */
			lane_scan(&lanes, e->w, k % 4);
		scanned = true;
		light = lanes_lightest(&lanes);
	}
}

/* A candidate page's density: a page's round trips spread over its window
 * but the stretches with no round trip in flight anywhere (quiet_time.h; a
 * profile of where in the window, per route, was measured worse:
 * docs/pages.md; so was the part before its answer alone: 2.15 for 2 on
 * captures/web-mixed.pcap, whose short pages then outweigh the long);
 * per second: floats keep it. */
static float density(uint64_t len)
{
	return (float)(1e9 / ((double)len + 1e3));
}

/* The active pages whose window holds t: a page still working on its
 * answer (before its first byte) beats one sending it or in the grace
 * after it - an app runs a page's queries before it answers, and a page
 * can take long to send (Nagle and delayed ACKs hold the last segment of a
 * response ~40 ms); kept for the next round trip (struct attrib_cands). */

static const struct attrib_cands *candidates(struct attrib *a, uint64_t t)
{
	struct attrib_cands *k = a->cands;
	if (k->valid && k->version == a->active_version && t >= k->from && t <= k->until)
		return k;
	uint32_t work[64], loose[64]; /* active entries */
	uint32_t ns = 0, nl = 0;
	uint64_t until = UINT64_MAX;
	for (uint32_t i = 0; i < a->nactive; i++) {
		const struct attrib_live *p = &a->active[i];
		uint64_t next = t < p->t0 ? p->t0 - 1 : t <= p->t_answer ? p->t_answer : p->end;
		until = next < until ? next : until;
		if (t < p->t0 || t > p->end)
			continue;
		if (t <= p->t_answer && ns < 64)
			work[ns++] = i;
		else if (nl < 64)
			loose[nl++] = i;
	}
	const uint32_t *pick = ns ? work : loose;
	k->n = ns ? ns : nl;
	k->working = ns > 0;
	group_routes(a, pick, k->n, &k->g);
	for (uint32_t i = 0; i < k->n; i++) {
		const struct attrib_live *p = &a->active[pick[i]];
		k->c[i] = p->slot;
		k->d[i] = p->density;
		k->g.grp[k->g.in[i]].w += k->d[i];
	}
	k->valid = true;
	k->version = a->active_version;
	k->from = t;
	k->until = until;
	return k;
}


/* A round trip's shares of a route's figures, added to the route itself:
 * for a round trip every one of whose pages is estimated (the page's own
 * sums would only be added to its route when it closes). */
static void add_to_route(struct attrib_route *rt, const struct attrib_rt_rec *r, double share)
{
	ADD_SHARE(rt, r, share);
	rt->inferred += share;
}

/* Returns what the pages counted of it as round trips: 1, or less for a
 * part of a flight whose other parts they had. */
static double spread(struct attrib *a, const struct attrib_rt_rec *r, const struct share *sh,
		     uint32_t m, const struct routes_in *g)
{
	bool mixed = g->n > 1;
	a->rts_in_pages++;
	a->rts_mixed += mixed;
	if (mixed && g->all_mixed && !a->on_page && !r->flight_key) {
		for (uint32_t k = 0; k < g->n; k++)
			if (g->grp[k].w > 0)
				add_to_route(&a->routes[g->grp[k].route], r, g->grp[k].w);
		a->mixed_rts += 1;
		return 1;
	}
	double counted = 0, given = 0;
	for (uint32_t i = 0; i < m; i++) {
		struct attrib_page *p = &a->pages[sh[i].slot];
		double rtw = add_to_page(p, r, sh[i].w, !mixed);
		counted += rtw;
		given += sh[i].w;
		if (mixed)
			p->inferred += rtw;
		if (a->on_page && sh[i].w > 0)
			keep(p, r, m > 1, sh[i].w);
	}
	return given > 0 ? counted / given : 1;
}

/* The fit saw the checkout's first statement with every page that held
 * it; its checkout since, from ep_t0 to a round trip of it at t, can only
 * be a page's that held all of that (still working at t, for a later
 * query of it): the fit sees those alone.  A page's first query comes as
 * it starts, beside pages of every route, and the even spread alone
 * cannot tell whose it was; the checkout's span can. */
static void narrow(struct attrib *a, const struct attrib_conn *e, uint64_t t, bool working)
{
	uint32_t c[64], n = 0; /* active entries */
	for (uint32_t i = 0; i < a->nactive && n < 64; i++) {
		const struct attrib_live *p = &a->active[i];
		/* and among the first statement's candidates: working then, if any
		 * page was */
		if (p->t0 <= e->ep_t0 && (!e->anchor_working || e->anchor_t <= p->t_answer) &&
		    t <= (working ? p->t_answer : p->end))
			c[n++] = i;
	}
	if (n == 0)
		return; /* none held all of it: the checkout was not what it seemed */
	/* Each page's density for a checkout that long: it starts anywhere in
	 * the page's window but the checkout's length before its end.  With
	 * 1 / the page's length (as for a lone round trip) long pages, which
	 * hold any span by chance more often than short ones, came out owning
	 * every checkout (a simulation: 0.5 / 0.1 / 18.3 for 6 / 6 / 7). */
	/* less its pauses: none fits in a span shorter than one (quiet_time.h) */
	uint64_t pauses = t - e->ep_t0 >= QUIET_MIN_NS ? quiet_time_within(&a->quiet, e->ep_t0, t) : 0;
	double span = (double)(t - e->ep_t0 - pauses);
	struct routes_in g;
	group_routes(a, c, n, &g);
	for (uint32_t i = 0; i < n; i++) {
		const struct attrib_live *p = &a->active[c[i]];
		double room = (double)p->len - span;
		g.grp[g.in[i]].w += (float)(1e9 / ((room > 0 ? room : 0) + 1e3));
	}
	infer_narrow(&a->infer, e->rec, g.grp, g.n);
}

static bool query_like(uint8_t cls)
{
	return cls != RT_PING && cls != RT_RESET && cls != RT_STARTUP && cls != RT_UNKNOWN;
}

static void place_rt(struct attrib *a, const struct attrib_rt_rec *r, bool may_wait);

/* Acquire pings waiting for their query: placed now, by the connection's
 * last checkout when tie says so. */
static void flush_pending(struct attrib *a, struct attrib_conn *e)
{
	uint32_t n = e->npend;
	struct attrib_rt_rec pend[CONN_PEND_MAX];
	memcpy(pend, e->pend, n * sizeof(*pend));
	e->npend = 0;
	for (uint32_t i = 0; i < n; i++)
		place_rt(a, &pend[i], false);
}

static void take_entry(struct attrib *a, struct attrib_conn *e, uint64_t conn)
{
	if (e->conn == conn + 1)
		return;
	if (e->conn && e->npend) { /* another connection's entry: reused */
		e->ntie = 0;
		flush_pending(a, e);
	}
	e->conn = conn + 1;
	e->ntie = 0;
	e->ep = EP_NONE;
	e->tx = false;
	e->announced = false;
	e->tx_bound = false;
	e->rec = 0;
}

/* Place one round trip: the active pages whose window holds its start. */
/* Whether a pool's pings mark its checkouts.  A pool that pings every
 * checkout, or on release, or wraps it in a transaction, shows a boundary
 * for every few queries; HikariCP pings only a connection idle over
 * 500 ms and returns it silently, so a ping opens a "checkout" that the
 * connection's next checkouts seem to continue, and their statements go,
 * certain, to the first page's route while that page still works on its
 * answer (a CI run of the real-mixed test: 0.01 pings per page, all 8
 * episodes they opened ended unseen, and the index route read 3.25
 * (3.11-3.42) for 3; without them 3.01 - and two such episodes early in
 * the capture were enough for the error).  So a ping opens a checkout only
 * once the pool has shown, over 64 queries at least, a boundary per 16 of
 * them, and while few of the checkouts opened ended unseen (a query after
 * its pages stopped working). */
static bool episodes_trusted(const struct attrib *a)
{
	if (a->query_rts < 64 || a->boundary_rts * 16 < a->query_rts)
		return false;
	return a->episodes_unseen < 2 || a->episodes_unseen * 4 < a->episodes;
}

static void place_rt(struct attrib *a, const struct attrib_rt_rec *r, bool may_wait)
{
	struct share sh[64];
	struct routes_in g;
	struct attrib_conn *e = conn_entry(a, r->conn);
	bool mine = e->conn == r->conn + 1;
	bool tied_kind = r->cls == RT_PING || r->cls == RT_RESET;
	bool query = query_like(r->cls);
	bool in_episode = query && mine && e->ep == EP_OPEN, tied = false;
	/* Inside a transaction the connection is the checkout of the statement
	 * that began it: a pool cannot hand it on before COMMIT or ROLLBACK.
	 * A bare BEGIN says nothing of its page (every route's is alike): like
	 * an acquire ping it waits for the transaction's first statement, and
	 * goes where that goes. */
	bool in_tx = mine && e->tx && (r->status_before == 'T' || r->status_before == 'E');
	/* a lone Sync inside the transaction begins or ends no checkout,
	 * whatever its timing says (psycopg 3 leaving pipeline mode sends one
	 * before COMMIT: taken for a release ping, it cut the COMMIT from its
	 * page - 1.35 transactions per page for 2, 5.35 round trips for 6) */
	bool acquire = r->cls == RT_PING && r->role == PING_ACQUIRE && !in_tx;
	bool ends = ((r->cls == RT_PING && r->role == PING_RELEASE) || r->cls == RT_RESET) && !in_tx;
	bool known = r->status_before != '?' && r->status_after != '?';
	bool opens = r->cls == RT_TRANSACTION &&
		     (known ? r->status_before == 'I' &&
				      (r->status_after == 'T' || r->status_after == 'E')
			    : /* a status the capture does not show: at a checkout's start */
			      mine && (e->ep == EP_ACQUIRED || e->ep == EP_RELEASED));
	bool announces = acquire || opens;
	/* a connection's startup is the page's that opened it: the page of
	 * its first statement (PHP's connection per request, a pool that
	 * connects for the page waiting), not every page then working - all
	 * startups are alike, and by their feature alone the fit shared them
	 * out as it shares the routes' pages (a connection per page: 1.18 /
	 * 0.87 / 0.95 startups per page for 1 each) */
	bool startup = r->cls == RT_STARTUP;
	/* a Close of the statement the connection last ran goes where that
	 * went, as the answer goes out or after it (tokio-postgres closes each
	 * Statement it drops): by the pages working then, r2d2's Closes under
	 * three routes at once read 0.73 / 0.53 / 2.67 per page for 1 each */
	bool closes_last = r->cls == RT_CLOSE && r->sig && mine && r->sig == e->last_sig;
	if (may_wait) { /* not again when what waited for its query is placed */
		a->query_rts += query;
		a->boundary_rts += announces || ends;
	}
	uint32_t f, m;
	uint64_t handle = 0;
	bool cands_working = false;
	if (announces && may_wait) {
		take_entry(a, e, r->conn);
		mine = true;
		/* a BEGIN with no checkout open is its transaction's alone; after
		 * a ping (acquire, or release then BEGIN) the pings bound it; a
		 * BEGIN inside an open checkout leaves it as it began (sqlx:
		 * acquire ping, a statement, BEGIN ... COMMIT, a statement) */
		if (acquire || e->ep == EP_RELEASED)
			e->tx_bound = false;
		else if (e->ep == EP_NONE)
			e->tx_bound = true;
		if (acquire || e->ep != EP_ACQUIRED)
			e->ep = EP_ACQUIRED;
		if (!e->announced) {
			e->announced = true;
			e->ep_t0 = r->t_start;
		}
	}
	if ((((tied_kind || opens) && (!announces || !may_wait)) || (startup && !may_wait) ||
	     in_episode || in_tx || closes_last) &&
	    mine && e->ntie) {
		/* the checkout of the query before it (after it, for an acquire
		 * whose query came; its first query, for a later query of it):
		 * its pages while they are open, working or not - a pool returns
		 * a connection when the handler is done, often as the answer
		 * goes out.  Those pages are candidates (window and grace): no
		 * need to look for the others.  A later query of a checkout
		 * needs them still working, unless a transaction binds it. */
		g.n = 0;
		g.seen = 0;
		g.all_mixed = true;
		/* a later statement needs its pages still working; a statement's
		 * Close or the COMMIT or ROLLBACK may come as the answer goes out
		 * (a driver closing what the handler prepared as it drops the
		 * client, a pool ending the transaction on return) */
		bool working = (in_episode || in_tx) && !opens && r->cls != RT_CLOSE &&
			       r->cls != RT_TRANSACTION;
		if ((m = tie(a, e, r->t_start, working, &g, sh))) {
			tied = true;
			if (e->rec && r->t_start > e->anchor_t && working)
				narrow(a, e, r->t_start, true);
			f = feature_of(a, r, e->feat, 0);
			if (g.n == 1) {
				infer_certain(&a->infer, g.grp[0].route, f, 1);
			} else {
				for (uint32_t i = 0; i < g.n; i++)
					infer_tied(&a->infer, g.grp[i].route, f, g.grp[i].w, i == 0);
			}
			goto placed;
		}
	}
	/* a run's first statement - where pings or transactions mark the
	 * checkouts, the checkout's anchor - is known by what its run held, not
	 * by its own statement: a lookup every route runs first shared its
	 * checkouts out among the routes as it shares itself (checkout_runs.h).
	 * Whether or not it opens a checkout here: one statement known two
	 * ways (before the pool's pings are trusted, and after) split its
	 * records between two features (captures/web-learnt.pcap: one of them
	 * 14 records, too few, and its route's interval twice as wide) */
	uint64_t anchor = 0;
	if (query && r->run_key) {
		anchor = r->run_key;
	} else if (query && r->chain_next[0]) {
		uint64_t stmt;
		if (run_mark_of(r, &stmt) == RUN_STATEMENT)
			anchor = chain_room(a, checkout_runs_chain(&a->runs, stmt, r->chain_next));
	}
	const struct attrib_cands *k = candidates(a, r->t_start);
	const uint32_t *c = k->c;
	uint32_t n = k->n;
	cands_working = k->working;
	if (n == 0) {
		a->rts_outside++;
		if (mine && query) {
			e->ntie = 0; /* a checkout outside every page */
			flush_pending(a, e);
		}
		return;
	}
	g.n = k->g.n;
	g.seen = k->g.seen;
	g.all_mixed = k->g.all_mixed;
	memcpy(g.grp, k->g.grp, g.n * sizeof(*g.grp));
	memcpy(g.at, k->g.at, sizeof(g.at));
	if ((announces || startup) && g.n > 1 && may_wait &&
	    (take_entry(a, e, r->conn), e->npend < CONN_PEND_MAX)) {
		e->pend[e->npend++] = *r; /* until the query it announces */
		uint32_t i = conn_slot(r->conn);
		a->conns_pending[i / 64] |= 1ull << (i % 64);
		return;
	}
	m = n;
	if (g.n == 1) {
		f = feature_of(a, r, tied_kind && !announces && mine && e->ntie ? e->feat : INFER_NONE,
			       anchor);
		infer_certain(&a->infer, g.grp[0].route, f, 1);
		g.grp[0].w = 1;
		for (uint32_t i = 0; i < n; i++) {
			sh[i].slot = c[i];
			sh[i].w = 1.0 / n; /* pages of one route share it equally */
		}
	} else {
		/* the pages' own shares: for the trace, for pages not all
		 * estimated, and for a query's checkout (remember) */
		bool by_page = a->on_page || !g.all_mixed || query;
		double p[64];
		m = by_page ? n : 0;
		f = feature_of(a, r, INFER_NONE, anchor);
		handle = infer_weigh(&a->infer, f, g.grp, g.n, p);
		/* within a route, its pages share by density */
		for (uint32_t i = 0; i < m; i++) {
			const struct infer_cand *x = &g.grp[k->g.in[i]];
			sh[i].slot = c[i];
			sh[i].w = x->w > 0 ? p[k->g.in[i]] * k->d[i] / x->w : 0;
		}
		for (uint32_t i = 0; i < g.n; i++)
			g.grp[i].w = p[i];
	}
placed:
	if (a->feats && f < a->nfeat)
		a->feats[f].rtw += spread(a, r, sh, m, &g);
	else
		spread(a, r, sh, m, &g);
	if (query && !tied) {
		take_entry(a, e, r->conn);
		remember(a, e, f, sh, m);
		e->rec = handle;
		e->anchor_t = r->t_start;
		e->anchor_working = cands_working;
		e->ep_t0 = e->announced && e->ep_t0 < r->t_start ? e->ep_t0 : r->t_start;
		e->announced = false;
		if ((e->ep == EP_ACQUIRED || e->ep == EP_RELEASED) && episodes_trusted(a)) {
			e->ep = EP_OPEN; /* the checkout's first query */
			a->episodes++;
		} else if (e->ep == EP_ACQUIRED || e->ep == EP_RELEASED) {
			e->ep = EP_NONE;
		} else if (in_episode && ++a->episodes_unseen)
			/* its first query's pages no longer work: the checkout
			 * ended unseen (a pool that pings only now and then, as
			 * HikariCP after 500 ms idle): no episode until a ping */
			e->ep = EP_NONE;
		/* it began a transaction, or is the first statement of one */
		e->tx = r->status_after == 'T' || r->status_after == 'E';
	} else if (ends) {
		take_entry(a, e, r->conn); /* the next query opens a checkout */
		e->ep = EP_RELEASED;
		e->announced = false;
	}
	if (e->conn == r->conn + 1) {
		if (query && r->sig)
			e->last_sig = r->sig;
		if (query && e->npend)
			flush_pending(a, e); /* what waited for this statement */
		if (r->status_after == 'I' && e->tx && e->tx_bound && e->ep == EP_OPEN) {
			/* a checkout that only its BEGIN announced ends with its
			 * COMMIT or ROLLBACK: nothing says the connection's next
			 * statement is the same page's (Go's database/sql returns
			 * the connection on Commit; lib/pq under three routes at
			 * once gave the next page's statements, tied to the
			 * transaction's, to the tag route: 5.96 (5.95-5.96) round
			 * trips per detail page for 6) */
			e->ep = EP_NONE;
			e->tx_bound = false;
		}
		if (r->status_after == 'I')
			e->tx = false; /* COMMIT, ROLLBACK: the transaction's bond ends */
		if (r->tail_ping) { /* the next checkout's test came with it */
			e->ep = EP_ACQUIRED;
			e->announced = false; /* when it was sent in the flight: unknown */
		}
	}
}

/* The entry following connection conn's open flight (created when asked
 * for: the least recently used of its set of 4 given up), or NULL. */
static struct attrib_redis_flight *redis_flight(struct attrib *a, uint64_t conn, bool create)
{
	if (!a->rflights && (!create || !(a->rflights = calloc(ATTRIB_REDIS_CONNS,
								sizeof(*a->rflights)))))
		return NULL;
	struct attrib_redis_flight *set =
		&a->rflights[conn_hash(conn) % (ATTRIB_REDIS_CONNS / 4) * 4];
	struct attrib_redis_flight *old = set;
	for (int i = 0; i < 4; i++) {
		if (set[i].conn == conn + 1) {
			set[i].used = ++a->rflight_clock;
			return &set[i];
		}
		if (set[i].used < old->used)
			old = &set[i];
	}
	if (!create)
		return NULL;
	old->conn = conn + 1;
	old->flight = UINT64_MAX;
	old->used = ++a->rflight_clock;
	return old;
}

/* A Redis command name's feature in rinfer: its hash's slot (the last
 * one when all are taken, "others"). */
static uint32_t redis_feature(struct attrib *a, uint64_t h)
{
	for (uint32_t i = 0; i < INFER_FEATURES - 1; i++) {
		uint32_t f = (uint32_t)((h + i) % (INFER_FEATURES - 1));
		if (a->rfeat[f] == h + 1)
			return f;
		if (a->rfeat[f] == 0) {
			a->rfeat[f] = h + 1;
			return f;
		}
	}
	return INFER_FEATURES - 1;
}

/* The round trip each page followed in flight e waited on, from its share
 * of the flight's commands: each command was some page's wait, and a page
 * waits on a flight once, so a page's share past one goes to the others
 * in proportion to theirs (at most one each, and in all no more than the
 * commands or the pages).  Taken at min(1, share) alone, a client that
 * keeps its pipeline full (node-redis: commands of many pages, written
 * as they come, in one flight) had pages in flight for several of the
 * flight's commands capped, and a page of one GET read 0.95 to 0.98
 * round trips (pgrtt bench --quick, node-pg's cached page; CI failed at
 * 0.9497 for 1 +- 5%).  A page that sends several commands in one write
 * gets the same as before where its candidates share alike. */
/* Water-filling: the lambda that brings shares w[0 .. n) to target, each
 * scaled by it and capped at one (the largest capped first); never below 1 */
static double fill_level(double *w, uint32_t n, double target)
{
	for (uint32_t i = 1; i < n; i++) /* descending: at most ATTRIB_REDIS_PAGES */
		for (uint32_t k = i; k > 0 && w[k - 1] < w[k]; k--) {
			double t = w[k];
			w[k] = w[k - 1];
			w[k - 1] = t;
		}
	double rest = 0, lambda = 1;
	for (uint32_t i = 0; i < n; i++)
		rest += w[i];
	for (uint32_t capped = 0; capped < n; capped++) {
		double l = rest > 0 ? (target - capped) / rest : 1;
		if (l * w[capped] <= 1)
			return l > 1 ? l : 1;
		rest -= w[capped];
		lambda = 1 / w[capped]; /* all capped */
	}
	return lambda;
}

static void redis_waits(struct attrib *a, struct attrib_redis_flight *e)
{
	double total = 0, fixed = 0, most = 0, order[ATTRIB_REDIS_PAGES];
	bool open[ATTRIB_REDIS_PAGES];
	uint32_t nopen = 0;
	for (uint32_t j = 0; j < e->n; j++) {
		open[j] = a->pages[e->slot[j]].serial == e->serial[j];
		total += e->cmds[j];
		most = e->cmds[j] > most ? e->cmds[j] : most;
		if (open[j])
			order[nopen++] = e->cmds[j];
		else
			fixed += e->waits[j]; /* its page closed: what it was given stays */
	}
	double lambda = 1; /* no share past one and every page open: each its share */
	if (most > 1 || nopen < e->n) {
		double target = (total < e->n ? total : (double)e->n) - fixed;
		lambda = fill_level(order, nopen, target < nopen ? target : nopen);
	}
	for (uint32_t j = 0; j < e->n; j++) {
		if (!open[j])
			continue;
		double w = lambda * e->cmds[j];
		w = w < 1 ? w : 1;
		a->pages[e->slot[j]].redis_rt += w - e->waits[j];
		e->waits[j] = w;
	}
}

/* A Redis command: its candidate pages share it (attrib_add_redis_cmd),
 * and the round trips they waited on follow (redis_waits).  Past
 * ATTRIB_REDIS_PAGES pages in one flight the oldest followed is given up
 * (a page of it sending again would count up to one round trip more). */
static void place_redis_cmd(struct attrib *a, const struct attrib_rt_rec *r)
{
	const struct attrib_cands *k = candidates(a, r->t_start);
	bool first = r->commands == 1;
	if (first) { /* the flight, as the server saw it: once */
		a->redis_outside += k->n == 0;
		a->redis_in_pages += k->n > 0;
		a->redis_shared += k->n > 1;
	}
	if (k->n == 0)
		return;
	struct attrib_redis_flight *e = redis_flight(a, r->conn, true);
	if (!e) {
		a->dropped++; /* no memory to follow its flight */
		return;
	}
	if (e->flight != r->redis_flight) {
		e->flight = r->redis_flight;
		e->n = e->next = 0;
	}
	/* by route: one route's pages share it equally, certain; several
	 * routes' by the model's running guess, each route's pages by density */
	double pr[64];
	uint32_t f = redis_feature(a, r->sig);
	if (k->g.n == 1) {
		infer_certain(&a->rinfer, k->g.grp[0].route, f, 1);
	} else {
		a->redis_mixed++;
		infer_weigh(&a->rinfer, f, k->g.grp, k->g.n, pr);
	}
	for (uint32_t i = 0; i < k->n; i++) {
		uint32_t slot = k->c[i];
		struct attrib_page *p = &a->pages[slot];
		const struct infer_cand *x = &k->g.grp[k->g.in[i]];
		double share = k->g.n == 1 ? 1.0 / k->n
			       : x->w > 0   ? pr[k->g.in[i]] * k->d[i] / x->w
					    : 0;
		p->redis_cmds += share;
		if (first)
			p->redis_flights += share;
		uint32_t j = 0;
		while (j < e->n && !(e->slot[j] == slot && e->serial[j] == p->serial))
			j++;
		if (j == e->n) {
			if (e->n < ATTRIB_REDIS_PAGES)
				e->n++;
			else
				j = e->next++ % ATTRIB_REDIS_PAGES;
			e->slot[j] = slot;
			e->serial[j] = p->serial;
			e->cmds[j] = e->waits[j] = 0;
		}
		e->cmds[j] += share;
	}
	redis_waits(a, e);
}

/* A Redis flight answered (attrib_add_redis_rt, for on_page): listed with
 * each page still open that had commands in it, at the round trip it
 * waited on. */
static void place_redis_rt(struct attrib *a, const struct attrib_rt_rec *r)
{
	struct attrib_redis_flight *e = redis_flight(a, r->conn, false);
	if (!e || e->flight != r->redis_flight)
		return;
	for (uint32_t j = 0; j < e->n; j++) {
		struct attrib_page *p = &a->pages[e->slot[j]];
		if (p->serial == e->serial[j])
			keep(p, r, e->cmds[j] + 1e-9 < r->commands, e->waits[j]);
	}
	e->conn = 0; /* the flight is over: the entry is free */
	e->used = 0;
}

static void place(struct attrib *a, const struct attrib_rt_rec *r)
{
	if (r->redis_cmd)
		place_redis_cmd(a, r);
	else if (r->redis)
		place_redis_rt(a, r);
	else
		place_rt(a, r, true);
}

/* A page's window opens: it overlaps every active page whose own window
 * (not just its grace) is still open. */
static void start_page(struct attrib *a, uint32_t s)
{
	struct attrib_page *p = &a->pages[s];
	if (!grow((void **)&a->active, &a->cap_active, a->nactive, sizeof(*a->active),
		  ATTRIB_ACTIVE_MAX)) {
		a->dropped++; /* more pages in flight at once than we follow */
		slot_free(a, s);
		return;
	}
	for (uint32_t i = 0; i < a->nactive; i++) {
		struct attrib_live *q = &a->active[i];
		if (q->t1 >= p->t0) {
			bool mixed = q->route != p->route;
			if (!q->overlapped || (mixed && !q->mixed)) { /* the page itself only then */
				struct attrib_page *qp = &a->pages[q->slot];
				q->overlapped = qp->overlapped = true;
				q->mixed = qp->mixed = q->mixed || mixed;
			}
			p->overlapped = true;
			p->mixed |= mixed;
			infer_started_beside(&a->infer, q->route, p->route);
		}
	}
	struct attrib_live *l = &a->active[a->nactive++];
	p->len = p->t1 - p->t0 - quiet_time_within(&a->quiet, p->t0, p->t1);
	*l = (struct attrib_live){p->t0,	    p->t1,	 p->t_answer,
				  page_end(a, p),   p->len,	 density(p->len),
				  s,		    (uint16_t)p->route, p->overlapped,
				  p->mixed};
	a->active_version++;
	infer_page_start(&a->infer, p->route); /* lockstep: the note's (Redis's fit reads none) */
	if (l->end < a->next_expire)
		a->next_expire = l->end;
}

static int by_start(const void *x, const void *y)
{
	const struct attrib_rt_rec *a = x, *b = y;
	return a->t_start < b->t_start ? -1 : a->t_start > b->t_start;
}

static void show_page(struct attrib *a, struct attrib_page *p)
{
	if (p->nlist > 1)
		qsort(p->list, p->nlist, sizeof(*p->list), by_start);
	struct attrib_page_view v = {
		a->routes[p->route].name, p->method, p->target, p->status, p->t0, p->t1, p->conn,
		!p->overlapped, p->mixed, p->list, p->nlist,
	};
	a->on_page(a->ctx, &v);
}

static void close_page(struct attrib *a, struct attrib_page *p)
{
	if (a->on_page)
		show_page(a, p);
	struct attrib_route *rt = &a->routes[p->route];
	rt->pages++;
	rt->inferred += p->inferred;
	struct infer *const fits[] = {&a->infer, &a->rinfer};
	infer_page_in(fits, 2, p->route, p->len);
	if (p->mixed) {
		rt->pages_mixed++;
		a->mixed_pages++;
		a->mixed_rts += p->rt;
	} else if (p->overlapped) {
		rt->pages_aggregate++;
	} else {
		rt->pages_exact++;
		uint32_t k = (uint32_t)(p->rt + 0.5);
		if (k < rt->rt_min)
			rt->rt_min = k;
		if (k > rt->rt_max)
			rt->rt_max = k;
		rt->rt_dist[k < ATTRIB_DIST_MAX ? k : ATTRIB_DIST_MAX]++;
	}
	rt->rt += p->rt;
	rt->rfq += p->rfq;
	for (int i = 0; i < RT_NCLASS; i++)
		rt->by_class[i] += p->by_class[i];
	for (int i = 0; i < PING_NROLE; i++) {
		rt->pings[i] += p->pings[i];
		rt->pings_amb[i] += p->pings_amb[i];
		rt->pings_amb_timing[i] += p->pings_amb_timing[i];
	}
	rt->pg_ns += p->pg_ns;
	rt->redis_rt += p->redis_rt;
	rt->redis_flights += p->redis_flights;
	rt->redis_cmds += p->redis_cmds;
	if (!p->mixed) {
		rt->conns += p->nconns;
		rt->conn_pages++;
	}
	if (rt->http_ns)
		hist_add(rt->http_ns, p->t1 - p->t0);
}

/* Close the active pages whose grace ended before t (saturating: a page
 * ending near UINT64_MAX never overflows into the past). */
static void expire(struct attrib *a, uint64_t t)
{
	if (a->nactive == 0 || a->next_expire >= t)
		return;
	uint64_t next = UINT64_MAX;
	for (uint32_t i = 0; i < a->nactive;) {
		uint32_t s = a->active[i].slot;
		uint64_t end = a->active[i].end;
		if (end < t) {
			close_page(a, &a->pages[s]);
			slot_free(a, s);
			a->active[i] = a->active[--a->nactive];
			a->active_version++;
		} else {
			next = end < next ? end : next;
			i++;
		}
	}
	a->next_expire = next;
}

void attrib_settle(struct attrib *a, uint64_t w)
{
	/* events in time order up to w: a page opens before a round trip at
	 * the same time is placed; windows close after both */
	for (;;) {
		bool page = a->nwaiting && page_t0(a, a->waiting[0]) < w;
		bool rt = a->nrts && a->rts[0].t_start < w;
		if (!page && !rt)
			break;
		if (page && (!rt || page_t0(a, a->waiting[0]) <= a->rts[0].t_start)) {
			uint32_t s = page_pop(a);
			expire(a, a->pages[s].t0);
			start_page(a, s);
		} else {
			struct attrib_rt_rec r;
			rt_pop(a, &r);
			expire(a, r.t_start);
			place(a, &r);
		}
	}
	expire(a, w);
	if (w > a->pos)
		a->pos = w;
}

/* The features a solved fit could not place between routes (infer.h vague) */
static uint32_t vague_features(const struct infer *in)
{
	uint32_t n = 0;
	for (uint32_t w = 0; w < INFER_FEATURES / 64; w++)
		n += (uint32_t)__builtin_popcountll(in->vague[w]);
	return n;
}

/* The Redis commands' fit (correct_by_fit's, below, for their model):
 * each route's commands corrected, its round trips and flights in
 * proportion (or, where the running guess gave it none, one of each per
 * command). */
static void correct_redis_by_fit(struct attrib *a)
{
	struct infer *in = &a->rinfer;
	if (!a->redis_mixed)
		return;
	/* the fit's vague commands stay out of unplaced_feats: that note
	 * speaks of the statements' intervals, and Redis figures have none;
	 * they have a note of their own */
	infer_solve(in);
	a->unplaced_cmds = vague_features(in);
	a->unplaced_cmd_n = in->vague_rts;
	for (uint32_t i = 0; i < a->nroutes && i < in->nroutes; i++) {
		struct attrib_route *rt = &a->routes[i];
		const struct infer_route *x = &in->routes[i];
		if (!x->certain)
			continue;
		double d = 0;
		for (uint32_t f = 0; f < INFER_FEATURES; f++)
			d += x->final[f] - x->certain[f] - x->given[f];
		double cmds = rt->redis_cmds + d > 0 ? rt->redis_cmds + d : 0;
		/* the interval as the statements' (format.c route_interval): the
		 * sample's noise, the model's, what the capture cannot place */
		double half = 1.96 * sqrt(x->var > 0 ? x->var : 0);
		double lo = cmds - half + x->shift_lo - x->vague_share - x->lock_share - x->alike_share;
		double hi = cmds + half + x->shift_hi + x->vague_more + x->lock_more + x->alike_more;
		rt->redis_cmd_lo = lo > 0 ? lo : 0;
		rt->redis_cmd_hi = hi > rt->redis_cmd_lo ? hi : rt->redis_cmd_lo;
		rt->redis_interval = rt->pages_mixed > 0;
		if (d == 0)
			continue;
		if (rt->redis_cmds > 1e-9) {
			rt->redis_rt *= cmds / rt->redis_cmds;
			rt->redis_flights *= cmds / rt->redis_cmds;
		} else {
			rt->redis_rt = rt->redis_flights = cmds;
		}
		rt->redis_cmds = cmds;
	}
}

/* The fit over the whole capture replaces what the running guess gave
 * each route, feature by feature. */
static void correct_by_fit(struct attrib *a)
{
	struct infer *in = &a->infer;
	if (!a->rts_mixed || !a->feats)
		return;
	infer_solve(in);
	a->unplaced_feats = vague_features(in);
	a->unplaced_rts = in->vague_rts;
	a->lockstep_pairs = 0;
	for (uint32_t i = 0; i < a->nroutes && i < INFER_LOCK_ROUTES; i++) {
		a->routes[i].lockstep = in->lock[i];
		a->lockstep_pairs += (uint32_t)__builtin_popcountll(in->lock[i] >> i); /* j > i */
	}
	for (uint32_t i = 0; i < a->nroutes && i < in->nroutes; i++) {
		struct attrib_route *rt = &a->routes[i];
		const struct infer_route *x = &in->routes[i];
		if (!x->certain)
			continue;
		for (uint32_t f = 0; f < a->nfeat; f++) {
			const struct attrib_feature *ft = &a->feats[f];
			double d = x->final[f] - x->certain[f] - x->given[f];
			if (d == 0 || ft->n == 0)
				continue;
			rt->rfq += d * ft->rfq / ft->n;
			d *= ft->rtw < ft->n ? ft->rtw / ft->n : 1; /* parts of flights: less */
			rt->rt += d;
			rt->inferred += d;
			rt->pg_ns += d * ft->pg_ns / ft->n;
			rt->by_class[ft->cls] += d;
			if (ft->cls == RT_PING) {
				rt->pings[ft->role] += d;
				if (ft->amb) {
					rt->pings_amb[ft->role] += d;
					rt->pings_amb_timing[ft->timing_role] += d;
				}
			}
		}
		rt->var = x->var;
		rt->shift_lo = x->shift_lo;
		rt->shift_hi = x->shift_hi;
		rt->unplaced_lo = -x->vague_share;
		rt->unplaced_hi = x->vague_more;
		rt->lockstep_lo = -x->lock_share;
		rt->lockstep_hi = x->lock_more;
		rt->alike_lo = -x->alike_share;
		rt->alike_hi = x->alike_more;
		/* rounding: never below nothing (a class the fit took a route's
		 * share of away printed as -0.00) */
		rt->rt = rt->rt > 0 ? rt->rt : 0;
		rt->inferred = rt->inferred > 0 ? rt->inferred : 0;
		rt->rfq = rt->rfq > 0 ? rt->rfq : 0;
		rt->pg_ns = rt->pg_ns > 0 ? rt->pg_ns : 0;
		for (int c = 0; c < RT_NCLASS; c++)
			rt->by_class[c] = rt->by_class[c] > 0 ? rt->by_class[c] : 0;
		for (int k = 0; k < PING_NROLE; k++) {
			rt->pings[k] = rt->pings[k] > 0 ? rt->pings[k] : 0;
			rt->pings_amb[k] = rt->pings_amb[k] > 0 ? rt->pings_amb[k] : 0;
			rt->pings_amb_timing[k] = rt->pings_amb_timing[k] > 0 ? rt->pings_amb_timing[k] : 0;
		}
	}
}

void attrib_finish(struct attrib *a)
{
	attrib_settle(a, UINT64_MAX);
	/* acquire pings no query followed: by the bits, not a look at every
	 * entry (most were never touched: a scan faulted in ~200 pages, 0.5 ms) */
	for (uint32_t k = 0; a->conn_chunks[0] && k < ATTRIB_CONNS / 64; k++)
		for (uint64_t bits = a->conns_pending[k]; bits; bits &= bits - 1) {
			struct attrib_conn *e = slot_entry(a, k * 64 + (uint32_t)__builtin_ctzll(bits));
			if (e->npend) {
				e->ntie = 0;
				flush_pending(a, e);
			}
		}
	memset(a->conns_pending, 0, sizeof a->conns_pending);
	while (a->nactive) { /* what ends at the very last nanosecond */
		uint32_t s = a->active[--a->nactive].slot;
		a->active_version++;
		close_page(a, &a->pages[s]);
		slot_free(a, s);
	}
	timing_mark("place"); /* the placing thread caught up, and the last of it placed */
	correct_by_fit(a);
	correct_redis_by_fit(a);
	timing_mark("fit.correct");
}

bool attrib_short_of_memory(const struct attrib *a)
{
	return a->infer.short_of_memory || a->rinfer.short_of_memory || a->quiet.failed ||
	       a->conns_short;
}

void attrib_settle_policy(struct attrib *a, enum ping_policy p)
{
	int to = p == POLICY_RELEASE ? PING_RELEASE : p == POLICY_ACQUIRE ? PING_ACQUIRE : -1;
	for (uint32_t i = 0; i < a->nroutes; i++) {
		struct attrib_route *r = &a->routes[i];
		double *amb = r->pings_amb, *guess = r->pings_amb_timing;
		for (int k = PING_ACQUIRE; k <= PING_RELEASE; k++) {
			/* the final policy's role for every one, or the neighbours' */
			double now = to < 0 ? guess[k] : k == to ? amb[PING_ACQUIRE] + amb[PING_RELEASE] : 0;
			r->pings[k] += now - amb[k];
			if (r->pings[k] < 0)
				r->pings[k] = 0; /* rounding of shared pages' fractions */
		}
		if (to >= 0) {
			amb[to] = amb[PING_ACQUIRE] + amb[PING_RELEASE];
			amb[PING_ACQUIRE + PING_RELEASE - to] = 0;
		} else {
			amb[PING_ACQUIRE] = guess[PING_ACQUIRE];
			amb[PING_RELEASE] = guess[PING_RELEASE];
		}
	}
}
