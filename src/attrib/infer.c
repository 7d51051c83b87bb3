/* infer.c - routes for round trips pages of several routes held (infer.h). */
#include "infer.h"
#include "base/timing.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* A busy wait's pause: kinder to a sibling hardware thread */
static inline void cpu_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield");
#endif
}

/* One turn of a busy wait: a pause, and after the first few thousand a
 * yield, so that where the other thread has no core of its own it gets
 * this one. */
static inline void spin_pause(uint32_t *turns)
{
	if (++*turns > 4096)
		sched_yield();
	else
		cpu_pause();
}

/* EM steps from the lift's start.  Fewer than convergence on purpose: the
 * model (round trips spread evenly over a page) is not what apps do, and
 * its exact optimum was measured further from the truth than 50 steps from
 * the lift in every case of docs/pages.md's table (a regularised fit). */
#define FIT_STEPS 50
#define FIT_TOLERANCE 1e-6 /* relative change of every route's total */
#define JACK_PARTS 8
#define JACK_SAMPLE 2048 /* the jackknife runs on at most this many: its variance scales */
#define RATE_FLOOR 1e-12 /* a rate never quite 0: EM could not bring it back */

static const double GAMMAS[INFER_MODELS] = INFER_GAMMAS;

/* Which records a fit uses: every stride-th of recs, less part `skip` of
 * the JACK_PARTS (-1: none left out). */
struct part {
	int skip;
	uint32_t stride;
	const unsigned char *recs; /* records of rec_size bytes */
	uint32_t nrec, rec_size;
	const uint64_t *only; /* bits by feature: only their records (NULL: all) */
	int model; /* the weights under GAMMAS[model] (model_fit; 0: as recorded) */
};

void infer_init(struct infer *in)
{
	memset(in, 0, sizeof(*in));
	for (int f = 0; f < INFER_FEATURES; f++)
		in->feats[f].tied = INFER_NONE;
	in->rng = 0x9e3779b97f4a7c15ull;
}

void infer_free(struct infer *in)
{
	for (uint32_t r = 0; in->routes && r < in->nroutes; r++)
		free(in->routes[r].certain); /* one block: certain, given, beta, final */
	free(in->routes);
	free(in->sample);
	free(in->beside);
	free(in->cells);
	memset(in, 0, sizeof(*in));
}

/* Sample record i */
static struct infer_rec *rec_at(const struct infer *in, uint32_t i)
{
	return (struct infer_rec *)(in->sample + (size_t)i * in->rec_size);
}

/* Route r's cell of feature f: its certain, then its given */
static double *cell(const struct infer *in, uint32_t r, uint32_t f)
{
	return in->cells + 2 * ((size_t)f * in->cell_stride + r);
}

/* Cells for c routes a feature: the rows laid out again at that stride. */
static bool cells_grow(struct infer *in, uint32_t c)
{
	double *n = calloc((size_t)INFER_FEATURES * c * 2, sizeof(double));
	if (!n)
		return false;
	for (uint32_t f = 0; in->cells && f < INFER_FEATURES; f++)
		memcpy(n + 2 * (size_t)f * c, cell(in, 0, f), 2 * in->cell_stride * sizeof(double));
	free(in->cells);
	in->cells = n;
	in->cell_stride = c;
	return true;
}

bool infer_route(struct infer *in, uint32_t r)
{
	if (r < in->nroutes)
		return in->routes[r].certain != NULL;
	if (r >= in->cap_routes) {
		uint32_t c = in->cap_routes ? in->cap_routes : 16;
		while (c <= r)
			c *= 2;
		struct infer_route *p = realloc(in->routes, c * sizeof(*p));
		if (!p)
			return in->short_of_memory = true, false;
		in->routes = p;
		in->cap_routes = c;
	}
	if (in->cell_stride < in->cap_routes && !cells_grow(in, in->cap_routes))
		return in->short_of_memory = true, false;
	for (; in->nroutes <= r; in->nroutes++) {
		struct infer_route *x = &in->routes[in->nroutes];
		memset(x, 0, sizeof(*x));
		double *block = calloc(4 * INFER_FEATURES, sizeof(double));
		if (block) {
			x->certain = block;
			x->given = block + INFER_FEATURES;
			x->beta = block + 2 * INFER_FEATURES;
			x->final = block + 3 * INFER_FEATURES;
		}
	}
	in->short_of_memory |= in->routes[r].certain == NULL;
	return in->routes[r].certain != NULL;
}

void infer_tie(struct infer *in, uint32_t f, uint32_t to)
{
	if (f < INFER_FEATURES && to < INFER_FEATURES && f != to) {
		in->feats[f].tied = (uint16_t)to;
		in->tied[f / 64] |= 1ull << (f % 64);
	}
}

void infer_certain(struct infer *in, uint32_t r, uint32_t f, double w)
{
	if (f >= INFER_FEATURES || !infer_route(in, r))
		return;
	cell(in, r, f)[0] += w;
	in->feat_sum[f] += w;
	in->solved = false;
}

void infer_tied(struct infer *in, uint32_t r, uint32_t f, double w, bool first)
{
	if (f >= INFER_FEATURES)
		return;
	if (first)
		in->feats[f].uncertain += 1;
	if (infer_route(in, r)) {
		cell(in, r, f)[1] += w;
		in->routes[r].possible += w > 0;
		in->feat_sum[f] += w;
	}
	in->solved = false;
}

void infer_page_in(struct infer *const *in, uint32_t n, uint32_t r, uint64_t len_ns)
{
	/* the powers once: two fits each closing every page took a pow per
	 * model twice (~3% of the placing thread's instructions, 12 routes) */
	double len = ((double)len_ns + 1e3) / 1e9; /* as the density's: attrib.c */
	double expo[INFER_MODELS];
	for (int m = 0; m < INFER_MODELS; m++)
		expo[m] = GAMMAS[m] == 1 ? 1 : pow(len, 1 - GAMMAS[m]);
	for (uint32_t i = 0; i < n; i++) {
		if (!infer_route(in[i], r))
			continue;
		struct infer_route *x = &in[i]->routes[r];
		x->pages += 1;
		for (int m = 0; m < INFER_MODELS; m++)
			x->expo[m] += expo[m];
		in[i]->pages_total += 1;
	}
}

