/* cmd_capture.c - pgrtt capture: the same analysis as analyze, live. */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sources/source.h"
#include "cli/cli.h"
#include "report/metrics.h"
#include "store/spool.h"
#include "metrics_http.h"
#include "commands.h"
#include "cli/opts.h"
#include "results.h"

static struct source live;
static volatile sig_atomic_t stop_signal;

static volatile sig_atomic_t stats_signal;

static void on_signal(int sig)
{
	stop_signal = sig; /* only this and pcap_breakloop, as tcpdump does */
	source_breakloop(&live);
}

static void on_stats_signal(int sig)
{
	(void)sig;
	stats_signal = 1; /* SIGUSR1: counts so far on stderr, as tcpdump does */
}

static void help(FILE *out)
{
	fputs("Usage: pgrtt capture -i IFACE [OPTIONS]\n"
	      "       pgrtt capture --list\n"
	      "\n"
	      "Capture PostgreSQL (and HTTP) traffic live and analyse it as 'pgrtt analyze'\n"
	      "does.  Stops on Ctrl-C, SIGTERM, --duration or --count, then prints the\n"
	      "summary (with kernel drops), flushes -w and stores the run in --db.\n"
	      "\n"
	      "Options:\n"
	      "  -i, --iface IFACE      interface to capture on ('any' included)\n"
	      "      --list             list the interfaces\n"
	      "  -p, --port PORT        PostgreSQL server port (default 5432; repeatable)\n",
	      out);
	opts_help_ports(out);
	fputs("      --http-port PORT   HTTP/1.x server port: pages and routes (repeatable)\n"
	      "      --route PATTERN    a route pattern (repeatable)\n"
	      "      --route-values N   values that make a path segment a parameter (16; 0: off)\n"
	      "      --grace MS         page attribution grace (default 2)\n"
	      "      --page-timeout S   requests open longer stop holding attribution (10)\n"
	      "      --max-buffer MIB   out-of-order data held, all connections (128)\n"
	      "  -f, --filter EXPR      extra BPF expression, and-ed with the port filter\n"
	      "  -d, --duration SEC     stop after SEC seconds\n"
	      "  -c, --count N          stop after N packets\n"
	      "  -w, --write FILE       also write the packets to FILE (pcap)\n"
	      "  -s, --snaplen BYTES    bytes kept per packet (default 262144: whole packets)\n"
	      "  -B, --buffer-size KIB  kernel buffer in KiB (default 65536)\n"
	      "  -Z, --user USER        drop privileges to USER once capturing\n"
	      "      --rotate DURATION  with --db: store a run every DURATION (30s, 10m, 6h) and\n"
	      "                         go on, the open connections picked up mid-stream\n"
	      "      --spool FILE       a PostgreSQL --db's runs wait here while it is away\n"
	      "                         (default ~/.local/state/pgrtt/spool.db)\n"
	      "      --metrics ADDR:PORT  serve Prometheus metrics at http://ADDR:PORT/metrics\n"
	      "                         (e.g. 127.0.0.1:9187; only that address)\n"
	      "  -F, --format FMT       text (default) or json\n"
	      "  -o, --output FILE      write the report to FILE\n"
	      "      --db FILE|URI, --app NAME, --label KEY=VALUE, --store-round-trips  as analyze\n"
	      "      --no-progress      no status line, even on a terminal (also --no-status)\n"
	      "  -h, --help             show this help\n"
	      "\n"
	      "Exit status: 0 ok, 2 capture or runtime error, 64 usage error.\n",
	      out);
}

struct cap_ctx {
	struct analysis *a;
	uint64_t count, seen;
};

/* A scrape of --metrics: the figures now, pcap's drops fetched for it. */
struct scrape {
	const struct analysis *a;
	const char *app;
	double elapsed;
	struct source *live;
	struct capture_drops *drops;
};

