/* tinytest.h - the smallest test harness: CHECK records failures, each test
 * file lists its tests in main() with RUN. */
#ifndef TINYTEST_H
#define TINYTEST_H

#include <stdio.h>
#include <string.h>

static int tt_failures, tt_checks;

#define CHECK(cond)                                                                   \
	do {                                                                          \
		tt_checks++;                                                          \
		if (!(cond)) {                                                        \
			tt_failures++;                                                \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
		}                                                                     \
	} while (0)

#define CHECK_EQ_U(a, b)                                                              \
	do {                                                                          \
		unsigned long long va_ = (unsigned long long)(a), vb_ = (unsigned long long)(b); \
		tt_checks++;                                                          \
		if (va_ != vb_) {                                                     \
			tt_failures++;                                                \
			fprintf(stderr, "%s:%d: %s == %llu, expected %s == %llu\n", __FILE__, \
				__LINE__, #a, va_, #b, vb_);                          \
		}                                                                     \
	} while (0)

#define CHECK_STR(got, want)                                                          \
	do {                                                                          \
		const char *g_ = (got), *w_ = (want);                                 \
		tt_checks++;                                                          \
		if (strcmp(g_, w_) != 0) {                                            \
			tt_failures++;                                                \
			fprintf(stderr, "%s:%d: %s is \"%s\", expected \"%s\"\n", __FILE__,   \
				__LINE__, #got, g_, w_);                              \
		}                                                                     \
	} while (0)

#define RUN(fn)                                                                       \
	do {                                                                          \
		int before_ = tt_failures;                                            \
		fn();                                                                 \
		fprintf(stderr, "%s %s\n", tt_failures == before_ ? "ok  " : "FAIL", #fn); \
	} while (0)

#define TT_EXIT() (fprintf(stderr, "%d checks, %d failures\n", tt_checks, tt_failures), tt_failures ? 1 : 0)

#endif
