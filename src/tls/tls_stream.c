/* tls_stream.c - a TLS connection's records opened with a key log's
 * secrets (tls_stream.h). */
#include "tls_stream.h"

#include <stdlib.h>
#include <string.h>

#include "base/hash.h"

enum { CT_CCS = 20, CT_ALERT = 21, CT_HANDSHAKE = 22, CT_APP = 23 };
enum { HS_CLIENT_HELLO = 1, HS_SERVER_HELLO = 2, HS_FINISHED = 20, HS_KEY_UPDATE = 24 };

/* ---- the key table ---- */

static uint32_t slot_of(const uint8_t *random)
{
	uint64_t h = mem_hash64(random, KEYLOG_RANDOM);
	return (uint32_t)(h % TLS_KEYTAB_SLOTS);
}

static bool slot_used(const struct tls_secrets *e)
{
	for (int l = 0; l < KEYLOG_NLABELS; l++)
		if (e->len[l])
			return true;
	return false;
}

void tls_keytab_add(void *table, const struct keylog_entry *e)
{
	struct tls_keytab *t = table;
	if (!t->slot && !(t->slot = calloc(TLS_KEYTAB_SLOTS, sizeof(*t->slot)))) {
		t->dropped++;
		return;
	}
	for (uint32_t i = slot_of(e->random), probes = 0; probes < TLS_KEYTAB_SLOTS;
	     i = (i + 1) % TLS_KEYTAB_SLOTS, probes++) {
		struct tls_secrets *x = &t->slot[i];
		bool used = slot_used(x);
		if (used && memcmp(x->random, e->random, KEYLOG_RANDOM) != 0)
			continue;
		if (!used) {
			if (t->n >= TLS_KEYTAB_SLOTS * 3 / 4) /* kept sparse: lookups stay short */
				break;
			memcpy(x->random, e->random, KEYLOG_RANDOM);
			t->n++;
		}
		x->len[e->label] = e->secret_len;
		memcpy(x->secret[e->label], e->secret, e->secret_len);
		return;
	}
	t->dropped++;
}

const struct tls_secrets *tls_keytab_find(const struct tls_keytab *t,
					  const uint8_t random[KEYLOG_RANDOM])
{
	for (uint32_t i = slot_of(random), probes = 0; t->slot && probes < TLS_KEYTAB_SLOTS;
	     i = (i + 1) % TLS_KEYTAB_SLOTS, probes++) {
		const struct tls_secrets *x = &t->slot[i];
		if (!slot_used(x))
			return NULL;
		if (memcmp(x->random, random, KEYLOG_RANDOM) == 0)
			return x;
	}
	return NULL;
}

void tls_keytab_free(struct tls_keytab *t)
{
	if (t->slot)
		memset(t->slot, 0, TLS_KEYTAB_SLOTS * sizeof(*t->slot)); /* no secret left behind */
	free(t->slot);
	memset(t, 0, sizeof(*t));
}

/* ---- a connection ---- */

void tls_stream_init(struct tls_stream *s, const struct tls_keytab *keys)
{
	memset(s, 0, sizeof(*s));
	s->keys = keys;
}

void tls_stream_clear(struct tls_stream *s)
{
	tls_keys_clear(&s->dir[0].keys);
	tls_keys_clear(&s->dir[1].keys);
}

/* The ClientHello's random: handshake header (4), legacy version (2). */
static void client_hello(struct tls_stream *s, const uint8_t *m, size_t n)
{
	if (n >= 4 + 2 + KEYLOG_RANDOM && m[0] == HS_CLIENT_HELLO && !s->have_random) {
		memcpy(s->random, m + 6, KEYLOG_RANDOM);
		s->have_random = true;
	}
}

/* TLS 1.3's ServerHello chose version 0x0304 in supported_versions and
 * a suite; a HelloRetryRequest's random is this constant (RFC 8446 4.1.3). */
static const uint8_t hrr_random[32] = {
	0xcf, 0x21, 0xad, 0x74, 0xe5, 0x9a, 0x61, 0x11, 0xbe, 0x1d, 0x8c, 0x02, 0x1e, 0x65, 0xb8, 0x91,
	0xc2, 0xa2, 0x11, 0x16, 0x7a, 0xbb, 0x8c, 0x5e, 0x07, 0x9e, 0x09, 0xe2, 0xc8, 0xa8, 0x33, 0x9c};

