/* stored_report.h - pgrtt report's page: stored runs (their totals, by
 * class) and their routes (round trips per page), or two runs compared.
 * cmd_report.c reads the store into a struct stored_report; one writer per
 * format (stored_md.c, stored_csv.c, stored_json.c, stored_html.c) prints
 * it.  Writers print to the FILE they are given and nothing else. */
#ifndef PGRTT_STORED_REPORT_H
#define PGRTT_STORED_REPORT_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "store/store.h"

/* What a round trip was, as reports split bars and columns: every class
 * its own colour, pings by role. */
enum report_seg {
	SEG_QUERY,
	SEG_ACQUIRE,
	SEG_RELEASE,
	SEG_IDLE, /* pings neither before nor after a query: idle checks, keepalives */
	SEG_TX,   /* BEGIN, COMMIT, ROLLBACK, SAVEPOINT */
	SEG_RESET,
	SEG_PREPARE,
	SEG_OTHER, /* startups, closes, copies, function calls, the rest */
	SEG_N
};
extern const char *const seg_name[SEG_N]; /* "queries", "acquire pings", ... */
extern const char *const seg_key[SEG_N];  /* "query", "ping_acquire", ...: JSON keys, CSS classes */

/* A run's round trips by segment, each divided by per (1: counts). */
void run_segments(const struct run_figures *f, double per, double out[SEG_N]);
/* A route's round trips per page by segment. */
void route_segments(const struct route_figures *r, double out[SEG_N]);

/* A run's rates: NAN where the denominator is 0 (not measured, not 0). */
struct run_rates {
	double per_query;       /* round trips per query */
	double pings_per_100q;  /* pings per 100 queries */
	double startups_per_1k; /* startups per 1,000 round trips */
};
void run_rates(const struct run_figures *f, struct run_rates *out);
/* A run's round trips: NAN where nothing was measured (a fatal finding). */
double run_round_trips(const struct run_figures *f);

/* How a route's figure was obtained, with an estimate's inferred share
 * and 95% interval: "estimated (98% inferred; 95% 9.06-12.21)". */
const char *route_how(const struct route_figures *x, char *buf, size_t cap);

/* "app (labels) #N" */
void stored_run_name(char *buf, size_t cap, int64_t run, const char *app, const char *labels);

/* A run missing from the routes section, and why. */
struct left_out {
	int64_t run;
	char why[128];
};

/* A route of --compare's two runs: a, b or both. */
struct cmp_route {
	const char *route;
	const struct route_figures *a, *b; /* NULL: not in that run (added, removed) */
};

/* The runs left out, those of one reason together: "runs 1, 2 and 5:
 * stored without --http-port; run 3: ...", each text through esc. */
void stored_left_out(FILE *out, const struct left_out *left, int n,
		     void (*esc)(FILE *, const char *));

/* A compared route's status: "both", "added", "removed", or "unmeasured"
 * when the run it is missing from was stored without --http-port. */
const char *cmp_status(const struct cmp_route *c, const struct run_figures *a,
		       const struct run_figures *b);

enum stored_table { TABLE_BOTH, TABLE_RUNS, TABLE_ROUTES }; /* csv prints one */

struct stored_report {
	const struct run_figures *runs;
	int nruns;
	const struct route_figures *rows; /* by route, app, run */
	int nrows;
	const struct left_out *left;
	int nleft;
	bool any_http; /* a run was stored with --http-port: the routes section is there */
	/* --compare A B: */
	const struct run_figures *ra, *rb;
	const struct cmp_route *cmp;
	int ncmp;
	enum stored_table table;
};

/* Page figure i (analysis_page_figure's numbers) as a column of the
 * routes' tables: stored, and measured in one of the rows at least. */
bool stored_page_column(const struct stored_report *r, int i);

/* Kept total i of other protocols (analysis_run_figure's numbers) as a
 * column of the runs' tables: measured in one of the runs at least. */
bool stored_run_column(const struct stored_report *r, int i);
/* Its key in JSON and CSV: "redis_round_trips" (NAME_COLUMN). */
void stored_run_key(char *buf, size_t cap, int i);

void stored_md(FILE *out, const struct stored_report *r);
void stored_csv(FILE *out, const struct stored_report *r);
int stored_json(FILE *out, const struct stored_report *r); /* -1: out of memory */
void stored_html(FILE *out, const struct stored_report *r);

/* A horizontal stacked bar chart in inline SVG (stored_svg.c): one bar
 * per item, split by segment, on a scale from 0 to max with ticks and
 * the axis's unit. */
struct svg_bar {
	char label[300];    /* escaped here */
	char sublabel[160]; /* under the label, muted: the pool pattern; "" none */
	double seg[SEG_N];
	const char *missing; /* not NULL: no bar, this said instead */
};
void svg_bar_chart(FILE *out, const char *title, const char *axis, const struct svg_bar *bars,
		   int n, double max, int label_w);
/* The label column svg_bar_chart needs for bars (charts meant to line up
 * pass the widest of theirs as label_w; 0: each its own). */
int svg_label_width(const struct svg_bar *bars, int n);

/* Space-separated evidence codes (as the store keeps them) as a JSON array
 * under key. */
void json_add_codes(cJSON *o, const char *key, const char *codes);

#endif
