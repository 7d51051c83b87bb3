/* commands.h - subcommands and the options they share.
 *
 * A command is a struct command: main.c opens every one the same way -
 * its options parsed (its groups, its formats, its own), --help answered,
 * a usage error's exit, its own state made and freed - and its run gets
 * the parsed options.  A new command is a file with its struct command
 * and a line in main.c's table. */
#ifndef PGRTT_COMMANDS_H
#define PGRTT_COMMANDS_H

#include <stdbool.h>
#include <stdint.h>

#include "cli/opts.h"
#include "engine/analysis.h"

#include <stdio.h>

struct command {
	const char *name;
	const char *summary;         /* its line in pgrtt --help */
	void (*help)(FILE *out);     /* pgrtt NAME --help */
	unsigned groups;             /* the shared option groups it takes (opts.h) */
	const char *const *formats;  /* -F's names, the first the default; with OPTG_FORMAT */
	const struct opt_extra *own; /* its own options, or NULL */
	opt_extra_fn *own_opt;       /* their handler, given the state */
	/* positional arguments besides the groups': NULL when they are its
	 * own (o->rest), else unexpected, said with this after the word */
	const char *rest_hint;
	size_t state_size;           /* its own state, zeroed; 0: none */
	/* the state's defaults before the options, or NULL */
	void (*init)(void *state, struct cmd_opts *o);
	int (*run)(const struct cmd_opts *o, void *state);
};

extern const struct command cmd_analyze, cmd_capture, cmd_dump, cmd_trace, cmd_runs, cmd_audit,
	cmd_report, cmd_bench;


struct report_input;
struct source_packet;


/* Say on stderr what the figures cannot vouch for (evidence.h); in may be
 * NULL.  In results.c, beside storing and reporting. */
void warn_evidence(const struct analysis *a, const struct report_input *in);

/* Initialise a with ao (ports taken from ro), read every file into it and
 * finish it.  Prints one warning line per problem.  Returns EXIT_OK,
 * EXIT_PARTIAL or EXIT_ERROR; *partial when only some input was read. */
int run_analysis(const struct read_opts *ro, struct analysis_opts *ao, struct analysis *a,
		 bool *partial);

#endif
