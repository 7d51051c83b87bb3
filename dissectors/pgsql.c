/* pgsql.c - PostgreSQL frontend/backend protocol 3.0/3.2: incremental framer.
 *
 * Reference: PostgreSQL 18 documentation, "Frontend/Backend Protocol",
 *            sections "Message Flow" and "Message Formats".
 *
 * Every message after startup:
 *
 *    +------+------------------+---------------------------+
 *    | type |  length (Int32)  |  body (length - 4 bytes)  |
 *    +------+------------------+---------------------------+
 *      1 B    includes itself
 *
 * Startup-phase frontend packets have no type byte: Int32 length, Int32 code
 * (196608/196610 = protocol 3.0/3.2, 80877103 SSLRequest, 80877104
 * GSSENCRequest, 80877102 CancelRequest).  An SSLRequest or GSSENCRequest is
 * answered by one byte: 'S'/'G' (encryption follows) or 'N'.
 */
#include "pgsql.h"

#include "encstream.h"
#include "gap.h"

#include <string.h>

#include "rd.h"

/* ----------------------------------------------------------------------
 * Message tables
 * ---------------------------------------------------------------------- */

struct type_info {
	const char *name;
	uint32_t max;   /* largest length word */
	uint32_t exact; /* required length word, or 0 */
};

/* By type byte, from the one list in pgsql_msgs.h; no name: not a type. */
#define X(ch, id, nm, mx, ex) [(uint8_t)(ch)] = {nm, mx, ex},
static const struct type_info fe_info[256] = {PGSQL_FE_MSGS(X)};
static const struct type_info be_info[256] = {PGSQL_BE_MSGS(X)};
#undef X

static const struct type_info *info(enum pgsql_side side, uint8_t type)
{
	const struct type_info *t = side == PGSQL_FE ? &fe_info[type] : &be_info[type];
	return t->name ? t : NULL;
}

bool pgsql_type_valid(enum pgsql_side side, uint8_t type)
{
	return info(side, type) != NULL;
}

const char *pgsql_type_name(enum pgsql_side side, uint8_t type)
{
	switch (type) {
	case PGSQL_STARTUP:
		return "StartupMessage";
	case PGSQL_SSL_REQUEST:
		return "SSLRequest";
	case PGSQL_GSS_REQUEST:
		return "GSSENCRequest";
	case PGSQL_CANCEL:
		return "CancelRequest";
	case PGSQL_ENC_ANSWER:
		return "EncryptionAnswer";
	default:
		break;
	}
	const struct type_info *t = info(side, type);
	return t ? t->name : "Unknown";
}

long pgsql_check_header(enum pgsql_side side, const uint8_t *buf, size_t len)
{
	struct rd r = rd_init(buf, len);
	uint8_t type = rd_u8(&r);
	if (r.bad)
		return 0;
	const struct type_info *t = info(side, type);
	if (t == NULL)
		return -1;
	uint32_t n = rd_be32(&r);
	if (r.bad)
		return 0;
	if (n < 4 || n > t->max || (t->exact && n != t->exact))
		return -1;
	if (type == PGSQL_BE_READY && side == PGSQL_BE && rd_left(&r) >= 1) {
		uint8_t st = rd_peek(&r, 0); /* the transaction status */
		if (st != 'I' && st != 'T' && st != 'E')
			return -1;
	}
	return (long)n + 1;
}

/* ----------------------------------------------------------------------
 * Startup-phase packets
 * ---------------------------------------------------------------------- */

/* Pseudo type of an untyped packet from its length word and code, or 0 if
 * the pair is impossible. */
static uint8_t startup_kind(uint32_t len, uint32_t code)
{
	if (len < 8 || len > PGSQL_MAX_STARTUP + 4)
		return 0;
	switch (code) {
	case PGSQL_SSL_CODE:
		return len == 8 ? PGSQL_SSL_REQUEST : 0;
	case PGSQL_GSSENC_CODE:
		return len == 8 ? PGSQL_GSS_REQUEST : 0;
	case PGSQL_CANCEL_CODE:
		/* 3.0: 4-byte key; 3.2: 4 to 256 bytes */
		return len >= 16 && len <= 12 + PGSQL_MAX_CANCEL_KEY ? PGSQL_CANCEL : 0;
	default:
		return code >> 16 == 3 ? PGSQL_STARTUP : 0;
	}
}

