/* fuzz_tls.c - the TLS record layer (src/tls/tls_stream.c) on arbitrary
 * streams.  Input: records of a header byte (bit 0: the server's side;
 * bit 1: a capture gap of LEN bytes instead of data), a 2-byte big-endian
 * LEN and, for data, LEN bytes (tests/fuzz/corpus/tls/: the segments of
 * tests/unit/tls/'s real sessions).  The key table holds those sessions'
 * secrets, so the unmutated inputs are opened whole and the mutated ones
 * reach every way a record fails.  The counts must stay consistent: no
 * more opened than records, a failure per direction at most (it stops
 * there), no plaintext but on an open connection's direction still read. */
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "tls/tls_stream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t plain;

static void on_plain(void *ctx, int side, const uint8_t *p, size_t n, uint64_t gap)
{
	const struct tls_stream *s = ctx;
	(void)gap;
	if (p && (s->state != TLS_OPEN || s->dir[side & 1].stopped || n > TLS_RECORD_MAX))
		__builtin_trap();
	plain += n;
}

static struct tls_keytab table;

static void load_keys(void)
{
	if (table.n)
		return;
	/* the real sessions' key logs, read as pgrtt reads them */
	static const char *const files[] = {
		PGRTT_SRC "/tests/unit/tls/openssl-tls13-aes256.keys",
		PGRTT_SRC "/tests/unit/tls/openssl-tls13-aes128.keys",
		PGRTT_SRC "/tests/unit/tls/openssl-tls13-chacha20.keys",
	};
	struct keylog_reader r;
	keylog_init(&r);
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		FILE *f = fopen(files[i], "rb");
		uint8_t buf[4096];
		size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;
		if (f)
			fclose(f);
		keylog_feed(&r, buf, n, tls_keytab_add, &table);
		keylog_finish(&r, tls_keytab_add, &table);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	load_keys();
	static struct tls_stream s;
	tls_stream_init(&s, &table);
	for (size_t o = 0; o + 3 <= size;) {
		int side = data[o] & 1;
		bool gap = data[o] & 2;
		size_t len = (size_t)data[o + 1] << 8 | data[o + 2];
		o += 3;
		if (gap) {
			tls_stream_gap(&s, side, len, on_plain, &s);
			continue;
		}
		if (len > size - o)
			len = size - o;
		tls_stream_data(&s, side, data + o, len, on_plain, &s);
		o += len;
	}
	/* a direction stops at its first failure: two at most */
	if (s.opened > s.records || s.failed > 2)
		__builtin_trap();
	tls_stream_clear(&s);
	return 0;
}
