/* cmd_analyze.c - pgrtt analyze: round trips per connection from captures. */
#include <getopt.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "evidence.h"
#include "commands.h"
#include "report.h"
#include "results.h"
#include "store.h"

static void help(FILE *out)
{
	fputs("Usage: pgrtt analyze [OPTIONS] FILE...\n"
	      "\n"
	      "Count PostgreSQL ReadyForQuery messages and network round trips per\n"
	      "connection in saved captures (pcap or pcapng; '-' reads standard input).\n"
	      "Several files are analysed as one capture, in the order given.\n"
	      "\n"
	      "Options:\n"
	      "  -r, --read FILE        read FILE (same as naming it; repeatable)\n"
	      "  -p, --port PORT        PostgreSQL server port (default 5432; repeatable)\n"
	      "  -f, --filter EXPR      only packets matching this BPF expression\n"
	      "      --http-port PORT   an HTTP/1.x server port: its requests are pages and\n"
	      "                         round trips are attributed to them (repeatable)\n"
	      "      --route PATTERN    a route, e.g. 'GET /articles/{id}' (repeatable; first\n"
	      "                         match wins, before the automatic {id}/{slug} collapsing)\n"
	      "      --grace MS         round trips starting up to MS after a response still\n"
	      "                         belong to its page (release pings; default 2)\n"
	      "      --page-timeout S   a request open longer than S seconds (long poll,\n"
	      "                         server-sent events) stops holding attribution back;\n"
	      "                         its page is counted, not attributed (default 10)\n"
	      "      --max-buffer MIB   out-of-order TCP data held over all connections;\n"
	      "                         past it the oldest holes become gaps (default 128)\n"
	      "  -F, --format FMT       text (default) or json (see docs/json.md)\n"
	      "  -o, --output FILE      write the report to FILE instead of standard output\n"
	      "      --db FILE          also store the run in this SQLite database (created if\n"
	      "                         missing; docs/storage.md)\n"
	      "      --app NAME         the application the run measured (with --db)\n"
	      "      --label KEY=VALUE  a free label for the run (with --db; repeatable)\n"
	      "      --store-round-trips  with --db, also one row per round trip\n"
	      "      --no-progress      no progress line, even on a terminal\n"
	      "  -h, --help             show this help\n"
	      "\n"
	      "Exit status: 0 ok, 2 an input could not be used, 3 an input ended early\n"
	      "(results cover what was read), 64 usage error.\n",
	      out);
}

