/* infer_em.c - the EM fit: E and M steps over the packed records,
 * frozen cells thinned out, fits to convergence from the lift
 * (infer_fit.h). */
#include "infer_fit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Tied features share the page, so the route, of what they follow: each
 * route's share of the uncertain part of the feature followed (of the
 * running guess, when that was never uncertain). */
static void settle_tied(struct infer *in, const struct fit *ft, uint32_t R)
{
	/* by the bits, in feature order: every EM step comes here, and a look
	 * at all 256 features was a seventh of a small capture's fit */
	for (uint32_t wd = 0; wd < INFER_FEATURES / 64; wd++)
		for (uint64_t bits = in->tied[wd]; bits; bits &= bits - 1) {
			uint32_t f = wd * 64 + (uint32_t)__builtin_ctzll(bits);
			uint32_t q = in->feats[f].tied;
			if (in->feats[f].uncertain <= 0)
				continue;
			double qsum = 0, gsum = 0;
			for (uint32_t r = 0; r < R; r++) {
				qsum += in->routes[r].final[q] - in->routes[r].certain[q];
				gsum += in->routes[r].given[f];
			}
			for (uint32_t r = 0; r < R; r++) {
				struct infer_route *x = &in->routes[r];
				double share = qsum > 0   ? (x->final[q] - x->certain[q]) / qsum
					       : gsum > 0 ? x->given[f] / gsum
							  : 0;
				double was = x->final[f];
				x->final[f] = x->certain[f] + in->feats[f].uncertain * share;
				x->beta[f] = rate_of(ft, x, x->final[f]);
				ft->dtot[r] += x->final[f] - was;
			}
		}
}

/* Copies the routes' rates side by side, as em_step reads them. */
static void publish_rates(const struct infer *in, struct fit *ft)
{
	for (uint32_t r = 0; r < ft->nroutes; r++) {
		const double *b = in->routes[r].beta;
		for (uint32_t f = 0; f < INFER_FEATURES; f++)
			ft->beta[CELL(ft, r, f)] = b[f];
	}
}

/* The sum of logs of the records' z, as the log of their product with
 * its exponent kept apart (frexp), so that it never under- or overflows:
 * one log per step, not one per record (a third of the fit's cost). */
struct log_sum {
	double prod, ll;
	long exp2;
};

static inline void log_add(struct log_sum *l, double z)
{
	if (z > 0x1p-300 && z < 0x1p300) {
		l->prod *= z; /* within 2^-900 .. 2^900 after it: a normal double */
		if (l->prod < 0x1p-600 || l->prod > 0x1p600) {
			int e;
			l->prod = frexp(l->prod, &e);
			l->exp2 += e;
		}
	} else {
		l->ll += log(z);
	}
}

/* Records side by side, one per lane: four, whatever the machine (the
 * compiler splits them over SSE2's or NEON's pairs), so that the sums -
 * each lane's, then the lanes' - are the same on every one; where AVX2 is
 * there block_e runs as its own (target_clones), four records an
 * instruction: the E step was three quarters of the fit (71 M -> 27 M
 * instructions on a 5 s blog-app capture).  Eight lanes (AVX-512) were
 * slower on the features' tests, whose blocks are small. */
#define LANES 4
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define E_STEP_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define E_STEP_CLONES
#endif
typedef double rec_pair __attribute__((vector_size(LANES * sizeof(double))));

/* The E step of one dense block of NR routes: each record's posterior
 * over the block's routes, summed into s (less the rates' factor, which
 * block_e puts in once).  Records go LANES at a time, a lane each, the
 * lanes' sums added at the end; rates and sums in locals, in registers
 * with NR a constant. */
