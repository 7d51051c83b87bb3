/* encstream.c - encrypted PostgreSQL streams recognised by their framing. */
#include "encstream.h"

#include "rd.h"

#define TLS_HDR 5
#define TLS_MAX_RECORD (16384 + 2048) /* TLSCiphertext: 2^14 + 2048 at most */
#define GSS_HDR 8                     /* length word + the Wrap token's first 4 bytes */
#define GSS_MAX_PACKET 65536          /* PostgreSQL: 16 kB up to 17, larger from 18 */
#define CHAIN_MAX 1024                /* records walked in one piece */

/* 0: not a record header; else the record's whole size. */
static size_t tls_record(struct rd r)
{
	uint8_t type = rd_u8(&r);
	uint8_t major = rd_u8(&r), minor = rd_u8(&r);
	uint16_t n = rd_be16(&r);
	if (r.bad || type < 20 || type > 23 || major != 3 || minor < 1 || minor > 4 || n == 0 ||
	    n > TLS_MAX_RECORD)
		return 0;
	return TLS_HDR + (size_t)n;
}

static size_t gss_packet(struct rd r)
{
	uint32_t n = rd_be32(&r);
	uint8_t id0 = rd_u8(&r), id1 = rd_u8(&r);
	(void)rd_u8(&r); /* flags */
	uint8_t filler = rd_u8(&r);
	/* a Wrap token is at least its 16-byte header */
	if (r.bad || id0 != 0x05 || id1 != 0x04 || filler != 0xff || n < 16 || n > GSS_MAX_PACKET)
		return 0;
	return 4 + (size_t)n;
}

/* 0: no chain; 1: records chained exactly to len; 2: the last runs past it. */
static int chain(const uint8_t *buf, size_t len, size_t (*rec)(struct rd), size_t hdr)
{
	size_t off = 0;
	for (int i = 0; i < CHAIN_MAX && off < len; i++) {
		if (len - off < hdr)
			return i > 0 ? 2 : 0;
		size_t m = rec(rd_init(buf + off, len - off));
		if (m == 0)
			return 0;
		if (m > len - off)
			return 2;
		off += m;
	}
	return off == len ? 1 : 2;
}

enum enc_kind enc_kind_of(const uint8_t *buf, size_t len, bool *whole)
{
	int c = len ? chain(buf, len, tls_record, TLS_HDR) : 0;
	enum enc_kind k = ENC_TLS;
	if (c == 0 && len) {
		c = chain(buf, len, gss_packet, GSS_HDR);
		k = ENC_GSS;
	}
	*whole = c == 1;
	return c ? k : ENC_NONE;
}