int parse_read_opts(int argc, char **argv, struct read_opts *ro, const char **format,
		    const char **output, bool *nano, int *conn_filter)
{
	static const struct option longopts[] = {
		{"read", required_argument, NULL, 'r'},
		{"port", required_argument, NULL, 'p'},
		{"filter", required_argument, NULL, 'f'},
		{"format", required_argument, NULL, 'F'},
		{"output", required_argument, NULL, 'o'},
		{"no-progress", no_argument, NULL, 1},
		{"nano", no_argument, NULL, 2},
		{"conn", required_argument, NULL, 3},
		{"http-port", required_argument, NULL, 4},
		{"route", required_argument, NULL, 5},
		{"grace", required_argument, NULL, 6},
		{"page-timeout", required_argument, NULL, 7},
		{"max-buffer", required_argument, NULL, 8},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	static char *files[256];
	static struct route_set routes;
	ro->files = files;
	ro->routes = &routes;
	ro->grace_ns = ATTRIB_GRACE_NS;
	ro->progress = isatty(2);
	int c;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":r:p:f:F:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'r':
			if (ro->nfiles == 256) {
				usage_error("too many files");
				return -1;
			}
			files[ro->nfiles++] = optarg;
			break;
		case 'p':
			if (ro->nports == ANALYSIS_MAX_PORTS) {
				usage_error("at most %d ports", ANALYSIS_MAX_PORTS);
				return -1;
			}
			if (!parse_port(optarg, &ro->ports[ro->nports])) {
				usage_error("bad port \"%s\": expected 1-65535", optarg);
				return -1;
			}
			ro->nports++;
			break;
		case 'f':
			ro->filter = optarg;
			break;
		case 'F':
			if (!format) {
				usage_error("no --format here");
				return -1;
			}
			if (strcmp(optarg, "text") != 0 && strcmp(optarg, "json") != 0) {
				usage_error("bad format \"%s\": expected text or json", optarg);
				return -1;
			}
			*format = optarg;
			break;
		case 'o':
			*output = optarg;
			break;
		case 1:
			ro->progress = false;
			break;
		case 2:
			if (!nano) {
				usage_error("unknown option --nano");
				return -1;
			}
			*nano = true;
			break;
		case 3: {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (!conn_filter || *end || v < 1) {
				usage_error("bad --conn \"%s\"", optarg);
				return -1;
			}
			*conn_filter = (int)v;
			break;
		}
		case 4:
			if (ro->nhttp_ports == ANALYSIS_MAX_PORTS) {
				usage_error("at most %d HTTP ports", ANALYSIS_MAX_PORTS);
				return -1;
			}
			if (!parse_port(optarg, &ro->http_ports[ro->nhttp_ports])) {
				usage_error("bad HTTP port \"%s\": expected 1-65535", optarg);
				return -1;
			}
			ro->nhttp_ports++;
			break;
		case 5: {
			char err[160];
			if (!route_add_pattern(&routes, optarg, err, sizeof err)) {
				usage_error("%s", err);
				return -1;
			}
			break;
		}
		case 6: {
			char *end;
			double ms = strtod(optarg, &end);
			if (*end || !(ms >= 0 && ms <= 60000)) {
				usage_error("bad --grace \"%s\": milliseconds, 0 to 60000", optarg);
				return -1;
			}
			ro->grace_ns = (uint64_t)(ms * 1e6);
			break;
		}
		case 7: {
			char *end;
			double sec = strtod(optarg, &end);
			if (*end || end == optarg || !(sec >= 0.001 && sec <= 86400)) {
				usage_error("bad --page-timeout \"%s\": seconds, up to 86400", optarg);
				return -1;
			}
			ro->hold_ns = (uint64_t)(sec * 1e9);
			break;
		}
		case 8: {
			char *end;
			double mib = strtod(optarg, &end);
			if (*end || end == optarg || !(mib >= 1 && mib <= 1048576)) {
				usage_error("bad --max-buffer \"%s\": MiB, 1 to 1048576", optarg);
				return -1;
			}
			ro->max_buffer = (uint64_t)(mib * 1048576);
			break;
		}
		case 'h':
			return 1;
		case ':':
			usage_error("option %s needs a value", argv[optind - 1]);
			return -1;
		default:
			usage_error("unknown option %s", argv[optind - 1]);
			return -1;
		}
	}
	for (int i = optind; i < argc; i++) {
		if (ro->nfiles == 256) {
			usage_error("too many files");
			return -1;
		}
		files[ro->nfiles++] = argv[i];
	}
	if (ro->nfiles == 0) {
		usage_error("no capture file given");
		return -1;
	}
	return 0;
}

/* Say on stderr what the figures cannot vouch for (evidence.h). */
void warn_evidence(const struct analysis *a, const struct report_input *in)
{
	struct evidence ev;
	evidence_of(a, in, &ev);
	for (int i = 0; i < ev.n; i++)
		warnx_("%s: %s [%s]", ev.f[i].severity == EV_NOTE ? "note" : "warning",
		       ev.f[i].message, ev_code_name(ev.f[i].code));
	const struct analysis_totals *t = &a->tot;
	for (uint32_t i = 0; i < t->http.nmarked; i++)
		warnx_("warning: HTTP connection %s > %s: %s: not decoded from there on",
		       t->http.marked[i].client, t->http.marked[i].server,
		       http1_error_name(t->http.marked[i].error));
}

int cmd_analyze(int argc, char **argv)
{
	struct read_opts ro = {0};
	const char *format = "text", *output = NULL;
	struct db_opts dbo = {0};
	if (take_db_opts(&argc, argv, &dbo) != 0)
		return EXIT_USAGE;
	int p = parse_read_opts(argc, argv, &ro, &format, &output, NULL, NULL);
	if (p > 0) {
		help(stdout);
		return EXIT_OK;
	}
	if (p < 0)
		return EXIT_USAGE;

	struct store *st = NULL;
	struct analysis_opts ao = {0};
	if (results_begin(&dbo, &st, &ao) != 0)
		return EXIT_ERROR;
	static struct analysis a;
	bool partial;
	int rc = run_analysis(&ro, &ao, &a, &partial);
	if (rc == EXIT_ERROR && a.tot.packets == 0 && !partial) {
		store_close(st); /* nothing read: no run */
		analysis_free(&a);
		return EXIT_ERROR;
	}
	char source[1024] = "";
	size_t o = 0;
	for (int i = 0; i < ro.nfiles && o + 2 < sizeof source; i++)
		o += (size_t)snprintf(source + o, sizeof source - o, "%s%s", i ? ", " : "", ro.files[i]);
	struct report_input in = {ro.files, ro.nfiles, partial || rc != EXIT_OK, NULL};
	rc = results_finish(&a, st, &dbo, source, &in, format, output, NULL, rc);
	analysis_free(&a);
	return rc;
}
