/* fuzz_http1.c - the HTTP/1.x framer on arbitrary bytes.  Byte 0 picks the
 * piece size, byte 1 where the client's stream ends and the server's begins;
 * pieces alternate between the sides as their last byte says, with gaps and
 * an end of stream now and then.  Each input runs twice: in those pieces,
 * and with each piece fed a byte at a time.  A header block whole in its
 * piece is read where it lies (http1.c whole_block), else copied a line
 * at a time: the two runs must emit the same messages and end with the
 * same error and counters, or the fuzzer traps. */
#define _POSIX_C_SOURCE 200809L /* strnlen */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "http1.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What came out of a run, folded (FNV-1a over each message's fields). */
struct digest {
	uint64_t h, n;
};

static void mix(struct digest *d, const void *p, size_t n)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < n; i++)
		d->h = (d->h ^ b[i]) * 0x100000001b3ull;
}

static void on_msg(void *ctx, const struct http1_msg *m)
{
	struct digest *d = ctx;
	d->n++;
	uint64_t v[] = {m->side, m->request, m->interim, m->target_truncated, m->close_delimited,
			m->version_minor, m->status, m->seq, m->body_bytes, m->ts_first, m->ts_last,
			m->request_ts};
	mix(d, v, sizeof v);
	mix(d, m->method, strnlen(m->method, sizeof m->method));
	mix(d, m->target, strnlen(m->target, sizeof m->target));
}

static void run(const uint8_t *data, size_t size, bool bytewise, struct http1_conn *c,
		struct digest *d)
{
	http1_conn_init(c);
	size_t chunk = 1 + data[0];
	size_t split = 2 + (size - 2) * data[1] / 256;
	size_t off[2] = {2, split}, end[2] = {split, size};
	int side = 0;
	uint64_t ts = 0;
	while (off[0] < end[0] || off[1] < end[1]) {
		if (off[side] >= end[side])
			side ^= 1;
		size_t n = end[side] - off[side] < chunk ? end[side] - off[side] : chunk;
		const uint8_t *p = data + off[side];
		if (p[0] == 0xff && n > 1)
			http1_gap(c, (enum http1_side)side, p[1], ts, on_msg, d);
		if (bytewise)
			for (size_t i = 0; i < n; i++)
				http1_feed(c, (enum http1_side)side, p + i, 1, ts, on_msg, d);
		else
			http1_feed(c, (enum http1_side)side, p, n, ts, on_msg, d);
		ts++;
		off[side] += n;
		if (p[n - 1] & 1)
			side ^= 1;
	}
	http1_eof(c, HTTP1_SERVER, ts, on_msg, d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 3)
		return 0;
	static struct http1_conn a, b;
	struct digest da = {0xcbf29ce484222325ull, 0}, db = da;
	run(data, size, false, &a, &da);
	run(data, size, true, &b, &db);
	if (da.h != db.h || da.n != db.n || a.error != b.error || a.malformed != b.malformed ||
	    a.requests != b.requests || a.responses != b.responses || a.interim != b.interim ||
	    a.unmatched != b.unmatched)
		__builtin_trap();
	return 0;
}
