/* feed.c - a source's packets into an analysis (feed.h). */
#define _DEFAULT_SOURCE /* pcap.h: u_int and its kin */
#include "feed.h"

void feed_analysis(void *ctx, const struct source_packet *p)
{
	struct feed *f = ctx;
	analysis_packet(f->a, f->dlt, p->data, p->caplen, p->ts_ns);
}
