/* analysis.c - packets to connections to round trips (see analysis.h). */
#define _DEFAULT_SOURCE
#include "analysis_impl.h"
#include "base/timing.h"
#include "pages.h"

#include <stddef.h>

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct flow_key { /* 40 bytes, no implicit padding: hashed and compared whole */
	uint8_t af;
	uint8_t pad[3];
	uint16_t cport, sport;
	uint8_t caddr[16], saddr[16];
};

_Static_assert(sizeof(struct flow_key) == 40, "flow_key must have no padding");
_Static_assert(LEGS_NAME_MAX == ADDR_STR_MAX, "a leg is named as its connections' server");
_Static_assert(PROTO_ADDR_MAX == ADDR_STR_MAX, "a plug-in's endpoints are the record's");

#define NOT_THERE SIZE_MAX

/* The protocols, and where each one's parts are in the engine's structs:
 * a protocol is a line here (docs/adding-a-protocol.md). */
static const struct registered {
	const struct proto_ops *ops;
	size_t opts_at;    /* its own options in struct analysis_opts */
	size_t live_at;    /* its running figures in struct analysis_live (proto_ops.live) */
	size_t figures_at; /* its figures in a connection's record (proto_closing.figures) */
	/* its ports in struct analysis_opts, and how many its port_option gave
	 * (NOT_THERE: -p's, always asked for) */
	size_t ports_at, nports_at;
} registry[PROTO_N] = {
	[PROTO_PGSQL] = {&proto_pgsql, offsetof(struct analysis_opts, pgsql),
			 offsetof(struct analysis_live, pg), offsetof(struct conn_summary, figures),
			 offsetof(struct analysis_opts, ports), NOT_THERE},
	[PROTO_HTTP] = {&proto_http, offsetof(struct analysis_opts, http),
			offsetof(struct analysis_live, http), NOT_THERE,
			offsetof(struct analysis_opts, http_ports),
			offsetof(struct analysis_opts, nhttp_ports)},
	[PROTO_REDIS] = {&proto_redis, offsetof(struct analysis_opts, proto_opts[PROTO_REDIS]),
			 offsetof(struct analysis_live, proto_figures[PROTO_REDIS]),
			 offsetof(struct conn_summary, figures),
			 offsetof(struct analysis_opts, proto_ports[PROTO_REDIS].port),
			 offsetof(struct analysis_opts, proto_ports[PROTO_REDIS].n)},
};

struct conn {
	struct conn *hnext;
	struct conn *lru_prev, *lru_next; /* most recently active first */
	struct analysis *a;
	const struct proto_ops *proto;
	struct flow_key key;
	uint64_t hash;
	struct conn_summary sum; /* identity fields live; the rest filled at close */
	struct reasm_dir tcp[2];
	struct reasm_out out[2];
	_Alignas(max_align_t) unsigned char state[]; /* proto->state_size bytes */
};

/* ----------------------------------------------------------------------
 * Addresses and keys
 * ---------------------------------------------------------------------- */

void addr_format(char *buf, size_t cap, uint8_t af, const uint8_t *addr, uint16_t port)
{
	char ip[INET6_ADDRSTRLEN];
	if (af == 4) {
		inet_ntop(AF_INET, addr, ip, sizeof ip);
		snprintf(buf, cap, "%s:%u", ip, port);
	} else {
		inet_ntop(AF_INET6, addr, ip, sizeof ip);
		snprintf(buf, cap, "[%s]:%u", ip, port);
	}
}

static uint64_t key_hash(const struct flow_key *k)
{
	uint64_t w[5];
	memcpy(w, k, sizeof w);
	uint64_t h = 0x9e3779b97f4a7c15ull;
	for (int i = 0; i < 5; i++) {
		h ^= w[i];
		h *= 0xbf58476d1ce4e5b9ull;
		h ^= h >> 31;
	}
	return h;
}

static bool key_eq(const struct flow_key *a, const struct flow_key *b)
{
	return memcmp(a, b, sizeof(*a)) == 0;
}

static void key_make(struct flow_key *k, const struct seg *s, bool src_is_client)
{
	memset(k, 0, sizeof(*k));
	k->af = s->af;
	memcpy(k->caddr, src_is_client ? s->src : s->dst, 16);
	memcpy(k->saddr, src_is_client ? s->dst : s->src, 16);
	k->cport = src_is_client ? s->sport : s->dport;
	k->sport = src_is_client ? s->dport : s->sport;
}

/* The protocol spoken on a server port, PROTO_NONE for any other port. */
static enum proto_id port_proto(const struct analysis *a, uint16_t port)
{
	return (enum proto_id)a->port_proto[port];
}