void infer_page(struct infer *in, uint32_t r, uint64_t len_ns)
{
	infer_page_in(&in, 1, r, len_ns);
}

void infer_page_start(struct infer *in, uint32_t b)
{
	if (!in->beside) /* the first page: its pairs are none */
		in->beside = calloc(INFER_LOCK_ROUTES * INFER_LOCK_ROUTES, sizeof(*in->beside));
	if (b < INFER_LOCK_ROUTES)
		in->started[b] += 1;
	in->solved = false;
}

/* Which pairs of routes start in lockstep (struct infer's lock).  A page
 * that starts at a moment independent of the others' sees as many of a's
 * pages in flight as any other page sees at its start (arrivals see time
 * averages; a's own pages count the others of a).  So one of a's pages
 * leads each of b's when, at b's starts, a's pages in flight exceed what
 * every other route's starts see by LOCK_EXCESS pages or more, and by
 * LOCK_SIGMA standard errors (Poisson: the count at a start varies as its
 * mean).  Measured on the C app under wrk -c16 cycling its paths
 * (docs/pages.md): about 0.3 more index pages in flight at the tag pages'
 * starts, 6 to 16 standard errors in 6-10 s; with the same paths chosen
 * at random 0.00.  Under LOCK_MIN_PAGES starts of b the count is no
 * Poisson mean (three pages beside a rare route's would do), and no pair
 * is found. */
#define LOCK_EXCESS 0.2
#define LOCK_SIGMA 5.0
#define LOCK_MIN_PAGES 100
static void find_lockstep(struct infer *in)
{
	memset(in->lock, 0, sizeof in->lock);
	if (!in->beside)
		return;
	uint32_t R = in->nroutes < INFER_LOCK_ROUTES ? in->nroutes : INFER_LOCK_ROUTES;
	double all = 0;
	for (uint32_t c = 0; c < R; c++)
		all += in->started[c];
	for (uint32_t a = 0; a < R; a++) {
		const double *s = &in->beside[a * INFER_LOCK_ROUTES];
		double sum = 0;
		for (uint32_t c = 0; c < R; c++)
			sum += s[c];
		for (uint32_t b = 0; b < R; b++) {
			double nb = in->started[b], others = all - nb;
			if (b == a || nb < LOCK_MIN_PAGES || others < LOCK_MIN_PAGES)
				continue;
			double base = (sum - s[b]) / others, excess = s[b] / nb - base;
			double se = sqrt((base > 0.01 ? base : 0.01) / nb);
			if (excess < LOCK_EXCESS || excess < LOCK_SIGMA * se)
				continue;
			in->lock[a] |= 1ull << b;
			in->lock[b] |= 1ull << a;
		}
	}
}

/* A route's rate for f while the capture runs: what it was given and
 * surely had, per page, pulled towards the rate over all routes while it
 * has few pages (one page's worth). */
static double rate_now(const struct infer *in, uint32_t r, uint32_t f, double all)
{
	const double *c = cell(in, r, f);
	return (c[0] + c[1] + all) / (in->routes[r].pages + 1) + RATE_FLOOR;
}

static uint64_t next_rand(struct infer *in)
{
	in->rng ^= in->rng << 13;
	in->rng ^= in->rng >> 7;
	in->rng ^= in->rng << 17;
	return in->rng;
}

/* Candidates of one route are one to the model (their probabilities go as
 * their weights): kept summed, the heaviest routes when there are more
 * than a record holds. */
static uint32_t group(const struct infer_cand *c, uint32_t n, struct infer_cand *out)
{
	uint32_t m = 0;
	uint64_t seen = 0; /* bit route % 64 of each route in out[] (or once there): most need no search */
	for (uint32_t i = 0; i < n; i++) {
		uint64_t bit = 1ull << (c[i].route % 64);
		uint32_t k = m;
		if (seen & bit)
			for (k = 0; k < m && out[k].route != c[i].route;)
				k++;
		seen |= bit;
		if (k < m) {
			out[k].w += c[i].w;
			out[k].pages = (uint16_t)(out[k].pages + c[i].pages);
		} else if (m < INFER_CANDS) {
			out[m++] = c[i];
		} else {
			uint32_t light = 0;
			for (uint32_t j = 1; j < m; j++)
				if (out[j].w < out[light].w)
					light = j;
			if (out[light].w < c[i].w)
				out[light] = c[i];
		}
	}
	return m;
}

/* A handle on sample slot `slot` holding round trip number id */
#define HANDLE(slot, id) ((uint64_t)(id) << 32 | (slot))

/* Room in each record for n candidates: the sample laid out again with
 * larger records (a few times at most: 4, 8, 16, INFER_CANDS). */
static bool sample_room(struct infer *in, uint32_t n)
{
	if (in->sample && n <= in->rec_cap)
		return true;
	uint32_t cap = in->rec_cap ? in->rec_cap : 4;
	while (cap < n)
		cap *= 2;
	cap = cap < INFER_CANDS ? cap : INFER_CANDS;
	uint32_t size = (uint32_t)(sizeof(struct infer_rec) + cap * sizeof(struct infer_cand));
	unsigned char *p = realloc(in->sample, (size_t)INFER_SAMPLE * size);
	if (!p)
		return in->short_of_memory = true, false;
	for (uint32_t i = in->nsample; i-- > 0;) /* from the last: each moves up */
		memmove(p + (size_t)i * size, p + (size_t)i * in->rec_size, in->rec_size);
	in->sample = p;
	in->rec_cap = cap;
	in->rec_size = size;
	return true;
}

static uint64_t keep_sample(struct infer *in, uint32_t f, const struct infer_cand *cands,
			    uint32_t n)
{
	struct infer_cand c[INFER_CANDS];
	n = group(cands, n, c);
	if (!sample_room(in, n))
		return 0;
	in->seen++;
	uint64_t slot = in->nsample < INFER_SAMPLE ? in->nsample : next_rand(in) % in->seen;
	if (slot >= INFER_SAMPLE)
		return 0; /* a uniform sample of all of them: reservoir sampling */
	struct infer_rec *rec = rec_at(in, (uint32_t)slot);
	if (in->nsample < INFER_SAMPLE)
		in->nsample++;
	rec->id = (uint32_t)in->seen ? (uint32_t)in->seen : 1;
	rec->feat = (uint16_t)f;
	rec->n = (uint8_t)n;
	memcpy(rec->c, c, n * sizeof(*c));
	return HANDLE(slot, rec->id);
}

