/* quiet_time.c - stretches with no round trip in flight (quiet_time.h) */
#include "quiet_time.h"

#include <stdlib.h>

#define UNKNOWN UINT32_MAX

void quiet_time_init(struct quiet_time *q)
{
	q->count = q->busy = NULL;
	q->bin = NULL;
	q->latest = 0;
	q->failed = false;
}

void quiet_time_free(struct quiet_time *q)
{
	free(q->count);
	free(q->busy);
	free(q->bin);
	quiet_time_init(q);
}

/* Bin b's slot, emptied if it held an older bin; NULL if it holds a newer */
static int32_t slot_of(struct quiet_time *q, uint64_t b)
{
	uint32_t i = (uint32_t)(b % QUIET_BINS);
	if (q->bin[i] > b + 1)
		return -1; /* older than the ring holds */
	if (q->bin[i] != b + 1) {
		q->bin[i] = b + 1;
		q->count[i] = q->busy[i] = 0;
	}
	return (int32_t)i;
}

void quiet_time_add(struct quiet_time *q, uint64_t t0, uint64_t t1)
{
	if (!q->count && !q->failed) {
		q->count = calloc(QUIET_BINS, sizeof(*q->count));
		q->busy = calloc(QUIET_BINS, sizeof(*q->busy));
		q->bin = calloc(QUIET_BINS, sizeof(*q->bin));
		if (!q->count || !q->busy || !q->bin) {
			quiet_time_free(q);
			q->failed = true;
		}
	}
	if (!q->count)
		return;
	uint64_t b0 = t0 / QUIET_BIN_NS, b1 = t1 > t0 ? t1 / QUIET_BIN_NS : b0;
	if (b1 - b0 >= QUIET_BINS) /* in flight longer than the ring: its latest part */
		b0 = b1 - (QUIET_BINS - 1);
	int32_t i = slot_of(q, t0 / QUIET_BIN_NS);
	if (i >= 0 && q->count[i] < UNKNOWN - 1)
		q->count[i]++;
	for (uint64_t b = b0; b <= b1; b++)
		if ((i = slot_of(q, b)) >= 0 && q->busy[i] < UNKNOWN - 1)
			q->busy[i]++;
	if (b1 + 1 > q->latest)
		q->latest = b1 + 1;
}

/* Bin b's starts (busy: its round trips in flight); UNKNOWN where the ring
 * no longer holds it, or where round trips may still come (past the
 * latest seen) */
static uint32_t in_bin(const struct quiet_time *q, uint64_t b, bool busy)
{
	if (b + 1 > q->latest)
		return UNKNOWN;
	uint32_t i = (uint32_t)(b % QUIET_BINS);
	if (q->bin[i] == b + 1)
		return busy ? q->busy[i] : q->count[i];
	return q->bin[i] > b + 1 ? UNKNOWN : 0;
}

uint64_t quiet_time_within(const struct quiet_time *q, uint64_t t0, uint64_t t1)
{
	if (!q->count || t1 <= t0)
		return 0;
	uint64_t b0 = t0 / QUIET_BIN_NS, b1 = t1 / QUIET_BIN_NS;
	if (b1 - b0 >= QUIET_BINS) /* the ring holds no more: the rest is unknown */
		b0 = b1 - (QUIET_BINS - 1);
	uint64_t n = 0;
	for (uint64_t b = b0; b <= b1; b++) {
		uint32_t c = in_bin(q, b, false);
		n += c == UNKNOWN ? 0 : c;
	}
	uint64_t gap = (t1 - t0) / (n + 1) * QUIET_GAPS;
	uint64_t min = gap > QUIET_MIN_NS ? gap : QUIET_MIN_NS;
	uint64_t min_bins = (min + QUIET_BIN_NS - 1) / QUIET_BIN_NS;
	uint64_t quiet = 0;
	for (uint64_t b = b0; b <= b1; b++) {
		if (in_bin(q, b, true) != 0)
			continue;
		/* a run of idle bins: its whole length, past the window's ends
		 * as far as it takes to tell it long enough */
		uint64_t lo = b, hi = b;
		while (hi < b1 && in_bin(q, hi + 1, true) == 0)
			hi++;
		uint64_t end = hi;
		uint64_t floor = b0 > min_bins ? b0 - min_bins : 0;
		while (lo > floor && in_bin(q, lo - 1, true) == 0)
			lo--;
		while (hi - lo + 1 < min_bins && hi < b1 + min_bins && in_bin(q, hi + 1, true) == 0)
			hi++;
		if (hi - lo + 1 >= min_bins) {
			uint64_t s = b * QUIET_BIN_NS, e = (end + 1) * QUIET_BIN_NS;
			s = s > t0 ? s : t0;
			e = e < t1 ? e : t1;
			quiet += e > s ? e - s : 0;
		}
		b = end;
	}
	return quiet;
}
