/* page_hold.c - the first pages held while routes are learnt (page_hold.h). */
#include "page_hold.h"

#include <stdlib.h>
#include <string.h>

#include "analysis_impl.h"
#include "attrib/route_learn.h"

void page_hold_init(struct page_hold *h, bool on)
{
	memset(h, 0, sizeof(*h));
	h->open = on;
	h->oldest = UINT64_MAX;
}

void page_hold_free(struct page_hold *h)
{
	free(h->held);
	h->held = NULL;
	h->n = 0;
	h->open = false;
}

uint32_t page_route_id(struct analysis *a, const char *route, bool pattern)
{
	if (pattern)
		return attrib_pipe_route_id(&a->pipe, route);
	char learnt[ROUTE_MAX];
	route_learn_apply(&a->learn, route, learnt, sizeof learnt);
	return attrib_pipe_route_id(&a->pipe, learnt);
}

/* p to attribution, its route with what has been learnt; not a proxy's
 * copy of a page already sent */
static void send_page(struct analysis *a, const struct page_out *p)
{
	if (!page_twins_keep(a->twins, p->endpoint, p->twin))
		return;
	uint32_t id = page_route_id(a, p->route, p->pattern);
	attrib_pipe_page(&a->pipe, id, p->t0, p->t_answer, p->t1, p->conn, p->method, p->target,
			 p->status);
}

struct held_ref {
	uint64_t t0;
	uint32_t i;
};

/* Held pages by their requests' start, then as they ended */
static int by_start(const void *x, const void *y)
{
	const struct held_ref *a = x, *b = y;
	return a->t0 < b->t0 ? -1 : a->t0 > b->t0 ? 1 : a->i < b->i ? -1 : a->i > b->i;
}

void page_hold_release(struct analysis *a)
{
	struct page_hold *h = &a->hold;
	struct held_ref order[PAGE_HOLD_PAGES];
	h->open = false;
	for (uint32_t i = 0; i < h->n; i++)
		order[i] = (struct held_ref){h->held[i].t0, i};
	qsort(order, h->n, sizeof(*order), by_start);
	/* routes take their ids in the order their first requests came (as
	 * past the hold); the pages go as they ended (as past it: attribution
	 * gives them their slots as they come, and the candidates' order in
	 * the fit's records, so its sums, follow) */
	for (uint32_t i = 0; i < h->n; i++)
		page_route_id(a, h->held[order[i].i].route, h->held[order[i].i].pattern);
	for (uint32_t i = 0; i < h->n; i++)
		send_page(a, &h->held[i]);
	page_hold_free(h);
}

/* The hold has done its part at time now (page_hold.h's bounds) */
static bool held_enough(const struct analysis *a, uint64_t now)
{
	const struct page_hold *h = &a->hold;
	uint64_t held = now > h->since ? now - h->since : 0;
	if (h->n >= PAGE_HOLD_PAGES || held >= PAGE_HOLD_NS || a->pipe.sent >= PAGE_HOLD_RTS)
		return true;
	return a->learn.pending == 0 && !page_twins_pending(a->twins) &&
	       (h->n >= PAGE_HOLD_MIN_PAGES || held >= PAGE_HOLD_MIN_NS);
}

void page_hold_page(struct analysis *a, const struct page_out *p)
{
	struct page_hold *h = &a->hold;
	if (h->open && !h->held && !(h->held = malloc(PAGE_HOLD_PAGES * sizeof(*h->held)))) {
		h->open = false; /* no room to hold: straight through, learnt as it goes */
		h->nomem = true;
	}
	if (!h->open) {
		send_page(a, p);
		return;
	}
	if (h->n == 0)
		h->since = p->t1;
	h->held[h->n++] = *p;
	h->oldest = p->t0 < h->oldest ? p->t0 : h->oldest;
	if (held_enough(a, p->t1))
		page_hold_release(a);
}

uint64_t page_hold_watermark(struct analysis *a, uint64_t now)
{
	struct page_hold *h = &a->hold;
	if (h->open && h->n && held_enough(a, now))
		page_hold_release(a);
	return h->open && h->n ? h->oldest : UINT64_MAX;
}
