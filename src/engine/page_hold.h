/* page_hold.h - the first pages held back while routes are learnt (and
 * while a proxy in front of the app may yet be found: page_twins.h).
 *
 * route_learn.h finds a path segment to be a parameter once it has taken
 * enough values; the pages before that would go to routes of their own
 * ("GET /tags/rust") and stay there.  So the first PAGE_HOLD_PAGES pages,
 * or those of the first PAGE_HOLD_NS of the capture, or fewer while
 * PAGE_HOLD_RTS round trips wait with them, wait here with their route as
 * route.c named it, and go to attribution with the parameters learnt by
 * then; the pages after them take their routes as their requests come.
 * With learning off (--route-values 0) they are held too, for the proxy:
 * a few hundred pages or half a second once nothing is pending.
 * The analysis holds attribution's watermark at the oldest held page's
 * start (as for a request still open), so its round trips wait for it:
 * nothing is placed differently (attrib.c takes events that start at the
 * same time in the order they came), only later.
 *
 * The reader's side (analysis.c, pages.c): no thread of its own. */
#ifndef PGRTT_PAGE_HOLD_H
#define PGRTT_PAGE_HOLD_H

#include <stdbool.h>
#include <stdint.h>

#include "attrib/attrib.h"
#include "attrib/route.h"

#define PAGE_HOLD_PAGES 1024
#define PAGE_HOLD_NS 2000000000ull /* 2 s of the capture's time */
/* round trips handed to attribution meanwhile: they wait there, and past
 * ATTRIB_HOLD_MAX it stops waiting for pages, so the held pages go before
 * their round trips would be placed without them (docs/pages.md) */
#define PAGE_HOLD_RTS (ATTRIB_HOLD_MAX / 4)
/* Sooner when nothing is on its way to a parameter (no segment has taken
 * two values and not yet enough: route_learn.pending) once this many
 * pages, or this long, have been held: a capture of fixed routes (or whose
 * parameters are learnt) need not wait, and a live capture's status line
 * shows its routes (the 2 s kept a capture of 4 s from showing them) */
#define PAGE_HOLD_MIN_PAGES 256
#define PAGE_HOLD_MIN_NS 500000000ull

/* A page as it goes to attribution (attrib_pipe_page), its route as
 * route.c named it: learnt parameters are put in as it leaves. */
struct page_out {
	char route[ROUTE_MAX];
	bool pattern; /* --route named it: nothing to learn or apply */
	char method[16];
	char target[ATTRIB_TARGET_MAX]; /* for on_page only */
	uint16_t status;
	uint64_t t0, t_answer, t1, conn;
	uint16_t endpoint; /* its server's, and whether it is a proxy's copy of */
	bool twin;         /* an earlier page (page_twins.h): decided as it leaves */
};

struct page_hold {
	struct page_out *held; /* PAGE_HOLD_PAGES, allocated on the first */
	uint32_t n;
	uint64_t oldest; /* the earliest t0 held */
	uint64_t since;  /* the first held page's end */
	bool open;       /* still holding */
	bool nomem;      /* no room to hold: pages went on named before routes were learnt */
};

struct analysis;

/* The attribution's id of a route as route.c named it, with the
 * parameters learnt so far (pattern: --route's, as it is). */
uint32_t page_route_id(struct analysis *a, const char *route, bool pattern);

/* Holding from the start (on: learning is on). */
void page_hold_init(struct page_hold *h, bool on);
void page_hold_free(struct page_hold *h);

/* A finished page: held, or (past the hold, or out of memory for it) to
 * attribution now.  At the hold's end every held page goes first. */
void page_hold_page(struct analysis *a, const struct page_out *p);

/* The watermark attribution may go to at most (UINT64_MAX: anything); the
 * hold ended (and its pages sent) first when now is past its time. */
uint64_t page_hold_watermark(struct analysis *a, uint64_t now);

/* Every held page to attribution, and no more holding (end of input). */
void page_hold_release(struct analysis *a);

#endif
