/* http_totals.h - a capture's HTTP/1.x connections added up.
 *
 * What the connections on --http-port share for the whole analysis
 * (proto.h's shared state): their requests and responses, what could not
 * be decoded and why, the first connections that stopped being decodable.
 * The HTTP plug-in fills it; the findings and the outputs read it. */
#ifndef PGRTT_HTTP_TOTALS_H
#define PGRTT_HTTP_TOTALS_H

#include <stdint.h>

#include "http1.h"
#include "proto/proto.h"

#define HTTP_MARKED_MAX 16

/* What dump watches (analysis_opts.http): every complete message, with the
 * connection's record (NULL: not watched). */
typedef void http_msg_observer(void *ctx, const struct conn_summary *c, const struct http1_msg *m);
struct http_observers {
	http_msg_observer *on_msg;
	void *ctx;
};

/* What a capture's HTTP connections answered so far, the open ones
 * included (analysis_live). */
struct http_live {
	uint64_t pages;
};

struct http_totals {
	uint64_t packets, connections, requests, responses, interim, unmatched, malformed,
		not_decodable, gaps;
	uint64_t by_error[HTTP1_E_COUNT];
	/* the first connections that stopped being decodable, and why */
	struct {
		char client[PROTO_ADDR_MAX], server[PROTO_ADDR_MAX];
		uint8_t error;
	} marked[HTTP_MARKED_MAX];
	uint32_t nmarked;
	struct http_observers observe;
};

#endif
