/* conn_summary.h - the engine's record of one connection, as every output
 * lists it: its endpoints, TCP's figures, its latencies, and its
 * protocol's own figures.
 *
 * The engine fills it as the connection closes (proto.h's host closed,
 * from the plug-in's struct proto_closing); observers see it while the
 * connection is open (its id and endpoints then).  What a protocol counts
 * of a connection is its own struct, copied into figures: PostgreSQL's
 * struct rtt_stats (pgsql_shared.h's conn_rtt_stats), Redis's struct
 * redis_stats (read through its conn_figs, figure.h).
 */
#ifndef PGRTT_CONN_SUMMARY_H
#define PGRTT_CONN_SUMMARY_H
#include <stdalign.h>
#include <stdbool.h>
#include <stdint.h>

#include "proto.h"

/* Room for any protocol's figures (each plug-in asserts its own fit). */
#define CONN_FIGURES_MAX 1088

struct conn_summary {
	uint64_t id;
	char client[PROTO_ADDR_MAX], server[PROTO_ADDR_MAX];
	uint64_t first_ts, last_ts, packets, bytes[2];
	bool mid_stream, syn_seen, fin_seen, rst_seen, evicted;
	bool undecodable; /* bytes on a PostgreSQL port, not one message framed */
	uint8_t tls; /* 0, 'S' SSL, 'G' GSSAPI, 'D' direct TLS */
	bool tls_decrypted; /* ... read with a key log's secrets */
	const char *server_from; /* "syn", "port" or "traffic": how the server side was told */
	uint64_t gaps, gap_bytes, malformed, skipped_bytes, resyncs, retrans_bytes, ooo_segs,
		truncated_segs, enc_extra_bytes;
	uint64_t lat_count, lat_p50, lat_p99, lat_max;
	uint8_t proto; /* enum proto_id: its protocol */
	/* its protocol's figures (proto_closing.figures), zero until it closes */
	alignas(8) unsigned char figures[CONN_FIGURES_MAX];
};

#endif
