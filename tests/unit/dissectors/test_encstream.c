/* test_encstream.c - encrypted streams recognised mid-stream (encstream.h),
 * and the PostgreSQL framer's use of it: TLS and GSSAPI streams without
 * their negotiation become encrypted connections, plaintext mid-stream
 * pickups stay PostgreSQL. */
#include <string.h>

#include "encstream.h"
#include "pgsql.h"
#include "tinytest.h"

static size_t tls_rec(uint8_t *p, uint8_t type, uint16_t n)
{
	p[0] = type;
	p[1] = 3;
	p[2] = 3;
	p[3] = (uint8_t)(n >> 8);
	p[4] = (uint8_t)n;
	for (uint16_t i = 0; i < n; i++)
		p[5 + i] = (uint8_t)(i * 37 + 11); /* ciphertext-looking */
	return 5u + n;
}

static size_t gss_pkt(uint8_t *p, uint32_t n)
{
	p[0] = (uint8_t)(n >> 24);
	p[1] = (uint8_t)(n >> 16);
	p[2] = (uint8_t)(n >> 8);
	p[3] = (uint8_t)n;
	p[4] = 0x05;
	p[5] = 0x04;
	p[6] = 0x06; /* sent by acceptor, sealed */
	p[7] = 0xff;
	for (uint32_t i = 4; i < n; i++)
		p[4 + i] = (uint8_t)(i * 13 + 5);
	return 4u + n;
}

static void shapes(void)
{
	uint8_t b[4096];
	bool whole;
	size_t n = tls_rec(b, 23, 40);
	n += tls_rec(b + n, 23, 100);
	CHECK_EQ_U(enc_kind_of(b, n, &whole), ENC_TLS);
	CHECK(whole);
	CHECK_EQ_U(enc_kind_of(b, n - 10, &whole), ENC_TLS); /* the last runs past the piece */
	CHECK(!whole);
	CHECK_EQ_U(enc_kind_of(b, 3, &whole), ENC_NONE);   /* not even a header */
	b[0] = 24;                                          /* no such content type */
	CHECK_EQ_U(enc_kind_of(b, n, &whole), ENC_NONE);
	b[0] = 23;
	b[1] = 2; /* SSL 2 */
	CHECK_EQ_U(enc_kind_of(b, n, &whole), ENC_NONE);
	b[1] = 3;
	b[3] = 0x48; /* 18432+: longer than any TLS record */
	CHECK_EQ_U(enc_kind_of(b, n, &whole), ENC_NONE);
	n = gss_pkt(b, 60);
	n += gss_pkt(b + n, 30);
	CHECK_EQ_U(enc_kind_of(b, n, &whole), ENC_GSS);
	CHECK(whole);
	b[7] = 0; /* filler must be FF */
	CHECK_EQ_U(enc_kind_of(b, n, &whole), ENC_NONE);
	/* PostgreSQL messages never look encrypted: types are letters */
	const uint8_t q[] = "Q\0\0\0\x0dSELECT 1\0";
	CHECK_EQ_U(enc_kind_of(q, sizeof q - 1, &whole), ENC_NONE);
	const uint8_t z[] = {'Z', 0, 0, 0, 5, 'I'};
	CHECK_EQ_U(enc_kind_of(z, sizeof z, &whole), ENC_NONE);
}

static int nmsgs;
static void count(void *ctx, const struct pgsql_msg *m)
{
	(void)ctx;
	(void)m;
	nmsgs++;
}

static void framer_tls_midstream(void)
{
	struct pgsql_conn c;
	uint8_t b[2048];
	pgsql_conn_init(&c, false);
	nmsgs = 0;
	size_t n = tls_rec(b, 23, 61);
	pgsql_feed(&c, PGSQL_FE, b, n, 1, count, NULL);
	CHECK_EQ_U(c.tls, 'T');
	CHECK_EQ_U(c.dir[PGSQL_FE].phase, PGSQL_PH_TLS);
	CHECK_EQ_U(c.dir[PGSQL_BE].phase, PGSQL_PH_TLS);
	n = tls_rec(b, 23, 300);
	pgsql_feed(&c, PGSQL_BE, b, n, 2, count, NULL);
	CHECK_EQ_U(nmsgs, 0);
	CHECK_EQ_U(c.dir[PGSQL_BE].tls_bytes, n);

	/* a piece ending inside a record is weaker evidence: a second agrees */
	pgsql_conn_init(&c, false);
	n = tls_rec(b, 23, 1000);
	pgsql_feed(&c, PGSQL_BE, b, 600, 1, count, NULL);
	CHECK_EQ_U(c.tls, 0);
	pgsql_feed(&c, PGSQL_BE, b + 600, n - 600, 2, count, NULL); /* continuation: no vote */
	CHECK_EQ_U(c.tls, 0);
	pgsql_feed(&c, PGSQL_FE, b, 300, 3, count, NULL);
	CHECK_EQ_U(c.tls, 'T');

	/* GSSAPI encryption */
	pgsql_conn_init(&c, false);
	n = gss_pkt(b, 80);
	pgsql_feed(&c, PGSQL_FE, b, n, 1, count, NULL);
	CHECK_EQ_U(c.tls, 'G');
}

static void framer_plain_midstream(void)
{
	/* a plaintext pickup: the answer's tail, then whole messages */
	struct pgsql_conn c;
	pgsql_conn_init(&c, false);
	nmsgs = 0;
	const uint8_t be[] = {'C', 0, 0, 0, 13, 'S', 'E', 'L', 'E', 'C', 'T', ' ', '1', 0,
			      'Z', 0, 0, 0, 5, 'I'};
	pgsql_feed(&c, PGSQL_BE, be + 3, sizeof be - 3, 1, count, NULL); /* mid-message */
	const uint8_t fe[] = "Q\0\0\0\x0dSELECT 1\0";
	pgsql_feed(&c, PGSQL_FE, fe, sizeof fe - 1, 2, count, NULL);
	pgsql_feed(&c, PGSQL_BE, be, sizeof be, 3, count, NULL);
	CHECK_EQ_U(c.tls, 0);
	CHECK(nmsgs >= 3);
	/* once PostgreSQL has been framed, record-like bytes are not TLS */
	uint8_t b[128];
	size_t n = tls_rec(b, 23, 20);
	pgsql_feed(&c, PGSQL_FE, b, n, 4, count, NULL);
	CHECK_EQ_U(c.tls, 0);
}

int main(void)
{
	RUN(shapes);
	RUN(framer_tls_midstream);
	RUN(framer_plain_midstream);
	return TT_EXIT();
}
