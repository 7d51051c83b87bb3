/* fuzz_keylog.c - the key log reader on arbitrary files, fed in pieces whose
 * size the first byte picks: the entries and counts must be those of the
 * file read whole, every entry's lengths within bounds, every line counted
 * once (entries, unknown and malformed never more than the lines). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "keylog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct tally {
	uint64_t n, sum;
};

static void on_entry(void *ctx, const struct keylog_entry *e)
{
	struct tally *t = ctx;
	if ((unsigned)e->label >= KEYLOG_NLABELS || e->secret_len == 0 ||
	    e->secret_len > KEYLOG_SECRET_MAX)
		__builtin_trap();
	t->n++;
	for (int i = 0; i < KEYLOG_RANDOM; i++)
		t->sum = t->sum * 31 + e->random[i];
	for (int i = 0; i < e->secret_len; i++)
		t->sum = t->sum * 31 + e->secret[i];
}

static struct keylog_reader read_in(const uint8_t *p, size_t n, size_t piece, struct tally *t)
{
	struct keylog_reader r;
	keylog_init(&r);
	for (size_t o = 0; o < n;) {
		size_t k = n - o > piece ? piece : n - o;
		keylog_feed(&r, p + o, k, on_entry, t);
		o += k;
	}
	keylog_finish(&r, on_entry, t);
	return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t piece = 1 + data[0];
	struct tally whole = {0}, pieces = {0};
	struct keylog_reader a = read_in(data + 1, size - 1, size, &whole);
	struct keylog_reader b = read_in(data + 1, size - 1, piece, &pieces);
	if (whole.n != pieces.n || whole.sum != pieces.sum || a.lines != b.lines ||
	    a.malformed != b.malformed || a.unknown != b.unknown || a.entries != whole.n ||
	    a.entries + a.unknown + a.malformed > a.lines)
		__builtin_trap();
	return 0;
}
