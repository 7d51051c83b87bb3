/* test_tls_crypt.c - TLS 1.3 records opened (src/tls/tls_crypt.c) on real
 * sessions: OpenSSL 3.0's s_client sent "hello pgrtt\n" to s_server -rev,
 * once over each suite (TLS_AES_256_GCM_SHA384, TLS_AES_128_GCM_SHA256,
 * TLS_CHACHA20_POLY1305_SHA256), captured on loopback with the client's key
 * log (tests/unit/tls/openssl-tls13-*.pcap, .keys; the two streams as
 * mkstreams.py wrote them).  What each record holds is what tshark shows
 * with the same key log: the server's EncryptedExtensions, Certificate,
 * CertificateVerify and Finished under its handshake secret, two
 * NewSessionTickets, the reversed line and an alert (fatal, decode_error:
 * s_server's as the client went) under its traffic secret; the client's
 * Finished, then its line.  A flipped byte, a wrong secret and a skipped
 * record never authenticate. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keylog.h"
#include "tinytest.h"
#include "tls/tls_crypt.h"

static uint8_t stream[2][4096]; /* 0: the client's, 1: the server's */
static size_t nstream[2];
static struct keylog_entry keys[8];
static int nkeys;

/* The session read: its files' stem, the suite its ServerHello chose. */
static const struct session {
	const char *stem;
	uint16_t suite;
} sessions[] = {
	{"openssl-tls13-aes256", 0x1302},
	{"openssl-tls13-aes128", 0x1301},
	{"openssl-tls13-chacha20", 0x1303},
};
static const struct session *now;

static void on_key(void *ctx, const struct keylog_entry *e)
{
	(void)ctx;
	if (nkeys < 8)
		keys[nkeys++] = *e;
}

static const uint8_t *secret_of(enum keylog_label l)
{
	for (int i = 0; i < nkeys; i++)
		if (keys[i].label == l)
			return keys[i].secret;
	return NULL;
}

