/* test_pgsql.c - the PostgreSQL framer: every split of the input gives the
 * same messages; limits, resynchronisation, gaps and encryption. */
#include <stdlib.h>
#include <string.h>

#include "pgsql.h"
#include "tinytest.h"

/* ---- an event log of emitted messages ---- */

struct ev {
	uint8_t side, type;
	uint32_t len, body_len, code;
	bool truncated, gap;
	uint8_t first; /* first body byte, or 0 */
};

struct log {
	struct ev ev[256];
	int n;
};

static void log_add(void *ctx, const struct pgsql_msg *m)
{
	struct log *l = ctx;
	if (l->n == 256)
		return;
	struct ev *e = &l->ev[l->n++];
	memset(e, 0, sizeof(*e));
	e->side = m->side;
	e->type = m->type;
	e->len = m->len;
	e->body_len = m->body_len;
	e->code = m->code;
	e->truncated = m->truncated;
	e->gap = m->gap;
	e->first = m->body_len ? m->body[0] : 0;
}

/* ---- building wire bytes ---- */

struct buf {
	uint8_t b[65536];
	size_t n;
};

static void put8(struct buf *b, uint8_t v)
{
	b->b[b->n++] = v;
}

static void put32(struct buf *b, uint32_t v)
{
	put8(b, (uint8_t)(v >> 24));
	put8(b, (uint8_t)(v >> 16));
	put8(b, (uint8_t)(v >> 8));
	put8(b, (uint8_t)v);
}

static void putmsg(struct buf *b, char type, const void *body, size_t n)
{
	put8(b, (uint8_t)type);
	put32(b, (uint32_t)(n + 4));
	memcpy(b->b + b->n, body, n);
	b->n += n;
}

static void putstartup(struct buf *b, uint32_t code, const char *params, size_t n)
{
	put32(b, (uint32_t)(8 + n));
	put32(b, code);
	memcpy(b->b + b->n, params, n);
	b->n += n;
}

/* Frontend bytes: SSLRequest, then (after 'N') a startup, a query, an
 * extended flight, a long query crossing PGSQL_PREFIX_MAX, Terminate. */
static void frontend_stream(struct buf *fe)
{
	static const char params[] = "user\0postgres\0database\0db\0\0";
	static char longq[3000];
	memset(longq, 'x', sizeof longq - 1);
	memcpy(longq, "SELECT '", 8);
	longq[sizeof longq - 3] = '\'';
	longq[sizeof longq - 2] = 0;
	fe->n = 0;
	putstartup(fe, PGSQL_SSL_CODE, "", 0);
	putstartup(fe, PGSQL_PROTO_3_0, params, sizeof params - 1);
	putmsg(fe, 'Q', "SELECT 1\0", 9);
	putmsg(fe, 'P', "s1\0SELECT $1\0\0\0", 15);
	putmsg(fe, 'B', "\0s1\0\0\0\0\0\0\0", 11);
	putmsg(fe, 'E', "\0\0\0\0\0", 5);
	putmsg(fe, 'S', "", 0);
	putmsg(fe, 'Q', longq, sizeof longq - 1);
	putmsg(fe, 'X', "", 0);
}

static void feed_split(struct pgsql_conn *c, enum pgsql_side side, const struct buf *b,
		       size_t cut, struct log *l)
{
	pgsql_feed(c, side, b->b, cut, 1, log_add, l);
	pgsql_feed(c, side, b->b + cut, b->n - cut, 2, log_add, l);
}

