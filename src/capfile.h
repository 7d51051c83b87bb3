/* capfile.h - read saved captures (pcap, pcapng; "-" is stdin) into an
 * analysis, with an optional BPF filter and a progress line on a TTY. */
#ifndef PGRTT_CAPFILE_H
#define PGRTT_CAPFILE_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis.h"

#define CAPFILE_ERRBUF 512

enum capfile_status {
	CAPFILE_OK = 0,
	CAPFILE_UNUSABLE = -1, /* nothing read: missing, not a capture, bad link type */
	CAPFILE_PARTIAL = -2,  /* read stopped early (truncated file, I/O error) */
};

/* Feed every packet of path to a.  On failure errbuf holds the reason (no
 * file name, no newline).  *packets gets the number of packets read. */
enum capfile_status capfile_run(const char *path, const char *filter, bool progress,
				struct analysis *a, uint64_t *packets, char *errbuf);

#endif
