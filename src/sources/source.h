/* source.h - where packets come from: a saved capture (source_file.c) or a
 * live interface (source_live.c), behind one shape.
 *
 * A source hands packets to a callback in batches (pcap_dispatch), their
 * time already in nanoseconds whatever precision libpcap gave, and says
 * when it has none for now (a live interface that was idle for the poll
 * timeout), when it ended, or why it failed.  The commands run the loop:
 * analyze over files one after another, capture until a signal, a duration
 * or a count.  A new source (a ring buffer, a remote capture) is one file
 * that fills a struct source.  Library code: errors in err, never printed.
 */
#ifndef PGRTT_SOURCE_H
#define PGRTT_SOURCE_H

#include <pcap/pcap.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "input.h"

#define SOURCE_ERRBUF 512
#define SOURCE_POLL_MS 100 /* live: the poll and the kernel block timeout */
/* live: packets per dispatch at most.  pcap_dispatch(-1) on a TPACKET_V3
 * ring hands over every block that is ready; an analysis slower than the
 * traffic (an ASan build, a saturated app) then never came back, and the
 * caller's status line, samples and --duration stood still until the load
 * stopped.  4096 packets is a few ms of work, and a whole block or more. */
#define SOURCE_BATCH 4096

struct source_packet {
	const uint8_t *data;
	uint32_t caplen;
	uint64_t ts_ns;
};

typedef void source_fn(void *ctx, const struct source_packet *p);

/* Progress of a regular file: done is 0..1, or negative for "finished"
 * (the caller clears its line).  At most twice a second. */
typedef void source_progress_fn(void *ctx, const char *path, double done, uint64_t packets);

enum source_result {
	SOURCE_END = -1,   /* a file was read to its end */
	SOURCE_ERROR = -2, /* reading stopped: err says why */
};

struct source {
	/* set by the source's open: hand what is there to fn (see source_dispatch) */
	int (*dispatch)(struct source *s, source_fn *fn, void *ctx);
	pcap_t *p;
	int dlt;
	bool nano;   /* libpcap gives nanoseconds (else microseconds) */
	bool live;
	uint64_t packets; /* read (before the file's own filter) */
	char err[SOURCE_ERRBUF];
	/* a file */
	const char *path;
	struct bpf_program prog;
	bool have_filter;
	long size;
	source_progress_fn *progress;
	void *progress_ctx;
	double last_progress;
	bool progress_shown;
	char *iobuf; /* its stream's buffer (NULL: standard input's, static) */
	/* a live interface */
	pcap_dumper_t *dump; /* -w */
	const char *write_path;
	int write_errno; /* the first write to -w that failed: its errno (0: none) */
	int fd;
	int wake_fd; /* another descriptor whose readiness ends the wait for packets (-1: none) */
};

/* Open a capture file ("-": standard input) with an optional BPF filter.
 * Returns 0, or -1 with the reason in err (no file name, no newline): the
 * file is missing, not a capture, of an unsupported link type, or the
 * filter is bad. */
int source_open_file(struct source *s, const char *path, const char *filter,
		     source_progress_fn *progress, void *ctx, char *err);

/* Bytes of a regular file not read yet, or -1 (standard input, a pipe,
 * a live interface, an error). */
long source_left(const struct source *s);

struct live_opts {
	const char *iface;
	int snaplen;
	int buffer_bytes;
	const char *filter;     /* the whole BPF expression */
	const char *write_path; /* -w, or NULL */
};

/* Open and activate an interface in tcpdump's order (create, snaplen, a
 * SOURCE_POLL_MS timeout, buffer, nanosecond stamps where the device has
 * them, activate, filter; no immediate mode: it costs 6-17x CPU per packet,
 * docs/perf.md).  Returns 0, or -1 with a one-line reason in err; a
 * warning from pcap_activate goes to warn (empty when none). */
int source_open_live(struct source *s, const struct live_opts *o, char *err, char *warn);

/* Hand what is there to fn (a live source waits up to SOURCE_POLL_MS
 * first and hands over SOURCE_BATCH packets at most; every packet also
 * goes to its -w file).  Returns the packets
 * handed over (0: none for now, or a signal), SOURCE_END or SOURCE_ERROR. */
static inline int source_dispatch(struct source *s, source_fn *fn, void *ctx)
{
	return s->dispatch(s, fn, ctx);
}

/* A live source after a stop: what the kernel still holds, without
 * blocking (TPACKET_V3 hands a block over on its timeout). */
void source_drain(struct source *s, source_fn *fn, void *ctx);

/* Kernel and interface counts of a live source. */
int source_stats(struct source *s, struct capture_drops *d);

/* From a signal handler: return from the current dispatch. */
void source_breakloop(struct source *s);

/* -w written out and closed: 0, or -1 with the reason in err when any
 * write to it failed (a full disk, a closed pipe) - its file is not the
 * whole capture then.  A live source whose write fails also stops its
 * dispatch with SOURCE_ERROR (err names the file). */
int source_finish_write(struct source *s, char *err);

/* Close (-w flushed and closed, its errors unsaid: source_finish_write). */
void source_close(struct source *s);

/* The interfaces libpcap can capture on, one per line. */
int source_list_interfaces(FILE *out, char *err);

#endif