static void test_frontend_every_split(void)
{
	struct buf fe;
	frontend_stream(&fe);
	struct log whole = {0};
	struct pgsql_conn c;
	pgsql_conn_init(&c, true);
	/* the SSLRequest must be answered before the startup follows */
	pgsql_feed(&c, PGSQL_FE, fe.b, 8, 0, log_add, &whole);
	pgsql_feed(&c, PGSQL_BE, (const uint8_t *)"N", 1, 0, log_add, &whole);
	pgsql_feed(&c, PGSQL_FE, fe.b + 8, fe.n - 8, 0, log_add, &whole);
	CHECK_EQ_U(whole.n, 10);
	CHECK_EQ_U(whole.ev[0].type, PGSQL_SSL_REQUEST);
	CHECK_EQ_U(whole.ev[1].type, PGSQL_ENC_ANSWER);
	CHECK_EQ_U(whole.ev[2].type, PGSQL_STARTUP);
	CHECK_EQ_U(whole.ev[2].code, PGSQL_PROTO_3_0);
	CHECK_EQ_U(whole.ev[3].type, 'Q');
	CHECK_EQ_U(whole.ev[7].type, 'S');
	CHECK_EQ_U(whole.ev[8].type, 'Q');
	/* fed whole, the body is a view of the caller's bytes, not truncated */
	CHECK(!whole.ev[8].truncated);
	CHECK_EQ_U(whole.ev[8].body_len, 2999);
	CHECK_EQ_U(whole.ev[9].type, 'X');
	CHECK_EQ_U(c.dir[PGSQL_FE].malformed, 0);

	/* every split point of the post-answer stream, and byte at a time */
	struct buf rest;
	rest.n = fe.n - 8;
	memcpy(rest.b, fe.b + 8, rest.n);
	for (size_t cut = 0; cut <= rest.n; cut++) {
		struct log l = {0};
		pgsql_conn_init(&c, true);
		pgsql_feed(&c, PGSQL_FE, fe.b, 8, 0, log_add, &l);
		pgsql_feed(&c, PGSQL_BE, (const uint8_t *)"N", 1, 0, log_add, &l);
		feed_split(&c, PGSQL_FE, &rest, cut, &l);
		CHECK(l.n == whole.n);
		for (int i = 0; i < l.n && i < whole.n; i++) {
			CHECK(l.ev[i].type == whole.ev[i].type && l.ev[i].len == whole.ev[i].len);
			CHECK(l.ev[i].first == whole.ev[i].first);
		}
	}
	struct log bytes = {0};
	pgsql_conn_init(&c, true);
	pgsql_feed(&c, PGSQL_FE, fe.b, 8, 0, log_add, &bytes);
	pgsql_feed(&c, PGSQL_BE, (const uint8_t *)"N", 1, 0, log_add, &bytes);
	for (size_t i = 0; i < rest.n; i++)
		pgsql_feed(&c, PGSQL_FE, rest.b + i, 1, 0, log_add, &bytes);
	/* byte by byte every body is a copy, so compare what does not depend on that */
	CHECK(bytes.n == whole.n);
	for (int i = 0; i < bytes.n && i < whole.n; i++)
		CHECK(bytes.ev[i].type == whole.ev[i].type && bytes.ev[i].len == whole.ev[i].len &&
		      bytes.ev[i].first == whole.ev[i].first);
}

static void backend_stream(struct buf *be)
{
	be->n = 0;
	putmsg(be, 'R', "\0\0\0\0", 4);
	putmsg(be, 'S', "client_encoding\0UTF8\0", 21);
	putmsg(be, 'K', "\0\0\0\x07" "0123456789abcdef0123456789abcdef", 36); /* 3.2 key */
	putmsg(be, 'Z', "I", 1);
	putmsg(be, 'T', "\0\x01" "a\0\0\0\0\0\0\0\0\0\0\x17\0\x04\xff\xff\xff\xff\0\0", 23);
	static uint8_t row[40000]; /* longer than the backend short limit */
	memset(row, 'r', sizeof row);
	row[0] = 0;
	row[1] = 1;
	putmsg(be, 'D', row, sizeof row);
	putmsg(be, 'C', "SELECT 1\0", 9);
	putmsg(be, 'A', "\0\0\0\x01" "ch\0payload\0", 15);
	putmsg(be, 'Z', "T", 1);
}

static void test_backend_every_split(void)
{
	static struct buf be;
	backend_stream(&be);
	struct log whole = {0};
	struct pgsql_conn c;
	pgsql_conn_init(&c, true);
	pgsql_feed(&c, PGSQL_BE, be.b, be.n, 0, log_add, &whole);
	CHECK_EQ_U(whole.n, 9);
	CHECK_EQ_U(whole.ev[2].type, 'K');
	CHECK_EQ_U(whole.ev[2].len, 40);
	CHECK_EQ_U(whole.ev[5].type, 'D');
	CHECK_EQ_U(whole.ev[5].len, 40004);
	CHECK(whole.ev[5].body_len == 40000); /* a view: the whole body was in one piece */
	CHECK_EQ_U(whole.ev[8].first, 'T');
	for (size_t cut = 0; cut <= be.n; cut += (cut < 200 || cut > be.n - 200) ? 1 : 997) {
		struct log l = {0};
		pgsql_conn_init(&c, true);
		feed_split(&c, PGSQL_BE, &be, cut, &l);
		CHECK(l.n == whole.n);
		for (int i = 0; i < l.n && i < whole.n; i++)
			CHECK(l.ev[i].type == whole.ev[i].type && l.ev[i].len == whole.ev[i].len &&
			      l.ev[i].first == whole.ev[i].first);
		CHECK_EQ_U(c.dir[PGSQL_BE].malformed, 0);
	}
}

