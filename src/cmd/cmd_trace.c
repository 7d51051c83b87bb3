/* cmd_trace.c - pgrtt trace: each page, then its PostgreSQL round trips in
 * order, then its response: where "3 queries" became 9 round trips. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "commands.h"
#include "cli/opts.h"
#include "report/report.h"
#include "base/textring.h"

struct trace_ctx {
	FILE *out;
	const char *only_route; /* --route given once: show only its pages */
	long limit, shown;
	bool values;            /* --show-values */
	struct textring texts;  /* the round trips' statements */
	/* the protocol whose commands pages held (proto_ops.page_figs: Redis), or NULL */
	const struct proto_ops *cmds;
};

static void help(FILE *out)
{
	fputs("Usage: pgrtt trace --http-port PORT [OPTIONS] FILE...\n"
	      "\n"
	      "For each HTTP page (request/response pair) in saved captures, print the\n"
	      "request, each PostgreSQL round trip attributed to it in order - time from\n"
	      "the request, connection, class and ping role, frontend messages, latency,\n"
	      "its statement (normalised: constants as $1, $2, ...) - then the response.\n"
	      "\n"
	      "Options:\n"
	      "      --http-port PORT   HTTP/1.x server port (required; repeatable)\n"
	      "  -p, --port PORT        PostgreSQL server port (default 5432; repeatable)\n",
	      out);
	opts_help_ports(out);
	fputs("      --route PATTERN    show only pages of this route, e.g. 'GET /articles/{id}'\n"
	      "                         (also used as a pattern; repeat to add patterns)\n"
	      "      --route-values N   values that make a path segment a parameter (16; 0: off)\n"
	      "      --limit N          stop after N pages\n"
	      "      --show-values      statements as sent, with their constants\n"
	      "      --grace MS         attribution grace after a response (default 2)\n"
	      "      --page-timeout S   requests open longer stop holding attribution (10)\n"
	      "      --max-buffer MIB   out-of-order data held, all connections (128)\n"
	      "  -f, --filter EXPR      only packets matching this BPF expression\n"
	      "      --tls-keylog FILE  read TLS connections with this key log's secrets (NSS\n"
	      "                         format: SSLKEYLOGFILE; TLS 1.3; repeatable)\n"
	      "  -o, --output FILE      write to FILE instead of standard output\n"
	      "      --no-progress      no progress line, even on a terminal\n"
	      "  -h, --help             show this help\n"
	      "\n"
	      "Exit status: 0 ok, 2 an input could not be used, 3 an input ended early,\n"
	      "64 usage error.\n",
	      out);
}

static double ms(uint64_t a, uint64_t b)
{
	return b >= a ? (double)(b - a) / 1e6 : -(double)(a - b) / 1e6;
}

static void on_page(void *ctx, const struct attrib_page_view *p)
{
	struct trace_ctx *t = ctx;
	if (t->only_route && strcmp(p->route, t->only_route) != 0)
		return;
	if (t->limit && t->shown >= t->limit)
		return;
	t->shown++;
	double given = 0, cmds = 0; /* what the page was given: shares and inference */
	uint32_t pg = 0;
	for (uint32_t i = 0; i < p->nrts; i++) {
		if (p->rts[i].cmd_proto) {
			cmds += p->rts[i].weight;
		} else {
			given += p->rts[i].weight;
			pg++;
		}
	}
	fprintf(t->out, "page %ld  c%" PRIu64 " %s %s  route \"%s\"  %.3f ms  ", t->shown,
		p->http_conn, p->method, p->target, p->route, ms(p->t0, p->t1));
	if (p->exact)
		fprintf(t->out, "%u round trips", pg);
	else
		fprintf(t->out, "%.2f round trips of %u in its window%s", given, pg,
			p->mixed ? " (overlaps other routes: estimated)"
				 : " (overlaps pages of its route: round trips shared)");
	if (pg < p->nrts)
		fprintf(t->out, ", %.2f %s round trips", cmds, t->cmds ? t->cmds->title : "command");
	fputc('\n', t->out);
	for (uint32_t i = 0; i < p->nrts; i++) {
		const struct attrib_rt_rec *r = &p->rts[i];
		char buf[32];
		if (r->cmd_proto) { /* flight: its first command's name (attrib.c) */
			fprintf(t->out, "  %+9.3f ms  c%-4" PRIu64 " %s %-8s %-12s commands %u",
				ms(p->t0, r->t_start), r->conn, t->cmds ? t->cmds->name : "command",
				rt_class_name(r->cls), r->flight, r->commands);
			if (r->timed)
				fprintf(t->out, "  %.3f ms", ms(r->t_start, r->t_end));
			if (r->shared)
				fprintf(t->out, "  (shared %.2f)", r->weight);
			fputc('\n', t->out);
			continue;
		}
		fprintf(t->out, "  %+9.3f ms  c%-4" PRIu64 " %-14s %-12s rfq %u rows %u", ms(p->t0, r->t_start),
			r->conn, rt_label_how(r->cls, r->role, r->role_how, buf, sizeof buf), r->flight[0] ? r->flight : "-", r->rfq, r->rows);
		if (r->timed)
			fprintf(t->out, "  %.3f ms", ms(r->t_start, r->t_end));
		if (r->shared)
			fprintf(t->out, "  (%s %.2f)", p->mixed ? "inferred" : "shared", r->weight);
		print_statement(t->out, &t->texts, r->text, r->stmts);
		fputc('\n', t->out);
	}
	fprintf(t->out, "  %+9.3f ms  response %u\n", ms(p->t0, p->t1), p->status);
}

