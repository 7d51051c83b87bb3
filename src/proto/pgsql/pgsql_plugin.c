/* pgsql_plugin.c - PostgreSQL on a server port: the framer's messages
 * feed the round-trip engine; at close, the connection's figures join the
 * totals and the engine's record of it (see proto.h, rtt.h). */
#include <stdlib.h>

#include "net/tcp_reasm.h"
#include "pgsql.h"
#include "pgsql_shared.h"
#include "proto/proto.h"
#include "tls/tls_stream.h"

struct pgsql_state {
	struct proto_ctx cx;
	uint8_t leg; /* its server endpoint's index (legs.h) */
	struct pgsql_conn pg;
	struct rtt rtt;
	struct hist lat;
	/* its TLS, read with the key logs' secrets (made when it starts, with
	 * a key log), and the time of the bytes being read */
	struct tls_stream *tls;
	uint64_t ts;
};

static struct pgsql_shared *shared(const struct pgsql_state *s)
{
	return s->cx.shared;
}

static void count_packet(void *shared)
{
	((struct pgsql_shared *)shared)->tot.packets++;
}

static void on_msg(void *ctx, const struct pgsql_msg *m)
{
	struct pgsql_state *s = ctx;
	rtt_msg(&s->rtt, m);
	const struct pgsql_observers *o = &shared(s)->observe;
	if (o->on_msg)
		o->on_msg(o->ctx, s->cx.sum, m);
}

static void on_round_trip(void *ctx, const struct rt *rt)
{
	struct pgsql_state *s = ctx;
	const struct proto_host *h = s->cx.host;
	/* matched first: a pooler's copy is known by then (legs.h) */
	rtt_legs(&shared(s)->legs, s->leg, rt);
	if (h->attributing && rt->nparts <= 1 && /* else its parts went, each on its own */
	    legs_to_pages(&shared(s)->legs, s->leg)) {
		struct rt_event e;
		rtt_event(rt, &e);
		h->round_trip(h->ctx, s->cx.id, &e);
	}
	const struct pgsql_observers *o = &shared(s)->observe;
	if (o->on_rt)
		o->on_rt(o->ctx, s->cx.sum, rt);
}

/* A part of a flight that has several (rtt.h): pages waited for it alone */
static void on_part(void *ctx, const struct rt *rt)
{
	struct pgsql_state *s = ctx;
	if (legs_to_pages(&shared(s)->legs, s->leg)) {
		struct rt_event e;
		rtt_event(rt, &e);
		s->cx.host->round_trip(s->cx.host->ctx, s->cx.id, &e);
	}
}

/* Round trips are matched between legs by their statements: from the
 * second server endpoint on (legs_on), the connections opened before it
 * too. */
static void follow_legs(struct pgsql_state *s)
{
	s->rtt.fingerprints = true;
	s->rtt.on_rt = on_round_trip;
}

static int open_conn(void *st, const struct proto_ctx *cx, bool from_start, uint64_t ts)
{
	(void)ts;
	struct pgsql_state *s = st;
	const struct proto_host *h = cx->host;
	s->cx = *cx;
	pgsql_conn_init(&s->pg, from_start);
	hist_init(&s->lat);
	struct pgsql_shared *sh = cx->shared;
	s->leg = h->leg(h->ctx, &sh->legs, cx->server);
	rtt_init(&s->rtt, &s->lat, sh->lat_class,
		 sh->observe.on_rt || h->attributing ? on_round_trip : NULL, s);
	s->rtt.on_part = h->attributing ? on_part : NULL;
	s->rtt.policy = &sh->ping_ev;
	s->rtt.shared = sh->texts;
	s->rtt.fingerprints = h->attributing;
	if (legs_on(&sh->legs))
		follow_legs(s);
	s->rtt.ring = sh->observe.texts;
	s->rtt.text_values = sh->observe.text_values;
	s->rtt.conn_id = cx->id;
	sh->tot.connections++;
	h->opened(h->ctx, cx->sum);
	return 0;
}

