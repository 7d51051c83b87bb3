/* capfile.c - libpcap offline reading with nanosecond timestamps. */
#define _DEFAULT_SOURCE
#include "capfile.h"
#include "capture.h"

#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "netdecode.h"

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
		snprintf(errbuf, CAPFILE_ERRBUF, "%s", strerror(errno));
		return;
	}
	if (strcmp(path, "-") != 0 && S_ISDIR(st.st_mode)) {
		snprintf(errbuf, CAPFILE_ERRBUF, "is a directory");
		return;
	}
	if (strcmp(path, "-") != 0 && st.st_size == 0) {
		snprintf(errbuf, CAPFILE_ERRBUF, "empty file, not a capture");
		return;
	}
	if (strstr(pcap_msg, "unknown file format"))
		snprintf(errbuf, CAPFILE_ERRBUF, "not a pcap or pcapng capture (unknown file format)");
	else if (strstr(pcap_msg, "truncated"))
		snprintf(errbuf, CAPFILE_ERRBUF, "truncated capture header (%s)", pcap_msg);
	else
		snprintf(errbuf, CAPFILE_ERRBUF, "%s", pcap_msg);
}

enum capfile_status capfile_run(const char *path, const char *filter,
				capfile_progress_fn *progress, void *ctx, struct analysis *a,
				uint64_t *packets, char *errbuf)
{
	char pe[PCAP_ERRBUF_SIZE] = "";
	*packets = 0;
	errbuf[0] = '\0';
	pcap_t *p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, pe);
	if (!p) {
		open_error(path, pe, errbuf);
		return CAPFILE_UNUSABLE;
	}
	int dlt = pcap_datalink(p);
	if (!net_linktype_supported(dlt)) {
		const char *name = pcap_datalink_val_to_name(dlt);
		snprintf(errbuf, CAPFILE_ERRBUF,
			 "unsupported link type %d%s%s%s; supported: EN10MB, LINUX_SLL, LINUX_SLL2, "
			 "NULL, LOOP, RAW",
			 dlt, name ? " (" : "", name ? name : "", name ? ")" : "");
		pcap_close(p);
		return CAPFILE_UNUSABLE;
	}
	struct bpf_program prog;
	bool have_filter = false;
	if (filter && filter[0]) {
		if (pcap_compile(p, &prog, filter, 1, PCAP_NETMASK_UNKNOWN) != 0) {
			snprintf(errbuf, CAPFILE_ERRBUF, "bad filter \"%s\": %s", filter,
				 pcap_geterr(p));
			pcap_close(p);
			return CAPFILE_UNUSABLE;
		}
		have_filter = true;
	}

	off_t size = 0;
	struct stat st;
	FILE *f = pcap_file(p);
	if (progress && f && fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode))
		size = st.st_size;
	else
		progress = NULL;
	double last = now_s();
	bool shown = false;

	enum capfile_status status = CAPFILE_OK;
	struct pcap_pkthdr *h;
	const u_char *data;
	for (;;) {
		int rc = pcap_next_ex(p, &h, &data);
		if (rc == PCAP_ERROR_BREAK)
			break;
		if (rc != 1) {
			snprintf(errbuf, CAPFILE_ERRBUF, "read stopped after %llu packets: %s",
				 (unsigned long long)*packets, pcap_geterr(p));
			status = CAPFILE_PARTIAL;
			break;
		}
		(*packets)++;
		if (have_filter && !pcap_offline_filter(&prog, h, data))
			continue;
		uint64_t ts = pcap_ts_ns(h, true); /* opened with nanosecond precision */
		analysis_packet(a, dlt, data, h->caplen, ts);
		if (progress && (*packets & 0xffff) == 0) {
			double t = now_s();
			if (t - last >= 0.5) {
				long pos = ftell(f);
				progress(ctx, path, pos > 0 ? (double)pos / (double)size : 0.0, *packets);
				last = t;
				shown = true;
			}
		}
	}
	if (shown)
		progress(ctx, path, -1, *packets);
	if (have_filter)
		pcap_freecode(&prog);
	pcap_close(p);
	return status;
}
