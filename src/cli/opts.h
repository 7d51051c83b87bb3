/* opts.h - the command line, declared once.
 *
 * Options come in groups that mean the same in every command that takes
 * them (input, ports, pages, limits, store, output); a command names its
 * groups and adds its own options, and one getopt_long table is built from
 * both.  Numbers are range-checked here; every usage error is one line and
 * exit status 64 (EXIT_USAGE) in every command.
 */
#ifndef PGRTT_OPTS_H
#define PGRTT_OPTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "attrib/route.h"
#include "engine/analysis.h"

/* Options common to commands that read captures. */
struct read_opts {
	char **files;
	int nfiles;
	const char *filter;
	uint16_t ports[ANALYSIS_MAX_PORTS];
	int nports;
	uint16_t http_ports[ANALYSIS_MAX_PORTS];
	int nhttp_ports;
	struct proto_ports proto_ports[PROTO_N]; /* every other protocol's port_option */
	struct route_set *routes; /* --route patterns; never NULL after parsing */
	uint32_t route_values;    /* --route-values (analysis_opts') */
	uint64_t grace_ns;        /* --grace */
	uint64_t hold_ns;         /* --page-timeout (0: the default) */
	uint64_t max_buffer;      /* --max-buffer (0: the default) */
	bool progress;
	const char *tls_keylogs[8]; /* --tls-keylog FILE (OPTG_TLS) */
	int ntls_keylogs;
};

/* The analysis options the parsed ones say (ports, routes, pages, limits);
 * the rest of ao (callbacks, threads) is left as it is. */
void read_opts_to_analysis(const struct read_opts *ro, struct analysis_opts *ao);

/* --db, --app, --label, --store-round-trips */
struct db_opts {
	const char *db, *app;
	char *labels[64];
	int nlabels;
	bool round_trips;
};

enum opt_group {
	OPTG_FILES = 1 << 7,  /* FILE... (one at least), -r/--read */
	OPTG_INPUT = 1 << 0,  /* -f/--filter, --no-progress (also spelt --no-status) */
	OPTG_PORTS = 1 << 1,  /* -p/--port */
	OPTG_PAGES = 1 << 2,  /* --http-port, --route, --grace, --page-timeout */
	OPTG_LIMITS = 1 << 3, /* --max-buffer */
	OPTG_STORE = 1 << 4,  /* --db (written), --app, --label, --store-round-trips */
	OPTG_OUTPUT = 1 << 5, /* -o/--output */
	OPTG_FORMAT = 1 << 6, /* -F/--format, among the command's formats */
	OPTG_DB_READ = 1 << 8, /* --db (read) */
	OPTG_PROTO_PORTS = 1 << 9, /* each protocol's own port option but HTTP's
				    * (proto_ops.port_option: --redis-port) */
	OPTG_READ = 1 << 10,  /* -r/--read FILE without OPTG_FILES: among the positional
			       * arguments (audit: capture files, or --db) */
	OPTG_DB_PICK = 1 << 11, /* --app, --label: which stored run (audit) */
	OPTG_BUDGETS = 1 << 12, /* --max-...-per-page N of every page figure with a
				 * budget (figure.h's option: --max-redis-rt-per-page) */
	OPTG_TLS = 1 << 13,     /* --tls-keylog FILE: TLS connections read with its secrets */
};

/* An option of one command alone. */
struct opt_extra {
	const char *name; /* long name; a { NULL } entry ends the list */
	int short_name;   /* or 0 */
	bool arg;         /* takes a value */
	int id;           /* 1..999, handed back to the command's function */
};

/* The command's own options: return 0, or -1 after usage_error(). */
typedef int opt_extra_fn(void *ctx, int id, const char *arg);

struct cmd_opts {
	struct read_opts ro;
	struct db_opts db;
	const char *format; /* the first of the command's formats unless -F */
	const char *output; /* NULL: standard output */
	char **rest;        /* positional arguments when OPTG_FILES is not taken */
	int nrest;
	/* OPTG_BUDGETS: each page figure's budget, numbered as
	 * analysis_page_figure; -1 where none was given */
	double page_budget[PAGE_FIGS_MAX];
};

/* Parse argv.  formats: NULL-terminated names for -F (the first is the
 * default).  Returns 0, 1 when --help was asked for, -1 after a usage
 * error (printed). */
int opts_parse(int argc, char **argv, unsigned groups, const char *const *formats,
	       const struct opt_extra *extra, opt_extra_fn *fn, void *ctx, struct cmd_opts *o);

/* --help's lines for every protocol's own port option (OPTG_PROTO_PORTS:
 * its port_help, wrapped as the other options' are); and those options as
 * a usage line shows them, " [--redis-port PORT]", into buf. */
void opts_help_ports(FILE *out);
void opts_usage_ports(char *buf, size_t cap);

/* A number for flag in [min, max]; false after a usage error naming the
 * flag and what it takes ("seconds", "MiB, 1 to 1048576"...). */
bool opt_number(const char *flag, const char *arg, double min, double max, const char *what,
		double *out);

#endif
