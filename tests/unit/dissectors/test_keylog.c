/* test_keylog.c - the key log reader (dissectors/keylog.c) on the files
 * OpenSSL 3.0's s_client -keylogfile wrote for TLS 1.3 (SHA-384 and
 * SHA-256 suites) and TLS 1.2 (tests/fuzz/corpus/keylog/, throwaway
 * sessions; a fuzz input's first byte before each), fed whole, byte by byte and at every split; a file still
 * being written; and hostile ones: long, binary, truncated, wrong lengths. */
#include "keylog.h"
#include "tinytest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXE 16

struct got {
	int n;
	struct keylog_entry e[MAXE];
};

static void on_entry(void *ctx, const struct keylog_entry *e)
{
	struct got *g = ctx;
	if (g->n < MAXE)
		g->e[g->n] = *e;
	g->n++;
}

/* s fed in pieces of at most piece bytes (0: whole), then finished. */
static struct keylog_reader read_all(const char *s, size_t n, size_t piece, struct got *g)
{
	struct keylog_reader r;
	keylog_init(&r);
	memset(g, 0, sizeof(*g));
	for (size_t o = 0; o < n;) {
		size_t k = piece && n - o > piece ? piece : n - o;
		keylog_feed(&r, (const uint8_t *)s + o, k, on_entry, g);
		o += k;
	}
	keylog_finish(&r, on_entry, g);
	return r;
}

static char *slurp(const char *name, size_t *n)
{
	char path[512];
	snprintf(path, sizeof path, "%s/tests/fuzz/corpus/keylog/%s.in", PGRTT_SRC, name);
	FILE *f = fopen(path, "rb");
	CHECK(f != NULL);
	if (!f)
		exit(1);
	static char buf[8192];
	*n = fread(buf, 1, sizeof buf, f);
	fclose(f);
	CHECK(*n > 1);
	*n -= 1; /* the fuzz target's first byte: its piece size */
	return buf + 1;
}

static void tls13_sha384(void)
{
	size_t n;
	const char *s = slurp("openssl-tls13-sha384", &n);
	struct got g;
	struct keylog_reader r = read_all(s, n, 0, &g);
	CHECK_EQ_U(g.n, 5);
	CHECK_EQ_U(r.entries, 5);
	CHECK_EQ_U(r.lines, 6); /* and OpenSSL's comment */
	CHECK_EQ_U(r.malformed + r.unknown, 0);
	/* in the order OpenSSL wrote them, every one of the same ClientHello */
	CHECK_EQ_U(g.e[0].label, KEYLOG_SERVER_HANDSHAKE);
	CHECK_EQ_U(g.e[1].label, KEYLOG_EXPORTER);
	CHECK_EQ_U(g.e[2].label, KEYLOG_SERVER_TRAFFIC);
	CHECK_EQ_U(g.e[3].label, KEYLOG_CLIENT_HANDSHAKE);
	CHECK_EQ_U(g.e[4].label, KEYLOG_CLIENT_TRAFFIC);
	for (int i = 0; i < 5; i++) {
		CHECK_EQ_U(g.e[i].secret_len, 48);
		CHECK(g.e[i].random[0] == 0xb4 && g.e[i].random[31] == 0xc2);
	}
	CHECK(g.e[4].secret[0] == 0xcc && g.e[4].secret[47] == 0xb5); /* ccb8...38eb5 */
	/* byte by byte, and split at every position: the same entries */
	for (size_t piece = 1; piece < 40; piece++) {
		struct got h;
		read_all(s, n, piece, &h);
		CHECK(h.n == 5 && memcmp(h.e, g.e, sizeof g.e[0] * 5) == 0);
	}
}

static void tls13_sha256_and_tls12(void)
{
	size_t n;
	const char *s = slurp("openssl-tls13-sha256", &n);
	struct got g;
	read_all(s, n, 7, &g);
	CHECK_EQ_U(g.n, 5);
	for (int i = 0; i < 5 && i < g.n; i++)
		CHECK_EQ_U(g.e[i].secret_len, 32);
	s = slurp("openssl-tls12", &n);
	struct keylog_reader r = read_all(s, n, 0, &g);
	CHECK_EQ_U(g.n, 1);
	CHECK_EQ_U(g.e[0].label, KEYLOG_CLIENT_RANDOM);
	CHECK_EQ_U(g.e[0].secret_len, 48); /* the master secret */
	CHECK(g.e[0].random[0] == 0xd2 && g.e[0].secret[0] == 0xfb);
	CHECK_EQ_U(r.malformed, 0);
}

/* A file being written: a line's start waits for its end; a whole file's
 * last line without a newline counts at the end. */
