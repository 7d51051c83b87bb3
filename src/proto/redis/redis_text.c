/* redis_text.c - Redis's lines in analyze's text report, as tcpdump's
 * printers give each protocol its own words: the totals after
 * PostgreSQL's (round trips against commands, by class, by name, latency,
 * replies, damage) and a row per connection (proto_ops.text_totals and
 * text_connection, report_text.c). */
#include <inttypes.h>
#include <stdio.h>

#include "base/escape.h"
#include "proto/conn_summary.h"
#include "redis_text.h"
#include "redis_totals.h"

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

/* Round trips against commands (a pipeline is one round trip of many),
 * by class, the commands by name. */
void redis_text_totals(FILE *out, const void *shared)
{
	const struct redis_totals *t = shared;
	const struct redis_stats *s = &t->st;
	fprintf(out, "redis: %" PRIu64 " connections  commands: %" PRIu64 "  round_trips: %" PRIu64,
		t->tot.connections, s->commands, s->round_trips);
	if (s->round_trips)
		fprintf(out, "  (%.2f commands per round trip; %" PRIu64 " pipelined, largest %" PRIu64
			     ")",
			(double)s->commands / (double)s->round_trips, s->pipelined, s->max_pipeline);
	fputc('\n', out);
	fprintf(out, "redis by class: ");
	const char *sep = "";
	for (int c = 0; c < RT_NCLASS; c++) {
		if (!s->by_class[c])
			continue;
		fprintf(out, "%s%s %" PRIu64, sep, rt_class_name(c), s->by_class[c]);
		sep = ", ";
	}
	fprintf(out, "%s\n", sep[0] ? "" : "none");
	const struct redis_name_count *names[REDIS_NAMES_MAX];
	uint64_t rest;
	uint32_t n = redis_totals_commands(t, names, &rest);
	if (n || rest) {
		fprintf(out, "redis commands:");
		for (uint32_t i = 0; i < n && i < 12; i++) {
			fputc(' ', out);
			esc_term(out, names[i]->name);
			fprintf(out, " %" PRIu64, names[i]->n);
		}
		uint64_t more = rest;
		for (uint32_t i = 12; i < n; i++)
			more += names[i]->n;
		if (more)
			fprintf(out, " (others %" PRIu64 ")", more);
		fputc('\n', out);
	}
	if (t->tot.lat.count)
		fprintf(out, "redis latency: p50 %.3f ms  p99 %.3f ms  max %.3f ms\n",
			ms(hist_quantile(&t->tot.lat, 0.5)), ms(hist_quantile(&t->tot.lat, 0.99)),
			ms(t->tot.lat.max));
	fprintf(out, "redis replies: %" PRIu64 "  errors: %" PRIu64 "  pushes: %" PRIu64
		     "  without reply: %" PRIu64 "  unanswered: %" PRIu64 "\n",
		s->replies, s->errors, s->pushes, s->no_reply, s->unanswered);
	fprintf(out, "redis damage: gaps %" PRIu64 " (%" PRIu64 " bytes)  malformed %" PRIu64
		     "  mid-stream %" PRIu64 "  encrypted %" PRIu64 "\n",
		t->tot.gaps, t->tot.gap_bytes, t->tot.malformed, t->tot.mid_stream, t->tot.tls);
}

void redis_text_connection(FILE *out, const struct conn_summary *c, bool first)
{
	if (first)
		fprintf(out, "\n%4s  %-22s %-22s %7s %8s %7s %7s %5s %5s %9s %8s %8s  %s\n", "id",
			"redis client", "server", "rt", "commands", "query", "ping", "tx", "other",
			"pipelined", "p50 ms", "p99 ms", "flags");
	const struct redis_stats *st = (const struct redis_stats *)(const void *)c->figures;
	uint64_t other = st->round_trips - st->by_class[RT_QUERY] - st->by_class[RT_PING] -
			 st->by_class[RT_TRANSACTION];
	fprintf(out,
		"%4" PRIu64 "  %-22s %-22s %7" PRIu64 " %8" PRIu64 " %7" PRIu64 " %7" PRIu64 " %5" PRIu64
		" %5" PRIu64 " %9" PRIu64,
		c->id, c->client, c->server, st->round_trips, st->commands, st->by_class[RT_QUERY],
		st->by_class[RT_PING], st->by_class[RT_TRANSACTION], other, st->pipelined);
	if (c->lat_count)
		fprintf(out, " %8.3f %8.3f ", ms(c->lat_p50), ms(c->lat_p99));
	else
		fprintf(out, " %8s %8s ", "-", "-");
	if (c->mid_stream)
		fprintf(out, " mid-stream");
	if (c->tls)
		fprintf(out, " encrypted");
	if (c->gaps)
		fprintf(out, " gaps=%" PRIu64, c->gaps);
	if (c->malformed)
		fprintf(out, " malformed=%" PRIu64, c->malformed);
	if (st->pushes)
		fprintf(out, " pushes=%" PRIu64, st->pushes);
	if (c->rst_seen)
		fprintf(out, " rst");
	if (c->evicted)
		fprintf(out, " evicted");
	fputc('\n', out);
}
