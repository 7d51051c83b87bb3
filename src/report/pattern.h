/* pattern.h - a stored run's pool pattern, named from what it put on the
 * wire (docs/pools.md): which pings, on which side of a checkout, and what
 * else a checkout costs. */
#ifndef PGRTT_PATTERN_H
#define PGRTT_PATTERN_H

#include <stddef.h>

#include "store/store.h"

/* "sqlx: lone Sync on acquire and release (sqlx's pool)", "SELECT 1 on
 * acquire, transaction control", "no pings"; "" for a run without
 * queries.  Written into buf (cap bytes), which is returned. */
const char *run_pattern(const struct run_figures *f, char *buf, size_t cap);

#endif