void infer_narrow(struct infer *in, uint64_t handle, const struct infer_cand *cands, uint32_t n)
{
	uint32_t slot = (uint32_t)handle, id = (uint32_t)(handle >> 32);
	if (!handle || !in->sample || slot >= in->nsample || rec_at(in, slot)->id != id || n == 0)
		return;
	struct infer_rec *rec = rec_at(in, slot);
	struct infer_cand c[INFER_CANDS];
	n = group(cands, n, c);
	rec->n = (uint8_t)n;
	memcpy(rec->c, c, n * sizeof(*c));
	in->solved = false;
}

uint64_t infer_weigh(struct infer *in, uint32_t f, const struct infer_cand *cands, uint32_t n,
		     double *p)
{
	uint64_t handle = 0;
	double all = f < INFER_FEATURES && in->pages_total > 0 ? in->feat_sum[f] / in->pages_total : 1;
	double z = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t r = cands[i].route;
		/* a route seen before without a call (a million of them, a fortieth
		 * of placing, with 120 routes) */
		bool known = r < in->nroutes ? in->routes[r].certain != NULL : infer_route(in, r);
		p[i] = known ? rate_now(in, r, f, all) * cands[i].w : 0;
		z += p[i];
	}
	for (uint32_t i = 0; i < n; i++) {
		p[i] = z > 0 ? p[i] / z : 1.0 / n;
		if (f < INFER_FEATURES && in->routes && cands[i].route < in->nroutes &&
		    in->routes[cands[i].route].given) {
			cell(in, cands[i].route, f)[1] += p[i];
			in->routes[cands[i].route].possible += 1; /* cands are one per route */
			in->feat_sum[f] += p[i];
		}
	}
	if (f < INFER_FEATURES) {
		in->feats[f].uncertain += 1;
		handle = keep_sample(in, f, cands, n);
	}
	in->solved = false;
	return handle;
}

/* ----------------------------------------------------------------------
 * The fit
 * ---------------------------------------------------------------------- */

/* Parts of an EM step (struct fit's part): more than the threads, so that
 * the two end together (two halves by the records' weights were 4.4 and
 * 3.4 ms of a 12-route estimate: costs per block are not the weights') */
#define EM_PARTS 8
#define EM_PARTS_PAIRS 32768 /* pairs (sparse blocks') in a step worth two threads */

struct fit {
	uint32_t nroutes;
	/* by feature, then route (CELL): a block's routes' cells are in one
	 * row, not a route's 2 KiB apart (the gather was a third of a fit's
	 * time with 120 routes) */
	double *sum;  /* INFER_FEATURES x nroutes: posterior sums over the sample */
	double *beta; /* INFER_FEATURES x nroutes: the routes' beta[] */
	double nf[INFER_FEATURES]; /* sample records per feature */
	int model;    /* GAMMAS[model]: what the routes' pages expose */
	bool doubtful; /* cells in doubt are held at 0 too */
	const uint64_t *only; /* bits by feature: only these are fitted, the rest kept (NULL: all) */
	double *b, *s, *nb; /* nroutes: one block's rates, posterior sums, new rates */
	double *dtot; /* nroutes: what a step moved each route's total by (m_cell_of) */
	struct thin *thin; /* the blocks' records less their frozen cells (em_step) */
	bool thin_tried; /* thin_alloc was called (fit_to): once, whatever it gave */
	/* An EM step's blocks in EM_PARTS parts of about the same work, each
	 * with scratch of its own: taken in turn by two threads where the fit
	 * has them (sv: the estimate and the refit, while the second thread
	 * has nothing else to do), one after the other elsewhere - the same
	 * parts and their sums in the same order either way, so the same
	 * figures on one thread or two.  A part's blocks read and write their
	 * own features' cells alone. */
	struct em_part {
		uint32_t k0, k1;              /* its blocks */
		uint32_t at0, pairs0, cells0; /* where its thinned blocks lie (thin_block) */
		double *b, *s, *nb;           /* by a block's route: rates, sums, new rates */
		double *dtot;                 /* by route: what its cells moved the totals by */
		uint8_t *frozen;              /* by a block's route: thin_block's */
		uint32_t thinned;
	} part[EM_PARTS];
	double *part_mem; /* the parts' scratch, one block */
	struct solve *sv; /* the two threads, or NULL */
	bool parts_worth; /* em_split: a step's work is worth handing over */
};

#define CELL(ft, r, f) ((size_t)(f) * (ft)->nroutes + (r))

static bool has_bit(const uint64_t *bits, uint32_t f)
{
	return bits[f / 64] >> (f % 64) & 1;
}

/* Route x's rate for f is held at 0 in this fit. */
static bool held_off(const struct fit *ft, const struct infer_route *x, uint32_t f)
{
	return has_bit(x->off, f) || (ft->doubtful && has_bit(x->doubt, f));
}

/* A route's rate for a feature of that total, under the fit's model. */
static double rate_of(const struct fit *ft, const struct infer_route *x, double total)
{
	double e = x->expo[ft->model];
	return total / (e > 0 ? e : 1) + RATE_FLOOR;
}

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

/* The record PREFETCH_AHEAD records on from i, asked for: the sample is
 * megabytes, out of the caches by the end, and a part's records are
 * read with a stride the hardware's prefetch does not follow (a loop
 * over them took twice as long without). */
#define PREFETCH_AHEAD 8
static inline void prefetch_rec(const struct part *pt, uint32_t i)
{
	uint64_t ahead = i + (uint64_t)PREFETCH_AHEAD * pt->stride;
	if (ahead < pt->nrec)
		__builtin_prefetch(pt->recs + ahead * pt->rec_size);
}

/* A loop over the records of part pt, each as rec (the body follows). */
#define FOR_PART(pt, rec)                                                                   \
	for (uint32_t i_ = 0, j_ = 0; i_ < (pt)->nrec; i_ += (pt)->stride, j_++)               \
		if (prefetch_rec(pt, i_), (pt)->skip >= 0 && (int)(j_ % JACK_PARTS) == (pt)->skip) { \
		} else                                                                         \
			for (const struct infer_rec *rec = (const void *)((pt)->recs + (size_t)i_ * (pt)->rec_size); \
			     rec; rec = NULL)

