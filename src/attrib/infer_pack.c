/* infer_pack.c - a part of the sample laid out for the E step, by feature (infer_fit.h). */
#include "infer_fit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>


/* The packing's arrays laid out from base for nrec records, nw weights
 * and nroute block routes, one after another; their size.  Laid out for
 * each packing's own counts (fit_pack, fit_pack_subset), so that a part of the
 * sample - the jackknife's, the models' - lies in the first few hundred
 * KiB of its block: laid out for the whole sample, the first bytes of each
 * array would touch a fresh huge page of their own.  Also resets local,
 * which pack needs at 0. */
static size_t packed_carve(struct packed *pk, unsigned char *base, size_t nrec, size_t nw,
			   size_t nroute, uint32_t R)
{
	size_t size = 0;
	pk->by_feat = carve(base, &size, nrec + 1, sizeof(*pk->by_feat));
	pk->w = carve(base, &size, nw, sizeof(*pk->w));
	pk->loc = carve(base, &size, nw, sizeof(*pk->loc)); /* beside w: the same index */
	pk->off = carve(base, &size, nrec + INFER_FEATURES, sizeof(*pk->off));
	pk->route = carve(base, &size, nroute, sizeof(*pk->route));
	pk->feats = carve(base, &size, nroute, sizeof(*pk->feats)); /* the same routes, by route */
	pk->feats_at = carve(base, &size, (size_t)R + 1, sizeof(*pk->feats_at));
	pk->local = carve(base, &size, (size_t)R + 1, sizeof(*pk->local));
	if (base)
		memset(pk->local, 0, ((size_t)R + 1) * sizeof(*pk->local));
	return size;
}

/* Room in pk's block for a packing of nrec records, nw weights and nroute
 * block routes, laid out (a larger block if need be: the fits after the
 * estimate pack parts of the sample, a few hundred KiB, into blocks made
 * for them - made for the whole sample each block's far end would touch
 * a fresh huge page for nothing).  False: out of memory. */
static bool packed_room(struct packed *pk, size_t nrec, size_t nw, size_t nroute)
{
	size_t size = packed_carve(pk, NULL, nrec, nw, nroute, pk->nroutes);
	if (size > pk->cap) {
		free(pk->mem); /* first: what it held can be had again */
		pk->cap = 0;
		if (!(pk->mem = malloc(size)))
			return false;
		pk->cap = size;
	}
	packed_carve(pk, pk->mem, nrec, nw, nroute, pk->nroutes);
	return true;
}

void fit_packed_init(struct packed *pk, uint32_t R)
{
	memset(pk, 0, sizeof(*pk));
	pk->nroutes = R;
}

void fit_packed_free(struct packed *pk)
{
	free(pk->mem);
	pk->mem = NULL;
	pk->cap = 0;
}

/* a dense block's weights fit where its pairs would: n x nr <= n x INFER_CANDS */
_Static_assert(DENSE_MAX <= INFER_CANDS, "dense blocks must fit the pairs' room");

/* Record rec of part pt goes into the fit: it has weight, a feature, is
 * of the features fitted, and names only routes the fit has. */
static bool usable(const struct part *pt, const struct packed *pk, const struct infer_rec *rec)
{
	double z = 0;
	for (uint32_t k = 0; k < rec->n; k++) {
		if (rec->c[k].route >= pk->nroutes)
			return false;
		z += rec->c[k].w;
	}
	return z > 0 && rec->feat < INFER_FEATURES && !(pt->only && !has_bit(pt->only, rec->feat));
}

/* A candidate's weight in the fit: as recorded, or under another model's
 * density (fit_model) - each page's to the power gamma, the route's
 * pages' sum kept as their count times their mean's. */
static inline double cand_w(const struct infer_cand *c, int model)
{
	if (model == 0)
		return c->w;
	double per = c->pages ? c->w / c->pages : c->w;
	return (float)((c->pages ? c->pages : 1) * pow(per, GAMMAS[model]));
}

static void pack_feats(struct packed *pk, uint32_t nroute);