static bool server_hello(struct tls_stream *s, const uint8_t *m, size_t n, uint16_t *suite)
{
	size_t o = 4 + 2; /* header, legacy version */
	if (n < o + 32 + 1 || m[0] != HS_SERVER_HELLO)
		return false;
	if (memcmp(m + o, hrr_random, 32) == 0)
		return false;
	o += 32;
	o += 1 + (size_t)m[o]; /* session id */
	if (o + 2 + 1 + 2 > n)
		return false;
	*suite = (uint16_t)(m[o] << 8 | m[o + 1]);
	o += 3; /* suite, compression */
	size_t end = o + 2 + (size_t)(m[o] << 8 | m[o + 1]);
	o += 2;
	if (end > n)
		return false;
	s->version = 0x0303;
	while (o + 4 <= end) {
		uint16_t type = (uint16_t)(m[o] << 8 | m[o + 1]);
		size_t len = (size_t)(m[o + 2] << 8 | m[o + 3]);
		o += 4;
		if (o + len > end)
			return false;
		if (type == 43 && len == 2) /* supported_versions */
			s->version = (uint16_t)(m[o] << 8 | m[o + 1]);
		o += len;
	}
	return true;
}

/* After the ServerHello: both directions' handshake keys, or why not. */
static void keys_from_log(struct tls_stream *s, uint16_t suite)
{
	s->suite = s->version == 0x0304 ? tls13_suite(suite) : NULL;
	if (!s->suite) {
		s->state = TLS_UNREAD;
		return;
	}
	const struct tls_secrets *x = s->have_random && s->keys ? tls_keytab_find(s->keys, s->random)
								: NULL;
	if (!x || x->len[KEYLOG_CLIENT_HANDSHAKE] != s->suite->hash_len ||
	    x->len[KEYLOG_SERVER_HANDSHAKE] != s->suite->hash_len) {
		s->state = TLS_NO_KEY;
		return;
	}
	if (tls13_keys(&s->dir[0].keys, s->suite, x->secret[KEYLOG_CLIENT_HANDSHAKE],
		       s->suite->hash_len) != 0 ||
	    tls13_keys(&s->dir[1].keys, s->suite, x->secret[KEYLOG_SERVER_HANDSHAKE],
		       s->suite->hash_len) != 0) {
		s->state = TLS_FAILED;
		return;
	}
	s->dir[0].encrypted = s->dir[1].encrypted = true;
	s->state = TLS_OPEN;
}

/* A direction's traffic secret, once its Finished is through (or the
 * next, after a KeyUpdate). */
static void next_keys(struct tls_stream *s, int side, bool update)
{
	struct tls_dir *d = &s->dir[side];
	int rc;
	if (update) {
		rc = tls13_update(&d->keys);
	} else {
		const struct tls_secrets *x = tls_keytab_find(s->keys, s->random);
		enum keylog_label l = side ? KEYLOG_SERVER_TRAFFIC : KEYLOG_CLIENT_TRAFFIC;
		rc = x && x->len[l] == s->suite->hash_len
			     ? tls13_keys(&d->keys, s->suite, x->secret[l], s->suite->hash_len)
			     : -1;
		d->traffic = true;
	}
	if (rc != 0) {
		d->stopped = true;
		s->state = TLS_NO_KEY;
	}
}

/* Handshake messages in an opened record: one whose end is the side's
 * Finished brings its traffic keys, a KeyUpdate the next; the rest of
 * that record, if any, is the protocol's error and is not read. */
