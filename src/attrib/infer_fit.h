/* infer_fit.h - what the parts of the fit share (infer.h is its face):
 * the sample's parts, a fit's state, the packed records, the tests' and
 * the two threads' state, and the functions one part calls in another.
 * infer.c records and samples and runs infer_solve; infer_pack.c lays the
 * records out for the E step; infer_em.c is the EM fit; infer_select.c
 * tests which routes run a feature; infer_tasks.c runs fits on two
 * threads; infer_bounds.c widens the intervals where the capture cannot
 * tell. */
#ifndef PGRTT_INFER_FIT_H
#define PGRTT_INFER_FIT_H

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "infer.h"

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
	int model; /* the weights under GAMMAS[model] (fit_model; 0: as recorded) */
};

/* ----------------------------------------------------------------------
 * The fit
 * ---------------------------------------------------------------------- */

/* Parts of an EM step (struct fit's part): more than the threads, so that
 * the two end together - a block's cost is not its records' weight, and
 * two halves by weight end far apart */
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

static inline bool has_bit(const uint64_t *bits, uint32_t f)
{
	return bits[f / 64] >> (f % 64) & 1;
}

/* Route x's rate for f is held at 0 in this fit. */
static inline bool held_off(const struct fit *ft, const struct infer_route *x, uint32_t f)
{
	return has_bit(x->off, f) || (ft->doubtful && has_bit(x->doubt, f));
}

/* A route's rate for a feature of that total, under the fit's model. */
static inline double rate_of(const struct fit *ft, const struct infer_route *x, double total)
{
	double e = x->expo[ft->model];
	return total / (e > 0 ? e : 1) + RATE_FLOOR;
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

struct select {
	const struct packed *pk;
	const struct pk_block *bk;          /* feature f's records */
	uint32_t *routes, nr;               /* the routes among them (the block's) */
	uint8_t *held;                      /* by route: its rate held at 0 */
	double *post;                       /* by route: the E step's sums */
	double *b1, *b2, *bp;               /* by route: feat_fit's steps */
	double *lb, *ls;                    /* by the block's routes: rates, sums */
};
static inline bool any_bit(const uint64_t *bits)
{
	for (uint32_t w = 0; w < INFER_FEATURES / 64; w++)
		if (bits[w])
			return true;
	return false;
}

/* ----------------------------------------------------------------------
 * The fit on two cores
 *
 * After the estimate, the features' tests (fit_select_feature) are apart from
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
	double *b;          /* 3 x routes: fit_select_feature's scratch */
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
	pthread_t helper; /* w[1]'s (fit_helper_start) */
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

/* Sample record i */
static inline struct infer_rec *rec_at(const struct infer *in, uint32_t i)
{
	return (struct infer_rec *)(in->sample + (size_t)i * in->rec_size);
}

/* Carves n items of size each from *at (8-byte aligned), or counts them */
static inline void *carve(unsigned char *base, size_t *at, size_t n, size_t size)
{
	void *p = base ? base + *at : NULL;
	*at += (n * size + 7) & ~(size_t)7;
	return p;
}

/* infer_pack.c: the sample laid out for the E step */
void fit_packed_init(struct packed *pk, uint32_t R);
void fit_packed_free(struct packed *pk);
bool fit_pack(const struct part *pt, struct packed *pk);
bool fit_pack_subset(const struct packed *all, const uint64_t *only, struct packed *pk);

/* infer_em.c: the EM fit */
double fit_block_e(const struct packed *pk, const struct pk_block *bk, const double *b, double *s,
		   bool want_ll);
void fit_thin_free(struct fit *ft);
void fit_em_part_step(struct infer *in, struct fit *ft, const struct packed *pk, struct em_part *h,
		      bool all, bool full);
double fit_route_total(const struct infer_route *x);
void fit_to(struct infer *in, struct fit *ft, const struct packed *pk, uint32_t iters, double *tot);
void fit_start_from_lift(struct infer *in, struct fit *ft, const struct packed *pk);
bool fit_model(struct infer *in, struct fit *ft, struct packed *pk, uint32_t stride, int m,
	       double *t);

/* infer_select.c: which routes run a feature */
bool fit_select_alloc(struct select *sl, const struct packed *pk, uint32_t R);
void fit_select_free(struct select *sl);
void fit_select_feature(struct infer *in, struct select *sl, uint32_t f, double *b, double *b2,
			double *best);

/* infer_tasks.c: the two threads and their tasks */
bool fit_worker_init(struct worker *w, struct infer *in, bool copy);
void fit_worker_free(struct worker *w);
void fit_keep(const struct infer *in, double *save);
void fit_restore(struct infer *in, const double *save);
void fit_helper_start(struct solve *sv);
void fit_helper_stop(struct solve *sv);
void fit_run_parallel(struct solve *sv, void (*task)(struct solve *, struct worker *, uint32_t),
		      uint32_t n);
bool fit_em_parts_parallel(struct infer *in, struct fit *ft, const struct packed *pk, bool all,
			   bool full);
void fit_test_feature(struct solve *sv, struct worker *w, uint32_t i);
void fit_task(struct solve *sv, struct worker *w, uint32_t k);

/* infer_bounds.c: the intervals widened */
bool fit_vague_bounds(struct infer *in);
void fit_lock_bounds(struct infer *in);
void fit_alike_bounds(struct infer *in);
void fit_widest_bounds(struct infer *in);

#endif
