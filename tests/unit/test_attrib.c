/* test_attrib.c - pages and round trips meet: windows, grace, overlap,
 * several routes, and events that arrive out of order. */
#include <string.h>

#include "attrib.h"
#include "tinytest.h"

#define MS 1000000ull

static struct attrib a;

static void rt(uint64_t conn, uint64_t start_ms10, uint8_t cls, uint8_t role)
{
	struct rt r = {0};
	r.t_start = start_ms10 * MS / 10;
	r.t_end = r.t_start + MS / 10;
	r.has_start = r.has_end = true;
	r.cls = cls;
	r.ping_role = role;
	r.rfq = 1;
	attrib_add_rt(&a, conn, &r);
}

static void test_grace_and_windows(void)
{
	attrib_init(&a, 2 * MS, 0);
	uint32_t detail = attrib_route_id(&a, "GET /articles/{id}");
	CHECK_EQ_U(attrib_route_id(&a, "GET /articles/{id}"), detail);
	/* page 1: [10, 20] ms with a query, and a release ping 1 ms after it;
	 * page 2: [30, 40] ms; a round trip at 25 ms is outside both.  The
	 * round trips arrive before the pages, as they do. */
	rt(7, 120, RT_QUERY, PING_NONE);
	rt(7, 210, RT_PING, PING_RELEASE);
	rt(7, 250, RT_QUERY, PING_NONE);
	rt(7, 310, RT_PING, PING_ACQUIRE);
	rt(7, 320, RT_QUERY, PING_NONE);
	attrib_add_page(&a, detail, 10 * MS, 20 * MS, 1, "GET", "/articles/1", 200);
	attrib_settle(&a, 15 * MS); /* too early for page 1: it keeps waiting */
	CHECK_EQ_U(a.routes[detail].pages, 0);
	attrib_add_page(&a, detail, 30 * MS, 40 * MS, 1, "GET", "/articles/2", 200);
	attrib_finish(&a);
	const struct attrib_route *r = &a.routes[detail];
	CHECK_EQ_U(r->pages, 2);
	CHECK_EQ_U(r->pages_exact, 2);
	CHECK(r->rt == 4.0);
	CHECK(r->pings[PING_RELEASE] == 1.0 && r->pings[PING_ACQUIRE] == 1.0);
	CHECK_EQ_U(r->rt_min, 2);
	CHECK_EQ_U(r->rt_max, 2);
	CHECK_EQ_U(r->rt_dist[2], 2);
	CHECK_EQ_U(a.rts_outside, 1);
	attrib_free(&a);
}

static void amb_ping(uint64_t conn, uint64_t start_ms10, uint8_t role, uint8_t how, uint8_t guess)
{
	struct rt r = {0};
	r.t_start = start_ms10 * MS / 10;
	r.t_end = r.t_start + MS / 10;
	r.has_start = r.has_end = true;
	r.cls = RT_PING;
	r.ping_role = role;
	r.role_how = how;
	r.timing_role = guess;
	r.rfq = 1;
	attrib_add_rt(&a, conn, &r);
}

/* A route's ambiguous pings settle as a connection's do (test_rtt's
 * test_ping_policy_*): all to the final policy's side, or each to its
 * neighbours' when there is none; a plain one never moves. */
static void test_settle_policy(void)
{
	for (int final = 0; final < 2; final++) {
		attrib_init(&a, 0, 0);
		uint32_t x = attrib_route_id(&a, "GET /x");
		attrib_add_page(&a, x, 0, 10 * MS, 1, "GET", "/x", 200);
		amb_ping(3, 10, PING_ACQUIRE, ROLE_TIMING, PING_ACQUIRE);
		amb_ping(3, 20, PING_ACQUIRE, ROLE_POLICY, PING_RELEASE); /* an interim policy's */
		amb_ping(3, 30, PING_RELEASE, ROLE_POLICY, PING_RELEASE);
		amb_ping(3, 40, PING_ACQUIRE, ROLE_PLAIN, PING_NONE);
		attrib_finish(&a);
		attrib_settle_policy(&a, final ? POLICY_RELEASE : POLICY_UNKNOWN);
		const struct attrib_route *r = &a.routes[x];
		if (final) {
			CHECK(r->pings[PING_RELEASE] == 3.0 && r->pings[PING_ACQUIRE] == 1.0);
		} else {
			CHECK(r->pings[PING_RELEASE] == 2.0 && r->pings[PING_ACQUIRE] == 2.0);
		}
		attrib_settle_policy(&a, final ? POLICY_RELEASE : POLICY_UNKNOWN); /* idempotent */
		CHECK(r->pings[PING_RELEASE] + r->pings[PING_ACQUIRE] == 4.0);
		CHECK(r->pings[PING_ACQUIRE] == (final ? 1.0 : 2.0));
		attrib_free(&a);
	}
}

