/* capfile.h - read saved captures (pcap, pcapng; "-" is stdin) into an
 * analysis, with an optional BPF filter; progress through a callback. */
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

/* Progress of a regular file: done is 0..1, or negative for "finished"
 * (the caller clears its line).  Called at most twice a second. */
typedef void capfile_progress_fn(void *ctx, const char *path, double done, uint64_t packets);

/* Feed every packet of path to a.  On failure errbuf holds the reason (no
 * file name, no newline).  *packets gets the number of packets read.
 * progress may be NULL.  Never prints: library code. */
enum capfile_status capfile_run(const char *path, const char *filter,
				capfile_progress_fn *progress, void *ctx, struct analysis *a,
				uint64_t *packets, char *errbuf);

#endif
