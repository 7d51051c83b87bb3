/* proto.h - a protocol spoken on a server port, as the engine drives it.
 *
 * A protocol is one plug-in and one table of these functions (tcpdump's
 * one file per protocol; nghttp2's callbacks): PostgreSQL's turns its
 * messages into round trips (src/proto/pgsql/pgsql_plugin.c), Redis's its
 * RESP values (src/proto/redis/redis_plugin.c), HTTP's hands requests and
 * responses to the engine, which makes them pages (src/proto/http/
 * http_plugin.c, src/engine/pages.c).  The engine (src/engine/analysis.c) owns
 * everything TCP - flows, reassembly, eviction, the watermark - and hands
 * each protocol the in-order bytes and the gaps of each direction of its
 * connections, never packets; the protocol asks the engine for the rest
 * through struct proto_host, and keeps what its connections add up to in
 * its shared state.  Adding a protocol: docs/adding-a-protocol.md.
 *
 * Sides: 0 is the client (PGSQL_FE, HTTP1_CLIENT), 1 the server.
 */
#ifndef PGRTT_PROTO_H
#define PGRTT_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "figure.h"
#include "rt_event.h"

struct conn_summary; /* a connection's record (conn_summary.h) */
struct hist;
struct http1_msg;
struct legs;
struct reasm_dir;
struct tls_keytab;

enum proto_id { PROTO_NONE, PROTO_PGSQL, PROTO_HTTP, PROTO_REDIS, PROTO_N };

#define PROTO_ADDR_MAX 56 /* "address:port", "[v6 address]:port", NUL-terminated */
/* Room the engine keeps for a protocol's own options (its observers) and
 * its running figures (each plug-in asserts its fit). */
#define PROTO_OPTS_MAX 64
#define PROTO_LIVE_MAX 256

/* What a closing connection says of itself for its record (analysis.h's
 * conn_summary); the engine adds its TCP figures (gaps, retransmissions,
 * bytes) and lists it. */
struct proto_closing {
	const struct hist *lat; /* its round trips' latencies */
	const void *figures;    /* its protocol's own figures (Redis: struct redis_stats) */
	size_t figures_size;
	bool mid_stream, undecodable;
	uint8_t tls; /* 0, or 'S' SSL, 'G' GSSAPI, 'D' direct TLS */
	bool tls_decrypted; /* its TLS read with a key log's secrets */
	uint64_t malformed, skipped_bytes, resyncs;
	/* plaintext after the server agreed to encrypt (PostgreSQL's 'S') */
	uint64_t enc_extra_bytes;
};

/* What the engine does for a protocol's connections. */
struct proto_host {
	void *ctx; /* handed back to each call */
	/* pages are attributed (--http-port): round_trip takes the events */
	bool attributing;
	/* the key logs' secrets (--tls-keylog; tls_stream.h), or NULL */
	const struct tls_keytab *tls_keys;
	void (*round_trip)(void *ctx, uint64_t conn, const struct rt_event *e);
	/* a new connection's leg among l's server endpoints (legs.h); no room to
	 * follow them is counted where the out-of-memory finding sees it */
	uint8_t (*leg)(void *ctx, struct legs *l, const char *server);
	/* a connection was opened (dump lists it) */
	void (*opened)(void *ctx, struct conn_summary *sum);
	/* a connection closed: its record filled from c and tcp (both
	 * directions' reassembly counters) and listed */
	void (*closed)(void *ctx, struct conn_summary *sum, const struct reasm_dir *tcp,
		       const struct proto_closing *c);
	/* memory ran out: counted where the out-of-memory finding sees it */
	void (*lost)(void *ctx);
	/* Pages (attributing): a request, and its response once complete.
	 * The engine keeps what it needs of a request until its response in
	 * page_slot_size bytes the plug-in holds for it; endpoint is the
	 * server's as page_endpoint gave it at the connection's opening. */
	size_t page_slot_size;
	uint16_t (*page_endpoint)(void *ctx, const char *server);
	void (*request)(void *ctx, const struct http1_msg *m, void *slot);
	void (*response)(void *ctx, uint64_t conn, uint16_t endpoint, const struct http1_msg *m,
			 const void *slot);
};

/* Who a protocol's calls are for: the engine, and the connection. */
struct proto_ctx {
	const struct proto_host *host;
	struct conn_summary *sum;
	void *shared;       /* the protocol's state for the whole analysis (shared_size) */
	uint64_t id;        /* the connection's number, from 1 */
	const char *client, *server; /* its endpoints, "address:port" */
	uint16_t port;      /* the server's */
};

