/* rtt.c - round trips from PostgreSQL messages: flights, ReadyForQuery
 * counting, classification and acquire/release attribution of pings.
 *
 * Classification follows docs/pools.md (what drivers and pools put on the
 * wire); the rules, in order, are listed in classify().
 */
#include "rtt.h"
#include "rtt_impl.h"

#include "sqlnorm.h"
#include "base/textring.h"

#include <stdio.h>
#include <string.h>

#include "rd.h"
#include "sqlclass.h"


/* ----------------------------------------------------------------------
 * Names and message slots
 * ---------------------------------------------------------------------- */

bool rtt_oldest_open(const struct rtt *r, uint64_t not_before, uint64_t *ts)
{
	bool any = false;
	uint64_t t;
	if (r->npend && (t = r->pend[0].t_start) >= not_before) {
		*ts = t;
		any = true;
	}
	/* a flight of parts: its oldest part not given out yet */
	uint64_t open_t = r->part_reals >= 2 ? r->parts[r->part_out % RT_PARTS].t_start : r->cur.t_start;
	if (r->open && r->cur.has_start && (t = open_t) >= not_before && (!any || t < *ts)) {
		*ts = t;
		any = true;
	}
	return any;
}

const char *rt_ping_sig_name(int sig)
{
	static const char *names[] = {"none", "lone_sync", "empty_query", "select1"};
	return sig >= 0 && sig < 4 ? names[sig] : "?";
}

/* Message-count slots: the startup-phase pseudo types, then each table of
 * pgsql_msgs.h in its order (the order of JSON's "frontend"/"backend"). */
enum {
	FE_SLOT_STARTUP, FE_SLOT_SSL, FE_SLOT_GSS, FE_SLOT_CANCEL,
#define X(ch, id, nm, mx, ex) FE_SLOT_##id,
	PGSQL_FE_MSGS(X)
#undef X
	FE_NSLOTS
};
enum {
	BE_SLOT_ENC_ANSWER,
#define X(ch, id, nm, mx, ex) BE_SLOT_##id,
	PGSQL_BE_MSGS(X)
#undef X
	BE_NSLOTS
};
_Static_assert(FE_NSLOTS <= RTT_MSG_SLOTS && BE_NSLOTS <= RTT_MSG_SLOTS, "RTT_MSG_SLOTS too small");

/* type byte -> slot + 1 (0: no slot) */
static const int8_t slot_of[2][256] = {
	[PGSQL_FE] = {
		[PGSQL_STARTUP] = 1 + FE_SLOT_STARTUP,
		[PGSQL_SSL_REQUEST] = 1 + FE_SLOT_SSL,
		[PGSQL_GSS_REQUEST] = 1 + FE_SLOT_GSS,
		[PGSQL_CANCEL] = 1 + FE_SLOT_CANCEL,
#define X(ch, id, nm, mx, ex) [(uint8_t)(ch)] = 1 + FE_SLOT_##id,
		PGSQL_FE_MSGS(X)
#undef X
	},
	[PGSQL_BE] = {
		[PGSQL_ENC_ANSWER] = 1 + BE_SLOT_ENC_ANSWER,
#define X(ch, id, nm, mx, ex) [(uint8_t)(ch)] = 1 + BE_SLOT_##id,
		PGSQL_BE_MSGS(X)
#undef X
	},
};

/* slot -> type byte */
#define X(ch, id, nm, mx, ex) (uint8_t)(ch),
static const uint8_t fe_slot_type[FE_NSLOTS] = {PGSQL_STARTUP, PGSQL_SSL_REQUEST,
						PGSQL_GSS_REQUEST, PGSQL_CANCEL, PGSQL_FE_MSGS(X)};
static const uint8_t be_slot_type[BE_NSLOTS] = {PGSQL_ENC_ANSWER, PGSQL_BE_MSGS(X)};
#undef X

int rtt_msg_slot(enum pgsql_side side, uint8_t type)
{
	return slot_of[side][type] - 1;
}

uint8_t rtt_slot_type(enum pgsql_side side, int slot)
{
	if (side == PGSQL_FE)
		return slot >= 0 && slot < FE_NSLOTS ? fe_slot_type[slot] : 0;
	return slot >= 0 && slot < BE_NSLOTS ? be_slot_type[slot] : 0;
}

/* ----------------------------------------------------------------------
 * Round trips
 * ---------------------------------------------------------------------- */

void rtt_init(struct rtt *r, struct hist *lat, struct hist *lat_class, rtt_fn *on_rt, void *ctx)
{
	memset(r, 0, sizeof(*r));
	r->lat = lat;
	r->lat_class = lat_class;
	r->on_rt = on_rt;
	r->ctx = ctx;
	r->st.last_status = '?';
	r->unnamed_kind = SQL_OTHER;
}

static inline void letters_add(char *flight, char letter)
{
	size_t n = strlen(flight);
	if (n < RT_FLIGHT_MAX) {
		flight[n] = letter;
		flight[n + 1] = '\0';
	} else if (n == RT_FLIGHT_MAX) {
		flight[n] = '+';
		flight[n + 1] = '\0';
	}
}

