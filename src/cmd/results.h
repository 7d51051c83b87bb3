/* results.h - storing and reporting a finished analysis (analyze, capture). */
#ifndef PGRTT_RESULTS_H
#define PGRTT_RESULTS_H

#include <cjson/cJSON.h>
#include <stdbool.h>

#include "cli/opts.h"
#include "engine/analysis.h"
#include "report/report.h"
#include "store/store.h"



/* store_open for a command: NULL after printing "pgrtt: CMD: PATH: why". */
struct store *open_db(const char *path, enum store_mode mode);

/* A --db value as messages show it: a PostgreSQL URI's or key=value
 * string's password as "***" (the password itself is never printed). */
const char *store_shown(const char *db);

/* Open the database (and start the run when round trips are stored as they
 * come; ao gets the callback).  Returns 0, or -1 after printing why. */
int results_begin(const struct db_opts *dbo, struct store **st, struct analysis_opts *ao);

/* Store the run (if st), warn about what the figures cannot vouch for,
 * print the report in format to out (opened by the caller; when NULL,
 * output is opened here) and close it.  Returns rc, or EXIT_ERROR when
 * something failed. */
int results_finish(struct analysis *a, struct store *st, const struct db_opts *dbo,
		   const char *source, const struct report_input *in, const char *format,
		   const char *output, FILE *out, int rc);

#endif
