/* fuzz_pgsql.c - the PostgreSQL framer and round-trip engine on arbitrary
 * bytes.  The first byte picks how the connection starts and where each
 * side's input is split; the rest alternates between frontend and backend
 * in chunks, with gaps now and then. */
#include <stddef.h>
#include <stdint.h>

#include "pgsql.h"
#include "pgsql_summary.h"
#include "rtt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void on_msg(void *ctx, const struct pgsql_msg *m)
{
	char buf[256];
	pgsql_summarize(m, buf, sizeof buf);
	rtt_msg(ctx, m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	static struct rtt r;
	static struct hist lat;
	struct pgsql_conn c;
	pgsql_conn_init(&c, data[0] & 1);
	hist_init(&lat);
	rtt_init(&r, &lat, NULL, NULL, NULL);
	size_t chunk = 1 + (data[0] >> 1);
	size_t off = 1;
	int side = 0;
	uint64_t ts = 0;
	while (off < size) {
		size_t n = size - off < chunk ? size - off : chunk;
		if ((data[off] & 0xf0) == 0xf0 && n > 1)
			pgsql_gap(&c, (enum pgsql_side)side, data[off + 1], ts, on_msg, &r);
		pgsql_feed(&c, (enum pgsql_side)side, data + off, n, ts++, on_msg, &r);
		off += n;
		side ^= (data[off - 1] & 1);
	}
	rtt_finish(&r);
	return 0;
}
