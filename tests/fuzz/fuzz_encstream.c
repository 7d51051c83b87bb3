/* fuzz_encstream.c - the encrypted-stream recogniser on arbitrary bytes, and
 * the framer's use of it: a mid-stream connection fed the input in pieces
 * whose sizes the first byte picks. */
#include <stddef.h>
#include <stdint.h>

#include "encstream.h"
#include "pgsql.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void on_msg(void *ctx, const struct pgsql_msg *m)
{
	(void)ctx;
	(void)m;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bool whole;
	enum enc_kind k = enc_kind_of(data, size, &whole);
	if (k == ENC_NONE && whole)
		__builtin_trap(); /* "whole" only describes a recognised chain */
	if (size < 2)
		return 0;
	struct pgsql_conn c;
	pgsql_conn_init(&c, false);
	size_t chunk = 1 + data[0];
	for (size_t off = 1; off < size; off += chunk) {
		size_t n = size - off < chunk ? size - off : chunk;
		pgsql_feed(&c, (enum pgsql_side)(off & 1), data + off, n, off, on_msg, NULL);
	}
	return 0;
}
