/* rtt.h - round-trip engine: PostgreSQL messages of one connection in,
 * classified round trips and ReadyForQuery counts out.
 *
 * A round trip (RT) is a flight - everything the client sends before it
 * waits for the server - plus the server's answer.  A new flight starts when
 * the client sends after every sync point it sent (Query, Sync, FunctionCall,
 * StartupMessage) has been answered by ReadyForQuery, or after the server
 * answered a Flush.  Pipelined flights carry several sync points, so
 * ReadyForQuery >= round trips.
 */
#ifndef PGRTT_RTT_H
#define PGRTT_RTT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/hist.h"
#include "pgsql.h"
#include "proto/rt_class.h"
#include "proto/rt_event.h"

/* What tells a pool's ping policy (rt_class.h), learnt from the pings
 * whose role is plain (docs/pools.md): a lone Sync between two queries of
 * one connection is either the first query's release ping or the second's
 * acquire ping, and timing alone gets it wrong when the pool hands a
 * connection straight back.  One per analysis: the connections of one
 * pool share it. */
struct ping_evidence {
	/* by position: the connection's first query or its end (a second of
	 * nothing, or the capture's), where no other role is possible */
	uint64_t release; /* a lone Sync right after a query, then nothing */
	uint64_t acquire; /* a lone Sync before a connection's first query */
	uint64_t both;    /* two or more lone Syncs between two queries */
	/* by idle time on one side of a single between two queries: weaker,
	 * a client descheduled under load looks idle too */
	uint64_t release_idle; /* idle after it, before the next query */
	uint64_t acquire_idle; /* idle before it, after the previous query */
};
#define POLICY_MIN_EVIDENCE 3
enum ping_policy ping_policy_of(const struct ping_evidence *e);
const char *ping_policy_name(enum ping_policy p);

enum rt_ping_sig {
	PSIG_NONE,
	PSIG_LONE_SYNC,   /* S -> Z (sqlx >= 0.6, Npgsql keepalive) */
	PSIG_EMPTY_QUERY, /* Q"" / whitespace / comment / ";" -> I Z */
	PSIG_SELECT1,     /* SELECT 1, simple or prepared */
};

/* A flight's parts: what the client wrote after each sync point of it
 * before the answer - a pipelining driver (postgres.js with more queries
 * than connections, tokio-postgres) sends the next statement, often
 * another request's, while the last is unanswered, each with its own
 * Sync.  The flight is one round trip of the connection; a page waited for
 * its own parts' answers (attrib.c).  Followed while unanswered, at most
 * RT_PARTS at once (more join the newest): a connection that never drains
 * keeps one flight open, and its parts are given out as they are answered. */
#define RT_PARTS 16
struct rt_part {
	uint64_t t_start, t_end; /* its first byte; its last answer so far */
	uint64_t sig, text;      /* its first statement's, as a round trip's */
	uint32_t syncs, rfq, rows, stmts, runs; /* runs: Query and Execute messages */
	uint8_t kind;            /* its first statement's (sqlclass.h), or 0xff none */
	bool close;
	char flight[RT_FLIGHT_MAX + 2]; /* its frontend letters, as struct rt's */
};

/* One finished round trip.  Valid only during the rtt_fn callback. */
struct rt {
	uint64_t index;          /* 0-based within the connection */
	uint64_t t_start, t_end; /* first flight byte, last ReadyForQuery (or last
				    answer of a Flush round trip) */
	bool has_start, has_end;
	uint8_t cls;             /* enum rt_class */
	uint8_t ping_role;       /* enum rt_ping_role */
	uint8_t ping_sig;        /* enum rt_ping_sig */
	uint8_t role_how;        /* enum rt_role_how */
	uint8_t timing_role;     /* not ROLE_PLAIN: what the nearer neighbour says */
	uint64_t sig;            /* sql_fingerprint of the first statement run, 0 none */
	uint8_t status_before;   /* transaction status: 'I' 'T' 'E', '?' unknown */
	uint8_t status_after;
	bool damaged;            /* a capture gap touched this round trip */
	bool pooler_set;         /* a pooler's own SET (sql_is_pooler_set): no client sent it */
	/* not a ping itself, its flight ends with one (an empty query or
	 * SELECT 1 after a Sync: a pool's test of the next checkout sent
	 * with the last one's Close, as tokio-postgres under r2d2 does) */
	bool tail_ping;
	uint32_t rfq, sync_points, fe_msgs, rows, errors;
	char flight[RT_FLIGHT_MAX + 2]; /* frontend type letters; '+' when longer */
	/* with rtt.texts (dump, trace): its first statement's text, a
	 * textring handle (0: none: a ping, a Sync alone, prepared before the
	 * capture), and the statements it ran (simple queries, executes) */
	uint64_t text;
	uint32_t stmts;
	/* the flight's parts (struct rt_part), 1 for most; with more, rtt.on_part
	 * gave each as a round trip of its own (part set, index the flight's) */
	uint32_t nparts;
	bool part;
};

