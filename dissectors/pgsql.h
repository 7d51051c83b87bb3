/* pgsql.h - PostgreSQL frontend/backend protocol 3.0/3.2: incremental framer.
 *
 * The framer consumes each direction's in-order byte stream, in pieces of any
 * size, and calls back once per complete message.  It never allocates and
 * keeps no pointer into the caller's bytes after returning: a message body
 * is either a view into the current piece (when the whole body is in it) or
 * a copy of its first PGSQL_PREFIX_MAX bytes.  A 1 GB DataRow costs a
 * counter, not memory.
 */
#ifndef PGRTT_PGSQL_H
#define PGRTT_PGSQL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pgsql_msgs.h"

#define PGSQL_PREFIX_MAX 1024 /* body bytes kept for decoding summaries */

enum pgsql_side { PGSQL_FE = 0, PGSQL_BE = 1 };

enum pgsql_phase {
	PGSQL_PH_STARTUP, /* frontend: untyped startup-phase packets expected */
	PGSQL_PH_NORMAL,  /* typed messages */
	PGSQL_PH_ENC_WAIT, /* backend: one-byte answer to SSL/GSSENC request */
	PGSQL_PH_TLS,     /* encrypted: bytes are counted, never decoded */
	PGSQL_PH_RESYNC,  /* lost or never had message boundaries: searching */
};

struct pgsql_msg {
	uint8_t side;        /* enum pgsql_side */
	uint8_t type;        /* type byte, or enum pgsql_pseudo_type */
	bool truncated;      /* body longer than body_len; the rest was skipped */
	bool gap;            /* some of this message's bytes were never captured */
	uint32_t len;        /* length word (includes itself); 1 for ENC_ANSWER */
	uint32_t code;       /* request code of untyped startup-phase packets */
	uint64_t ts_first;   /* ns timestamp of the piece holding the first byte */
	uint64_t ts_last;    /* ns timestamp of the piece holding the last byte */
	const uint8_t *body; /* valid only during the callback */
	uint32_t body_len;
};

typedef void pgsql_msg_fn(void *ctx, const struct pgsql_msg *m);

struct pgsql_dir {
	uint8_t phase;     /* enum pgsql_phase */
	uint8_t hdr[5];
	uint8_t hdr_have;
	bool in_body;
	bool prefix_frozen; /* a gap hit the prefix: stop copying */
	uint32_t body_left;
	uint32_t prefix_have;
	struct pgsql_msg cur;
	uint8_t prefix[PGSQL_PREFIX_MAX];
	/* counters */
	uint64_t msgs;
	uint64_t malformed;     /* impossible type or length: resynchronised */
	uint64_t resyncs;       /* times boundaries were (re)found */
	uint64_t skipped_bytes; /* bytes dropped while searching for a boundary */
	uint64_t gap_bytes;     /* bytes known lost (capture gaps) */
	uint64_t tls_bytes;     /* encrypted bytes */
};

struct pgsql_conn {
	struct pgsql_dir dir[2];
	uint8_t enc_pending;   /* 'S' or 'G' while an encryption request waits */
	uint8_t tls;           /* 0, or 'S' SSL, 'G' GSSAPI, 'D' direct TLS, 'T' TLS
				  recognised mid-stream (its negotiation unseen) */
	uint8_t enc_votes;     /* mid-stream pieces that began like encrypted records */
	bool mid_stream;       /* picked up without its start */
	uint32_t proto;        /* StartupMessage protocol, 0 if unseen */
	uint32_t enc_extra_bytes; /* plaintext after the 'S' answer (CVE-2021-23222) */
};

/* Start a connection.  from_start: the stream begins at the first byte the
 * client sent (SYN seen); otherwise both directions search for boundaries. */
void pgsql_conn_init(struct pgsql_conn *c, bool from_start);

/* Consume data[0..len) of one side's in-order stream, observed at ts_ns.
 * Calls emit once per complete message.  Malformed input is counted and the
 * side resynchronises; nothing here fails. */
void pgsql_feed(struct pgsql_conn *c, enum pgsql_side side, const uint8_t *data, size_t len,
		uint64_t ts_ns, pgsql_msg_fn *emit, void *ctx);

/* The connection's TLS is read (a key log's secrets): what follows is its
 * plaintext from the client's startup message on, fed as the stream was.
 * tls keeps saying how it was encrypted. */
void pgsql_decrypted(struct pgsql_conn *c);

/* n bytes of the side's stream were lost (capture drop, snaplen).  Inside a
 * body being skipped the side stays in step; otherwise it resynchronises. */
void pgsql_gap(struct pgsql_conn *c, enum pgsql_side side, uint64_t n, uint64_t ts_ns,
	       pgsql_msg_fn *emit, void *ctx);

/* Framing as a pure function, for tests and resynchronisation: check one
 * typed header at buf[0..len).  Returns the whole message size (1 + length
 * word) if plausible, 0 if more bytes are needed, -1 if impossible. */
long pgsql_check_header(enum pgsql_side side, const uint8_t *buf, size_t len);

/* Which side sent buf[0..len) (the first payload seen of a connection), from
 * whether it parses as a chain of frontend or of backend messages: PGSQL_FE,
 * PGSQL_BE, or -1 when both or neither fit. */
int pgsql_guess_side(const uint8_t *buf, size_t len);

const char *pgsql_type_name(enum pgsql_side side, uint8_t type);
bool pgsql_type_valid(enum pgsql_side side, uint8_t type);

#endif
