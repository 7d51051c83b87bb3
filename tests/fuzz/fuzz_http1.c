/* fuzz_http1.c - the HTTP/1.x framer on arbitrary bytes.  Byte 0 picks the
 * piece size, byte 1 where the client's stream ends and the server's begins;
 * pieces alternate between the sides as their last byte says, with gaps and
 * an end of stream now and then. */
#include <stddef.h>
#include <stdint.h>

#include "http1.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void on_msg(void *ctx, const struct http1_msg *m)
{
	(void)ctx;
	(void)m;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 3)
		return 0;
	static struct http1_conn c;
	http1_conn_init(&c);
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
			http1_gap(&c, (enum http1_side)side, p[1], ts, on_msg, NULL);
		http1_feed(&c, (enum http1_side)side, p, n, ts++, on_msg, NULL);
		off[side] += n;
		if (p[n - 1] & 1)
			side ^= 1;
	}
	http1_eof(&c, HTTP1_SERVER, ts, on_msg, NULL);
	return 0;
}
