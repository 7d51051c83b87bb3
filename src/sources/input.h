/* input.h - what an analysis read: the files or the interface, whether
 * it read them to their end, and a live capture's packet counts.  The
 * findings, the reports and the store each say it. */
#ifndef PGRTT_INPUT_H
#define PGRTT_INPUT_H

#include <stdbool.h>
#include <stdint.h>

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

#endif