/* A part's records as the fit reads them, hundreds of times over: by
 * feature (a record's candidates are all of its feature), each feature's
 * block over the routes among its records - local indices, in the order
 * they first appear - and each record's weights side by side: dense, a
 * weight for each of the block's routes (0 where it was no candidate),
 * where the block has few routes, else as (local route, weight) pairs.
 * So the E step reads a small array of rates and sums into another, with
 * no index arithmetic per candidate (it was most of the fit's cost). */
#define DENSE_MAX 8 /* routes in a dense block: its records cost 4 per route, a pair about 20 */

struct pk_block {
	uint16_t feat, nr;
	bool dense;
	uint32_t n;      /* records */
	uint32_t route0; /* its routes: pk->route[route0 .. route0 + nr) */
	uint32_t w0;     /* dense: route j's weight in record i at pk->w[w0 + j * n + i] */
	uint32_t off0;   /* sparse: record i's pairs at [pk->off[off0 + i], pk->off[off0 + i + 1]) */
};

struct packed {
	uint32_t n, nblocks; /* records, blocks */
	uint32_t nroutes;    /* a record naming a route past these is left out */
	struct pk_block blocks[INFER_FEATURES];
	int16_t block_of[INFER_FEATURES]; /* feature -> its block, or -1 */
	uint16_t *route; /* the blocks' routes (global ids) */
	/* weights, dense blocks' and sparse pairs': floats, as the records
	 * hold them (and cand_w rounds), so the E step reads half the bytes
	 * for the same sums */
	float *w;
	uint16_t *loc;   /* sparse pairs: the local route of w[k] */
	uint32_t *off;   /* sparse blocks: offsets into w and loc */
	/* by route, the features of the blocks it is in, ascending: route r's
	 * at feats[feats_at[r] .. feats_at[r + 1]) - the cells an EM step
	 * moves, in the order the routes' arrays lie */
	uint16_t *feats;
	uint32_t *feats_at;
	/* building: records by feature, and a route's local index (0: none) */
	const struct infer_rec **by_feat;
	uint16_t *local;
	double nf[INFER_FEATURES]; /* records per feature */
	unsigned char *mem; /* the arrays' block (packed_room), of cap bytes */
	size_t cap;
};

/* Carves n items of size each from *at (8-byte aligned), or counts them */
static void *carve(unsigned char *base, size_t *at, size_t n, size_t size)
{
	void *p = base ? base + *at : NULL;
	*at += (n * size + 7) & ~(size_t)7;
	return p;
}

/* The packing's arrays laid out from base for nrec records, nw weights
 * and nroute block routes, one after another; their size.  Laid out for
 * each packing's own counts (pack, pack_subset), so that a part of the
 * sample - the jackknife's, the models' - lies in the first few hundred
 * KiB of its block: laid out for the whole sample, the first bytes of each
 * array touched a huge page of their own (fresh memory, 0.4-3 ms each on
 * a virtual machine).  Also resets local, which pack needs at 0. */
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
 * for them - made for the whole sample each block's far end touched a
 * fresh huge page, 0.4-5 ms, for nothing).  False: out of memory. */
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

static void packed_init(struct packed *pk, uint32_t R)
{
	memset(pk, 0, sizeof(*pk));
	pk->nroutes = R;
}

static void packed_free(struct packed *pk)
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
 * density (model_fit) - each page's to the power gamma, the route's
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
static bool pack(const struct part *pt, struct packed *pk)
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
 * is megabytes, read twice and then by feature, and the refit and the
 * fit with the doubtful each packed it again (~1 ms each on the blog
 * app's captures, after the reading). */
static bool pack_subset(const struct packed *all, const uint64_t *only, struct packed *pk)
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

static void thin_free(struct fit *ft);

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
			thin_free(ft); /* no thinning: the same EM, slower */
			return false;
		}
	}
	return true;
}

static void thin_free(struct fit *ft)
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
static void em_part_step(struct infer *in, struct fit *ft, const struct packed *pk,
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
	 * takes ~10 us, what handing half of it over costs: the pgx app's
	 * estimate (3 routes, 16,384 records) took 0.44 ms on one thread and
	 * 4.8 on two.  Of pairs, 12 routes' 130 k, a step ~150 us. */
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

static bool em_parts_parallel(struct infer *in, struct fit *ft, const struct packed *pk, bool all,
			      bool full);

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
	    !em_parts_parallel(in, ft, pk, all, full))
		for (int q = 0; q < EM_PARTS; q++)
			em_part_step(in, ft, pk, &ft->part[q], all, full);
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
static double route_total(const struct infer_route *x)
{
	double t[4] = {0, 0, 0, 0};
	_Static_assert(INFER_FEATURES % 4 == 0, "features in fours");
	for (uint32_t f = 0; f < INFER_FEATURES; f += 4)
		for (uint32_t k = 0; k < 4; k++)
			t[k] += x->final[f + k];
	return (t[0] + t[1]) + (t[2] + t[3]);
}

static void fit_to(struct infer *in, struct fit *ft, const struct packed *pk, uint32_t iters,
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
			double t = it == 0 ? route_total(&in->routes[r]) : tot[r] + ft->dtot[r];
			double d = fabs(t - tot[r]) / (tot[r] > 1 ? tot[r] : 1);
			worst = d > worst ? d : worst;
			tot[r] = t;
		}
		if (worst < FIT_TOLERANCE)
			break;
	}
	for (uint32_t r = 0; r < R; r++) /* the figures: summed, not moved by */
		tot[r] = route_total(&in->routes[r]);
}

/* Where EM starts.  EM on a mixture climbs to the nearest peak, and the
 * running guess can sit below the wrong one (two routes' statements
 * swapped).  So it starts from what each feature's candidates say on
 * their own: the route whose pages are among them more often than among
 * everyone's (its lift) is likelier its owner - the owner's page is always
 * there, the others' only by chance. */
