/* report.h - render a finished analysis as text or JSON. */
#ifndef PGRTT_REPORT_H
#define PGRTT_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "engine/analysis.h"
#include "findings/format.h"
#include "sources/input.h"

void report_text(FILE *out, const struct analysis *a, const struct report_input *in);

/* Returns 0, or -1 when out of memory. */
int report_json(FILE *out, const struct analysis *a, const struct report_input *in);


#endif
