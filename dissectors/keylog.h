/* keylog.h - the NSS key log format (SSLKEYLOGFILE), read a piece at a time.
 *
 * What OpenSSL's keylog callback, libpq 18's sslkeylogfile, Go's
 * KeyLogWriter, Node's --tls-keylog, Python's keylog_filename and rustls
 * write, and Wireshark's tls.keylog_file reads: a line per secret,
 *
 *   LABEL SP CLIENT_RANDOM SP SECRET [CR] LF
 *
 * CLIENT_RANDOM the ClientHello's 32 bytes and SECRET 1 to 48 bytes, both
 * in hex; '#' comments and blank lines between.  TLS 1.2 writes
 * CLIENT_RANDOM (its 48-byte master secret), TLS 1.3 a traffic secret per
 * direction and phase (32 bytes under SHA-256, 48 under SHA-384).
 *
 * The file of a live capture grows while it is read: keylog_feed keeps a
 * line's start until its end comes, in fixed state; keylog_finish takes a
 * last line without its newline, when the file is known to be whole.
 * Everything in it is hostile: a line longer than KEYLOG_LINE_MAX is skipped
 * to its end, any malformed one counted, never an entry; nothing is
 * allocated.  Secrets only go to the callback - this file prints nothing.
 */
#ifndef PGRTT_KEYLOG_H
#define PGRTT_KEYLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KEYLOG_RANDOM 32     /* a ClientHello's random */
#define KEYLOG_SECRET_MAX 48 /* TLS 1.2's master secret, a SHA-384 traffic secret */
#define KEYLOG_LINE_MAX 256  /* the longest label, two hex fields and their spaces fit */

enum keylog_label {
	KEYLOG_CLIENT_RANDOM,       /* TLS 1.2: the master secret */
	KEYLOG_CLIENT_EARLY,        /* TLS 1.3: CLIENT_EARLY_TRAFFIC_SECRET (0-RTT) */
	KEYLOG_CLIENT_HANDSHAKE,    /* CLIENT_HANDSHAKE_TRAFFIC_SECRET */
	KEYLOG_SERVER_HANDSHAKE,    /* SERVER_HANDSHAKE_TRAFFIC_SECRET */
	KEYLOG_CLIENT_TRAFFIC,      /* CLIENT_TRAFFIC_SECRET_0 */
	KEYLOG_SERVER_TRAFFIC,      /* SERVER_TRAFFIC_SECRET_0 */
	KEYLOG_EXPORTER,            /* EXPORTER_SECRET: no record is under it */
	KEYLOG_EARLY_EXPORTER,      /* EARLY_EXPORTER_SECRET: nor under this */
	KEYLOG_NLABELS
};

struct keylog_entry {
	enum keylog_label label;
	uint8_t random[KEYLOG_RANDOM];
	uint8_t secret[KEYLOG_SECRET_MAX];
	uint8_t secret_len;
};

typedef void keylog_fn(void *ctx, const struct keylog_entry *e);

struct keylog_reader {
	char line[KEYLOG_LINE_MAX];
	size_t len;
	bool skipping; /* inside a line too long to keep: dropped to its end */
	/* lines read; entries given; lines with a label of no secret this
	 * reads (RSA, a future label); malformed (a bad field, too long,
	 * bytes no text has) */
	uint64_t lines, entries, unknown, malformed;
};

void keylog_init(struct keylog_reader *r);

/* The next n bytes of the file: each complete line's entry to fn. */
void keylog_feed(struct keylog_reader *r, const uint8_t *p, size_t n, keylog_fn *fn, void *ctx);

/* The file is whole: a last line without its newline is read too. */
void keylog_finish(struct keylog_reader *r, keylog_fn *fn, void *ctx);

/* "CLIENT_RANDOM", "CLIENT_TRAFFIC_SECRET_0", ... */
const char *keylog_label_name(enum keylog_label l);

#endif
