/* source_file.c - a saved capture, pcap or pcapng, as a source (source.h):
 * read with nanosecond precision, filtered by BPF in user space, with a
 * progress callback for regular files. */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <pcap/pcap.h>
#include <stdio.h>
#if defined(__GLIBC__) || defined(__linux__)
#include <stdio_ext.h> /* __fsetlocking: glibc's and musl's */
#endif
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "net/netdecode.h"
#include "source.h"

#define BATCH 4096 /* packets per dispatch: progress and signals in between */
#define READ_BUFFER (64 << 10) /* bytes per read(2): larger ones measured slower (the buffer leaves L2) */

static int file_dispatch(struct source *s, source_fn *fn, void *ctx);

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* libpcap's messages, made shorter and clearer for the usual cases. */
static void open_error(const char *path, const char *pcap_msg, char *errbuf)
{
	struct stat st;
	if (strcmp(path, "-") != 0 && stat(path, &st) != 0) {
		snprintf(errbuf, SOURCE_ERRBUF, "%s", strerror(errno));
		return;
	}
	if (strcmp(path, "-") != 0 && S_ISDIR(st.st_mode)) {
		snprintf(errbuf, SOURCE_ERRBUF, "is a directory");
		return;
	}
	if (strcmp(path, "-") != 0 && st.st_size == 0) {
		snprintf(errbuf, SOURCE_ERRBUF, "empty file, not a capture");
		return;
	}
	if (strstr(pcap_msg, "unknown file format"))
		snprintf(errbuf, SOURCE_ERRBUF, "not a pcap or pcapng capture (unknown file format)");
	else if (strstr(pcap_msg, "truncated"))
		snprintf(errbuf, SOURCE_ERRBUF, "truncated capture header (%s)", pcap_msg);
	else
		snprintf(errbuf, SOURCE_ERRBUF, "%s", pcap_msg);
}

int source_open_file(struct source *s, const char *path, const char *filter,
		     source_progress_fn *progress, void *ctx, char *err)
{
	char pe[PCAP_ERRBUF_SIZE] = "";
	memset(s, 0, sizeof(*s));
	err[0] = '\0';
	s->path = path;
	s->dispatch = file_dispatch;
	s->nano = true; /* libpcap converts every file to the precision asked for */
	/* opened here, not by libpcap: its stream would read in blocks of the
	 * file system's size (4 KiB), a system call per few packets - a third
	 * of the time of reading a capture from the page cache */
	static char stdin_buf[READ_BUFFER]; /* libpcap never closes standard input */
	static bool stdin_buffered;         /* setvbuf only before a stream's first read */
	bool in = strcmp(path, "-") == 0;
	FILE *fp = in ? stdin : fopen(path, "rb");
	if (!fp) {
		snprintf(err, SOURCE_ERRBUF, "%s", strerror(errno));
		return -1;
	}
	s->iobuf = in ? NULL : malloc(READ_BUFFER);
	if (in && !stdin_buffered) /* glibc ignores the size without a buffer */
		setvbuf(fp, stdin_buf, _IOFBF, READ_BUFFER);
	else if (s->iobuf)
		setvbuf(fp, s->iobuf, _IOFBF, READ_BUFFER);
	stdin_buffered |= in;
#if defined(__GLIBC__) || defined(__linux__)
	/* the stream is read by this thread alone; once the placing thread
	 * runs, stdio would otherwise lock it for each of libpcap's two freads
	 * a packet (an atomic exchange each), as much time as all the round
	 * trips' attribution with --http-port */
	__fsetlocking(fp, FSETLOCKING_BYCALLER);
#endif
	s->p = pcap_fopen_offline_with_tstamp_precision(fp, PCAP_TSTAMP_PRECISION_NANO, pe);
	if (!s->p) {
		if (!in)
			fclose(fp); /* libpcap leaves a stream it could not use to its caller */
		free(s->iobuf);
		s->iobuf = NULL;
		open_error(path, pe, err);
		return -1;
	}
	s->dlt = pcap_datalink(s->p);
	if (!net_linktype_supported(s->dlt)) {
		const char *name = pcap_datalink_val_to_name(s->dlt);
		snprintf(err, SOURCE_ERRBUF,
			 "unsupported link type %d%s%s%s; supported: EN10MB, LINUX_SLL, LINUX_SLL2, "
			 "NULL, LOOP, RAW",
			 s->dlt, name ? " (" : "", name ? name : "", name ? ")" : "");
		source_close(s);
		return -1;
	}
	if (filter && filter[0]) {
		if (pcap_compile(s->p, &s->prog, filter, 1, PCAP_NETMASK_UNKNOWN) != 0) {
			snprintf(err, SOURCE_ERRBUF, "bad filter \"%s\": %s", filter, pcap_geterr(s->p));
			source_close(s);
			return -1;
		}
		s->have_filter = true;
	}
	struct stat st;
	FILE *f = pcap_file(s->p);
	s->size = -1;
	if (f && fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode))
		s->size = (long)st.st_size;
	if (progress && s->size >= 0) {
		s->progress = progress;
		s->progress_ctx = ctx;
		s->last_progress = now_s();
	}
	return 0;
}

long source_left(const struct source *s)
{
	FILE *f = s->live || !s->p ? NULL : pcap_file(s->p);
	long pos = f && s->size >= 0 ? ftell(f) : -1;
	return pos >= 0 && pos <= s->size ? s->size - pos : -1;
}

/* Read up to BATCH packets of a file. */
static int file_dispatch(struct source *s, source_fn *fn, void *ctx)
{
	int n = 0;
	struct pcap_pkthdr *h;
	const u_char *data;
	while (n < BATCH) {
		int rc = pcap_next_ex(s->p, &h, &data);
		if (rc == PCAP_ERROR_BREAK) { /* the end of the file */
			if (s->progress_shown)
				s->progress(s->progress_ctx, s->path, -1, s->packets);
			s->progress_shown = false;
			return n ? n : SOURCE_END;
		}
		if (rc != 1) {
			snprintf(s->err, SOURCE_ERRBUF, "read stopped after %llu packets: %s",
				 (unsigned long long)s->packets, pcap_geterr(s->p));
			if (s->progress_shown)
				s->progress(s->progress_ctx, s->path, -1, s->packets);
			s->progress_shown = false;
			return SOURCE_ERROR;
		}
		s->packets++;
		if (s->have_filter && !pcap_offline_filter(&s->prog, h, data))
			continue;
		struct source_packet p = {data, h->caplen,
					  (uint64_t)h->ts.tv_sec * 1000000000ull + (uint64_t)h->ts.tv_usec};
		fn(ctx, &p);
		n++;
	}
	if (s->progress) {
		double t = now_s();
		if (t - s->last_progress >= 0.5) {
			long pos = ftell(pcap_file(s->p));
			s->progress(s->progress_ctx, s->path,
				    pos > 0 ? (double)pos / (double)s->size : 0.0, s->packets);
			s->last_progress = t;
			s->progress_shown = true;
		}
	}
	return n;
}
