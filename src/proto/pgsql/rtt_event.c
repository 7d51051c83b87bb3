/* rtt_event.c - a PostgreSQL round trip as others take it: pages
 * (rt_event.h) and a pooler's legs (legs.h). */
#include "rtt.h"

#include "proto/legs.h"

void rtt_event(const struct rt *rt, struct rt_event *e)
{
	*e = (struct rt_event){
		.kind = RT_EVENT_ROUND_TRIP,
		.cls = rt->cls,
		.ping_role = rt->ping_role,
		.role_how = rt->role_how,
		.timing_role = rt->timing_role,
		.status_before = rt->status_before,
		.status_after = rt->status_after,
		.has_start = rt->has_start,
		.has_end = rt->has_end,
		.tail_ping = rt->tail_ping,
		.part = rt->part,
		.t_start = rt->t_start,
		.t_end = rt->t_end,
		.key = rt->sig,
		.flight = rt->index,
		.count = rt->rfq,
		.rows = rt->rows,
		.label = rt->flight,
		.text = rt->text,
		.stmts = rt->stmts,
	};
}

void rtt_legs(struct legs *l, uint8_t leg, const struct rt *rt)
{
	/* not a pooler's own SET either: it has no client's to be a copy of,
	 * and PgBouncer sends one each time it hands a server connection to a
	 * client of other settings, often enough to keep its server leg under
	 * the share of copies that decides (docs/pools.md) */
	if (rt->has_start && rt->has_end && !rt->pooler_set) /* has_*: time to match by */
		legs_flight(l, leg, rt->sig, rt->t_start, rt->t_end);
}
