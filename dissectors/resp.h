/* resp.h - Redis's protocol, RESP2 and RESP3: incremental framer.
 *
 * The framer consumes each direction's in-order byte stream, in pieces of
 * any size split anywhere, and calls back once per complete top-level
 * value: a command from the client (an array of bulk strings, or an inline
 * command line), a reply or a push from the server (any RESP2/RESP3 type,
 * nested to RESP_DEPTH_MAX, an attribute joined to the reply it precedes,
 * streamed strings and aggregates).  It never allocates and keeps no
 * pointer into the caller's bytes: of a value it keeps its type, its size,
 * and the few bytes the protocol's state depends on - a command's name, and
 * the first two arguments of the commands that change how the connection
 * talks (CLIENT, HELLO, SELECT).  Keys, values and AUTH's arguments are
 * never kept.  A 512 MB bulk costs a counter.
 *
 * Limits are Redis's own (redis.conf: proto-max-bulk-len 512 MB, a client's
 * multibulk of at most 1M elements, an inline command of at most 64 KiB);
 * past one the value is malformed and the side resynchronises: at the next
 * line or piece that starts a plausible value.  So does a side picked up
 * mid-stream.  TLS (a ClientHello, or records picked up mid-stream) is
 * recognised and counted, never decoded.
 */
#ifndef PGRTT_RESP_H
#define PGRTT_RESP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum resp_side { RESP_CLIENT = 0, RESP_SERVER = 1 };

#define RESP_NAME_MAX 31             /* a command's name kept, upper-cased */
#define RESP_ARG_MAX 15              /* an argument kept (CLIENT, HELLO, SELECT only) */
#define RESP_BULK_MAX (512ull << 20) /* proto-max-bulk-len */
#define RESP_MULTIBULK_MAX (1u << 20) /* elements of a client's command */
#define RESP_INLINE_MAX (64u << 10)  /* an inline command's line */
#define RESP_LINE_MAX (64u << 10)    /* any other line (a simple string, a number) */
#define RESP_AGG_MAX (1ull << 32)    /* elements of a server's aggregate */
#define RESP_DEPTH_MAX 32            /* nesting followed; deeper is malformed */

#define RESP_INLINE 'i' /* resp_msg.type of an inline command */

struct resp_msg {
	uint8_t side;  /* enum resp_side */
	uint8_t type;  /* the top-level type byte ('*' '+' '-' ':' '$' '_' ',' '#' '(' '!' '='
			* '%' '~' '>'), or RESP_INLINE */
	bool push;     /* '>': out of band, answering no command */
	bool error;    /* '-' or '!' */
	bool null;     /* '_', $-1 or *-1 */
	bool attr;     /* an attribute ('|') came before it, joined to it */
	bool gap;      /* bytes of it were never captured */
	bool name_cut; /* the name was longer than RESP_NAME_MAX */
	uint64_t argc; /* a command's words; a reply's top-level elements */
	uint64_t bytes; /* on the wire */
	uint64_t ts_first, ts_last;
	/* a command's name, upper-cased; of a push, its first string; of a
	 * server's array, its first string when that names a pub/sub or
	 * tracking message ("MESSAGE", "SUBSCRIBE", "PONG"): "" otherwise - a
	 * reply's data is not kept */
	char name[RESP_NAME_MAX + 1];
	/* a command's first two arguments, upper-cased, for CLIENT, HELLO and
	 * SELECT only (CLIENT REPLY OFF, HELLO 3, SELECT 2): "" otherwise */
	char arg[2][RESP_ARG_MAX + 1];
};

typedef void resp_msg_fn(void *ctx, const struct resp_msg *m);

enum resp_state {
	RESP_ST_TYPE,   /* a value's first byte */
	RESP_ST_LINE,   /* the rest of its line */
	RESP_ST_BULK,   /* a bulk's bytes and their CRLF */
	RESP_ST_INLINE, /* a client's inline command line */
	RESP_ST_RESYNC, /* boundaries lost or never had: searching */
	RESP_ST_TLS,    /* encrypted: counted */
};

struct resp_dir {
	uint8_t state;      /* enum resp_state */
	uint8_t type;       /* of the line being read */
	bool cr;            /* the last byte read was CR */
	bool streamed_str;  /* inside a streamed string ($?): chunks follow */
	bool at_piece;      /* resync: the next byte starts a piece */
	bool tentative;     /* resync: found where a piece ended, not yet confirmed */
	bool inline_seen;   /* client: it has sent inline commands */
	uint8_t keep;       /* what the bulk being read goes to: 0 none, 1 name, 2-3 arg */
	uint8_t num_have;
	char num[24];       /* a header line's bytes, while short: the number */
	uint32_t line_len;
	uint64_t bulk_left; /* body bytes left, then 2 for CRLF */
	uint32_t depth;
	uint64_t left[RESP_DEPTH_MAX];  /* elements left at each level; UINT64_MAX: streamed */
	uint32_t attr_levels; /* bit k: level k is an attribute (not an element of its parent) */
	uint64_t total0;    /* elements of the top-level aggregate */
	uint32_t kept;      /* bytes of the current name or argument kept */
	uint32_t words;     /* inline: words seen */
	bool in_word;
	struct resp_msg cur;
	/* counters */
	uint64_t msgs;
	uint64_t malformed;     /* impossible bytes or sizes: resynchronised */
	uint64_t resyncs;       /* times boundaries were (re)found */
	uint64_t skipped_bytes; /* bytes dropped while searching for a boundary */
	uint64_t gap_bytes;     /* bytes known lost (capture gaps) */
	uint64_t tls_bytes;     /* encrypted bytes */
};

struct resp_conn {
	struct resp_dir dir[2];
	bool mid_stream; /* picked up without its start */
	bool tls;        /* encrypted: nothing is decoded */
	bool started[2]; /* a side's first piece was seen */
	bool slow;       /* the incremental machine only, never the whole-value
			  * path (set after init: the tests compare the two) */
};

/* Start a connection.  from_start: the stream begins at the first byte the
 * client sent (SYN seen); otherwise both directions search for boundaries. */
void resp_conn_init(struct resp_conn *c, bool from_start);

/* Consume data[0..len) of one side's in-order stream, observed at ts_ns
 * (a piece: a TCP segment's payload, or part of one).  Calls emit once per
 * complete top-level value.  Malformed input is counted and the side
 * resynchronises; nothing here fails. */
void resp_feed(struct resp_conn *c, enum resp_side side, const uint8_t *data, size_t len,
	       uint64_t ts_ns, resp_msg_fn *emit, void *ctx);

/* n bytes of the side's stream were lost.  Inside a bulk's bytes the side
 * stays in step (gap.h); anywhere else the value is lost and the side
 * resynchronises - but a client's command whose start was seen is emitted
 * first, marked gap (what was lost of it unknown: its name "" unless that
 * was read whole), so that a capture cut short of every command (a small
 * snaplen) still counts them: the server's reply comes whole. */
void resp_gap(struct resp_conn *c, enum resp_side side, uint64_t n, resp_msg_fn *emit, void *ctx);

/* Is b a RESP2/RESP3 type byte? */
bool resp_type_valid(uint8_t b);

#endif
