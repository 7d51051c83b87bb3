/* redis_rtt.c - Redis round trips (see redis_rtt.h).  What each command
 * awaits follows Redis's own documentation of the commands that change the
 * reply stream: CLIENT REPLY, SUBSCRIBE and its kin, MULTI, MONITOR, RESET. */
#include "redis_rtt.h"
#include "base/hash.h"

#include <string.h>

void redis_rtt_init(struct redis_rtt *r, struct hist *lat, struct hist *lat_class,
		    redis_rt_fn *on_rt, void *ctx)
{
	memset(r, 0, sizeof(*r));
	r->lat = lat;
	r->lat_class = lat_class;
	r->on_rt = on_rt;
	r->ctx = ctx;
}

static bool is(const char *a, const char *b)
{
	return strcmp(a, b) == 0;
}

/* The commands that change the reply stream or a round trip's class; every
 * other is a query awaiting one reply.  Told by the first letter, then a
 * compare against those of that letter: this runs for every command of a
 * pipelining benchmark (strcmp against each name was a fifth of the time). */
enum rcmd {
	C_OTHER, C_PING, C_MULTI, C_EXEC, C_DISCARD, C_WATCH, C_UNWATCH, C_RESET, C_QUIT,
	C_HELLO, C_AUTH, C_SELECT, C_READONLY, C_CLIENT, C_SUBSCRIBE, C_MONITOR,
};

static inline enum rcmd kind_of(const char *n)
{
	switch (n[0]) {
	case 'A': return is(n, "AUTH") ? C_AUTH : C_OTHER;
	case 'C': return is(n, "CLIENT") ? C_CLIENT : C_OTHER;
	case 'D': return is(n, "DISCARD") ? C_DISCARD : C_OTHER;
	case 'E': return is(n, "EXEC") ? C_EXEC : C_OTHER;
	case 'H': return is(n, "HELLO") ? C_HELLO : C_OTHER;
	case 'M': return is(n, "MULTI") ? C_MULTI : is(n, "MONITOR") ? C_MONITOR : C_OTHER;
	case 'P':
		return is(n, "PING") ? C_PING
		       : is(n, "PSUBSCRIBE") || is(n, "PUNSUBSCRIBE") ? C_SUBSCRIBE
								    : C_OTHER;
	case 'Q': return is(n, "QUIT") ? C_QUIT : C_OTHER;
	case 'R': return is(n, "RESET") ? C_RESET : is(n, "READONLY") ? C_READONLY : C_OTHER;
	case 'S':
		return is(n, "SELECT") ? C_SELECT
		       : is(n, "SUBSCRIBE") || is(n, "SSUBSCRIBE") || is(n, "SUNSUBSCRIBE") ? C_SUBSCRIBE
											    : C_OTHER;
	case 'U':
		return is(n, "UNWATCH") ? C_UNWATCH : is(n, "UNSUBSCRIBE") ? C_SUBSCRIBE : C_OTHER;
	case 'W': return is(n, "WATCH") ? C_WATCH : C_OTHER;
	default: return C_OTHER;
	}
}

static inline enum rt_class class_of(enum rcmd k, const char *arg0, bool first)
{
	switch (k) {
	case C_PING:
		return RT_PING;
	case C_MULTI:
	case C_EXEC:
	case C_DISCARD:
	case C_WATCH:
	case C_UNWATCH:
		return RT_TRANSACTION;
	case C_RESET:
	case C_QUIT:
		return RT_RESET;
	case C_HELLO:
	case C_AUTH:
	case C_SELECT:
	case C_READONLY:
		return first ? RT_STARTUP : RT_OTHER;
	case C_CLIENT:
		return first && (is(arg0, "SETNAME") || is(arg0, "SETINFO") || is(arg0, "TRACKING") ||
				 is(arg0, "NO-EVICT") || is(arg0, "NO-TOUCH"))
			       ? RT_STARTUP
			       : RT_OTHER;
	default:
		return RT_QUERY;
	}
}

enum rt_class redis_command_class(const char *name, const char *arg0, bool first)
{
	return class_of(kind_of(name), arg0, first);
}

void redis_name_printable(char *dst, const char *src)
{
	size_t k = 0;
	for (; src[k] && k < RESP_NAME_MAX; k++)
		dst[k] = src[k] > 0x20 && src[k] < 0x7f ? src[k] : '?';
	dst[k] = '\0';
}