static void test_limits_and_resync(void)
{
	struct pgsql_conn c;
	struct log l = {0};
	struct buf b = {{0}, 0};
	/* length word 3: impossible */
	put8(&b, 'Q');
	put32(&b, 3);
	putmsg(&b, 'S', "", 0);
	pgsql_conn_init(&c, true);
	c.dir[PGSQL_FE].phase = PGSQL_PH_NORMAL;
	pgsql_feed(&c, PGSQL_FE, b.b, b.n, 0, log_add, &l);
	CHECK_EQ_U(c.dir[PGSQL_FE].malformed, 1);
	CHECK_EQ_U(l.n, 1);
	CHECK_EQ_U(l.ev[0].type, 'S');

	/* a Sync longer than PQ_SMALL_MESSAGE_LIMIT allows, an unknown type,
	 * 0x7fffffff and 0xffffffff length words */
	static const uint32_t bad_lens[] = {0, 3, 10001, 0x7fffffffu, 0xffffffffu};
	for (size_t i = 0; i < sizeof bad_lens / sizeof bad_lens[0]; i++) {
		b.n = 0;
		put8(&b, 'E');
		put32(&b, bad_lens[i]);
		putmsg(&b, 'Q', "SELECT 2\0", 9);
		l.n = 0;
		pgsql_conn_init(&c, true);
		c.dir[PGSQL_FE].phase = PGSQL_PH_NORMAL;
		pgsql_feed(&c, PGSQL_FE, b.b, b.n, 0, log_add, &l);
		CHECK_EQ_U(c.dir[PGSQL_FE].malformed, 1);
		CHECK_EQ_U(l.n, 1);
		CHECK_EQ_U(l.ev[0].type, 'Q');
	}
	b.n = 0;
	put8(&b, '~');
	putmsg(&b, 'Z', "I", 1);
	l.n = 0;
	pgsql_conn_init(&c, true);
	pgsql_feed(&c, PGSQL_BE, b.b, b.n, 0, log_add, &l);
	CHECK_EQ_U(c.dir[PGSQL_BE].malformed, 1);
	CHECK_EQ_U(l.n, 1);

	/* ReadyForQuery with an impossible status byte or length */
	CHECK(pgsql_check_header(PGSQL_BE, (const uint8_t *)"Z\0\0\0\x05X", 6) < 0);
	CHECK(pgsql_check_header(PGSQL_BE, (const uint8_t *)"Z\0\0\0\x06I", 6) < 0);
	CHECK(pgsql_check_header(PGSQL_BE, (const uint8_t *)"Z\0\0\0\x05I", 6) == 6);
	CHECK(pgsql_check_header(PGSQL_BE, (const uint8_t *)"Z\0\0", 3) == 0);
	/* backend types other than T D d V E N A are limited to 30000 bytes */
	CHECK(pgsql_check_header(PGSQL_BE, (const uint8_t *)"C\0\x01\0\0", 5) < 0);
	CHECK(pgsql_check_header(PGSQL_BE, (const uint8_t *)"D\0\x01\0\0", 5) > 0);

	/* startup packets: length word must be in [8, 10004] */
	b.n = 0;
	put32(&b, 10005);
	put32(&b, PGSQL_PROTO_3_0);
	l.n = 0;
	pgsql_conn_init(&c, true);
	pgsql_feed(&c, PGSQL_FE, b.b, b.n, 0, log_add, &l);
	CHECK_EQ_U(c.dir[PGSQL_FE].malformed, 1);
	CHECK_EQ_U(l.n, 0);
}

static void test_mid_stream(void)
{
	/* the tail of a DataRow, then whole messages: boundaries are found */
	struct buf b = {{0}, 0};
	memcpy(b.b, "\x01\x02garbage-row-tail", 18);
	b.n = 18;
	putmsg(&b, 'C', "SELECT 1\0", 9);
	putmsg(&b, 'Z', "I", 1);
	struct pgsql_conn c;
	struct log l = {0};
	pgsql_conn_init(&c, false);
	pgsql_feed(&c, PGSQL_BE, b.b, b.n, 0, log_add, &l);
	CHECK(c.mid_stream);
	CHECK_EQ_U(l.n, 2);
	CHECK_EQ_U(l.ev[1].type, 'Z');
	CHECK_EQ_U(c.dir[PGSQL_BE].skipped_bytes, 18);
	CHECK_EQ_U(c.dir[PGSQL_BE].malformed, 0);
}

