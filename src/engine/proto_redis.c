/* proto_redis.c - Redis on a server port: the RESP framer's values feed
 * the Redis round-trip engine; at close, the connection's figures join the
 * totals and the listing (see proto.h, redis_rtt.h). */
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "base/hash.h"
#include "proto.h"

struct redis_state {
	struct proto_ctx cx;
	struct resp_conn resp;
	struct redis_rtt rtt;
	struct hist lat;
	uint64_t resyncs[2]; /* the framer's, when last looked at */
	/* the last command's name as sent and where it counts: a client
	 * sends the same few names over and over */
	char last_name[RESP_NAME_MAX + 1];
	struct redis_name_count *last_count;
	uint8_t leg; /* its server endpoint's index (legs.h: a relay's two legs) */
	/* whether the flight whose commands went to pages last goes there: the
	 * same for its commands and itself, decided at its first (its commands
	 * are placed as they are sent, the flight when answered) */
	uint64_t paged_serial;
	bool paged, paged_known;
};

/* Does flight rt go to pages (legs.h: not a relay's server side)?
 * Decided once a flight, at its first command, and counted there. */
static bool flight_to_pages(struct redis_state *s, const struct redis_rt *rt)
{
	if (!s->paged_known || s->paged_serial != rt->serial) {
		s->paged_known = true;
		s->paged_serial = rt->serial;
		s->paged = legs_to_pages(s->cx.a->redis_legs, s->leg);
	}
	return s->paged;
}

static void count_packet(struct analysis *a)
{
	a->tot.redis.packets++;
}

/* Commands by name: open addressing over a fixed table, so memory does not
 * follow what a hostile client names; past REDIS_NAMES_MAX names the rest
 * count under "" (JSON: "(other)"). */
static struct redis_name_count *count_name(struct analysis_redis *t, const char *raw)
{
	/* printable only, so that no output (JSON's UTF-8, a terminal) gets
	 * garbage raw */
	char name[RESP_NAME_MAX + 1];
	redis_name_printable(name, raw);
	uint32_t h = str_hash(name);
	for (uint32_t i = 0; i < REDIS_NAMES_MAX; i++) {
		struct redis_name_count *e = &t->by_command[(h + i) % REDIS_NAMES_MAX];
		if (e->n == 0) {
			if (t->nnames + 1 == REDIS_NAMES_MAX && name[0])
				return count_name(t, ""); /* the last slot is the rest's */
			memcpy(e->name, name, sizeof e->name);
			t->nnames++;
		} else if (strcmp(e->name, name) != 0) {
			continue;
		}
		e->n++;
		return e;
	}
	return NULL; /* unreachable: the rest's slot is always found */
}

static int by_count(const void *x, const void *y)
{
	const struct redis_name_count *a = *(const struct redis_name_count *const *)x,
				      *b = *(const struct redis_name_count *const *)y;
	if (a->n != b->n)
		return a->n < b->n ? 1 : -1;
	return strcmp(a->name, b->name);
}

uint32_t analysis_redis_commands(const struct analysis_redis *t, const struct redis_name_count **out,
				 uint64_t *rest)
{
	uint32_t n = 0;
	*rest = 0;
	for (uint32_t i = 0; i < REDIS_NAMES_MAX; i++) {
		const struct redis_name_count *e = &t->by_command[i];
		if (e->n == 0)
			continue;
		if (e->name[0])
			out[n++] = e;
		else
			*rest += e->n;
	}
	qsort(out, n, sizeof(*out), by_count);
	return n;
}

static void on_msg(void *ctx, const struct resp_msg *m)
{
	struct redis_state *s = ctx;
	if (m->side == RESP_CLIENT && (m->argc > 0 || m->name[0])) {
		/* a table entry is never taken back: a name counts where it did */
		if (s->last_count && !strcmp(s->last_name, m->name)) {
			s->last_count->n++;
		} else if ((s->last_count = count_name(&s->cx.a->tot.redis, m->name))) {
			memcpy(s->last_name, m->name, sizeof s->last_name);
		}
	}
	/* boundaries found again after garbage: values were lost there, as in
	 * a gap (a side's first pickup mid-stream is one too, and harmless) */
	uint64_t rs = s->resp.dir[m->side].resyncs;
	if (rs != s->resyncs[m->side]) {
		s->resyncs[m->side] = rs;
		redis_rtt_gap(&s->rtt, (enum resp_side)m->side);
	}
	const struct analysis_opts *o = &s->cx.a->opts;
	if (o->on_redis)
		o->on_redis(o->ctx, s->cx.sum, m);
	redis_rtt_msg(&s->rtt, m);
}

static void on_round_trip(void *ctx, const struct redis_rt *rt)
{
	struct redis_state *s = ctx;
	struct analysis *a = s->cx.a;
	/* matched first: a relay's copy is known by then (legs.h) */
	if (!rt->damaged && rt->replies > 0)
		legs_flight(a->redis_legs, s->leg, rt->sig, rt->t_start, rt->t_end);
	if (a->attributing && flight_to_pages(s, rt)) {
		char label[RESP_NAME_MAX + 1];
		struct rt_event e;
		redis_flight_event(rt, label, &e);
		attrib_pipe_add(&a->pipe, s->cx.sum->id, &e);
	}
	if (a->opts.on_redis_rt)
		a->opts.on_redis_rt(a->opts.ctx, s->cx.sum, rt);
}

