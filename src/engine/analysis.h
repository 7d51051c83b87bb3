/* analysis.h - packets in; connections, round trips and totals out.
 *
 * Glue between the layers: link/IP/TCP decoding, the connection table, TCP
 * reassembly, the PostgreSQL framer and the round-trip engine.  Memory is
 * bounded by the number of open connections (and a cap on how many closed
 * connections are listed individually), never by the size of the capture.
 */
#ifndef PGRTT_ANALYSIS_H
#define PGRTT_ANALYSIS_H

#include <stdalign.h>
#include <stdbool.h>
#include <stdint.h>

#include "attrib/attrib.h"
#include "base/hist.h"
#include "http1.h"
#include "proto/legs.h"
#include "pgsql.h"
#include "proto/http/http_totals.h"
#include "proto/proto.h"
#include "proto/conn_summary.h"
#include "proto/pgsql/pgsql_shared.h"
#include "proto/pgsql/rtt.h"

struct page_twins;
struct route_learn;

#define ANALYSIS_MAX_PORTS 32
#define ROUTE_VALUES_OFF UINT32_MAX /* analysis_opts.route_values: no learning */
#ifndef ANALYSIS_MAX_OPEN
#define ANALYSIS_MAX_OPEN 65536     /* open connections; the least recent is evicted */
#endif
#define ANALYSIS_MAX_LISTED 10000   /* closed connections kept for the listing */
#define ANALYSIS_MAX_BUFFER (128ull << 20) /* out-of-order bytes held, all connections */
#define ADDR_STR_MAX 56
#define ANALYSIS_OTHER_PORTS 8

struct conn;


struct analysis;

/* A protocol's server ports, as its option named them. */
struct proto_ports {
	uint16_t port[ANALYSIS_MAX_PORTS];
	int n;
};

typedef void analysis_conn_fn(void *ctx, const struct conn_summary *c);

struct analysis_opts {
	uint16_t ports[ANALYSIS_MAX_PORTS];
	int nports;
	uint16_t http_ports[ANALYSIS_MAX_PORTS]; /* HTTP/1.x servers (--http-port) */
	int nhttp_ports;
	/* the servers of every other protocol, named by its own option
	 * (proto_ops.port_option: Redis's --redis-port), by its id */
	struct proto_ports proto_ports[PROTO_N];
	struct http_observers http;   /* every complete HTTP message (pgrtt dump) */
	const struct route_set *routes; /* --route patterns (may be NULL) */
	uint32_t route_values;        /* --route-values: 0 for ROUTE_LEARN_VALUES, ROUTE_VALUES_OFF */
	uint64_t grace_ns;            /* --grace: release pings after a response */
	uint64_t hold_ns;             /* --page-timeout: 0 for ATTRIB_HOLD_NS */
	attrib_page_fn *on_page;      /* every page with its round trips (pgrtt trace) */
	analysis_conn_fn *on_conn;    /* a connection was first seen */
	struct pgsql_observers pgsql; /* PostgreSQL's messages and round trips (dump, trace, store) */
	/* every other protocol's own options, by its id (Redis's: its
	 * struct redis_observers, pgrtt dump's): analysis_opts_part */
	alignas(8) unsigned char proto_opts[PROTO_N][PROTO_OPTS_MAX];
	uint32_t threads;             /* 2: attribution on a thread of its own (attrib_pipe.h;
					 only when nothing reads it before analysis_finish);
					 0 or 1: on the reading one */
	uint32_t fit_threads;         /* 2: the fit at the end on two (infer.c); 0 or 1: one */
	uint32_t max_open;            /* 0: ANALYSIS_MAX_OPEN */
	uint64_t max_buffer;          /* --max-buffer: out-of-order bytes held over all
					 connections; 0: ANALYSIS_MAX_BUFFER */
	void *ctx;
};


struct analysis_totals {
	uint64_t packets, other_packets, not_ip, not_tcp, fragments, truncated_hdr, bad_hdr;
	uint64_t conns_not_listed, evicted;
	uint64_t first_ts, last_ts;
	uint64_t nomem;
	uint64_t buffer_gaps; /* holes given up on because max_buffer was reached */
	/* ports that are not --port but that connections were opened to, or whose
	 * payload frames as PostgreSQL: a hint when --port is wrong */
	struct analysis_other_port {
		uint16_t port;
		uint64_t syns, pg_like; /* SYNs to it; packets that parse as PostgreSQL */
	} other_ports[ANALYSIS_OTHER_PORTS];
};


/* Returns 0, or -1 when out of memory. */
int analysis_init(struct analysis *a, const struct analysis_opts *o);

/* One captured packet of the given DLT_* link type at ts_ns. */
void analysis_packet(struct analysis *a, int dlt, const uint8_t *pkt, uint32_t caplen,
		     uint64_t ts_ns);

/* End of input: close every open connection (analysis_listed lists them,
 * ordered by first appearance). */
void analysis_finish(struct analysis *a);

/* Settle attribution up to the watermark now (analysis_packet does every
 * 4,096 packets): a live capture calls it once a second with the wall
 * clock less what packets may still wait in the kernel (clock_ns; 0: the
 * capture's own time only), so an idle capture's time moves on too - the
 * last pages of a light load reach their routes and pings waiting for a
 * role get one while it runs. */
void analysis_settle(struct analysis *a, uint64_t clock_ns);

/* The input is near its end (a file's last few thousand packets): the
 * attribution's thread gets what is left in smaller batches
 * (attrib_pipe_ending).  Only a hint: the figures are the same without. */
void analysis_ending(struct analysis *a);

void analysis_free(struct analysis *a);