bool redis_class_used(int cls)
{
	return cls == RT_QUERY || cls == RT_PING || cls == RT_RESET || cls == RT_TRANSACTION ||
	       cls == RT_STARTUP || cls == RT_OTHER || cls == RT_UNKNOWN;
}

/* The subscription commands: each channel named gets a confirmation (an
 * array in RESP2, a push in RESP3) whose first string is the command's
 * name, lower-cased (kept upper-cased, as every name). */
static bool subscribe_kin(const char *name)
{
	return name[0] && kind_of(name) == C_SUBSCRIBE;
}

static bool pubsub_message(const char *name)
{
	return (name[0] == 'M' || name[0] == 'P' || name[0] == 'S') &&
	       (is(name, "MESSAGE") || is(name, "PMESSAGE") || is(name, "SMESSAGE"));
}

static void emit(struct redis_rtt *r)
{
	struct redis_rt *c = &r->cur;
	r->open = false;
	if (c->commands > 0 && c->replies == 0) {
		r->st.unanswered++;
		return;
	}
	c->index = r->st.round_trips;
	r->st.round_trips++;
	r->st.by_class[c->cls]++;
	if (c->commands >= 2)
		r->st.pipelined++;
	if (c->commands > r->st.max_pipeline)
		r->st.max_pipeline = c->commands;
	if (c->commands > 0 && c->t_end >= c->t_start) {
		uint64_t d = c->t_end - c->t_start;
		if (r->lat)
			hist_add(r->lat, d);
		if (r->lat_class)
			hist_add(&r->lat_class[c->cls], d);
	}
	if (r->on_rt)
		r->on_rt(r->ctx, c);
}

/* Replies a command awaits, and what it changes of the reply stream. */
static uint64_t awaits(struct redis_rtt *r, const struct resp_msg *m, enum rcmd k,
		       uint64_t *confirms)
{
	const char *a0 = m->arg[0], *a1 = m->arg[1];
	*confirms = 0;
	bool client_reply = k == C_CLIENT && is(a0, "REPLY");
	if (r->reply_off) {
		if (client_reply && is(a1, "ON")) {
			r->reply_off = false;
			return 1;
		}
		return 0;
	}
	if (client_reply && (is(a1, "OFF") || is(a1, "SKIP"))) {
		r->reply_off = is(a1, "OFF");
		r->skip = is(a1, "SKIP") ? 1 : 0;
		return 0;
	}
	if (r->skip) {
		r->skip--;
		return 0;
	}
	if (k == C_RESET) {
		r->subscribed = r->monitor = r->in_multi = false;
		return 1;
	}
	if (r->in_multi) { /* queued: +QUEUED, or the transaction's end */
		if (k == C_EXEC || k == C_DISCARD)
			r->in_multi = false;
		return 1;
	}
	if (k == C_MULTI) {
		r->in_multi = true;
		return 1;
	}
	if (k == C_SUBSCRIBE) {
		r->subscribed = true;
		*confirms = m->argc > 1 ? m->argc - 1 : 1; /* no channel: all, at least one */
		return *confirms;
	}
	if (k == C_MONITOR)
		r->monitor = true;
	return 1;
}

/* h with command m in: its name, words and bytes on the wire */
static uint64_t fold_command(uint64_t h, const struct resp_msg *m)
{
	h = (h ^ str_hash(m->name)) * 0x9e3779b97f4a7c15ull;
	h = (h ^ m->argc) * 0xc4ceb9fe1a85ec53ull;
	h = (h ^ m->bytes) * 0x9e3779b97f4a7c15ull;
	return (h ^ h >> 29) | 1;
}

static void command(struct redis_rtt *r, const struct resp_msg *m)
{
	if (m->argc == 0 && m->name[0] == '\0')
		return; /* an empty inline line: Redis skips it */
	r->st.commands++;
	uint64_t confirms;
	enum rcmd k = kind_of(m->name);
	uint64_t want = awaits(r, m, k, &confirms);
	enum rt_class cls = class_of(k, m->arg[0], !r->began);
	if (cls != RT_STARTUP)
		r->began = true;
	if (want == 0)
		r->st.no_reply++;
	struct redis_rt *c = &r->cur;
	bool answered = r->doubt && r->open && c->commands > 0 && r->last_reply_ts >= r->last_cmd_ts;
	if (r->open && (c->commands == 0 || r->server_gap || r->awaited == 0 || answered)) {
		if (answered) {
			c->damaged = true;
			r->awaited = r->confirms = 0;
		}
		emit(r); /* an unknown run, or a flight the gap left */
	}
	r->last_cmd_ts = m->ts_first;
	if (!r->open) {
		if (want == 0)
			return; /* nothing awaited: the client does not wait */
		memset(c, 0, sizeof(*c));
		c->serial = r->opened++;
		r->open = true;
		r->server_gap = false;
		c->t_start = m->ts_first;
		c->cls = (uint8_t)cls;
		memcpy(c->first, m->name, sizeof c->first);
	} else if (cls == RT_QUERY) {
		c->cls = RT_QUERY; /* a flight with work in it is a query */
	}
	c->commands++;
	c->sig = fold_command(c->sig, m);
	c->damaged |= m->gap;
	r->awaited += want;
	r->confirms += confirms;
	if (r->on_cmd)
		r->on_cmd(r->ctx, c, m);
}