typedef void rtt_fn(void *ctx, const struct rt *rt);

/* rt as pages and routes take it (rt_event.h): a ROUND_TRIP, its label
 * rt's flight letters (e points into rt). */
void rtt_event(const struct rt *rt, struct rt_event *e);

/* A finished round trip of a connection on leg `leg` of a pooler's legs
 * (legs.h): its statement and span, matched against the other legs'. */
struct legs;
void rtt_legs(struct legs *l, uint8_t leg, const struct rt *rt);

/* Per-type message counts use a compact index per side. */
#define RTT_MSG_SLOTS 32
int rtt_msg_slot(enum pgsql_side side, uint8_t type);
uint8_t rtt_slot_type(enum pgsql_side side, int slot);

#define RTT_DRIVER_MAX 24
#define RTT_NAME_MAX 64

struct rtt_stats {
	uint64_t rfq, round_trips;
	uint64_t by_class[RT_NCLASS];
	uint64_t pings[PING_NROLE];
	/* of pings[], the lone Syncs between two queries (ambiguous), by the
	 * role they have now and by the nearer neighbour's, and how many of them
	 * the policy told.  While a capture runs the policy is the one known so
	 * far; ping_policy_settle applies the final one to all of them. */
	uint64_t pings_amb[PING_NROLE], pings_amb_timing[PING_NROLE];
	uint64_t pings_policy;
	uint64_t ping_sigs[4];
	uint64_t rows, errors, unanswered, cancel_requests, notifications;
	uint64_t returned_in_tx; /* release pings on a connection still in a transaction */
	uint64_t msgs[2][RTT_MSG_SLOTS];
	/* A pooler's server connection, as PgBouncer's look (the analysis's
	 * pooler-server-leg finding): a startup with the database first and the
	 * user last (libpq and most drivers send the user first), and its own
	 * SETs of a client's settings before that client's statements
	 * (sql_is_pooler_set); startups of any other shape; Parses and Binds of
	 * the statements it prepares for its clients (PGBOUNCER_n, transaction
	 * pooling); of the SETs, those after a client's statements with no
	 * reset between (the connection handed on mid-session: transaction
	 * pooling - session pooling resets it with DISCARD ALL first) */
	uint64_t startups_pooler, startups_other, pooler_sets, pooler_names, pooler_relinks;
	bool terminated;
	uint8_t last_status;
	char driver[RTT_DRIVER_MAX];
	char application_name[RTT_NAME_MAX];
	char user[RTT_NAME_MAX];
	char database[RTT_NAME_MAX];
	uint32_t proto;
};

#define RTT_STMT_SLOTS 64
#define RTT_PEND_MAX 16
#define RTT_TEXT_SLOTS 32 /* statement texts seen lately, with what they were found to be */

struct rtt_stmt {
	uint64_t name_hash; /* 0 = empty slot */
	uint8_t kind;       /* enum sql_kind, or RTT_KIND_SELECT_PARAM */
	uint64_t sig;       /* sql_fingerprint of its text */
	uint64_t text;      /* its text in rtt.texts (0: not kept) */
};

/* A statement text already classified: an app sends the same few texts
 * over and over, and classifying or fingerprinting them again costs more
 * than the rest of a round trip. */
struct rtt_text {
	uint64_t hash; /* of the text, its length and how it came (0 = empty slot) */
	uint8_t kind;
	uint64_t sig;
};

/* Texts classified, shared by an analysis's connections (rtt.shared): a
 * pool hands every statement of an app to every connection, and one
 * connection's slots hold its last few only (an app of 120 routes and 240
 * statements fingerprinted nearly every query again). */
#define RTT_SHARED_TEXTS 4096
struct rtt_texts {
	struct rtt_text slot[RTT_SHARED_TEXTS];
};

