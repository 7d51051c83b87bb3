/* format.h - names and timestamps as every output writes them: the text
 * and JSON reports, the store, dump and trace share these. */
#ifndef PGRTT_FORMAT_H
#define PGRTT_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "attrib/attrib.h"
#include "proto/figure.h"

/* "ssl", "gssapi", "direct-tls", "tls" (recognised mid-stream), or NULL. */
const char *tls_name(uint8_t tls);

/* "2026-11-30T09:41:02.123456789Z" from nanoseconds since the epoch (UTC). */
void ts_format(char *buf, size_t cap, uint64_t ts_ns);

/* How a route's figures were obtained, from its pages' kinds joined by '+':
 * "exact" (alone in time), "aggregate" (overlapping pages of the route
 * only), "estimated" (overlapping pages of other routes: attrib.c's
 * inference); "none" without pages. */
const char *route_attribution(const struct attrib_route *r);
/* Distinct PostgreSQL connections per page, over its pages that were not
 * estimated; NAN when all were. */
double route_conns_per_page(const struct attrib_route *r);
/* Of its round trips, the share inference gave it (0 .. 1). */
double route_inferred_share(const struct attrib_route *r);
/* A 95% interval of its round trips per page under the inference: the
 * mean +- 1.96 standard deviations of the inferred part (docs/pages.md). */
void route_interval(const struct attrib_route *r, double *lo, double *hi);
/* A page figure's count (figure.h) of a route's commands, its total over
 * the route's pages. */
double route_page_count(const struct attrib_route *r, enum page_count c);
/* Its 95% interval per page; false (NAN) where there is none: not
 * estimated (attrib.h cmd_interval).  The fit is of the commands; the
 * other counts go with them, as many per command as the route had. */
bool route_page_interval(const struct attrib_route *r, enum page_count c, double iv[2]);

#endif
