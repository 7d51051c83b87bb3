/* proto_http.c - HTTP/1.x on a server port: each request/response pair is
 * a page for attribution (see proto.h, attrib.h). */
#define _DEFAULT_SOURCE /* strnlen */
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "proto/proto.h"

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

struct http_state {
	struct proto_ctx cx;
	struct http1_conn *http;
	/* requests by seq % nreq: room for those awaiting their response and
	 * the one being answered, grown as a pipelining client needs it (up
	 * to HTTP1_PENDING_MAX); most clients have one at a time, so a
	 * connection's two slots stay in the cache, where a slot a request
	 * would spread a connection over kilobytes and miss the cache a page */
	struct page_req *page_req;
	uint32_t nreq;
	uint16_t endpoint;         /* the server's, for page_twins.h */
};

#define REQ_SLOTS_MIN 2

/* Room for every request awaiting its response, this one among them, and
 * one being answered: moved to slots of a larger ring (seq % the new
 * size), the one being answered first, so that a pending one wins a slot
 * they would share (only when that answer has ended). */
static bool req_room(struct http_state *s)
{
	const struct http1_conn *h = s->http;
	uint32_t need = h->pend_count + 1, n = s->nreq;
	if (need <= n)
		return true;
	while (n < need && n < HTTP1_PENDING_MAX)
		n *= 2;
	if (n == s->nreq) /* HTTP1_PENDING_MAX awaiting: the framer stops at one more */
		return true;
	struct page_req *to = calloc(n, sizeof(*to)); /* zeroed: a slot is never read unwritten */
	if (!to)
		return false;
	uint32_t answered = h->dir[HTTP1_SERVER].cur.seq;
	if (answered != UINT32_MAX)
		to[answered % n] = s->page_req[answered % s->nreq];
	for (uint32_t k = 0; k < h->pend_count; k++) {
		uint32_t seq = h->pend_seq[(h->pend_head + k) % HTTP1_PENDING_MAX];
		to[seq % n] = s->page_req[seq % s->nreq];
	}
	free(s->page_req);
	s->page_req = to;
	s->nreq = n;
	return true;
}

static void count_packet(struct analysis *a, void *shared)
{
	(void)shared;
	a->tot.http.packets++;
}

static void on_msg(void *ctx, const struct http1_msg *m)
{
	struct http_state *s = ctx;
	struct analysis *a = s->cx.a;
	if (a->attributing && m->request) {
		if (!req_room(s)) {
			a->tot.nomem++;
			goto out;
		}
		struct page_req *pr = &s->page_req[m->seq % s->nreq];
		pr->pattern = route_of(a->opts.routes, m->method, m->target, pr->route,
				       sizeof pr->route);
		char learnt[ROUTE_MAX];
		if (!pr->pattern) /* counted, and named with what is learnt: one walk */
			route_learn_name(&a->learn, pr->route, learnt, sizeof learnt);
		/* routes get their ids as their first requests come (the
		 * listing's order); while pages are held, as those leave */
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
	} else if (a->attributing && !m->interim && m->seq != UINT32_MAX) {
		const struct page_req *pr = &s->page_req[m->seq % s->nreq];
		bool twin = page_twins_done(a->twins, s->endpoint, &pr->twin, m->request_ts,
					    m->ts_first, m->ts_last);
		if (pr->has_id) {
			if (!page_twins_keep(a->twins, s->endpoint, twin))
				goto out; /* a proxy's copy of a page already sent */
			attrib_pipe_page(&a->pipe, pr->id, m->request_ts, m->ts_first, m->ts_last,
					 s->cx.sum->id, m->method, pr->target, m->status);
			goto out;
		}
		struct page_out p = {.pattern = pr->pattern, .status = m->status,
				     .t0 = m->request_ts, .t_answer = m->ts_first,
				     .t1 = m->ts_last, .conn = s->cx.sum->id,
				     .endpoint = s->endpoint, .twin = twin};
		memcpy(p.route, pr->route, sizeof p.route);
		memcpy(p.target, pr->target, sizeof p.target);
		memcpy(p.method, m->method, sizeof p.method);
		page_hold_page(a, &p);
	}
out:
	if (a->opts.on_http)
		a->opts.on_http(a->opts.ctx, s->cx.sum, m);
}

static int open_conn(void *st, const struct proto_ctx *cx, bool from_start, uint64_t ts)
{
	(void)from_start;
	(void)ts;
	struct http_state *s = st;
	s->cx = *cx;
	s->http = calloc(1, sizeof(*s->http)); /* zeroed: http1_conn_init's contract */
	s->page_req = calloc(REQ_SLOTS_MIN, sizeof(*s->page_req));
	s->nreq = REQ_SLOTS_MIN;
	if (!s->http || !s->page_req) {
		free(s->http);
		free(s->page_req);
		return -1;
	}
	http1_conn_init(s->http);
	s->endpoint = cx->a->attributing ? page_twins_endpoint(cx->a->twins, cx->sum->server)
					 : TWIN_NONE;
	cx->a->tot.http.connections++;
	return 0;
}

static void data(void *st, int side, const uint8_t *p, size_t n, uint64_t ts)
{
	struct http_state *s = st;
	http1_feed(s->http, (enum http1_side)side, p, n, ts, on_msg, s);
}

static void gap(void *st, int side, uint64_t n, uint64_t ts)
{
	struct http_state *s = st;
	http1_gap(s->http, (enum http1_side)side, n, ts, on_msg, s);
}

static void close_conn(void *st, const struct reasm_dir *tcp, uint64_t ts)
{
	struct http_state *s = st;
	struct analysis_totals *t = &s->cx.a->tot;
	struct http1_conn *h = s->http;
	http1_eof(h, HTTP1_SERVER, ts, on_msg, s); /* ends a read-until-close body */
	t->http.requests += h->requests;
	t->http.responses += h->responses;
	t->http.interim += h->interim;
	t->http.unmatched += h->unmatched;
	t->http.malformed += h->malformed;
	t->http.not_decodable += h->error == HTTP1_E_HTTP2 || h->error == HTTP1_E_TLS ||
				 h->error == HTTP1_E_UPGRADE;
	t->http.gaps += tcp[0].gaps + tcp[1].gaps;
	t->nomem += h->error == HTTP1_E_NOMEM; /* the out-of-memory finding: pages lost */
	if (h->error) {
		t->http.by_error[h->error]++;
		if (t->http.nmarked < 16) {
			uint32_t i = t->http.nmarked++;
			memcpy(t->http.marked[i].client, s->cx.sum->client, ADDR_STR_MAX);
			memcpy(t->http.marked[i].server, s->cx.sum->server, ADDR_STR_MAX);
			t->http.marked[i].error = h->error;
		}
	}
	http1_conn_free(s->http);
	free(s->http);
	free(s->page_req);
}

static bool oldest_open(void *st, uint64_t now, uint64_t not_before, uint64_t *ts)
{
	(void)now;
	struct http_state *s = st;
	return http1_oldest_open(s->http, ts) && *ts >= not_before;
}

static void live(const void *st, void *part)
{
	const struct http_state *s = st;
	struct analysis_live *out = part;
	out->pages += s->http->responses;
}

const struct proto_ops proto_http = {
	.id = PROTO_HTTP,
	.name = "http",
	.state_size = sizeof(struct http_state),
	.count_packet = count_packet,
	.guess_side = NULL,
	.open = open_conn,
	.data = data,
	.gap = gap,
	.close = close_conn,
	.oldest_open = oldest_open,
	.live = live,
};
