/* textring.h - the statement texts of recent round trips, for pgrtt dump
 * --round-trips and trace, which print a round trip after the message that
 * carried its text is gone (trace: once attribution settles its page).  A
 * ring of bytes, allocated once: memory is its size, never the capture's;
 * a text written over since is reported as such, not guessed. */
#ifndef PGRTT_TEXTRING_H
#define PGRTT_TEXTRING_H

#include <stddef.h>
#include <stdint.h>

#define TEXTRING_SIZE (8u << 20) /* trace holds pages up to --page-timeout: seconds of texts */
#define TEXTRING_TEXT_MAX 1024  /* longest text kept: what a line shows is shorter */

struct textring {
	char *buf;
	size_t cap;
	uint64_t head; /* bytes written since the start, padding included */
};

int textring_init(struct textring *t, size_t cap); /* 0, or -1: out of memory */
void textring_free(struct textring *t);

/* Keep s[0..n) (cut at TEXTRING_TEXT_MAX); its handle, never 0. */
uint64_t textring_put(struct textring *t, const char *s, size_t n);

/* The text of handle h, or NULL when h is 0 or was written over; *n its
 * length.  Valid until the next put. */
const char *textring_get(const struct textring *t, uint64_t h, size_t *n);

#endif