static char *scrape_body(void *ctx, size_t *len)
{
	struct scrape *sc = ctx;
	source_stats(sc->live, sc->drops);
	struct metrics_info mi = {sc->app, sc->elapsed, sc->drops};
	return metrics_render(sc->a, &mi, len);
}

static void on_packet(void *u, const struct source_packet *p)
{
	struct cap_ctx *c = u;
	if (c->count && c->seen >= c->count)
		return;
	c->seen++;
	analysis_packet(c->a, live.dlt, p->data, p->caplen, p->ts_ns);
	if (c->count && c->seen >= c->count)
		source_breakloop(&live);
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* -Z: every output is open by now; the -w file becomes the user's, as
 * tcpdump makes it. */
static int drop_privileges(const char *user, const char *wpath)
{
	struct passwd *pw = getpwnam(user);
	if (!pw) {
		warnx_("-Z %s: no such user", user);
		return -1;
	}
	if (wpath && strcmp(wpath, "-") != 0 && chown(wpath, pw->pw_uid, pw->pw_gid) != 0) {
		warnx_("-Z %s: %s: cannot change its owner: %s", user, wpath, strerror(errno));
		return -1;
	}
	if (initgroups(pw->pw_name, pw->pw_gid) != 0 || setgid(pw->pw_gid) != 0 ||
	    setuid(pw->pw_uid) != 0) {
		warnx_("-Z %s: cannot change to that user: %s", user, strerror(errno));
		return -1;
	}
	return 0;
}

/* A rate as the status line shows it: "17", "2.3k", "1.2M". */
/* Protocol p's round trips so far (its connection figure "round_trips"),
 * false when it counts none of its own (PostgreSQL's are now.pg's). */
static bool live_round_trips(const struct analysis_live *now, int p, uint64_t *n)
{
	const struct proto_ops *ops = analysis_protocol(p);
	const void *figs = analysis_live_figures(now, p);
	for (int i = 0; figs && i < ops->nconn_figs; i++)
		if (strcmp(ops->conn_figs[i].key, "round_trips") == 0) {
			*n = *(const uint64_t *)((const char *)figs + ops->conn_figs[i].at);
			return true;
		}
	return false;
}

static const char *rate(char *buf, size_t cap, double v)
{
	if (v >= 1e6)
		snprintf(buf, cap, "%.1fM", v / 1e6);
	else if (v >= 1e4)
		snprintf(buf, cap, "%.1fk", v / 1e3);
	else
		snprintf(buf, cap, "%.0f", v);
	return buf;
}

static const struct spool *status_spool; /* runs waiting for the store, on the status line */

static void status_line(const struct analysis *a, double elapsed, uint64_t pkts,
			const struct capture_drops *d, struct analysis_live *prev, double dt)
{
	struct analysis_live now = {0};
	analysis_live(a, &now);
	double rfq_s = dt > 0 ? (double)(now.pg.rfq - prev->pg.rfq) / dt : 0;
	double pages_s = dt > 0 ? (double)(now.http.pages - prev->http.pages) / dt : 0;
	double pings_s = dt > 0 ? (double)(now.pg.pings - prev->pg.pings) / dt : 0;
	char rfq[16], pings[16];
	fprintf(stderr, "\r\033[K%6.1f s  %llu pkts  %llu dropped  %llu conns  %s rfq/s  %s pings/s",
		elapsed, (unsigned long long)pkts, (unsigned long long)(d->drop + d->ifdrop),
		(unsigned long long)now.open, rate(rfq, sizeof rfq, rfq_s),
		rate(pings, sizeof pings, pings_s));
	for (int p = 0; p < PROTO_N; p++) { /* every other protocol's round trips */
		uint64_t was, is;
		if (!analysis_asked(a, p) || !live_round_trips(prev, p, &was) ||
		    !live_round_trips(&now, p, &is))
			continue;
		char r[16];
		fprintf(stderr, "  %s %s rt/s", rate(r, sizeof r, dt > 0 ? (double)(is - was) / dt : 0),
			analysis_protocol(p)->name);
	}
	if (analysis_attributing(a)) {
		char pg[16];
		fprintf(stderr, "  %s pages/s", rate(pg, sizeof pg, pages_s));
		const struct attrib *at = analysis_attrib(a);
		const struct attrib_route *best = NULL;
		for (uint32_t i = 0; i < at->nroutes; i++)
			if (!best || at->routes[i].pages > best->pages)
				best = &at->routes[i];
		/* route names are visible ASCII (dissectors/http1.c); an estimated
		 * figure is the running guess until the capture ends (docs/pages.md) */
		if (best && best->pages)
			fprintf(stderr, "  %s %s%.2f rt/page", best->name, best->pages_mixed ? "~" : "",
				best->rt / (double)best->pages);
	}
	if (status_spool && status_spool->waiting)
		fprintf(stderr, "  spool %d", status_spool->waiting);
	fflush(stderr);
	*prev = now;
}

enum {
	C_IFACE = 1, C_LIST, C_DURATION, C_COUNT, C_WRITE, C_SNAPLEN, C_BUFFER, C_USER, C_METRICS,
	C_ROTATE, C_SPOOL
};

struct cap_opts {
	const char *iface, *wpath, *user, *metrics, *spool;
	double duration, count, snaplen, buffer_kib, rotate;
	bool list;
};

static int capture_opt(void *ctx, int id, const char *arg)
{
	struct cap_opts *c = ctx;
	switch (id) {
	case C_IFACE:
		c->iface = arg;
		return 0;
	case C_LIST:
		c->list = true;
		return 0;
	case C_DURATION:
		return opt_number("--duration", arg, 0.001, 1e7, "seconds", &c->duration) ? 0 : -1;
	case C_COUNT:
		return opt_number("--count", arg, 1, 1e15, "packets, 1 or more", &c->count) ? 0 : -1;
	case C_WRITE:
		c->wpath = arg;
		return 0;
	case C_SNAPLEN:
		return opt_number("--snaplen", arg, 68, 262144, "68 to 262144", &c->snaplen) ? 0 : -1;
	case C_BUFFER:
		return opt_number("--buffer-size", arg, 1, 4194304, "KiB, 1 to 4194304", &c->buffer_kib)
			       ? 0
			       : -1;
	case C_SPOOL:
		c->spool = arg;
		return 0;
	case C_ROTATE: { /* 90, 90s, 10m, 6h, 1d */
		char *end;
		double v = strtod(arg, &end);
		double unit = !*end ? 1 : !strcmp(end, "s") ? 1 : !strcmp(end, "m") ? 60
			      : !strcmp(end, "h") ? 3600 : !strcmp(end, "d") ? 86400 : 0;
		if (end == arg || unit == 0 || !(v * unit >= 1) || v * unit > 1e8) {
			usage_error("bad --rotate \"%s\": a duration of 1 s or more (90, 30s, 10m, 6h, 1d)",
				    arg);
			return -1;
		}
		c->rotate = v * unit;
		return 0;
	}
	case C_METRICS: { /* HOST:PORT, [V6]:PORT: the address is never implied */
		const char *colon = strrchr(arg, ':');
		double port;
		if (!colon || colon == arg || !opt_number("--metrics port", colon + 1, 1, 65535,
							 "HOST:PORT, e.g. 127.0.0.1:9187", &port))
			return colon && colon != arg ? -1
						     : (usage_error("--metrics takes HOST:PORT, e.g. "
								    "127.0.0.1:9187, not \"%s\"", arg),
							-1);
		c->metrics = arg;
		return 0;
	}
	default: /* C_USER */
		c->user = arg;
		return 0;
	}
}

/* A store that took its whole deadline to fail (it hangs: a tarpit, a
 * frozen server) is not asked again before this, so that it costs the
 * capture loop one deadline per back-off, not one per rotation; the
 * back-off doubles to 5 minutes, and the capture's end always asks. */
static double store_retry_at, store_backoff;

static void store_slow_failure(double started)
{
	if (now_s() - started < 1)
		return; /* refused at once: asking again costs nothing */
	store_backoff = store_backoff ? fmin(store_backoff * 2, 300) : 30;
	store_retry_at = now_s() + store_backoff;
}

/* The spooled runs to the store, if it answers (again): opened anew when
 * it went away.  Quiet while it stays away; a spool that cannot be read or
 * emptied is said once, and never keeps a run from the store. */
static void redeliver(struct store **st, const struct db_opts *dbo, struct spool *sp, bool last)
{
	char err[STORE_ERRBUF];
	double started = now_s();
	if (!*st && !last && started < store_retry_at)
		return;
	if (!*st && !(*st = store_open(dbo->db, STORE_CREATE, err))) {
		store_slow_failure(started);
		return;
	}
	store_backoff = 0;
	if (!sp->waiting)
		return;
	int n, aside = sp->refused;
	int rc = spool_deliver(sp, *st, &n, err);
	if (n)
		warnx_("%s: delivered %d spooled run%s from %s%s", store_shown(dbo->db), n,
		       n == 1 ? "" : "s", sp->path, rc == 0 ? "" : " (the rest still wait)");
	if (sp->refused > aside) {
		char path[4200];
		spool_aside_path(sp, path, sizeof path);
		warnx_("warning: %s: refused %d spooled run%s for its content: kept aside in %s "
		       "(pgrtt runs --db lists %s, label pgrtt.refused says why)",
		       store_shown(dbo->db), sp->refused - aside, sp->refused - aside == 1 ? "" : "s",
		       path, sp->refused - aside == 1 ? "it" : "them");
	}
	if (rc != 0 && store_failure_transient(*st)) {
		store_close(*st);
		*st = NULL;
		store_slow_failure(started);
	} else if (rc != 0 && !sp->warned) {
		sp->warned = true;
		warnx_("warning: the spool %s: %s: its %d run%s wait; runs go to the store directly",
		       sp->path, err, sp->waiting, sp->waiting == 1 ? "" : "s");
	}
}

/* A period's run into the store - or, when a central store is away, into
 * the spool (said), the store to be opened again next time; a run the
 * store answers with a refusal is kept aside, never retried.  Runs waiting
 * in the spool never hold up a store that answers.  0, or -1 when the run
 * could be kept nowhere (said). */
static int keep_run(struct store **st, const struct db_opts *dbo, struct spool *sp,
		    const struct analysis *a, const struct store_run_info *info, bool rotating)
{
	char err[STORE_ERRBUF];
	int64_t id;
	const char *how = rotating ? " (--rotate)" : "";
	redeliver(st, dbo, sp, !rotating); /* the older runs first; the end always asks */
	double started = now_s();
	if (*st && store_finish_run(*st, a, info, &id, err) == 0) {
		warnx_("stored run %lld in %s%s", (long long)id, store_shown(dbo->db), how);
		return 0;
	}
	if (!*st)
		snprintf(err, sizeof err, "not reachable");
	if (!sp->path[0]) {
		warnx_("%s: %s", store_shown(dbo->db), err);
		return -1;
	}
	char e2[STORE_ERRBUF], path[4200];
	if (*st && !store_failure_transient(*st)) {
		spool_aside_path(sp, path, sizeof path);
		if (spool_put_aside(sp, a, info, err, e2) != 0) {
			warnx_("%s: %s; and kept aside in %s: %s", store_shown(dbo->db), err, path, e2);
			return -1;
		}
		warnx_("warning: %s: refused the run: %s: kept aside in %s (label pgrtt.refused)%s",
		       store_shown(dbo->db), err, path, how);
		return 0;
	}
	if (*st)
		store_slow_failure(started);
	store_close(*st);
	*st = NULL;
	if (spool_keep(sp, a, info, &id, e2) != 0) {
		warnx_("%s: %s; and the spool %s: %s", store_shown(dbo->db), err, sp->path, e2);
		return -1;
	}
	warnx_("warning: %s: %s: the run waits in the spool %s (%d run%s)%s", store_shown(dbo->db),
	       err, sp->path, sp->waiting, sp->waiting == 1 ? "" : "s", how);
	return 0;
}

/* --rotate: the period ends - its connections closed as at the end of a
 * capture, its run stored (the drops since the last rotation), and a new
 * analysis begins, picking the open connections up mid-stream, with the
 * routes' parameters learnt so far (route_learn.h): a period whose pages
 * show fewer values than make one would otherwise store a route per value
 * where the others store one.  0, or -1 when the run could be kept nowhere
 * (said; the capture stops). */
static int rotate_run(struct analysis *a, const struct analysis_opts *ao, struct store **st,
		      const struct db_opts *dbo, struct spool *sp, const char *iface,
		      struct source *src, struct capture_drops *drops, struct capture_drops *at_last)
{
	source_stats(src, drops);
	struct capture_drops period = {drops->recv - at_last->recv, drops->drop - at_last->drop,
				       drops->ifdrop - at_last->ifdrop};
	*at_last = *drops;
	analysis_finish(a);
	char source[300], err[STORE_ERRBUF];
	snprintf(source, sizeof source, "interface %s", iface);
	struct store_run_info info = {dbo->app, source, dbo->labels, dbo->nlabels, false, &period};
	if (keep_run(st, dbo, sp, a, &info, true) != 0)
		return -1;
	if (dbo->round_trips && *st && store_begin_run(*st, err) != 0) {
		warnx_("%s: %s", store_shown(dbo->db), err);
		return -1;
	}
	if (analysis_restart(a, ao) != 0) {
		warnx_("%s: out of memory", store_shown(dbo->db));
		return -1;
	}
	return 0;
}

static void capture_init(void *state, struct cmd_opts *co)
{
	(void)co;
	struct cap_opts *c = state;
	c->snaplen = 262144;
	c->buffer_kib = 65536;
}

/* One capture's working state, from its opening to its report. */
struct capture {
	const struct cmd_opts *co;
	const struct cap_opts *c;
	struct db_opts dbo;
	struct analysis_opts ao;
	char filter[2048];
	bool status; /* the status line */
	struct store *st;
	FILE *out;
	struct metrics_server *ms;
	struct capture_drops drops, period_drops; /* pcap_stats now, at the last --rotate */
};

/* The analysis's options and the BPF filter: the ports, and-ed with the
 * user's expression.  EXIT_OK, or EXIT_USAGE (said). */
static int capture_plan(struct capture *k)
{
	const struct cap_opts *c = k->c;
	if (!c->iface) {
		usage_error("-i IFACE is required (pgrtt capture --list shows them)");
		return EXIT_USAGE;
	}
	if (c->rotate && !k->dbo.db) {
		usage_error("--rotate stores a run every interval: give --db FILE");
		return EXIT_USAGE;
	}
	struct analysis_opts *ao = &k->ao;
	read_opts_to_analysis(&k->co->ro, ao);
	if (ao->nports == 0) {
		ao->ports[0] = 5432;
		ao->nports = 1;
	}
	char *filter = k->filter;
	size_t cap = sizeof k->filter;
	size_t o = (size_t)snprintf(filter, cap, "tcp and (");
	struct {
		const uint16_t *p;
		int n;
	} kinds[2 + PROTO_N] = {{ao->ports, ao->nports}, {ao->http_ports, ao->nhttp_ports}};
	for (int p = 0; p < PROTO_N; p++) { /* every other protocol's, in the registry's order */
		kinds[2 + p].p = ao->proto_ports[p].port;
		kinds[2 + p].n = ao->proto_ports[p].n;
	}
	for (size_t j = 0, first = 1; j < sizeof kinds / sizeof kinds[0]; j++)
		for (int i = 0; i < kinds[j].n; i++, first = 0)
			o += (size_t)snprintf(filter + o, cap - o, "%sport %u", first ? "" : " or ",
					      kinds[j].p[i]);
	o += (size_t)snprintf(filter + o, cap - o, ")");
	if (k->co->ro.filter && o < cap)
		snprintf(filter + o, cap - o, " and (%s)", k->co->ro.filter);
	return EXIT_OK;
}

/* Everything a capture holds, in the order it must be taken: the store
 * (or the spool), the report's output, the interface, the metrics port -
 * these before -Z gives root up - then the analysis.  EXIT_OK, or
 * EXIT_ERROR with what was taken given back. */
static int capture_open(struct capture *k, struct spool *sp, struct analysis *a)
{
	const struct cap_opts *c = k->c;
	/* a central store without round-trip rows (those stream into the run's
	 * transaction) spools the runs it cannot take, and is given a deadline:
	 * a store that hangs never holds up the capture, its runs wait instead */
	spool_init(sp, k->dbo.round_trips ? NULL : k->dbo.db, c->spool);
	store_set_deadline(STORE_LIVE_DEADLINE_S);
	double opening = now_s();
	if (results_begin(&k->dbo, &k->st, &k->ao) != 0) {
		if (!sp->path[0] || !store_open_transient())
			return EXIT_ERROR;
		store_slow_failure(opening);
		warnx_("warning: %s: not reachable: the runs wait in the spool %s until it is",
		       store_shown(k->dbo.db), sp->path);
	}
	status_spool = sp;
	if (!(k->out = output_open(k->co->output))) { /* before -Z: the report must get out */
		store_close(k->st);
		return EXIT_ERROR;
	}
	char err[SOURCE_ERRBUF], warn[SOURCE_ERRBUF];
	struct live_opts lo = {c->iface, (int)c->snaplen, (int)(c->buffer_kib * 1024), k->filter,
			       c->wpath};
	bool opened = source_open_live(&live, &lo, err, warn) == 0, ready = opened;
	if (!opened)
		warnx_("%s", err);
	else if (warn[0])
		warnx_("warning: %s", warn);
	if (ready && c->metrics) { /* before -Z: a port below 1024 needs root */
		char merr[512];
		if (metrics_listen(k->ms, c->metrics, merr, sizeof merr) == 0) {
			live.wake_fd = metrics_fd(k->ms);
		} else {
			warnx_("%s", merr);
			ready = false;
		}
	}
	ready = ready && (!c->user || drop_privileges(c->user, c->wpath) == 0);
	if (ready && analysis_init(a, &k->ao) != 0) {
		warnx_("out of memory");
		ready = false;
	}
	if (ready)
		return EXIT_OK;
	metrics_close(k->ms);
	if (opened)
		source_close(&live);
	store_close(k->st);
	output_close(k->out, k->co->output, EXIT_ERROR);
	return EXIT_ERROR;
}

/* Every way a capture is stopped drains, summarises and stores: Ctrl-C,
 * kill, a closed terminal (SIGHUP); SIGUSR1 shows the counts and goes on;
 * a closed pipe (SIGPIPE) is a write error, reported at the end. */
static void capture_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_stats_signal;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	sigaction(SIGXFSZ, &sa, NULL); /* past a file size limit -w fails (EFBIG), said */
}