/* The plaintext of its TLS: to the framer, as a plain connection's bytes. */
static void on_plain(void *ctx, int side, const uint8_t *p, size_t n, uint64_t lost)
{
	struct pgsql_state *s = ctx;
	if (!p) {
		rtt_gap(&s->rtt, (enum pgsql_side)side);
		pgsql_gap(&s->pg, (enum pgsql_side)side, lost, s->ts, on_msg, s);
		return;
	}
	pgsql_feed(&s->pg, (enum pgsql_side)side, p, n, s->ts, on_msg, s);
}

/* Its TLS began (after SSLRequest and 'S', or a direct ClientHello): read
 * with the key logs' secrets where there are any. */
static void tls_begins(struct pgsql_state *s, int side, const uint8_t *p, size_t n)
{
	const struct proto_host *h = s->cx.host;
	if (!h->tls_keys || (s->pg.tls != 'S' && s->pg.tls != 'D'))
		return;
	if (!(s->tls = malloc(sizeof(*s->tls)))) {
		h->lost(h->ctx);
		return;
	}
	tls_stream_init(s->tls, h->tls_keys);
	pgsql_decrypted(&s->pg);
	if (s->pg.tls == 'D' && side == PGSQL_FE) /* this piece is the ClientHello */
		tls_stream_data(s->tls, side, p, n, on_plain, s);
}

static void data(void *st, int side, const uint8_t *p, size_t n, uint64_t ts)
{
	struct pgsql_state *s = st;
	if (!s->rtt.fingerprints && legs_on(&shared(s)->legs))
		follow_legs(s); /* opened before the second endpoint */
	s->ts = ts;
	if (s->tls) {
		tls_stream_data(s->tls, side, p, n, on_plain, s);
		return;
	}
	uint8_t was = s->pg.tls;
	pgsql_feed(&s->pg, (enum pgsql_side)side, p, n, ts, on_msg, s);
	if (!was && s->pg.tls)
		tls_begins(s, side, p, n);
}

static void gap(void *st, int side, uint64_t n, uint64_t ts)
{
	struct pgsql_state *s = st;
	s->ts = ts;
	if (s->tls) {
		tls_stream_gap(s->tls, side, n, on_plain, s);
		return;
	}
	rtt_gap(&s->rtt, (enum pgsql_side)side);
	pgsql_gap(&s->pg, (enum pgsql_side)side, n, ts, on_msg, s);
}

