/* redis_dump.c - pgrtt dump's lines for Redis, as tcpdump's printers give
 * each protocol its own words: a value per line (a command by its name and
 * words - arguments are data, never printed - a reply or push by its type
 * and size), or a round trip per line (proto_ops.dump, cmd_dump.c). */
#include <inttypes.h>
#include <stdio.h>

#include "proto/conn_summary.h"
#include "redis_dump.h"
#include "redis_totals.h"

static const char *resp_type_name(uint8_t t)
{
	switch (t) {
	case '*': return "array";
	case '+': return "simple";
	case '-': return "error";
	case ':': return "integer";
	case '$': return "bulk";
	case '_': return "null";
	case ',': return "double";
	case '#': return "boolean";
	case '(': return "big-number";
	case '!': return "bulk-error";
	case '=': return "verbatim";
	case '%': return "map";
	case '~': return "set";
	case '>': return "push";
	case RESP_INLINE: return "inline";
	default: return "?";
	}
}

static void value_line(void *ctx, const struct conn_summary *c, const struct resp_msg *m)
{
	const struct dump_printer *d = ctx;
	if (d->conn && d->conn != c->id)
		return;
	char name[RESP_NAME_MAX + 1];
	redis_name_printable(name, m->name);
	d->start(d, m->ts_first);
	if (m->side == RESP_CLIENT) {
		fprintf(d->out, " c%" PRIu64 " > REDIS %s%s", c->id, name[0] ? name : "(no name)",
			m->name_cut ? "..." : "");
		for (int i = 0; i < 2 && m->arg[i][0]; i++) {
			char arg[RESP_NAME_MAX + 1];
			redis_name_printable(arg, m->arg[i]);
			fprintf(d->out, " %s", arg);
		}
		fprintf(d->out, " (%" PRIu64 " word%s, %s, %" PRIu64 " bytes)", m->argc,
			m->argc == 1 ? "" : "s", m->type == RESP_INLINE ? "inline" : "array", m->bytes);
	} else {
		const char *kind = m->push ? "push" : m->error ? "error" : "reply";
		const char *type = m->push || m->type == '-' ? "" : resp_type_name(m->type);
		fprintf(d->out, " c%" PRIu64 " < REDIS %s%s%s%s", c->id, kind, type[0] ? " " : "",
			type, m->null && m->type != '_' ? " null" : "");
		if (name[0])
			fprintf(d->out, " \"%s\"", name);
		if (m->type == '*' || m->type == '%' || m->type == '~' || m->type == '>')
			fprintf(d->out, " %" PRIu64 " elements", m->argc);
		fprintf(d->out, " %" PRIu64 " bytes%s", m->bytes, m->attr ? " (with attribute)" : "");
	}
	fprintf(d->out, "%s\n", m->gap ? " [gap]" : "");
}

static void flight_line(void *ctx, const struct conn_summary *c, const struct redis_rt *rt)
{
	const struct dump_printer *d = ctx;
	if (d->conn && d->conn != c->id)
		return;
	char first[RESP_NAME_MAX + 1];
	redis_name_printable(first, rt->first);
	d->start(d, rt->commands ? rt->t_start : rt->t_end);
	char num[32];
	snprintf(num, sizeof num, "rt %" PRIu64, rt->index + 1);
	fprintf(d->out, " c%" PRIu64 " redis %-9s %-11s %-16s commands %u replies %u", c->id, num,
		rt_class_name(rt->cls), first[0] ? first : "-", rt->commands, rt->replies);
	if (rt->commands && rt->t_end >= rt->t_start)
		fprintf(d->out, " %.3f ms", (double)(rt->t_end - rt->t_start) / 1e6);
	if (rt->errors)
		fprintf(d->out, " errors %u", rt->errors);
	fprintf(d->out, "%s\n", rt->damaged ? " [gap]" : "");
}

void redis_dump(void *opts, const struct dump_printer *d)
{
	struct redis_observers *o = opts;
	if (d->round_trips)
		o->on_flight = flight_line;
	else
		o->on_value = value_line;
	o->ctx = (void *)d;
}
