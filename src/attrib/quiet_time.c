/* quiet_time.c - stretches with no round trip in flight (quiet_time.h) */
#include "quiet_time.h"

#include <stdlib.h>

#define UNKNOWN UINT32_MAX

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

static void mark(struct quiet_time *q, uint64_t t0, uint64_t t1, bool starts)
{
	if (!q->bins && !q->failed) {
		q->bins = calloc(QUIET_BINS, sizeof(*q->bins));
		q->failed = !q->bins;
	}
	if (!q->bins)
		return;
	uint64_t b0 = t0 / QUIET_BIN_NS, b1 = t1 > t0 ? t1 / QUIET_BIN_NS : b0;
	struct quiet_bin *x = slot_of(q, b0);
	if (starts && x && x->count < UNKNOWN - 1)
		x->count++;
	if (b1 - b0 >= QUIET_BINS) /* in flight longer than the ring: its latest part */
		b0 = b1 - (QUIET_BINS - 1);
	for (uint64_t b = b0; b <= b1; b++)
		if ((x = slot_of(q, b)) && x->busy < UNKNOWN - 1)
			x->busy++;
	if (b1 + 1 > q->latest)
		q->latest = b1 + 1;
}

void quiet_time_add(struct quiet_time *q, uint64_t t0, uint64_t t1)
{
	mark(q, t0, t1, true);
}

void quiet_time_busy(struct quiet_time *q, uint64_t t0, uint64_t t1)
{
	mark(q, t0, t1, false);
}

/* Round trips in flight during bin b; UNKNOWN where the ring no longer
 * holds it, or where round trips may still come (past the latest seen) */
static uint32_t busy_in(const struct quiet_time *q, uint64_t b)
{
	if (b + 1 > q->latest)
		return UNKNOWN;
	const struct quiet_bin *x = &q->bins[b % QUIET_BINS];
	if (x->bin == b + 1)
		return x->busy;
	return x->bin > b + 1 ? UNKNOWN : 0;
}

uint64_t quiet_time_within(const struct quiet_time *q, uint64_t t0, uint64_t t1)
{
	if (!q->bins || t1 <= t0 || q->latest == 0)
		return 0;
	uint64_t b0 = t0 / QUIET_BIN_NS, b1 = t1 / QUIET_BIN_NS;
	if (b1 - b0 >= QUIET_BINS) /* the ring holds no more: the rest is unknown */
		b0 = b1 - (QUIET_BINS - 1);
	uint64_t last = b1 < q->latest - 1 ? b1 : q->latest - 1; /* past it: unknown */
	uint64_t n = 0; /* the round trips started in the window */
	for (uint64_t b = b0; b <= last; b++) {
		const struct quiet_bin *x = &q->bins[b % QUIET_BINS];
		n += x->bin == b + 1 ? x->count : 0;
	}
	uint64_t gap = (t1 - t0) / (n + 1) * QUIET_GAPS;
	uint64_t min = gap > QUIET_MIN_NS ? gap : QUIET_MIN_NS;
	uint64_t need = (min + QUIET_BIN_NS - 1) / QUIET_BIN_NS;
	uint64_t quiet = 0;
	for (uint64_t b = b0; b <= last; b++) {
		if (busy_in(q, b) != 0)
			continue;
		/* a run of idle bins: its whole length, past the window's ends
		 * as far as it takes to tell it long enough */
		uint64_t lo = b, hi = b;
		while (hi < last && busy_in(q, hi + 1) == 0)
			hi++;
		uint64_t end = hi, floor = b0 > need ? b0 - need : 0;
		while (hi - lo + 1 < need && lo > floor && busy_in(q, lo - 1) == 0)
			lo--;
		while (hi - lo + 1 < need && hi < last + need && busy_in(q, hi + 1) == 0)
			hi++;
		if (hi - lo + 1 >= need) {
			uint64_t s = b * QUIET_BIN_NS, e = (end + 1) * QUIET_BIN_NS;
			s = s > t0 ? s : t0;
			e = e < t1 ? e : t1;
			quiet += e > s ? e - s : 0;
		}
		b = end;
	}
	return quiet;
}