static struct rt_part *part_cur(struct rtt *r)
{
	return &r->parts[(r->cur.nparts - 1) % RT_PARTS];
}

/* The part the server answers now: the oldest not answered, or the last */
static inline struct rt_part *part_answering(struct rtt *r)
{
	uint32_t i = r->part_done < r->cur.nparts ? r->part_done : r->cur.nparts - 1;
	return &r->parts[i % RT_PARTS];
}

/* A part after the first: a flight's first part is the flight itself until
 * a second begins (parts_begin), so that a flight of one part - nearly every
 * one - costs nothing more per message. */
static void part_open(struct rtt *r, uint64_t ts)
{
	struct rt_part *g = &r->parts[r->cur.nparts++ % RT_PARTS];
	memset(g, 0, sizeof(*g));
	g->t_start = ts;
	g->kind = 0xff;
}

static bool part_real(const struct rt_part *g);

/* A second part begins: the first, so far the flight's own figures, becomes
 * parts[0] */
static void parts_begin(struct rtt *r)
{
	const struct rt *c = &r->cur;
	struct rt_part *g = &r->parts[0];
	memset(g, 0, sizeof(*g));
	g->t_start = c->t_start;
	g->t_end = r->last_be_ts;
	g->sig = c->sig;
	g->text = c->text;
	g->syncs = c->sync_points;
	g->rfq = c->rfq;
	g->rows = c->rows;
	g->stmts = c->stmts;
	g->runs = r->f_exec + r->f_query;
	g->kind = r->first_kind;
	g->close = r->f_close > 0;
	memcpy(g->flight, c->flight, sizeof g->flight);
	r->part_reals = part_real(g);
	r->part_done = g->syncs && g->rfq >= g->syncs; /* answered: what comes is the next's */
}

/* A sync point sent: a message after it starts a part */
static inline void part_sync(struct rtt *r)
{
	if (!r->on_part)
		return; /* parts are for the pages: followed only for them */
	if (r->cur.nparts > 1)
		part_cur(r)->syncs++;
	r->part_cut = true;
}

/* A part that runs or prepares a statement, not a pool's test: one a page
 * waits for.  Others (a Close, an empty query, SELECT 1, a lone Sync) join
 * the next part, and a flight is given out in parts only when it has two
 * of these: r2d2's Close sent with the next checkout's empty-query test
 * stays one round trip, as before. */
static bool part_real(const struct rt_part *g)
{
	return g->sig && g->kind != SQL_EMPTY && g->kind != SQL_SELECT1;
}

static inline void part_stmt(struct rtt *r, uint64_t sig, uint64_t text, uint8_t kind, bool runs)
{
	if (!r->on_part)
		return;
	if (r->cur.nparts == 1) { /* the flight's own figures say the rest */
		if (sig && r->first_kind == 0xff)
			r->first_kind = kind;
		return;
	}
	struct rt_part *g = part_cur(r);
	if (!g->sig && sig) {
		g->sig = sig;
		g->kind = kind;
		r->part_reals += part_real(g);
	}
	if (!g->text)
		g->text = text;
	g->stmts += runs && r->ring;
	g->runs += runs;
}

/* Part i of the flight, as a round trip of its own, to on_part; or, not
 * a real one and a later part there, joined to that. */
static void part_emit(struct rtt *r, uint32_t i)
{
	const struct rt_part *g = &r->parts[i % RT_PARTS];
	if (!part_real(g) && i + 1 < r->cur.nparts) {
		struct rt_part *next = &r->parts[(i + 1) % RT_PARTS];
		next->t_start = g->t_start;
		next->syncs += g->syncs;
		next->rfq += g->rfq;
		next->rows += g->rows;
		next->close |= g->close;
		char letters[RT_FLIGHT_MAX + 2];
		memcpy(letters, g->flight, sizeof letters);
		for (const char *l = next->flight; *l && *l != '+'; l++)
			letters_add(letters, *l);
		memcpy(next->flight, letters, sizeof letters);
		return;
	}
	struct rt out = r->cur;
	out.part = true;
	out.nparts = 1;
	out.has_start = r->cur.has_start || i > 0; /* picked up mid-stream: the first part's is not seen */
	out.t_start = g->t_start;
	out.t_end = g->t_end;
	out.has_end = g->t_end >= g->t_start && g->t_end > 0;
	out.sig = g->sig;
	out.text = g->text;
	out.rfq = g->rfq;
	out.sync_points = g->syncs;
	out.rows = g->rows;
	out.stmts = g->stmts;
	memcpy(out.flight, g->flight, sizeof out.flight);
	out.ping_role = PING_NONE;
	out.ping_sig = PSIG_NONE;
	out.role_how = out.timing_role = ROLE_PLAIN;
	out.tail_ping = false;
	out.cls = g->kind == SQL_TX                            ? RT_TRANSACTION
		  : g->kind == SQL_RESET                       ? RT_RESET
		  : !part_real(g) && !g->close && !g->rows     ? RT_PING /* a last test */
		  : g->runs                                    ? RT_QUERY
		  : g->sig                                     ? RT_PREPARE
		  : g->close                                   ? RT_CLOSE
							       : RT_OTHER;
	if (out.cls == RT_PING)
		out.ping_role = PING_IDLE;
	r->on_part(r->ctx, &out); /* parts are followed only with on_part */
}