/* SIGUSR1: the counts so far, on stderr. */
static void say_counts(struct capture *k, const struct analysis *a, double elapsed, uint64_t seen)
{
	source_stats(&live, &k->drops);
	struct analysis_live now = {0};
	analysis_live(a, &now);
	char others[256] = ""; /* every other protocol's round trips */
	size_t o = 0;
	for (int p = 0; p < PROTO_N && o < sizeof others; p++) {
		uint64_t n;
		if (analysis_asked(a, p) && live_round_trips(&now, p, &n))
			o += (size_t)snprintf(others + o, sizeof others - o, ", %llu %s round trips",
					      (unsigned long long)n, analysis_protocol(p)->title);
	}
	warnx_("%.1f s: %llu packets, %llu dropped, %llu open connections, %llu "
	       "ReadyForQuery, %llu round trips, %llu pages%s",
	       elapsed, (unsigned long long)seen, (unsigned long long)(k->drops.drop + k->drops.ifdrop),
	       (unsigned long long)now.open, (unsigned long long)now.pg.rfq,
	       (unsigned long long)now.pg.round_trips, (unsigned long long)now.http.pages, others);
}

/* Packets until a signal, --duration or --count; once a second the
 * attribution settled and the status line drawn, runs stored every
 * --rotate, /metrics served.  EXIT_OK or EXIT_ERROR (said). */
