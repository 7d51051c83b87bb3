/* figure.h - a protocol's figures, declared once for every output.
 *
 * PostgreSQL's round trips are every output's own columns.  Any other
 * protocol declares its figures here, in its struct proto_ops, and the
 * outputs loop over them, never naming it:
 *  - per page (page_figure): what pages wait on of it (Redis: its commands,
 *    RT_EVENT_COMMAND and FLIGHT): analyze's text and JSON, the store's
 *    routes and the reports read from it, audit's budgets (options, policy
 *    keys, rules) and its checks;
 *  - per connection and in the totals (conn_figure, struct proto_totals):
 *    analyze's JSON, the store's runs, the stored runs' reports, --metrics.
 *
 * A figure is one of the attribution's counts for the protocol's commands
 * (attrib.h's cmd_rts, cmd_flights, cmds), per page.  Missing evidence is
 * never 0: without the protocol's ports, or with none of its round trips
 * seen, every output says "not measured" (null, NULL, "-", a failed rule).
 */
#ifndef PGRTT_FIGURE_H
#define PGRTT_FIGURE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/hist.h"
#include "rt_class.h"

/* Which of the attribution's counts of commands a page figure is. */
enum page_count {
	PAGE_CMD_RTS,     /* round trips as the pages waited on them */
	PAGE_CMD_FLIGHTS, /* the server's flights (a pipeline shared by pages once) */
	PAGE_CMDS,        /* commands */
};

struct page_figure {
	const char *key;   /* JSON key, the store's routes column, CSV's column */
	const char *title; /* the stored reports' column ("Redis round trips / page") */
	const char *head;  /* analyze's text table's column, its width too */
	enum page_count count;
	/* JSON key of its 95% interval where pages of several routes held the
	 * commands (estimated), or NULL: not shown */
	const char *interval_key;
	/* read back with a stored run: its reports and audits (the store keeps
	 * every page figure, in its routes' column key) */
	bool reported;
	/* Its budget, or NULL: audit's --OPTION N (the policy file's key is
	 * OPTION with '_' for '-'), checked by the rule named rule, which
	 * speaks of what ("Redis round trips") per page. */
	const char *option, *rule, *what;
};

/* Enough for every registered protocol's page figures (a unit test holds
 * the registry to it): outputs keep a figure's values in arrays this long,
 * indexed as analysis_page_figure() numbers them. */
#define PAGE_FIGS_MAX 8

/* How a connection's figure adds up over connections. */
enum conn_sum { CONN_SUM_ADD, CONN_SUM_MAX };

/* A figure of each of a protocol's connections and of their totals: a
 * uint64_t in the protocol's figures (proto_closing.figures: Redis's
 * struct redis_stats).  analyze's JSON shows every one, in this order, per
 * connection and in the totals; the store, the stored reports and
 * Prometheus those that name themselves there. */
struct conn_figure {
	const char *key; /* JSON key */
	size_t at;       /* its offset in the figures */
	enum conn_sum sum;
	/* at is uint64_t[RT_NCLASS]: an object of the classes the protocol
	 * uses (proto_ops.class_used) */
	bool by_class;
	/* The run's total in the store's runs column NAME_COLUMN (NAME the
	 * protocol's), or NULL; title: its column in the stored runs'
	 * reports, or NULL. */
	const char *column, *title;
	/* Prometheus: the counter pgrtt_NAME_METRIC_total and its HELP, or NULL */
	const char *metric, *help;
};

/* Enough for every registered protocol's connection figures with a title
 * (a unit test holds the registry to it): a stored run keeps their totals
 * in arrays this long, indexed as analysis_run_figure() numbers them. */
#define RUN_FIGS_MAX 8

/* What every protocol but PostgreSQL (whose totals are its own) adds up
 * over its connections, the same way: the engine's outputs and findings
 * read it through proto_ops.totals. */
struct proto_totals {
	uint64_t packets, connections, mid_stream, tls, gaps, gap_bytes, malformed, skipped_bytes,
		resyncs;
	struct hist lat;                  /* every round trip's */
	struct hist lat_class[RT_NCLASS]; /* by class */
};

/* A key counted by name over a protocol's connections (Redis: its
 * commands, upper-cased, printable), as proto_ops.by_name lists them. */
struct name_count {
	const char *name;
	uint64_t n;
};
#define NAME_COUNTS_MAX 256 /* names listed at most; the rest are counted as one */

#endif