static void growing_file(void)
{
	size_t n;
	const char *s = slurp("openssl-tls12", &n);
	struct keylog_reader r;
	keylog_init(&r);
	struct got g = {0};
	keylog_feed(&r, (const uint8_t *)s, n - 20, on_entry, &g);
	CHECK_EQ_U(g.n, 0); /* its secret not all there yet */
	keylog_feed(&r, (const uint8_t *)s + n - 20, 20, on_entry, &g);
	CHECK_EQ_U(g.n, 1);
	const char *last = "CLIENT_RANDOM 00000000000000000000000000000000000000000000000000000000000000ff "
			   "0102030405060708091011121314151617181920212223242526272829303132333435363738"
			   "394041424344454647ab";
	keylog_feed(&r, (const uint8_t *)last, strlen(last), on_entry, &g);
	CHECK_EQ_U(g.n, 1);
	keylog_finish(&r, on_entry, &g);
	CHECK_EQ_U(g.n, 2);
	CHECK(g.e[1].random[31] == 0xff && g.e[1].secret[47] == 0xab);
	CHECK_EQ_U(r.malformed, 0);
}

/* Wrong lengths, bad hex, fields missing or too many, CRLF, other labels. */
static void malformed_lines(void)
{
	const char *rnd = "aa00000000000000000000000000000000000000000000000000000000000000";
	const char *s48 = "11111111111111111111111111111111111111111111111111111111111111111111111111111111"
			  "1111111111111111";
	char buf[4096];
	snprintf(buf, sizeof buf,
		 "CLIENT_RANDOM %s %s\r\n"       /* good, CRLF */
		 "CLIENT_RANDOM %.62s %s\n"      /* random short */
		 "CLIENT_RANDOM %s %.64s\n"      /* a master secret of 32 bytes */
		 "CLIENT_TRAFFIC_SECRET_0 %s %.64s\n" /* good: SHA-256 */
		 "CLIENT_TRAFFIC_SECRET_0 %s %.62s\n" /* 31 bytes: no hash */
		 "CLIENT_TRAFFIC_SECRET_0 %s %.63s\n" /* odd hex */
		 "CLIENT_TRAFFIC_SECRET_0 %s\n"   /* no secret */
		 "CLIENT_TRAFFIC_SECRET_0 %s %s extra\n"
		 "SERVER_TRAFFIC_SECRET_0 %s %.62sxy\n" /* not hex */
		 "RSA 0011223344556677 %s\n"     /* RSA: a label this reads no secret of */
		 "  # an indented comment\n"
		 "\n"
		 "client_random %s %s\n",        /* labels are upper case */
		 rnd, s48, rnd, s48, rnd, s48, rnd, s48, rnd, s48, rnd, s48, rnd, rnd, s48, rnd, s48,
		 s48, rnd, s48);
	struct got g;
	struct keylog_reader r = read_all(buf, strlen(buf), 0, &g);
	CHECK_EQ_U(g.n, 2);
	CHECK_EQ_U(r.entries, 2);
	CHECK_EQ_U(r.malformed, 7);
	CHECK_EQ_U(r.unknown, 2);
	CHECK_EQ_U(r.lines, 13);
	CHECK_EQ_U(g.e[0].label, KEYLOG_CLIENT_RANDOM);
	CHECK_EQ_U(g.e[1].label, KEYLOG_CLIENT_TRAFFIC);
	CHECK_EQ_U(g.e[1].secret_len, 32);
}

/* A line longer than any key log's, binary bytes: skipped to their end,
 * counted, the next line read. */
static void hostile(void)
{
	static char buf[20000];
	size_t n = 0;
	memset(buf, 'A', 10000);
	n = 10000;
	buf[n++] = '\n';
	const char good[] = "CLIENT_TRAFFIC_SECRET_0 "
			    "0000000000000000000000000000000000000000000000000000000000000001 "
			    "2222222222222222222222222222222222222222222222222222222222222222\n";
	memcpy(buf + n, good, sizeof good - 1);
	n += sizeof good - 1;
	const char binary[] = "CLIENT_RANDOM \0\0\xff\x01 x\n";
	memcpy(buf + n, binary, sizeof binary - 1);
	n += sizeof binary - 1;
	memcpy(buf + n, good, sizeof good - 1);
	n += sizeof good - 1;
	for (size_t piece = 0; piece < 300; piece += 37) {
		struct got g;
		struct keylog_reader r = read_all(buf, n, piece, &g);
		CHECK_EQ_U(g.n, 2);
		CHECK_EQ_U(r.malformed, 2);
		CHECK_EQ_U(r.lines, 4);
	}
	/* an unending line: skipped, whatever its length, in fixed state */
	struct keylog_reader r;
	keylog_init(&r);
	struct got g = {0};
	for (int i = 0; i < 1000; i++)
		keylog_feed(&r, (const uint8_t *)buf, 10000, on_entry, &g);
	keylog_finish(&r, on_entry, &g);
	CHECK_EQ_U(g.n, 0);
	CHECK_EQ_U(r.malformed, 1);
}

int main(void)
{
	RUN(tls13_sha384);
	RUN(tls13_sha256_and_tls12);
	RUN(growing_file);
	RUN(malformed_lines);
	RUN(hostile);
	return TT_EXIT();
}
