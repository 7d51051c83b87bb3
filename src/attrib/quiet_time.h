/* quiet_time.h - the stretches of a capture in which no round trip was in
 * flight on any connection, left out of pages' lengths (attrib.c's density).
 *
 * The fit (infer.h) spreads a page's round trips evenly over its window: a
 * short page is dense, a long one sparse.  When the whole app stops - a
 * Node event loop held by one long step, a process the kernel left off the
 * CPU - every page in flight grows by the pause, though no page could run
 * anything in it, and the pages the pauses happened to catch looked
 * sparser than they were.  The CI run that found it read node-postgres'
 * index route at 3.70 statements per page for 4 (a lookup first, other
 * tests taking the CPUs); simulated (tests/sim/poolsim.py: one thread, 8
 * clients, 4 connections, 2% of the steps taking 20 ms more), 3.21 and 2.58
 * (1.69-4.36) round trips per index page for 4, its statements given to
 * the detail route (4.80, 5.03 for 4).  With the pauses left out, 4.00 and
 * 4.00; where nothing pauses (threads, a thread with short steps, or
 * pauses at random that catch every route alike), the same as before.
 *
 * A quiet stretch is a run of time with no round trip in flight on any
 * connection (none started, none awaited), at least QUIET_MIN_NS long and
 * QUIET_GAPS times the mean gap between starts within the page's window:
 * an app at rest between two pages' statements is not paused, and a busy
 * app's gaps between round trips are far shorter.  Left out at any length,
 * sparse traffic broke: a page whose one Redis GET is all it sends is, but
 * for its own command, all quiet, and the unit tests of a GET per page
 * beside another route's pages read commands per page off by more than
 * 5%.  A round trip awaited is no pause: a pipelining driver (postgres.js)
 * waits on one flight for milliseconds with nothing else started, and
 * captures/web-pipelined.pcap read 2.63 / 3.28 / 4.30 ReadyForQuery per
 * page for 3 / 4 / 3 when only starts counted (2.80 / 3.77 / 3.63 with
 * whole windows, 2.79 / 3.74 / 3.66 now: 64 pages, intervals 0-7).
 *
 * A Redis flight is in flight from its first command to its answer's
 * last byte (quiet_time_busy, once it is answered), each command a start
 * as it is sent.
 *
 * Starts and round trips in flight are counted in bins of QUIET_BIN_NS
 * over a ring of QUIET_BINS (16 s): fixed memory (256 KiB), allocated on
 * the first round trip; a window reaching back past the ring, or past the
 * latest round trip seen, is taken as never quiet there.  Cost: 1.9% more
 * instructions for analyze --http-port on a simulated capture of 12,000
 * pages (half of it a page's window read bin by bin as it starts; bins of
 * 0.5 ms cost 2.9%, for figures the same to 0.2%; reading the window once,
 * its idle runs buffered, saved 0.05% for twice the code). */
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
