/* attrib.c - round trips to pages to routes (see attrib.h). */
#include "attrib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAGE_CONNS 8
#define NO_SLOT UINT32_MAX

struct attrib_page {
	uint32_t route;
	uint32_t next_free; /* in the free list */
	bool overlapped, mixed;
	uint64_t t0, t1, conn;
	/* what was attributed to it */
	double rt, rfq, by_class[RT_NCLASS], pings[PING_NROLE], pg_ns;
	double pings_amb[PING_NROLE], pings_amb_timing[PING_NROLE];
	uint64_t conns[PAGE_CONNS];
	uint32_t nconns;
	/* for on_page only */
	uint16_t status;
	char method[16];
	char target[ATTRIB_TARGET_MAX];
	struct attrib_rt_rec *list;
	uint32_t nlist, caplist;
};

int attrib_init(struct attrib *a, uint64_t grace_ns, uint64_t hold_ns)
{
	memset(a, 0, sizeof(*a));
	a->grace_ns = grace_ns;
	a->hold_ns = hold_ns ? hold_ns : ATTRIB_HOLD_NS;
	a->free_head = NO_SLOT;
	a->routes = calloc(ATTRIB_ROUTES_MAX, sizeof(*a->routes));
	return a->routes ? 0 : -1;
}

void attrib_free(struct attrib *a)
{
	for (uint32_t i = 0; a->routes && i < a->nroutes; i++)
		free(a->routes[i].http_ns);
	free(a->routes);
	free(a->rts);
	for (uint32_t i = 0; a->pages && i < a->cap_pages; i++)
		free(a->pages[i].list);
	free(a->pages);
	free(a->waiting);
	free(a->active);
	memset(a, 0, sizeof(*a));
}

uint32_t attrib_route_id(struct attrib *a, const char *name)
{
	for (uint32_t i = 0; i < a->nroutes; i++) /* routes are few; pages are many */
		if (strcmp(a->routes[i].name, name) == 0)
			return i;
	if (a->nroutes == ATTRIB_ROUTES_MAX - 1)
		name = "(other routes)";
	if (a->nroutes == ATTRIB_ROUTES_MAX)
		return ATTRIB_ROUTES_MAX - 1;
	struct attrib_route *r = &a->routes[a->nroutes];
	memset(r, 0, sizeof(*r));
	strncpy(r->name, name, sizeof r->name - 1);
	r->rt_min = UINT32_MAX;
	r->http_ns = malloc(sizeof(*r->http_ns));
	if (r->http_ns)
		hist_init(r->http_ns);
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

static void rt_push(struct attrib *a, const struct attrib_rt_rec *r)
{
	uint32_t i = a->nrts++;
	while (i > 0) {
		uint32_t up = (i - 1) / 2;
		if (a->rts[up].t_start <= r->t_start)
			break;
		a->rts[i] = a->rts[up];
		i = up;
	}
	a->rts[i] = *r;
}

static void rt_pop(struct attrib *a, struct attrib_rt_rec *out)
{
	*out = a->rts[0];
	struct attrib_rt_rec last = a->rts[--a->nrts];
	uint32_t i = 0, n = a->nrts;
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && a->rts[c + 1].t_start < a->rts[c].t_start)
			c++;
		if (last.t_start <= a->rts[c].t_start)
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

static void page_push(struct attrib *a, uint32_t slot)
{
	uint32_t i = a->nwaiting++;
	uint64_t t = page_t0(a, slot);
	while (i > 0) {
		uint32_t up = (i - 1) / 2;
		if (page_t0(a, a->waiting[up]) <= t)
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
	uint64_t t = page_t0(a, last);
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && page_t0(a, a->waiting[c + 1]) < page_t0(a, a->waiting[c]))
			c++;
		if (t <= page_t0(a, a->waiting[c]))
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
	p->next_free = a->free_head;
	a->free_head = s;
}

/* ----------------------------------------------------------------------
 * Events in
 * ---------------------------------------------------------------------- */

static void place(struct attrib *a, const struct attrib_rt_rec *r);

void attrib_add_page(struct attrib *a, uint32_t route, uint64_t t0, uint64_t t1, uint64_t conn,
		 const char *method, const char *target, uint16_t status)
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
	p->conn = conn;
	p->status = status;
	if (a->on_page) {
		snprintf(p->method, sizeof p->method, "%s", method);
		snprintf(p->target, sizeof p->target, "%s", target);
	}
	page_push(a, s);
}

