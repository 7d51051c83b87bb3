/* timing.h - where a run's time went, phase by phase (PGRTT_TIMING=1).
 *
 * For the benchmark scripts and whoever profiles a slow capture: the
 * reading, placing what the reading left, the fit's steps and the report,
 * each as the milliseconds since the mark before it.  Marks come from
 * several threads (the reading, the placing thread, the fit's), in the
 * order the work is done.  Off (the default), a mark is a test of a flag. */
#ifndef PGRTT_TIMING_H
#define PGRTT_TIMING_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

extern bool timing_on;

/* Reads PGRTT_TIMING; the first mark ("start") is now. */
void timing_start(void);

/* The phase that ends now (a string literal: kept by reference). */
void timing_mark_(const char *phase);
static inline void timing_mark(const char *phase)
{
	if (timing_on)
		timing_mark_(phase);
}

/* CLOCK_MONOTONIC in nanoseconds (the marks', and a busy wait's clock) */
uint64_t timing_now_ns(void);

/* One line on f: "timing: PHASE MS, ... (TOTAL ms in all)", or nothing. */
void timing_report(FILE *f, const char *cmd);

#endif
