/* quiet_time.c - stretches with no round trip in flight (quiet_time.h) */
#include "quiet_time.h"

#include <stdlib.h>

#define UNKNOWN UINT32_MAX
#define MAX_RUNS 64 /* idle runs a window is read in at once */

void quiet_time_init(struct quiet_time *q)
{
	q->bins = NULL;
	q->latest = 0;
	q->failed = false;
}

void quiet_time_free(struct quiet_time *q)
{
	free(q->bins);
	quiet_time_init(q);
}

/* Bin b's slot, emptied if it held an older bin; NULL if it holds a newer */
static struct quiet_bin *slot_of(struct quiet_time *q, uint64_t b)
{
	struct quiet_bin *x = &q->bins[b % QUIET_BINS];
	if (x->bin > b + 1)
		return NULL; /* older than the ring holds */
	if (x->bin != b + 1)
		*x = (struct quiet_bin){b + 1, 0, 0};
	return x;
}

void quiet_time_add(struct quiet_time *q, uint64_t t0, uint64_t t1)
{
	if (!q->bins && !q->failed) {
		q->bins = calloc(QUIET_BINS, sizeof(*q->bins));
		q->failed = !q->bins;
	}
	if (!q->bins)
		return;
	uint64_t b0 = t0 / QUIET_BIN_NS, b1 = t1 > t0 ? t1 / QUIET_BIN_NS : b0;
	struct quiet_bin *x = slot_of(q, b0);
	if (x && x->count < UNKNOWN - 1)
		x->count++;
	if (b1 - b0 >= QUIET_BINS) /* in flight longer than the ring: its latest part */
		b0 = b1 - (QUIET_BINS - 1);
	for (uint64_t b = b0; b <= b1; b++)
		if ((x = slot_of(q, b)) && x->busy < UNKNOWN - 1)
			x->busy++;
	if (b1 + 1 > q->latest)
		q->latest = b1 + 1;
}

/* Bin b's round trips in flight (starts: started); UNKNOWN where the ring
 * no longer holds it, or where round trips may still come (past the
 * latest seen) */
static uint32_t in_bin(const struct quiet_time *q, uint64_t b, bool starts)
{
	if (b + 1 > q->latest)
		return UNKNOWN;
	const struct quiet_bin *x = &q->bins[b % QUIET_BINS];
	if (x->bin == b + 1)
		return starts ? x->count : x->busy;
	return x->bin > b + 1 ? UNKNOWN : 0;
}

/* Idle bins on from b (dir +1 or -1) while fewer than `need`, within [lo, hi] */
static uint64_t idle_on(const struct quiet_time *q, uint64_t b, int dir, uint64_t need,
			uint64_t lo, uint64_t hi)
{
	uint64_t n = 0;
	while (n < need && (dir > 0 ? b < hi : b > lo) && in_bin(q, dir > 0 ? b + 1 : b - 1, false) == 0) {
		b = dir > 0 ? b + 1 : b - 1;
		n++;
	}
	return n;
}

/* Of [t0, t1], the part of idle run [lo, hi] (bins) */
static uint64_t part_of(uint64_t lo, uint64_t hi, uint64_t t0, uint64_t t1)
{
	uint64_t s = lo * QUIET_BIN_NS, e = (hi + 1) * QUIET_BIN_NS;
	s = s > t0 ? s : t0;
	e = e < t1 ? e : t1;
	return e > s ? e - s : 0;
}

uint64_t quiet_time_within(const struct quiet_time *q, uint64_t t0, uint64_t t1)
{
	if (!q->bins || t1 <= t0 || q->latest == 0)
		return 0;
	uint64_t b0 = t0 / QUIET_BIN_NS, b1 = t1 / QUIET_BIN_NS;
	if (b1 - b0 >= QUIET_BINS) /* the ring holds no more: the rest is unknown */
		b0 = b1 - (QUIET_BINS - 1);
	uint64_t last = b1 < q->latest - 1 ? b1 : q->latest - 1; /* past it: unknown */
	if (last < b0)
		return 0;
	/* one pass: the starts, and the idle runs (the first MAX_RUNS) */
	uint64_t n = 0, run_lo[MAX_RUNS], run_hi[MAX_RUNS], rest = 0;
	uint32_t nruns = 0;
	bool in_run = false;
	for (uint64_t b = b0; b <= last; b++) {
		const struct quiet_bin *x = &q->bins[b % QUIET_BINS];
		bool held = x->bin == b + 1, idle = held ? x->busy == 0 : x->bin < b + 1;
		n += held ? x->count : 0;
		if (!idle || rest) {
			in_run = idle && in_run;
			continue;
		}
		if (in_run) {
			run_hi[nruns - 1] = b;
		} else if (nruns < MAX_RUNS) {
			run_lo[nruns] = run_hi[nruns] = b;
			nruns++;
			in_run = true;
		} else {
			rest = b; /* a window of many runs (rare): the rest read again below */
		}
	}
	uint64_t gap = (t1 - t0) / (n + 1) * QUIET_GAPS;
	uint64_t min = gap > QUIET_MIN_NS ? gap : QUIET_MIN_NS;
	uint64_t need = (min + QUIET_BIN_NS - 1) / QUIET_BIN_NS;
	uint64_t quiet = 0;
	for (uint32_t k = 0; k < nruns; k++) {
		uint64_t lo = run_lo[k], hi = run_hi[k], len = hi - lo + 1;
		/* a run at the window's ends: its whole length, as far as it
		 * takes to tell it long enough */
		if (len < need && lo == b0)
			len += idle_on(q, lo, -1, need - len, b0 > need ? b0 - need : 0, lo);
		if (len < need && hi == last)
			len += idle_on(q, hi, +1, need - len, hi, last + need);
		if (len >= need)
			quiet += part_of(lo, hi, t0, t1);
	}
	for (uint64_t b = rest; rest && b <= last; b++) {
		if (in_bin(q, b, false) != 0)
			continue;
		uint64_t lo = b, hi = b;
		while (hi < last && in_bin(q, hi + 1, false) == 0)
			hi++;
		uint64_t len = hi - lo + 1;
		if (len < need && hi == last)
			len += idle_on(q, hi, +1, need - len, hi, last + need);
		if (len >= need)
			quiet += part_of(lo, hi, t0, t1);
		b = hi;
	}
	return quiet;
}