static void add_stats(struct rtt_stats *t, const struct rtt_stats *s)
{
	t->rfq += s->rfq;
	t->round_trips += s->round_trips;
	for (int i = 0; i < RT_NCLASS; i++)
		t->by_class[i] += s->by_class[i];
	for (int i = 0; i < PING_NROLE; i++) {
		t->pings[i] += s->pings[i];
		t->pings_amb[i] += s->pings_amb[i];
		t->pings_amb_timing[i] += s->pings_amb_timing[i];
	}
	t->pings_policy += s->pings_policy;
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

static void close_conn(void *st, const struct reasm_dir *tcp, uint64_t ts)
{
	(void)ts;
	struct pgsql_state *s = st;
	rtt_finish(&s->rtt);
	struct proto_closing c = {
		.lat = &s->lat,
		.figures = &s->rtt.st,
		.figures_size = sizeof s->rtt.st,
		.mid_stream = s->pg.mid_stream,
		.tls = s->pg.tls,
		/* read whole: a record that did not authenticate leaves its
		 * direction unread, so the connection stays in the encrypted
		 * finding (its counts lower bounds), never a quiet undercount */
		.tls_decrypted = s->tls && s->tls->opened > 0 && s->tls->failed == 0,
		.enc_extra_bytes = s->pg.enc_extra_bytes,
	};
	if (s->tls) {
		tls_stream_clear(s->tls);
		free(s->tls);
		s->tls = NULL;
	}
	c.undecodable = !c.tls && s->pg.dir[0].msgs + s->pg.dir[1].msgs == 0 &&
			tcp[0].bytes + tcp[1].bytes > 0;
	for (int d = 0; d < 2; d++) {
		const struct pgsql_dir *p = &s->pg.dir[d];
		c.malformed += p->malformed;
		c.skipped_bytes += p->skipped_bytes;
		c.resyncs += p->resyncs; /* includes a mid-stream pickup's first */
	}
	hist_merge(&shared(s)->lat, &s->lat);

	struct pgsql_totals *t = &shared(s)->tot;
	add_stats(&t->st, &s->rtt.st);
	for (int d = 0; d < 2; d++) {
		t->gaps += tcp[d].gaps;
		t->gap_bytes += tcp[d].gap_bytes;
		t->retrans_bytes += tcp[d].retrans_bytes;
		t->ooo_segs += tcp[d].ooo_total;
		t->truncated_segs += tcp[d].truncated_segs;
	}
	t->malformed += c.malformed;
	t->skipped_bytes += c.skipped_bytes;
	t->resyncs += c.resyncs;
	t->enc_extra_bytes += c.enc_extra_bytes;
	t->mid_stream += c.mid_stream;
	t->tls += c.tls != 0 && !c.tls_decrypted; /* not measured: the encrypted finding */
	t->tls_mid_stream += c.tls != 0 && !c.tls_decrypted && c.mid_stream;
	t->tls_decrypted += c.tls_decrypted;
	t->undecodable += c.undecodable;
	pooler_signs_add(&t->pooler, &s->rtt.st, s->cx.port);
	s->cx.host->closed(s->cx.host->ctx, s->cx.sum, tcp, &c);
}

static bool oldest_open(void *st, uint64_t now, uint64_t not_before, uint64_t *ts)
{
	struct pgsql_state *s = st;
	rtt_tick(&s->rtt, now); /* pings that waited long enough get their role */
	return rtt_oldest_open(&s->rtt, not_before, ts);
}

static void live(const void *st, void *part)
{
	const struct pgsql_state *s = st;
	struct pgsql_live *out = part;
	out->rfq += s->rtt.st.rfq;
	out->round_trips += s->rtt.st.round_trips;
	out->pings += s->rtt.st.by_class[RT_PING];
	for (int c = 0; c < RT_NCLASS; c++)
		out->by_class[c] += s->rtt.st.by_class[c];
	for (int r = 0; r < PING_NROLE; r++)
		out->ping_roles[r] += s->rtt.st.pings[r];
	pooler_signs_add(&out->pooler, &s->rtt.st, s->cx.port);
	if (out->lat)
		hist_merge(out->lat, &s->lat);
}

static int guess_side(const uint8_t *p, size_t n)
{
	return pgsql_guess_side(p, n);
}

static int shared_init(void *shared, const void *opts)
{
	return pgsql_shared_init(shared, opts);
}

static void shared_free(void *shared)
{
	pgsql_shared_free(shared);
}

static void live_shared(const void *shared, void *part)
{
	const struct pgsql_totals *t = &((const struct pgsql_shared *)shared)->tot;
	struct pgsql_live *out = part;
	out->rfq += t->st.rfq;
	out->round_trips += t->st.round_trips;
	for (int c = 0; c < RT_NCLASS; c++)
		out->by_class[c] += t->st.by_class[c];
	for (int r = 0; r < PING_NROLE; r++)
		out->ping_roles[r] += t->st.pings[r];
	out->pings += t->st.by_class[RT_PING];
	out->pooler = t->pooler; /* the open connections' are added after */
}

const struct proto_ops proto_pgsql = {
	.id = PROTO_PGSQL,
	.name = "postgresql",
	.title = "PostgreSQL",
	.state_size = sizeof(struct pgsql_state),
	.shared_size = sizeof(struct pgsql_shared),
	.shared_init = shared_init,
	.shared_free = shared_free,
	.count_packet = count_packet,
	.guess_side = guess_side,
	.open = open_conn,
	.data = data,
	.gap = gap,
	.close = close_conn,
	.oldest_open = oldest_open,
	.live = live,
	.live_shared = live_shared,
};