static void reply(struct redis_rtt *r, const struct resp_msg *m)
{
	bool confirm = subscribe_kin(m->name);
	if (confirm && r->confirms == 0 && r->subscribed) {
		r->st.pushes++; /* an unsubscription's further confirmations */
		return;
	}
	/* a message array when nothing is awaited: a subscription made before
	 * the capture, not a reply (one would be an unknown one anyway) */
	bool message = pubsub_message(m->name) && (r->subscribed || r->awaited == 0);
	if (!confirm && (m->push || message || (r->monitor && r->awaited == 0))) {
		r->st.pushes++;
		return;
	}
	r->st.replies++;
	r->st.errors += m->error;
	r->last_reply_ts = m->ts_last;
	struct redis_rt *c = &r->cur;
	if (!r->open || (c->commands > 0 && r->awaited == 0 && !r->server_gap)) {
		if (r->open)
			emit(r);
		memset(c, 0, sizeof(*c)); /* a reply nothing awaited: unknown */
		c->serial = r->opened++;
		r->open = true;
		c->cls = RT_UNKNOWN;
		c->t_start = m->ts_first;
	}
	c->replies++;
	c->errors += m->error;
	c->damaged |= m->gap;
	c->t_end = m->ts_last;
	if (c->commands == 0 || r->server_gap)
		return; /* an unknown run, or after lost replies: until the next command */
	if (confirm && r->confirms > 0) {
		r->confirms--;
		r->awaited--;
	} else if (m->error && r->confirms > 0 && r->confirms == r->awaited) {
		r->awaited = r->confirms = 0; /* a subscription refused: one error */
	} else {
		r->awaited--;
		if (r->confirms > r->awaited)
			r->confirms = r->awaited;
	}
	if (r->awaited == 0) {
		r->doubt = false; /* answered in full: the count is in step again */
		emit(r);
	}
}

void redis_rtt_msg(struct redis_rtt *r, const struct resp_msg *m)
{
	if (m->side == RESP_CLIENT)
		command(r, m);
	else
		reply(r, m);
}

void redis_rtt_gap(struct redis_rtt *r, enum resp_side side)
{
	r->doubt = true;
	if (!r->open)
		return;
	r->cur.damaged = true;
	if (side == RESP_SERVER && r->cur.commands > 0) {
		r->st.written_off += r->awaited;
		r->awaited = r->confirms = 0;
		r->server_gap = true;
	}
}

void redis_rtt_finish(struct redis_rtt *r)
{
	if (!r->open)
		return;
	if (r->awaited > 0)
		r->cur.damaged = true;
	emit(r);
}

bool redis_rtt_oldest_open(const struct redis_rtt *r, uint64_t *ts)
{
	if (!r->open || r->cur.commands == 0)
		return false;
	*ts = r->cur.t_start;
	return true;
}

void redis_cmd_event(const struct redis_rt *rt, const struct resp_msg *m, struct rt_event *e)
{
	*e = (struct rt_event){
		.kind = RT_EVENT_COMMAND,
		.has_start = true,
		.t_start = m->ts_first,
		.t_end = m->ts_first,
		.key = rt_event_name_key(m->name),
		.flight = rt->serial,
		.count = rt->commands,
	};
}

void redis_flight_event(const struct redis_rt *rt, struct rt_event *e)
{
	*e = (struct rt_event){
		.kind = RT_EVENT_FLIGHT,
		.cls = rt->cls,
		.has_start = true,
		.has_end = true,
		.t_start = rt->t_start,
		.t_end = rt->t_end,
		.flight = rt->serial,
		.count = rt->commands,
		.label = rt->first,
	};
}