static int capture_loop(struct capture *k, struct spool *sp, struct analysis *a,
			struct cap_ctx *ctx)
{
	const struct cap_opts *c = k->c;
	double t0 = now_s(), last = t0, period = t0;
	struct analysis_live prev = {0};
	while (!stop_signal && !(ctx->count && ctx->seen >= ctx->count)) {
		if (source_dispatch(&live, on_packet, ctx) == SOURCE_ERROR) {
			if (live.write_errno)
				warnx_("%s: the capture stops", live.err);
			else
				warnx_("%s: %s", c->iface, live.err);
			return EXIT_ERROR;
		}
		double t = now_s();
		if (c->duration && t - t0 >= c->duration)
			break;
		if (stats_signal) {
			stats_signal = 0;
			say_counts(k, a, t - t0, ctx->seen);
		}
		if (c->rotate && t - period >= c->rotate) {
			if (rotate_run(a, &k->ao, &k->st, &k->dbo, sp, c->iface, &live, &k->drops,
				       &k->period_drops) != 0)
				return EXIT_ERROR;
			period = t;
			prev = (struct analysis_live){0};
		}
		if (metrics_serving(k->ms)) {
			struct scrape sc = {a, k->dbo.app, t - t0, &live, &k->drops};
			metrics_poll(k->ms, t, scrape_body, &sc);
		}
		if (t - last >= 1.0) {
			struct timespec wall; /* packets' stamps are the kernel's wall clock */
			clock_gettime(CLOCK_REALTIME, &wall);
			uint64_t ns = (uint64_t)wall.tv_sec * 1000000000ull + (uint64_t)wall.tv_nsec;
			analysis_settle(a, ns - 1000000000ull); /* a second for the kernel's ring */
			if (k->status) {
				source_stats(&live, &k->drops);
				status_line(a, t - t0, ctx->seen, &k->drops, &prev, t - last);
			}
			last = t;
		}
	}
	return EXIT_OK;
}

