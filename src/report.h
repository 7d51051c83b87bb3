/* report.h - render a finished analysis as text or JSON. */
#ifndef PGRTT_REPORT_H
#define PGRTT_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "analysis.h"
#include "format.h"

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


#endif