/* ----------------------------------------------------------------------
 * Connection table
 * ---------------------------------------------------------------------- */

static struct conn **slot_of(struct analysis *a, const struct flow_key *k, uint64_t h)
{
	struct conn **pp = &a->buckets[h & (a->nbuckets - 1)];
	while (*pp && !key_eq(&(*pp)->key, k))
		pp = &(*pp)->hnext;
	return pp;
}

static void grow(struct analysis *a)
{
	uint32_t n = a->nbuckets * 2;
	struct conn **b = calloc(n, sizeof(*b));
	if (!b)
		return; /* keep the longer chains */
	for (uint32_t i = 0; i < a->nbuckets; i++) {
		struct conn *c = a->buckets[i];
		while (c) {
			struct conn *next = c->hnext;
			struct conn **pp = &b[c->hash & (n - 1)];
			c->hnext = *pp;
			*pp = c;
			c = next;
		}
	}
	free(a->buckets);
	a->buckets = b;
	a->nbuckets = n;
}

static void lru_unlink(struct analysis *a, struct conn *c)
{
	if (c->lru_prev)
		c->lru_prev->lru_next = c->lru_next;
	else
		a->lru_head = c->lru_next;
	if (c->lru_next)
		c->lru_next->lru_prev = c->lru_prev;
	else
		a->lru_tail = c->lru_prev;
	c->lru_prev = c->lru_next = NULL;
}

static void lru_touch(struct analysis *a, struct conn *c)
{
	if (a->lru_head == c)
		return;
	if (c->lru_prev || c->lru_next || a->lru_tail == c)
		lru_unlink(a, c);
	c->lru_next = a->lru_head;
	if (a->lru_head)
		a->lru_head->lru_prev = c;
	a->lru_head = c;
	if (!a->lru_tail)
		a->lru_tail = c;
}

/* A closing connection's TCP figures (both directions' reassembly) and
 * latency quantiles into its record. */
static void analysis_summarize(struct conn_summary *m, const struct reasm_dir *tcp,
			       const struct hist *lat)
{
	for (int d = 0; d < 2; d++) {
		const struct reasm_dir *t = &tcp[d];
		m->bytes[d] = t->bytes;
		m->gaps += t->gaps;
		m->gap_bytes += t->gap_bytes;
		m->retrans_bytes += t->retrans_bytes;
		m->ooo_segs += t->ooo_total;
		m->truncated_segs += t->truncated_segs;
	}
	m->lat_count = lat->count;
	m->lat_p50 = hist_quantile(lat, 0.50);
	m->lat_p99 = hist_quantile(lat, 0.99);
	m->lat_max = lat->max;
}

/* A closed connection's record into the listing: the first
 * ANALYSIS_MAX_LISTED, the rest counted in the totals only. */
static void analysis_list(struct analysis *a, const struct conn_summary *m)
{
	struct analysis_totals *t = &a->tot;
	if (a->nlisted == a->cap_listed && a->cap_listed < ANALYSIS_MAX_LISTED) {
		uint32_t n = a->cap_listed ? a->cap_listed * 2 : 64;
		if (n > ANALYSIS_MAX_LISTED)
			n = ANALYSIS_MAX_LISTED;
		struct conn_summary *l = realloc(a->listed, n * sizeof(*l));
		if (l) {
			a->listed = l;
			a->cap_listed = n;
		} else {
			t->nomem++; /* the listing short of a connection: the totals have it */
		}
	}
	if (a->nlisted < a->cap_listed)
		a->listed[a->nlisted++] = *m;
	else
		t->conns_not_listed++;
}

/* ----------------------------------------------------------------------
 * What the protocols ask of the analysis (proto.h's struct proto_host)
 * ---------------------------------------------------------------------- */

static void host_round_trip(void *ctx, uint64_t conn, const struct rt_event *e)
{
	struct analysis *a = ctx;
	attrib_pipe_add(&a->pipe, conn, e);
}

/* A new connection's leg among l's server endpoints (legs.h, the
 * protocol's legs); no room to follow the legs is counted in tot.nomem, so
 * the out-of-memory finding says it. */
static uint8_t host_leg(void *ctx, struct legs *l, const char *server)
{
	struct analysis *a = ctx;
	bool was = l->short_of_memory;
	uint8_t leg = legs_endpoint(l, server);
	a->tot.nomem += !was && l->short_of_memory; /* legs not followed: said, not silent */
	return leg;
}

static void host_opened(void *ctx, struct conn_summary *sum)
{
	struct analysis *a = ctx;
	if (a->opts.on_conn)
		a->opts.on_conn(a->opts.ctx, sum);
}

