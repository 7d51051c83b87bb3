/* commands.h - subcommands and the options they share. */
#ifndef PGRTT_COMMANDS_H
#define PGRTT_COMMANDS_H

#include <stdbool.h>
#include <stdint.h>

#include "cli/opts.h"
#include "engine/analysis.h"

int cmd_analyze(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_runs(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_capture(int argc, char **argv);
int cmd_audit(int argc, char **argv);
int cmd_bench(int argc, char **argv);


struct report_input;
struct source_packet;

/* A source's packets into an analysis (source_dispatch's callback). */
struct feed {
	struct analysis *a;
	int dlt;
};
void feed_analysis(void *ctx, const struct source_packet *p);

/* Say on stderr what the figures cannot vouch for (evidence.h); in may be
 * NULL.  In results.c, beside storing and reporting. */
void warn_evidence(const struct analysis *a, const struct report_input *in);

/* Initialise a with ao (ports taken from ro), read every file into it and
 * finish it.  Prints one warning line per problem.  Returns EXIT_OK,
 * EXIT_PARTIAL or EXIT_ERROR; *partial when only some input was read. */
int run_analysis(const struct read_opts *ro, struct analysis_opts *ao, struct analysis *a,
		 bool *partial);

#endif
