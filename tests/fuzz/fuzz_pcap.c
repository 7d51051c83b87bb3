/* fuzz_pcap.c - a whole capture file through libpcap, decoding, reassembly,
 * the framer and the round-trip engine, as `pgrtt analyze` does. */
#define _GNU_SOURCE
#include <pcap/pcap.h>
#include <stdio.h>

#include "engine/analysis.h"
#include "base/textring.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Statement texts as trace reads them back: a small ring, so it comes
 * round and handles go stale. */
static struct textring ring;
static size_t text_bytes;

static void read_back(uint64_t text)
{
	size_t n;
	const char *s = textring_get(&ring, text, &n);
	for (size_t i = 0; s && i < n; i++)
		text_bytes += (unsigned char)s[i] != 0;
}

static void on_page(void *ctx, const struct attrib_page_view *p)
{
	(void)ctx;
	for (uint32_t i = 0; i < p->nrts; i++)
		read_back(p->rts[i].text);
}

static void on_rt(void *ctx, const struct conn_summary *c, const struct rt *rt)
{
	(void)ctx;
	(void)c;
	read_back(rt->text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f = fmemopen((void *)data, size, "rb");
	if (!f)
		return 0;
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *p = pcap_fopen_offline_with_tstamp_precision(f, PCAP_TSTAMP_PRECISION_NANO, err);
	if (!p) {
		fclose(f);
		return 0;
	}
	static struct analysis *a; /* one storage for every input */
	if (!a && !(a = analysis_new())) {
		pcap_close(p);
		return 0;
	}
	/* 18081: the proxy in front of the app (captures/web-proxied.pcap) */
	struct analysis_opts o = {.ports = {5432, 55432}, .nports = 2, .http_ports = {18080, 18081},
				  .nhttp_ports = 2, .proto_ports[PROTO_REDIS] = {{6379, 56379}, 2},
				  .grace_ns = 2000000, .on_page = on_page, .pgsql.on_rt = on_rt};
	if (!ring.buf && textring_init(&ring, 1u << 16) != 0)
		return 0;
	o.pgsql.texts = &ring;
	o.pgsql.text_values = size & 1;
	if (analysis_init(a, &o) == 0) {
		struct pcap_pkthdr *h;
		const u_char *pkt;
		int dlt = pcap_datalink(p);
		while (pcap_next_ex(p, &h, &pkt) == 1)
			analysis_packet(a, dlt, pkt, h->caplen,
					(uint64_t)h->ts.tv_sec * 1000000000ull + (uint64_t)h->ts.tv_usec);
		analysis_free(a);
	}
	pcap_close(p); /* closes f */
	return 0;
}