static void open_rt(struct rtt *r, uint64_t ts, bool has_start)
{
	uint64_t idx = r->next_index++;
	memset(&r->cur, 0, sizeof(r->cur));
	r->cur.index = idx;
	r->cur.t_start = ts;
	r->cur.has_start = has_start;
	r->cur.status_before = r->st.last_status;
	r->cur.status_after = r->st.last_status;
	r->cur.nparts = 1;
	r->first_kind = 0xff;
	r->part_out = r->part_done = r->part_reals = 0;
	r->close_sig = 0;
	r->part_cut = false;
	r->open = true;
	r->be_since_fe = 0;
	r->last_be_ts = 0;
	r->last_fe_flush = false;
	r->f_startup = r->f_function = r->f_copy = r->f_exec = r->f_parse = r->f_describe = 0;
	r->f_bind = r->f_close = r->f_query = r->f_sync = r->f_other_fe = 0;
	r->k_other = r->k_tx = r->k_reset = r->k_empty = r->k_select1 = 0;
	r->be_empty = r->be_complete = r->be_rowdesc = 0;
}

static void count_kind(struct rtt *r, uint8_t kind)
{
	switch (kind) {
	case SQL_EMPTY:
		r->k_empty++;
		break;
	case SQL_SELECT1:
		r->k_select1++;
		break;
	case SQL_TX:
		r->k_tx++;
		break;
	case SQL_RESET:
		r->k_reset++;
		break;
	default:
		r->k_other++;
		break;
	}
}

/* The rules, first match wins. */
static void classify(struct rtt *r, struct rt *c)
{
	bool clean = c->errors == 0 && c->rows == 0 && r->be_complete == 0;
	c->ping_sig = PSIG_NONE;
	if (r->f_startup) {
		c->cls = RT_STARTUP;
	} else if (!c->has_start) {
		c->cls = RT_UNKNOWN; /* answer seen, request not (mid-stream) */
	} else if (r->f_function) {
		c->cls = RT_FUNCTION;
	} else if (r->f_copy) {
		c->cls = RT_COPY;
	} else if (c->fe_msgs == 1 && r->f_sync == 1 && clean && r->be_empty == 0 &&
		   !r->after_flush_rt) {
		c->cls = RT_PING; /* a lone Sync */
		c->ping_sig = PSIG_LONE_SYNC;
	} else if (r->k_empty > 0 && r->k_other + r->k_tx + r->k_reset + r->k_select1 == 0 &&
		   r->be_empty > 0 && clean && r->f_close == 0) {
		c->cls = RT_PING; /* empty, ";" or comment-only query -> I Z */
		c->ping_sig = PSIG_EMPTY_QUERY;
	} else if (r->k_select1 == 1 && r->k_other + r->k_tx + r->k_reset == 0 && c->rows == 1 &&
		   c->errors == 0) {
		c->cls = RT_PING;
		c->ping_sig = PSIG_SELECT1;
	} else if (r->k_other == 0 && r->k_tx + r->k_reset > 0) {
		if (r->k_reset > 0)
			c->cls = RT_RESET;
		else if (r->f_query > 0 && r->f_sync == 1 && r->f_exec + r->f_parse + r->f_bind == 0)
			c->cls = RT_RESET; /* Q"ROLLBACK" + Sync: a pool's rollback on release */
		else
			c->cls = RT_TRANSACTION;
	} else if (r->f_exec > 0 || r->k_other > 0 || r->k_select1 > 0) {
		c->cls = RT_QUERY;
	} else if (r->f_parse > 0 || r->f_describe > 0) {
		c->cls = RT_PREPARE;
	} else if (r->f_close > 0) {
		c->cls = RT_CLOSE;
	} else {
		c->cls = RT_OTHER;
	}
	/* a Close is known by what it closes, also where the next checkout's
	 * test came with it (r2d2: Close, Sync, the empty query) */
	if (c->cls == RT_CLOSE && r->close_sig)
		c->sig = r->close_sig;
	/* a clean-up (Close, a reset) sent with the next checkout's test */
	c->tail_ping = (c->cls == RT_CLOSE || c->cls == RT_RESET || c->cls == RT_OTHER) &&
		       c->rfq >= 2 && r->k_empty + r->k_select1 > 0;
}

