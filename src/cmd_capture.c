/* cmd_capture.c - pgrtt capture: the same analysis as analyze, live. */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "source.h"
#include "cli.h"
#include "commands.h"
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
	      "  -p, --port PORT        PostgreSQL server port (default 5432; repeatable)\n"
	      "      --http-port PORT   HTTP/1.x server port: pages and routes (repeatable)\n"
	      "      --route PATTERN    a route pattern (repeatable)\n"
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
	      "  -F, --format FMT       text (default) or json\n"
	      "  -o, --output FILE      write the report to FILE\n"
	      "      --db FILE, --app NAME, --label KEY=VALUE, --store-round-trips  as analyze\n"
	      "      --no-status        no status line, even on a terminal\n"
	      "  -h, --help             show this help\n"
	      "\n"
	      "Exit status: 0 ok, 2 capture or runtime error, 64 usage error.\n",
	      out);
}

struct cap_ctx {
	struct analysis *a;
	uint64_t count, seen;
};

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

static bool parse_num(const char *s, double min, double max, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= min && v <= max))
		return false;
	*out = v;
	return true;
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

static void status_line(const struct analysis *a, double elapsed, uint64_t pkts,
			const struct capture_drops *d, struct analysis_live *prev, double dt)
{
	struct analysis_live now;
	analysis_live(a, &now);
	double rfq_s = dt > 0 ? (double)(now.rfq - prev->rfq) / dt : 0;
	double pages_s = dt > 0 ? (double)(now.pages - prev->pages) / dt : 0;
	fprintf(stderr, "\r\033[K%6.1f s  %llu pkts  %llu dropped  %llu conns  %.1fk rfq/s", elapsed,
		(unsigned long long)pkts, (unsigned long long)(d->drop + d->ifdrop),
		(unsigned long long)now.open, rfq_s / 1000);
	if (a->attributing) {
		fprintf(stderr, "  %.1fk pages/s", pages_s / 1000);
		const struct attrib *at = &a->attrib;
		const struct attrib_route *best = NULL;
		for (uint32_t i = 0; i < at->nroutes; i++)
			if (!best || at->routes[i].pages > best->pages)
				best = &at->routes[i];
		if (best && best->pages)
			fprintf(stderr, "  %s %.2f rt/page", best->name, best->rt / (double)best->pages);
	}
	fflush(stderr);
	*prev = now;
}