static void handshake_bytes(struct tls_stream *s, int side, const uint8_t *p, size_t n)
{
	struct tls_dir *d = &s->dir[side];
	while (n) {
		if (!d->hs_left) { /* a message's header, maybe split across records */
			d->hs_hdr[d->hs_hdr_have++] = *p++;
			n--;
			if (d->hs_hdr_have < 4)
				continue;
			d->hs_hdr_have = 0;
			d->hs_type = d->hs_hdr[0];
			d->hs_left = (uint32_t)d->hs_hdr[1] << 16 | (uint32_t)d->hs_hdr[2] << 8 |
				     d->hs_hdr[3];
			if (d->hs_left)
				continue;
		} else {
			size_t take = n < d->hs_left ? n : d->hs_left;
			d->hs_left -= (uint32_t)take;
			p += take;
			n -= take;
			if (d->hs_left)
				continue;
		}
		if (d->hs_type == HS_FINISHED && !d->traffic) {
			next_keys(s, side, false);
			return;
		}
		if (d->hs_type == HS_KEY_UPDATE && d->traffic) {
			next_keys(s, side, true);
			return;
		}
	}
}

/* One whole record of side. */
static void record(struct tls_stream *s, int side, tls_plain_fn *fn, void *ctx)
{
	struct tls_dir *d = &s->dir[side];
	const uint8_t *hdr = d->rec, *body = d->rec + 5;
	size_t len = d->have - 5;
	s->records++;
	if (!d->encrypted || hdr[0] == CT_CCS) {
		if (hdr[0] != CT_HANDSHAKE || s->state != TLS_HELLO)
			return;
		if (side == 0)
			client_hello(s, body, len);
		uint16_t suite;
		if (side == 1 && server_hello(s, body, len, &suite))
			keys_from_log(s, suite);
		return;
	}
	if (hdr[0] != CT_APP)
		return;
	uint8_t *out = d->rec + 5; /* opened where it lies */
	uint8_t type;
	int n = tls13_open(&d->keys, hdr, body, len, out, &type);
	if (n < 0) { /* a wrong key, or damage: this direction is read no further */
		s->failed++;
		d->stopped = true;
		return;
	}
	s->opened++;
	if (type == CT_APP && n > 0)
		fn(ctx, side, out, (size_t)n, 0);
	else if (type == CT_HANDSHAKE)
		handshake_bytes(s, side, out, (size_t)n);
	memset(out, 0, (size_t)n);
}

void tls_stream_data(struct tls_stream *s, int side, const uint8_t *p, size_t n, tls_plain_fn *fn,
		     void *ctx)
{
	struct tls_dir *d = &s->dir[side & 1];
	while (n && !d->stopped) {
		if (d->skip) { /* the rest of a record a gap cut */
			size_t take = n < d->skip ? n : d->skip;
			d->skip -= (uint32_t)take;
			p += take;
			n -= take;
			continue;
		}
		size_t want = d->have < 5 ? 5 : 5 + ((size_t)d->rec[3] << 8 | d->rec[4]);
		if (d->have >= 5 && (want > sizeof d->rec || d->rec[1] != 3)) {
			d->stopped = true; /* no TLS record: the layer is lost */
			s->failed++;
			return;
		}
		size_t take = want - d->have < n ? want - d->have : n;
		memcpy(d->rec + d->have, p, take);
		d->have += take;
		p += take;
		n -= take;
		if (d->have >= 5 && d->have == 5 + ((size_t)d->rec[3] << 8 | d->rec[4])) {
			record(s, side & 1, fn, ctx);
			d->have = 0;
		}
	}
}

void tls_stream_gap(struct tls_stream *s, int side, uint64_t n, tls_plain_fn *fn, void *ctx)
{
	struct tls_dir *d = &s->dir[side & 1];
	if (d->stopped)
		return;
	s->lost++;
	size_t total = d->have >= 5 ? 5 + ((size_t)d->rec[3] << 8 | d->rec[4]) : 0;
	if (d->skip >= n) { /* within a record already lost */
		d->skip -= (uint32_t)n;
		return;
	}
	if (total && n < total - d->have && d->encrypted) {
		/* inside this record: it is lost, its number still counted, and
		 * the next record is read */
		d->skip = (uint32_t)(total - d->have - n);
		d->have = 0;
		d->keys.seq++;
		fn(ctx, side & 1, NULL, 0, n);
		return;
	}
	/* where the next record starts is not known: the rest is unread */
	d->stopped = true;
	fn(ctx, side & 1, NULL, 0, n);
}