static void start_from_lift(struct infer *in, struct fit *ft, const struct packed *pk)
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
static bool model_fit(struct infer *in, struct fit *ft, struct packed *pk, uint32_t stride, int m,
		      double *t)
{
	struct part pt = {-1, stride, in->sample, in->nsample, in->rec_size, NULL, m};
	if (!pack(&pt, pk))
		return false;
	ft->model = m;
	start_from_lift(in, ft, pk);
	fit_to(in, ft, pk, FIT_STEPS, t);
	ft->model = 0;
	return true;
}

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
 * likelihood overstates what it knows - a CI run's blog app under 50
 * clients gave a route another's statement with a difference of 10.05,
 * and an interval short of the truth) the route is doubtful: the estimate
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
 * none to all of it (vague_bounds).  Features
 * are apart in the model: each is fitted on its own records, over the
 * routes among them.
 * ---------------------------------------------------------------------- */

#define SELECT_STEPS 100       /* extrapolated steps, three EM steps each */
#define SELECT_TOLERANCE 1e-4  /* log-likelihood: a thousandth of BIC's thresholds */
#define SELECT_TESTS 8      /* shares tested per feature: the smallest */
#define SELECT_MIN_SHARE 0.5 /* round trips: a smaller share moves no figure */
#define VERY_STRONG 20.0

struct select {
	const struct packed *pk;
	const struct pk_block *bk;          /* feature f's records */
	uint32_t *routes, nr;               /* the routes among them (the block's) */
	uint8_t *held;                      /* by route: its rate held at 0 */
	double *post;                       /* by route: the E step's sums */
	double *b1, *b2, *bp;               /* by route: feat_fit's steps */
	double *lb, *ls;                    /* by the block's routes: rates, sums */
};

static bool select_alloc(struct select *sl, const struct packed *pk, uint32_t R)
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