static void host_lost(void *ctx)
{
	struct analysis *a = ctx;
	a->tot.nomem++;
}

static uint16_t host_page_endpoint(void *ctx, const char *server)
{
	return pages_endpoint(ctx, server);
}

static void host_request(void *ctx, const struct http1_msg *m, void *slot)
{
	pages_request(ctx, m, slot);
}

static void host_response(void *ctx, uint64_t conn, uint16_t endpoint, const struct http1_msg *m,
			  const void *slot)
{
	pages_response(ctx, conn, endpoint, m, slot);
}

static void host_closed(void *ctx, struct conn_summary *m, const struct reasm_dir *tcp,
			const struct proto_closing *c)
{
	struct analysis *a = ctx;
	size_t at = registry[m->proto].figures_at;
	if (at != NOT_THERE && c->figures_size && c->figures_size <= sizeof m->figures)
		memcpy((char *)m + at, c->figures, c->figures_size);
	m->mid_stream = c->mid_stream;
	m->tls = c->tls;
	m->tls_decrypted = c->tls_decrypted;
	m->undecodable = c->undecodable;
	m->enc_extra_bytes = c->enc_extra_bytes;
	analysis_summarize(m, tcp, c->lat);
	m->malformed += c->malformed;
	m->skipped_bytes += c->skipped_bytes;
	m->resyncs += c->resyncs;
	if (m->evicted)
		a->tot.evicted++;
	analysis_list(a, m);
}

int analysis_init(struct analysis *a, const struct analysis_opts *o)
{
	memset(a, 0, sizeof(*a));
	a->opts = *o;
	a->host = (struct proto_host){
		.ctx = a,
		.round_trip = host_round_trip,
		.leg = host_leg,
		.opened = host_opened,
		.closed = host_closed,
		.lost = host_lost,
		.page_slot_size = pages_slot_size,
		.page_endpoint = host_page_endpoint,
		.request = host_request,
		.response = host_response,
	};
	if (a->opts.max_open == 0)
		a->opts.max_open = ANALYSIS_MAX_OPEN;
	if (a->opts.max_buffer == 0)
		a->opts.max_buffer = ANALYSIS_MAX_BUFFER;
	if (a->opts.nports == 0) {
		a->opts.ports[0] = 5432;
		a->opts.nports = 1;
	}
	/* HTTP first, then Redis: a port given as two is PostgreSQL's, as it
	 * always was, or else Redis's */
	for (int i = 0; i < a->opts.nhttp_ports; i++)
		a->port_proto[a->opts.http_ports[i]] = PROTO_HTTP;
	for (int p = 0; p < PROTO_N; p++)
		for (int i = 0; i < a->opts.proto_ports[p].n; i++)
			a->port_proto[a->opts.proto_ports[p].port[i]] = (uint8_t)p;
	for (int i = 0; i < a->opts.nports; i++)
		a->port_proto[a->opts.ports[i]] = PROTO_PGSQL;
	/* each protocol's shared state: its totals, latencies, a relay's legs
	 * (zeroed: analysis_free frees what a failure left) */
	for (int p = 0; p < PROTO_N; p++) {
		const struct registered *r = &registry[p];
		if (!r->ops || !r->ops->shared_size)
			continue;
		const void *own = r->opts_at != NOT_THERE ? (const char *)&a->opts + r->opts_at : NULL;
		if (!(a->shared[p] = calloc(1, r->ops->shared_size)) ||
		    r->ops->shared_init(a->shared[p], own) != 0)
			return -1;
	}
	a->buckets = calloc(1024, sizeof(*a->buckets));
	a->nbuckets = a->buckets ? 1024 : 0; /* analysis_free walks them, even after a failure */
	if (!a->buckets)
		return -1;
	if (a->opts.nhttp_ports) {
		if (attrib_init(&a->attrib, a->opts.grace_ns, a->opts.hold_ns) != 0)
			return -1;
		a->attrib.on_page = a->opts.on_page;
		a->attrib.ctx = a->opts.ctx;
		a->attributing = a->host.attributing = true;
		a->attrib.infer.threads = a->attrib.cmd_infer.threads = a->opts.fit_threads > 1 ? 2 : 1;
		/* a callback into the reader's side would run on the attribution's */
		attrib_pipe_start(&a->pipe, &a->attrib,
				  a->opts.threads > 1 && !a->opts.on_page && !a->opts.pgsql.texts);
		uint32_t v = a->opts.route_values;
		route_learn_init(&a->learn, v == ROUTE_VALUES_OFF ? 0 : v ? v : ROUTE_LEARN_VALUES);
		/* held while routes are learnt, and while a proxy in front of
		 * the app may be found (page_twins.h): learning off, too */
		page_hold_init(&a->hold, true);
		if (!(a->twins = malloc(sizeof(*a->twins))))
			return -1;
		page_twins_init(a->twins);
	}
	return 0;
}

