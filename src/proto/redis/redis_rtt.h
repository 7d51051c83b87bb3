/* redis_rtt.h - Redis round trips: one connection's RESP values in
 * (resp.h), classified round trips out.
 *
 * As with PostgreSQL (rtt.h), a round trip is a flight - everything the
 * client sends before it waits - plus the server's answer.  Each command
 * awaits its replies (one; one per channel for SUBSCRIBE and its kin; none
 * under CLIENT REPLY OFF or SKIP), and a command sent while replies are
 * still awaited joins the flight: a pipeline of N commands is one round
 * trip of N commands, as redis-benchmark -P N and a batching client send
 * them.  A flight is complete when its last awaited reply came.
 *
 * Not replies: RESP3 pushes (invalidations, pub/sub messages), RESP2
 * pub/sub messages on a subscribed connection, what MONITOR streams.
 * They are counted, never round trips.  A reply when none is awaited (its
 * command came before the capture, or was lost to a gap) is a round trip
 * of class unknown; consecutive ones are one.
 *
 * A gap can also deliver a reply before its command: the command waits in
 * reassembly behind a hole on the client's side while the reply, on the
 * other side, comes through.  Counting awaited replies would then stay one
 * ahead for good and merge every later flight into one.  So after a gap,
 * until a flight is answered in full, a command whose predecessor was
 * answered by then (capture timestamps) starts a new flight.
 *
 * Classes (rtt.h's): ping (PING), startup (HELLO, AUTH, SELECT, CLIENT
 * SETNAME/SETINFO, READONLY before the connection's first other command),
 * transaction (MULTI, EXEC, DISCARD, WATCH, UNWATCH), reset (RESET, QUIT),
 * query for every other command; a flight with any query command is a
 * query, otherwise its first command's class.
 */
#ifndef PGRTT_REDIS_RTT_H
#define PGRTT_REDIS_RTT_H

#include <stdbool.h>
#include <stdint.h>

#include "base/hist.h"
#include "resp.h"
#include "proto/rt_class.h"
#include "proto/rt_event.h"

struct redis_stats {
	uint64_t commands, replies, round_trips;
	uint64_t by_class[RT_NCLASS];
	uint64_t pipelined;      /* round trips of two or more commands */
	uint64_t max_pipeline;   /* commands in the largest flight */
	uint64_t pushes;         /* server values that answer no command */
	uint64_t no_reply;       /* commands that await none (CLIENT REPLY OFF/SKIP) */
	uint64_t errors;         /* error replies */
	uint64_t unanswered;     /* flights that got no reply (capture ended, gap) */
	uint64_t written_off;    /* replies awaited when a server-side gap came */
};

/* A round trip, complete. */
struct redis_rt {
	uint64_t t_start, t_end; /* first byte of the flight, last byte of the answer */
	uint32_t commands, replies, errors;
	uint8_t cls;             /* enum rt_class */
	bool damaged;            /* a gap inside it */
	uint64_t index;          /* its number on the connection, from 0 */
	uint64_t serial;         /* of every flight opened on the connection (an unknown run's
				  * too, and one never answered): on_cmd's */
	char first[RESP_NAME_MAX + 1]; /* its first command's name ("" for unknown) */
	/* its commands' names, words and sizes, folded: what a relay's copy of
	 * it has too (legs.h); never 0 once a command is in */
	uint64_t sig;
};

typedef void redis_rt_fn(void *ctx, const struct redis_rt *rt);
/* Command m joined flight rt (rt->commands counts it). */
typedef void redis_cmd_fn(void *ctx, const struct redis_rt *rt, const struct resp_msg *m);

struct redis_rtt {
	struct redis_stats st;
	struct redis_rt cur;
	bool open;            /* cur is a flight awaiting replies (or an unknown run) */
	uint64_t awaited;     /* replies cur still awaits */
	uint64_t confirms;    /* of them, SUBSCRIBE-kin confirmations */
	uint64_t last_ts;     /* of the last reply into cur */
	bool reply_off;       /* CLIENT REPLY OFF */
	uint8_t skip;         /* CLIENT REPLY SKIP: commands left without a reply */
	bool subscribed;      /* has subscribed: RESP2 messages are out of band */
	bool monitor;         /* MONITOR: the server streams */
	bool in_multi;        /* MULTI: commands are queued (+QUEUED) */
	bool began;           /* a command other than startup's was seen */
	bool server_gap;      /* replies were lost: the next command starts afresh */
	bool doubt;           /* a gap since the last flight answered in full */
	uint64_t last_cmd_ts, last_reply_ts;
	struct hist *lat;     /* latency of every round trip, or NULL */
	struct hist *lat_class; /* RT_NCLASS of them, or NULL */
	redis_rt_fn *on_rt;
	redis_cmd_fn *on_cmd; /* set after init, or NULL (ctx is on_rt's) */
	void *ctx;
	uint64_t opened;      /* flights opened: the next one's serial */
};

void redis_rtt_init(struct redis_rtt *r, struct hist *lat, struct hist *lat_class,
		    redis_rt_fn *on_rt, void *ctx);
/* A complete value of either side (resp_feed's callback). */
void redis_rtt_msg(struct redis_rtt *r, const struct resp_msg *m);
/* Bytes of a side were lost. */
void redis_rtt_gap(struct redis_rtt *r, enum resp_side side);
/* The connection ended: a flight with replies is a round trip (damaged if
 * replies are still awaited), one without any is unanswered. */
void redis_rtt_finish(struct redis_rtt *r);
/* The start of the open flight, if any (the analysis's watermark). */
bool redis_rtt_oldest_open(const struct redis_rtt *r, uint64_t *ts);

/* The class a command gives its round trip; first: nothing but startup
 * commands came before it on the connection. */
enum rt_class redis_command_class(const char *name, const char *arg0, bool first);

/* A command's name for printing and counting: printable ASCII kept, every
 * other byte (a damaged stream, a hostile client) as '?'.  dst holds
 * RESP_NAME_MAX + 1. */
void redis_name_printable(char *dst, const char *src);

/* As pages and routes take them (rt_event.h): command m of flight rt, a
 * COMMAND placed by when it was sent, its name the key; flight rt answered,
 * a FLIGHT, labelled with its first command's name (e points into rt). */
void redis_cmd_event(const struct redis_rt *rt, const struct resp_msg *m, struct rt_event *e);
void redis_flight_event(const struct redis_rt *rt, struct rt_event *e);

/* The classes a Redis round trip can have (the others are PostgreSQL's). */
bool redis_class_used(int cls);

#endif