#define DENSE_E(NR)                                                                        \
	{                                                                                  \
		rec_pair bb[DENSE_MAX], sv[DENSE_MAX];                                     \
		double ss[DENSE_MAX];                                                      \
		uint32_t n = bk->n, i = 0;                                                 \
		for (uint32_t j = 0; j < (NR); j++) {                                      \
			bb[j] = (rec_pair){b[j], b[j], b[j], b[j]};                        \
			sv[j] = (rec_pair){0, 0, 0, 0};                                    \
		}                                                                          \
		for (; i + LANES <= n; i += LANES) {                                       \
			rec_pair wj[DENSE_MAX], z = {0, 0, 0, 0};                          \
			_Pragma("GCC unroll 4") for (uint32_t j = 0; j < (NR); j++) {      \
				const float *wr = w + (size_t)j * n + i;                   \
				wj[j] = (rec_pair){wr[0], wr[1], wr[2], wr[3]};            \
				z += bb[j] * wj[j];                                        \
			}                                                                  \
			rec_pair iz = (rec_pair){1, 1, 1, 1} / z; /* > 0: rates, densities are */ \
			_Pragma("GCC unroll 4") for (uint32_t j = 0; j < (NR); j++)        \
				sv[j] += wj[j] * iz;                                       \
			if (want_ll)                                                       \
				for (int q = 0; q < LANES; q++)                            \
					log_add(&l, z[q]);                                 \
		}                                                                          \
		for (uint32_t j = 0; j < (NR); j++)                                        \
			ss[j] = (sv[j][0] + sv[j][1]) + (sv[j][2] + sv[j][3]);             \
		for (; i < n; i++) { /* the odd one out */                                 \
			double z = 0;                                                      \
			for (uint32_t j = 0; j < (NR); j++)                                \
				z += b[j] * w[(size_t)j * n + i];                          \
			double iz = 1 / z;                                                 \
			for (uint32_t j = 0; j < (NR); j++)                                \
				ss[j] += w[(size_t)j * n + i] * iz;                        \
			if (want_ll)                                                       \
				log_add(&l, z);                                            \
		}                                                                          \
		for (uint32_t j = 0; j < (NR); j++)                                        \
			s[j] = ss[j];                                                      \
	}

/* The E step over block bk at the block's rates b: the posterior sums of
 * its routes into s.  Returns the sum of its records' log-likelihoods
 * (with want_ll; else 0). */
E_STEP_CLONES static double block_e(const struct packed *pk, const struct pk_block *bk,
				     const double *b, double *s, bool want_ll)
{
	struct log_sum l = {1, 0, 0};
	uint32_t nr = bk->nr;
	for (uint32_t j = 0; j < nr; j++)
		s[j] = 0;
	if (bk->dense) {
		const float *w = pk->w + bk->w0;
		switch (nr) { /* the usual few routes unrolled */
		case 1: DENSE_E(1) break;
		case 2: DENSE_E(2) break;
		case 3: DENSE_E(3) break;
		case 4: DENSE_E(4) break;
		default: DENSE_E(nr) break;
		}
	} else {
		const uint32_t *off = pk->off + bk->off0;
		for (uint32_t i = 0; i < bk->n; i++) {
			double z = 0;
			for (uint32_t k = off[i]; k < off[i + 1]; k++)
				z += b[pk->loc[k]] * pk->w[k];
			double iz = 1 / z;
			for (uint32_t k = off[i]; k < off[i + 1]; k++)
				s[pk->loc[k]] += pk->w[k] * iz;
			if (want_ll)
				log_add(&l, z);
		}
	}
	for (uint32_t j = 0; j < nr; j++)
		s[j] *= b[j];
	return want_ll ? l.ll + log(l.prod) + (double)l.exp2 * 0.693147180559945309417 : 0;
}

/* block_e for the other parts of the fit (infer_select.c's tests): a
 * plain function, as a function with target_clones is called only from
 * its own file (clang names its clones there alone). */
double fit_block_e(const struct packed *pk, const struct pk_block *bk, const double *b, double *s,
		   bool want_ll)
{
	return block_e(pk, bk, b, s, want_ll);
}

/* What the M step of feature f's cells shares: computed once a block, not
 * once a cell (a division and three tests per cell were a tenth of a fit's
 * time with 120 routes; the same values, so the same bits). */
struct m_feat {
	bool skip;    /* not among the features fitted (ft->only) */
	bool guess;   /* none of it in the sample: the running guess */
	double scale; /* the sample's records to all of f's uncertain ones */
};

