/* gap.h - the one rule both framers apply to a capture gap.
 *
 * Bytes the capture lost keep a framer in step only when they fall inside
 * a body whose length it knows, up to and including the body's last byte:
 * then it skips them as it would have skipped the body.  Anywhere else
 * (a header, a chunk size, a body read until close) the framer has lost
 * the boundaries: PostgreSQL resynchronises, HTTP/1.x stops decoding. */
#ifndef PGRTT_GAP_H
#define PGRTT_GAP_H

#include <stdbool.h>
#include <stdint.h>

static inline bool gap_keeps_framing(bool in_known_body, uint64_t gap, uint64_t body_left)
{
	return in_known_body && gap <= body_left;
}

#endif