static void emit(struct rtt *r, struct rt *c)
{
	r->st.round_trips++;
	r->st.by_class[c->cls]++;
	if (c->cls == RT_PING) {
		r->st.pings[c->ping_role]++;
		if (c->role_how != ROLE_PLAIN) {
			r->st.pings_amb[c->ping_role]++;
			r->st.pings_amb_timing[c->timing_role]++;
			r->st.pings_policy += c->role_how == ROLE_POLICY;
		}
		/* handed back inside a transaction - when its role is known by
		 * its place or the pool's policy: told by timing alone, a lone
		 * Sync between two statements of a transaction is as likely the
		 * driver's own (psycopg 3 leaving pipeline mode, before COMMIT) */
		if (c->ping_role == PING_RELEASE && (c->status_before == 'T' || c->status_before == 'E') &&
		    c->role_how != ROLE_TIMING)
			r->st.returned_in_tx++;
		r->st.ping_sigs[c->ping_sig]++;
		/* or Npgsql's keepalive; not inside a transaction: psycopg 3
		 * leaving pipeline mode sends a lone Sync before its COMMIT */
		if (c->ping_sig == PSIG_LONE_SYNC && c->status_before != 'T' && c->status_before != 'E')
			rtt_set_driver(r, "sqlx", 1);
	}
	if (c->has_start && c->has_end) {
		uint64_t d = c->t_end >= c->t_start ? c->t_end - c->t_start : 0;
		if (r->lat)
			hist_add(r->lat, d);
		if (r->lat_class)
			hist_add(&r->lat_class[c->cls], d);
	}
	if (r->on_rt)
		r->on_rt(r->ctx, c);
}

static uint64_t gap_between(uint64_t a_end, uint64_t b_start)
{
	return b_start > a_end ? b_start - a_end : 0;
}

/* A gap that is plainly idle time beside one that is not: 4 times longer
 * and at least half a millisecond. */
#define IDLE_MIN_NS 500000ull
static bool plainly_longer(uint64_t a, uint64_t b)
{
	return a >= IDLE_MIN_NS && a >= 4 * b;
}

/* Decide acquire/release for the queued pings, given what follows them.
 *
 * Empty, ";", comment-only and SELECT 1 checks are sent by pools at checkout
 * (pgx, HikariCP, bb8, deadpool, SQLAlchemy, Rails, psycopg_pool, PgBouncer):
 * the last one before a query is an acquire ping, any other an idle check.
 * A lone Sync is sqlx's ping, sent on acquire and on every release: the first
 * of a run right after a query is its release, the last before a query is the
 * next checkout's acquire.  A single one between two queries is either: the
 * pool's policy says which (ping_policy_of), else the nearer neighbour.
 * What position or plain idle time tells is the policy's evidence. */
static void resolve_pings(struct rtt *r, bool has_next, uint64_t next_start)
{
	int k = r->npend;
	int syncs = 0;
	for (int i = 0; i < k; i++)
		syncs += r->pend[i].ping_sig == PSIG_LONE_SYNC;
	struct ping_evidence *ev = r->policy;
	/* a pool pings outside transactions: a lone Sync inside one is no
	 * evidence of its policy (psycopg 3 leaving pipeline mode, before
	 * COMMIT: idle after it under load, it taught a release policy that
	 * then said 372 connections went back inside a transaction) */
	bool tx = k > 0 && (r->pend[0].status_before == 'T' || r->pend[0].status_before == 'E');
	if (ev && syncs == k && !r->run_started && !tx) {
		if (k >= 2 && r->has_prev && has_next)
			ev->both++;
		else if (k == 1 && !r->has_prev && r->began && has_next)
			ev->acquire++; /* before the connection's first query */
		else if (k == 1 && r->has_prev && !has_next)
			ev->release++; /* after its last, then a second of nothing or the end */
		else if (k == 1 && r->has_prev && has_next) {
			uint64_t before = gap_between(r->prev_end, r->pend[0].t_start);
			uint64_t after = gap_between(r->pend[0].t_end, next_start);
			if (plainly_longer(after, before))
				ev->release_idle++;
			else if (plainly_longer(before, after))
				ev->acquire_idle++;
		}
	}
	for (int i = 0; i < k; i++) {
		struct rt *p = &r->pend[i];
		bool first = i == 0 && !r->run_started;
		bool last = i == k - 1;
		uint64_t before = gap_between(r->prev_end, p->t_start);
		uint64_t after = gap_between(p->t_end, next_start);
		p->role_how = ROLE_PLAIN;
		p->timing_role = PING_NONE;
		if (p->ping_sig != PSIG_LONE_SYNC) {
			p->ping_role = last && has_next ? PING_ACQUIRE : PING_IDLE;
		} else if (first && last && has_next && (r->has_prev || !r->began)) {
			/* the one ambiguous case: between two queries, or before the first
			 * query seen on a connection picked up mid-stream (the one before
			 * it was not captured).  Even plain idle time on one side is
			 * timing: a client descheduled before its release ping looks
			 * idle too.  The policy known so far labels it now (trace,
			 * live); the final one settles it (ping_policy_settle). */
			enum ping_policy pol = ping_policy_of(ev);
			p->timing_role = before <= after ? PING_RELEASE : PING_ACQUIRE;
			if (pol == POLICY_RELEASE || pol == POLICY_ACQUIRE) {
				p->ping_role = pol == POLICY_RELEASE ? PING_RELEASE : PING_ACQUIRE;
				p->role_how = ROLE_POLICY;
			} else {
				p->ping_role = p->timing_role;
				p->role_how = ROLE_TIMING;
			}
		} else if (first && r->has_prev) {
			p->ping_role = PING_RELEASE;
		} else if (last && has_next) {
			p->ping_role = PING_ACQUIRE;
		} else {
			p->ping_role = PING_IDLE;
		}
		emit(r, p);
	}
	r->npend = 0;
	r->run_started = false;
}

