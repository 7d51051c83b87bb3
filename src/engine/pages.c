/* pages.c - an HTTP plug-in's requests and responses into pages for the
 * attribution (pages.h). */
#define _DEFAULT_SOURCE /* strnlen */
#include "pages.h"

#include <string.h>

#include "analysis_impl.h"

/* What attribution needs of a request until its response completes: its
 * route as route.c names it (page_hold.h puts the learnt parameters in). */
struct page_req {
	char route[ROUTE_MAX];
	bool pattern;
	bool has_id; /* past the hold: its route's id, taken as it came */
	uint32_t id;
	struct twin_keys twin; /* its method and target (page_twins.h) */
	char target[ATTRIB_TARGET_MAX];
};

const size_t pages_slot_size = sizeof(struct page_req);

uint16_t pages_endpoint(struct analysis *a, const char *server)
{
	return a->attributing ? page_twins_endpoint(a->twins, server) : TWIN_NONE;
}

void pages_request(struct analysis *a, const struct http1_msg *m, void *slot)
{
	struct page_req *pr = slot;
	pr->pattern = route_of(a->opts.routes, m->method, m->target, pr->route, sizeof pr->route);
	char learnt[ROUTE_MAX];
	if (!pr->pattern) /* counted, and named with what is learnt: one walk */
		route_learn_name(&a->learn, pr->route, learnt, sizeof learnt);
	/* routes get their ids as their first requests come (the listing's
	 * order); while pages are held, as those leave */
	pr->has_id = !a->hold.open;
	if (pr->has_id)
		pr->id = attrib_pipe_route_id(&a->pipe, pr->pattern ? pr->route : learnt);
	page_twins_keys(m->method, m->target, strlen(m->target), &pr->twin);
	pr->target[0] = '\0';
	if (a->opts.on_page) { /* cut to ATTRIB_TARGET_MAX - 1 */
		size_t n = strnlen(m->target, sizeof pr->target - 1);
		memcpy(pr->target, m->target, n);
		pr->target[n] = '\0';
	}
}

void pages_response(struct analysis *a, uint64_t conn, uint16_t endpoint,
		    const struct http1_msg *m, const void *slot)
{
	const struct page_req *pr = slot;
	bool twin = page_twins_done(a->twins, endpoint, &pr->twin, m->request_ts, m->ts_first,
				    m->ts_last);
	if (pr->has_id) {
		if (!page_twins_keep(a->twins, endpoint, twin))
			return; /* a proxy's copy of a page already sent */
		attrib_pipe_page(&a->pipe, pr->id, m->request_ts, m->ts_first, m->ts_last, conn,
				 m->method, pr->target, m->status);
		return;
	}
	struct page_out p = {.pattern = pr->pattern, .status = m->status,
			     .t0 = m->request_ts, .t_answer = m->ts_first,
			     .t1 = m->ts_last, .conn = conn,
			     .endpoint = endpoint, .twin = twin};
	memcpy(p.route, pr->route, sizeof p.route);
	memcpy(p.target, pr->target, sizeof p.target);
	memcpy(p.method, m->method, sizeof p.method);
	page_hold_page(a, &p);
}