/* The capture stopped: what the kernel still holds read, the analysis
 * finished, the last run stored (or spooled) and the report written. */
static int capture_finish(struct capture *k, struct spool *sp, struct analysis *a,
			  struct cap_ctx *ctx, int rc)
{
	const struct cap_opts *c = k->c;
	if (!(ctx->count && ctx->seen >= ctx->count))
		source_drain(&live, on_packet, ctx);
	if (k->status)
		fprintf(stderr, "\r\033[K");
	metrics_close(k->ms);
	source_stats(&live, &k->drops);
	char err[SOURCE_ERRBUF];
	if (!live.write_errno && source_finish_write(&live, err) != 0) {
		warnx_("%s", err);
		rc = EXIT_ERROR;
	}
	source_close(&live);
	analysis_finish(a);
	if (c->rotate) { /* the last period's drops, as each stored run has its own */
		k->drops.recv -= k->period_drops.recv;
		k->drops.drop -= k->period_drops.drop;
		k->drops.ifdrop -= k->period_drops.ifdrop;
	}
	char *src[1] = {(char *)c->iface};
	char source[300];
	snprintf(source, sizeof source, "interface %s", c->iface);
	struct report_input in = {src, 1, false, &k->drops};
	if (sp->path[0]) { /* a central store: the last run too may have to wait */
		struct store_run_info info = {k->dbo.app, source, k->dbo.labels, k->dbo.nlabels, false,
					      &k->drops};
		if (keep_run(&k->st, &k->dbo, sp, a, &info, false) != 0)
			rc = EXIT_ERROR;
		store_close(k->st);
		k->st = NULL;
		if (sp->waiting)
			warnx_("warning: %d run%s wait in the spool %s: the next capture with --db %s "
			       "delivers them",
			       sp->waiting, sp->waiting == 1 ? "" : "s", sp->path, store_shown(k->dbo.db));
	}
	return results_finish(a, k->st, &k->dbo, source, &in, k->co->format, k->co->output, k->out,
			      rc);
}

