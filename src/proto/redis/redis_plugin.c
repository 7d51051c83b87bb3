/* redis_plugin.c - Redis on a server port: the RESP framer's values feed
 * the Redis round-trip engine; at close, the connection's figures join the
 * totals and the engine's record of it (see proto.h, redis_rtt.h). */
#include <stddef.h>
#include <string.h>

#include "net/tcp_reasm.h"
#include "proto/conn_summary.h"
#include "proto/proto.h"
#include "redis_dump.h"
#include "redis_text.h"
#include "redis_totals.h"

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

static struct redis_totals *totals(const struct redis_state *s)
{
	return s->cx.shared;
}

/* Does flight rt go to pages (legs.h: not a relay's server side)?
 * Decided once a flight, at its first command, and counted there. */
static bool flight_to_pages(struct redis_state *s, const struct redis_rt *rt)
{
	if (!s->paged_known || s->paged_serial != rt->serial) {
		s->paged_known = true;
		s->paged_serial = rt->serial;
		s->paged = legs_to_pages(&totals(s)->legs, s->leg);
	}
	return s->paged;
}

static void count_packet(void *shared)
{
	struct redis_totals *t = shared;
	t->tot.packets++;
}

static void on_msg(void *ctx, const struct resp_msg *m)
{
	struct redis_state *s = ctx;
	if (m->side == RESP_CLIENT && (m->argc > 0 || m->name[0])) {
		/* a table entry is never taken back: a name counts where it did */
		if (s->last_count && !strcmp(s->last_name, m->name)) {
			s->last_count->n++;
		} else if ((s->last_count = redis_totals_count_name(s->cx.shared, m->name))) {
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
	const struct redis_observers *o = &totals(s)->observe;
	if (o->on_value)
		o->on_value(o->ctx, s->cx.sum, m);
	redis_rtt_msg(&s->rtt, m);
}

static void on_round_trip(void *ctx, const struct redis_rt *rt)
{
	struct redis_state *s = ctx;
	const struct proto_host *h = s->cx.host;
	/* matched first: a relay's copy is known by then (legs.h) */
	if (!rt->damaged && rt->replies > 0)
		legs_flight(&totals(s)->legs, s->leg, rt->sig, rt->t_start, rt->t_end);
	if (h->attributing && flight_to_pages(s, rt)) {
		struct rt_event e;
		redis_flight_event(rt, &e);
		h->round_trip(h->ctx, s->cx.id, &e);
	}
	const struct redis_observers *o = &totals(s)->observe;
	if (o->on_flight)
		o->on_flight(o->ctx, s->cx.sum, rt);
}

static void on_command(void *ctx, const struct redis_rt *rt, const struct resp_msg *m)
{
	struct redis_state *s = ctx;
	if (!flight_to_pages(s, rt))
		return; /* a relay's server side: its client's commands are on pages */
	struct rt_event e;
	redis_cmd_event(rt, m, &e);
	s->cx.host->round_trip(s->cx.host->ctx, s->cx.id, &e);
}

static int open_conn(void *st, const struct proto_ctx *cx, bool from_start, uint64_t ts)
{
	(void)ts;
	struct redis_state *s = st;
	const struct proto_host *h = cx->host;
	s->cx = *cx;
	resp_conn_init(&s->resp, from_start);
	hist_init(&s->lat);
	struct redis_totals *t = cx->shared;
	s->leg = h->leg(h->ctx, &t->legs, cx->server);
	redis_rtt_init(&s->rtt, &s->lat, t->tot.lat_class,
		       h->attributing || t->observe.on_flight || legs_on(&t->legs) ? on_round_trip
										  : NULL,
		       s);
	if (h->attributing) /* pages get each command where it was sent */
		s->rtt.on_cmd = on_command;
	t->tot.connections++;
	h->opened(h->ctx, cx->sum);
	return 0;
}

static void data(void *st, int side, const uint8_t *p, size_t n, uint64_t ts)
{
	struct redis_state *s = st;
	if (!s->rtt.on_rt && legs_on(&totals(s)->legs))
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

static void close_conn(void *st, const struct reasm_dir *tcp, uint64_t ts)
{
	(void)ts;
	struct redis_state *s = st;
	redis_rtt_finish(&s->rtt);
	struct proto_closing c = {
		.lat = &s->lat,
		.figures = &s->rtt.st,
		.figures_size = sizeof s->rtt.st,
		.mid_stream = s->resp.mid_stream,
		.tls = s->resp.tls ? 'D' : 0,
	};
	c.undecodable = !c.tls && s->resp.dir[0].msgs + s->resp.dir[1].msgs == 0 &&
			tcp[0].bytes + tcp[1].bytes > 0;
	for (int d = 0; d < 2; d++) {
		const struct resp_dir *p = &s->resp.dir[d];
		c.malformed += p->malformed;
		c.skipped_bytes += p->skipped_bytes;
		c.resyncs += p->resyncs;
	}
	struct redis_totals *t = totals(s);
	hist_merge(&t->tot.lat, &s->lat);
	redis_stats_add(&t->st, &s->rtt.st);
	t->tot.gaps += tcp[0].gaps + tcp[1].gaps;
	t->tot.gap_bytes += tcp[0].gap_bytes + tcp[1].gap_bytes;
	t->tot.malformed += c.malformed;
	t->tot.skipped_bytes += c.skipped_bytes;
	t->tot.resyncs += c.resyncs;
	t->tot.mid_stream += c.mid_stream;
	t->tot.tls += c.tls != 0;
	s->cx.host->closed(s->cx.host->ctx, s->cx.sum, tcp, &c);
}

static bool oldest_open(void *st, uint64_t now, uint64_t not_before, uint64_t *ts)
{
	(void)now;
	struct redis_state *s = st;
	return redis_rtt_oldest_open(&s->rtt, ts) && *ts >= not_before;
}

static void live(const void *st, void *part)
{
	const struct redis_state *s = st;
	redis_stats_add(part, &s->rtt.st);
}

static int shared_init(void *shared, const void *opts)
{
	redis_totals_init(shared, opts);
	return 0;
}

static void shared_free(void *shared)
{
	redis_totals_free(shared);
}

static void live_shared(const void *shared, void *out)
{
	redis_stats_add(out, &((const struct redis_totals *)shared)->st);
}

static bool measured(const void *shared)
{
	return ((const struct redis_totals *)shared)->st.round_trips > 0;
}

/* What pages wait on of Redis (attrib.h's counts of commands). */
static const struct page_figure page_figs[] = {
	{"redis_round_trips_per_page", "Redis round trips / page", "redis rt/page", PAGE_CMD_RTS,
	 "redis_round_trips_interval95", true, "max-redis-rt-per-page", "redis-round-trips-per-page",
	 "Redis round trips"},
	{"redis_flights_per_page", NULL, "redis flights/pg", PAGE_CMD_FLIGHTS, NULL, false, NULL,
	 NULL, NULL},
	{"redis_commands_per_page", "Redis commands / page", "redis cmds/page", PAGE_CMDS,
	 "redis_commands_interval95", true, "max-redis-cmds-per-page", "redis-commands-per-page",
	 "Redis commands"},
};

_Static_assert(sizeof(struct redis_stats) <= CONN_FIGURES_MAX, "a record holds them");
_Static_assert(sizeof(struct redis_stats) <= PROTO_LIVE_MAX, "the running figures too");
_Static_assert(sizeof(struct redis_observers) <= PROTO_OPTS_MAX, "and its options");

#define AT(field) offsetof(struct redis_stats, field)
/* A connection's figures and their totals' (struct redis_stats). */
static const struct conn_figure conn_figs[] = {
	{"commands", AT(commands), CONN_SUM_ADD, false, "commands", NULL, "commands",
	 "Redis commands."},
	{"replies", AT(replies), CONN_SUM_ADD, false, NULL, NULL, NULL, NULL},
	{"round_trips", AT(round_trips), CONN_SUM_ADD, false, "round_trips", "Redis round trips",
	 "round_trips", "Redis round trips (a pipeline is one)."},
	{"by_class", AT(by_class), CONN_SUM_ADD, true, NULL, NULL, NULL, NULL},
	{"pipelined_round_trips", AT(pipelined), CONN_SUM_ADD, false, "pipelined_round_trips", NULL,
	 NULL, NULL},
	{"largest_pipeline", AT(max_pipeline), CONN_SUM_MAX, false, NULL, NULL, NULL, NULL},
	{"pushes", AT(pushes), CONN_SUM_ADD, false, NULL, NULL, NULL, NULL},
	{"commands_without_reply", AT(no_reply), CONN_SUM_ADD, false, NULL, NULL, NULL, NULL},
	{"errors", AT(errors), CONN_SUM_ADD, false, NULL, NULL, NULL, NULL},
	{"unanswered", AT(unanswered), CONN_SUM_ADD, false, NULL, NULL, NULL, NULL},
	{"replies_written_off", AT(written_off), CONN_SUM_ADD, false, NULL, NULL, NULL, NULL},
};

static const struct proto_totals *totals_of(const void *shared)
{
	return &((const struct redis_totals *)shared)->tot;
}

static const void *figures_sum(const void *shared)
{
	return &((const struct redis_totals *)shared)->st;
}

static uint32_t by_name(const void *shared, struct name_count *out, uint32_t cap, uint64_t *rest)
{
	const struct redis_name_count *names[REDIS_NAMES_MAX];
	uint32_t n = redis_totals_commands(shared, names, rest);
	for (uint32_t i = 0; i < n; i++) {
		if (i < cap)
			out[i] = (struct name_count){names[i]->name, names[i]->n};
		else
			*rest += names[i]->n;
	}
	return n < cap ? n : cap;
}

static const struct legs *legs_of(const void *shared)
{
	return &((const struct redis_totals *)shared)->legs;
}

const struct proto_ops proto_redis = {
	.id = PROTO_REDIS,
	.name = "redis",
	.title = "Redis",
	.port_option = "--redis-port",
	.port_help = "a Redis server port: its commands and round trips are counted, in the pages "
		     "too; dump prints each command (its name, never its keys or values), reply "
		     "and push",
	.page_figs = page_figs,
	.npage_figs = sizeof page_figs / sizeof page_figs[0],
	.conn_figs = conn_figs,
	.nconn_figs = sizeof conn_figs / sizeof conn_figs[0],
	.class_used = redis_class_used,
	.totals = totals_of,
	.figures_sum = figures_sum,
	.by_name = by_name,
	.by_name_noun = "command",
	.text_totals = redis_text_totals,
	.text_connection = redis_text_connection,
	.code_absent = "no-redis",
	.code_damage = "redis-damage",
	.code_only = "redis-only",
	.code_legs = "redis-legs",
	.legs = legs_of,
	.dump = redis_dump,
	.state_size = sizeof(struct redis_state),
	.shared_size = sizeof(struct redis_totals),
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
	.measured = measured,
};