static void test_gap_inside_body(void)
{
	static struct buf b;
	b.n = 0;
	static uint8_t row[5000];
	memset(row, 'r', sizeof row);
	putmsg(&b, 'D', row, sizeof row);
	putmsg(&b, 'Z', "I", 1);
	struct pgsql_conn c;
	struct log l = {0};
	pgsql_conn_init(&c, true);
	/* 100 bytes, then 1000 lost, then the rest: still in step */
	pgsql_feed(&c, PGSQL_BE, b.b, 100, 0, log_add, &l);
	pgsql_gap(&c, PGSQL_BE, 1000, 0, log_add, &l);
	pgsql_feed(&c, PGSQL_BE, b.b + 1100, b.n - 1100, 0, log_add, &l);
	CHECK_EQ_U(l.n, 2);
	CHECK(l.ev[0].gap);
	CHECK_EQ_U(l.ev[1].type, 'Z');
	/* a gap over a header: resynchronise on the next segment */
	l.n = 0;
	pgsql_conn_init(&c, true);
	pgsql_feed(&c, PGSQL_BE, b.b, 3, 0, log_add, &l);
	pgsql_gap(&c, PGSQL_BE, 5002, 0, log_add, &l);
	pgsql_feed(&c, PGSQL_BE, b.b + 5005, b.n - 5005, 0, log_add, &l);
	CHECK_EQ_U(l.n, 1);
	CHECK_EQ_U(l.ev[0].type, 'Z');
}

static void test_encryption(void)
{
	struct pgsql_conn c;
	struct log l = {0};
	struct buf b = {{0}, 0};
	putstartup(&b, PGSQL_SSL_CODE, "", 0);
	pgsql_conn_init(&c, true);
	pgsql_feed(&c, PGSQL_FE, b.b, b.n, 0, log_add, &l);
	pgsql_feed(&c, PGSQL_BE, (const uint8_t *)"S", 1, 0, log_add, &l);
	pgsql_feed(&c, PGSQL_FE, (const uint8_t *)"\x16\x03\x01\x02\x00", 5, 0, log_add, &l);
	CHECK_EQ_U(c.tls, 'S');
	CHECK_EQ_U(l.n, 2);
	CHECK_EQ_U(c.dir[PGSQL_FE].tls_bytes, 5);
	/* direct TLS (PostgreSQL 17): the first client byte is a TLS handshake */
	l.n = 0;
	pgsql_conn_init(&c, true);
	pgsql_feed(&c, PGSQL_FE, (const uint8_t *)"\x16\x03\x01\x02\x00\x01", 6, 0, log_add, &l);
	CHECK_EQ_U(c.tls, 'D');
	CHECK_EQ_U(l.n, 0);
	/* GSSENCRequest refused, then a normal startup */
	b.n = 0;
	putstartup(&b, PGSQL_GSSENC_CODE, "", 0);
	l.n = 0;
	pgsql_conn_init(&c, true);
	pgsql_feed(&c, PGSQL_FE, b.b, b.n, 0, log_add, &l);
	pgsql_feed(&c, PGSQL_BE, (const uint8_t *)"N", 1, 0, log_add, &l);
	b.n = 0;
	putstartup(&b, PGSQL_PROTO_3_2, "user\0u\0\0", 8);
	pgsql_feed(&c, PGSQL_FE, b.b, b.n, 0, log_add, &l);
	CHECK_EQ_U(c.tls, 0);
	CHECK_EQ_U(c.proto, PGSQL_PROTO_3_2);
	CHECK_EQ_U(l.n, 3);
	/* a 3.2 CancelRequest with a 32-byte key */
	b.n = 0;
	put32(&b, 12 + 32);
	put32(&b, PGSQL_CANCEL_CODE);
	put32(&b, 1234);
	memset(b.b + b.n, 'k', 32);
	b.n += 32;
	l.n = 0;
	pgsql_conn_init(&c, true);
	pgsql_feed(&c, PGSQL_FE, b.b, b.n, 0, log_add, &l);
	CHECK_EQ_U(l.n, 1);
	CHECK_EQ_U(l.ev[0].type, PGSQL_CANCEL);
}

int main(void)
{
	RUN(test_frontend_every_split);
	RUN(test_backend_every_split);
	RUN(test_limits_and_resync);
	RUN(test_mid_stream);
	RUN(test_gap_inside_body);
	RUN(test_encryption);
	return TT_EXIT();
}
