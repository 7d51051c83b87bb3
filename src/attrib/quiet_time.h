/* quiet_time.h - the stretches of a capture in which no round trip was in
 * flight on any connection, left out of pages' lengths (attrib.c's density).
 *
 * The fit (infer.h) spreads a page's round trips evenly over its window: a
 * short page is dense, a long one sparse.  When the whole app stops - a
 * Node event loop held by one long step, a process the kernel leaves off
 * the CPU - every page in flight grows by the pause, though no page could
 * run anything in it, and the pages the pauses happen to catch look
 * sparser than they are: their statements go to other routes.  Where
 * nothing pauses (threads, a thread with short steps, pauses at random
 * that catch every route alike), leaving the stretches out changes
 * nothing.  docs/pages.md ("Quiet time") has the captures and simulations
 * behind each rule below.
 *
 * A quiet stretch is a run of time with no round trip in flight on any
 * connection (none started, none awaited), at least QUIET_MIN_NS long and
 * QUIET_GAPS times the mean gap between starts within the page's window:
 * an app at rest between two pages' statements is not paused, and a busy
 * app's gaps between round trips are far shorter.  Sparse traffic needs
 * the bound: a page whose one Redis GET is all it sends is, but for its
 * own command, all quiet.  A round trip awaited is no pause: a pipelining
 * driver (postgres.js) waits on one flight for milliseconds with nothing
 * else started.
 *
 * A Redis flight is in flight from its first command to its answer's
 * last byte (quiet_time_busy, once it is answered), each command a start
 * as it is sent.
 *
 * Starts and round trips in flight are counted in bins of QUIET_BIN_NS
 * over a ring of QUIET_BINS (16 s): fixed memory (256 KiB), allocated on
 * the first round trip; a window reaching back past the ring, or past the
 * latest round trip seen, is taken as never quiet there.  A page's window
 * is read bin by bin as it starts: finer bins cost more for the same
 * figures, and buffering the idle runs saves too little for its code. */
#ifndef PGRTT_QUIET_TIME_H
#define PGRTT_QUIET_TIME_H

#include <stdbool.h>
#include <stdint.h>

#define QUIET_BIN_NS 1000000ull /* 1 ms */
#define QUIET_BINS 16384u      /* 16.4 s */
#define QUIET_MIN_NS 2000000ull /* 2 ms: no shorter stretch is a pause */
#define QUIET_GAPS 8            /* times the window's mean gap between starts */

struct quiet_bin {
	uint64_t bin;   /* which bin the slot holds (+ 1; 0: none yet) */
	uint32_t count; /* round trips started in it */
	uint32_t busy;  /* round trips in flight during it */
};

struct quiet_time {
	struct quiet_bin *bins; /* QUIET_BINS, a ring by bin number */
	uint64_t latest;        /* the latest bin a round trip was in flight in (+ 1) */
	bool failed;            /* out of memory: nothing is ever quiet */
};

void quiet_time_init(struct quiet_time *q);
void quiet_time_free(struct quiet_time *q);

/* A round trip from t0 to t1 (ns; t1 < t0: its end unknown), in any order. */
void quiet_time_add(struct quiet_time *q, uint64_t t0, uint64_t t1);

/* In flight from t0 to t1, its start counted already: a Redis flight,
 * whose commands were each added as they were sent (attrib.c). */
void quiet_time_busy(struct quiet_time *q, uint64_t t0, uint64_t t1);

/* Of [t0, t1], the nanoseconds inside quiet stretches. */
uint64_t quiet_time_within(const struct quiet_time *q, uint64_t t0, uint64_t t1);

#endif