static int trace_opt(void *ctx, int id, const char *arg)
{
	struct trace_ctx *t = ctx;
	if (id == 2) { /* --show-values */
		t->values = true;
		return 0;
	}
	double v; /* --limit */
	if (!opt_number("--limit", arg, 1, 1e15, "a number of pages, 1 or more", &v))
		return -1;
	t->limit = (long)v;
	return 0;
}

static int trace_run(const struct cmd_opts *co, void *state)
{
	struct trace_ctx *t = state;
	struct read_opts ro = co->ro;
	const char *output = co->output;
	if (ro.nhttp_ports == 0) {
		usage_error("--http-port is required: pages are HTTP requests");
		return EXIT_USAGE;
	}
	if (ro.routes->n == 1) {
		static char only[16 + 1 + ROUTE_MAX];
		const struct route_pattern *rp = &ro.routes->p[0];
		if (rp->method[0])
			snprintf(only, sizeof only, "%s %s", rp->method, rp->path);
		t->only_route = rp->method[0] ? only : NULL;
	}
	if (textring_init(&t->texts, TEXTRING_SIZE) != 0) {
		warnx_("out of memory");
		return EXIT_ERROR;
	}
	if (!(t->out = output_open(output))) {
		textring_free(&t->texts);
		return EXIT_ERROR;
	}
	struct analysis_opts ao = {0};
	ao.pgsql.texts = &t->texts;
	ao.pgsql.text_values = t->values;
	ao.on_page = on_page;
	ao.ctx = t;
	for (int p = 0; p < PROTO_N; p++)
		if (analysis_protocol(p) && analysis_protocol(p)->npage_figs &&
		    co->ro.proto_ports[p].n > 0 && !t->cmds)
			t->cmds = analysis_protocol(p);
	static struct analysis *a; /* for the process' life, as the analysis' tables are */
	if (!a && !(a = analysis_new())) {
		warnx_("out of memory");
		output_close(t->out, output, EXIT_ERROR);
		textring_free(&t->texts);
		return EXIT_ERROR;
	}
	bool partial;
	int rc = run_analysis(&ro, &ao, a, &partial);
	struct report_input in = {ro.files, ro.nfiles, partial || rc != EXIT_OK, NULL};
	warn_evidence(a, &in);
	analysis_free(a);
	textring_free(&t->texts);
	return output_close(t->out, output, rc);
}

static const struct opt_extra own[] = {
	{"limit", 0, true, 1}, {"show-values", 0, false, 2}, {NULL, 0, false, 0}};

const struct command cmd_trace = {
	.name = "trace",
	.summary = "show each HTTP page's PostgreSQL round trips in order",
	.help = help,
	.groups = OPTG_FILES | OPTG_INPUT | OPTG_TLS | OPTG_PORTS | OPTG_PROTO_PORTS | OPTG_PAGES | OPTG_LIMITS |
		  OPTG_OUTPUT,
	.own = own,
	.own_opt = trace_opt,
	.state_size = sizeof(struct trace_ctx),
	.run = trace_run,
};