void attrib_add_rt(struct attrib *a, uint64_t conn, const struct rt *rt)
{
	if (!rt->has_start)
		return; /* its flight was not captured: no time to place it by */
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
	r.timed = rt->has_end && rt->t_end >= rt->t_start;
	r.shared = false;
	memcpy(r.flight, rt->flight, sizeof r.flight);
	if (r.t_start < a->pos) { /* late: the pages it may belong to are active now, or gone */
		place(a, &r);
		return;
	}
	if (!grow((void **)&a->rts, &a->cap_rts, a->nrts, sizeof(*a->rts), ATTRIB_BUFFER_MAX)) {
		a->dropped++;
		return;
	}
	rt_push(a, &r);
}

/* ----------------------------------------------------------------------
 * The sweep
 * ---------------------------------------------------------------------- */

/* Keep a copy of r with the page, for on_page (growth is per page, not per
 * round trip: lists double). */
static void keep(struct attrib_page *p, const struct attrib_rt_rec *r, bool shared)
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
	p->list[p->nlist++].shared = shared;
}

static void add_to_page(struct attrib_page *p, const struct attrib_rt_rec *r, double share)
{
	p->rt += share;
	p->rfq += share * r->rfq;
	p->by_class[r->cls] += share;
	if (r->cls == RT_PING) {
		p->pings[r->role] += share;
		if (r->role_how != ROLE_PLAIN) {
			p->pings_amb[r->role] += share;
			p->pings_amb_timing[r->timing_role] += share;
		}
	}
	if (r->timed)
		p->pg_ns += share * (double)(r->t_end - r->t_start);
	for (uint32_t i = 0; i < p->nconns; i++)
		if (p->conns[i] == r->conn)
			return;
	if (p->nconns < PAGE_CONNS)
		p->conns[p->nconns++] = r->conn;
}

/* Place one round trip: the active pages whose window holds its start. */
static void place(struct attrib *a, const struct attrib_rt_rec *r)
{
	uint32_t strict[64], loose[64];
	uint32_t ns = 0, nl = 0;
	for (uint32_t i = 0; i < a->nactive; i++) {
		uint32_t s = a->active[i];
		const struct attrib_page *p = &a->pages[s];
		if (r->t_start < p->t0 || r->t_start > p->t1 + a->grace_ns)
			continue;
		if (r->t_start <= p->t1 && ns < 64)
			strict[ns++] = s;
		else if (nl < 64)
			loose[nl++] = s;
	}
	/* inside a page beats the grace after another */
	uint32_t *c = ns ? strict : loose;
	uint32_t n = ns ? ns : nl;
	if (n == 0) {
		a->rts_outside++;
		return;
	}
	for (uint32_t i = 1; i < n; i++) {
		if (a->pages[c[i]].route != a->pages[c[0]].route) {
			a->rts_mixed++; /* pages of several routes at once */
			a->mixed_rts += 1;
			for (uint32_t j = 0; a->on_page && j < n; j++)
				keep(&a->pages[c[j]], r, true); /* shown, not counted */
			return;
		}
	}
	a->rts_in_pages++;
	for (uint32_t i = 0; i < n; i++) {
		add_to_page(&a->pages[c[i]], r, 1.0 / n);
		if (a->on_page)
			keep(&a->pages[c[i]], r, n > 1);
	}
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
		struct attrib_page *q = &a->pages[a->active[i]];
		if (q->t1 >= p->t0) {
			q->overlapped = p->overlapped = true;
			if (q->route != p->route)
				q->mixed = p->mixed = true;
		}
	}
	a->active[a->nactive++] = s;
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
	if (p->mixed) {
		rt->pages_mixed++;
		a->mixed_pages++;
		a->mixed_rts += p->rt;
		return;
	}
	rt->pages++;
	if (p->overlapped) {
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
	rt->conns += p->nconns;
	if (rt->http_ns)
		hist_add(rt->http_ns, p->t1 - p->t0);
}

/* Close the active pages whose grace ended before t (saturating: a page
 * ending near UINT64_MAX never overflows into the past). */
static void expire(struct attrib *a, uint64_t t)
{
	for (uint32_t i = 0; i < a->nactive;) {
		uint32_t s = a->active[i];
		struct attrib_page *p = &a->pages[s];
		uint64_t end = p->t1 + a->grace_ns < p->t1 ? UINT64_MAX : p->t1 + a->grace_ns;
		if (end < t) {
			close_page(a, p);
			slot_free(a, s);
			a->active[i] = a->active[--a->nactive];
		} else {
			i++;
		}
	}
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
	while (a->nactive) { /* what ends at the very last nanosecond */
		uint32_t s = a->active[--a->nactive];
		close_page(a, &a->pages[s]);
		slot_free(a, s);
	}
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
