/* test_attrib_pipe.c - attribution's events through a thread of its own
 * (src/attrib/attrib_pipe.c) give what they give straight through: the same
 * stream - more routes than the cap, overlapping pages, PostgreSQL round
 * trips, Redis commands and flights, watermarks, more events than the
 * batch pool holds - fed both ways, every route's figures compared. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "attrib/attrib_pipe.h"
#include "proto/pgsql/rtt.h"
#include "proto/redis/redis_rtt.h"
#include "tinytest.h"

#define MS 1000000ull

static void feed(struct attrib *a, bool threaded)
{
	struct attrib_pipe p;
	attrib_init(a, 2 * MS, 0);
	a->infer.threads = a->cmd_infer.threads = threaded ? 2 : 1;
	attrib_pipe_start(&p, a, threaded);
	uint64_t rng = 7, serial = 0;
	for (uint32_t i = 0; i < 20000; i++) {
		rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
		/* 700 routes named, past ATTRIB_ROUTES_MAX: the rest as one */
		char name[64];
		snprintf(name, sizeof name, "GET /r%u", i < 700 ? i : (uint32_t)(rng % 5));
		uint32_t route = attrib_pipe_route_id(&p, name);
		uint64_t t0 = (uint64_t)i * MS / 4, conn = 1 + rng % 16;
		struct rt r = {0};
		r.t_start = t0 + MS / 10;
		r.t_end = r.t_start + MS / 10;
		r.has_start = r.has_end = true;
		r.cls = (rng >> 20) % 4 == 0 ? RT_PING : RT_QUERY;
		r.ping_role = r.cls == RT_PING ? PING_ACQUIRE : 0;
		r.sig = 1 + (rng >> 24) % 6;
		r.rfq = 1;
		struct rt_event e;
		rtt_event(&r, &e);
		attrib_pipe_add(&p, 100 + conn, &e);
		struct redis_rt q = {0};
		q.t_start = t0 + MS / 5;
		q.t_end = q.t_start + MS / 10;
		q.commands = q.replies = 1;
		q.cls = RT_QUERY;
		q.serial = serial++;
		struct resp_msg m = {.ts_first = q.t_start};
		snprintf(m.name, sizeof m.name, "%s", i % 2 ? "GET" : "SET");
		redis_cmd_event(&q, &m, &e);
		attrib_pipe_add(&p, 200 + conn, &e);
		redis_flight_event(&q, &e);
		attrib_pipe_add(&p, 200 + conn, &e);
		attrib_pipe_page(&p, route, t0, t0 + MS / 2, t0 + MS, conn, "GET", "/", 200);
		if (i % 64 == 0)
			attrib_pipe_settle(&p, t0 > 2 * MS ? t0 - 2 * MS : 0, t0);
	}
	attrib_pipe_finish(&p);
	attrib_pipe_free(&p);
}

static void test_same_through_a_thread(void)
{
	static struct attrib one, two;
	feed(&one, false);
	feed(&two, true);
	CHECK_EQ_U(one.nroutes, ATTRIB_ROUTES_MAX);
	CHECK_EQ_U(two.nroutes, one.nroutes);
	uint32_t differ = 0;
	for (uint32_t i = 0; i < one.nroutes && i < two.nroutes; i++) {
		const struct attrib_route *x = &one.routes[i], *y = &two.routes[i];
		differ += strcmp(x->name, y->name) != 0 || x->pages != y->pages || x->rt != y->rt ||
			  x->rfq != y->rfq || x->cmd_rts != y->cmd_rts || x->cmds != y->cmds ||
			  x->inferred != y->inferred || x->var != y->var ||
			  memcmp(x->by_class, y->by_class, sizeof x->by_class) != 0;
	}
	printf("  %u routes, %u differ; last: %s, %llu pages, %.2f round trips\n", one.nroutes,
	       differ, one.routes[one.nroutes - 1].name,
	       (unsigned long long)one.routes[one.nroutes - 1].pages, one.routes[one.nroutes - 1].rt);
	CHECK_EQ_U(differ, 0);
	CHECK_STR(one.routes[ATTRIB_ROUTES_MAX - 1].name, "(other routes)");
	CHECK(one.routes[0].pages > 0);
	CHECK_EQ_U(one.rts_in_pages + one.rts_outside, two.rts_in_pages + two.rts_outside);
	CHECK(one.rts_in_pages > 0);
	/* the stretches in flight alike: Redis flights' spans cross to the thread */
	CHECK(one.quiet.bins && two.quiet.bins &&
	      memcmp(one.quiet.bins, two.quiet.bins, QUIET_BINS * sizeof(*one.quiet.bins)) == 0);
	CHECK_EQ_U(one.quiet.latest, two.quiet.latest);
	attrib_free(&one);
	attrib_free(&two);
}

int main(void)
{
	RUN(test_same_through_a_thread);
	return TT_EXIT();
}