/* ----------------------------------------------------------------------
 * Resynchronisation
 * ---------------------------------------------------------------------- */

#define CHAIN_WALK_MAX 4096

/* True if buf[0..len) is a chain of plausible messages ending exactly at
 * len (capture writes end on message boundaries far more often than not). */
static bool chain_valid(enum pgsql_side side, const uint8_t *buf, size_t len)
{
	size_t off = 0;
	for (int n = 0; n < CHAIN_WALK_MAX; n++) {
		long m = pgsql_check_header(side, buf + off, len - off);
		if (m <= 0)
			return false;
		if ((size_t)m > len - off)
			return false;
		off += (size_t)m;
		if (off == len)
			return true;
	}
	return true;
}

static bool startup_at(const uint8_t *buf, size_t len)
{
	struct rd r = rd_init(buf, len);
	uint32_t n = rd_be32(&r);
	uint32_t code = rd_be32(&r);
	return !r.bad && n == len && startup_kind(n, code) != 0;
}

int pgsql_guess_side(const uint8_t *buf, size_t len)
{
	if (len == 0)
		return -1;
	if (startup_at(buf, len))
		return PGSQL_FE;
	bool fe = chain_valid(PGSQL_FE, buf, len), be = chain_valid(PGSQL_BE, buf, len);
	return fe == be ? -1 : fe ? PGSQL_FE : PGSQL_BE;
}

/* Offset of the first message boundary in buf, or len if none. */
static size_t find_boundary(struct pgsql_conn *c, enum pgsql_side side, const uint8_t *buf,
			    size_t len)
{
	if (side == PGSQL_FE && c->proto == 0 && startup_at(buf, len))
		return 0;
	for (size_t k = 0; k < len; k++) {
		if (pgsql_type_valid(side, buf[k]) && chain_valid(side, buf + k, len - k))
			return k;
	}
	return len;
}

/* ----------------------------------------------------------------------
 * Framing
 * ---------------------------------------------------------------------- */

static void dir_reset_msg(struct pgsql_dir *d)
{
	d->hdr_have = 0;
	d->in_body = false;
	d->prefix_frozen = false;
	d->body_left = 0;
	d->prefix_have = 0;
	d->cur.truncated = false;
	d->cur.gap = false;
	d->cur.code = 0;
}

static void enter_resync(struct pgsql_dir *d)
{
	dir_reset_msg(d);
	d->phase = PGSQL_PH_RESYNC;
}

void pgsql_conn_init(struct pgsql_conn *c, bool from_start)
{
	memset(c, 0, sizeof(*c));
	for (int s = 0; s < 2; s++)
		c->dir[s].cur.side = (uint8_t)s;
	if (from_start) {
		c->dir[PGSQL_FE].phase = PGSQL_PH_STARTUP;
		c->dir[PGSQL_BE].phase = PGSQL_PH_NORMAL;
	} else {
		c->mid_stream = true;
		c->dir[PGSQL_FE].phase = PGSQL_PH_RESYNC;
		c->dir[PGSQL_BE].phase = PGSQL_PH_RESYNC;
	}
}

static void go_tls(struct pgsql_conn *c, uint8_t kind)
{
	c->tls = kind;
	for (int s = 0; s < 2; s++) {
		dir_reset_msg(&c->dir[s]);
		c->dir[s].phase = PGSQL_PH_TLS;
	}
}

void pgsql_decrypted(struct pgsql_conn *c)
{
	for (int s = 0; s < 2; s++)
		dir_reset_msg(&c->dir[s]);
	c->dir[PGSQL_FE].phase = PGSQL_PH_STARTUP;
	c->dir[PGSQL_BE].phase = PGSQL_PH_NORMAL;
}

