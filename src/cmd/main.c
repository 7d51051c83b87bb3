/* main.c - pgrtt: PostgreSQL round trips, counted on the wire.
 * Dispatches argv[1] to a subcommand; nothing else. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "commands.h"

static const struct command *const cmds[] = {
	&cmd_analyze, &cmd_capture, &cmd_dump,   &cmd_trace,
	&cmd_runs,    &cmd_audit,   &cmd_report, &cmd_bench,
};

static void help(FILE *out)
{
	fprintf(out, "Usage: pgrtt COMMAND [OPTIONS] [ARGS]\n"
		     "\n"
		     "Watch PostgreSQL traffic on the wire and count the round trips an\n"
		     "application makes to the database, and what each one is for.\n"
		     "\n"
		     "Commands:\n");
	for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
		fprintf(out, "  %-10s %s\n", cmds[i]->name, cmds[i]->summary);
	fprintf(out, "\n"
		     "Options:\n"
		     "  -h, --help     show this help ('pgrtt COMMAND --help' for a command)\n"
		     "  -V, --version  show version, git hash, build date and architecture\n"
		     "\n"
		     "See pgrtt(1) and docs/ for details.\n");
}

/* Edits (insert, delete, change, swap two neighbours) from a to b, at
 * most 3 counted: enough to tell a typo from another word. */
static int edits(const char *a, const char *b)
{
	size_t n = strlen(a), m = strlen(b);
	if (n > 32 || m > 32)
		return 3;
	int d[33][33];
	for (size_t i = 0; i <= n; i++)
		for (size_t j = 0; j <= m; j++) {
			if (i == 0 || j == 0) {
				d[i][j] = (int)(i + j);
				continue;
			}
			int best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			best = d[i - 1][j] + 1 < best ? d[i - 1][j] + 1 : best;
			best = d[i][j - 1] + 1 < best ? d[i][j - 1] + 1 : best;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[n][m] < 3 ? d[n][m] : 3;
}

/* The command a mistyped one meant ("analyse", "run", "reprot"), or NULL:
 * the nearest within two edits, or the one it begins. */
static const char *meant(const char *c)
{
	const char *best = NULL;
	int least = 3;
	for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
		int e = edits(c, cmds[i]->name);
		if (strlen(c) >= 3 && strncmp(c, cmds[i]->name, strlen(c)) == 0)
			e = 1;
		if (e < least && (size_t)e * 2 <= strlen(cmds[i]->name)) {
			least = e;
			best = cmds[i]->name;
		}
	}
	return best;
}

/* A command opened as every command is: its options, its --help, its
 * usage errors (exit 64), its state; then its run. */
static int command_main(const struct command *c, int argc, char **argv)
{
	static struct cmd_opts co;
	void *state = NULL;
	if (c->state_size && !(state = calloc(1, c->state_size))) {
		warnx_("out of memory");
		return EXIT_ERROR;
	}
	if (c->init)
		c->init(state, &co);
	int rc = opts_parse(argc, argv, c->groups, c->formats, c->own, c->own_opt, state, &co);
	if (rc > 0) {
		c->help(stdout);
		rc = EXIT_OK;
	} else if (rc < 0) {
		rc = EXIT_USAGE;
	} else if (c->rest_hint && co.nrest) {
		usage_error("unexpected \"%s\"%s", co.rest[0], c->rest_hint);
		rc = EXIT_USAGE;
	} else {
		rc = c->run(&co, state);
	}
	free(state);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		help(stderr);
		return EXIT_USAGE;
	}
	const char *c = argv[1];
	if (strcmp(c, "-h") == 0 || strcmp(c, "--help") == 0 || strcmp(c, "help") == 0) {
		help(stdout);
		return EXIT_OK;
	}
	if (strcmp(c, "-V") == 0 || strcmp(c, "--version") == 0 || strcmp(c, "version") == 0) {
		printf("%s\n", pgrtt_version_string());
		return EXIT_OK;
	}
	for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
		if (strcmp(c, cmds[i]->name) == 0) {
			pgrtt_cmd = cmds[i]->name;
			return command_main(cmds[i], argc - 1, argv + 1);
		}
	}
	const char *m = meant(c);
	if (m)
		usage_error("unknown command \"%s\"; did you mean \"%s\"?", c, m);
	else
		usage_error("unknown command \"%s\"", c);
	return EXIT_USAGE;
}