/* ----------------------------------------------------------------------
 * Connections: TCP here, the rest in the protocol (proto.h)
 * ---------------------------------------------------------------------- */

static void on_data(void *ctx, int side, const uint8_t *p, size_t n, uint64_t ts)
{
	struct conn *c = ctx;
	c->proto->data(c->state, side, p, n, ts);
}

static void on_gap(void *ctx, int side, uint64_t n, uint64_t ts)
{
	struct conn *c = ctx;
	c->proto->gap(c->state, side, n, ts);
}

static struct conn *conn_new(struct analysis *a, const struct flow_key *k, uint64_t h,
			     bool from_start, uint64_t ts, const struct proto_ops *proto)
{
	struct conn *c = calloc(1, sizeof(*c) + proto->state_size);
	if (!c)
		return NULL;
	c->a = a;
	c->proto = proto;
	c->key = *k;
	c->hash = h;
	c->sum.id = ++a->next_id;
	c->sum.proto = proto->id;
	c->sum.first_ts = c->sum.last_ts = ts;
	addr_format(c->sum.client, sizeof c->sum.client, k->af, k->caddr, k->cport);
	addr_format(c->sum.server, sizeof c->sum.server, k->af, k->saddr, k->sport);
	for (int s = 0; s < 2; s++) {
		reasm_init(&c->tcp[s]);
		c->out[s] = (struct reasm_out){on_data, on_gap, c, s};
	}
	struct proto_ctx cx = {.host = &a->host,
			       .sum = &c->sum,
			       .shared = a->shared[proto->id],
			       .id = c->sum.id,
			       .client = c->sum.client,
			       .server = c->sum.server,
			       .port = k->sport};
	if (proto->open(c->state, &cx, from_start, ts) != 0) {
		free(c);
		return NULL;
	}
	struct conn **pp = slot_of(a, k, h);
	c->hnext = *pp;
	*pp = c;
	a->nopen++;
	if (a->nopen > a->nbuckets)
		grow(a);
	return c;
}

static uint64_t held(const struct conn *c)
{
	return (uint64_t)c->tcp[0].ooo_bytes + c->tcp[1].ooo_bytes;
}

/* Close a connection: flush, let its protocol summarise it, free it. */
static void conn_close(struct analysis *a, struct conn *c, uint64_t ts)
{
	for (int s = 0; s < 2; s++)
		reasm_flush(&c->tcp[s], &c->out[s], ts);
	c->proto->close(c->state, c->tcp, ts);
	struct conn **pp = slot_of(a, &c->key, c->hash);
	if (*pp == c)
		*pp = c->hnext;
	lru_unlink(a, c);
	a->nopen--;
	a->ooo_bytes -= held(c);
	for (int s = 0; s < 2; s++)
		reasm_free(&c->tcp[s]);
	free(c);
}

/* The table is full: close the connection seen least recently. */
static void evict_one(struct analysis *a, uint64_t ts)
{
	struct conn *old = a->lru_tail;
	if (old) {
		old->sum.evicted = true;
		conn_close(a, old, ts);
	}
}

/* ----------------------------------------------------------------------
 * Packets
 * ---------------------------------------------------------------------- */

/* A packet on no port we watch: remember where connections go and which
 * ports carry what parses as PostgreSQL, for the hint when --port is wrong.
 * The table keeps the first ANALYSIS_OTHER_PORTS ports seen. */
static void note_other_port(struct analysis *a, const struct seg *s)
{
	uint16_t port = 0;
	bool syn = (s->flags & (TCP_SYN | TCP_ACK)) == TCP_SYN, pg = false;
	if (syn) {
		port = s->dport;
	} else if (s->caplen > 0) {
		int g = pgsql_guess_side(s->payload, s->caplen);
		if (g < 0)
			return;
		pg = true;
		port = g == PGSQL_FE ? s->dport : s->sport;
	} else {
		return;
	}
	for (int i = 0; i < ANALYSIS_OTHER_PORTS; i++) {
		struct analysis_other_port *o = &a->tot.other_ports[i];
		if (o->port == port || (o->syns == 0 && o->pg_like == 0)) {
			o->port = port;
			o->syns += syn;
			o->pg_like += pg;
			return;
		}
	}
}

/* More out-of-order bytes are held than --max-buffer allows: give up on the
 * holes of the connections seen least recently (they are the least likely
 * to be filled), until under the budget.  The holes become counted gaps. */
