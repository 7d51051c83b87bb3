/* cli.h - exit codes, diagnostics and option helpers shared by commands. */
#ifndef PGRTT_CLI_H
#define PGRTT_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "base/about.h"
#include "base/paths.h"

/* Exit codes (docs/CLI.md, pgrtt(1)). */
enum pgrtt_exit {
	EXIT_OK = 0,       /* success */
	EXIT_FAILED = 1,   /* a checked rule failed (pgrtt audit) */
	EXIT_ERROR = 2,    /* input unusable or runtime error: nothing analysed */
	EXIT_PARTIAL = 3,  /* an input ended early or could not be read to the end;
			      results cover what was read */
	EXIT_USAGE = 64,   /* bad command line (EX_USAGE) */
};

extern const char *pgrtt_cmd; /* "analyze", ... for messages */

void warnx_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Parse a port number 1..65535; false on anything else. */
bool parse_port(const char *s, uint16_t *out);


#include <stdio.h>

/* stdout, or path opened for writing; NULL after a one-line error. */
FILE *output_open(const char *path);

struct textring;
#define STATEMENT_SHOWN 300 /* bytes of a statement's text on a line */

/* A round trip's statement for dump --round-trips and trace: two spaces,
 * then its text in quotes, escaped for a terminal (normalised unless
 * --show-values made the ring hold it as sent), " (+N more)" when it ran
 * several; nothing for a round trip without one. */
void print_statement(FILE *out, const struct textring *t, uint64_t text, uint32_t stmts);


/* Flush and close what output_open gave; returns rc, or EXIT_ERROR after a
 * one-line error when the writes failed. */
int output_close(FILE *out, const char *path, int rc);

#endif
