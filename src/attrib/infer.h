/* infer.h - which route's page a round trip came from, when pages of
 * several routes held it (attrib.c calls this; docs/pages.md).
 *
 * The model: a page of route r runs beta(r, f) round trips of feature f (a
 * statement by its fingerprint, a class, a ping tied to the statement it
 * follows), spread evenly over its window.  A round trip of feature f that
 * candidate pages p held came from p with probability proportional to
 * beta(route(p), f) / |p|.
 * Round trips that only pages of one route held are certain and count as
 * such; the others are kept (a bounded uniform sample) and, at the end,
 * EM finds the beta that make the whole capture likeliest.  A route's
 * share of a feature that the likelihood hardly supports is taken out
 * (BIC) or marked doubtful (select_routes).  Each route's figure for
 * feature f is then what the certain round trips gave it plus its share
 * of all of f's uncertain ones; a jackknife over eight parts of the sample
 * gives the figure's standard error, and the fits under other densities
 * and with the doubtful shares widen the interval.  What came later can
 * narrow a kept round trip's candidates (infer_narrow: the pages that held
 * its whole checkout, attrib.c).
 *
 * While the capture runs, infer_weigh gives the current guess, so that
 * pages (trace, live) have figures; infer_solve corrects the routes' sums
 * for the difference.  Memory: routes x features, plus the sample. */
#ifndef PGRTT_INFER_H
#define PGRTT_INFER_H

#include <stdbool.h>
#include <stdint.h>

#define INFER_CANDS 24        /* routes among a round trip's candidates, per record */
#define INFER_SAMPLE (1u << 14) /* uncertain round trips kept for the fit */
#define INFER_FEATURES 256
#define INFER_NONE 0xffff
#define INFER_LOCK_ROUTES 64 /* routes whose pages' order is followed (lockstep) */

struct infer_cand {
	uint16_t route;
	uint16_t pages; /* of the route among the candidates */
	float w;        /* their densities summed: 1 / each page's length */
};

/* The model's density, a page's length to the power -gamma: 1 is the
 * estimate; the others tell how much it hangs on that choice. */
#define INFER_MODELS 3
#define INFER_GAMMAS {1.0, 0.75, 1.33}

/* A kept round trip.  The sample holds records of one size, room for
 * struct infer's rec_cap candidates (4 to INFER_CANDS, grown when one
 * needs more): with few routes a record is 40 bytes, not 200, and the
 * sample's pages are what the placing thread faults in and the fit reads. */
struct infer_rec {
	uint32_t id; /* the round trip's number among those offered (infer_narrow) */
	uint16_t feat;
	uint8_t n;
	struct infer_cand c[]; /* rec_cap of them */
};

/* Per route: what is known of it, by feature */
struct infer_route {
	double pages;
	double expo[INFER_MODELS]; /* per model: what its pages expose, sum of len^(1 - gamma) */
	double *certain; /* INFER_FEATURES: round trips only its pages held (after infer_solve) */
	double *given;   /* INFER_FEATURES: what infer_weigh gave it (after infer_solve) */
	double *beta;    /* INFER_FEATURES: round trips per page (the fit) */
	double *final;   /* INFER_FEATURES: after infer_solve, its total */
	double var;              /* after infer_solve: variance of its total (all features) */
	double shift_lo, shift_hi; /* after infer_solve: its total under the other models, less
				    * under this one (<= 0, >= 0); on a sample too small
				    * for that, the bounds: none or all of possible */
	double possible; /* uncertain round trips its pages were among the candidates of */
	/* after infer_solve, bits by feature: the capture is likelier with this
	 * route not running it (off: its rate is held at 0), or the evidence
	 * that it does is not very strong (doubt: the interval spans the fit
	 * without it) - infer.c's select_routes */
	uint64_t off[INFER_FEATURES / 64], doubt[INFER_FEATURES / 64];
	/* after infer_solve: of its total, what is in features whose runner
	 * the capture cannot tell (struct infer's vague), and what more their
	 * records could have given it (the interval spans both) */
	double vague_share, vague_more;
	/* after infer_solve: of its total, what is in features it shares with
	 * a route it starts in lockstep with, and what more of them that
	 * route's share could be (the interval spans both: lock_bounds) */
	double lock_share, lock_more;
	/* after infer_solve: of its total, its shares the capture saw only
	 * beside the feature's largest route, and what more of others' shares
	 * seen so could be its (the interval spans both: alike_bounds) */
	double alike_share, alike_more;
};

struct infer_feature {
	uint16_t tied; /* INFER_NONE, or the feature whose page it shares */
	double uncertain; /* round trips of it that pages of several routes held */
};

