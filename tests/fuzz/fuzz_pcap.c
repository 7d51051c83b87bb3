/* fuzz_pcap.c - a whole capture file through libpcap, decoding, reassembly,
 * the framer and the round-trip engine, as `pgrtt analyze` does. */
#define _GNU_SOURCE
#include <pcap/pcap.h>
#include <stdio.h>

#include "analysis.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
	static struct analysis a;
	struct analysis_opts o = {.ports = {5432, 55432}, .nports = 2, .http_ports = {18080},
				  .nhttp_ports = 1, .redis_ports = {6379, 56379}, .nredis_ports = 2,
				  .grace_ns = 2000000};
	if (analysis_init(&a, &o) == 0) {
		struct pcap_pkthdr *h;
		const u_char *pkt;
		int dlt = pcap_datalink(p);
		while (pcap_next_ex(p, &h, &pkt) == 1)
			analysis_packet(&a, dlt, pkt, h->caplen,
					(uint64_t)h->ts.tv_sec * 1000000000ull + (uint64_t)h->ts.tv_usec);
		analysis_free(&a);
	}
	pcap_close(p); /* closes f */
	return 0;
}