/* pgrtt dump's line for one of a protocol's messages or round trips:
 * dump writes its start (the time), the protocol its words. */
struct dump_printer {
	FILE *out;
	uint64_t conn;    /* only this connection (0: every one) */
	bool round_trips; /* a line per round trip, not per message */
	void (*start)(const struct dump_printer *d, uint64_t ts);
	void *ctx; /* dump's */
};

struct proto_ops {
	enum proto_id id;
	const char *name;  /* in keys and text: "redis" */
	const char *title; /* in sentences: "Redis" */
	/* The option that names its servers' ports ("--redis-port"; NULL:
	 * -p, PostgreSQL's), and its figures per page (figure.h), npage_figs
	 * of them: outputs loop over these and never name the protocol. */
	const char *port_option;
	/* what its port option does, for every command's --help */
	const char *port_help;
	const struct page_figure *page_figs;
	int npage_figs;
	/* Its connections' figures (figure.h) in the struct its records carry
	 * (proto_closing.figures), nconn_figs of them, and the classes its
	 * round trips take (NULL: every class).  PostgreSQL's are its own
	 * (NULL, 0). */
	const struct conn_figure *conn_figs;
	int nconn_figs;
	bool (*class_used)(int cls);
	/* With conn_figs: its totals' common part and the sum of its
	 * connections' figures, in its shared state. */
	const struct proto_totals *(*totals)(const void *shared);
	const void *(*figures_sum)(const void *shared);
	/* Keys it counts by name (Redis: its commands), or NULL: up to cap into
	 * out, most frequent first, the rest's count in *rest; by_name_noun
	 * names them in the outputs ("command": by_command, other_commands,
	 * the store's run_redis_commands). */
	uint32_t (*by_name)(const void *shared, struct name_count *out, uint32_t cap,
			    uint64_t *rest);
	const char *by_name_noun;
	/* analyze's text report, in the protocol's own words (tcpdump's
	 * printers): its totals' lines after PostgreSQL's, and a row per
	 * connection, the table's head before the first.  NULL: none. */
	void (*text_totals)(FILE *out, const void *shared);
	void (*text_connection)(FILE *out, const struct conn_summary *c, bool first);
	/* Its findings' codes among evidence.h's (docs/ci.md), or NULL: nothing
	 * measured on its ports (a wrong port is no evidence of none), damage,
	 * it alone measured (no PostgreSQL), a relay's legs both captured.
	 * The rules are the same for every protocol (evidence.c); the codes
	 * are its own.  legs: its connections' (legs.h), or NULL. */
	const char *code_absent, *code_damage, *code_only, *code_legs;
	const struct legs *(*legs)(const void *shared);
	/* pgrtt dump: set its observers in opts (its part of struct
	 * analysis_opts) to print its lines through d, which outlives the
	 * analysis.  NULL: dump prints nothing of it. */
	void (*dump)(void *opts, const struct dump_printer *d);
	size_t state_size; /* per connection, zeroed before open */
	/* What its connections share for the whole analysis - their totals,
	 * latencies, legs - made by shared_init at the start and freed by
	 * shared_free at the end (0 and NULL: nothing); the outputs read it
	 * through analysis_shared. */
	size_t shared_size;
	/* opts: its part of struct analysis_opts (analysis.c's opts_at[]), or NULL */
	int (*shared_init)(void *shared, const void *opts); /* 0, or -1 when out of memory */
	void (*shared_free)(void *shared);
	/* A packet on one of its ports was read (the input's per-protocol count). */
	void (*count_packet)(void *shared);
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
	/* Figures of a connection still open, added to out (the status line):
	 * out is the protocol's part of struct analysis_live (analysis.c's
	 * live_at[]): a protocol with conn_figs keeps its figures' struct
	 * there (Redis's struct redis_stats), which --metrics reads. */
	void (*live)(const void *st, void *out);
	/* Those of the closed ones, from the shared state (NULL: none). */
	void (*live_shared)(const void *shared, void *out);
	/* Its round trips were seen: its figures stand for something (its
	 * ports may be wrong: no traffic is no evidence of none).  NULL: its ports
	 * being named is enough. */
	bool (*measured)(const void *shared);
};

extern const struct proto_ops proto_pgsql, proto_http, proto_redis;

#endif