static void finish_rt(struct rtt *r)
{
	if (!r->open)
		return;
	r->open = false;
	bool pooler_set = r->cur_pooler_set;
	r->cur_pooler_set = false;
	struct rt *c = &r->cur;
	c->pooler_set = pooler_set;
	if (c->rfq == 0 && r->be_since_fe == 0 && r->be_complete + r->be_empty + r->be_rowdesc == 0 &&
	    c->rows == 0 && c->errors == 0 && !c->damaged) {
		r->st.unanswered++; /* nothing came back (capture ended, encrypted, ...) */
		return;
	}
	if (!c->has_end && r->last_be_ts >= c->t_start) {
		/* a Flush round trip: it ends with the last answer, not a ReadyForQuery */
		c->t_end = r->last_be_ts;
		c->has_end = true;
	}
	if (r->part_reals >= 2) /* the parts not given out yet: the last, and any unanswered */
		while (r->part_out < c->nparts)
			part_emit(r, r->part_out++);
	else
		c->nparts = 1; /* one round trip for the pages too */
	classify(r, c);
	/* a client's statements since the connection was given out (pings
	 * are not counted: a pooler's own check before it hands one on is
	 * one) */
	if (c->cls == RT_RESET || c->cls == RT_STARTUP)
		r->since_link = 0;
	else if (c->cls != RT_PING && !pooler_set)
		r->since_link++;
	if (c->cls == RT_PING) {
		if (r->npend == RTT_PEND_MAX) {
			/* a long run of pings (keepalive): settle the oldest now */
			struct rt *p = &r->pend[0];
			p->ping_role = !r->run_started && r->has_prev && p->ping_sig == PSIG_LONE_SYNC
					       ? PING_RELEASE
					       : PING_IDLE;
			emit(r, p);
			r->run_started = true;
			memmove(&r->pend[0], &r->pend[1], sizeof(r->pend[0]) * (RTT_PEND_MAX - 1));
			r->npend--;
		}
		r->pend[r->npend++] = *c;
		return;
	}
	if (r->npend)
		resolve_pings(r, c->has_start, c->t_start);
	emit(r, c);
	r->has_prev = c->cls != RT_STARTUP && c->cls != RT_UNKNOWN;
	r->began |= c->cls == RT_STARTUP; /* seen from its start, not picked up mid-stream */
	/* a Sync sent alone after a Flush round trip completes that query */
	r->after_flush_rt = c->rfq == 0;
	r->prev_end = c->t_end;
}

static void flight_add(struct rtt *r, char letter)
{
	letters_add(r->cur.flight, letter);
	if (r->cur.nparts > 1)
		letters_add(part_cur(r)->flight, letter);
}

/* Bind of "SELECT $1": a ping only when the one parameter is 1. */
static bool bind_value_is_one(struct rd *rd)
{
	uint16_t nfmt = rd_be16(rd);
	rd_skip(rd, 2u * nfmt);
	uint16_t nparam = rd_be16(rd);
	if (rd->bad || nparam != 1)
		return false;
	uint32_t len = rd_be32(rd);
	if (rd->bad || len > 8)
		return false;
	const uint8_t *v = rd_bytes(rd, len);
	if (v == NULL)
		return false;
	if (len == 1 && v[0] == '1')
		return true;
	if (len == 2 || len == 4 || len == 8) { /* binary int2/int4/int8 */
		for (uint32_t i = 0; i + 1 < len; i++)
			if (v[i] != 0)
				return false;
		return v[len - 1] == 1;
	}
	return false;
}

static char fe_letter(uint8_t t)
{
	switch (t) {
	case PGSQL_STARTUP:
		return '0';
	case PGSQL_SSL_REQUEST:
		return '$';
	case PGSQL_GSS_REQUEST:
		return '&';
	default:
		return (char)t;
	}
}

/* A client message ends the flight in progress when every sync point it
 * sent was answered (or a Flush was, or a gap left the count wrong), and
 * starts the next - or, sent after a sync point of a flight still
 * answering, a part of it. */
