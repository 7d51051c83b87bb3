/* timing.c - a run's phases, with PGRTT_TIMING=1 (timing.h). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "timing.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TIMING_MARKS 32

bool timing_on;

struct mark {
	const char *phase;
	uint64_t ns;
};

static struct mark marks[TIMING_MARKS];
static atomic_uint nmarks;

uint64_t timing_now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

void timing_start(void)
{
	const char *v = getenv("PGRTT_TIMING");
	timing_on = v && *v && strcmp(v, "0") != 0;
	atomic_store(&nmarks, 0);
	timing_mark("start");
}

void timing_mark_(const char *phase)
{
	unsigned i = atomic_fetch_add(&nmarks, 1);
	if (i < TIMING_MARKS) {
		marks[i].phase = phase;
		marks[i].ns = timing_now_ns();
	}
}

void timing_report(FILE *f, const char *cmd)
{
	if (!timing_on)
		return;
	unsigned n = atomic_load(&nmarks);
	n = n < TIMING_MARKS ? n : TIMING_MARKS;
	if (n < 2)
		return;
	/* marks from two threads can land out of order by a hair: by time */
	for (unsigned i = 1; i < n; i++)
		for (unsigned j = i; j > 0 && marks[j].ns < marks[j - 1].ns; j--) {
			struct mark t = marks[j];
			marks[j] = marks[j - 1];
			marks[j - 1] = t;
		}
	fprintf(f, "pgrtt: %s: timing:", cmd);
	for (unsigned i = 1; i < n; i++)
		fprintf(f, "%s %s %.3f", i > 1 ? "," : "", marks[i].phase,
			(double)(marks[i].ns - marks[i - 1].ns) / 1e6);
	fprintf(f, " (%.3f ms in all)\n", (double)(marks[n - 1].ns - marks[0].ns) / 1e6);
}