static inline struct m_feat m_feat_of(const struct infer *in, const struct fit *ft, uint32_t f)
{
	struct m_feat m;
	m.skip = ft->only && !has_bit(ft->only, f);
	m.scale = ft->nf[f] > 0 ? in->feats[f].uncertain / ft->nf[f] : 0;
	m.guess = ft->nf[f] == 0 && in->feats[f].uncertain > 0;
	return m;
}

/* Route r's final and rate for feature f, of posterior sum `sum` (m: f's) */
static inline void m_cell_of(const struct infer *in, const struct fit *ft, uint32_t r, uint32_t f,
			     double sum, const struct m_feat *m, double *dtot)
{
	if (m->skip)
		return;
	struct infer_route *x = &in->routes[r];
	double was = x->final[f];
	double s = m->guess ? x->given[f] : sum * m->scale;
	bool off = held_off(ft, x, f);
	x->final[f] = x->certain[f] + (off ? 0 : s);
	/* held off, none of the uncertain ones are its: the E step gives it none */
	x->beta[f] = off ? RATE_FLOOR : rate_of(ft, x, x->final[f]);
	dtot[r] += x->final[f] - was;
}

/* ----------------------------------------------------------------------
 * Frozen cells
 *
 * With many routes a feature's block holds every route that was ever in
 * flight beside its round trips (the synthetic capture of 120 routes: 120
 * routes in each of 210 blocks, 24 candidates a record), and after the
 * first steps all but one or two of them hold next to none of it (99% of
 * the cells under 1e-5 of the feature) - yet each EM step read every
 * (record, candidate) pair.  So at a full step a cell whose share is under
 * FREEZE of its feature's uncertain round trips and not growing, or held
 * at 0, is frozen: its rate stays, its part of each record's sum is kept
 * apart (zfix), and the steps until the next full one read only the other
 * pairs, of the records that have any.  A frozen cell that would grow
 * again is found at the next full step (every FULL_EVERY).  EM on a subset
 * of the rates with the rest held is still EM (each step raises the
 * likelihood); what freezing moves is a frozen cell's decay, at most
 * FREEZE of each feature a route does not run: on six synthetic captures
 * of 12-120 routes the estimate moved by at most 0.005 round trips of a
 * route's total (the tests after it, on BIC's edge for many statements
 * there, then decided some differently: docs/pages.md).  Blocks of few
 * routes (DENSE_MAX or fewer), and tied features, are never thinned: their
 * figures are the same to the bit.
 * ---------------------------------------------------------------------- */
#define FREEZE 1e-6
#define FULL_EVERY 8

struct thin {
	/* per block: is its thinned form current, and where it lies */
	struct thin_block {
		bool on;
		uint32_t n;      /* records with a pair left */
		uint32_t rec0;   /* their zfix and offsets at [rec0 .. rec0 + n] */
		uint32_t cell0;  /* the cells left, local indices: cell[cell0 .. cell0 + nc) */
		uint16_t nc;
	} blocks[INFER_FEATURES];
	double *zfix;    /* per record left: its frozen cells' part of z */
	uint32_t *off;   /* per record left (+ one per block): into loc, w */
	uint16_t *loc, *cell;
	float *w;
};


/* Made for the first fit that has a block to thin (fit_to): most captures
 * have none, and its block's ends alone touched fresh huge pages. */
static bool thin_alloc(struct fit *ft, uint32_t nrec, uint32_t npairs)
{
	size_t cands = (size_t)npairs + 1, size = 0;
	struct thin *t = ft->thin = calloc(1, sizeof(*t));
	if (!t)
		return false;
	/* as large as the packed pairs, and mostly untouched: the part a
	 * thinned block needs is what its pages fault in */
	unsigned char *m = NULL;
	for (int pass = 0; pass < 2; pass++) {
		size = 0;
		t->zfix = carve(m, &size, (size_t)nrec + 1, sizeof(*t->zfix));
		t->off = carve(m, &size, (size_t)nrec + INFER_FEATURES + 1, sizeof(*t->off));
		t->w = carve(m, &size, cands, sizeof(*t->w));
		t->loc = carve(m, &size, cands, sizeof(*t->loc));
		t->cell = carve(m, &size, cands, sizeof(*t->cell));
		if (pass == 0 && !(m = malloc(size))) {
			fit_thin_free(ft); /* no thinning: the same EM, slower */
			return false;
		}
	}
	return true;
}

