/* tls_stream.h - a TLS connection's two byte streams in, its application
 * data out, with the secrets a key log gave.
 *
 * The table: every key log entry (keylog.h) by client random, in a fixed
 * number of slots made on the first entry; past it, entries are counted as
 * dropped, never grown into.  The stream: each direction's records put
 * back together (one record of at most TLS_RECORD_MAX bytes held per
 * direction), the ClientHello's random and the ServerHello's version and
 * suite read, then every encrypted record opened (tls_crypt.h): under the
 * handshake secrets until each side's Finished, the traffic secrets after,
 * a KeyUpdate moving them on.  The plaintext of application data goes to
 * the callback, as it would have come over a plain connection.
 *
 * What it cannot open it says, never guesses: no key for the random, a
 * version or suite it does not read (TLS 1.2 for now), a record that does
 * not authenticate or bytes that are no record (a wrong key, damage:
 * failed counts it, and that direction is read no further), a gap inside a
 * record (that record is lost: a gap in the plaintext, the next record
 * read), a gap between records (the rest of the direction unread).
 */
#ifndef PGRTT_TLS_STREAM_H
#define PGRTT_TLS_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "keylog.h"
#include "tls_crypt.h"

/* ---- the key table ---- */

#define TLS_KEYTAB_SLOTS 16384 /* connections' secrets held; the rest dropped */

/* The secrets of one ClientHello random. */
struct tls_secrets {
	uint8_t random[KEYLOG_RANDOM];
	uint8_t len[KEYLOG_NLABELS]; /* 0: that label's secret not given */
	uint8_t secret[KEYLOG_NLABELS][KEYLOG_SECRET_MAX];
};

struct tls_keytab {
	struct tls_secrets *slot; /* TLS_KEYTAB_SLOTS, open addressing; NULL until the first */
	uint32_t n;
	uint64_t dropped; /* entries past the table's room, or when out of memory */
};

/* An entry of the key log (a keylog_fn: ctx is the table). */
void tls_keytab_add(void *table, const struct keylog_entry *e);
const struct tls_secrets *tls_keytab_find(const struct tls_keytab *t,
					  const uint8_t random[KEYLOG_RANDOM]);
void tls_keytab_free(struct tls_keytab *t);

/* ---- a connection ---- */

enum tls_state {
	TLS_HELLO,     /* before the ServerHello */
	TLS_OPEN,      /* records opened */
	TLS_NO_KEY,    /* the key log has no secret for its random */
	TLS_UNREAD,    /* a version or suite not read (TLS 1.2, a HelloRetryRequest) */
	TLS_FAILED,    /* its keys could not be made (libcrypto) */
};

/* Plaintext of side's application data; or, p NULL, a gap in it: gap
 * bytes of its records the capture lost (their plaintext a little less). */
typedef void tls_plain_fn(void *ctx, int side, const uint8_t *p, size_t n, uint64_t gap);

struct tls_dir {
	uint8_t rec[5 + TLS_RECORD_MAX]; /* the record being put together */
	size_t have;
	struct tls_keys keys;
	bool encrypted;    /* its records are under keys */
	bool traffic;      /* ... the traffic secret's (after its Finished) */
	uint8_t hs_hdr[4]; /* a handshake message's header, split across records */
	uint8_t hs_hdr_have;
	uint32_t hs_left;  /* bytes of the current handshake message still to come */
	uint8_t hs_type;   /* its type */
	uint32_t skip;     /* bytes of a record a gap cut: thrown away, its number counted */
	bool stopped;      /* a record failed, or a gap lost the records' bounds */
};

struct tls_stream {
	const struct tls_keytab *keys;
	enum tls_state state;
	uint8_t random[KEYLOG_RANDOM];
	bool have_random;
	uint16_t version; /* 0x0304: TLS 1.3 */
	const struct tls_suite *suite;
	struct tls_dir dir[2]; /* 0: the client's, 1: the server's */
	/* records read, opened, failed (no authentication, no record), gaps */
	uint64_t records, opened, failed, lost;
};

void tls_stream_init(struct tls_stream *s, const struct tls_keytab *keys);
/* side's next n bytes, in order */
void tls_stream_data(struct tls_stream *s, int side, const uint8_t *p, size_t n, tls_plain_fn *fn,
		     void *ctx);
/* side lost n bytes (a capture gap) */
void tls_stream_gap(struct tls_stream *s, int side, uint64_t n, tls_plain_fn *fn, void *ctx);
/* Forget its keys. */
void tls_stream_clear(struct tls_stream *s);

#endif