static void over_budget(struct analysis *a, uint64_t ts)
{
	for (struct conn *c = a->lru_tail; c && a->ooo_bytes > a->opts.max_buffer; c = c->lru_prev) {
		for (int s = 0; s < 2; s++) {
			while (c->tcp[s].ooo && a->ooo_bytes > a->opts.max_buffer) {
				uint64_t before = held(c);
				reasm_give_up(&c->tcp[s], &c->out[s], ts);
				a->ooo_bytes -= before - held(c);
				a->tot.buffer_gaps++;
			}
		}
	}
}

/* Loopback captures are not time-ordered across connections by up to tens of
 * microseconds (per-CPU delivery into the ring; ordered within a connection):
 * stay this far behind the newest packet. */
#define REORDER_TOLERANCE_NS 1000000ull

/* Attribution settled up to the watermark: the earliest time at which
 * anything still open - a round trip not yet classified, a page not yet
 * answered to its last byte - started.  Pings waiting too long for their
 * role are settled on the way.  Nothing holds it back longer than the hold
 * (a long poll, a stalled client, a query that runs for minutes), nor once
 * the buffers are full - then it is `full`, as if nothing were open;
 * whether they are, only the attribution's side knows.  So memory
 * follows the traffic of the last hold, not the capture. */
static void settle(struct analysis *a)
{
	uint64_t now = a->tot.last_ts > a->clock_ns ? a->tot.last_ts : a->clock_ns;
	uint64_t full = now > REORDER_TOLERANCE_NS ? now - REORDER_TOLERANCE_NS : 0, w = full;
	uint64_t oldest = now > a->attrib.hold_ns ? now - a->attrib.hold_ns : 0;
	for (struct conn *c = a->lru_head; c; c = c->lru_next) {
		uint64_t t;
		if (c->proto->oldest_open(c->state, now, oldest, &t) && t < w)
			w = t;
	}
	uint64_t held = page_hold_watermark(a, now); /* pages held while routes are learnt */
	w = held < w ? held : w;
	attrib_pipe_settle(&a->pipe, w, full);
}

/* The open connection a segment belongs to, looked up in the likelier
 * orientation first, or NULL (k, h: the key to open it under).  A client
 * SYN on a connection that already carried data is a reused port pair:
 * the old one is closed. */
static struct conn *flow_find(struct analysis *a, const struct seg *s, bool dst_srv, bool src_srv,
			      struct flow_key *k, uint64_t *h, bool *from_client, uint64_t ts)
{
	*from_client = dst_srv &&
		       !(src_srv && (s->flags & (TCP_SYN | TCP_ACK)) == (TCP_SYN | TCP_ACK));
	key_make(k, s, *from_client);
	*h = key_hash(k);
	struct conn **pp = slot_of(a, k, *h);
	if (!*pp) {
		struct flow_key r;
		key_make(&r, s, !*from_client);
		uint64_t hr = key_hash(&r);
		struct conn **pr = slot_of(a, &r, hr);
		if (*pr) {
			*k = r;
			*h = hr;
			pp = pr;
			*from_client = !*from_client;
		}
	}
	struct conn *c = *pp;
	bool client_syn = *from_client && (s->flags & (TCP_SYN | TCP_ACK)) == TCP_SYN;
	if (c && client_syn && (c->tcp[0].bytes > 0 || c->tcp[0].fin_seen ||
				c->tcp[0].next != s->seq + 1)) {
		conn_close(a, c, ts); /* the port pair was reused */
		c = NULL;
	}
	return c;
}

/* A segment of no open connection: open one, unless the segment cannot
 * start one (a RST, a stray ACK or FIN).  NULL then, or out of memory. */
static struct conn *flow_open(struct analysis *a, const struct seg *s,
			      const struct proto_ops *proto, bool both_srv, struct flow_key *k,
			      uint64_t h, bool *from_client, uint64_t ts)
{
	const char *server_from = s->flags & TCP_SYN ? "syn" : "port";
	if (s->flags & TCP_RST)
		return NULL;
	if (!(s->flags & TCP_SYN) && s->wirelen == 0)
		return NULL; /* a stray ACK or FIN of a connection we never saw */
	if (!(s->flags & TCP_SYN) && both_srv && proto->guess_side) {
		/* both ports are server ports and the handshake was missed: let
		 * the first payload tell which side is the client */
		int g = proto->guess_side(s->payload, s->caplen);
		if (g >= 0) {
			server_from = "traffic";
			if (*from_client != (g == 0)) {
				*from_client = !*from_client;
				key_make(k, s, *from_client);
				h = key_hash(k);
			}
		}
	}
	if (a->nopen >= a->opts.max_open)
		evict_one(a, ts);
	enum proto_id server_kind = port_proto(a, k->sport);
	struct conn *c = conn_new(a, k, h, (s->flags & TCP_SYN) != 0, ts,
				  registry[server_kind != PROTO_NONE ? server_kind : PROTO_PGSQL].ops);
	if (!c) {
		a->tot.nomem++;
		return NULL;
	}
	c->sum.syn_seen = (s->flags & TCP_SYN) != 0;
	c->sum.server_from = server_from;
	return c;
}

