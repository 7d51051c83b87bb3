/* commands.h - subcommands and the options they share. */
#ifndef PGRTT_COMMANDS_H
#define PGRTT_COMMANDS_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis.h"

int cmd_analyze(int argc, char **argv);
int cmd_dump(int argc, char **argv);

/* Options common to commands that read captures. */
struct read_opts {
	char **files;
	int nfiles;
	const char *filter;
	uint16_t ports[ANALYSIS_MAX_PORTS];
	int nports;
	bool progress;
};

/* Read every file into a (already initialised).  Prints one warning line per
 * problem.  Returns EXIT_OK, EXIT_PARTIAL or EXIT_ERROR. */
void warn_damage(const struct analysis *a);

int read_captures(const struct read_opts *ro, struct analysis *a, bool *partial);

#endif
