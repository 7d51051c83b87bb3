/* proto.h - what analysis.c needs of a protocol spoken on a server port.
 *
 * A protocol is one file and one table of these functions (tcpdump's one
 * file per protocol; nghttp2's callbacks): proto_pgsql.c turns PostgreSQL
 * messages into round trips, proto_http.c turns HTTP/1.x into pages,
 * proto_redis.c RESP values into Redis round trips.
 * analysis.c owns everything TCP - flows, reassembly, eviction, the
 * watermark - and hands each protocol the in-order bytes and the gaps of
 * each direction of its connections, never packets.  Adding a protocol
 * is a new proto_*.c with its table, an entry in enum
 * proto_id and protos[] (analysis.c), and its ports in analysis_opts.
 *
 * Sides: 0 is the client (PGSQL_FE, HTTP1_CLIENT), 1 the server.
 */
#ifndef PGRTT_PROTO_H
#define PGRTT_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct analysis;
struct analysis_live;
struct conn_summary;
struct reasm_dir;

enum proto_id { PROTO_NONE, PROTO_PGSQL, PROTO_HTTP, PROTO_REDIS, PROTO_N };

/* Who a protocol's calls are for: the analysis (options, totals, attribution)
 * and the connection's identity (id, addresses; its figures at close). */
struct proto_ctx {
	struct analysis *a;
	struct conn_summary *sum;
	void *shared;  /* the protocol's state for the whole analysis (shared_size) */
	uint16_t port; /* the server's */
};

struct proto_ops {
	enum proto_id id;
	const char *name;
	size_t state_size; /* per connection, zeroed before open */
	/* What its connections share for the whole analysis - their totals,
	 * latencies, legs - made by shared_init at the start and freed by
	 * shared_free at the end (0 and NULL: nothing); the outputs read it
	 * through analysis_shared. */
	size_t shared_size;
	int (*shared_init)(void *shared); /* 0, or -1 when out of memory */
	void (*shared_free)(void *shared);
	/* A packet on one of its ports was read (the input's per-protocol count). */
	void (*count_packet)(struct analysis *a, void *shared);
	/* The first payload of a connection whose handshake was missed, when both
	 * ports are server ports: 0 if the client sent it, 1 the server, -1 who
	 * knows.  NULL: the lower port number is not guessed at. */
	int (*guess_side)(const uint8_t *p, size_t n);
	/* A new connection (from_start: its SYN was seen).  Returns 0, or -1
	 * when out of memory (close is not called then). */
	int (*open)(void *st, const struct proto_ctx *cx, bool from_start, uint64_t ts);
	void (*data)(void *st, int side, const uint8_t *p, size_t n, uint64_t ts);
	void (*gap)(void *st, int side, uint64_t n, uint64_t ts);
	/* The connection ended (FIN both ways, RST, eviction, end of input):
	 * finish what is open, add its figures to the totals, free what open
	 * allocated.  tcp[0..1]: both directions' reassembly counters. */
	void (*close)(void *st, const struct reasm_dir *tcp, uint64_t ts);
	/* The start time of the oldest thing still open that started at or after
	 * not_before (an unanswered request, an unfinished round trip), given
	 * that the capture's time is now; false when there is none. */
	bool (*oldest_open)(void *st, uint64_t now, uint64_t not_before, uint64_t *ts);
	/* Figures of a connection still open, added to out (the status line). */
	void (*live)(const void *st, struct analysis_live *out);
	/* Those of the closed ones, from the shared state (NULL: none). */
	void (*live_shared)(const void *shared, struct analysis_live *out);
};

extern const struct proto_ops proto_pgsql, proto_http, proto_redis;

#endif
