/* hist.c - log-linear histogram: values below 16 get exact buckets, above
 * that each power of two is split into 16 equal sub-buckets. */
#include "hist.h"

#include <string.h>

static unsigned bucket_of(uint64_t v)
{
	if (v < HIST_SUB)
		return (unsigned)v;
	unsigned e = 63u - (unsigned)__builtin_clzll(v); /* v >= 16, e >= 4 */
	unsigned sub = (unsigned)(v >> (e - HIST_SUB_BITS)) & (HIST_SUB - 1);
	return (e - HIST_SUB_BITS + 1) * HIST_SUB + sub;
}

static void bucket_range(unsigned i, uint64_t *lo, uint64_t *hi)
{
	if (i < HIST_SUB) {
		*lo = *hi = i;
		return;
	}
	unsigned e = i / HIST_SUB - 1 + HIST_SUB_BITS;
	uint64_t sub = i % HIST_SUB;
	uint64_t width = 1ull << (e - HIST_SUB_BITS);
	*lo = (1ull << e) + sub * width;
	*hi = *lo + width - 1;
}

void hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
}

void hist_add(struct hist *h, uint64_t v)
{
	if (h->count == 0 || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->count++;
	h->sum += v;
	h->b[bucket_of(v)]++;
}

void hist_merge(struct hist *dst, const struct hist *src)
{
	if (src->count == 0)
		return;
	if (dst->count == 0 || src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->count += src->count;
	dst->sum += src->sum;
	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		dst->b[i] += src->b[i];
}

uint64_t hist_quantile(const struct hist *h, double q)
{
	if (!h || h->count == 0) /* no histogram (out of memory) or no value */
		return 0;
	if (q <= 0)
		return h->min;
	if (q >= 1)
		return h->max;
	/* nearest-rank: the smallest value with at least q of the samples at or below */
	uint64_t rank = (uint64_t)(q * (double)h->count);
	if ((double)rank < q * (double)h->count)
		rank++;
	if (rank == 0)
		rank = 1;
	uint64_t seen = 0;
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= rank) {
			uint64_t lo, hi;
			bucket_range(i, &lo, &hi);
			uint64_t mid = lo + (hi - lo) / 2;
			if (mid < h->min)
				mid = h->min;
			if (mid > h->max)
				mid = h->max;
			return mid;
		}
	}
	return h->max;
}

uint64_t hist_count_le(const struct hist *h, uint64_t v)
{
	if (!h || h->count == 0)
		return 0;
	if (v >= h->max)
		return h->count;
	uint64_t n = 0;
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		uint64_t lo, hi;
		bucket_range(i, &lo, &hi);
		if (lo + (hi - lo) / 2 > v)
			break;
		n += h->b[i];
	}
	return n;
}
