/* attrib.c - round trips to pages to routes (see attrib.h). */
#include "attrib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAGE_CONNS 8

struct attrib_page {
	uint32_t route;
	bool overlapped, mixed;
	uint64_t t0, t1, conn;
	/* what was attributed to it */
	double rt, rfq, by_class[RT_NCLASS], pings[PING_NROLE], pg_ns;
	uint64_t conns[PAGE_CONNS];
	uint32_t nconns;
	/* for on_page only */
	uint16_t status;
	char method[16];
	char target[ATTRIB_TARGET_MAX];
	struct attrib_rt_rec *list;
	uint32_t nlist, caplist;
};

int attrib_init(struct attrib *a, uint64_t grace_ns)
{
	memset(a, 0, sizeof(*a));
	a->grace_ns = grace_ns;
	a->routes = calloc(ATTRIB_ROUTES_MAX, sizeof(*a->routes));
	return a->routes ? 0 : -1;
}

void attrib_free(struct attrib *a)
{
	for (uint32_t i = 0; a->routes && i < a->nroutes; i++)
		free(a->routes[i].http_ns);
	free(a->routes);
	free(a->rts);
	for (uint32_t i = 0; a->pages && i < a->npages; i++)
		free(a->pages[i].list);
	free(a->pages);
	memset(a, 0, sizeof(*a));
}

uint32_t attrib_route(struct attrib *a, const char *name)
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

static bool grow(void **buf, uint32_t *cap, uint32_t n, size_t size)
{
	if (n < *cap)
		return true;
	if (*cap >= ATTRIB_BUFFER_MAX)
		return false;
	uint32_t c = *cap ? *cap * 2 : 256;
	void *p = realloc(*buf, c * size);
	if (!p)
		return false;
	*buf = p;
	*cap = c;
	return true;
}

void attrib_page(struct attrib *a, uint32_t route, uint64_t t0, uint64_t t1, uint64_t conn,
		 const char *method, const char *target, uint16_t status)
{
	if (!grow((void **)&a->pages, &a->cap_pages, a->npages, sizeof(*a->pages))) {
		a->dropped++;
		return;
	}
	struct attrib_page *p = &a->pages[a->npages++];
	memset(p, 0, sizeof(*p));
	p->route = route;
	p->t0 = t0;
	p->t1 = t1 >= t0 ? t1 : t0;
	p->conn = conn;
	p->status = status;
	if (a->on_page) {
		snprintf(p->method, sizeof p->method, "%s", method);
		snprintf(p->target, sizeof p->target, "%s", target);
	}
	for (uint32_t i = 0; i + 1 < a->npages; i++) {
		struct attrib_page *q = &a->pages[i];
		if (q->t0 <= p->t1 && p->t0 <= q->t1) {
			q->overlapped = p->overlapped = true;
			if (q->route != p->route)
				q->mixed = p->mixed = true;
		}
	}
}

void attrib_rt(struct attrib *a, uint64_t conn, const struct rt *rt)
{
	if (!rt->has_start)
		return; /* its flight was not captured: no time to place it by */
	if (!grow((void **)&a->rts, &a->cap_rts, a->nrts, sizeof(*a->rts))) {
		a->dropped++;
		return;
	}
	struct attrib_rt_rec *r = &a->rts[a->nrts++];
	r->conn = conn;
	r->t_start = rt->t_start;
	r->t_end = rt->t_end;
	r->rfq = rt->rfq;
	r->cls = rt->cls;
	r->role = rt->ping_role;
	r->rows = rt->rows;
	r->timed = rt->has_end && rt->t_end >= rt->t_start;
	r->shared = false;
	memcpy(r->flight, rt->flight, sizeof r->flight);
}

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
	if (r->cls == RT_PING)
		p->pings[r->role] += share;
	if (r->timed)
		p->pg_ns += share * (double)(r->t_end - r->t_start);
	for (uint32_t i = 0; i < p->nconns; i++)
		if (p->conns[i] == r->conn)
			return;
	if (p->nconns < PAGE_CONNS)
		p->conns[p->nconns++] = r->conn;
}

/* Place one round trip: the pages whose window holds its start. */
static void place(struct attrib *a, const struct attrib_rt_rec *r)
{
	uint32_t strict[64], loose[64];
	uint32_t ns = 0, nl = 0;
	for (uint32_t i = 0; i < a->npages; i++) {
		const struct attrib_page *p = &a->pages[i];
		if (r->t_start < p->t0 || r->t_start > p->t1 + a->grace_ns)
			continue;
		if (r->t_start <= p->t1 && ns < 64)
			strict[ns++] = i;
		else if (nl < 64)
			loose[nl++] = i;
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
	free(p->list);
	p->list = NULL;
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
	for (int i = 0; i < PING_NROLE; i++)
		rt->pings[i] += p->pings[i];
	rt->pg_ns += p->pg_ns;
	rt->conns += p->nconns;
	if (rt->http_ns)
		hist_add(rt->http_ns, p->t1 - p->t0);
}

void attrib_settle(struct attrib *a, uint64_t w)
{
	/* round trips that started before the watermark: every page they
	 * could belong to has started before it too, so is known */
	uint32_t keep = 0;
	for (uint32_t i = 0; i < a->nrts; i++) {
		if (a->rts[i].t_start < w)
			place(a, &a->rts[i]);
		else
			a->rts[keep++] = a->rts[i];
	}
	a->nrts = keep;
	/* pages whose grace ended before it can get nothing more */
	keep = 0;
	for (uint32_t i = 0; i < a->npages; i++) {
		struct attrib_page *p = &a->pages[i];
		if (p->t1 + a->grace_ns < w)
			close_page(a, p);
		else
			a->pages[keep++] = a->pages[i];
	}
	a->npages = keep;
}

void attrib_finish(struct attrib *a)
{
	attrib_settle(a, UINT64_MAX);
	for (uint32_t i = 0; i < a->npages; i++)
		close_page(a, &a->pages[i]);
	a->npages = 0;
}
