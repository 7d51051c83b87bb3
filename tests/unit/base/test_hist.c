/* test_hist.c - quantiles stay within the bucket precision. */
#include "base/hist.h"
#include "tinytest.h"

static void test_quantiles(void)
{
	struct hist h;
	hist_init(&h);
	CHECK_EQ_U(hist_quantile(&h, 0.5), 0);
	for (uint64_t v = 1; v <= 100000; v++)
		hist_add(&h, v * 1000); /* 1 us .. 100 ms */
	uint64_t p50 = hist_quantile(&h, 0.5), p99 = hist_quantile(&h, 0.99);
	CHECK(p50 > 50000000ull * 97 / 100 && p50 < 50000000ull * 103 / 100);
	CHECK(p99 > 99000000ull * 97 / 100 && p99 <= 100000000ull);
	CHECK_EQ_U(hist_quantile(&h, 1.0), 100000000ull);
	CHECK_EQ_U(hist_quantile(&h, 0.0), 1000);
	struct hist g;
	hist_init(&g);
	hist_add(&g, 7);
	hist_merge(&g, &h);
	CHECK_EQ_U(g.count, 100001);
	CHECK_EQ_U(hist_quantile(&g, 0.0), 7);
	hist_add(&g, UINT64_MAX);
	CHECK_EQ_U(hist_quantile(&g, 1.0), UINT64_MAX);
}

int main(void)
{
	RUN(test_quantiles);
	return TT_EXIT();
}