void fit_thin_free(struct fit *ft)
{
	struct thin *t = ft->thin;
	if (!t)
		return;
	free(t->zfix); /* the block (thin_alloc) */
	free(t);
	ft->thin = NULL;
}

/* A block of many routes, of pairs (not dense), not tied: thinned where
 * the fit has the room (thinnable). */
static bool thin_worth(const struct infer *in, const struct pk_block *bk)
{
	return !in->whole && !bk->dense && bk->nr > DENSE_MAX && in->feats[bk->feat].tied == INFER_NONE;
}

/* Block k may be thinned in this fit */
static bool thinnable(const struct infer *in, const struct fit *ft, const struct pk_block *bk)
{
	return ft->thin && thin_worth(in, bk);
}

/* After a full step of block k: old rates h->b, new h->nb.  Freezes
 * what is held or small and not growing, and lays out the rest after the
 * blocks thinned before it (*at: records, *pairs, *cells used so far). */
static void thin_block(const struct infer *in, struct fit *ft, struct em_part *h,
		       const struct packed *pk, uint32_t k, uint32_t *at, uint32_t *pairs,
		       uint32_t *cells)
{
	const struct pk_block *bk = &pk->blocks[k];
	struct thin *t = ft->thin;
	struct thin_block *tb = &t->blocks[k];
	uint32_t f = bk->feat, nfrozen = 0;
	double small = FREEZE * in->feats[f].uncertain;
	tb->on = false;
	tb->cell0 = *cells;
	tb->nc = 0;
	for (uint32_t j = 0; j < bk->nr; j++) {
		const struct infer_route *x = &in->routes[pk->route[bk->route0 + j]];
		bool fz = held_off(ft, x, f) ||
			  (x->final[f] - x->certain[f] < small && h->nb[j] <= h->b[j]);
		h->frozen[j] = fz;
		nfrozen += fz;
		if (!fz)
			t->cell[tb->cell0 + tb->nc++] = (uint16_t)j;
	}
	if (2 * nfrozen < bk->nr)
		return; /* little to gain: the block stays whole */
	*cells += tb->nc;
	tb->rec0 = *at;
	tb->n = 0;
	const uint32_t *off = pk->off + bk->off0;
	for (uint32_t i = 0; i < bk->n; i++) {
		double zf = 0;
		uint32_t start = *pairs;
		for (uint32_t q = off[i]; q < off[i + 1]; q++) {
			uint32_t j = pk->loc[q];
			if (h->frozen[j]) {
				zf += h->nb[j] * pk->w[q];
			} else {
				t->loc[*pairs] = (uint16_t)j;
				t->w[(*pairs)++] = pk->w[q];
			}
		}
		if (*pairs == start)
			continue; /* all its cells frozen: nothing of it moves */
		t->zfix[tb->rec0 + tb->n] = zf;
		t->off[tb->rec0 + tb->n + k] = start; /* one more offset per block: + k */
		tb->n++;
	}
	t->off[tb->rec0 + tb->n + k] = *pairs;
	*at += tb->n;
	tb->on = true;
}

/* The E step of thinned block k at rates b: the sums of its cells left
 * into s. */
static void thin_e(const struct thin *t, uint32_t k, const double *b, double *s)
{
	const struct thin_block *tb = &t->blocks[k];
	const uint16_t *cell = t->cell + tb->cell0;
	for (uint32_t c = 0; c < tb->nc; c++)
		s[cell[c]] = 0;
	const uint32_t *off = t->off + tb->rec0 + k;
	const double *zfix = t->zfix + tb->rec0;
	for (uint32_t i = 0; i < tb->n; i++) {
		double z = zfix[i];
		for (uint32_t q = off[i]; q < off[i + 1]; q++)
			z += b[t->loc[q]] * t->w[q];
		double iz = 1 / z;
		for (uint32_t q = off[i]; q < off[i + 1]; q++)
			s[t->loc[q]] += t->w[q] * iz;
	}
	for (uint32_t c = 0; c < tb->nc; c++)
		s[cell[c]] *= b[cell[c]];
}