/* The message in d->cur is complete: update protocol state, then emit. */
static void finish_msg(struct pgsql_conn *c, struct pgsql_dir *d, const uint8_t *body,
		       uint32_t body_len, uint64_t ts, pgsql_msg_fn *emit, void *ctx)
{
	struct pgsql_msg *m = &d->cur;
	m->ts_last = ts;
	m->body = body;
	m->body_len = body_len;
	m->truncated = m->len >= 4 && body_len < m->len - 4;
	d->msgs++;

	if (m->side == PGSQL_FE && d->phase == PGSQL_PH_STARTUP) {
		switch (m->type) {
		case PGSQL_SSL_REQUEST:
			c->enc_pending = 'S';
			c->dir[PGSQL_BE].phase = PGSQL_PH_ENC_WAIT;
			break;
		case PGSQL_GSS_REQUEST:
			c->enc_pending = 'G';
			c->dir[PGSQL_BE].phase = PGSQL_PH_ENC_WAIT;
			break;
		case PGSQL_STARTUP:
			c->proto = m->code;
			d->phase = PGSQL_PH_NORMAL;
			break;
		default: /* CancelRequest: nothing follows on this connection */
			break;
		}
	}
	emit(ctx, m);
	dir_reset_msg(d);
}

/* Consume up to len bytes of a message header or body.  Returns bytes used. */
static size_t step_message(struct pgsql_conn *c, struct pgsql_dir *d, const uint8_t *data,
			   size_t len, uint64_t ts, pgsql_msg_fn *emit, void *ctx, bool *bad)
{
	struct pgsql_msg *m = &d->cur;
	bool untyped = d->phase == PGSQL_PH_STARTUP;
	size_t used = 0;

	if (!d->in_body) {
		size_t need = untyped ? 8 : 5;
		if (d->hdr_have == 0)
			m->ts_first = ts;
		if (untyped && d->hdr_have == 0 && data[0] == 0x16) {
			go_tls(c, 'D'); /* PostgreSQL 17 direct TLS: a ClientHello */
			return 0;
		}
		if (d->hdr_have == 0 && !untyped && len >= 5) {
			/* the usual case: a whole header in this piece */
			if (!pgsql_type_valid((enum pgsql_side)m->side, data[0])) {
				*bad = true;
				return 1;
			}
			memcpy(d->hdr, data, 5);
			d->hdr_have = 5;
			used = 5;
		}
		while (d->hdr_have < need && used < len) {
			if (d->hdr_have < sizeof(d->hdr))
				d->hdr[d->hdr_have] = data[used];
			else
				d->prefix[d->hdr_have - sizeof(d->hdr)] = data[used];
			d->hdr_have++;
			used++;
			if (!untyped && d->hdr_have == 1 &&
			    !pgsql_type_valid((enum pgsql_side)m->side, d->hdr[0])) {
				*bad = true;
				return used;
			}
		}
		if (d->hdr_have < need)
			return used;
		if (untyped) {
			uint8_t raw[8];
			memcpy(raw, d->hdr, 5);
			memcpy(raw + 5, d->prefix, 3);
			struct rd r = rd_init(raw, 8);
			uint32_t n = rd_be32(&r);
			uint32_t code = rd_be32(&r);
			uint8_t kind = startup_kind(n, code);
			if (kind == 0) {
				*bad = true;
				return used;
			}
			m->type = kind;
			m->len = n;
			m->code = code;
			/* the code is part of the body: keep it in the prefix */
			memcpy(d->prefix, raw + 4, 4);
			d->prefix_have = 4;
			d->body_left = n - 8;
		} else {
			long sz = pgsql_check_header((enum pgsql_side)m->side, d->hdr, 5);
			if (sz < 0) {
				*bad = true;
				return used;
			}
			m->type = d->hdr[0];
			m->len = (uint32_t)sz - 1;
			d->body_left = m->len - 4;
		}
		if (d->body_left == 0) {
			finish_msg(c, d, d->prefix, d->prefix_have, ts, emit, ctx);
			return used;
		}
		d->in_body = true;
	}

	size_t take = len - used;
	if (take > d->body_left)
		take = d->body_left;
	const uint8_t *p = data + used;
	if (d->prefix_have == 0 && take == d->body_left && !d->prefix_frozen) {
		/* whole body in this piece: a view, no copy */
		used += take;
		d->body_left = 0;
		uint32_t blen = (uint32_t)take;
		finish_msg(c, d, p, blen, ts, emit, ctx);
		return used;
	}
	if (!d->prefix_frozen && d->prefix_have < PGSQL_PREFIX_MAX) {
		size_t room = PGSQL_PREFIX_MAX - d->prefix_have;
		size_t cp = take < room ? take : room;
		memcpy(d->prefix + d->prefix_have, p, cp);
		d->prefix_have += (uint32_t)cp;
	}
	used += take;
	d->body_left -= (uint32_t)take;
	if (d->body_left == 0)
		finish_msg(c, d, d->prefix, d->prefix_have, ts, emit, ctx);
	return used;
}

