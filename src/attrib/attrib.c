/* attrib.c - round trips to pages to routes (see attrib.h). */
#include "attrib_impl.h"
#include "base/hash.h"
#include "base/timing.h"

#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
	 * calloc, they would be megabytes of fresh memory - a huge page's
	 * fault - for the few KiB of a capture's routes and connections. */
	a->routes = malloc(ATTRIB_ROUTES_MAX * sizeof(*a->routes));
	a->route_slots = calloc(ROUTE_SLOTS, sizeof(*a->route_slots));
	a->conn_chunks[0] = calloc(ATTRIB_CONN_CHUNK, sizeof(*a->conn_chunks[0]));
	a->feats = calloc(ATTRIB_FEATURES_MAX, sizeof(*a->feats));
	a->cands = calloc(1, sizeof(*a->cands));
	infer_init(&a->infer);
	infer_init(&a->cmd_infer);
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
	free(a->open_flights);
	free(a->feats);
	free(a->cands);
	checkout_runs_free(&a->runs);
	quiet_time_free(&a->quiet);
	infer_free(&a->infer);
	infer_free(&a->cmd_infer);
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

/* A page's route name to its id: asked once a page, so hashed - a scan
 * comparing names costs pages times routes string comparisons */
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
	infer_route(&a->cmd_infer, a->nroutes);
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
	return r->cmd_proto && !r->one_cmd && r->t_end > r->t_start ? r->t_end : r->t_start;
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
enum run_mark attrib_run_mark_of(const struct attrib_rt_rec *r, uint64_t *stmt)
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

/* A listing's label into dst (RT_FLIGHT_MAX + 2 bytes), cut to its room;
 * it came from the network: printable ASCII kept, any other byte '?', so
 * that no output gets it raw. */
static void copy_label(char *dst, const char *src)
{
	size_t i = 0;
	for (; src && src[i] && i < RT_FLIGHT_MAX + 1; i++)
		dst[i] = src[i] > 0x20 && src[i] < 0x7f ? src[i] : '?';
	memset(dst + i, 0, RT_FLIGHT_MAX + 2 - i);
}

static void add_round_trip(struct attrib *a, uint64_t conn, const struct rt_event *e)
{
	if (!e->has_start)
		return; /* its flight was not captured: no time to place it by */
	quiet_time_add(&a->quiet, e->t_start, e->has_end ? e->t_end : 0);
	struct attrib_rt_rec r;
	r.conn = conn;
	r.t_start = e->t_start;
	r.t_end = e->t_end;
	r.rfq = e->count;
	r.cls = e->cls;
	r.role = e->ping_role;
	r.role_how = e->role_how;
	r.timing_role = e->timing_role;
	r.rows = e->rows;
	r.sig = e->key;
	r.status_before = e->status_before;
	r.status_after = e->status_after;
	r.tail_ping = e->tail_ping;
	r.weight = 1;
	r.timed = e->has_end && e->t_end >= e->t_start;
	r.shared = false;
	r.cmd_proto = r.one_cmd = false;
	r.commands = 0;
	r.cmd_flight = 0;
	copy_label(r.flight, e->label);
	r.text = e->text;
	r.stmts = e->stmts;
	r.flight_key = e->part ? ((conn + 1) * 0x9e3779b97f4a7c15ull ^ (uint32_t)e->flight) | 1 : 0;
	r.run_key = 0;
	memset(r.chain_next, 0, sizeof r.chain_next);
	uint64_t stmt = 0;
	struct run_seen seen;
	enum run_mark mk = attrib_run_mark_of(&r, &stmt);
	checkout_runs_add(&a->runs, conn, mk, stmt, &seen);
	uint32_t slot = enqueue(a, &r);
	follow_run(a, &r, slot != UINT32_MAX, slot, &seen, mk == RUN_STATEMENT);
	if (r.tail_ping) /* the next checkout's test came with it: its run begins */
		checkout_runs_add(&a->runs, conn, RUN_PING, 0, &seen);
}

