/* http_plugin.c - HTTP/1.x on a server port: the framer's requests and
 * responses counted, and handed to the engine as pages when they are
 * attributed (see proto.h, pages.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http_totals.h"
#include "net/tcp_reasm.h"

struct http_state {
	struct proto_ctx cx;
	struct http1_conn *http;
	/* what the engine keeps of each request until its response
	 * (proto_host.page_slot_size bytes a slot), by seq % nreq: room for
	 * those awaiting their response and the one being answered, grown as a
	 * pipelining client needs it (up to HTTP1_PENDING_MAX); most clients
	 * have one at a time, so a connection's two slots stay in the cache,
	 * where a slot a request would spread a connection over kilobytes and
	 * miss the cache a page */
	unsigned char *slots;
	uint32_t nreq;
	uint16_t endpoint; /* the server's, as the engine numbers it for pages */
};

#define REQ_SLOTS_MIN 2

static struct http_totals *totals(const struct http_state *s)
{
	return s->cx.shared;
}

static void *slot(const struct http_state *s, uint32_t seq)
{
	return s->slots + (size_t)(seq % s->nreq) * s->cx.host->page_slot_size;
}

/* Room for every request awaiting its response, this one among them, and
 * one being answered: moved to slots of a larger ring (seq % the new
 * size), the one being answered first, so that a pending one wins a slot
 * they would share (only when that answer has ended). */
static bool req_room(struct http_state *s)
{
	const struct http1_conn *h = s->http;
	size_t size = s->cx.host->page_slot_size;
	uint32_t need = h->pend_count + 1, n = s->nreq;
	if (need <= n)
		return true;
	while (n < need && n < HTTP1_PENDING_MAX)
		n *= 2;
	if (n == s->nreq) /* HTTP1_PENDING_MAX awaiting: the framer stops at one more */
		return true;
	unsigned char *to = calloc(n, size); /* zeroed: a slot is never read unwritten */
	if (!to)
		return false;
	uint32_t answered = h->dir[HTTP1_SERVER].cur.seq;
	if (answered != UINT32_MAX)
		memcpy(to + (size_t)(answered % n) * size, slot(s, answered), size);
	for (uint32_t k = 0; k < h->pend_count; k++) {
		uint32_t seq = h->pend_seq[(h->pend_head + k) % HTTP1_PENDING_MAX];
		memcpy(to + (size_t)(seq % n) * size, slot(s, seq), size);
	}
	free(s->slots);
	s->slots = to;
	s->nreq = n;
	return true;
}

static void count_packet(void *shared)
{
	struct http_totals *t = shared;
	t->packets++;
}

static void on_msg(void *ctx, const struct http1_msg *m)
{
	struct http_state *s = ctx;
	const struct proto_host *h = s->cx.host;
	if (h->attributing && m->request) {
		if (req_room(s))
			h->request(h->ctx, m, slot(s, m->seq));
		else
			h->lost(h->ctx);
	} else if (h->attributing && !m->interim && m->seq != UINT32_MAX) {
		h->response(h->ctx, s->cx.id, s->endpoint, m, slot(s, m->seq));
	}
	const struct http_observers *o = &totals(s)->observe;
	if (o->on_msg)
		o->on_msg(o->ctx, s->cx.sum, m);
}

static int open_conn(void *st, const struct proto_ctx *cx, bool from_start, uint64_t ts)
{
	(void)from_start;
	(void)ts;
	struct http_state *s = st;
	s->cx = *cx;
	s->http = calloc(1, sizeof(*s->http)); /* zeroed: http1_conn_init's contract */
	s->slots = calloc(REQ_SLOTS_MIN, cx->host->page_slot_size);
	s->nreq = REQ_SLOTS_MIN;
	if (!s->http || !s->slots) {
		free(s->http);
		free(s->slots);
		return -1;
	}
	http1_conn_init(s->http);
	s->endpoint = cx->host->page_endpoint(cx->host->ctx, cx->server);
	totals(s)->connections++;
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
	struct http_totals *t = totals(s);
	struct http1_conn *h = s->http;
	http1_eof(h, HTTP1_SERVER, ts, on_msg, s); /* ends a read-until-close body */
	t->requests += h->requests;
	t->responses += h->responses;
	t->interim += h->interim;
	t->unmatched += h->unmatched;
	t->malformed += h->malformed;
	t->not_decodable += h->error == HTTP1_E_HTTP2 || h->error == HTTP1_E_TLS ||
			    h->error == HTTP1_E_UPGRADE;
	t->gaps += tcp[0].gaps + tcp[1].gaps;
	if (h->error == HTTP1_E_NOMEM) /* the out-of-memory finding: pages lost */
		s->cx.host->lost(s->cx.host->ctx);
	if (h->error) {
		t->by_error[h->error]++;
		if (t->nmarked < HTTP_MARKED_MAX) {
			uint32_t i = t->nmarked++;
			snprintf(t->marked[i].client, sizeof t->marked[i].client, "%s", s->cx.client);
			snprintf(t->marked[i].server, sizeof t->marked[i].server, "%s", s->cx.server);
			t->marked[i].error = h->error;
		}
	}
	http1_conn_free(s->http);
	free(s->http);
	free(s->slots);
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
	struct http_live *out = part;
	out->pages += s->http->responses;
}

static void live_shared(const void *shared, void *part)
{
	const struct http_totals *t = shared;
	struct http_live *out = part;
	out->pages += t->responses;
}

static int shared_init(void *shared, const void *opts)
{
	struct http_totals *t = shared;
	memset(t, 0, sizeof(*t));
	if (opts)
		t->observe = *(const struct http_observers *)opts;
	return 0;
}

static void shared_free(void *shared)
{
	(void)shared;
}

const struct proto_ops proto_http = {
	.id = PROTO_HTTP,
	.name = "http",
	.title = "HTTP",
	.port_option = "--http-port",
	.state_size = sizeof(struct http_state),
	.shared_size = sizeof(struct http_totals),
	.shared_init = shared_init,
	.shared_free = shared_free,
	.count_packet = count_packet,
	.open = open_conn,
	.data = data,
	.gap = gap,
	.close = close_conn,
	.oldest_open = oldest_open,
	.live = live,
	.live_shared = live_shared,
};