static size_t step_enc_answer(struct pgsql_conn *c, struct pgsql_dir *d, const uint8_t *data,
			      size_t len, uint64_t ts, pgsql_msg_fn *emit, void *ctx)
{
	uint8_t a = data[0];
	uint8_t want = c->enc_pending;
	c->enc_pending = 0;
	if (a != 'N' && a != want) {
		/* e.g. an ErrorResponse from a server that refuses the request */
		d->phase = PGSQL_PH_NORMAL;
		return 0;
	}
	struct pgsql_msg *m = &d->cur;
	m->type = PGSQL_ENC_ANSWER;
	m->len = 1;
	m->ts_first = ts;
	d->phase = PGSQL_PH_NORMAL;
	finish_msg(c, d, data, 1, ts, emit, ctx);
	if (a != 'N') {
		if (len > 1)
			c->enc_extra_bytes += (uint32_t)(len - 1);
		go_tls(c, a);
		c->dir[PGSQL_BE].tls_bytes += len - 1;
		return len;
	}
	return 1;
}

void pgsql_feed(struct pgsql_conn *c, enum pgsql_side side, const uint8_t *data, size_t len,
		uint64_t ts_ns, pgsql_msg_fn *emit, void *ctx)
{
	struct pgsql_dir *d = &c->dir[side];
	size_t off = 0;

	while (off < len) {
		const uint8_t *p = data + off;
		size_t n = len - off;
		switch (d->phase) {
		case PGSQL_PH_TLS:
			d->tls_bytes += n;
			return;
		case PGSQL_PH_RESYNC: {
			if (off == 0 && c->mid_stream && c->dir[0].msgs + c->dir[1].msgs == 0) {
				/* nothing framed yet: is it encrypted? (encstream.h) */
				bool whole;
				enum enc_kind e = enc_kind_of(p, n, &whole);
				if (e != ENC_NONE && (whole || ++c->enc_votes >= 2)) {
					go_tls(c, e == ENC_GSS ? 'G' : 'T');
					d->tls_bytes += n;
					return;
				}
				if (e != ENC_NONE) { /* one more piece must agree */
					d->skipped_bytes += n;
					return;
				}
			}
			size_t k = find_boundary(c, side, p, n);
			d->skipped_bytes += k;
			off += k;
			if (k < n) {
				d->resyncs++;
				dir_reset_msg(d);
				d->phase = (side == PGSQL_FE && c->proto == 0 && startup_at(p + k, n - k))
						   ? PGSQL_PH_STARTUP
						   : PGSQL_PH_NORMAL;
			}
			break;
		}
		case PGSQL_PH_ENC_WAIT:
			off += step_enc_answer(c, d, p, n, ts_ns, emit, ctx);
			break;
		default: {
			bool bad = false;
			size_t hdr_before = d->in_body ? 0 : d->hdr_have;
			size_t used = step_message(c, d, p, n, ts_ns, emit, ctx, &bad);
			if (bad) {
				d->malformed++;
				/* rescan from just after the bad header's first byte,
				 * or from here if that byte came in an earlier piece */
				size_t back = hdr_before == 0 ? used - 1 : 0;
				enter_resync(d);
				d->skipped_bytes += used - back;
				off += used - back;
				if (back == 0 && used == 0)
					off++;
			} else {
				off += used;
			}
			break;
		}
		}
	}
}

void pgsql_gap(struct pgsql_conn *c, enum pgsql_side side, uint64_t n, uint64_t ts_ns,
	       pgsql_msg_fn *emit, void *ctx)
{
	struct pgsql_dir *d = &c->dir[side];
	if (n == 0)
		return;
	d->gap_bytes += n;
	if (d->phase == PGSQL_PH_TLS || d->phase == PGSQL_PH_RESYNC)
		return;
	if (gap_keeps_framing(d->in_body, n, d->body_left)) {
		d->cur.gap = true;
		d->prefix_frozen = true;
		d->body_left -= (uint32_t)n;
		if (d->body_left == 0)
			finish_msg(c, d, d->prefix, d->prefix_have, ts_ns, emit, ctx);
		return;
	}
	enter_resync(d);
}