static void add_command(struct attrib *a, uint64_t conn, const struct rt_event *e)
{
	struct attrib_rt_rec r;
	memset(&r, 0, sizeof r);
	r.sig = e->key;
	r.conn = conn;
	r.t_start = r.t_end = e->t_start;
	r.cmd_proto = r.one_cmd = true;
	r.commands = e->count; /* its place in the flight: the first counts the flight */
	r.cmd_flight = e->flight;
	r.weight = 1;
	quiet_time_add(&a->quiet, e->t_start, 0);
	enqueue(a, &r);
}

static void add_flight(struct attrib *a, uint64_t conn, const struct rt_event *e)
{
	/* awaited from its first byte to its answer's last: no pause (its
	 * commands counted as they were sent); a server slower than a pause,
	 * with nothing else in flight, made its pages' windows look idle */
	if (e->count && e->t_end > e->t_start)
		quiet_time_busy(&a->quiet, e->t_start, e->t_end);
	if (e->count == 0 || !a->on_page)
		return; /* the pages had its commands; this is their listing (trace) */
	struct attrib_rt_rec r;
	memset(&r, 0, sizeof r);
	r.conn = conn;
	r.t_start = e->t_start;
	r.t_end = e->t_end;
	r.cls = e->cls;
	r.cmd_proto = true;
	r.commands = e->count;
	r.cmd_flight = e->flight;
	/* its label where a round trip keeps its flight's letters (trace) */
	copy_label(r.flight, e->label);
	r.weight = 1;
	r.timed = e->t_end >= e->t_start;
	enqueue(a, &r);
}

void attrib_add(struct attrib *a, uint64_t conn, const struct rt_event *e)
{
	switch (e->kind) {
	case RT_EVENT_ROUND_TRIP:
		add_round_trip(a, conn, e);
		break;
	case RT_EVENT_COMMAND:
		add_command(a, conn, e);
		break;
	case RT_EVENT_FLIGHT:
		add_flight(a, conn, e);
		break;
	}
}

/* ----------------------------------------------------------------------
 * The sweep
 * ---------------------------------------------------------------------- */

/* Keep a copy of r with the page, for on_page (growth is per page, not per
 * round trip: lists double). */
void attrib_keep(struct attrib_page *p, const struct attrib_rt_rec *r, bool shared, double w)
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

/* count_conn: the round trip's connection is one the page used (not for
 * an inferred share: a page did not use every connection whose round trips
 * it might have had) */
double attrib_add_to_page(struct attrib_page *p, const struct attrib_rt_rec *r, double share,
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

static void place(struct attrib *a, const struct attrib_rt_rec *r)
{
	if (r->one_cmd)
		attrib_place_cmd(a, r);
	else if (r->cmd_proto)
		attrib_place_cmd_rt(a, r);
	else
		attrib_place_rt(a, r, true);
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
	struct infer *const fits[] = {&a->infer, &a->cmd_infer};
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
	rt->cmd_rts += p->cmd_rts;
	rt->cmd_flights += p->cmd_flights;
	rt->cmds += p->cmds;
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

void attrib_finish(struct attrib *a)
{
	attrib_settle(a, UINT64_MAX);
	/* acquire pings no query followed: by the bits, not a look at every
	 * entry (most are never touched, and a scan would fault them in) */
	for (uint32_t k = 0; a->conn_chunks[0] && k < ATTRIB_CONNS / 64; k++)
		for (uint64_t bits = a->conns_pending[k]; bits; bits &= bits - 1) {
			struct attrib_conn *e = attrib_slot_entry(a, k * 64 + (uint32_t)__builtin_ctzll(bits));
			if (e->npend) {
				e->ntie = 0;
				attrib_flush_pending(a, e);
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
	attrib_correct_by_fit(a);
	attrib_correct_cmds_by_fit(a);
	timing_mark("fit.correct");
}

bool attrib_short_of_memory(const struct attrib *a)
{
	return a->infer.short_of_memory || a->cmd_infer.short_of_memory || a->quiet.failed ||
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
