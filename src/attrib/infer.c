/* infer.c - routes for round trips pages of several routes held (infer.h). */
#include "infer_fit.h"
#include "base/timing.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

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

/* The routes' figures from the running guess's cells, their bounds and
 * bits cleared: where every fit starts.  False when a route has no room
 * for them (out of memory earlier): the running guess stands. */
static bool solve_reset(struct infer *in)
{
	for (uint32_t r = 0; r < in->nroutes; r++) {
		struct infer_route *x = &in->routes[r];
		x->var = x->shift_lo = x->shift_hi = 0;
		x->vague_share = x->vague_more = 0;
		x->lock_share = x->lock_more = 0;
		x->alike_share = x->alike_more = 0;
		memset(x->off, 0, sizeof x->off);
		memset(x->doubt, 0, sizeof x->doubt);
		if (!x->certain)
			return false;
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
	return true;
}

/* Which routes run each feature (fit_select_feature, a task per feature
 * on the estimate's records, the largest first so that the two threads
 * end together); the routes' off and doubt bits, and their union over
 * routes into offs and doubts. */
static void solve_tests(struct infer *in, struct solve *sv, const struct packed *pk, bool two,
			uint64_t *offs, uint64_t *doubts)
{
	uint32_t R = in->nroutes;
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
	fit_run_parallel(sv, fit_test_feature, sv->nfeats);
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

/* The features tested again, without the routes taken out nor those in
 * doubt: a statement is one route's unless the capture says otherwise
 * plainly (the fit with the doubtful is kept for the interval).  Kept in,
 * a doubtful share is the estimate's error (docs/pages.md). */
static void solve_refit(struct infer *in, struct solve *sv, const uint64_t *offs,
			const uint64_t *doubts, double *tot)
{
	struct worker *w0 = &sv->w[0];
	struct fit *ft = &w0->ft;
	const struct packed *pk = &sv->whole;
	uint64_t refit[INFER_FEATURES / 64];
	for (uint32_t w = 0; w < INFER_FEATURES / 64; w++)
		refit[w] = offs[w] | doubts[w];
	ft->doubtful = true;
	if (any_bit(refit)) {
		if (fit_pack_subset(&sv->whole, refit, &w0->pk)) /* else the whole: the same fit, slower */
			pk = &w0->pk;
		ft->only = refit;
		fit_start_from_lift(in, ft, pk);
		fit_to(in, ft, pk, FIT_STEPS, tot);
		ft->only = NULL;
	}
}

/* The jackknife (the whole estimate again without each eighth of the
 * sample, of a subsample on a large one: an estimate's variance goes as
 * 1 / its sample's size), the models, the fit with the doubtful: tasks on
 * the two threads, each into its row of sv->out. */
static void solve_tasks(struct infer *in, struct solve *sv, bool two, const uint64_t *doubts)
{
	sv->stride = in->nsample > JACK_SAMPLE ? in->nsample / JACK_SAMPLE : 1;
	sv->doubts = doubts;
	if (two) /* the off bits the copy's fits hold at 0 */
		for (uint32_t r = 0; r < in->nroutes; r++) {
			memcpy(sv->w[1].own.routes[r].off, in->routes[r].off, sizeof in->routes[r].off);
			memcpy(sv->w[1].own.routes[r].doubt, in->routes[r].doubt,
			       sizeof in->routes[r].doubt);
		}
	sv->doubts_first = any_bit(doubts);
	fit_run_parallel(sv, fit_task, sv->doubts_first ? NTASKS : TASK_DOUBT);
}

/* The tasks' totals into each route's variance (the jackknife's) and
 * shifts (the models' and the doubtful's, from the estimate). */
static void solve_interval(struct infer *in, const double *out, const double *tot,
			   uint32_t stride, bool doubtful)
{
	uint32_t R = in->nroutes;
	for (uint32_t r = 0; r < R; r++) {
		struct infer_route *x = &in->routes[r];
		double mean = 0, v = 0;
		for (uint32_t k = 0; k < JACK_PARTS; k++)
			mean += out[(TASK_JACK + k) * R + r] / JACK_PARTS;
		for (uint32_t k = 0; k < JACK_PARTS; k++) {
			double d = out[(TASK_JACK + k) * R + r] - mean;
			v += d * d;
		}
		x->var = v * (JACK_PARTS - 1) / JACK_PARTS / stride;
		for (uint32_t m = 1; m < INFER_MODELS; m++) {
			double d = out[(TASK_MODEL + m) * R + r] - out[TASK_MODEL * R + r];
			x->shift_lo = d < x->shift_lo ? d : x->shift_lo;
			x->shift_hi = d > x->shift_hi ? d : x->shift_hi;
		}
		if (doubtful) {
			double d = out[TASK_DOUBT * R + r] - tot[r];
			x->shift_lo = d < x->shift_lo ? d : x->shift_lo;
			x->shift_hi = d > x->shift_hi ? d : x->shift_hi;
		}
	}
}

/* The estimate from the lift, the tests, the refit, the interval's tasks
 * and the bounds, on the sample packed in sv->whole.  False when out of
 * memory before the estimate: the running guess stands. */
static bool solve_fit(struct infer *in, struct solve *sv, double *tot, double *save, double *out)
{
	uint32_t R = in->nroutes;
	/* the tests and the interval: on a smaller sample there are none, and
	 * no second thread (its start would be all it cost) */
	const bool tasks = in->nsample >= 4 * JACK_PARTS;
	bool two = in->threads > 1 && tasks && fit_worker_init(&sv->w[1], in, true);
	if (two) /* now: its start is hidden behind packing and the estimate */
		fit_helper_start(sv);
	struct fit *ft = &sv->w[0].ft;
	for (uint32_t r = 0; r < R; r++)
		tot[r] = fit_route_total(&in->routes[r]);
	const struct part all = {-1, 1, in->sample, in->nsample, in->rec_size, NULL, 0};
	timing_mark("fit.setup");
	if (!fit_pack(&all, &sv->whole))
		return false;
	timing_mark("fit.pack");
	ft->doubtful = false;
	fit_start_from_lift(in, ft, &sv->whole);
	ft->sv = two ? sv : NULL;
	fit_to(in, ft, &sv->whole, FIT_STEPS, tot);
	timing_mark("fit.estimate");
	fit_keep(in, save);
	sv->save = save;
	sv->tot = tot;
	sv->out = out;
	uint64_t offs[INFER_FEATURES / 64] = {0}, doubts[INFER_FEATURES / 64] = {0};
	if (tasks)
		solve_tests(in, sv, &sv->whole, two, offs, doubts);
	timing_mark("fit.tests");
	solve_refit(in, sv, offs, doubts, tot);
	ft->sv = NULL; /* the tasks: a fit per thread */
	timing_mark("fit.refit");
	fit_keep(in, save);
	if (tasks)
		solve_tasks(in, sv, two, doubts);
	fit_restore(in, save); /* the estimate, whatever the tasks left */
	if (tasks && atomic_load(&sv->short_of_memory))
		in->short_of_memory = true;
	if (tasks && !in->short_of_memory)
		solve_interval(in, out, tot, sv->stride, any_bit(doubts));
	else
		fit_widest_bounds(in); /* too few to tell the noise, or no memory to */
	timing_mark("fit.interval");
	fit_restore(in, save);
	if (tasks && !fit_vague_bounds(in))
		in->short_of_memory = true; /* the intervals without them */
	fit_lock_bounds(in);
	fit_alike_bounds(in);
	timing_mark("fit.bounds");
	return true;
}

void infer_solve(struct infer *in)
{
	if (in->solved)
		return;
	in->solved = true;
	uint32_t R = in->nroutes;
	if (!solve_reset(in)) { /* out of memory somewhere: the running guess stands */
		in->short_of_memory = true;
		return;
	}
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
	bool ok = sv && tot && save && out && fit_worker_init(&sv->w[0], in, false);
	if (ok) {
		fit_packed_init(&sv->whole, R);
		ok = solve_fit(in, sv, tot, save, out);
	}
	if (!ok) { /* the running guess, and not a point */
		in->short_of_memory = true;
		fit_widest_bounds(in);
	}
	if (sv) {
		fit_helper_stop(sv);
		fit_worker_free(&sv->w[0]);
		fit_worker_free(&sv->w[1]);
		fit_packed_free(&sv->whole);
	}
	free(sv);
	free(tot);
	free(save);
	free(out);
}
