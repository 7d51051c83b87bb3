/* test_tls_stream.c - TLS connections read back to their plaintext
 * (src/tls/tls_stream.c) from the three real sessions of test_tls_crypt.c
 * (one per TLS 1.3 suite), their segments in capture order with the key
 * log the client wrote: whole, and cut into pieces of every size from 1
 * byte.  Each gives the line the client sent and the one s_server -rev
 * returned, nothing else.  And what it cannot read it says: no key in the
 * log, no traffic secret, a record with a flipped byte, a gap inside a
 * record (that record lost, the next read) and one between records (the
 * rest unread). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tinytest.h"
#include "tls/tls_stream.h"

struct seg {
	int side;
	size_t off, len; /* in data[] */
};

static uint8_t data[8192];
static size_t ndata;
static struct seg segs[64];
static int nsegs;
static uint8_t keylog[4096];
static size_t nkeylog;

struct got {
	char text[2][256];
	size_t n[2];
	uint64_t gaps[2];
};

static void on_plain(void *ctx, int side, const uint8_t *p, size_t n, uint64_t gap)
{
	struct got *g = ctx;
	if (!p) {
		g->gaps[side] += gap;
		return;
	}
	for (size_t i = 0; i < n && g->n[side] < sizeof g->text[side] - 1; i++)
		g->text[side][g->n[side]++] = (char)p[i];
}

static int unhex(char c)
{
	return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

static void load(const char *stem)
{
	char path[512];
	snprintf(path, sizeof path, "%s/tests/unit/tls/%s.streams", PGRTT_SRC, stem);
	FILE *f = fopen(path, "r");
	CHECK(f != NULL);
	ndata = 0;
	nsegs = 0;
	static char line[16384];
	while (f && fgets(line, sizeof line, f) && nsegs < 64) {
		struct seg *s = &segs[nsegs++];
		s->side = line[0] == 's';
		s->off = ndata;
		for (char *p = line + 2; p[0] && p[1] && p[0] != '\n' && ndata < sizeof data; p += 2)
			data[ndata++] = (uint8_t)(unhex(p[0]) << 4 | unhex(p[1]));
		s->len = ndata - s->off;
	}
	if (f)
		fclose(f);
	snprintf(path, sizeof path, "%s/tests/unit/tls/%s.keys", PGRTT_SRC, stem);
	f = fopen(path, "rb");
	CHECK(f != NULL);
	nkeylog = f ? fread(keylog, 1, sizeof keylog, f) : 0;
	if (f)
		fclose(f);
}

/* The key log into t, but for the lines starting with skip (NULL: none). */
static void keys(struct tls_keytab *t, const char *skip)
{
	struct keylog_reader r;
	keylog_init(&r);
	memset(t, 0, sizeof(*t));
	const char *p = (const char *)keylog, *end = p + nkeylog;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
		if (!skip || strncmp(p, skip, strlen(skip)) != 0)
			keylog_feed(&r, (const uint8_t *)p, n, tls_keytab_add, t);
		p += n;
	}
	keylog_finish(&r, tls_keytab_add, t);
}

/* Every segment in order, in pieces of piece bytes (0: whole); flip: a
 * byte of the server's data flipped at that offset (0: none); the server's
 * bytes [cut, cut + cutn) lost to a gap. */
static struct tls_stream *play(const struct tls_keytab *t, size_t piece, size_t flip, size_t cut,
			       size_t cutn, struct got *g)
{
	static struct tls_stream s;
	tls_stream_init(&s, t);
	memset(g, 0, sizeof(*g));
	size_t server_at = 0;
	for (int i = 0; i < nsegs; i++) {
		uint8_t buf[4096];
		memcpy(buf, data + segs[i].off, segs[i].len);
		size_t n = segs[i].len;
		if (segs[i].side == 1 && flip && flip >= server_at && flip < server_at + n)
			buf[flip - server_at] ^= 0x40;
		for (size_t o = 0; o < n;) {
			size_t k = piece && n - o > piece ? piece : n - o;
			size_t at = server_at + o;
			if (segs[i].side == 1 && cutn && at < cut + cutn && at + k > cut) {
				/* the lost part of this piece, as the reassembly hands it on */
				size_t a = at < cut ? cut - at : 0;
				size_t b = at + k < cut + cutn ? k : cut + cutn - at;
				if (a)
					tls_stream_data(&s, 1, buf + o, a, on_plain, g);
				if (at + a == cut)
					tls_stream_gap(&s, 1, cutn, on_plain, g);
				if (b < k)
					tls_stream_data(&s, 1, buf + o + b, k - b, on_plain, g);
			} else {
				tls_stream_data(&s, segs[i].side, buf + o, k, on_plain, g);
			}
			o += k;
		}
		if (segs[i].side == 1)
			server_at += n;
	}
	return &s;
}