/* Part h's blocks of an EM step: the E step and then the M step of each
 * block's cells (a feature's rates depend on its own records' sums alone,
 * and its block reads no other feature's rates). */
void fit_em_part_step(struct infer *in, struct fit *ft, const struct packed *pk,
			 struct em_part *h, bool all, bool full)
{
	uint32_t R = ft->nroutes;
	double *beta = ft->beta;
	uint32_t at = h->at0, pairs = h->pairs0, cells = h->cells0; /* the thinned room used */
	memset(h->dtot, 0, R * sizeof(*h->dtot));
	h->thinned = 0;
	for (uint32_t k = h->k0; k < h->k1; k++) {
		const struct pk_block *bk = &pk->blocks[k];
		const uint16_t *route = pk->route + bk->route0;
		uint32_t f = bk->feat;
		bool thin = thinnable(in, ft, bk);
		if (thin && !full && !all && ft->thin->blocks[k].on) {
			/* the cells left alone: their rates in, their sums out */
			const struct thin_block *tb = &ft->thin->blocks[k];
			const uint16_t *cell = ft->thin->cell + tb->cell0;
			for (uint32_t c = 0; c < tb->nc; c++)
				h->b[cell[c]] = beta[CELL(ft, route[cell[c]], f)];
			thin_e(ft->thin, k, h->b, h->s);
			h->thinned++;
			struct m_feat mf = m_feat_of(in, ft, f);
			for (uint32_t c = 0; c < tb->nc; c++) {
				uint32_t j = cell[c];
				m_cell_of(in, ft, route[j], f, h->s[j], &mf, h->dtot);
				beta[CELL(ft, route[j], f)] = in->routes[route[j]].beta[f];
			}
			continue;
		}
		for (uint32_t j = 0; j < bk->nr; j++)
			h->b[j] = beta[CELL(ft, route[j], f)];
		block_e(pk, bk, h->b, h->s, false);
		struct m_feat mf = m_feat_of(in, ft, f);
		if (!all && in->feats[f].tied != INFER_NONE)
			/* a feature tied to another: settle_tied set it on every
			 * route, and each step starts it again from its records
			 * (the block's routes, below, over this) */
			for (uint32_t r = 0; r < R; r++)
				m_cell_of(in, ft, r, f, 0, &mf, h->dtot);
		for (uint32_t j = 0; j < bk->nr; j++) {
			m_cell_of(in, ft, route[j], f, h->s[j], &mf, h->dtot);
			beta[CELL(ft, route[j], f)] = h->nb[j] = in->routes[route[j]].beta[f];
		}
		if (thin && (full || all)) /* between full steps the layout stays */
			thin_block(in, ft, h, pk, k, &at, &pairs, &cells);
	}
}

/* The blocks into EM_PARTS parts of about the same work (weights and
 * records), and where each part's thinned blocks lie: after all the parts
 * before it could take. */
/* Block bk's pairs (0 for a dense block), and its work in a step: its
 * records and the weights it reads (dense: one per record and route). */
static uint32_t block_pairs(const struct packed *pk, const struct pk_block *bk)
{
	return bk->dense ? 0 : pk->off[bk->off0 + bk->n] - pk->off[bk->off0];
}

static uint64_t block_work(const struct packed *pk, const struct pk_block *bk)
{
	return bk->n + (bk->dense ? (uint64_t)bk->n * bk->nr : block_pairs(pk, bk));
}

static void em_split(struct fit *ft, const struct packed *pk)
{
	uint64_t total = 0, sum = 0, pairs_all = 0;
	for (uint32_t k = 0; k < pk->nblocks; k++) {
		total += block_work(pk, &pk->blocks[k]);
		pairs_all += block_pairs(pk, &pk->blocks[k]);
	}
	/* a step of few routes' blocks (dense, four records an instruction)
	 * costs about what handing half of it over costs: only sparse blocks
	 * of many pairs are worth the second thread (docs/perf.md) */
	ft->parts_worth = pairs_all >= EM_PARTS_PAIRS;
	uint32_t k = 0, recs = 0, pairs = 0, cells = 0;
	for (uint32_t q = 0; q < EM_PARTS; q++) {
		struct em_part *h = &ft->part[q];
		h->k0 = k;
		h->at0 = recs;
		h->pairs0 = pairs;
		h->cells0 = cells;
		for (; k < pk->nblocks && (q + 1 == EM_PARTS || sum * EM_PARTS < total * (q + 1)); k++) {
			const struct pk_block *bk = &pk->blocks[k];
			sum += block_work(pk, bk);
			recs += bk->n;
			pairs += block_pairs(pk, bk);
			cells += bk->nr;
		}
		h->k1 = k;
	}
}


