/* attrib_correct.c - the routes' sums corrected by the fit, at the end (attrib_impl.h). */
#include "attrib_impl.h"
#include "base/hash.h"
#include "base/timing.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The features a solved fit could not place between routes (infer.h vague) */
static uint32_t vague_features(const struct infer *in)
{
	uint32_t n = 0;
	for (uint32_t w = 0; w < INFER_FEATURES / 64; w++)
		n += (uint32_t)__builtin_popcountll(in->vague[w]);
	return n;
}

/* The Redis commands' fit (attrib_correct_by_fit's, below, for their model):
 * each route's commands corrected, its round trips and flights in
 * proportion (or, where the running guess gave it none, one of each per
 * command). */
void attrib_correct_cmds_by_fit(struct attrib *a)
{
	struct infer *in = &a->cmd_infer;
	if (!a->cmds_mixed)
		return;
	/* the fit's vague commands stay out of unplaced_feats: that note
	 * speaks of the statements' intervals, and Redis figures have none;
	 * they have a note of their own */
	infer_solve(in);
	a->unplaced_cmds = vague_features(in);
	a->unplaced_cmd_n = in->vague_rts;
	for (uint32_t i = 0; i < a->nroutes && i < in->nroutes; i++) {
		struct attrib_route *rt = &a->routes[i];
		const struct infer_route *x = &in->routes[i];
		if (!x->certain)
			continue;
		double d = 0;
		for (uint32_t f = 0; f < INFER_FEATURES; f++)
			d += x->final[f] - x->certain[f] - x->given[f];
		double cmds = rt->cmds + d > 0 ? rt->cmds + d : 0;
		/* the interval as the statements' (format.c route_interval): the
		 * sample's noise, the model's, what the capture cannot place */
		double half = 1.96 * sqrt(x->var > 0 ? x->var : 0);
		double lo = cmds - half + x->shift_lo - x->vague_share - x->lock_share - x->alike_share;
		double hi = cmds + half + x->shift_hi + x->vague_more + x->lock_more + x->alike_more;
		rt->cmd_lo = lo > 0 ? lo : 0;
		rt->cmd_hi = hi > rt->cmd_lo ? hi : rt->cmd_lo;
		rt->cmd_interval = rt->pages_mixed > 0;
		if (d == 0)
			continue;
		if (rt->cmds > 1e-9) {
			rt->cmd_rts *= cmds / rt->cmds;
			rt->cmd_flights *= cmds / rt->cmds;
		} else {
			rt->cmd_rts = rt->cmd_flights = cmds;
		}
		rt->cmds = cmds;
	}
}

/* The fit over the whole capture replaces what the running guess gave
 * each route, feature by feature. */
void attrib_correct_by_fit(struct attrib *a)
{
	struct infer *in = &a->infer;
	if (!a->rts_mixed || !a->feats)
		return;
	infer_solve(in);
	a->unplaced_feats = vague_features(in);
	a->unplaced_rts = in->vague_rts;
	a->lockstep_pairs = 0;
	for (uint32_t i = 0; i < a->nroutes && i < INFER_LOCK_ROUTES; i++) {
		a->routes[i].lockstep = in->lock[i];
		a->lockstep_pairs += (uint32_t)__builtin_popcountll(in->lock[i] >> i); /* j > i */
	}
	for (uint32_t i = 0; i < a->nroutes && i < in->nroutes; i++) {
		struct attrib_route *rt = &a->routes[i];
		const struct infer_route *x = &in->routes[i];
		if (!x->certain)
			continue;
		for (uint32_t f = 0; f < a->nfeat; f++) {
			const struct attrib_feature *ft = &a->feats[f];
			double d = x->final[f] - x->certain[f] - x->given[f];
			if (d == 0 || ft->n == 0)
				continue;
			rt->rfq += d * ft->rfq / ft->n;
			d *= ft->rtw < ft->n ? ft->rtw / ft->n : 1; /* parts of flights: less */
			rt->rt += d;
			rt->inferred += d;
			rt->pg_ns += d * ft->pg_ns / ft->n;
			rt->by_class[ft->cls] += d;
			if (ft->cls == RT_PING) {
				rt->pings[ft->role] += d;
				if (ft->amb) {
					rt->pings_amb[ft->role] += d;
					rt->pings_amb_timing[ft->timing_role] += d;
				}
			}
		}
		rt->var = x->var;
		rt->shift_lo = x->shift_lo;
		rt->shift_hi = x->shift_hi;
		rt->unplaced_lo = -x->vague_share;
		rt->unplaced_hi = x->vague_more;
		rt->lockstep_lo = -x->lock_share;
		rt->lockstep_hi = x->lock_more;
		rt->alike_lo = -x->alike_share;
		rt->alike_hi = x->alike_more;
		/* rounding: never below nothing (a class the fit took a route's
		 * share of away printed as -0.00) */
		rt->rt = rt->rt > 0 ? rt->rt : 0;
		rt->inferred = rt->inferred > 0 ? rt->inferred : 0;
		rt->rfq = rt->rfq > 0 ? rt->rfq : 0;
		rt->pg_ns = rt->pg_ns > 0 ? rt->pg_ns : 0;
		for (int c = 0; c < RT_NCLASS; c++)
			rt->by_class[c] = rt->by_class[c] > 0 ? rt->by_class[c] : 0;
		for (int k = 0; k < PING_NROLE; k++) {
			rt->pings[k] = rt->pings[k] > 0 ? rt->pings[k] : 0;
			rt->pings_amb[k] = rt->pings_amb[k] > 0 ? rt->pings_amb[k] : 0;
			rt->pings_amb_timing[k] = rt->pings_amb_timing[k] > 0 ? rt->pings_amb_timing[k] : 0;
		}
	}
}