struct infer {
	struct infer_route *routes;
	uint32_t nroutes, cap_routes;
	struct infer_feature feats[INFER_FEATURES];
	uint64_t tied[INFER_FEATURES / 64]; /* bits: the features tied to another (infer_tie) */
	/* over all routes: certain + given per feature, and pages (rates while
	 * the capture runs, without a pass over the routes per round trip) */
	double feat_sum[INFER_FEATURES], pages_total;
	/* while the capture runs, each route's certain and given by feature,
	 * then route (cells[2 * (f * cell_stride + r)] and the next): a round
	 * trip's candidates' rates lie in one row, not in each route's arrays
	 * 8 KiB apart (infer_weigh missed the cache twice per candidate route);
	 * infer_solve copies them into the routes' certain[] and given[] */
	double *cells;
	uint32_t cell_stride;
	unsigned char *sample; /* INFER_SAMPLE records of rec_size bytes (infer.c's rec_at) */
	uint32_t nsample;
	uint32_t rec_cap, rec_size; /* a record's room for candidates, its size */
	uint32_t npairs; /* infer_solve: the sample's candidates, all its records' (the fit's room) */
	uint64_t seen; /* uncertain round trips offered to the sample */
	/* memory ran out: a route or a round trip went unlearnt, or the fit
	 * (infer_solve) did not run - the running guess stands - or its
	 * interval's fits did not (the interval is then what the routes could
	 * have had, as on a small sample); the out-of-memory finding */
	bool short_of_memory;
	/* after infer_solve, bits by feature: its round trips fit several
	 * routes' pages about as well, the largest's too (the capture cannot
	 * tell which route runs it: lockstep load, where one route's pages
	 * start as another's do); the interval spans each route's none to all
	 * of them it could have held */
	uint64_t vague[INFER_FEATURES / 64];
	double vague_rts; /* the uncertain round trips of those features, tied ones in */
	/* Lockstep: at each start of a page of route b, the pages of route a
	 * in flight (beside[a * INFER_LOCK_ROUTES + b]; routes below
	 * INFER_LOCK_ROUTES), the starts by route, and, after infer_solve,
	 * bit b of lock[a]: b's pages start beside more of a's than other
	 * pages do (or a's beside b's) - one of a's pages leads each of b's,
	 * as a load tool cycling through paths in a fixed order (wrk's
	 * request()) or a browser fetching the same API after each page makes
	 * them.  Then a's and b's pages are among the candidates of each
	 * other's round trips alike, and which one ran them rests on the
	 * density alone: the figures can be far off, a note says so, and the
	 * intervals span the statements the fit split between them
	 * (lock_bounds; docs/pages.md; calling such shares doubtful was tried
	 * and not kept). */
	double *beside;
	double started[INFER_LOCK_ROUTES];
	uint64_t lock[INFER_LOCK_ROUTES];
	uint64_t rng;
	bool solved;
	uint32_t threads; /* the fit's (infer_solve): 2, or 1 */
	bool whole; /* never freeze a cell (infer.c's FREEZE): the tests' reference */
	uint64_t thinned; /* after infer_solve: block steps that read only unfrozen cells (the caller's thread) */
};

void infer_init(struct infer *in);
void infer_free(struct infer *in);

/* Feature f of route r: the arrays exist (false: out of memory). */
bool infer_route(struct infer *in, uint32_t r);

/* A feature's page is the page of another (a ping tied to its query). */
void infer_tie(struct infer *in, uint32_t f, uint32_t to);

/* A round trip of feature f that only pages of route r held, weight w (1,
 * or a share of pages of r). */
void infer_certain(struct infer *in, uint32_t r, uint32_t f, double w);

/* A round trip of a tied feature f held by pages of several routes, given
 * to route r with weight w (once per candidate; uncertain counts it once
 * when first is set). */
void infer_tied(struct infer *in, uint32_t r, uint32_t f, double w, bool first);

/* A round trip of feature f held by pages of several routes: cands[0..n).
 * Writes each candidate's probability into p[] (sums to 1), remembers it
 * for the fit and adds p to the routes' given sums.  Returns a handle on
 * what the fit will see of it (0: nothing, it is not in the sample). */
uint64_t infer_weigh(struct infer *in, uint32_t f, const struct infer_cand *cands, uint32_t n,
		     double *p);

/* What came after it showed that only pages cands[0..n) can have held
 * the round trip of that handle (a subset of its candidates): the fit
 * sees those.  A handle whose record the sample has since let go of is
 * ignored. */
void infer_narrow(struct infer *in, uint64_t handle, const struct infer_cand *cands, uint32_t n);

/* A route's page closed, len_ns long: it counts towards its rates. */
void infer_page(struct infer *in, uint32_t r, uint64_t len_ns);

/* The same page in each of n fits (the statements' and the Redis
 * commands'): what its length puts in each computed once. */
void infer_page_in(struct infer *const *in, uint32_t n, uint32_t r, uint64_t len_ns);

/* A page of route b started beside a page of route a still in flight
 * (once per such page), and a page of route b started (after its pairs):
 * for the lockstep test. */
static inline void infer_started_beside(struct infer *in, uint32_t a, uint32_t b)
{
	if (in->beside && a < INFER_LOCK_ROUTES && b < INFER_LOCK_ROUTES)
		in->beside[a * INFER_LOCK_ROUTES + b] += 1;
}
void infer_page_start(struct infer *in, uint32_t b);

/* The fit (idempotent): fills final[] and var. */
void infer_solve(struct infer *in);

#endif
