/* rd.h - bounds-checked reads over a caller-owned, immutable byte range.
 *
 * Every header and field read of the dissectors and of netdecode.c goes
 * through it; the byte scanners (pgsql.c's boundary search and header
 * assembly, http1.c's line scanner over a struct span) index only below a
 * length checked on the same line.  Reads past the end set a sticky `bad`
 * flag and return 0, so decoding code reads like the specification and
 * checks once at the end (tcpdump's GET_* idea, without longjmp).
 */
#ifndef PGRTT_RD_H
#define PGRTT_RD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct rd {
	const uint8_t *p;
	const uint8_t *end;
	bool bad; /* set by the first short read; sticky */
};

static inline struct rd rd_init(const uint8_t *p, size_t n)
{
	struct rd r = {p, p + n, false};
	return r;
}

static inline size_t rd_left(const struct rd *r)
{
	return r->bad ? 0 : (size_t)(r->end - r->p);
}

static inline bool rd_need(struct rd *r, size_t n)
{
	if (rd_left(r) < n) {
		r->bad = true;
		return false;
	}
	return true;
}

static inline uint8_t rd_u8(struct rd *r)
{
	if (!rd_need(r, 1))
		return 0;
	return *r->p++;
}

static inline uint16_t rd_be16(struct rd *r)
{
	if (!rd_need(r, 2))
		return 0;
	uint16_t v = (uint16_t)((unsigned)r->p[0] << 8 | r->p[1]);
	r->p += 2;
	return v;
}

static inline uint32_t rd_be32(struct rd *r)
{
	if (!rd_need(r, 4))
		return 0;
	uint32_t v = (uint32_t)r->p[0] << 24 | (uint32_t)r->p[1] << 16 |
		     (uint32_t)r->p[2] << 8 | (uint32_t)r->p[3];
	r->p += 4;
	return v;
}

/* The range ends n bytes from here, if that is sooner (a length field that
 * says less than was captured: padding follows); never later. */
static inline void rd_limit(struct rd *r, size_t n)
{
	if (rd_left(r) > n)
		r->end = r->p + n;
}

/* The byte at offset i from here without consuming it; 0 (and bad) past
 * the end. */
static inline uint8_t rd_peek(struct rd *r, size_t i)
{
	if (rd_left(r) <= i) {
		r->bad = true;
		return 0;
	}
	return r->p[i];
}

static inline void rd_skip(struct rd *r, size_t n)
{
	if (rd_need(r, n))
		r->p += n;
}

/* A view of the next n bytes; NULL (and bad) if fewer remain. */
static inline const uint8_t *rd_bytes(struct rd *r, size_t n)
{
	if (!rd_need(r, n))
		return NULL;
	const uint8_t *s = r->p;
	r->p += n;
	return s;
}

/* A NUL-terminated string wholly inside the range.  Returns its length and
 * points *s at it, or returns -1 (and sets bad) when there is no NUL. */
static inline ptrdiff_t rd_cstr(struct rd *r, const char **s)
{
	size_t n = rd_left(r);
	const uint8_t *nul = n ? memchr(r->p, 0, n) : NULL;
	if (nul == NULL) {
		r->bad = true;
		*s = "";
		return -1;
	}
	*s = (const char *)r->p;
	ptrdiff_t len = nul - r->p;
	r->p = nul + 1;
	return len;
}

#endif