/* One segment of connection c from side: reassembly (and the global
 * out-of-order budget), then close the connection if it ended. */
static void flow_segment(struct analysis *a, struct conn *c, const struct seg *s, int side,
			 uint64_t ts)
{
	lru_touch(a, c);
	uint64_t held_before = held(c);
	c->sum.packets++;
	c->sum.last_ts = ts;
	if ((s->flags & (TCP_SYN | TCP_ACK)) == (TCP_SYN | TCP_ACK) && !c->tcp[0].have_next) {
		/* we missed the client's SYN: its stream starts at the ack */
		c->tcp[0].have_next = true;
		c->tcp[0].next = s->ack;
	}
	/* the ack first: it says what the sender had received before it sent
	 * this segment's data, so a hole it reveals on the other side (a gap)
	 * comes before that data - a reply lost to the capture is known lost
	 * before the client's next command is seen */
	if (s->flags & TCP_ACK)
		reasm_ack(&c->tcp[!side], &c->out[!side], s->ack, ts);
	if (!reasm_push(&c->tcp[side], &c->out[side], s->seq, s->flags, s->payload, s->caplen,
			s->wirelen, ts))
		a->tot.nomem++;
	a->ooo_bytes += held(c) - held_before;
	if (a->ooo_bytes > a->opts.max_buffer)
		over_budget(a, ts);
	if (s->flags & TCP_FIN)
		c->sum.fin_seen = true;
	if (s->flags & TCP_RST) {
		c->sum.rst_seen = true;
		conn_close(a, c, ts);
	} else if (c->tcp[0].closed && c->tcp[1].closed) {
		conn_close(a, c, ts);
	}
}

void analysis_packet(struct analysis *a, int dlt, const uint8_t *pkt, uint32_t caplen,
		     uint64_t ts)
{
	struct seg s;
	a->tot.packets++;
	if (a->tot.packets == 1 || ts < a->tot.first_ts)
		a->tot.first_ts = ts;
	if (ts > a->tot.last_ts)
		a->tot.last_ts = ts;

	switch (net_decode(dlt, pkt, caplen, &s)) {
	case NET_OK:
		break;
	case NET_NOT_IP:
		a->tot.not_ip++;
		return;
	case NET_NOT_TCP:
		a->tot.not_tcp++;
		return;
	case NET_FRAGMENT:
		a->tot.fragments++;
		return;
	case NET_TRUNCATED:
		a->tot.truncated_hdr++;
		return;
	default:
		a->tot.bad_hdr++;
		return;
	}

	enum proto_id dst_kind = port_proto(a, s.dport), src_kind = port_proto(a, s.sport);
	bool dst_srv = dst_kind != PROTO_NONE, src_srv = src_kind != PROTO_NONE;
	if (!dst_srv && !src_srv) {
		a->tot.other_packets++;
		if (analysis_pgsql(a)->tot.packets == 0) /* the hint is for captures without any */
			note_other_port(a, &s);
		return;
	}
	/* between two server ports, the database protocol is the one counted */
	enum proto_id kind = dst_kind == PROTO_PGSQL || src_kind == PROTO_PGSQL ? PROTO_PGSQL
			     : dst_srv ? dst_kind
				       : src_kind;
	const struct proto_ops *proto = registry[kind].ops;
	proto->count_packet(a->shared[proto->id]);

	bool from_client;
	struct flow_key k;
	uint64_t h;
	struct conn *c = flow_find(a, &s, dst_srv, src_srv, &k, &h, &from_client, ts);
	if (!c && !(c = flow_open(a, &s, proto, dst_srv && src_srv, &k, h, &from_client, ts)))
		return;
	flow_segment(a, c, &s, from_client ? 0 : 1, ts);
	/* every 1,024 packets: what is left to place when the file ends is what
	 * came since, placed after the reading; a pass reads every open
	 * connection once */
	if (a->attributing && a->tot.packets >= a->next_settle) {
		settle(a);
		a->next_settle = a->tot.packets + 1024;
	}
}

static int by_id(const void *x, const void *y)
{
	const struct conn_summary *a = x, *b = y;
	return a->id < b->id ? -1 : a->id > b->id;
}

