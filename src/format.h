/* format.h - names and timestamps as every output writes them: the text
 * and JSON reports, the store, dump and trace share these. */
#ifndef PGRTT_FORMAT_H
#define PGRTT_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "attrib.h"

/* "ssl", "gssapi", "direct-tls", "tls" (recognised mid-stream), or NULL. */
const char *tls_name(uint8_t tls);

/* "2026-11-30T09:41:02.123456789Z" from nanoseconds since the epoch (UTC). */
void ts_format(char *buf, size_t cap, uint64_t ts_ns);

/* How a route's figures were obtained: "exact", "aggregate", "exact+aggregate". */
const char *route_attribution(const struct attrib_route *r);

#endif
