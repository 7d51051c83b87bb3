/* encstream.h - is a byte stream picked up mid-stream encrypted?
 *
 * A PostgreSQL connection captured without its start gives no SSLRequest
 * to tell that TLS follows.  Its bytes still have a shape: TLS records
 * (RFC 8446 5.1: content type 20-23, legacy version 3.1-3.4, a length of at
 * most 2^14 + 2048), or GSSAPI-encrypted packets (PostgreSQL's 4-byte length
 * followed by an RFC 4121 Wrap token: 05 04, flags, filler FF).  Neither
 * can start a PostgreSQL message: no message type is below 0x20 and no
 * length is that small with those bytes after it.
 *
 * Pure function over caller-owned bytes; every read is bounded (rd.h).
 */
#ifndef PGRTT_ENCSTREAM_H
#define PGRTT_ENCSTREAM_H

#include <stddef.h>
#include <stdint.h>

#include <stdbool.h>

enum enc_kind {
	ENC_NONE = 0, /* not the start of encrypted records */
	ENC_TLS,
	ENC_GSS,
};

/* Does buf[0..len), which starts at a TCP segment boundary, frame as
 * encrypted records?  *whole: the records chain exactly to len (strong
 * evidence); otherwise the last one runs past the data (weaker: callers wait
 * for a second piece that agrees). */
enum enc_kind enc_kind_of(const uint8_t *buf, size_t len, bool *whole);

#endif