static int capture_run(const struct cmd_opts *co, void *state)
{
	const struct cap_opts *c = state;
	if (c->list) {
		char err[SOURCE_ERRBUF];
		if (source_list_interfaces(stdout, err) != 0) {
			warnx_("%s", err);
			return EXIT_ERROR;
		}
		return EXIT_OK;
	}
	static struct capture k;
	static struct spool sp;
	static struct analysis *a; /* for the process' life, as the analysis' tables are */
	if (!a && !(a = analysis_new())) {
		warnx_("out of memory");
		return EXIT_ERROR;
	}
	static struct metrics_server ms;
	k.co = co;
	k.c = c;
	k.dbo = co->db;
	k.ms = &ms;
	/* the status line needs a terminal on both streams (progress: stderr is
	 * one, and no --no-status/--no-progress) */
	k.status = isatty(1) && co->ro.progress;
	int rc = capture_plan(&k);
	if (rc != EXIT_OK)
		return rc;
	if ((rc = capture_open(&k, &sp, a)) != EXIT_OK)
		return rc;
	capture_signals();
	if (!k.status)
		fprintf(stderr, "pgrtt: capture: listening on %s, filter \"%s\"\n", c->iface, k.filter);
	struct cap_ctx ctx = {a, (uint64_t)c->count, 0};
	rc = capture_loop(&k, &sp, a, &ctx);
	rc = capture_finish(&k, &sp, a, &ctx, rc);
	analysis_free(a);
	return rc;
}