/* One EM step over the packed records: posterior sums, then the rates
 * they make.  The first step of a fit (all) sets every route's every
 * feature.  After it only the cells the records can move change: each
 * route's features among its blocks (pk->feats; a route among none of a
 * feature's records keeps what it surely had) and only their rates are
 * published for the E step.  Every route's every feature, each step, was
 * most of a fit's cost with hundreds of routes. */
static void em_step(struct infer *in, struct fit *ft, const struct packed *pk, bool all, bool full)
{
	uint32_t R = ft->nroutes;
	double *beta = ft->beta;
	memcpy(ft->nf, pk->nf, sizeof ft->nf);
	if (all) { /* what no record moves has a sum of 0; the blocks' cells follow */
		struct m_feat mf[INFER_FEATURES];
		for (uint32_t f = 0; f < INFER_FEATURES; f++)
			mf[f] = m_feat_of(in, ft, f);
		for (uint32_t r = 0; r < R; r++)
			for (uint32_t f = 0; f < INFER_FEATURES; f++)
				m_cell_of(in, ft, r, f, 0, &mf[f], ft->dtot);
	}
	if (!ft->sv || !ft->parts_worth || ft->part[0].k1 == pk->nblocks || /* one part */
	    !fit_em_parts_parallel(in, ft, pk, all, full))
		for (int q = 0; q < EM_PARTS; q++)
			fit_em_part_step(in, ft, pk, &ft->part[q], all, full);
	for (int q = 0; q < EM_PARTS; q++) {
		const struct em_part *h = &ft->part[q];
		if (h->k1 == h->k0)
			continue;
		for (uint32_t r = 0; r < R; r++)
			ft->dtot[r] += h->dtot[r];
		in->thinned += h->thinned;
	}
	settle_tied(in, ft, R);
	if (all) {
		publish_rates(in, ft);
		return;
	}
	for (uint32_t k = 0; k < pk->nblocks; k++) { /* what settle_tied moved */
		const struct pk_block *bk = &pk->blocks[k];
		if (in->feats[bk->feat].tied == INFER_NONE)
			continue;
		for (uint32_t j = 0; j < bk->nr; j++) {
			uint32_t r = pk->route[bk->route0 + j];
			beta[CELL(ft, r, bk->feat)] = in->routes[r].beta[bk->feat];
		}
	}
}

/* Four sums side by side: one would wait on each add (a tenth of a fit's
 * time with 120 routes, summed every step). */
double fit_route_total(const struct infer_route *x)
{
	double t[4] = {0, 0, 0, 0};
	_Static_assert(INFER_FEATURES % 4 == 0, "features in fours");
	for (uint32_t f = 0; f < INFER_FEATURES; f += 4)
		for (uint32_t k = 0; k < 4; k++)
			t[k] += x->final[f + k];
	return (t[0] + t[1]) + (t[2] + t[3]);
}

void fit_to(struct infer *in, struct fit *ft, const struct packed *pk, uint32_t iters,
		   double *tot)
{
	uint32_t R = ft->nroutes;
	for (uint32_t k = 0; !ft->thin_tried && k < pk->nblocks; k++)
		if (thin_worth(in, &pk->blocks[k])) {
			ft->thin_tried = true;
			thin_alloc(ft, in->nsample, in->npairs);
		}
	em_split(ft, pk);
	for (uint32_t it = 0; it < iters; it++) {
		memset(ft->dtot, 0, R * sizeof(*ft->dtot));
		em_step(in, ft, pk, it == 0, it % FULL_EVERY == 0);
		double worst = 0;
		for (uint32_t r = 0; r < R; r++) {
			/* after the first step, what the cells that moved moved by
			 * (summing every route's every feature each step was a
			 * fifth of a fit's time with 120 routes) */
			double t = it == 0 ? fit_route_total(&in->routes[r]) : tot[r] + ft->dtot[r];
			double d = fabs(t - tot[r]) / (tot[r] > 1 ? tot[r] : 1);
			worst = d > worst ? d : worst;
			tot[r] = t;
		}
		if (worst < FIT_TOLERANCE)
			break;
	}
	for (uint32_t r = 0; r < R; r++) /* the figures: summed, not moved by */
		tot[r] = fit_route_total(&in->routes[r]);
}