static int unhex(char c)
{
	return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

static void load(const struct session *se)
{
	now = se;
	nstream[0] = nstream[1] = 0;
	nkeys = 0;
	char path[512];
	snprintf(path, sizeof path, "%s/tests/unit/tls/%s.streams", PGRTT_SRC, se->stem);
	FILE *f = fopen(path, "r");
	CHECK(f != NULL);
	static char line[16384];
	while (f && fgets(line, sizeof line, f)) {
		int side = line[0] == 's';
		for (char *p = line + 2; p[0] && p[1] && p[0] != '\n'; p += 2)
			if (nstream[side] < sizeof stream[side])
				stream[side][nstream[side]++] = (uint8_t)(unhex(p[0]) << 4 | unhex(p[1]));
	}
	if (f)
		fclose(f);
	snprintf(path, sizeof path, "%s/tests/unit/tls/%s.keys", PGRTT_SRC, se->stem);
	f = fopen(path, "rb");
	CHECK(f != NULL);
	struct keylog_reader r;
	keylog_init(&r);
	size_t n = f ? fread(line, 1, sizeof line, f) : 0;
	keylog_feed(&r, (const uint8_t *)line, n, on_key, NULL);
	keylog_finish(&r, on_key, NULL);
	if (f)
		fclose(f);
	CHECK_EQ_U(nkeys, 5);
}

/* The records of a stream: header at *at, body length. */
struct rec {
	const uint8_t *hdr;
	size_t len;
};

static int records(int side, struct rec *out, int cap)
{
	int n = 0;
	for (size_t o = 0; o + 5 <= nstream[side] && n < cap;) {
		size_t len = (size_t)stream[side][o + 3] << 8 | stream[side][o + 4];
		if (o + 5 + len > nstream[side])
			break;
		out[n++] = (struct rec){stream[side] + o, len};
		o += 5 + len;
	}
	return n;
}

static void server_flight(void)
{
	struct rec r[16];
	int n = records(1, r, 16);
	CHECK_EQ_U(n, 10); /* ServerHello, ChangeCipherSpec, 4 handshake, 2 tickets, the line,
			    * an alert */
	CHECK(r[0].hdr[0] == 22 && r[1].hdr[0] == 20);
	const struct tls_suite *s = tls13_suite(now->suite); /* ServerHello's */
	CHECK(s != NULL);
	if (!s)
		return;
	struct tls_keys hs, ap;
	CHECK(tls13_keys(&hs, s, secret_of(KEYLOG_SERVER_HANDSHAKE), s->hash_len) == 0);
	CHECK(tls13_keys(&ap, s, secret_of(KEYLOG_SERVER_TRAFFIC), s->hash_len) == 0);
	uint8_t out[TLS_RECORD_MAX], type = 0;
	static const uint8_t first[] = {0x08, 0x0b, 0x0f, 0x14}; /* EE, Certificate, CV, Finished */
	for (int i = 0; i < 4; i++) {
		int len = tls13_open(&hs, r[2 + i].hdr, r[2 + i].hdr + 5, r[2 + i].len, out, &type);
		CHECK(len > 0 && type == 22 && out[0] == first[i]);
		if (i == 0)
			CHECK(len == 6 && memcmp(out, "\x08\x00\x00\x02\x00\x00", 6) == 0);
	}
	for (int i = 6; i < 8; i++) /* NewSessionTicket, under the traffic secret */
		CHECK(tls13_open(&ap, r[i].hdr, r[i].hdr + 5, r[i].len, out, &type) > 0 && type == 22 &&
		      out[0] == 0x04);
	/* the reversed line: a flipped byte, then the skipped sequence number
	 * never open it; as sent, it does */
	uint8_t bad[TLS_RECORD_MAX];
	memcpy(bad, r[8].hdr, 5 + r[8].len);
	bad[5 + 3] ^= 1;
	CHECK(tls13_open(&ap, bad, bad + 5, r[8].len, out, &type) == -1);
	CHECK_EQ_U(ap.seq, 2); /* left as it was */
	ap.seq = 3;
	CHECK(tls13_open(&ap, r[8].hdr, r[8].hdr + 5, r[8].len, out, &type) == -1);
	ap.seq = 2;
	int len = tls13_open(&ap, r[8].hdr, r[8].hdr + 5, r[8].len, out, &type);
	CHECK(len == 12 && type == 23 && memcmp(out, "ttrgp olleh\n", 12) == 0);
	CHECK_EQ_U(ap.seq, 3);
	len = tls13_open(&ap, r[9].hdr, r[9].hdr + 5, r[9].len, out, &type);
	CHECK(len == 2 && type == 21 && out[0] == 2 && out[1] == 50); /* alert: fatal, decode_error */
	tls_keys_clear(&hs);
	tls_keys_clear(&ap);
}

static void client_flight(void)
{
	struct rec r[8];
	int n = records(0, r, 8);
	CHECK_EQ_U(n, 4); /* ClientHello, ChangeCipherSpec, Finished, the line */
	const struct tls_suite *s = tls13_suite(now->suite);
	CHECK(s != NULL);
	if (!s)
		return;
	struct tls_keys hs, ap, wrong;
	CHECK(tls13_keys(&hs, s, secret_of(KEYLOG_CLIENT_HANDSHAKE), s->hash_len) == 0);
	CHECK(tls13_keys(&ap, s, secret_of(KEYLOG_CLIENT_TRAFFIC), s->hash_len) == 0);
	CHECK(tls13_keys(&wrong, s, secret_of(KEYLOG_SERVER_TRAFFIC), s->hash_len) == 0);
	uint8_t out[TLS_RECORD_MAX], type = 0;
	int len = tls13_open(&hs, r[2].hdr, r[2].hdr + 5, r[2].len, out, &type);
	CHECK(len == 4 + s->hash_len && type == 22 && out[0] == 0x14); /* Finished: its hash */
	CHECK(tls13_open(&wrong, r[3].hdr, r[3].hdr + 5, r[3].len, out, &type) == -1);
	len = tls13_open(&ap, r[3].hdr, r[3].hdr + 5, r[3].len, out, &type);
	CHECK(len == 12 && type == 23 && memcmp(out, "hello pgrtt\n", 12) == 0);
	/* a secret of another hash's length, a suite this does not read */
	CHECK(tls13_keys(&wrong, s, secret_of(KEYLOG_CLIENT_TRAFFIC), 80 - s->hash_len) == -1);
	CHECK(tls13_suite(0x00ff) == NULL);
	/* a KeyUpdate moves the keys on: the old record no longer opens */
	ap.seq = 0;
	CHECK(tls13_update(&ap) == 0 && ap.seq == 0);
	CHECK(tls13_open(&ap, r[3].hdr, r[3].hdr + 5, r[3].len, out, &type) == -1);
}

int main(void)
{
	for (size_t i = 0; i < sizeof sessions / sizeof sessions[0]; i++) {
		load(&sessions[i]);
		fprintf(stderr, "%s:\n", sessions[i].stem);
		RUN(server_flight);
		RUN(client_flight);
	}
	return TT_EXIT();
}