static void fe_flight_edge(struct rtt *r, const struct pgsql_msg *m)
{
	if (r->open) {
		int64_t pending = (int64_t)r->cur.sync_points - (int64_t)r->cur.rfq;
		if (pending <= 0 && (r->cur.rfq > 0 || (r->last_fe_flush && r->be_since_fe > 0))) {
			if (pending == 0)
				r->after_gap = false; /* balanced again */
			finish_rt(r);
		} else if (r->written_off ||
			   (r->after_gap && r->last_be_ready && r->be_since_fe > 0)) {
			/* After a gap the count of awaited answers can be off for
			 * good (a lost Query, or one delivered after its answer):
			 * a client sending after a ReadyForQuery waited for it. */
			finish_rt(r);
		}
	}
	r->written_off = false;
	if (!r->open)
		open_rt(r, m->ts_first, true);
	else if (r->part_cut && r->cur.nparts - r->part_out < RT_PARTS) {
		if (r->cur.nparts == 1)
			parts_begin(r);
		part_open(r, m->ts_first); /* sent after a sync point of the flight: a part */
	}
	r->part_cut = false;
}

/* A simple Query: its text classified and kept, a pooler's SET and a
 * driver's ping told by their words. */
static void fe_query(struct rtt *r, const struct pgsql_msg *m, struct rt *c)
{
	r->f_query++;
	c->sync_points++;
	part_sync(r);
	r->exec_mode = false;
	const char *q = (const char *)m->body;
	uint64_t sig; /* a prefix's when truncated: the same for the same text */
	uint8_t kind = rtt_text_kind(r, q, m->body_len, false, !m->truncated, &sig);
	count_kind(r, kind);
	if (!c->sig)
		c->sig = sig;
	uint64_t kept = 0;
	if (r->ring) {
		kept = rtt_keep_text(r, q, m->body_len, !m->truncated);
		c->text = c->text ? c->text : kept;
		c->stmts++;
	}
	part_stmt(r, sig, kept, kind, true);
	if (kind == SQL_OTHER && m->body_len > 4 && memcmp(q, "SET ", 4) == 0 && !m->truncated &&
	    sql_is_pooler_set(q, m->body_len)) {
		r->st.pooler_sets++;
		r->st.pooler_relinks += r->since_link > 0;
		r->since_link = 0;
		r->cur_pooler_set = true;
	}
	if (kind == SQL_EMPTY) {
		if (m->body_len >= 8 && memcmp(q, "-- ping", 7) == 0 && q[7] == '\0')
			rtt_set_driver(r, "pgx", 1);
		else if (m->body_len >= 16 && memcmp(q, "/* SQLx ping */", 15) == 0)
			rtt_set_driver(r, "sqlx", 1);
	}
}

/* Parse: the statement's text classified and kept under its name. */
static void fe_parse(struct rtt *r, struct rd *rd, struct rt *c)
{
	r->f_parse++;
	const char *name, *q;
	ptrdiff_t nn = rd_cstr(rd, &name);
	ptrdiff_t qn = rd_cstr(rd, &q);
	if (nn < 0)
		return;
	bool whole = qn >= 0;
	if (!whole) { /* query text longer than the prefix kept */
		q = (const char *)rd->p;
		qn = rd->end - rd->p;
	}
	uint64_t sig;
	uint8_t kind = rtt_text_kind(r, q, (size_t)qn, true, whole, &sig);
	uint64_t text = rtt_keep_text(r, q, (size_t)qn, whole);
	rtt_stmt_put(r, name, (size_t)nn, kind, sig, text);
	if (!c->text) /* a round trip that only prepares shows what it prepares */
		c->text = text;
	/* a round trip that only prepares is known by what it prepares (the
	 * statement keeps its fingerprint whatever: wants_sig) */
	if (!c->sig && r->fingerprints)
		c->sig = sig;
	part_stmt(r, sig, text, kind, false);
	r->st.pooler_names += rtt_pooler_stmt_name(name, (size_t)nn);
	const char *d = rtt_driver_from_stmt(name, (size_t)nn);
	if (d)
		rtt_set_driver(r, d, 2);
}

/* Bind: what the next Execute runs, by the statement's name. */
static void fe_bind(struct rtt *r, struct rd *rd)
{
	r->f_bind++;
	const char *portal, *stmt;
	rd_cstr(rd, &portal);
	ptrdiff_t sn = rd_cstr(rd, &stmt);
	if (sn < 0) {
		r->bound_kind = SQL_OTHER;
		r->bound_sig = r->bound_text = 0;
		return;
	}
	uint8_t kind = rtt_stmt_get(r, stmt, (size_t)sn, &r->bound_sig, &r->bound_text);
	if (!r->bound_sig && r->fingerprints) /* prepared before the capture: its name is its identity */
		r->bound_sig = (rtt_name_hash(stmt, (size_t)sn) ^
				(rtt_name_is_global(stmt, (size_t)sn) ? 0 : (r->conn_id + 1) * 0x9e3779b97f4a7c15ull)) |
			       1;
	if (kind == RTT_KIND_SELECT_PARAM)
		kind = bind_value_is_one(rd) ? SQL_SELECT1 : SQL_OTHER;
	r->bound_kind = kind;
	r->st.pooler_names += rtt_pooler_stmt_name(stmt, (size_t)sn);
	const char *d = rtt_driver_from_stmt(stmt, (size_t)sn);
	if (d)
		rtt_set_driver(r, d, 2);
}