/* Where EM starts.  EM on a mixture climbs to the nearest peak, and the
 * running guess can sit below the wrong one (two routes' statements
 * swapped).  So it starts from what each feature's candidates say on
 * their own: the route whose pages are among them more often than among
 * everyone's (its lift) is likelier its owner - the owner's page is always
 * there, the others' only by chance. */
void fit_start_from_lift(struct infer *in, struct fit *ft, const struct packed *pk)
{
	uint32_t R = ft->nroutes;
	double *base = calloc(R, sizeof(double));
	if (!base)
		return;
	double *mean = ft->sum; /* scratch: per route and feature, the mean share */
	memset(mean, 0, R * INFER_FEATURES * sizeof(double));
	memcpy(ft->nf, pk->nf, sizeof ft->nf);
	for (uint32_t k = 0; k < pk->nblocks; k++) { /* each record's weights, as shares */
		const struct pk_block *bk = &pk->blocks[k];
		const uint16_t *route = pk->route + bk->route0;
		for (uint32_t j = 0; j < bk->nr; j++)
			ft->b[j] = 1;
		block_e(pk, bk, ft->b, ft->s, false);
		for (uint32_t j = 0; j < bk->nr; j++)
			mean[CELL(ft, route[j], bk->feat)] = ft->s[j];
	}
	/* a route's share at any moment: each page weighs 1 over its window */
	double pages = 0;
	for (uint32_t r = 0; r < R; r++)
		pages += in->routes[r].pages;
	for (uint32_t r = 0; r < R; r++)
		base[r] = pages > 0 ? in->routes[r].pages / pages : 0;
	for (uint32_t f = 0; f < INFER_FEATURES; f++) {
		if (ft->nf[f] == 0 || (ft->only && !has_bit(ft->only, f)))
			continue;
		double lift[1024], tot = 0;
		uint32_t n = R < 1024 ? R : 1024;
		for (uint32_t r = 0; r < n; r++) {
			double s = mean[CELL(ft, r, f)] / ft->nf[f] - base[r];
			lift[r] = held_off(ft, &in->routes[r], f) ? 0 : (s > 0 ? s : 0) + 1e-6;
			tot += lift[r];
		}
		for (uint32_t r = 0; r < n; r++) {
			struct infer_route *x = &in->routes[r];
			x->final[f] = x->certain[f] + (tot > 0 ? in->feats[f].uncertain * lift[r] / tot : 0);
			x->beta[f] = held_off(ft, x, f) ? RATE_FLOOR : rate_of(ft, x, x->final[f]);
		}
	}
	settle_tied(in, ft, R);
	publish_rates(in, ft);
	free(base);
}

/* How much the figures hang on the model's density: the estimate again
 * on records (every stride-th of the sample) under gamma
 * GAMMAS[m], each candidate's density put to that power (a route's pages
 * among them taken as alike); into t, the routes' totals.  The shifts are
 * each other model's less model 0's on the same records (their noise
 * mostly cancels in the difference): infer_solve's. */
bool fit_model(struct infer *in, struct fit *ft, struct packed *pk, uint32_t stride, int m,
		      double *t)
{
	struct part pt = {-1, stride, in->sample, in->nsample, in->rec_size, NULL, m};
	if (!fit_pack(&pt, pk))
		return false;
	ft->model = m;
	fit_start_from_lift(in, ft, pk);
	fit_to(in, ft, pk, FIT_STEPS, t);
	ft->model = 0;
	return true;
}

