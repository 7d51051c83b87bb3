/* redis_text.h - Redis's lines in analyze's text report (redis_text.c). */
#ifndef PGRTT_REDIS_TEXT_H
#define PGRTT_REDIS_TEXT_H
#include <stdbool.h>
#include <stdio.h>

struct conn_summary;

/* The totals' lines; shared is the plug-in's struct redis_totals. */
void redis_text_totals(FILE *out, const void *shared);
/* A connection's row, the table's head before the first. */
void redis_text_connection(FILE *out, const struct conn_summary *c, bool first);

#endif
