/* cmd_dump.c - pgrtt dump: one line per PostgreSQL message, RESP value
 * (--redis-port) and HTTP message (--http-port). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attrib/route_learn.h"
#include "cli/cli.h"
#include "commands.h"
#include "cli/opts.h"
#include "report/report.h"
#include "pgsql_summary.h"
#include "base/textring.h"

struct dump_ctx {
	FILE *out;
	bool nano;
	int conn;
	bool round_trips;
	bool values; /* --show-values: statement texts as sent */
	const struct route_set *routes;
	const struct route_learn *learn; /* the analysis': parameters learnt so far */
	struct textring texts; /* --round-trips: round trips' statements */
};

static void help(FILE *out)
{
	fputs("Usage: pgrtt dump [OPTIONS] FILE...\n"
	      "\n"
	      "Print one line per PostgreSQL message (and HTTP message, and value of every\n"
	      "other protocol named by its port option) found in saved captures:\n"
	      "  TIME CONN DIR TYPE SUMMARY\n"
	      "TIME is UTC time of day, CONN the connection number used by 'pgrtt analyze',\n"
	      "DIR '>' for client to server and '<' for server to client.  Query texts are\n"
	      "normalised (constants as $1, $2, ... as pg_stat_statements shows them) and cut\n"
	      "at 160 characters; passwords and SASL data are never printed.\n"
	      "\n"
	      "Options:\n"
	      "  -r, --read FILE        read FILE (same as naming it; repeatable)\n"
	      "  -p, --port PORT        PostgreSQL server port (default 5432; repeatable)\n"
	      "  -f, --filter EXPR      only packets matching this BPF expression\n"
	      "      --tls-keylog FILE  read TLS connections with this key log's secrets (NSS\n"
	      "                         format: SSLKEYLOGFILE; TLS 1.3; repeatable)\n",
	      out);
	opts_help_ports(out);
	fputs("      --http-port PORT   also frame HTTP/1.x on this server port: one line per\n"
	      "                         request and response, with its route (repeatable)\n"
	      "      --route PATTERN    a route pattern, e.g. 'GET /articles/{id}' (repeatable)\n"
	      "      --route-values N   a path segment that takes N values is a parameter\n"
	      "                         from then on (default 16; 0: never)\n"
	      "      --conn N           only connection N\n"
	      "      --round-trips      one line per round trip instead of per message:\n"
	      "                         class (ping role), frontend messages, ReadyForQuery,\n"
	      "                         rows, transaction status before>after, latency,\n"
	      "                         the statement (BEGIN, SELECT ... WHERE id = $1)\n"
	      "      --show-values      statements as sent, with their constants\n"
	      "      --nano             nanosecond timestamps\n"
	      "  -o, --output FILE      write to FILE instead of standard output\n"
	      "      --no-progress      no progress line, even on a terminal\n"
	      "  -h, --help             show this help\n"
	      "\n"
	      "Exit status: 0 ok, 2 an input could not be used, 3 an input ended early,\n"
	      "64 usage error.\n",
	      out);
}

static void print_time(struct dump_ctx *d, uint64_t ts)
{
	uint64_t s = ts / 1000000000ull, ns = ts % 1000000000ull;
	unsigned hh = (unsigned)(s / 3600 % 24), mm = (unsigned)(s / 60 % 60), ss = (unsigned)(s % 60);
	if (d->nano)
		fprintf(d->out, "%02u:%02u:%02u.%09" PRIu64, hh, mm, ss, ns);
	else
		fprintf(d->out, "%02u:%02u:%02u.%06" PRIu64, hh, mm, ss, ns / 1000);
}

static void on_conn(void *ctx, const struct conn_summary *c)
{
	struct dump_ctx *d = ctx;
	if (d->conn && (uint64_t)d->conn != c->id)
		return;
	print_time(d, c->first_ts);
	fprintf(d->out, " c%" PRIu64 " connection %s > %s\n", c->id, c->client, c->server);
}

static void on_msg(void *ctx, const struct conn_summary *c, const struct pgsql_msg *m)
{
	struct dump_ctx *d = ctx;
	if (d->conn && (uint64_t)d->conn != c->id)
		return;
	char sum[512];
	pgsql_summarize(m, d->values, sum, sizeof sum);
	print_time(d, m->ts_first);
	fprintf(d->out, " c%" PRIu64 " %c %s%s%s\n", c->id, m->side == PGSQL_FE ? '>' : '<',
		pgsql_type_name((enum pgsql_side)m->side, m->type), sum[0] ? " " : "", sum);
}

static void on_http(void *ctx, const struct conn_summary *c, const struct http1_msg *m)
{
	struct dump_ctx *d = ctx;
	if (d->conn && (uint64_t)d->conn != c->id)
		return;
	print_time(d, m->request ? m->ts_first : m->ts_last);
	if (m->request) {
		char named[ROUTE_MAX], route[ROUTE_MAX];
		if (route_of(d->routes, m->method, m->target, named, sizeof named))
			memcpy(route, named, sizeof route);
		else /* as learnt by this request: later pages may learn more */
			route_learn_apply(d->learn, named, route, sizeof route);
		fprintf(d->out, " c%" PRIu64 " > HTTP %s %s%s #%u route \"%s\"", c->id, m->method,
			m->target, m->target_truncated ? "..." : "", m->seq, route);
	} else {
		fprintf(d->out, " c%" PRIu64 " < HTTP %u%s", c->id, m->status,
			m->interim ? " (interim)" : "");
		if (m->seq != UINT32_MAX)
			fprintf(d->out, " for #%u %s", m->seq, m->method);
		else if (!m->interim)
			fprintf(d->out, " (request not captured)");
	}
	fprintf(d->out, " %" PRIu64 " body bytes%s", m->body_bytes,
		m->close_delimited ? " until close" : "");
	if (!m->request && !m->interim && m->request_ts && m->ts_last >= m->request_ts)
		fprintf(d->out, ", page %.3f ms", (double)(m->ts_last - m->request_ts) / 1e6);
	fputc('\n', d->out);
}