static int conn_by_id(const void *x, const void *y)
{
	const struct conn *a = *(struct conn *const *)x, *b = *(struct conn *const *)y;
	return a->sum.id < b->sum.id ? -1 : a->sum.id > b->sum.id;
}

void analysis_settle(struct analysis *a, uint64_t clock_ns)
{
	if (clock_ns > a->clock_ns)
		a->clock_ns = clock_ns;
	if (a->attributing)
		settle(a);
}

void analysis_ending(struct analysis *a)
{
	if (a->attributing)
		attrib_pipe_ending(&a->pipe);
}

void analysis_finish(struct analysis *a)
{
	if (a->finished)
		return;
	a->finished = true;
	timing_mark("read");
	/* close in order of appearance so the listing is deterministic */
	struct conn **open = malloc((a->nopen + 1) * sizeof(*open));
	uint32_t n = 0;
	for (uint32_t i = 0; open && i < a->nbuckets; i++)
		for (struct conn *c = a->buckets[i]; c; c = c->hnext)
			open[n++] = c;
	if (open) {
		if (n)
			qsort(open, n, sizeof(*open), conn_by_id);
		for (uint32_t i = 0; i < n; i++)
			conn_close(a, open[i], a->tot.last_ts);
		free(open);
	}
	while (a->nopen) /* out of memory above: any order */
		for (uint32_t i = 0; i < a->nbuckets; i++)
			if (a->buckets[i])
				conn_close(a, a->buckets[i], a->tot.last_ts);
	if (a->nlisted)
		qsort(a->listed, a->nlisted, sizeof(*a->listed), by_id);
	if (a->attributing) {
		page_hold_release(a);
		attrib_pipe_finish(&a->pipe);
	}
	/* lone Syncs between two queries, labelled by the policy the whole
	 * capture showed (the one known when they were seen was thinner) */
	struct pgsql_shared *pg = a->shared[PROTO_PGSQL];
	if (!pg)
		return; /* analysis_init failed before it */
	pg->ping_policy = ping_policy_of(&pg->ping_ev);
	ping_policy_settle(pg->ping_policy, &pg->tot.st);
	for (uint32_t i = 0; i < a->nlisted; i++)
		if (a->listed[i].proto == PROTO_PGSQL)
			ping_policy_settle(pg->ping_policy, (struct rtt_stats *)(void *)a->listed[i].figures);
	if (a->attributing)
		attrib_settle_policy(&a->attrib, pg->ping_policy);
}

void analysis_free(struct analysis *a)
{
	analysis_finish(a);
	if (a->attributing) {
		attrib_pipe_free(&a->pipe);
		attrib_free(&a->attrib);
		page_hold_free(&a->hold);
		route_learn_free(&a->learn);
		if (a->twins)
			page_twins_free(a->twins);
		free(a->twins);
	}
	for (int p = 0; p < PROTO_N; p++) {
		if (a->shared[p])
			registry[p].ops->shared_free(a->shared[p]);
		free(a->shared[p]);
	}
	free(a->buckets);
	free(a->listed);
	tls_keytab_free(&a->tls_keys);
	memset(a, 0, sizeof(*a));
}

struct analysis *analysis_new(void)
{
	return calloc(1, sizeof(struct analysis));
}

void analysis_delete(struct analysis *a)
{
	free(a);
}

int analysis_keylog(struct analysis *a, const char *path, struct keylog_reader *read)
{
	FILE *f = strcmp(path, "-") == 0 ? NULL : fopen(path, "rb");
	if (!f)
		return -1;
	keylog_init(read);
	uint8_t buf[1 << 14];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		keylog_feed(read, buf, n, tls_keytab_add, &a->tls_keys);
	keylog_finish(read, tls_keytab_add, &a->tls_keys);
	int err = ferror(f);
	fclose(f);
	memset(buf, 0, sizeof buf); /* no secret left on the stack */
	a->host.tls_keys = &a->tls_keys;
	return err ? -1 : 0;
}

int analysis_restart(struct analysis *a, const struct analysis_opts *o)
{
	struct route_learn learnt = a->learn; /* handed on, not freed */
	memset(&a->learn, 0, sizeof a->learn);
	analysis_free(a);
	if (analysis_init(a, o) != 0) {
		route_learn_free(&learnt);
		return -1;
	}
	if (a->attributing) {
		route_learn_free(&a->learn);
		a->learn = learnt;
	} else {
		route_learn_free(&learnt);
	}
	return 0;
}

bool analysis_pages_short(const struct analysis *a)
{
	return a->learn.nomem || a->hold.nomem;
}

void *analysis_shared(const struct analysis *a, enum proto_id p)
{
	return a->shared[p];
}

