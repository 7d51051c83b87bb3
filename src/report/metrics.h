/* metrics.h - what a live capture has counted so far, in Prometheus' text
 * exposition format (0.0.4), for capture --metrics: counters and gauges
 * with app, route, class and role labels.  Cardinality is bounded: at most
 * METRICS_ROUTES route values, the rest summed as route="other". */
#ifndef PGRTT_METRICS_H
#define PGRTT_METRICS_H

#include <stddef.h>

#include "engine/analysis.h"
#include "report.h"

#define METRICS_ROUTES 50 /* route label values, "other" included */

struct metrics_info {
	const char *app;                   /* --app, or NULL: label app="" */
	double elapsed;                    /* seconds since the capture started */
	const struct capture_drops *drops; /* pcap_stats so far */
};

/* The exposition, malloc'ed, *len its length; NULL when out of memory. */
char *metrics_render(const struct analysis *a, const struct metrics_info *mi, size_t *len);

#endif
