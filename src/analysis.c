/* analysis.c - packets to connections to round trips (see analysis.h). */
#define _DEFAULT_SOURCE
#include "analysis.h"

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

enum conn_kind { CONN_PGSQL, CONN_HTTP };

/* What attribution needs of a request until its response completes. */
struct page_req {
	uint32_t route;
	char target[ATTRIB_TARGET_MAX];
};

struct conn {
	struct conn *hnext;
	uint8_t kind;             /* enum conn_kind */
	struct http1_conn *http;  /* CONN_HTTP only */
	struct page_req *page_req; /* CONN_HTTP: requests by seq % HTTP1_PENDING_MAX */
	struct conn *lru_prev, *lru_next; /* most recently active first */
	struct analysis *a;
	struct flow_key key;
	uint64_t hash;
	struct conn_summary sum; /* identity fields live; the rest filled at close */
	struct reasm_dir tcp[2];
	struct reasm_out out[2];
	struct pgsql_conn pg;
	struct rtt rtt;
	struct hist lat;
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

/* 1 for a PostgreSQL server port, 2 for an HTTP one, 0 for neither. */
static int port_kind(const struct analysis *a, uint16_t port)
{
	for (int i = 0; i < a->opts.nports; i++)
		if (a->opts.ports[i] == port)
			return 1;
	for (int i = 0; i < a->opts.nhttp_ports; i++)
		if (a->opts.http_ports[i] == port)
			return 2;
	return 0;
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

int analysis_init(struct analysis *a, const struct analysis_opts *o)
{
	memset(a, 0, sizeof(*a));
	a->opts = *o;
	if (a->opts.max_open == 0)
		a->opts.max_open = ANALYSIS_MAX_OPEN;
	if (a->opts.max_buffer == 0)
		a->opts.max_buffer = ANALYSIS_MAX_BUFFER;
	if (a->opts.nports == 0) {
		a->opts.ports[0] = 5432;
		a->opts.nports = 1;
	}
	a->nbuckets = 1024;
	a->buckets = calloc(a->nbuckets, sizeof(*a->buckets));
	if (!a->buckets)
		return -1;
	hist_init(&a->lat);
	for (int i = 0; i < RT_NCLASS; i++)
		hist_init(&a->lat_class[i]);
	if (a->opts.nhttp_ports) {
		if (attrib_init(&a->attrib, a->opts.grace_ns, a->opts.hold_ns) != 0)
			return -1;
		a->attrib.on_page = a->opts.on_page;
		a->attrib.ctx = a->opts.ctx;
		a->attributing = true;
	}
	return 0;
}

/* ----------------------------------------------------------------------
 * Stream callbacks
 * ---------------------------------------------------------------------- */

static void on_pg_msg(void *ctx, const struct pgsql_msg *m)
{
	struct conn *c = ctx;
	rtt_msg(&c->rtt, m);
	if (c->a->opts.on_msg)
		c->a->opts.on_msg(c->a->opts.ctx, &c->sum, m);
}

static void on_http_msg(void *ctx, const struct http1_msg *m)
{
	struct conn *c = ctx;
	struct analysis *a = c->a;
	if (a->attributing && m->request) {
		char route[ROUTE_MAX];
		route_of(a->opts.routes, m->method, m->target, route, sizeof route);
		struct page_req *pr = &c->page_req[m->seq % HTTP1_PENDING_MAX];
		pr->route = attrib_route_id(&a->attrib, route);
		if (a->opts.on_page) { /* cut to ATTRIB_TARGET_MAX - 1 */
			size_t n = strnlen(m->target, sizeof pr->target - 1);
			memcpy(pr->target, m->target, n);
			pr->target[n] = '\0';
		}
	} else if (a->attributing && !m->interim && m->seq != UINT32_MAX) {
		const struct page_req *pr = &c->page_req[m->seq % HTTP1_PENDING_MAX];
		attrib_add_page(&a->attrib, pr->route, m->request_ts, m->ts_last, c->sum.id, m->method,
			    pr->target, m->status);
	}
	if (c->a->opts.on_http)
		c->a->opts.on_http(c->a->opts.ctx, &c->sum, m);
}

static void on_data(void *ctx, int side, const uint8_t *p, size_t n, uint64_t ts)
{
	struct conn *c = ctx;
	if (c->kind == CONN_HTTP)
		http1_feed(c->http, (enum http1_side)side, p, n, ts, on_http_msg, c);
	else
		pgsql_feed(&c->pg, (enum pgsql_side)side, p, n, ts, on_pg_msg, c);
}

static void on_gap(void *ctx, int side, uint64_t n, uint64_t ts)
{
	struct conn *c = ctx;
	if (c->kind == CONN_HTTP) {
		http1_gap(c->http, (enum http1_side)side, n, ts, on_http_msg, c);
		return;
	}
	rtt_gap(&c->rtt, (enum pgsql_side)side);
	pgsql_gap(&c->pg, (enum pgsql_side)side, n, ts, on_pg_msg, c);
}

static void on_round_trip(void *ctx, const struct rt *rt)
{
	struct conn *c = ctx;
	if (c->a->attributing)
		attrib_add_rt(&c->a->attrib, c->sum.id, rt);
	if (c->a->opts.on_rt)
		c->a->opts.on_rt(c->a->opts.ctx, &c->sum, rt);
}

static struct conn *conn_new(struct analysis *a, const struct flow_key *k, uint64_t h,
			     bool from_start, uint64_t ts, enum conn_kind kind)
{
	struct conn *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->kind = (uint8_t)kind;
	if (kind == CONN_HTTP) {
		c->http = malloc(sizeof(*c->http));
		if (!c->http) {
			free(c);
			return NULL;
		}
		http1_conn_init(c->http);
		c->page_req = calloc(HTTP1_PENDING_MAX, sizeof(*c->page_req));
		if (!c->page_req) {
			free(c->http);
			free(c);
			return NULL;
		}
	}
	c->a = a;
	c->key = *k;
	c->hash = h;
	c->sum.id = ++a->next_id;
	c->sum.first_ts = c->sum.last_ts = ts;
	addr_format(c->sum.client, sizeof c->sum.client, k->af, k->caddr, k->cport);
	addr_format(c->sum.server, sizeof c->sum.server, k->af, k->saddr, k->sport);
	for (int s = 0; s < 2; s++) {
		reasm_init(&c->tcp[s]);
		c->out[s] = (struct reasm_out){on_data, on_gap, c, s};
	}
	pgsql_conn_init(&c->pg, from_start);
	hist_init(&c->lat);
	rtt_init(&c->rtt, &c->lat, a->lat_class,
		 a->opts.on_rt || a->attributing ? on_round_trip : NULL, c);
	struct conn **pp = slot_of(a, k, h);
	c->hnext = *pp;
	*pp = c;
	a->nopen++;
	if (kind == CONN_HTTP)
		a->tot.http.connections++;
	else
		a->tot.connections++;
	if (a->nopen > a->nbuckets)
		grow(a);
	if (a->opts.on_conn && kind == CONN_PGSQL)
		a->opts.on_conn(a->opts.ctx, &c->sum);
	return c;
}

static void add_stats(struct rtt_stats *t, const struct rtt_stats *s)
{
	t->rfq += s->rfq;
	t->round_trips += s->round_trips;
	for (int i = 0; i < RT_NCLASS; i++)
		t->by_class[i] += s->by_class[i];
	for (int i = 0; i < PING_NROLE; i++)
		t->pings[i] += s->pings[i];
	for (int i = 0; i < 4; i++)
		t->ping_sigs[i] += s->ping_sigs[i];
	t->rows += s->rows;
	t->errors += s->errors;
	t->unanswered += s->unanswered;
	t->cancel_requests += s->cancel_requests;
	t->notifications += s->notifications;
	t->returned_in_tx += s->returned_in_tx;
	for (int d = 0; d < 2; d++)
		for (int i = 0; i < RTT_MSG_SLOTS; i++)
			t->msgs[d][i] += s->msgs[d][i];
}

static uint64_t held(const struct conn *c)
{
	return (uint64_t)c->tcp[0].ooo_bytes + c->tcp[1].ooo_bytes;
}

static void unlink_and_free(struct analysis *a, struct conn *c)
{
	a->ooo_bytes -= held(c);
	struct conn **pp = slot_of(a, &c->key, c->hash);
	if (*pp == c)
		*pp = c->hnext;
	lru_unlink(a, c);
	a->nopen--;
	for (int s = 0; s < 2; s++)
		reasm_free(&c->tcp[s]);
	free(c->http);
	free(c->page_req);
	free(c);
}

static void http_close(struct analysis *a, struct conn *c, uint64_t ts)
{
	struct http1_conn *h = c->http;
	http1_eof(h, HTTP1_SERVER, ts, on_http_msg, c); /* ends a read-until-close body */
	a->tot.http.requests += h->requests;
	a->tot.http.responses += h->responses;
	a->tot.http.interim += h->interim;
	a->tot.http.unmatched += h->unmatched;
	a->tot.http.malformed += h->malformed;
	a->tot.http.not_decodable += h->error == HTTP1_E_HTTP2 || h->error == HTTP1_E_TLS ||
				     h->error == HTTP1_E_UPGRADE;
	a->tot.http.gaps += c->tcp[0].gaps + c->tcp[1].gaps;
	if (h->error) {
		a->tot.http.by_error[h->error]++;
		if (a->tot.http.nmarked < 16) {
			uint32_t i = a->tot.http.nmarked++;
			memcpy(a->tot.http.marked[i].client, c->sum.client, ADDR_STR_MAX);
			memcpy(a->tot.http.marked[i].server, c->sum.server, ADDR_STR_MAX);
			a->tot.http.marked[i].error = h->error;
		}
	}
	unlink_and_free(a, c);
}

/* Close a connection: flush, summarise, list, free. */
static void conn_close(struct analysis *a, struct conn *c, uint64_t ts)
{
	for (int s = 0; s < 2; s++)
		reasm_flush(&c->tcp[s], &c->out[s], ts);
	if (c->kind == CONN_HTTP) {
		http_close(a, c, ts);
		return;
	}
	rtt_finish(&c->rtt);

	struct conn_summary *m = &c->sum;
	m->st = c->rtt.st;
	m->mid_stream = c->pg.mid_stream;
	m->tls = c->pg.tls;
	m->enc_extra_bytes = c->pg.enc_extra_bytes;
	m->undecodable = !m->tls && c->pg.dir[0].msgs + c->pg.dir[1].msgs == 0 &&
			 c->tcp[0].bytes + c->tcp[1].bytes > 0;
	for (int s = 0; s < 2; s++) {
		const struct reasm_dir *t = &c->tcp[s];
		const struct pgsql_dir *d = &c->pg.dir[s];
		m->bytes[s] = t->bytes;
		m->gaps += t->gaps;
		m->gap_bytes += t->gap_bytes;
		m->retrans_bytes += t->retrans_bytes;
		m->ooo_segs += t->ooo_total;
		m->truncated_segs += t->truncated_segs;
		m->malformed += d->malformed;
		m->skipped_bytes += d->skipped_bytes;
		m->resyncs += d->resyncs; /* includes a mid-stream pickup's first */
	}
	m->lat_count = c->lat.count;
	m->lat_p50 = hist_quantile(&c->lat, 0.50);
	m->lat_p99 = hist_quantile(&c->lat, 0.99);
	m->lat_max = c->lat.max;
	hist_merge(&a->lat, &c->lat);

	struct analysis_totals *t = &a->tot;
	add_stats(&t->st, &m->st);
	t->gaps += m->gaps;
	t->gap_bytes += m->gap_bytes;
	t->malformed += m->malformed;
	t->skipped_bytes += m->skipped_bytes;
	t->resyncs += m->resyncs;
	t->retrans_bytes += m->retrans_bytes;
	t->ooo_segs += m->ooo_segs;
	t->truncated_segs += m->truncated_segs;
	t->enc_extra_bytes += m->enc_extra_bytes;
	t->mid_stream += m->mid_stream;
	t->tls += m->tls != 0;
	t->tls_mid_stream += m->tls != 0 && m->mid_stream;
	t->undecodable += m->undecodable;
	if (m->evicted)
		t->evicted++;

	if (a->nlisted == a->cap_listed && a->cap_listed < ANALYSIS_MAX_LISTED) {
		uint32_t n = a->cap_listed ? a->cap_listed * 2 : 64;
		if (n > ANALYSIS_MAX_LISTED)
			n = ANALYSIS_MAX_LISTED;
		struct conn_summary *l = realloc(a->listed, n * sizeof(*l));
		if (l) {
			a->listed = l;
			a->cap_listed = n;
		}
	}
	if (a->nlisted < a->cap_listed)
		a->listed[a->nlisted++] = *m;
	else
		t->conns_not_listed++;

	unlink_and_free(a, c);
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

/* The earliest time at which anything still open - a round trip not yet
 * classified, a page not yet answered to its last byte - started.  Pings
 * waiting too long for their role are settled on the way.  Nothing holds it
 * back longer than the hold (a long poll, a stalled client, a query that
 * runs for minutes), nor once the buffers are full: memory follows the
 * traffic of the last hold, not the capture. */
static uint64_t watermark(struct analysis *a)
{
	uint64_t now = a->tot.last_ts;
	uint64_t w = now > REORDER_TOLERANCE_NS ? now - REORDER_TOLERANCE_NS : 0;
	uint64_t oldest = now > a->attrib.hold_ns ? now - a->attrib.hold_ns : 0;
	if (attrib_waiting(&a->attrib) > ATTRIB_HOLD_MAX)
		oldest = w;
	for (struct conn *c = a->lru_head; c; c = c->lru_next) {
		uint64_t t;
		if (c->kind == CONN_HTTP) {
			if (http1_oldest_open(c->http, &t) && t < w && t >= oldest)
				w = t;
		} else {
			struct rtt *r = &c->rtt;
			rtt_tick(r, now);
			if (r->npend && (t = r->pend[0].t_start) < w && t >= oldest)
				w = t;
			if (r->open && r->cur.has_start && (t = r->cur.t_start) < w && t >= oldest)
				w = t;
		}
	}
	return w;
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

	int dst_kind = port_kind(a, s.dport), src_kind = port_kind(a, s.sport);
	bool dst_srv = dst_kind != 0, src_srv = src_kind != 0;
	if (!dst_srv && !src_srv) {
		a->tot.other_packets++;
		note_other_port(a, &s);
		return;
	}
	if (dst_kind == 1 || src_kind == 1)
		a->tot.pg_packets++;
	else
		a->tot.http.packets++;

	/* look the flow up in the likelier orientation first */
	bool from_client = dst_srv &&
			   !(src_srv && (s.flags & (TCP_SYN | TCP_ACK)) == (TCP_SYN | TCP_ACK));
	struct flow_key k;
	key_make(&k, &s, from_client);
	uint64_t h = key_hash(&k);
	struct conn **pp = slot_of(a, &k, h);
	if (!*pp) {
		struct flow_key r;
		key_make(&r, &s, !from_client);
		uint64_t hr = key_hash(&r);
		struct conn **pr = slot_of(a, &r, hr);
		if (*pr) {
			k = r;
			h = hr;
			pp = pr;
			from_client = !from_client;
		}
	}
	struct conn *c = *pp;
	bool client_syn = from_client && (s.flags & (TCP_SYN | TCP_ACK)) == TCP_SYN;

	if (c && client_syn && (c->tcp[PGSQL_FE].bytes > 0 || c->tcp[PGSQL_FE].fin_seen ||
				c->tcp[PGSQL_FE].next != s.seq + 1)) {
		conn_close(a, c, ts); /* the port pair was reused */
		c = NULL;
	}
	const char *server_from = s.flags & TCP_SYN ? "syn" : "port";
	if (!c) {
		if (s.flags & TCP_RST)
			return;
		if (!(s.flags & TCP_SYN) && s.wirelen == 0)
			return; /* a stray ACK or FIN of a connection we never saw */
		if (!(s.flags & TCP_SYN) && dst_srv && src_srv) {
			/* both ports are server ports and the handshake was missed:
			 * let the first payload tell which side speaks frontend */
			int g = pgsql_guess_side(s.payload, s.caplen);
			if (g >= 0) {
				server_from = "traffic";
				if (from_client != (g == PGSQL_FE)) {
					from_client = !from_client;
					key_make(&k, &s, from_client);
					h = key_hash(&k);
				}
			}
		}
		if (a->nopen >= a->opts.max_open)
			evict_one(a, ts);
		int server_kind = port_kind(a, k.sport);
		c = conn_new(a, &k, h, (s.flags & TCP_SYN) != 0, ts,
			     server_kind == 2 ? CONN_HTTP : CONN_PGSQL);
		if (!c) {
			a->tot.nomem++;
			return;
		}
		c->sum.syn_seen = (s.flags & TCP_SYN) != 0;
		c->sum.server_from = server_from;
	}

	int side = from_client ? PGSQL_FE : PGSQL_BE; /* = HTTP1_CLIENT / HTTP1_SERVER */
	lru_touch(a, c);
	uint64_t held_before = held(c);
	c->sum.packets++;
	c->sum.last_ts = ts;
	if ((s.flags & (TCP_SYN | TCP_ACK)) == (TCP_SYN | TCP_ACK) && !c->tcp[PGSQL_FE].have_next) {
		/* we missed the client's SYN: its stream starts at the ack */
		c->tcp[PGSQL_FE].have_next = true;
		c->tcp[PGSQL_FE].next = s.ack;
	}
	if (!reasm_push(&c->tcp[side], &c->out[side], s.seq, s.flags, s.payload, s.caplen,
			s.wirelen, ts))
		a->tot.nomem++;
	if (s.flags & TCP_ACK)
		reasm_ack(&c->tcp[!side], &c->out[!side], s.ack, ts);
	a->ooo_bytes += held(c) - held_before;
	if (a->ooo_bytes > a->opts.max_buffer)
		over_budget(a, ts);
	if (s.flags & TCP_FIN)
		c->sum.fin_seen = true;
	if (s.flags & TCP_RST) {
		c->sum.rst_seen = true;
		conn_close(a, c, ts);
	} else if (c->tcp[0].closed && c->tcp[1].closed) {
		conn_close(a, c, ts);
	}
	if (a->attributing && a->tot.packets >= a->next_settle) {
		attrib_settle(&a->attrib, watermark(a));
		a->next_settle = a->tot.packets + 4096;
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

void analysis_finish(struct analysis *a)
{
	if (a->finished)
		return;
	a->finished = true;
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
	if (a->attributing)
		attrib_finish(&a->attrib);
}

void analysis_free(struct analysis *a)
{
	analysis_finish(a);
	if (a->attributing)
		attrib_free(&a->attrib);
	free(a->buckets);
	free(a->listed);
	memset(a, 0, sizeof(*a));
}

void analysis_live(const struct analysis *a, struct analysis_live *o)
{
	o->rfq = a->tot.st.rfq;
	o->round_trips = a->tot.st.round_trips;
	o->pages = a->tot.http.responses;
	o->open = a->nopen;
	for (const struct conn *c = a->lru_head; c; c = c->lru_next) {
		if (c->kind == CONN_HTTP) {
			o->pages += c->http->responses;
		} else {
			o->rfq += c->rtt.st.rfq;
			o->round_trips += c->rtt.st.round_trips;
		}
	}
}