/* An analysis' storage, for analysis_init and analysis_free (which may
 * reuse it: a capture's rotation), or NULL when out of memory; given back
 * by analysis_delete.  struct analysis is the engine's own
 * (analysis_impl.h): everything else reads a finished one through the
 * functions below. */
struct analysis *analysis_new(void);
void analysis_delete(struct analysis *a);

/* A new analysis in a's storage after a finished one (a capture's
 * rotation), the routes' parameters learnt so far handed on: 0, or -1
 * when out of memory (a is freed then). */
int analysis_restart(struct analysis *a, const struct analysis_opts *o);

struct keylog_reader;
/* A key log's secrets (NSS format, keylog.h) for the TLS connections of
 * the analysis (--tls-keylog), read whole; read says what its lines were.
 * 0, or -1 with errno when the file cannot be read. */
int analysis_keylog(struct analysis *a, const char *path, struct keylog_reader *read);

/* The routes' learning or the first pages' hold ran out of memory: routes
 * named before their parameters were learnt (the out-of-memory finding). */
bool analysis_pages_short(const struct analysis *a);

/* What a finished analysis (or a live one, so far) holds: its options, the
 * engine's own counts, the pages and routes (attrib.h; attributing: HTTP
 * ports were given), the routes' learnt parameters, a proxy's twin pages,
 * the connections listed (*n of them, by first appearance) and how many
 * are open now. */
const struct analysis_opts *analysis_options(const struct analysis *a);
const struct analysis_totals *analysis_counts(const struct analysis *a);
const struct attrib *analysis_attrib(const struct analysis *a);
bool analysis_attributing(const struct analysis *a);
const struct route_learn *analysis_learn(const struct analysis *a);
const struct page_twins *analysis_twins(const struct analysis *a);
const struct conn_summary *analysis_listed(const struct analysis *a, uint32_t *n);

/* The protocol registered as id, or NULL. */
const struct proto_ops *analysis_protocol(enum proto_id id);

/* Every protocol's figures per page (figure.h), numbered across the
 * registry in its order: the nth, its protocol in *proto, or NULL past the
 * last.  Stored runs are read with the same numbers. */
const struct page_figure *analysis_page_figure(int n, const struct proto_ops **proto);

/* Every protocol's connection figures kept with a stored run (those with
 * a title), numbered across the registry in its order: the nth, its
 * protocol in *proto, or NULL past the last. */
const struct conn_figure *analysis_run_figure(int n, const struct proto_ops **proto);

/* Protocol id's servers were named (its port_option; PostgreSQL's -p
 * always is). */
bool analysis_asked(const struct analysis *a, enum proto_id id);

/* The ports its port_option named, *n of them (PostgreSQL's: -p's). */
const uint16_t *analysis_ports(const struct analysis *a, enum proto_id id, int *n);

/* A connection's own figures (its protocol's conn_figs read them), or
 * NULL: none (PostgreSQL's are conn_rtt_stats(c)). */
const void *analysis_conn_figures(const struct conn_summary *c);

/* Protocol id's own part of o (its observers: Redis's struct
 * redis_observers), or NULL. */
void *analysis_opts_part(struct analysis_opts *o, enum proto_id id);

struct analysis_live;
/* The running figures of a protocol with conn_figs, in o (analysis_live
 * below), or NULL. */
const void *analysis_live_figures(const struct analysis_live *o, enum proto_id id);

/* Protocol id's figures (per page, per route) stand for something: it was
 * asked for and its round trips were seen (proto_ops.measured, where it has one).  Otherwise
 * they are not measured (null, NULL, "-", a failed rule), never 0: a
 * wrong port is no Redis-free app. */
bool analysis_measured(const struct analysis *a, enum proto_id id);

/* PostgreSQL was measured: round trips were counted, or the capture holds
 * no PostgreSQL packet at all but Redis was measured (evidence.h's
 * redis-only: pages served from a cache make 0, truly).  Otherwise - the
 * fatal no-postgresql or no-round-trips: a wrong -p, nothing but
 * encrypted connections - no route's round trips per page were measured:
 * null, NULL, "-", "not measured", never 0. */
bool analysis_pg_measured(const struct analysis *a);

/* Protocol p's state for the whole analysis (proto.h's shared_size; its
 * own header says what it is: redis_totals.h), or NULL. */
void *analysis_shared(const struct analysis *a, enum proto_id p);

/* What the PostgreSQL connections share (never NULL after analysis_init). */
static inline const struct pgsql_shared *analysis_pgsql(const struct analysis *a)
{
	return (const struct pgsql_shared *)analysis_shared(a, PROTO_PGSQL);
}

/* The HTTP connections' totals (never NULL after analysis_init). */
static inline const struct http_totals *analysis_http(const struct analysis *a)
{
	return (const struct http_totals *)analysis_shared(a, PROTO_HTTP);
}

/* What is counted so far, the open connections included (their figures
 * reach the totals only when they close): the status line, SIGUSR1 and
 * --metrics.  Walks the open connections.  pg.lat, when set, gets the open
 * connections' latencies merged in (the caller merges the closed ones',
 * pgsql_shared.lat). */
struct analysis_live {
	uint64_t open;
	struct http_live http;
	struct pgsql_live pg;
	/* every other protocol's, by its id: its conn_figs' struct, summed
	 * (analysis_live_figures) */
	alignas(8) unsigned char proto_figures[PROTO_N][PROTO_LIVE_MAX];
};
void analysis_live(const struct analysis *a, struct analysis_live *out);

/* "ip:port", IPv6 as "[addr]:port". */
void addr_format(char *buf, size_t cap, uint8_t af, const uint8_t *addr, uint16_t port);

#endif
