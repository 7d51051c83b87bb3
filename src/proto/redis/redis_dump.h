/* redis_dump.h - pgrtt dump's lines for Redis (redis_dump.c). */
#ifndef PGRTT_REDIS_DUMP_H
#define PGRTT_REDIS_DUMP_H

#include "proto/proto.h"

/* Watch through opts (its struct redis_observers) and print through d. */
void redis_dump(void *opts, const struct dump_printer *d);

#endif