/* Execute: the bound statement runs. */
static void fe_execute(struct rtt *r, struct rt *c)
{
	r->f_exec++;
	r->exec_mode = true;
	r->syncs_since_exec = 0;
	count_kind(r, r->bound_kind);
	if (!c->sig && r->fingerprints)
		c->sig = r->bound_sig;
	if (r->ring) {
		c->text = c->text ? c->text : r->bound_text;
		c->stmts++;
	}
	part_stmt(r, r->fingerprints ? r->bound_sig : 0, r->ring ? r->bound_text : 0, r->bound_kind,
		  true);
}

/* Close: a statement's Close comes on the connection that prepared it,
 * from the code that did (tokio-postgres closes each Statement it drops):
 * known by what it closes, it goes where that went - by its class alone,
 * r2d2's Closes under three routes at once read 1.11 / 0.46 / 2.48 per
 * page for 1 each. */
static void fe_close(struct rtt *r, struct rd *rd)
{
	r->f_close++;
	if (r->cur.nparts > 1)
		part_cur(r)->close = true;
	const char *name;
	ptrdiff_t nn;
	uint64_t text;
	if (r->fingerprints && !r->close_sig && rd_u8(rd) == 'S' && (nn = rd_cstr(rd, &name)) >= 0)
		rtt_stmt_get(r, name, (size_t)nn, &r->close_sig, &text);
}

static void fe_msg(struct rtt *r, const struct pgsql_msg *m)
{
	uint8_t t = m->type;
	if (t == PGSQL_CANCEL) {
		r->st.cancel_requests++;
		return;
	}
	if (t == PGSQL_FE_TERMINATE) {
		finish_rt(r);
		r->st.terminated = true;
		return;
	}
	fe_flight_edge(r, m);
	struct rt *c = &r->cur;
	c->fe_msgs++;
	if (m->gap)
		c->damaged = true;
	flight_add(r, fe_letter(t));

	struct rd rd = rd_init(m->body, m->body_len);
	switch (t) {
	case PGSQL_STARTUP:
		r->f_startup++;
		c->sync_points++;
		rtt_startup_params(r, m);
		break;
	case PGSQL_SSL_REQUEST:
	case PGSQL_GSS_REQUEST:
		r->f_startup++;
		break;
	case PGSQL_FE_PASSWORD: /* contents never looked at: passwords, SASL */
		if (!r->seen_ready)
			r->f_startup++;
		else
			r->f_other_fe++;
		break;
	case PGSQL_FE_QUERY:
		fe_query(r, m, c);
		break;
	case PGSQL_FE_PARSE:
		fe_parse(r, &rd, c);
		break;
	case PGSQL_FE_BIND:
		fe_bind(r, &rd);
		break;
	case PGSQL_FE_EXECUTE:
		fe_execute(r, c);
		break;
	case PGSQL_FE_DESCRIBE:
		r->f_describe++;
		break;
	case PGSQL_FE_CLOSE:
		fe_close(r, &rd);
		break;
	case PGSQL_FE_FLUSH:
		break;
	case PGSQL_FE_SYNC:
		if (r->copy_in)
			break; /* the backend ignores Sync during copy-in */
		c->sync_points++;
		part_sync(r);
		r->f_sync++;
		r->syncs_since_exec++;
		break;
	case PGSQL_FE_FUNCTION_CALL:
		r->f_function++;
		c->sync_points++;
		part_sync(r);
		break;
	case PGSQL_FE_COPY_DONE:
	case PGSQL_FE_COPY_FAIL:
		r->copy_in = false;
		r->f_copy++;
		break;
	case PGSQL_FE_COPY_DATA:
		r->f_copy++;
		break;
	default:
		r->f_other_fe++;
		break;
	}
	r->last_fe_flush = t == PGSQL_FE_FLUSH;
	r->be_since_fe = 0;
}

/* ReadyForQuery: a sync point answered, the oldest part's if the flight
 * has parts; the round trip complete once every one is. */
