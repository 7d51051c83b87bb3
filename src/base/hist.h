/* hist.h - fixed-memory latency histogram (log-linear buckets, ~3% error). */
#ifndef PGRTT_HIST_H
#define PGRTT_HIST_H

#include <stdint.h>

#define HIST_SUB_BITS 4                      /* 16 sub-buckets per power of two */
#define HIST_SUB (1u << HIST_SUB_BITS)
#define HIST_BUCKETS ((64 - HIST_SUB_BITS) * HIST_SUB + HIST_SUB)

struct hist {
	uint64_t count;
	uint64_t min, max;
	uint64_t sum; /* of the values: a Prometheus histogram's _sum */
	uint32_t b[HIST_BUCKETS];
};

void hist_init(struct hist *h);
void hist_add(struct hist *h, uint64_t v);
void hist_merge(struct hist *dst, const struct hist *src);
/* Value at quantile q in [0,1]; exact for min and max, else the bucket
 * midpoint clamped to [min, max].  0 when empty, or when h is NULL (a
 * histogram that could not be allocated). */
uint64_t hist_quantile(const struct hist *h, double q);

/* Values at or below v, to a bucket: a bucket counts when its midpoint is
 * (Prometheus buckets' "le", ~3% off at their edges).  0 for NULL. */
uint64_t hist_count_le(const struct hist *h, uint64_t v);

#endif
