/* infer_bounds.c - intervals widened where the capture cannot tell the
 * routes apart (infer_fit.h). */
#include "infer_fit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Vague features' ranges, into the routes' shifts: each route of one
 * could have had none of its uncertain round trips or every one its
 * pages were among the candidates of (the sample's records, scaled to
 * all), and as much of the features tied to it.  Summed over the vague
 * features; the interval adds them to the models' shifts (format.c):
 * they are apart.  Before, a
 * feature the capture could not place kept EM's split with no width: a
 * 5 s capture of wrk cycling the blog app's routes (a tag page starts as
 * the index page before it does) gave / 9.82 for 9 with an interval of
 * 9.52-9.86. */
/* Feature q's uncertain round trips and those of the features tied to
 * it (settle_tied): what q's split gives out. */
static double tied_family(const struct infer *in, uint32_t q)
{
	double fam = in->feats[q].uncertain;
	for (uint32_t f = 0; f < INFER_FEATURES; f++)
		if (in->feats[f].tied == q)
			fam += in->feats[f].uncertain;
	return fam;
}

bool fit_vague_bounds(struct infer *in)
{
	uint32_t R = in->nroutes, nv = 0;
	int16_t at[INFER_FEATURES];
	for (uint32_t f = 0; f < INFER_FEATURES; f++)
		at[f] = has_bit(in->vague, f) && in->feats[f].uncertain > 0 ? (int16_t)nv++ : -1;
	in->vague_rts = 0;
	if (nv == 0)
		return true;
	double *seen = calloc((size_t)nv * (R + 1), sizeof(double)); /* by route, records; + all */
	if (!seen)
		return false;
	for (uint32_t i = 0; i < in->nsample; i++) {
		const struct infer_rec *rec = rec_at(in, i);
		if (rec->feat >= INFER_FEATURES || at[rec->feat] < 0)
			continue;
		double *v = seen + (size_t)at[rec->feat] * (R + 1);
		v[R] += 1;
		for (uint32_t k = 0; k < rec->n; k++)
			if (rec->c[k].route < R)
				v[rec->c[k].route] += 1;
	}
	for (uint32_t q = 0; q < INFER_FEATURES; q++) {
		const double *v = seen + (size_t)(at[q] >= 0 ? at[q] : 0) * (R + 1);
		if (at[q] < 0 || v[R] <= 0)
			continue;
		/* the uncertain round trips given by q's split: its own, and
		 * those of the features tied to it (settle_tied) */
		double uq = in->feats[q].uncertain, fam = tied_family(in, q);
		in->vague_rts += fam;
		double per = fam / uq, scale = uq / v[R];
		for (uint32_t r = 0; r < R; r++) {
			struct infer_route *x = &in->routes[r];
			double had = x->final[q] - x->certain[q], could = v[r] * scale;
			had = had > 0 ? had : 0;
			could = could < uq ? could : uq;
			x->vague_share += had * per;
			x->vague_more += (could > had ? could - had : 0) * per;
		}
	}
	free(seen);
	return true;
}

/* Lockstep's ranges, into the routes' lock_share and lock_more.  Where
 * a's pages start right behind b's, one of each is among the candidates of
 * every round trip of the other's, and which of them ran a statement both
 * hold a share of rests on the density alone: the likelihood can call a
 * wrong split very strong (the C app under wrk's fixed cycle: the tag
 * route's statement 70/30 with the index route, BIC difference ~140).  So
 * where the fit split a statement between them, each one's interval
 * spans none of its share and all of its partners' (and as much of the
 * pings tied to it).  A share under LOCK_DUST of the statement is the
 * fit's leftover (EM leaves every candidate a little), not a split: the
 * interval of the route holding it reaches none of it, its partners' all
 * of it, and no further.  Vague statements span none to all already
 * (fit_vague_bounds). */
#define LOCK_DUST 0.02
void fit_lock_bounds(struct infer *in)
{
	uint32_t R = in->nroutes < INFER_LOCK_ROUTES ? in->nroutes : INFER_LOCK_ROUTES;
	for (uint32_t q = 0; q < INFER_FEATURES; q++) {
		double uq = in->feats[q].uncertain;
		if (uq <= 0 || in->feats[q].tied != INFER_NONE || has_bit(in->vague, q))
			continue;
		double per = tied_family(in, q) / uq;
		for (uint32_t a = 0; a < R; a++) {
			if (!in->lock[a])
				continue;
			struct infer_route *x = &in->routes[a];
			double had = x->final[q] - x->certain[q], big = 0, dust = 0;
			for (uint32_t b = 0; b < R; b++) {
				if (b == a || !(in->lock[a] >> b & 1))
					continue;
				double hb = in->routes[b].final[q] - in->routes[b].certain[q];
				*(hb >= LOCK_DUST * uq ? &big : &dust) += hb;
			}
			bool mine = had >= LOCK_DUST * uq;
			/* a split: none of its share, all of theirs; a route the fit
			 * gave the statement but for its partners' leftovers: those
			 * too (a 0.2% leftover of the detail route's statement left
			 * its interval 3.34-3.998 for 4); a leftover: none of it */
			double more = dust + (mine ? big : 0);
			if (mine && big <= 0 && dust <= 0)
				continue;
			if (!mine || big > 0)
				x->lock_share += had * per;
			x->lock_more += (more < uq - had ? more : uq - had) * per;
		}
	}
}