static void test_overlap(void)
{
	attrib_init(&a, 0, 0);
	uint32_t x = attrib_route_id(&a, "GET /x"), y = attrib_route_id(&a, "GET /y");
	/* two pages of /x overlap: the round trip in both windows is shared */
	attrib_add_page(&a, x, 0, 10 * MS, 1, "GET", "/x", 200);
	attrib_add_page(&a, x, 5 * MS, 15 * MS, 2, "GET", "/x", 200);
	rt(9, 20, RT_QUERY, PING_NONE);  /* 2 ms: first page only */
	rt(9, 70, RT_QUERY, PING_NONE);  /* 7 ms: both */
	rt(9, 120, RT_QUERY, PING_NONE); /* 12 ms: second only */
	/* /y overlaps a later /x page: both are mixed */
	attrib_add_page(&a, x, 100 * MS, 110 * MS, 1, "GET", "/x", 200);
	attrib_add_page(&a, y, 105 * MS, 120 * MS, 2, "GET", "/y", 200);
	rt(9, 1070, RT_QUERY, PING_NONE); /* 107 ms: both routes */
	rt(9, 1150, RT_QUERY, PING_NONE); /* 115 ms: /y only, yet a mixed page */
	attrib_finish(&a);
	CHECK_EQ_U(a.routes[x].pages, 2);
	CHECK_EQ_U(a.routes[x].pages_aggregate, 2);
	CHECK(a.routes[x].rt == 3.0);
	CHECK_EQ_U(a.routes[x].pages_mixed, 1);
	CHECK_EQ_U(a.routes[y].pages_mixed, 1);
	CHECK_EQ_U(a.mixed_pages, 2);
	CHECK(a.mixed_rts == 2.0);
	attrib_free(&a);
}

/* A page whose start the sweep already passed (its request held on past
 * the hold) is counted apart, never attributed; a round trip that arrives
 * late still finds the pages active at its start. */
static void test_late_events(void)
{
	attrib_init(&a, 1 * MS, 0);
	uint32_t x = attrib_route_id(&a, "GET /x"), ev = attrib_route_id(&a, "GET /events");
	attrib_add_page(&a, x, 10 * MS, 20 * MS, 1, "GET", "/x", 200);
	rt(3, 150, RT_QUERY, PING_NONE);
	attrib_settle(&a, 18 * MS);
	rt(3, 170, RT_QUERY, PING_NONE); /* late, but page 1 is still active */
	attrib_add_page(&a, ev, 5 * MS, 30 * MS, 2, "GET", "/events", 200); /* began before the sweep */
	attrib_finish(&a);
	CHECK_EQ_U(a.routes[x].pages, 1);
	CHECK_EQ_U(a.routes[x].pages_exact, 1);
	CHECK(a.routes[x].rt == 2.0);
	CHECK_EQ_U(a.routes[ev].pages, 0);
	CHECK_EQ_U(a.routes[ev].pages_long, 1);
	CHECK_EQ_U(a.long_pages, 1);
	attrib_free(&a);
}

/* Round trips and pages in any arrival order give the same figures as in
 * time order: the heaps sort them. */
static void test_arrival_order(void)
{
	for (int order = 0; order < 2; order++) {
		attrib_init(&a, 0, 0);
		uint32_t x = attrib_route_id(&a, "GET /x");
		for (int k = 0; k < 100; k++) {
			int i = order ? 99 - k : k;
			attrib_add_page(&a, x, (uint64_t)(1000 + i * 10) * MS, (uint64_t)(1005 + i * 10) * MS,
				    1, "GET", "/x", 200);
			rt(4, (uint64_t)(10010 + i * 100), RT_QUERY, PING_NONE);
			rt(4, (uint64_t)(10030 + i * 100), RT_QUERY, PING_NONE);
			rt(4, (uint64_t)(10070 + i * 100), RT_QUERY, PING_NONE); /* between pages */
		}
		attrib_finish(&a);
		CHECK_EQ_U(a.routes[x].pages_exact, 100);
		CHECK(a.routes[x].rt == 200.0);
		CHECK_EQ_U(a.rts_outside, 100);
		attrib_free(&a);
	}
}

/* More pages in flight at once than the active set follows: counted as
 * dropped (the attribution-dropped finding), never a crash or a stall. */
static void test_active_cap(void)
{
	attrib_init(&a, 0, 0);
	uint32_t x = attrib_route_id(&a, "GET /x");
	for (uint32_t i = 0; i < ATTRIB_ACTIVE_MAX + 10; i++)
		attrib_add_page(&a, x, 1 * MS + i, 50 * MS, 1, "GET", "/x", 200);
	attrib_finish(&a);
	CHECK_EQ_U(a.dropped, 10);
	CHECK_EQ_U(a.routes[x].pages, ATTRIB_ACTIVE_MAX);
	attrib_free(&a);
}

int main(void)
{
	RUN(test_grace_and_windows);
	RUN(test_settle_policy);
	RUN(test_overlap);
	RUN(test_late_events);
	RUN(test_arrival_order);
	RUN(test_active_cap);
	return TT_EXIT();
}
