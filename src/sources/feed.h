/* feed.h - a source's packets into an analysis. */
#ifndef PGRTT_FEED_H
#define PGRTT_FEED_H

#include "engine/analysis.h"
#include "source.h"

struct feed {
	struct analysis *a;
	int dlt; /* the source's link type */
};

/* source_dispatch's callback: ctx is a struct feed. */
void feed_analysis(void *ctx, const struct source_packet *p);

#endif
