/* infer_select.c - which routes run a feature at all: each feature's
 * shares tested by BIC (infer_fit.h). */
#include "infer_fit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ----------------------------------------------------------------------
 * Which routes run a feature at all
 *
 * EM leaves every route among a feature's candidates some of it.  Where
 * one route's pages are in flight beside another's all the time, a route
 * can keep a share that the capture hardly supports (the model spreads a
 * page's round trips evenly; apps do not: a page's first query comes as
 * it starts).  Each such share is tested: the likelihood of the feature's
 * round trips (the sample's, scaled to all of them) with that route's rate
 * held at 0, against the best without.  Where the gain is under BIC's
 * price of a parameter (log(n) / 2) the route is taken not to run it; where
 * it is short of twice what Kass and Raftery call very strong evidence (a
 * BIC difference under 20, not 10: the model is not what apps do, and its
 * likelihood overstates what it knows - a difference just over 10 can give
 * a route another's statement, with an interval short of the truth) the
 * route is doubtful: the estimate
 * is the fit without it (a statement is one route's unless the capture
 * says otherwise plainly), and the interval spans the fit with it.  What
 * is tested is a route's share of the uncertain round trips: one that
 * surely ran some (a round trip only its pages held) keeps those, held
 * at that rate, not at 0 - a single such round trip was no proof of the
 * rest (at a capture's edges a page whose request came before it is not
 * seen, and its round trips can look another route's alone: a 0.4 s slice
 * of wrk's load gave a detail route a share of every index statement,
 * 11.58 (9.80-15.07) for 9).  The feature's largest is kept; and only
 * where it is surely one: where the capture cannot tell the routes apart (every round trip of
 * the feature held by pages of both, alike), none is taken out, and the
 * feature is vague: EM's split stands, but its routes' intervals span
 * none to all of it (fit_vague_bounds).  Features
 * are apart in the model: each is fitted on its own records, over the
 * routes among them.
 * ---------------------------------------------------------------------- */

#define SELECT_STEPS 100       /* extrapolated steps, three EM steps each */
#define SELECT_TOLERANCE 1e-4  /* log-likelihood: a thousandth of BIC's thresholds */
#define SELECT_TESTS 8      /* shares tested per feature: the smallest */
#define SELECT_MIN_SHARE 0.5 /* round trips: a smaller share moves no figure */
#define VERY_STRONG 20.0


bool fit_select_alloc(struct select *sl, const struct packed *pk, uint32_t R)
{
	memset(sl, 0, sizeof(*sl));
	sl->pk = pk;
	sl->routes = malloc(R * sizeof(*sl->routes));
	sl->held = calloc(R, 1);
	sl->post = calloc(6 * (size_t)R, sizeof(double));
	sl->b1 = sl->post + R;
	sl->b2 = sl->post + 2 * R;
	sl->bp = sl->post + 3 * R;
	sl->lb = sl->post + 4 * R;
	sl->ls = sl->post + 5 * R;
	return sl->routes && sl->held && sl->post;
}

void fit_select_free(struct select *sl)
{
	free(sl->routes);
	free(sl->held);
	free(sl->post);
}

/* Route x's rate for f held off: what it surely ran, no more (0 for most). */
static double held_rate(const struct infer_route *x, uint32_t f)
{
	return x->certain[f] / (x->pages > 0 ? x->pages : 1) + RATE_FLOOR;
}

/* One EM step for feature f alone (sl->held's rates at 0 for the
 * uncertain round trips, at what they surely ran for the rest): from rates b
 * (by route) into nb.  Returns the log-likelihood at b of f's round trips,
 * less what does not change with the rates of sl->routes (with want_ll;
 * else the same without the records' own part). */
static double feat_step(const struct infer *in, struct select *sl, uint32_t f, const double *b,
			double *nb, double scale, bool want_ll)
{
	for (uint32_t k = 0; k < sl->nr; k++)
		sl->lb[k] = b[sl->routes[k]];
	double ll = fit_block_e(sl->pk, sl->bk, sl->lb, sl->ls, want_ll);
	for (uint32_t k = 0; k < sl->nr; k++)
		sl->post[sl->routes[k]] = sl->ls[k];
	ll *= scale;
	for (uint32_t k = 0; k < sl->nr; k++) {
		uint32_t r = sl->routes[k];
		const struct infer_route *x = &in->routes[r];
		/* a route held off keeps what it surely ran: those at that rate,
		 * none of the others */
		double br = sl->held[r] ? held_rate(x, f) : b[r];
		ll += (x->certain[f] > 0 ? x->certain[f] * log(br) : 0) - br * x->pages;
		nb[r] = sl->held[r] ? RATE_FLOOR
				    : (x->certain[f] + scale * sl->post[r]) / (x->pages > 0 ? x->pages : 1) +
					      RATE_FLOOR;
	}
	return ll;
}

/* The best rates for feature f alone from b (into b), sl->held's at 0:
 * EM sped up by squared extrapolation (SQUAREM: Varadhan and Roland
 * 2008; plain EM took 200 steps on a feature of a saturated capture), until
 * the likelihood moves by less than matters to fit_select_feature.  Returns
 * the log-likelihood there. */
static double feat_fit(const struct infer *in, struct select *sl, uint32_t f, double *b,
		       double scale)
{
	double *b1 = sl->b1, *b2 = sl->b2, *bp = sl->bp;
	double ll = feat_step(in, sl, f, b, b1, scale, true);
	for (int it = 0; it < SELECT_STEPS; it++) {
		feat_step(in, sl, f, b1, b2, scale, false);
		double rr = 0, vv = 0;
		for (uint32_t k = 0; k < sl->nr; k++) {
			uint32_t r = sl->routes[k];
			double dr = b1[r] - b[r], dv = b2[r] - 2 * b1[r] + b[r];
			rr += dr * dr;
			vv += dv * dv;
		}
		double alpha = vv > 0 ? -sqrt(rr / vv) : -1;
		alpha = alpha > -1 ? -1 : alpha;
		for (uint32_t k = 0; k < sl->nr; k++) {
			uint32_t r = sl->routes[k];
			double x = b[r] - 2 * alpha * (b1[r] - b[r]) +
				   alpha * alpha * (b2[r] - 2 * b1[r] + b[r]);
			bp[r] = sl->held[r] || x < RATE_FLOOR ? RATE_FLOOR : x;
		}
		double llp = feat_step(in, sl, f, bp, b1, scale, true); /* b1: one step on */
		const double *next = bp;
		if (!(llp >= ll)) { /* overshot: the two plain steps */
			next = b2;
			llp = feat_step(in, sl, f, b2, b1, scale, true);
		}
		for (uint32_t k = 0; k < sl->nr; k++)
			b[sl->routes[k]] = next[sl->routes[k]];
		bool done = llp - ll < SELECT_TOLERANCE;
		ll = llp;
		if (done)
			break;
	}
	return ll;
}

/* Sets the routes' off and doubt bits for feature f (b, b2, best: scratch
 * by route, b holding the fit's rates). */
void fit_select_feature(struct infer *in, struct select *sl, uint32_t f, double *b,
			   double *b2, double *best)
{
	if (sl->pk->block_of[f] < 0)
		return;
	const struct pk_block *bk = &sl->pk->blocks[sl->pk->block_of[f]];
	uint32_t n = bk->n;
	sl->bk = bk;
	sl->nr = bk->nr;
	double nobs = in->feats[f].uncertain;
	for (uint32_t k = 0; k < sl->nr; k++) {
		sl->routes[k] = sl->pk->route[bk->route0 + k];
		nobs += in->routes[sl->routes[k]].certain[f];
	}
	double scale = in->feats[f].uncertain / n, price = log(nobs > 1 ? nobs : 1) / 2;
	double ll = feat_fit(in, sl, f, b, scale);
	for (uint32_t round = 0; round < SELECT_TESTS; round++) {
		uint32_t keep = sl->routes[0], test[SELECT_TESTS], nt = 0;
		for (uint32_t k = 1; k < sl->nr; k++) {
			uint32_t r = sl->routes[k];
			if (b[r] * in->routes[r].pages > b[keep] * in->routes[keep].pages)
				keep = r;
		}
		/* the smallest shares, but none too small to move a figure */
		for (double above = 0; nt < SELECT_TESTS; nt++) {
			uint32_t pick = keep;
			double least = INFINITY;
			for (uint32_t k = 0; k < sl->nr; k++) {
				uint32_t r = sl->routes[k];
				const struct infer_route *x = &in->routes[r];
				double share = b[r] * x->pages - x->certain[f]; /* of the uncertain */
				if (r == keep || sl->held[r] || share < SELECT_MIN_SHARE ||
				    share < above || share >= least)
					continue;
				bool taken = false;
				for (uint32_t t = 0; t < nt; t++)
					taken |= test[t] == r;
				if (!taken) {
					least = share;
					pick = r;
				}
			}
			if (pick == keep)
				break;
			test[nt] = pick;
			above = least;
		}
		double gain[SELECT_TESTS], least = INFINITY;
		uint32_t which = 0;
		for (uint32_t t = 0; t < nt; t++) {
			for (uint32_t k = 0; k < sl->nr; k++)
				b2[sl->routes[k]] = b[sl->routes[k]];
			sl->held[test[t]] = 1;
			gain[t] = ll - feat_fit(in, sl, f, b2, scale);
			sl->held[test[t]] = 0;
			if (gain[t] < least) {
				least = gain[t];
				which = t;
				for (uint32_t k = 0; k < sl->nr; k++)
					best[sl->routes[k]] = b2[sl->routes[k]];
			}
		}
		if (nt == 0)
			break;
		/* only where the data say which route runs it: the largest must be
		 * surely one (a flat likelihood makes any of them the largest) */
		for (uint32_t k = 0; k < sl->nr; k++)
			b2[sl->routes[k]] = b[sl->routes[k]];
		sl->held[keep] = 1;
		double without = feat_fit(in, sl, f, b2, scale);
		sl->held[keep] = 0;
		if (2 * (ll - without) - 2 * price < VERY_STRONG) {
			in->vague[f / 64] |= 1ull << (f % 64); /* which route: the capture cannot say */
			break;
		}
		if (least < price) { /* likelier without: off, and test again */
			uint32_t r = test[which];
			sl->held[r] = 1;
			in->routes[r].off[f / 64] |= 1ull << (f % 64);
			for (uint32_t k = 0; k < sl->nr; k++)
				b[sl->routes[k]] = best[sl->routes[k]];
			ll -= least;
			continue;
		}
		for (uint32_t t = 0; t < nt; t++)
			if (2 * gain[t] - 2 * price < VERY_STRONG)
				in->routes[test[t]].doubt[f / 64] |= 1ull << (f % 64);
		break;
	}
	for (uint32_t k = 0; k < sl->nr; k++)
		sl->held[sl->routes[k]] = 0;
}

