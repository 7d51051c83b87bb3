/* rtt_event.c - a PostgreSQL round trip as pages take it (rt_event.h). */
#include "rtt.h"

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
