/* report.h - render a finished analysis as text or JSON. */
#ifndef PGRTT_REPORT_H
#define PGRTT_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "analysis.h"

/* Packet counts of a live capture (pcap_stats). */
struct capture_drops {
	uint64_t recv, drop, ifdrop;
};

struct report_input {
	char *const *files; /* or the interface, for a live capture */
	int nfiles;
	bool partial; /* some input could not be read to its end */
	const struct capture_drops *drops; /* live capture only */
};

void report_text(FILE *out, const struct analysis *a, const struct report_input *in);

/* Returns 0, or -1 when out of memory. */
int report_json(FILE *out, const struct analysis *a, const struct report_input *in);

/* Shared helpers */
const char *route_attribution(const struct attrib_route *r);
const char *tls_name(uint8_t tls);
void ts_format(char *buf, size_t cap, uint64_t ts_ns);

#endif