/* False: no memory for it (pk is then empty) */
bool fit_pack(const struct part *pt, struct packed *pk)
{
	uint32_t start[INFER_FEATURES + 1] = {0}, at[INFER_FEATURES];
	size_t npairs = 0;
	memset(pk->nf, 0, sizeof pk->nf);
	pk->n = 0;
	FOR_PART(pt, rec) {
		if (!usable(pt, pk, rec))
			continue;
		start[rec->feat + 1]++;
		pk->n++;
		npairs += rec->n;
	}
	/* a dense block's weights take at most twice its pairs, its routes at
	 * most its pairs */
	if (!packed_room(pk, pk->n, 2 * npairs + 1, npairs + 1)) {
		pk->n = pk->nblocks = 0;
		return false;
	}
	for (uint32_t f = 0; f < INFER_FEATURES; f++)
		start[f + 1] += start[f];
	memcpy(at, start, sizeof at);
	FOR_PART(pt, rec) { /* the same records again, by feature, in their order */
		if (!usable(pt, pk, rec))
			continue;
		pk->by_feat[at[rec->feat]++] = rec;
	}
	uint32_t nroute = 0, nw = 0, noff = 0;
	pk->nblocks = 0;
	for (uint32_t f = 0; f < INFER_FEATURES; f++) {
		pk->block_of[f] = -1;
		uint32_t n = start[f + 1] - start[f], cands = 0;
		if (n == 0)
			continue;
		pk->nf[f] = n;
		struct pk_block *bk = &pk->blocks[pk->nblocks];
		pk->block_of[f] = (int16_t)pk->nblocks++;
		bk->feat = (uint16_t)f;
		bk->n = n;
		bk->route0 = nroute;
		bk->nr = 0;
		for (uint32_t i = start[f]; i < start[f + 1]; i++) {
			const struct infer_rec *rec = pk->by_feat[i];
			cands += rec->n;
			for (uint32_t k = 0; k < rec->n; k++) {
				uint32_t r = rec->c[k].route;
				if (!pk->local[r]) {
					pk->route[nroute++] = (uint16_t)r;
					pk->local[r] = ++bk->nr;
				}
			}
		}
		/* dense only where it is no larger than the pairs would be */
		bk->dense = bk->nr <= DENSE_MAX && (size_t)n * bk->nr <= 2 * (size_t)cands;
		bk->w0 = nw;
		bk->off0 = noff;
		if (bk->dense) {
			memset(pk->w + nw, 0, (size_t)n * bk->nr * sizeof(*pk->w));
			nw += n * bk->nr;
		}
		for (uint32_t i = start[f]; i < start[f + 1]; i++) {
			const struct infer_rec *rec = pk->by_feat[i];
			if (bk->dense) { /* by route, then record: records pair up in the E step */
				float *w = pk->w + bk->w0 + (i - start[f]);
				for (uint32_t k = 0; k < rec->n; k++)
					w[(size_t)(pk->local[rec->c[k].route] - 1) * n] = cand_w(&rec->c[k], pt->model);
				continue;
			}
			pk->off[noff++] = nw;
			for (uint32_t k = 0; k < rec->n; k++) {
				pk->loc[nw] = (uint16_t)(pk->local[rec->c[k].route] - 1);
				pk->w[nw++] = cand_w(&rec->c[k], pt->model);
			}
		}
		if (!bk->dense)
			pk->off[noff++] = nw;
		for (uint32_t j = 0; j < bk->nr; j++)
			pk->local[pk->route[bk->route0 + j]] = 0;
	}
	pack_feats(pk, nroute);
	return true;
}

/* The blocks' routes turned around: each route's features, in block (so
 * feature) order. */
static void pack_feats(struct packed *pk, uint32_t nroute)
{
	uint32_t R = pk->nroutes;
	memset(pk->feats_at, 0, ((size_t)R + 1) * sizeof(*pk->feats_at));
	for (uint32_t i = 0; i < nroute; i++)
		pk->feats_at[pk->route[i] + 1]++;
	for (uint32_t r = 0; r < R; r++)
		pk->feats_at[r + 1] += pk->feats_at[r];
	for (uint32_t k = 0; k < pk->nblocks; k++) {
		const struct pk_block *bk = &pk->blocks[k];
		for (uint32_t j = 0; j < bk->nr; j++) { /* local[] is 0 again: a cursor */
			uint32_t r = pk->route[bk->route0 + j];
			pk->feats[pk->feats_at[r] + pk->local[r]++] = bk->feat;
		}
	}
	for (uint32_t i = 0; i < nroute; i++)
		pk->local[pk->route[i]] = 0;
}

/* The blocks of the features in only, from a packing of the whole sample
 * (stride 1, no part left out, model 0): what pack gives for those
 * features, copied rather than packed again from the records - the sample
 * is megabytes, read twice and then by feature, where the refit and the
 * fit with the doubtful need only a few features' blocks. */
bool fit_pack_subset(const struct packed *all, const uint64_t *only, struct packed *pk)
{
	uint32_t nroute = 0, nw = 0, noff = 0;
	size_t nrec = 0, weights = 0, routes = 0;
	for (uint32_t k = 0; k < all->nblocks; k++) {
		const struct pk_block *b = &all->blocks[k];
		if (!has_bit(only, b->feat))
			continue;
		nrec += b->n;
		routes += b->nr;
		weights += b->dense ? (size_t)b->n * b->nr : all->off[b->off0 + b->n] - all->off[b->off0];
	}
	if (!packed_room(pk, nrec, weights + 1, routes + 1)) {
		pk->n = pk->nblocks = 0;
		return false;
	}
	memset(pk->nf, 0, sizeof pk->nf);
	memset(pk->block_of, -1, sizeof pk->block_of);
	pk->n = 0;
	pk->nblocks = 0;
	for (uint32_t k = 0; k < all->nblocks; k++) {
		const struct pk_block *from = &all->blocks[k];
		if (!has_bit(only, from->feat))
			continue;
		struct pk_block *bk = &pk->blocks[pk->nblocks];
		pk->block_of[from->feat] = (int16_t)pk->nblocks++;
		*bk = *from;
		bk->route0 = nroute;
		bk->w0 = nw;
		bk->off0 = noff;
		memcpy(pk->route + nroute, all->route + from->route0, from->nr * sizeof(*pk->route));
		nroute += from->nr;
		if (from->dense) {
			size_t m = (size_t)from->n * from->nr;
			memcpy(pk->w + nw, all->w + from->w0, m * sizeof(*pk->w));
			nw += (uint32_t)m;
		} else {
			uint32_t lo = all->off[from->off0], hi = all->off[from->off0 + from->n];
			for (uint32_t i = 0; i <= from->n; i++)
				pk->off[noff++] = all->off[from->off0 + i] - lo + nw;
			memcpy(pk->w + nw, all->w + lo, (hi - lo) * sizeof(*pk->w));
			memcpy(pk->loc + nw, all->loc + lo, (hi - lo) * sizeof(*pk->loc));
			nw += hi - lo;
		}
		pk->nf[from->feat] = all->nf[from->feat];
		pk->n += from->n;
	}
	pack_feats(pk, nroute);
	return true;
}