const struct analysis_opts *analysis_options(const struct analysis *a)
{
	return &a->opts;
}

const struct analysis_totals *analysis_counts(const struct analysis *a)
{
	return &a->tot;
}

const struct attrib *analysis_attrib(const struct analysis *a)
{
	return &a->attrib;
}

bool analysis_attributing(const struct analysis *a)
{
	return a->attributing;
}

const struct route_learn *analysis_learn(const struct analysis *a)
{
	return &a->learn;
}

const struct page_twins *analysis_twins(const struct analysis *a)
{
	return a->twins;
}

const struct conn_summary *analysis_listed(const struct analysis *a, uint32_t *n)
{
	*n = a->nlisted;
	return a->listed;
}

const struct proto_ops *analysis_protocol(enum proto_id id)
{
	return id > PROTO_NONE && id < PROTO_N ? registry[id].ops : NULL;
}

const struct page_figure *analysis_page_figure(int n, const struct proto_ops **proto)
{
	for (int p = 0; p < PROTO_N && n >= 0; p++) {
		const struct proto_ops *ops = registry[p].ops;
		if (!ops)
			continue;
		if (n < ops->npage_figs) {
			if (proto)
				*proto = ops;
			return &ops->page_figs[n];
		}
		n -= ops->npage_figs;
	}
	return NULL;
}

const struct conn_figure *analysis_run_figure(int n, const struct proto_ops **proto)
{
	for (int p = 0; p < PROTO_N; p++) {
		const struct proto_ops *ops = registry[p].ops;
		for (int i = 0; ops && i < ops->nconn_figs; i++) {
			if (!ops->conn_figs[i].title || n-- > 0)
				continue;
			if (proto)
				*proto = ops;
			return &ops->conn_figs[i];
		}
	}
	return NULL;
}

bool analysis_asked(const struct analysis *a, enum proto_id id)
{
	if (!analysis_protocol(id))
		return false;
	size_t at = registry[id].nports_at;
	return at == NOT_THERE || *(const int *)((const char *)&a->opts + at) > 0;
}

const uint16_t *analysis_ports(const struct analysis *a, enum proto_id id, int *n)
{
	if (!analysis_protocol(id)) {
		*n = 0;
		return NULL;
	}
	size_t at = registry[id].nports_at;
	*n = at == NOT_THERE ? a->opts.nports : *(const int *)((const char *)&a->opts + at);
	return (const uint16_t *)((const char *)&a->opts + registry[id].ports_at);
}

const void *analysis_conn_figures(const struct conn_summary *c)
{
	if (c->proto == PROTO_PGSQL || !analysis_protocol(c->proto))
		return NULL;
	size_t at = registry[c->proto].figures_at;
	return at == NOT_THERE ? NULL : (const char *)c + at;
}

void *analysis_opts_part(struct analysis_opts *o, enum proto_id id)
{
	if (!analysis_protocol(id) || registry[id].opts_at == NOT_THERE)
		return NULL;
	return (char *)o + registry[id].opts_at;
}

const void *analysis_live_figures(const struct analysis_live *o, enum proto_id id)
{
	const struct proto_ops *ops = analysis_protocol(id);
	if (!ops || !ops->nconn_figs)
		return NULL;
	return (const char *)o + registry[id].live_at;
}

bool analysis_measured(const struct analysis *a, enum proto_id id)
{
	if (!analysis_asked(a, id))
		return false;
	const struct proto_ops *ops = registry[id].ops;
	return !ops->measured || ops->measured(a->shared[id]);
}

bool analysis_pg_measured(const struct analysis *a)
{
	/* evidence.c's fatal findings, the other way round */
	const struct pgsql_totals *t = &analysis_pgsql(a)->tot;
	if (t->st.round_trips > 0)
		return true;
	for (int p = 0; p < PROTO_N && t->packets == 0; p++) /* another protocol alone */
		if (p != PROTO_PGSQL && registry[p].ops && registry[p].ops->totals &&
		    analysis_measured(a, p))
			return true;
	return false;
}

void analysis_live(const struct analysis *a, struct analysis_live *o)
{
	struct hist *lat = o->pg.lat;
	memset(o, 0, sizeof(*o));
	o->pg.lat = lat;
	for (int p = 0; p < PROTO_N; p++)
		if (registry[p].ops && registry[p].ops->live_shared)
			registry[p].ops->live_shared(a->shared[p], (char *)o + registry[p].live_at);
	o->open = a->nopen;
	for (const struct conn *c = a->lru_head; c; c = c->lru_next) {
		c->proto->live(c->state, (char *)o + registry[c->proto->id].live_at);
	}
}