static void on_command(void *ctx, const struct redis_rt *rt, const struct resp_msg *m)
{
	struct redis_state *s = ctx;
	if (!flight_to_pages(s, rt))
		return; /* a relay's server side: its client's commands are on pages */
	struct rt_event e;
	redis_cmd_event(rt, m, &e);
	attrib_pipe_add(&s->cx.a->pipe, s->cx.sum->id, &e);
}

static int open_conn(void *st, const struct proto_ctx *cx, bool from_start, uint64_t ts)
{
	(void)ts;
	struct redis_state *s = st;
	struct analysis *a = cx->a;
	s->cx = *cx;
	resp_conn_init(&s->resp, from_start);
	hist_init(&s->lat);
	s->leg = analysis_leg(a, a->redis_legs, cx->sum->server);
	redis_rtt_init(&s->rtt, &s->lat, a->redis_lat_class,
		       a->attributing || a->opts.on_redis_rt || legs_on(a->redis_legs)
			       ? on_round_trip
			       : NULL,
		       s);
	if (a->attributing) /* pages get each command where it was sent */
		s->rtt.on_cmd = on_command;
	a->tot.redis.connections++;
	if (a->opts.on_conn)
		a->opts.on_conn(a->opts.ctx, cx->sum);
	return 0;
}

static void data(void *st, int side, const uint8_t *p, size_t n, uint64_t ts)
{
	struct redis_state *s = st;
	if (!s->rtt.on_rt && legs_on(s->cx.a->redis_legs))
		s->rtt.on_rt = on_round_trip; /* opened before the second endpoint */
	resp_feed(&s->resp, (enum resp_side)side, p, n, ts, on_msg, s);
}

static void gap(void *st, int side, uint64_t n, uint64_t ts)
{
	(void)ts;
	struct redis_state *s = st;
	redis_rtt_gap(&s->rtt, (enum resp_side)side);
	resp_gap(&s->resp, (enum resp_side)side, n, on_msg, s);
}

static void add_stats(struct redis_stats *t, const struct redis_stats *s)
{
	t->commands += s->commands;
	t->replies += s->replies;
	t->round_trips += s->round_trips;
	for (int i = 0; i < RT_NCLASS; i++)
		t->by_class[i] += s->by_class[i];
	t->pipelined += s->pipelined;
	if (s->max_pipeline > t->max_pipeline)
		t->max_pipeline = s->max_pipeline;
	t->pushes += s->pushes;
	t->no_reply += s->no_reply;
	t->errors += s->errors;
	t->unanswered += s->unanswered;
	t->written_off += s->written_off;
}

static void close_conn(void *st, const struct reasm_dir *tcp, uint64_t ts)
{
	(void)ts;
	struct redis_state *s = st;
	struct analysis *a = s->cx.a;
	redis_rtt_finish(&s->rtt);

	struct conn_summary *m = s->cx.sum;
	m->redis = s->rtt.st;
	m->mid_stream = s->resp.mid_stream;
	m->tls = s->resp.tls ? 'D' : 0;
	m->undecodable = !m->tls && s->resp.dir[0].msgs + s->resp.dir[1].msgs == 0 &&
			 tcp[0].bytes + tcp[1].bytes > 0;
	analysis_summarize(m, tcp, &s->lat);
	for (int d = 0; d < 2; d++) {
		const struct resp_dir *p = &s->resp.dir[d];
		m->malformed += p->malformed;
		m->skipped_bytes += p->skipped_bytes;
		m->resyncs += p->resyncs;
	}
	hist_merge(&a->redis_lat, &s->lat);

	struct analysis_redis *t = &a->tot.redis;
	add_stats(&t->st, &m->redis);
	t->gaps += m->gaps;
	t->gap_bytes += m->gap_bytes;
	t->malformed += m->malformed;
	t->skipped_bytes += m->skipped_bytes;
	t->resyncs += m->resyncs;
	t->mid_stream += m->mid_stream;
	t->tls += m->tls != 0;
	if (m->evicted)
		a->tot.evicted++;
	analysis_list(a, m);
}

static bool oldest_open(void *st, uint64_t now, uint64_t not_before, uint64_t *ts)
{
	(void)now;
	struct redis_state *s = st;
	return redis_rtt_oldest_open(&s->rtt, ts) && *ts >= not_before;
}

static void live(const void *st, struct analysis_live *out)
{
	const struct redis_state *s = st;
	out->redis_round_trips += s->rtt.st.round_trips;
	out->redis_commands += s->rtt.st.commands;
}

const struct proto_ops proto_redis = {
	"redis", sizeof(struct redis_state), count_packet, NULL, open_conn, data, gap,
	close_conn, oldest_open, live,
};
