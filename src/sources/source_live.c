/* source_live.c - a live interface as a source (source.h), opened the way
 * tcpdump opens one. */
#define _DEFAULT_SOURCE
#include "source.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "net/netdecode.h"

static int live_dispatch(struct source *s, source_fn *fn, void *ctx);

int source_open_live(struct source *l, const struct live_opts *o, char *err, char *warn)
{
	char pe[PCAP_ERRBUF_SIZE] = "";
	memset(l, 0, sizeof(*l));
	l->live = true;
	l->dispatch = live_dispatch;
	warn[0] = '\0';
	l->p = pcap_create(o->iface, pe);
	if (!l->p) {
		snprintf(err, SOURCE_ERRBUF, "%s", pe);
		return -1;
	}
	pcap_set_snaplen(l->p, o->snaplen);
	pcap_set_promisc(l->p, 0);
	pcap_set_timeout(l->p, SOURCE_POLL_MS);
	pcap_set_buffer_size(l->p, o->buffer_bytes);
	/* nanoseconds where the device has them; live.nano says which we got */
	(void)pcap_set_tstamp_precision(l->p, PCAP_TSTAMP_PRECISION_NANO);
	int rc = pcap_activate(l->p);
	if (rc < 0) {
		switch (rc) {
		case PCAP_ERROR_PERM_DENIED:
			snprintf(err, SOURCE_ERRBUF,
				 "%s: permission denied: capturing needs root or CAP_NET_RAW "
				 "(setcap cap_net_raw,cap_net_admin=eip %s)",
				 o->iface, "pgrtt");
			break;
		case PCAP_ERROR_NO_SUCH_DEVICE:
			snprintf(err, SOURCE_ERRBUF, "%s: no such interface (pgrtt capture --list)",
				 o->iface);
			break;
		default:
			snprintf(err, SOURCE_ERRBUF, "%s: %s: %s", o->iface, pcap_statustostr(rc),
				 pcap_geterr(l->p));
			break;
		}
		source_close(l);
		return -1;
	}
	if (rc > 0)
		snprintf(warn, SOURCE_ERRBUF, "%s: %s", pcap_statustostr(rc), pcap_geterr(l->p));
	l->nano = pcap_get_tstamp_precision(l->p) == PCAP_TSTAMP_PRECISION_NANO;
	l->dlt = pcap_datalink(l->p);
	if (!net_linktype_supported(l->dlt)) {
		snprintf(err, SOURCE_ERRBUF, "%s: unsupported link type %d", o->iface, l->dlt);
		source_close(l);
		return -1;
	}
	struct bpf_program prog;
	if (pcap_compile(l->p, &prog, o->filter, 1, PCAP_NETMASK_UNKNOWN) != 0) {
		snprintf(err, SOURCE_ERRBUF, "bad filter \"%s\": %s", o->filter, pcap_geterr(l->p));
		source_close(l);
		return -1;
	}
	rc = pcap_setfilter(l->p, &prog);
	pcap_freecode(&prog);
	if (rc != 0) {
		snprintf(err, SOURCE_ERRBUF, "setting the filter: %s", pcap_geterr(l->p));
		source_close(l);
		return -1;
	}
	/* non-blocking reads after a poll with our own timeout: a blocking
	 * read waits for traffic forever, and --duration must end on an idle
	 * interface too */
	if (pcap_setnonblock(l->p, 1, pe) != 0 || (l->fd = pcap_get_selectable_fd(l->p)) < 0) {
		snprintf(err, SOURCE_ERRBUF, "%s: cannot poll this interface: %s", o->iface, pe);
		source_close(l);
		return -1;
	}
	l->wake_fd = -1;
	if (o->write_path) {
		l->write_path = o->write_path;
		l->write_errno = 0;
		l->dump = pcap_dump_open(l->p, o->write_path);
		if (!l->dump) {
			snprintf(err, SOURCE_ERRBUF, "%s: %s", o->write_path, pcap_geterr(l->p));
			source_close(l);
			return -1;
		}
	}
	return 0;
}

struct relay {
	struct source *s;
	source_fn *fn;
	void *ctx;
};

static void relay(u_char *u, const struct pcap_pkthdr *h, const u_char *bytes)
{
	struct relay *r = (struct relay *)u;
	if (r->s->dump)
		pcap_dump((u_char *)r->s->dump, h, bytes);
	r->s->packets++;
	struct source_packet p = {bytes, h->caplen,
				  (uint64_t)h->ts.tv_sec * 1000000000ull +
					  (uint64_t)h->ts.tv_usec * (r->s->nano ? 1u : 1000u)};
	r->fn(r->ctx, &p);
}

