/* route_learn.h - path segments that many values take under one route
 * prefix are parameters, learnt from the requests: "GET /tags/rust",
 * "GET /tags/go" and fourteen more are "GET /tags/{slug}".
 *
 * route.c collapses what its shape gives away (integers, UUIDs, hex, slugs
 * with digits); a tag's or an article's slug of words alone ("rust",
 * "hello-world") looks like any fixed segment.  Left apart, a blog's 30
 * tags were 30 routes of 50 pages each, every one estimated among the
 * others with the same statements (0.00-90 round trips a page: nothing).
 * So a segment that takes `threshold` distinct values in requests of the
 * same method, the same number of segments and the same (learnt) segments
 * before it is a parameter from then on.  The first segment never is: a
 * site's fixed pages (/about, /login, /pricing) sit there.  The price: an
 * API with that many fixed resources under one prefix (/api/v1/users,
 * /api/v1/orders, ...) reads as one route - analysis notes every segment
 * it took for a parameter (routes-learnt), --route names routes outright
 * and --route-values 0 turns learning off.
 *
 * Names in, names out: the input is route.c's route ("GET /tags/rust"),
 * the output that route with the learnt parameters.  Memory is fixed:
 * ROUTE_LEARN_SLOTS positions, each holding at most `threshold` value
 * hashes. */
#ifndef PGRTT_ROUTE_LEARN_H
#define PGRTT_ROUTE_LEARN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "route.h"

#define ROUTE_LEARN_VALUES 16  /* the default threshold (--route-values) */
#define ROUTE_LEARN_MAX 64     /* the largest threshold */
#define ROUTE_LEARN_SLOTS 1024 /* positions watched: past half full, no new ones */
#define ROUTE_LEARN_NOTES 16   /* parameters described for the notes; the rest counted */
#define ROUTE_LEARN_EXAMPLES 3 /* values shown for each */
#define ROUTE_LEARN_EXAMPLE_MAX 24

struct route_learn_pos {
	uint64_t key; /* method, segments, position, learnt prefix; 0: free */
	uint16_t n;   /* distinct values seen, up to the threshold */
	bool param;
	uint64_t *seen; /* n value hashes (freed once a parameter) */
};

struct route_learn_note {
	char route[ROUTE_MAX]; /* "GET /tags/{slug}", "GET /users/{slug}/..." */
	/* values seen, printable ASCII only (others '?'), cut */
	char example[ROUTE_LEARN_EXAMPLES][ROUTE_LEARN_EXAMPLE_MAX + 1];
};

struct route_learn {
	uint32_t threshold;         /* 0: learning off */
	struct route_learn_pos *pos; /* ROUTE_LEARN_SLOTS, allocated on first use */
	uint32_t npos;
	uint32_t nparams;           /* segments taken for parameters */
	uint32_t pending;           /* positions with 2 or more values, not (yet) parameters */
	uint64_t full;              /* positions not watched: the table was half full */
	struct route_learn_note notes[ROUTE_LEARN_NOTES];
	bool nomem;
};

/* threshold: distinct values that make a parameter (2 .. ROUTE_LEARN_MAX),
 * or 0 for none. */
void route_learn_init(struct route_learn *l, uint32_t threshold);
void route_learn_free(struct route_learn *l);

/* A request's route (route.c's), counted, and named with the parameters
 * learnt (this request's counted) into out[0..cap): one walk for both.
 * Returns true when a segment of it became a parameter just now. */
bool route_learn_name(struct route_learn *l, const char *route, char *out, size_t cap);

/* route with the parameters learnt so far into out[0..cap). */
void route_learn_apply(const struct route_learn *l, const char *route, char *out, size_t cap);

#endif