static const char *const formats[] = {"text", "json", NULL};
static const struct opt_extra own[] = {
	{"iface", 'i', true, C_IFACE},       {"list", 0, false, C_LIST},
	{"duration", 'd', true, C_DURATION}, {"count", 'c', true, C_COUNT},
	{"write", 'w', true, C_WRITE},       {"snaplen", 's', true, C_SNAPLEN},
	{"buffer-size", 'B', true, C_BUFFER}, {"user", 'Z', true, C_USER},
	{"metrics", 0, true, C_METRICS},     {"rotate", 0, true, C_ROTATE},
	{"spool", 0, true, C_SPOOL},
	{NULL, 0, false, 0},
};

const struct command cmd_capture = {
	.name = "capture",
	.summary = "the same, live from a network interface (libpcap)",
	.help = help,
	.groups = OPTG_INPUT | OPTG_PORTS | OPTG_PROTO_PORTS | OPTG_PAGES | OPTG_LIMITS | OPTG_STORE |
		  OPTG_OUTPUT | OPTG_FORMAT,
	.formats = formats,
	.own = own,
	.own_opt = capture_opt,
	.rest_hint = " (a filter goes in --filter)",
	.state_size = sizeof(struct cap_opts),
	.init = capture_init,
	.run = capture_run,
};
