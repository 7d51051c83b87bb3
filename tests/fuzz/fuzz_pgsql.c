/* fuzz_pgsql.c - the PostgreSQL framer, message summaries and the
 * round-trip engine on arbitrary streams.
 *
 * Input format (tests/fuzz/corpus/pgsql/, made from the committed captures
 * by tests/fuzz/mkcorpus.py): one byte, bit 0 set when the connection is
 * seen from its start; then records of a header byte (bit 0: the backend
 * side; bit 1: a capture gap of LEN bytes instead of data), a 2-byte
 * big-endian LEN and, for data, LEN bytes of that side's stream. */
#include <stddef.h>
#include <stdint.h>

#include "pgsql.h"
#include "pgsql_summary.h"
#include "proto/pgsql/rtt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void on_msg(void *ctx, const struct pgsql_msg *m)
{
	char buf[256];
	pgsql_summarize(m, (m->type & 1) != 0, buf, sizeof buf);
	rtt_msg(ctx, m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	static struct rtt r;
	static struct hist lat;
	struct pgsql_conn c;
	pgsql_conn_init(&c, data[0] & 1);
	hist_init(&lat);
	rtt_init(&r, &lat, NULL, NULL, NULL);
	r.fingerprints = true; /* statements' fingerprints (sqlclass.c) on hostile text too */
	size_t off = 1;
	uint64_t ts = 0;
	while (off + 3 <= size) {
		uint8_t hdr = data[off];
		size_t n = (size_t)data[off + 1] << 8 | data[off + 2];
		enum pgsql_side side = hdr & 1 ? PGSQL_BE : PGSQL_FE;
		off += 3;
		if (hdr & 2) {
			rtt_gap(&r, side);
			pgsql_gap(&c, side, n, ts++, on_msg, &r);
			continue;
		}
		if (n > size - off)
			n = size - off;
		pgsql_feed(&c, side, data + off, n, ts++, on_msg, &r);
		off += n;
	}
	rtt_finish(&r);
	return 0;
}
