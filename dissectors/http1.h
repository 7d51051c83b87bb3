/* http1.h - HTTP/1.0 and HTTP/1.1 incremental framer (RFC 9112).
 *
 * Same shape as the PostgreSQL framer: each direction's in-order bytes are
 * fed in pieces of any size; a callback reports each complete message with
 * the times of its first and last byte.  A header block is read where it
 * lies when a segment holds it whole, else gathered in a buffer of
 * HTTP1_HEADER_MAX bytes, allocated for the direction when one first needs
 * it (http1_conn_free frees it); bodies - Content-Length, chunked (with trailers) or
 * read until the connection closes - are skipped by counting.  Responses are
 * matched to requests in order, pipelining included; HEAD, 1xx, 204 and 304
 * have no body.  HTTP/2 (prior knowledge) and TLS are detected and left
 * undecoded.  Nothing else allocates.
 */
#ifndef PGRTT_HTTP1_H
#define PGRTT_HTTP1_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HTTP1_HEADER_MAX 16384 /* bytes of a start line plus header fields */
#define HTTP1_FIELDS_MAX 100   /* header (or trailer) fields per message */
#define HTTP1_TARGET_MAX 256   /* request-target bytes kept (the rest is cut) */
#define HTTP1_PENDING_MAX 64   /* requests awaiting their response */
#define HTTP1_CHUNK_LINE_MAX 1024

enum http1_side { HTTP1_CLIENT = 0, HTTP1_SERVER = 1 };

enum http1_error {
	HTTP1_OK = 0,
	HTTP1_E_START_LINE,    /* not a request or status line */
	HTTP1_E_HEADER_SIZE,   /* header block over HTTP1_HEADER_MAX */
	HTTP1_E_HEADER_COUNT,  /* more than HTTP1_FIELDS_MAX fields */
	HTTP1_E_HEADER_SYNTAX, /* a field line without ':' or with a bad name */
	HTTP1_E_LENGTH,        /* bad or conflicting Content-Length */
	HTTP1_E_CHUNK,         /* bad chunk size line */
	HTTP1_E_ENCODING,      /* a request Transfer-Encoding not ending in chunked */
	HTTP1_E_PIPELINE,      /* more than HTTP1_PENDING_MAX requests outstanding */
	HTTP1_E_GAP,           /* bytes lost in capture: framing cannot continue */
	HTTP1_E_HTTP2,         /* HTTP/2 prior knowledge: not decoded */
	HTTP1_E_TLS,           /* TLS on an HTTP port: not decoded */
	HTTP1_E_UPGRADE,       /* 101 Switching Protocols or CONNECT: tunnel follows */
	HTTP1_E_NOMEM,         /* no memory for a header block split over segments */
	HTTP1_E_COUNT          /* the number of codes, HTTP1_OK among them */
};

struct http1_msg {
	uint8_t side;          /* enum http1_side */
	bool request;
	bool interim;          /* a 1xx response (100 Continue, 103 ...) */
	bool target_truncated;
	bool close_delimited;  /* response body ended by the connection closing */
	uint8_t version_minor; /* HTTP/1.0 or HTTP/1.1 */
	uint16_t status;       /* responses */
	uint32_t seq;          /* requests: 0, 1, 2 ... on this connection;
				  responses: the request answered, or UINT32_MAX */
	char method[16];       /* requests; responses: the method answered */
	char target[HTTP1_TARGET_MAX + 1];
	uint64_t body_bytes;
	uint64_t ts_first;     /* first byte of the start line */
	uint64_t ts_last;      /* last byte of the message */
	uint64_t request_ts;   /* responses: first byte of the request answered, or 0 */
};

typedef void http1_msg_fn(void *ctx, const struct http1_msg *m);

struct http1_dir {
	uint8_t state;
	uint8_t error;    /* enum http1_error once the direction is dead */
	bool chunked_cr;  /* a CR was seen where a line ends */
	uint32_t hdr_len; /* bytes in hdr */
	uint32_t line_len, fields;
	uint64_t body_left, chunk_size;
	struct http1_msg cur;
	/* HTTP1_HEADER_MAX bytes, allocated when a header block first comes
	 * split over segments (most come whole, and are read where they lie):
	 * two buffers in every connection were most of an open connection's
	 * memory, faulted in whole on huge pages */
	uint8_t *hdr;
};

struct http1_conn {
	struct http1_dir dir[2];
	/* requests not yet answered, oldest first: their method (for HEAD and
	 * CONNECT), sequence number and first byte's time */
	char pend_method[HTTP1_PENDING_MAX][16];
	uint32_t pend_seq[HTTP1_PENDING_MAX];
	uint64_t pend_ts[HTTP1_PENDING_MAX];
	uint32_t pend_head, pend_count;
	uint32_t next_seq;
	bool started;  /* any byte seen from the client */
	uint8_t error; /* first error on either side */
	/* counters */
	uint64_t requests, responses, interim, unmatched, malformed;
};

/* Ready for a new connection.  c must be zeroed before its first init
 * (static, calloc) or have been inited before: its header buffers, if it
 * has any, are kept for the next one. */
void http1_conn_init(struct http1_conn *c);

/* Frees the header buffers (the connection is done). */
void http1_conn_free(struct http1_conn *c);

/* Consume data[0..len) of one side's stream observed at ts_ns; emit is called
 * once per complete message. */
void http1_feed(struct http1_conn *c, enum http1_side side, const uint8_t *data, size_t len,
		uint64_t ts_ns, http1_msg_fn *emit, void *ctx);

/* The side closed its stream (FIN or RST): a response read until close ends
 * here. */
void http1_eof(struct http1_conn *c, enum http1_side side, uint64_t ts_ns, http1_msg_fn *emit,
	       void *ctx);

/* n bytes of the side's stream were lost, noticed at ts_ns.  Inside a body
 * of known length, up to its last byte, the side stays in step (a message
 * the hole completes is emitted); otherwise it stops decoding
 * (HTTP1_E_GAP). */
void http1_gap(struct http1_conn *c, enum http1_side side, uint64_t n, uint64_t ts_ns,
	       http1_msg_fn *emit, void *ctx);

/* The first-byte time of the oldest request whose page is not complete:
 * its response is under way or not started, or the request itself is still
 * arriving; false when there is none. */
bool http1_oldest_open(const struct http1_conn *c, uint64_t *ts);

const char *http1_error_name(int e);

#endif