static const char *const stems[] = {"openssl-tls13-aes256", "openssl-tls13-aes128",
				    "openssl-tls13-chacha20"};

static void read_back(void)
{
	for (size_t k = 0; k < sizeof stems / sizeof stems[0]; k++) {
		load(stems[k]);
		struct tls_keytab t;
		keys(&t, NULL);
		CHECK_EQ_U(t.n, 1);
		for (size_t piece = 0; piece <= 64; piece++) {
			struct got g;
			struct tls_stream *s = play(&t, piece, 0, 0, 0, &g);
			CHECK_EQ_U(s->state, TLS_OPEN);
			CHECK(s->version == 0x0304 && s->suite != NULL);
			CHECK(g.n[0] == 12 && memcmp(g.text[0], "hello pgrtt\n", 12) == 0);
			CHECK(g.n[1] == 12 && memcmp(g.text[1], "ttrgp olleh\n", 12) == 0);
			CHECK_EQ_U(s->records, 14); /* the client's 4, the server's 10 */
			CHECK_EQ_U(s->opened, 10);
			CHECK_EQ_U(s->failed + s->lost, 0);
			tls_stream_clear(s);
		}
		tls_keytab_free(&t);
	}
}

static void what_it_cannot_read(void)
{
	load(stems[0]);
	struct tls_keytab none = {0}, no_traffic, all;
	struct got g;
	struct tls_stream *s = play(&none, 0, 0, 0, 0, &g);
	CHECK_EQ_U(s->state, TLS_NO_KEY);
	CHECK(g.n[0] == 0 && g.n[1] == 0 && s->opened == 0);
	keys(&no_traffic, "SERVER_TRAFFIC_SECRET_0");
	s = play(&no_traffic, 0, 0, 0, 0, &g);
	CHECK_EQ_U(s->state, TLS_NO_KEY); /* the server's handshake read, then no key */
	CHECK(g.n[0] == 12 && g.n[1] == 0);
	keys(&all, NULL);
	/* the server's records: 0 ServerHello, 1 CCS, 2-5 handshake, 6-7
	 * tickets, 8 the line, 9 the alert; where each starts */
	size_t at[10], o = 0, n = 0;
	uint8_t sv[4096];
	for (int i = 0; i < nsegs; i++)
		if (segs[i].side == 1) {
			memcpy(sv + n, data + segs[i].off, segs[i].len);
			n += segs[i].len;
		}
	for (int r = 0; r < 10 && o + 5 <= n; r++) {
		at[r] = o;
		o += 5 + ((size_t)sv[o + 3] << 8 | sv[o + 4]);
	}
	s = play(&all, 0, at[8] + 9, 0, 0, &g); /* a byte of the line flipped */
	CHECK(s->failed == 1 && s->dir[1].stopped && !s->dir[0].stopped);
	CHECK(g.n[1] == 0 && g.n[0] == 12); /* the client's line still read */
	s = play(&all, 7, 0, at[6] + 20, 30, &g); /* inside a ticket: lost, the line read */
	CHECK(g.n[1] == 12 && memcmp(g.text[1], "ttrgp olleh\n", 12) == 0);
	CHECK(g.gaps[1] == 30 && s->lost == 1 && s->state == TLS_OPEN);
	s = play(&all, 0, 0, at[7], 10, &g); /* between records: where the next starts is lost */
	CHECK(g.n[1] == 0 && g.gaps[1] == 10);
	tls_keytab_free(&no_traffic);
	tls_keytab_free(&all);
}

int main(void)
{
	RUN(read_back);
	RUN(what_it_cannot_read);
	return TT_EXIT();
}
