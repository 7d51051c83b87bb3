/* test_quiet_time.c - stretches with no round trip in flight (src/attrib/quiet_time.h) */
#include "attrib/quiet_time.h"
#include "tinytest.h"

#define MS 1000000ull
#define T0 (1700000000ull * 1000 * MS) /* a capture's clock: the epoch's nanoseconds */

static struct quiet_time q;

/* n round trips of 0.2 ms, one every `every` ns from t */
static void busy(uint64_t t, int n, uint64_t every)
{
	for (int i = 0; i < n; i++)
		quiet_time_add(&q, t + (uint64_t)i * every, t + (uint64_t)i * every + MS / 5);
}

/* Nothing seen, nothing quiet; out of order, the same */
static void test_empty(void)
{
	quiet_time_init(&q);
	CHECK_EQ_U(quiet_time_within(&q, T0, T0 + 100 * MS), 0);
	busy(T0, 10, MS / 2);
	CHECK_EQ_U(quiet_time_within(&q, T0, T0 + 4 * MS), 0);
	CHECK_EQ_U(quiet_time_within(&q, T0 + 4 * MS, T0), 0); /* an empty window */
	quiet_time_free(&q);
}

/* A busy app (a round trip every 0.5 ms) stops for 20 ms: the 20 ms are
 * quiet in every window that holds them, in part in one that holds part */
static void test_pause(void)
{
	quiet_time_init(&q);
	busy(T0, 100, MS / 2);           /* 0 - 50 ms */
	busy(T0 + 70 * MS, 100, MS / 2); /* 70 - 120 ms */
	uint64_t got = quiet_time_within(&q, T0, T0 + 120 * MS);
	/* 50.2 ms (the last one's end) to 70 ms, to the bin: 19.5 ms */
	CHECK(got >= 19 * MS && got <= 20 * MS);
	got = quiet_time_within(&q, T0 + 60 * MS, T0 + 100 * MS);
	CHECK(got >= 9 * MS && got <= 10 * MS); /* the part inside: 60 - 70 ms */
	got = quiet_time_within(&q, T0 + 52 * MS, T0 + 54 * MS);
	CHECK_EQ_U(got, 2 * MS); /* inside the pause: all of it */
	CHECK_EQ_U(quiet_time_within(&q, T0 + 10 * MS, T0 + 40 * MS), 0);
	quiet_time_free(&q);
}

/* A gap shorter than QUIET_MIN_NS is no pause; nor is one a few times the
 * window's usual gap: an app at rest between statements */
static void test_short_gaps(void)
{
	quiet_time_init(&q);
	busy(T0, 20, MS / 2);                        /* 0 - 10 ms */
	busy(T0 + 11 * MS + 500000, 20, MS / 2);    /* after a 1.3 ms gap */
	CHECK_EQ_U(quiet_time_within(&q, T0, T0 + 21 * MS), 0);
	quiet_time_free(&q);
	/* a round trip every 5 ms: a 10 ms gap is two of them, no pause */
	quiet_time_init(&q);
	busy(T0, 10, 5 * MS);
	busy(T0 + 55 * MS, 10, 5 * MS);
	CHECK_EQ_U(quiet_time_within(&q, T0, T0 + 100 * MS), 0);
	quiet_time_free(&q);
}

/* A round trip awaited is no pause: one statement in flight 30 ms, nothing
 * else started (a pipelining driver waiting on its flight) */
static void test_awaited(void)
{
	quiet_time_init(&q);
	busy(T0, 40, MS / 2);
	quiet_time_add(&q, T0 + 20 * MS, T0 + 50 * MS);
	busy(T0 + 50 * MS, 40, MS / 2);
	CHECK_EQ_U(quiet_time_within(&q, T0, T0 + 70 * MS), 0);
	/* its end unknown (t1 < t0): only its start is seen */
	quiet_time_free(&q);
	quiet_time_init(&q);
	busy(T0, 40, MS / 2);
	quiet_time_add(&q, T0 + 20 * MS, 0);
	busy(T0 + 50 * MS, 40, MS / 2);
	CHECK(quiet_time_within(&q, T0, T0 + 70 * MS) >= 29 * MS);
	quiet_time_free(&q);
}

/* Round trips come in any order; the time past the latest one seen may
 * still fill, and is never quiet; a pause that began before the window is
 * measured whole */
static void test_order_and_edges(void)
{
	quiet_time_init(&q);
	busy(T0 + 70 * MS, 100, MS / 2);
	busy(T0, 100, MS / 2);
	uint64_t got = quiet_time_within(&q, T0, T0 + 120 * MS);
	CHECK(got >= 19 * MS && got <= 20 * MS);
	/* a window from inside the pause: quiet from its start */
	got = quiet_time_within(&q, T0 + 68 * MS, T0 + 80 * MS);
	CHECK_EQ_U(got, 2 * MS);
	/* past the latest: unknown, not quiet */
	CHECK_EQ_U(quiet_time_within(&q, T0 + 130 * MS, T0 + 200 * MS), 0);
	quiet_time_free(&q);
}

/* The ring holds 16 s: a window reaching further back is not quiet there,
 * and round trips older than the ring are left out */
static void test_ring(void)
{
	const uint64_t span = (uint64_t)QUIET_BINS * QUIET_BIN_NS;
	quiet_time_init(&q);
	busy(T0, 10, MS / 2); /* 0 - 5 ms, then nothing: 5 - 10 ms is quiet */
	busy(T0 + span + 20 * MS, 10, MS / 2);
	CHECK_EQ_U(quiet_time_within(&q, T0, T0 + 10 * MS), 5 * MS);
	busy(T0 + span, 40, MS / 2); /* the ring moved on over the first 20 ms */
	quiet_time_add(&q, T0 + 1 * MS, T0 + 2 * MS); /* too old now: left out */
	CHECK_EQ_U(quiet_time_within(&q, T0, T0 + 10 * MS), 0);
	/* a window longer than the ring: only its last 16 s are looked at */
	uint64_t got = quiet_time_within(&q, T0, T0 + span + 25 * MS);
	CHECK(got > span - 100 * MS && got < span);
	/* a round trip in flight longer than the ring marks its latest part */
	quiet_time_add(&q, T0 + span + 40 * MS, T0 + 3 * span);
	CHECK_EQ_U(quiet_time_within(&q, T0 + 3 * span - 200 * MS, T0 + 3 * span), 0);
	quiet_time_free(&q);
}

/* A window of a hundred pauses: a burst of 20 round trips in one bin, then
 * four bins idle (2 ms at least), a hundred times */
static void test_many_pauses(void)
{
	const uint64_t cycle = 5 * QUIET_BIN_NS;
	quiet_time_init(&q);
	for (uint64_t i = 0; i < 100; i++)
		for (uint64_t j = 0; j < 20; j++)
			quiet_time_add(&q, T0 + i * cycle + j * 10000, T0 + i * cycle + j * 10000 + 10000);
	CHECK_EQ_U(quiet_time_within(&q, T0, T0 + 99 * cycle + QUIET_BIN_NS), 99 * 4 * QUIET_BIN_NS);
	quiet_time_free(&q);
}

int main(void)
{
	RUN(test_empty);
	RUN(test_pause);
	RUN(test_short_gaps);
	RUN(test_awaited);
	RUN(test_order_and_edges);
	RUN(test_ring);
	RUN(test_many_pauses);
	return TT_EXIT();
}