static void be_ready(struct rtt *r, const struct pgsql_msg *m, struct rd *body)
{
	struct rt *c = &r->cur;
	uint8_t st = m->body_len >= 1 ? rd_peek(body, 0) : '?';
	c->rfq++;
	c->t_end = m->ts_last;
	if (c->nparts > 1 && r->part_done < c->nparts) { /* the answer to the oldest part not answered */
		struct rt_part *g = &r->parts[r->part_done % RT_PARTS];
		if (++g->rfq >= g->syncs && r->part_done + 1 < c->nparts)
			r->part_done++; /* answered, and later parts follow */
		if (r->part_reals >= 2) /* a flight of parts: the answered given out */
			while (r->part_out < r->part_done)
				part_emit(r, r->part_out++);
	}
	c->has_end = true;
	c->status_after = st;
	r->st.last_status = st;
	r->seen_ready = true;
	r->copy_in = false;
	/* every sync point answered: the round trip is complete now, not
	 * when the client next speaks (an idle pooled connection may not
	 * speak for minutes) - unless the flight ended with a Flush, whose
	 * answers are still to come (postgres.js describes a statement
	 * with Parse, Describe, Flush behind other requests' Syncs: ended
	 * here, those answers opened a round trip with no start) */
	if (c->rfq >= c->sync_points && c->sync_points > 0 && !r->after_gap &&
	    !r->last_fe_flush)
		finish_rt(r);
}

static void be_msg(struct rtt *r, const struct pgsql_msg *m)
{
	uint8_t t = m->type;
	bool async = t == PGSQL_BE_NOTICE || t == PGSQL_BE_NOTIFICATION || t == PGSQL_BE_PARAM_STATUS;
	if (t == PGSQL_BE_NOTIFICATION)
		r->st.notifications++;
	if (t == PGSQL_BE_DATA_ROW)
		r->st.rows++;
	if (t == PGSQL_BE_ERROR)
		r->st.errors++;
	if (t == PGSQL_BE_READY)
		r->st.rfq++;
	if (async)
		return;
	struct rd body = rd_init(m->body, m->body_len);
	if (t == PGSQL_ENC_ANSWER && m->body_len == 1 && rd_peek(&body, 0) != 'N') {
		/* encryption accepted: nothing more can be seen or counted */
		r->open = false;
		return;
	}
	r->last_be_ready = t == PGSQL_BE_READY;
	if (!r->open) {
		/* an answer whose request was never seen (mid-stream) */
		if (t != PGSQL_BE_READY && t != PGSQL_BE_DATA_ROW && t != PGSQL_BE_COMMAND_COMPLETE &&
		    t != PGSQL_BE_ROW_DESC && t != PGSQL_BE_EMPTY_QUERY)
			return;
		open_rt(r, m->ts_first, false);
	}
	struct rt *c = &r->cur;
	r->be_since_fe++;
	r->last_be_ts = m->ts_last;
	/* the part this answers: its end so far (a Flush's part has no
	 * ReadyForQuery; its last answer ends it) */
	if (r->cur.nparts > 1)
		part_answering(r)->t_end = m->ts_last;
	if (m->gap)
		c->damaged = true;
	switch (t) {
	case PGSQL_BE_READY:
		be_ready(r, m, &body);
		break;
	case PGSQL_BE_DATA_ROW:
		c->rows++;
		if (c->nparts > 1)
			part_answering(r)->rows++;
		break;
	case PGSQL_BE_ERROR:
		c->errors++;
		r->copy_in = false;
		break;
	case PGSQL_BE_COMMAND_COMPLETE:
		r->be_complete++;
		break;
	case PGSQL_BE_EMPTY_QUERY:
		r->be_empty++;
		break;
	case PGSQL_BE_ROW_DESC:
		r->be_rowdesc++;
		break;
	case PGSQL_BE_COPY_IN:
		r->copy_in = true;
		r->f_copy++;
		if (r->exec_mode) {
			/* Syncs sent after the Execute reach the backend in copy-in
			 * mode and are ignored: they will get no ReadyForQuery */
			uint32_t ign = r->syncs_since_exec;
			c->sync_points = c->sync_points > ign ? c->sync_points - ign : 0;
			r->syncs_since_exec = 0;
		}
		break;
	case PGSQL_BE_COPY_OUT:
	case PGSQL_BE_COPY_BOTH:
		r->f_copy++;
		break;
	default:
		break;
	}
}

void rtt_msg(struct rtt *r, const struct pgsql_msg *m)
{
	int slot = rtt_msg_slot((enum pgsql_side)m->side, m->type);
	if (slot >= 0)
		r->st.msgs[m->side][slot]++;
	if (m->side == PGSQL_FE)
		fe_msg(r, m);
	else
		be_msg(r, m);
}

void rtt_gap(struct rtt *r, enum pgsql_side side)
{
	r->after_gap = true;
	if (!r->open)
		return;
	r->cur.damaged = true;
	if (side == PGSQL_BE) {
		/* answers may have been lost: stop waiting for them, or every
		 * later flight would look pipelined into this one */
		if (r->cur.sync_points > r->cur.rfq) {
			r->cur.sync_points = r->cur.rfq;
			r->written_off = true;
		}
		r->copy_in = false;
	}
}

void rtt_finish(struct rtt *r)
{
	finish_rt(r);
	if (r->npend)
		resolve_pings(r, false, 0);
}

void rtt_tick(struct rtt *r, uint64_t now)
{
	if (r->npend && now > r->pend[r->npend - 1].t_end + RTT_PING_WAIT_NS && !r->open)
		resolve_pings(r, false, 0);
}