static void select_free(struct select *sl)
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
	double ll = block_e(sl->pk, sl->bk, sl->lb, sl->ls, want_ll);
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
 * the likelihood moves by less than matters to select_feature.  Returns
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
static void select_feature(struct infer *in, struct select *sl, uint32_t f, double *b,
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

static bool any_bit(const uint64_t *bits)
{
	for (uint32_t w = 0; w < INFER_FEATURES / 64; w++)
		if (bits[w])
			return true;
	return false;
}

/* ----------------------------------------------------------------------
 * The fit on two cores
 *
 * After the estimate, the features' tests (select_feature) are apart from
 * each other, and so are the jackknife's eight fits, the model's three and
 * the fit with the doubtful: each is a task, and two threads take them in
 * turn.  Each thread has its own copy of what a fit changes (the routes'
 * final and beta, the off and doubt bits, its scratch).  A task starts
 * from the estimate's state, whichever thread runs it and whatever ran
 * before, and leaves its result in its own slot: the figures are the same
 * on one thread and on two.
 * ---------------------------------------------------------------------- */

enum { TASK_JACK = 0, TASK_MODEL = JACK_PARTS, TASK_DOUBT = JACK_PARTS + INFER_MODELS, NTASKS };

struct worker {
	struct infer own;   /* the copy (worker 1): routes of its own */
	struct infer *in;   /* the infer its tasks change: the caller's, or &own */
	double *store;      /* the copy's routes' final and beta */
	struct fit ft;
	struct packed pk;
	struct select sl;
	double *b;          /* 3 x routes: select_feature's scratch */
	bool ok;
};

struct solve {
	const struct packed *all; /* the whole sample, packed: the tests read it */
	struct packed whole;      /* that packing, kept: the refit's and the doubtful's come from it */
	const double *save;       /* the estimate's final and beta, by route */
	const double *tot;        /* its totals */
	uint32_t stride;
	const uint64_t *doubts;
	bool doubts_first; /* fit_task: TASK_DOUBT is task 0 */
	uint16_t feats[INFER_FEATURES]; /* the features to test, largest first */
	uint32_t nfeats;
	double *out; /* NTASKS x routes: each fit task's totals */
	void (*task)(struct solve *, struct worker *, uint32_t);
	uint32_t ntasks;
	atomic_uint next;
	pthread_t helper; /* w[1]'s (helper_start) */
	pthread_mutex_t mu;
	pthread_cond_t wake;
	bool helping;
	uint32_t lists;   /* task lists given out */
	atomic_uint gen, done; /* the list the helper is to take, the last it finished */
	atomic_bool short_of_memory; /* a fit task had no room for its part: no interval from them */
	const struct em_job *em; /* the EM step whose parts run now (em_task) */
	atomic_bool helper_up; /* its thread runs: lists need not wait for its start */
	struct worker w[2];
};

static bool worker_init(struct worker *w, struct infer *in, bool copy)
{
	uint32_t R = in->nroutes;
	memset(w, 0, sizeof(*w));
	w->in = in;
	if (copy) {
		w->own = *in;
		w->own.routes = malloc(R * sizeof(*w->own.routes));
		w->store = malloc((size_t)R * 2 * INFER_FEATURES * sizeof(double));
		if (!w->own.routes || !w->store)
			return false;
		memcpy(w->own.routes, in->routes, R * sizeof(*w->own.routes));
		for (uint32_t r = 0; r < R; r++) {
			w->own.routes[r].final = w->store + (size_t)r * 2 * INFER_FEATURES;
			w->own.routes[r].beta = w->own.routes[r].final + INFER_FEATURES;
		}
		w->in = &w->own;
	}
	w->ft = (struct fit){.nroutes = R,
			     .sum = calloc((size_t)R * INFER_FEATURES, sizeof(double)),
			     .beta = calloc((size_t)R * INFER_FEATURES, sizeof(double)),
			     .doubtful = true,
			     .b = calloc(4 * (size_t)R, sizeof(double))};
	/* the parts' scratch: rates, sums, new rates and totals' moves by
	 * route each, then frozen marks */
	w->ft.part_mem = malloc(EM_PARTS * (4 * (size_t)R * sizeof(double) + R + 1));
	for (int q = 0; w->ft.part_mem && q < EM_PARTS; q++) {
		struct em_part *x = &w->ft.part[q];
		x->b = w->ft.part_mem + (size_t)q * 4 * R;
		x->s = x->b + R;
		x->nb = x->b + 2 * R;
		x->dtot = x->b + 3 * R;
		x->frozen = (uint8_t *)(w->ft.part_mem + EM_PARTS * 4 * (size_t)R) + (size_t)q * (R + 1);
	}
	w->ft.s = w->ft.b ? w->ft.b + R : NULL;
	w->ft.nb = w->ft.b ? w->ft.b + 2 * R : NULL;
	w->ft.dtot = w->ft.b ? w->ft.b + 3 * R : NULL;
	w->b = malloc(3 * (size_t)R * sizeof(double));
	packed_init(&w->pk, R); /* its room as its packings need (packed_room) */
	w->ok = w->ft.sum && w->ft.beta && w->ft.b && w->ft.part_mem && w->b &&
		select_alloc(&w->sl, &w->pk, R);
	return w->ok;
}

static void worker_free(struct worker *w)
{
	packed_free(&w->pk);
	select_free(&w->sl);
	free(w->ft.sum);
	free(w->ft.beta);
	free(w->ft.b);
	free(w->ft.part_mem);
	thin_free(&w->ft);
	free(w->b);
	free(w->store);
	free(w->own.routes);
}

/* The routes' state (final, beta) into save, and back. */
static void keep(const struct infer *in, double *save)
{
	for (uint32_t r = 0; r < in->nroutes; r++) {
		double *s = save + (size_t)r * (2 * INFER_FEATURES);
		memcpy(s, in->routes[r].final, INFER_FEATURES * sizeof(double));
		memcpy(s + INFER_FEATURES, in->routes[r].beta, INFER_FEATURES * sizeof(double));
	}
}

static void restore(struct infer *in, const double *save)
{
	for (uint32_t r = 0; r < in->nroutes; r++) {
		const double *s = save + (size_t)r * (2 * INFER_FEATURES);
		memcpy(in->routes[r].final, s, INFER_FEATURES * sizeof(double));
		memcpy(in->routes[r].beta, s + INFER_FEATURES, INFER_FEATURES * sizeof(double));
	}
}

/* A worker's loop: the next task not yet taken, until none is left. */
static void run_tasks(struct solve *sv, struct worker *w)
{
	for (uint32_t i; (i = atomic_fetch_add(&sv->next, 1)) < sv->ntasks;)
		sv->task(sv, w, i);
}

/* The second worker's thread: started once, as the fit begins (it was
 * started for the tests and again for the interval: a thread's start and
 * an idle core's wake-up took 0.1 to 2.5 ms on the 2-vCPU VMs here, as
 * long as a list's tasks).  Between lists it spins for up to
 * HELPER_SPIN_NS, which covers the packing, the estimate and the refit of
 * a few routes' fit even on a slow day (with 2 ms it slept through them,
 * and the tests of a 5 s capture took 3 ms, not 0.5), and then sleeps:
 * with many routes they take tens of milliseconds. */
#define HELPER_STOP UINT32_MAX
#define HELPER_SPIN_NS 10000000ull

/* The next list after `seen` (or HELPER_STOP) */
static uint32_t helper_wait(struct solve *sv, uint32_t seen)
{
	uint64_t until = 0;
	for (uint32_t turns = 1;; turns++) {
		uint32_t g = atomic_load_explicit(&sv->gen, memory_order_acquire);
		if (g != seen)
			return g;
		if (turns % 256 == 0) {
			uint64_t t = timing_now_ns();
			if (!until)
				until = t + HELPER_SPIN_NS;
			else if (t > until)
				break;
			sched_yield(); /* where it shares a core with the fit, the fit goes first */
		}
		cpu_pause();
	}
	pthread_mutex_lock(&sv->mu);
	uint32_t g;
	while ((g = atomic_load_explicit(&sv->gen, memory_order_acquire)) == seen)
		pthread_cond_wait(&sv->wake, &sv->mu);
	pthread_mutex_unlock(&sv->mu);
	return g;
}

static void *helper(void *arg)
{
	struct solve *sv = arg;
	atomic_store_explicit(&sv->helper_up, true, memory_order_release);
	for (uint32_t seen = 0;;) {
		uint32_t g = helper_wait(sv, seen);
		if (g == HELPER_STOP)
			return NULL;
		seen = g;
		run_tasks(sv, &sv->w[1]);
		atomic_store_explicit(&sv->done, g, memory_order_release);
	}
}

/* A list for the helper (or HELPER_STOP): under the lock, so that a
 * helper about to sleep sees it or is woken. */
static void helper_give(struct solve *sv, uint32_t g)
{
	pthread_mutex_lock(&sv->mu);
	atomic_store_explicit(&sv->gen, g, memory_order_release);
	pthread_cond_signal(&sv->wake);
	pthread_mutex_unlock(&sv->mu);
}

static void helper_start(struct solve *sv)
{
	atomic_init(&sv->gen, 0);
	atomic_init(&sv->done, 0);
	if (!sv->w[1].ok || pthread_mutex_init(&sv->mu, NULL) != 0)
		return;
	if (pthread_cond_init(&sv->wake, NULL) != 0 ||
	    pthread_create(&sv->helper, NULL, helper, sv) != 0) {
		pthread_mutex_destroy(&sv->mu); /* the cond: nothing to free on Linux */
		return;
	}
	sv->helping = true;
}

static void helper_stop(struct solve *sv)
{
	if (!sv->helping)
		return;
	helper_give(sv, HELPER_STOP);
	pthread_join(sv->helper, NULL);
	pthread_cond_destroy(&sv->wake);
	pthread_mutex_destroy(&sv->mu);
	sv->helping = false;
}

/* sv->task over tasks 0 .. n, on both workers when the second is there. */
static void run_parallel(struct solve *sv, void (*task)(struct solve *, struct worker *, uint32_t),
			 uint32_t n)
{
	sv->task = task;
	sv->ntasks = n;
	atomic_store(&sv->next, 0);
	uint32_t g = ++sv->lists;
	if (sv->helping)
		helper_give(sv, g);
	run_tasks(sv, &sv->w[0]);
	uint32_t turns = 0;
	if (sv->helping) /* its last task: its results are in its slots */
		while (atomic_load_explicit(&sv->done, memory_order_acquire) != g)
			spin_pause(&turns);
}

/* An EM step's parts on the two threads: the estimate's and the refit's
 * (fits on the whole sample, with the second thread idle).  The tasks
 * after them run whole fits, one per thread, their parts in turn. */
struct em_job {
	struct infer *in;
	struct fit *ft;
	const struct packed *pk;
	bool all, full;
};

static void em_task(struct solve *sv, struct worker *w, uint32_t i)
{
	(void)w; /* the parts share the fit's own state: their features apart */
	const struct em_job *j = sv->em;
	em_part_step(j->in, j->ft, j->pk, &j->ft->part[i], j->all, j->full);
}

/* False: the second thread has not started yet (a list would wait for it:
 * 0.1-2.5 ms here), and the step's parts are the caller's to run. */
static bool em_parts_parallel(struct infer *in, struct fit *ft, const struct packed *pk, bool all,
			      bool full)
{
	if (!atomic_load_explicit(&ft->sv->helper_up, memory_order_acquire))
		return false;
	struct em_job j = {in, ft, pk, all, full};
	ft->sv->em = &j;
	run_parallel(ft->sv, em_task, EM_PARTS);
	ft->sv->em = NULL;
	return true;
}

static void test_feature(struct solve *sv, struct worker *w, uint32_t i)
{
	struct infer *in = w->in;
	uint32_t f = sv->feats[i], R = in->nroutes;
	w->sl.pk = sv->all;
	for (uint32_t r = 0; r < R; r++)
		w->b[r] = sv->save[(size_t)r * (2 * INFER_FEATURES) + INFER_FEATURES + f];
	select_feature(in, &w->sl, f, w->b, w->b + R, w->b + 2 * R);
}

static void fit_task(struct solve *sv, struct worker *w, uint32_t k)
{
	/* the fit with the doubtful first, where there is one: it runs on the
	 * whole sample, the others on a part of it, and the largest taken
	 * last would leave the other thread idle */
	uint32_t i = sv->doubts_first ? (k == 0 ? TASK_DOUBT : k - 1) : k;
	struct infer *in = w->in;
	struct fit *ft = &w->ft;
	uint32_t R = in->nroutes;
	double *t = sv->out + (size_t)i * R;
	restore(in, sv->save);
	memcpy(t, sv->tot, R * sizeof(double));
	if (i < TASK_MODEL) { /* the jackknife: the estimate without part i */
		struct part pt = {(int)i, sv->stride, in->sample, in->nsample, in->rec_size, NULL, 0};
		if (!pack(&pt, &w->pk)) {
			atomic_store(&sv->short_of_memory, true);
			return;
		}
		start_from_lift(in, ft, &w->pk);
		fit_to(in, ft, &w->pk, FIT_STEPS, t);
	} else if (i < TASK_DOUBT) {
		if (!model_fit(in, ft, &w->pk, sv->stride, (int)(i - TASK_MODEL), t))
			atomic_store(&sv->short_of_memory, true);
	} else { /* the doubtful in: the interval's other end */
		/* on those features' blocks alone, or where there is no room
		 * for them, on the whole packing: the same fit (the rest held) */
		const struct packed *pk = pack_subset(&sv->whole, sv->doubts, &w->pk) ? &w->pk
										     : &sv->whole;
		ft->doubtful = false;
		ft->only = sv->doubts;
		start_from_lift(in, ft, pk);
		fit_to(in, ft, pk, FIT_STEPS, t);
		ft->doubtful = true;
		ft->only = NULL;
	}
}

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

static bool vague_bounds(struct infer *in)
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
 * (vague_bounds). */
#define LOCK_DUST 0.02
static void lock_bounds(struct infer *in)
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
 * lockstep's are (lock_bounds) for any pair the capture never saw apart.
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
static void alike_bounds(struct infer *in)
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
				continue; /* lock_bounds spans the pair */
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
static void widest_bounds(struct infer *in)
{
	for (uint32_t r = 0; r < in->nroutes; r++) {
		struct infer_route *x = &in->routes[r];
		double total = route_total(x), sure = 0;
		for (uint32_t f = 0; f < INFER_FEATURES; f++)
			sure += x->certain[f];
		x->shift_lo = sure < total ? sure - total : 0;
		x->shift_hi = sure + x->possible > total ? sure + x->possible - total : 0;
	}
}

void infer_solve(struct infer *in)
{
	if (in->solved)
		return;
	in->solved = true;
	uint32_t R = in->nroutes;
	for (uint32_t r = 0; r < R; r++) {
		struct infer_route *x = &in->routes[r];
		x->var = x->shift_lo = x->shift_hi = 0;
		x->vague_share = x->vague_more = 0;
		x->lock_share = x->lock_more = 0;
		x->alike_share = x->alike_more = 0;
		memset(x->off, 0, sizeof x->off);
		memset(x->doubt, 0, sizeof x->doubt);
		if (!x->certain) { /* out of memory somewhere: the running guess stands */
			in->short_of_memory = true;
			return;
		}
		for (uint32_t f = 0; f < INFER_FEATURES; f++) {
			const double *c = cell(in, r, f);
			x->certain[f] = c[0];
			x->given[f] = c[1];
			x->final[f] = x->certain[f] + x->given[f];
			x->beta[f] = x->final[f] / (x->pages > 0 ? x->pages : 1) + RATE_FLOOR;
		}
	}
	memset(in->vague, 0, sizeof in->vague);
	in->vague_rts = 0;
	in->thinned = 0;
	find_lockstep(in);
	if (R == 0 || in->nsample == 0)
		return;
	in->npairs = 0; /* the fit's room: every part of the sample is a subset */
	for (uint32_t i = 0; i < in->nsample; i++)
		in->npairs += rec_at(in, i)->n;
	struct solve *sv = calloc(1, sizeof(*sv));
	double *tot = calloc(R, sizeof(double));
	double *save = malloc((size_t)R * 2 * INFER_FEATURES * sizeof(double));
	double *out = calloc((size_t)R * NTASKS, sizeof(double));
	if (!sv || !tot || !save || !out || !worker_init(&sv->w[0], in, false))
		goto short_of_memory; /* the running guess stands */
	packed_init(&sv->whole, R);
	/* the tests and the interval: on a smaller sample there are none, and
	 * no second thread (its start would be all it cost) */
	const bool tasks = in->nsample >= 4 * JACK_PARTS;
	bool two = in->threads > 1 && tasks && worker_init(&sv->w[1], in, true);
	if (two) /* now: its start is hidden behind packing and the estimate */
		helper_start(sv);
	struct worker *w0 = &sv->w[0];
	struct fit *ft = &w0->ft;
	struct packed *pk = &sv->whole;
	for (uint32_t r = 0; r < R; r++)
		tot[r] = route_total(&in->routes[r]);
	const struct part all = {-1, 1, in->sample, in->nsample, in->rec_size, NULL, 0};
	timing_mark("fit.setup");
	if (!pack(&all, pk))
		goto short_of_memory; /* the running guess stands */
	timing_mark("fit.pack");
	ft->doubtful = false;
	start_from_lift(in, ft, pk);
	ft->sv = two ? sv : NULL;
	fit_to(in, ft, pk, FIT_STEPS, tot);
	timing_mark("fit.estimate");
	keep(in, save);
	sv->save = save;
	sv->tot = tot;
	sv->out = out;
	uint64_t offs[INFER_FEATURES / 64] = {0}, doubts[INFER_FEATURES / 64] = {0};
	if (tasks) {
		/* which routes run each feature: the features with records, the
		 * largest first (so that the two threads end together), on the
		 * estimate's records */
		sv->all = pk;
		for (uint32_t k = 0; k < pk->nblocks; k++)
			if (in->feats[pk->blocks[k].feat].tied == INFER_NONE)
				sv->feats[sv->nfeats++] = pk->blocks[k].feat;
		for (uint32_t k = 1; k < sv->nfeats; k++) /* insertion sort: a few hundred at most */
			for (uint32_t j = k; j > 0; j--) {
				uint32_t a = sv->feats[j - 1], b = sv->feats[j];
				uint32_t na = pk->blocks[pk->block_of[a]].n;
				uint32_t nb = pk->blocks[pk->block_of[b]].n;
				if (na > nb || (na == nb && a < b))
					break;
				sv->feats[j - 1] = (uint16_t)b;
				sv->feats[j] = (uint16_t)a;
			}
		run_parallel(sv, test_feature, sv->nfeats);
		for (uint32_t r = 0; r < R; r++)
			for (uint32_t w = 0; w < INFER_FEATURES / 64; w++) {
				struct infer_route *x = &in->routes[r];
				if (two) {
					x->off[w] |= sv->w[1].own.routes[r].off[w];
					x->doubt[w] |= sv->w[1].own.routes[r].doubt[w];
				}
				offs[w] |= x->off[w];
				doubts[w] |= x->doubt[w];
			}
		for (uint32_t w = 0; two && w < INFER_FEATURES / 64; w++)
			in->vague[w] |= sv->w[1].own.vague[w];
		sv->all = NULL;
	}
	timing_mark("fit.tests");
	/* Those features again, without the routes taken out nor those in
	 * doubt: a statement is one route's unless the capture says otherwise
	 * plainly (the estimate with the doubtful is kept for the interval,
	 * below).  Kept in, a doubtful share was the estimate's error: the blog
	 * app's lockstep pages (Nagle) read 0.63 / 3.37 for 1 / 3 in CI, 1.00 /
	 * 3.00 without it. */
	uint64_t refit[INFER_FEATURES / 64];
	for (uint32_t w = 0; w < INFER_FEATURES / 64; w++)
		refit[w] = offs[w] | doubts[w];
	ft->doubtful = true;
	if (any_bit(refit)) {
		if (pack_subset(&sv->whole, refit, &w0->pk)) /* else the whole: the same fit, slower */
			pk = &w0->pk;
		ft->only = refit;
		start_from_lift(in, ft, pk);
		fit_to(in, ft, pk, FIT_STEPS, tot);
		ft->only = NULL;
	}
	ft->sv = NULL; /* the tasks: a fit per thread */
	timing_mark("fit.refit");
	keep(in, save);
	if (tasks) {
		/* the jackknife: the whole estimate again without each eighth of
		 * the sample (of a subsample of it, on a large one: the variance
		 * of an estimate goes as 1 / its sample's size); the models; the
		 * fit with the doubtful, into the shifts */
		sv->stride = in->nsample > JACK_SAMPLE ? in->nsample / JACK_SAMPLE : 1;
		sv->doubts = doubts;
		if (two) /* the off bits the copy's fits hold at 0 */
			for (uint32_t r = 0; r < R; r++) {
				memcpy(sv->w[1].own.routes[r].off, in->routes[r].off, sizeof in->routes[r].off);
				memcpy(sv->w[1].own.routes[r].doubt, in->routes[r].doubt,
				       sizeof in->routes[r].doubt);
			}
		sv->doubts_first = any_bit(doubts);
		run_parallel(sv, fit_task, sv->doubts_first ? NTASKS : TASK_DOUBT);
	}
	restore(in, save); /* the estimate, whatever the tasks left */
	if (tasks && atomic_load(&sv->short_of_memory))
		in->short_of_memory = true;
	if (tasks && !in->short_of_memory) {
		for (uint32_t r = 0; r < R; r++) {
			struct infer_route *x = &in->routes[r];
			double mean = 0, v = 0;
			for (uint32_t k = 0; k < JACK_PARTS; k++)
				mean += out[(TASK_JACK + k) * R + r] / JACK_PARTS;
			for (uint32_t k = 0; k < JACK_PARTS; k++) {
				double d = out[(TASK_JACK + k) * R + r] - mean;
				v += d * d;
			}
			x->var = v * (JACK_PARTS - 1) / JACK_PARTS / sv->stride;
			for (uint32_t m = 1; m < INFER_MODELS; m++) {
				double d = out[(TASK_MODEL + m) * R + r] - out[TASK_MODEL * R + r];
				x->shift_lo = d < x->shift_lo ? d : x->shift_lo;
				x->shift_hi = d > x->shift_hi ? d : x->shift_hi;
			}
			if (any_bit(doubts)) {
				double d = out[TASK_DOUBT * R + r] - tot[r];
				x->shift_lo = d < x->shift_lo ? d : x->shift_lo;
				x->shift_hi = d > x->shift_hi ? d : x->shift_hi;
			}
		}
	} else {
		widest_bounds(in); /* too few to tell the noise, or no memory to */
	}
	timing_mark("fit.interval");
	restore(in, save);
	if (tasks && !vague_bounds(in))
		in->short_of_memory = true; /* the intervals without them */
	lock_bounds(in);
	alike_bounds(in);
	timing_mark("fit.bounds");
	goto out;
short_of_memory: /* the running guess, and not a point */
	in->short_of_memory = true;
	widest_bounds(in);
out:
	if (sv) {
		helper_stop(sv);
		worker_free(&sv->w[0]);
		worker_free(&sv->w[1]);
		packed_free(&sv->whole);
	}
	free(sv);
	free(tot);
	free(save);
	free(out);
}