int cmd_capture(int argc, char **argv)
{
	struct db_opts dbo = {0};
	if (take_db_opts(&argc, argv, &dbo) != 0)
		return EXIT_USAGE;
	static const struct option longopts[] = {
		{"iface", required_argument, NULL, 'i'}, {"list", no_argument, NULL, 1},
		{"port", required_argument, NULL, 'p'}, {"http-port", required_argument, NULL, 2},
		{"route", required_argument, NULL, 3}, {"grace", required_argument, NULL, 4},
		{"filter", required_argument, NULL, 'f'}, {"duration", required_argument, NULL, 'd'},
		{"count", required_argument, NULL, 'c'}, {"write", required_argument, NULL, 'w'},
		{"snaplen", required_argument, NULL, 's'}, {"buffer-size", required_argument, NULL, 'B'},
		{"user", required_argument, NULL, 'Z'}, {"format", required_argument, NULL, 'F'},
		{"output", required_argument, NULL, 'o'}, {"no-status", no_argument, NULL, 5},
		{"no-progress", no_argument, NULL, 5}, /* the spelling of the other commands */
		{"page-timeout", required_argument, NULL, 6}, {"max-buffer", required_argument, NULL, 7},
		{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
	};
	const char *iface = NULL, *extra = NULL, *wpath = NULL, *user = NULL, *format = "text",
		   *output = NULL;
	double duration = 0, count = 0, snaplen = 262144, buffer_kib = 65536;
	bool list = false, status = isatty(1) && isatty(2);
	struct analysis_opts ao = {0};
	static struct route_set routes;
	ao.routes = &routes;
	ao.grace_ns = ATTRIB_GRACE_NS;
	int c;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":i:p:f:d:c:w:s:B:Z:F:o:h", longopts, NULL)) != -1) {
		double v;
		char err[160];
		switch (c) {
		case 'i':
			iface = optarg;
			break;
		case 1:
			list = true;
			break;
		case 'p':
		case 2: {
			uint16_t *ports = c == 'p' ? ao.ports : ao.http_ports;
			int *n = c == 'p' ? &ao.nports : &ao.nhttp_ports;
			if (*n == ANALYSIS_MAX_PORTS || !parse_port(optarg, &ports[*n])) {
				usage_error("bad port \"%s\": expected 1-65535 (at most %d)", optarg,
					    ANALYSIS_MAX_PORTS);
				return EXIT_USAGE;
			}
			(*n)++;
			break;
		}
		case 3:
			if (!route_add_pattern(&routes, optarg, err, sizeof err)) {
				usage_error("%s", err);
				return EXIT_USAGE;
			}
			break;
		case 4:
			if (!parse_num(optarg, 0, 60000, &v)) {
				usage_error("bad --grace \"%s\"", optarg);
				return EXIT_USAGE;
			}
			ao.grace_ns = (uint64_t)(v * 1e6);
			break;
		case 6:
			if (!parse_num(optarg, 0.001, 86400, &v)) {
				usage_error("bad --page-timeout \"%s\": seconds, up to 86400", optarg);
				return EXIT_USAGE;
			}
			ao.hold_ns = (uint64_t)(v * 1e9);
			break;
		case 7:
			if (!parse_num(optarg, 1, 1048576, &v)) {
				usage_error("bad --max-buffer \"%s\": MiB, 1 to 1048576", optarg);
				return EXIT_USAGE;
			}
			ao.max_buffer = (uint64_t)(v * 1048576);
			break;
		case 'f':
			extra = optarg;
			break;
		case 'd':
			if (!parse_num(optarg, 0.001, 1e7, &duration)) {
				usage_error("bad --duration \"%s\": seconds", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'c':
			if (!parse_num(optarg, 1, 1e15, &count)) {
				usage_error("bad --count \"%s\"", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'w':
			wpath = optarg;
			break;
		case 's':
			if (!parse_num(optarg, 68, 262144, &snaplen)) {
				usage_error("bad --snaplen \"%s\": 68 to 262144", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'B':
			if (!parse_num(optarg, 1, 4194304, &buffer_kib)) {
				usage_error("bad --buffer-size \"%s\": KiB, 1 to 4194304", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'Z':
			user = optarg;
			break;
		case 'F':
			if (strcmp(optarg, "text") && strcmp(optarg, "json")) {
				usage_error("bad format \"%s\": text or json", optarg);
				return EXIT_USAGE;
			}
			format = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case 5:
			status = false;
			break;
		case 'h':
			help(stdout);
			return EXIT_OK;
		case ':':
			usage_error("option %s needs a value", argv[optind - 1]);
			return EXIT_USAGE;
		default:
			usage_error("unknown option %s", argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		usage_error("unexpected \"%s\" (a filter goes in --filter)", argv[optind]);
		return EXIT_USAGE;
	}
	char err[SOURCE_ERRBUF], warn[SOURCE_ERRBUF];
	if (list) {
		if (source_list_interfaces(stdout, err) != 0) {
			warnx_("%s", err);
			return EXIT_ERROR;
		}
		return EXIT_OK;
	}
	if (!iface) {
		usage_error("-i IFACE is required (pgrtt capture --list shows them)");
		return EXIT_USAGE;
	}
	if (ao.nports == 0) {
		ao.ports[0] = 5432;
		ao.nports = 1;
	}
	/* the filter: the ports, and-ed with the user's expression */
	char filter[2048];
	size_t o = (size_t)snprintf(filter, sizeof filter, "tcp and (");
	for (int i = 0; i < ao.nports + ao.nhttp_ports; i++)
		o += (size_t)snprintf(filter + o, sizeof filter - o, "%sport %u", i ? " or " : "",
				      i < ao.nports ? ao.ports[i] : ao.http_ports[i - ao.nports]);
	o += (size_t)snprintf(filter + o, sizeof filter - o, ")");
	if (extra && o < sizeof filter)
		snprintf(filter + o, sizeof filter - o, " and (%s)", extra);

	struct store *st = NULL;
	if (results_begin(&dbo, &st, &ao) != 0)
		return EXIT_ERROR;
	FILE *out = output_open(output); /* before -Z: the report must get out */
	if (!out) {
		store_close(st);
		return EXIT_ERROR;
	}
	struct live_opts lo = {iface, (int)snaplen, (int)(buffer_kib * 1024), filter, wpath};
	if (source_open_live(&live, &lo, err, warn) != 0) {
		warnx_("%s", err);
		store_close(st);
		output_close(out, output, EXIT_ERROR);
		return EXIT_ERROR;
	}
	if (warn[0])
		warnx_("warning: %s", warn);
	static struct analysis a;
	bool ready = !user || drop_privileges(user, wpath) == 0;
	if (ready && analysis_init(&a, &ao) != 0) {
		warnx_("out of memory");
		ready = false;
	}
	if (!ready) {
		source_close(&live);
		store_close(st);
		output_close(out, output, EXIT_ERROR);
		return EXIT_ERROR;
	}
	/* every way a capture is stopped drains, summarises and stores: Ctrl-C,
	 * kill, a closed terminal (SIGHUP); SIGUSR1 shows the counts and goes
	 * on; a closed pipe (SIGPIPE) is a write error, reported at the end */
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
	if (!status)
		fprintf(stderr, "pgrtt: capture: listening on %s, filter \"%s\"\n", iface, filter);

	struct cap_ctx ctx = {&a, (uint64_t)count, 0};
	double t0 = now_s(), last = t0;
	struct analysis_live prev = {0};
	struct capture_drops drops = {0};
	int rc = EXIT_OK;
	while (!stop_signal && !(ctx.count && ctx.seen >= ctx.count)) {
		int n = source_dispatch(&live, on_packet, &ctx);
		if (n == SOURCE_ERROR) {
			warnx_("%s: %s", iface, live.err);
			rc = EXIT_ERROR;
			break;
		}
		double t = now_s();
		if (duration && t - t0 >= duration)
			break;
		if (stats_signal) {
			stats_signal = 0;
			source_stats(&live, &drops);
			struct analysis_live now;
			analysis_live(&a, &now);
			warnx_("%.1f s: %llu packets, %llu dropped, %llu open connections, %llu "
			       "ReadyForQuery, %llu round trips, %llu pages",
			       t - t0, (unsigned long long)ctx.seen,
			       (unsigned long long)(drops.drop + drops.ifdrop),
			       (unsigned long long)now.open, (unsigned long long)now.rfq,
			       (unsigned long long)now.round_trips, (unsigned long long)now.pages);
		}
		if (status && t - last >= 1.0) {
			source_stats(&live, &drops);
			status_line(&a, t - t0, ctx.seen, &drops, &prev, t - last);
			last = t;
		}
	}
	if (!(ctx.count && ctx.seen >= ctx.count))
		source_drain(&live, on_packet, &ctx);
	if (status)
		fprintf(stderr, "\r\033[K");
	source_stats(&live, &drops);
	source_close(&live); /* flushes -w */
	analysis_finish(&a);
	char *src[1] = {(char *)iface};
	char source[300];
	snprintf(source, sizeof source, "interface %s", iface);
	struct report_input in = {src, 1, false, &drops};
	rc = results_finish(&a, st, &dbo, source, &in, format, output, out, rc);
	analysis_free(&a);
	return rc;
}