static void on_rt(void *ctx, const struct conn_summary *c, const struct rt *rt)
{
	struct dump_ctx *d = ctx;
	if (d->conn && (uint64_t)d->conn != c->id)
		return;
	print_time(d, rt->t_start);
	char buf[32], num[32];
	snprintf(num, sizeof num, "rt %" PRIu64, rt->index + 1); /* one width: columns stay put */
	fprintf(d->out, " c%" PRIu64 " %-9s %-16s %-12s rfq %u rows %u %c>%c", c->id, num,
		rt_label_how(rt->cls, rt->ping_role, rt->role_how, buf, sizeof buf),
		rt->flight[0] ? rt->flight : "-", rt->rfq, rt->rows, rt->status_before,
		rt->status_after);
	if (rt->has_start && rt->has_end && rt->t_end >= rt->t_start)
		fprintf(d->out, " %.3f ms", (double)(rt->t_end - rt->t_start) / 1e6);
	if (rt->errors)
		fprintf(d->out, " errors %u", rt->errors);
	if (rt->damaged)
		fprintf(d->out, " [gap]");
	print_statement(d->out, &d->texts, rt->text, rt->stmts);
	fputc('\n', d->out);
}

/* A protocol's line starts with the time (its printer, proto.h). */
static void line_start(const struct dump_printer *p, uint64_t ts)
{
	print_time(p->ctx, ts);
}

/* Every protocol that prints its own lines (proto_ops.dump: Redis's) watched
 * through the analysis' options. */
static void other_printers(struct dump_ctx *d, struct analysis_opts *ao)
{
	static struct dump_printer printer;
	printer = (struct dump_printer){d->out, (uint64_t)d->conn, d->round_trips, line_start, d};
	for (int p = 0; p < PROTO_N; p++) {
		const struct proto_ops *ops = analysis_protocol(p);
		void *own = analysis_opts_part(ao, p);
		if (ops && ops->dump && own)
			ops->dump(own, &printer);
	}
}

enum { DUMP_ROUND_TRIPS = 1, DUMP_NANO, DUMP_CONN, DUMP_VALUES };

static int dump_opt(void *ctx, int id, const char *arg)
{
	struct dump_ctx *d = ctx;
	double v;
	switch (id) {
	case DUMP_ROUND_TRIPS:
		d->round_trips = true;
		return 0;
	case DUMP_NANO:
		d->nano = true;
		return 0;
	case DUMP_VALUES:
		d->values = true;
		return 0;
	default:
		if (!opt_number("--conn", arg, 1, 1e15, "a connection number (1, 2, ...)", &v))
			return -1;
		d->conn = (int)v;
		return 0;
	}
}

static int dump_run(const struct cmd_opts *co, void *state)
{
	struct dump_ctx *d = state;
	struct read_opts ro = co->ro;
	const char *output = co->output;
	if (!(d->out = output_open(output)))
		return EXIT_ERROR;
	struct analysis_opts ao = {0};
	d->routes = ro.routes;
	if (d->round_trips) {
		if (textring_init(&d->texts, TEXTRING_SIZE) != 0) {
			warnx_("out of memory");
			output_close(d->out, output, EXIT_ERROR);
			return EXIT_ERROR;
		}
		ao.pgsql.texts = &d->texts;
		ao.pgsql.text_values = d->values;
		ao.pgsql.on_rt = on_rt;
	} else {
		ao.pgsql.on_msg = on_msg;
		ao.on_conn = on_conn;
	}
	ao.http.on_msg = on_http;
	ao.ctx = ao.pgsql.ctx = ao.http.ctx = d;
	other_printers(d, &ao);
	static struct analysis *a; /* for the process' life, as the analysis' tables are */
	if (!a && !(a = analysis_new())) {
		warnx_("out of memory");
		output_close(d->out, output, EXIT_ERROR);
		textring_free(&d->texts);
		return EXIT_ERROR;
	}
	d->learn = analysis_learn(a);
	bool partial;
	int rc = run_analysis(&ro, &ao, a, &partial);
	struct report_input in = {ro.files, ro.nfiles, partial || rc != EXIT_OK, NULL};
	warn_evidence(a, &in);
	analysis_free(a);
	textring_free(&d->texts);
	return output_close(d->out, output, rc);
}

static const struct opt_extra own[] = {
	{"round-trips", 0, false, DUMP_ROUND_TRIPS},
	{"nano", 0, false, DUMP_NANO},
	{"conn", 0, true, DUMP_CONN},
	{"show-values", 0, false, DUMP_VALUES},
	{NULL, 0, false, 0},
};

const struct command cmd_dump = {
	.name = "dump",
	.summary = "print one line per PostgreSQL message in saved captures",
	.help = help,
	.groups = OPTG_FILES | OPTG_INPUT | OPTG_TLS | OPTG_PORTS | OPTG_PROTO_PORTS | OPTG_PAGES | OPTG_LIMITS |
		  OPTG_OUTPUT,
	.own = own,
	.own_opt = dump_opt,
	.state_size = sizeof(struct dump_ctx),
	.run = dump_run,
};