/* Co-presence's ranges, into the routes' alike_share and alike_more: what
 * lockstep's are (fit_lock_bounds) for any pair the capture never saw apart.
 * A route's share of a feature whose round trips all had a page of the
 * feature's largest route among their candidates rests on the density
 * alone, however strong the likelihood calls it: node-postgres's pool under
 * wrk -c16, its three routes at random, gave the index route 2.7% of the
 * tag route's first statement (the tag page sends it as it starts, its
 * density is spread over a long window), 3.03 (3.027-3.028) for 3.  So a
 * route's share that the capture saw without the largest route's pages
 * in under ALIKE_SOLO of its weight spans none of it, and the largest
 * route's interval all of it (and as much of the pings tied to it); so
 * does a share under LOCK_DUST (EM's leftover).  A route that ran the
 * feature where the largest did not is seen to run it: the fit stands. */
#define ALIKE_SOLO 0.05
void fit_alike_bounds(struct infer *in)
{
	uint32_t R = in->nroutes;
	double *solo = calloc((size_t)R * INFER_FEATURES, sizeof(double));
	double *seen = calloc((size_t)R * INFER_FEATURES, sizeof(double));
	uint32_t major[INFER_FEATURES];
	if (!solo || !seen) {
		in->short_of_memory = true;
		goto out; /* the intervals without them */
	}
	for (uint32_t q = 0; q < INFER_FEATURES; q++) {
		major[q] = INFER_NONE;
		if (in->feats[q].uncertain <= 0 || in->feats[q].tied != INFER_NONE ||
		    has_bit(in->vague, q))
			continue;
		double best = 0;
		for (uint32_t r = 0; r < R; r++) {
			double h = in->routes[r].final[q] - in->routes[r].certain[q];
			if (h > best) {
				best = h;
				major[q] = r;
			}
		}
	}
	for (uint32_t i = 0; i < in->nsample; i++) {
		const struct infer_rec *rec = rec_at(in, i);
		uint32_t q = rec->feat;
		if (q >= INFER_FEATURES || major[q] == INFER_NONE)
			continue;
		double z = 0;
		bool beside = false, ok = rec->n > 0;
		for (uint32_t k = 0; k < rec->n && ok; k++) {
			uint32_t r = rec->c[k].route;
			ok = r < R;
			if (ok) {
				z += in->routes[r].beta[q] * rec->c[k].w;
				beside |= r == major[q];
			}
		}
		if (!ok || !(z > 0))
			continue;
		for (uint32_t k = 0; k < rec->n; k++) {
			uint32_t r = rec->c[k].route;
			double p = in->routes[r].beta[q] * rec->c[k].w / z;
			seen[(size_t)r * INFER_FEATURES + q] += p;
			if (!beside)
				solo[(size_t)r * INFER_FEATURES + q] += p;
		}
	}
	for (uint32_t q = 0; q < INFER_FEATURES; q++) {
		uint32_t L = major[q];
		if (L == INFER_NONE)
			continue;
		double uq = in->feats[q].uncertain, fam = tied_family(in, q);
		double per = fam / uq;
		struct infer_route *xl = &in->routes[L];
		double room = uq - (xl->final[q] - xl->certain[q]);
		for (uint32_t r = 0; r < R; r++) {
			struct infer_route *x = &in->routes[r];
			double h = x->final[q] - x->certain[q];
			if (r == L || h <= 0)
				continue;
			if (r < INFER_LOCK_ROUTES && L < INFER_LOCK_ROUTES && (in->lock[r] >> L & 1))
				continue; /* fit_lock_bounds spans the pair */
			size_t c = (size_t)r * INFER_FEATURES + q;
			if (h >= LOCK_DUST * uq &&
			    (solo[c] >= ALIKE_SOLO * seen[c] || x->certain[q] >= ALIKE_SOLO * h))
				continue; /* seen running it apart from the largest, or alone */
			/* each such share down to none; the largest up by as many as
			 * it did not hold already */
			double give = h < room ? h : room;
			x->alike_share += h * per;
			xl->alike_more += give * per;
			room -= give;
		}
	}
out:
	free(solo);
	free(seen);
}

/* Not a point where the noise cannot be told, but what the routes could
 * have had: none of the uncertain round trips, or all they held. */
void fit_widest_bounds(struct infer *in)
{
	for (uint32_t r = 0; r < in->nroutes; r++) {
		struct infer_route *x = &in->routes[r];
		double total = fit_route_total(x), sure = 0;
		for (uint32_t f = 0; f < INFER_FEATURES; f++)
			sure += x->certain[f];
		x->shift_lo = sure < total ? sure - total : 0;
		x->shift_hi = sure + x->possible > total ? sure + x->possible - total : 0;
	}
}