static int dispatch_now(struct source *s, source_fn *fn, void *ctx)
{
	struct relay r = {s, fn, ctx};
	errno = 0;
	int n = pcap_dispatch(s->p, SOURCE_BATCH, relay, (u_char *)&r);
	/* a failed write to -w sets its stream's error flag: looked at once a
	 * batch, errno still the failed write's (the analysis sets none) */
	if (s->dump && !s->write_errno && ferror(pcap_dump_file(s->dump)))
		s->write_errno = errno ? errno : EIO;
	if (n == PCAP_ERROR) {
		snprintf(s->err, SOURCE_ERRBUF, "%s", pcap_geterr(s->p));
		return SOURCE_ERROR;
	}
	if (s->write_errno) { /* the -w file is no longer the capture: stop, as tcpdump does */
		snprintf(s->err, SOURCE_ERRBUF, "-w %s: %s", s->write_path, strerror(s->write_errno));
		return SOURCE_ERROR;
	}
	return n < 0 ? 0 : n; /* PCAP_ERROR_BREAK: a signal */
}

static int live_dispatch(struct source *s, source_fn *fn, void *ctx)
{
	struct pollfd pfd[2] = {{s->fd, POLLIN, 0}, {s->wake_fd, POLLIN, 0}};
	if (poll(pfd, s->wake_fd >= 0 ? 2 : 1, SOURCE_POLL_MS) < 0)
		return 0; /* EINTR: a signal; the caller looks at its flags */
	return dispatch_now(s, fn, ctx);
}

void source_drain(struct source *s, source_fn *fn, void *ctx)
{
	/* TPACKET_V3 hands a block over when it fills or its timeout expires:
	 * wait that long, then take everything without blocking */
	struct timespec ts = {0, (SOURCE_POLL_MS + 50) * 1000000L};
	nanosleep(&ts, NULL);
	for (int idle = 0; idle < 2;) {
		int n = dispatch_now(s, fn, ctx);
		if (n < 0)
			break;
		idle = n == 0 ? idle + 1 : 0;
	}
}

int source_stats(struct source *l, struct capture_drops *d)
{
	struct pcap_stat st = {0};
	st.ps_ifdrop = 0;
	if (pcap_stats(l->p, &st) != 0)
		return -1;
	d->recv = st.ps_recv;
	d->drop = st.ps_drop;
	d->ifdrop = st.ps_ifdrop;
	return 0;
}

void source_breakloop(struct source *l)
{
	if (l->p)
		pcap_breakloop(l->p);
}

int source_finish_write(struct source *l, char *err)
{
	if (!l->dump)
		return 0;
	FILE *f = pcap_dump_file(l->dump);
	errno = 0;
	if (fflush(f) != 0 && !l->write_errno)
		l->write_errno = errno ? errno : EIO;
	if (ferror(f) && !l->write_errno)
		l->write_errno = EIO;
	/* the dumper is its stream (pcap_dump_file): closed here, so that
	 * fclose's own failure (a file system that reports at close) is seen */
	errno = 0;
	if (fclose(f) != 0 && !l->write_errno)
		l->write_errno = errno ? errno : EIO;
	l->dump = NULL;
	if (!l->write_errno)
		return 0;
	snprintf(err, SOURCE_ERRBUF, "-w %s: %s: the file does not hold the whole capture",
		 l->write_path, strerror(l->write_errno));
	return -1;
}

void source_close(struct source *l)
{
	if (l->dump) {
		pcap_dump_flush(l->dump);
		pcap_dump_close(l->dump);
	}
	if (l->have_filter)
		pcap_freecode(&l->prog);
	if (l->p)
		pcap_close(l->p); /* and its stream, before its buffer */
	free(l->iobuf);
	l->iobuf = NULL;
	l->dump = NULL;
	l->p = NULL;
	l->have_filter = false;
}

int source_list_interfaces(FILE *out, char *err)
{
	pcap_if_t *all;
	char pe[PCAP_ERRBUF_SIZE];
	if (pcap_findalldevs(&all, pe) != 0) {
		snprintf(err, SOURCE_ERRBUF, "%s", pe);
		return -1;
	}
	for (pcap_if_t *d = all; d; d = d->next)
		fprintf(out, "%s%s%s%s\n", d->name, d->description ? "  (" : "",
			d->description ? d->description : "", d->description ? ")" : "");
	pcap_freealldevs(all);
	return 0;
}