struct rtt {
	struct rtt_stats st;
	struct hist *lat;     /* optional: latency per round trip (ns) */
	struct hist *lat_class; /* optional: array of RT_NCLASS histograms */
	rtt_fn *on_rt;
	void *ctx;
	rtt_fn *on_part; /* optional: each part of a flight that has several (struct rt_part) */
	struct ping_evidence *policy; /* optional: shared by the analysis */
	struct rtt_texts *shared;     /* optional: shared by the analysis, behind texts[] */
	bool fingerprints; /* give round trips their statement's sig (attribution needs it) */
	struct textring *ring;  /* optional: keep round trips' statement texts (rt.text) */
	bool text_values;       /* ... as sent; otherwise normalised (sqlnorm.h) */
	uint64_t conn_id;  /* the connection's: a statement known by name alone is its own here */

	/* the round trip being built */
	struct rt cur;
	struct rt_part parts[RT_PARTS]; /* its parts given out from part_out, answered to part_done */
	uint32_t part_out, part_done, part_reals; /* part_real's among them */
	uint8_t first_kind; /* of the flight's first statement: its first part's, once it has two */
	bool part_cut; /* the last message sent was a sync point */
	bool open;
	uint32_t be_since_fe;
	uint64_t last_be_ts; /* last answer of the current round trip */
	bool last_fe_flush, copy_in, exec_mode;
	uint32_t syncs_since_exec;
	uint32_t f_startup, f_function, f_copy, f_exec, f_parse, f_describe, f_bind, f_close,
		f_query, f_sync, f_other_fe;
	uint32_t k_other, k_tx, k_reset, k_empty, k_select1; /* statements sent or executed */
	uint32_t be_empty, be_complete, be_rowdesc;
	uint8_t bound_kind;
	uint64_t bound_sig, bound_text;
	uint64_t close_sig; /* what the round trip's first Close closes (a round trip that only closes is known by it) */

	/* prepared statements by name (bounded; collisions overwrite) */
	struct rtt_stmt stmts[RTT_STMT_SLOTS];
	uint8_t unnamed_kind;
	uint64_t unnamed_sig, unnamed_text;
	struct rtt_text texts[RTT_TEXT_SLOTS];

	/* pings waiting to learn whether they were acquire or release */
	struct rt pend[RTT_PEND_MAX];
	int npend;
	bool run_started; /* pings of the current run were already emitted */
	bool has_prev;    /* a query-like round trip precedes the pending pings */
	bool began;       /* the connection's startup was seen */
	/* statements since the connection was last given a client (its
	 * startup, a reset, a pooler's SET: rtt_stats' pooler_relinks), and
	 * whether the open round trip is such a SET */
	uint32_t since_link;
	bool cur_pooler_set;
	uint64_t prev_end;
	uint64_t next_index;
	bool seen_ready;
	bool after_flush_rt; /* the last round trip ended without ReadyForQuery */
	bool after_gap;      /* a gap made the count of awaited answers unreliable */
	bool last_be_ready;  /* the last backend message was ReadyForQuery */
	bool written_off;    /* answers awaited were given up after a gap */
	int driver_rank;
};

/* Initialise.  lat / lat_class may be NULL.  on_rt (may be NULL) sees every
 * round trip once its ping role is known, in order. */
void rtt_init(struct rtt *r, struct hist *lat, struct hist *lat_class, rtt_fn *on_rt,
	      void *ctx);

/* Account one message (from the pgsql framer). */
void rtt_msg(struct rtt *r, const struct pgsql_msg *m);

/* A capture gap hit one side: the current round trip is marked damaged, and
 * after a backend gap ReadyForQuery messages still awaited are written off. */
void rtt_gap(struct rtt *r, enum pgsql_side side);

/* The connection ended (or the capture did): finish everything pending. */
void rtt_finish(struct rtt *r);

/* Capture time is now: pings that have waited RTT_PING_WAIT_NS for a round
 * trip to follow them get their role without one (an acquire ping is sent
 * right before its query, never a second later). */
#define RTT_PING_WAIT_NS 1000000000ull
void rtt_tick(struct rtt *r, uint64_t now);

/* The start of the oldest round trip still open (pending pings, the one
 * being built) that started at or after not_before; false when none. */
bool rtt_oldest_open(const struct rtt *r, uint64_t not_before, uint64_t *ts);

const char *rt_ping_sig_name(int sig);

/* After the last connection: st's ambiguous pings take the role the final
 * policy says (a release-only or acquire-only pool) and count as told by
 * it; with none, the nearer neighbour's, told by timing.  The policy known
 * while they were seen may have been another (early evidence is thin).
 * Idempotent; returns how many changed role. */
uint64_t ping_policy_settle(enum ping_policy p, struct rtt_stats *st);
/* Of st's ambiguous pings, those told by timing alone. */
uint64_t ping_told_by_timing(const struct rtt_stats *st);

#endif
