/* cmd_analyze.c - pgrtt analyze: round trips per connection from captures. */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "findings/evidence.h"
#include "commands.h"
#include "base/timing.h"
#include "report/report.h"
#include "cli/opts.h"
#include "results.h"
#include "store/store.h"

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
	      "  -p, --port PORT        PostgreSQL server port (default 5432; repeatable)\n",
	      out);
	opts_help_ports(out);
	fputs("  -f, --filter EXPR      only packets matching this BPF expression\n"
	      "      --tls-keylog FILE  read TLS connections with this key log's secrets (NSS\n"
	      "                         format: SSLKEYLOGFILE; TLS 1.3; repeatable)\n"
	      "      --http-port PORT   an HTTP/1.x server port: its requests are pages and\n"
	      "                         round trips are attributed to them (repeatable)\n"
	      "      --route PATTERN    a route, e.g. 'GET /articles/{id}' (repeatable; first\n"
	      "                         match wins, before the automatic {id}/{slug} collapsing)\n"
	      "      --route-values N   a path segment that takes N distinct values after the\n"
	      "                         same segments is a parameter, {slug} (default 16; 0:\n"
	      "                         never; the first segment never is; note routes-learnt)\n"
	      "      --grace MS         round trips starting up to MS after a response still\n"
	      "                         belong to its page (release pings; default 2)\n"
	      "      --page-timeout S   a request open longer than S seconds (long poll,\n"
	      "                         server-sent events) stops holding attribution back;\n"
	      "                         its page is counted, not attributed (default 10)\n"
	      "      --max-buffer MIB   out-of-order TCP data held over all connections;\n"
	      "                         past it the oldest holes become gaps (default 128)\n"
	      "  -F, --format FMT       text (default) or json (see docs/json.md)\n"
	      "  -o, --output FILE      write the report to FILE instead of standard output\n"
	      "      --db FILE|URI      also store the run: a SQLite file (created if missing)\n"
	      "                         or postgresql://... (a central store; docs/storage.md)\n"
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

static int analyze_run(const struct cmd_opts *co, void *state)
{
	(void)state;
	struct read_opts ro = co->ro;
	struct db_opts dbo = co->db;
	const char *format = co->format, *output = co->output;

	struct store *st = NULL;
	struct analysis_opts ao = {0};
	if (results_begin(&dbo, &st, &ao) != 0)
		return EXIT_ERROR;
	static struct analysis *a; /* for the process' life, as the analysis' tables are */
	if (!a && !(a = analysis_new())) {
		store_close(st);
		warnx_("out of memory");
		return EXIT_ERROR;
	}
	bool partial;
	timing_start();
	int rc = run_analysis(&ro, &ao, a, &partial);
	if (rc == EXIT_ERROR && analysis_counts(a)->packets == 0 && !partial) {
		store_close(st); /* nothing read: no run */
		analysis_free(a);
		return EXIT_ERROR;
	}
	char source[1024] = "";
	size_t o = 0;
	for (int i = 0; i < ro.nfiles && o + 2 < sizeof source; i++)
		o += (size_t)snprintf(source + o, sizeof source - o, "%s%s", i ? ", " : "", ro.files[i]);
	struct report_input in = {ro.files, ro.nfiles, partial || rc != EXIT_OK, NULL};
	rc = results_finish(a, st, &dbo, source, &in, format, output, NULL, rc);
	timing_mark("report");
	analysis_free(a);
	timing_mark("free");
	timing_report(stderr, "analyze");
	return rc;
}

static const char *const formats[] = {"text", "json", NULL};

const struct command cmd_analyze = {
	.name = "analyze",
	.summary = "count round trips per connection in saved captures",
	.help = help,
	.groups = OPTG_FILES | OPTG_INPUT | OPTG_TLS | OPTG_PORTS | OPTG_PROTO_PORTS | OPTG_PAGES | OPTG_LIMITS |
		  OPTG_STORE | OPTG_OUTPUT | OPTG_FORMAT,
	.formats = formats,
	.run = analyze_run,
};
