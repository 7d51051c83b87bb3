/* capture.h - live capture with libpcap, in tcpdump's order: create, set
 * snaplen/timeout/buffer/nanosecond timestamps, activate (warnings told
 * apart from errors), BPF filter, dispatch in a loop.  No immediate mode:
 * it costs 6-17x CPU per packet (docs/benchmark.md, measured with tcpdump);
 * a short timeout instead. */
#ifndef PGRTT_CAPTURE_H
#define PGRTT_CAPTURE_H

#include <pcap/pcap.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "report.h"

#define CAPTURE_ERRBUF 512
#define CAPTURE_TIMEOUT_MS 100

struct live {
	pcap_t *p;
	pcap_dumper_t *dump;
	int dlt;
	int fd; /* pcap_get_selectable_fd */
	bool nano; /* the device gives nanosecond stamps (else microseconds) */
};

/* A packet's time in nanoseconds, whatever precision libpcap gave. */
static inline uint64_t pcap_ts_ns(const struct pcap_pkthdr *h, bool nano)
{
	return (uint64_t)h->ts.tv_sec * 1000000000ull +
	       (uint64_t)h->ts.tv_usec * (nano ? 1u : 1000u);
}

struct live_opts {
	const char *iface;
	int snaplen;
	int buffer_bytes;
	const char *filter;     /* the whole BPF expression */
	const char *write_path; /* -w, or NULL */
};

/* Open and activate.  Returns 0, or -1 with a one-line reason in err.  A
 * warning from pcap_activate is put in warn (empty when none). */
int live_open(struct live *l, const struct live_opts *o, char *err, char *warn);

typedef void live_fn(u_char *ctx, const struct pcap_pkthdr *h, const u_char *bytes);

/* Wait up to CAPTURE_TIMEOUT_MS for packets, then pcap_dispatch what is
 * there; every packet also goes to the -w file.  Returns the packets
 * handled (0 on timeout or a signal) or PCAP_ERROR. */
int live_dispatch(struct live *l, live_fn *fn, u_char *ctx);

/* Read what the kernel still holds (after a stop), without blocking. */
void live_drain(struct live *l, live_fn *fn, u_char *ctx);

int live_stats(struct live *l, struct capture_drops *d);
void live_breakloop(struct live *l);
void live_close(struct live *l);

/* The interfaces libpcap can capture on, one per line. */
int live_list(FILE *out, char *err);

#endif
