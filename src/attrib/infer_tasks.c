/* infer_tasks.c - the fit on two threads: the tasks, the helper thread,
 * an EM step's parts (infer_fit.h). */
#include "infer_fit.h"
#include "base/timing.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

bool fit_worker_init(struct worker *w, struct infer *in, bool copy)
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
	fit_packed_init(&w->pk, R); /* its room as its packings need (packed_room) */
	w->ok = w->ft.sum && w->ft.beta && w->ft.b && w->ft.part_mem && w->b &&
		fit_select_alloc(&w->sl, &w->pk, R);
	return w->ok;
}

void fit_worker_free(struct worker *w)
{
	fit_packed_free(&w->pk);
	fit_select_free(&w->sl);
	free(w->ft.sum);
	free(w->ft.beta);
	free(w->ft.b);
	free(w->ft.part_mem);
	fit_thin_free(&w->ft);
	free(w->b);
	free(w->store);
	free(w->own.routes);
}

/* The routes' state (final, beta) into save, and back. */
void fit_keep(const struct infer *in, double *save)
{
	for (uint32_t r = 0; r < in->nroutes; r++) {
		double *s = save + (size_t)r * (2 * INFER_FEATURES);
		memcpy(s, in->routes[r].final, INFER_FEATURES * sizeof(double));
		memcpy(s + INFER_FEATURES, in->routes[r].beta, INFER_FEATURES * sizeof(double));
	}
}

void fit_restore(struct infer *in, const double *save)
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

/* The second worker's thread: started once, as the fit begins, since a
 * thread's start and an idle core's wake-up on a small VM take as long as
 * a list's tasks.  Between lists it spins for up to HELPER_SPIN_NS, which
 * covers the packing, the estimate and the refit of a few routes' fit on
 * a slow machine, and then sleeps: with many routes they take tens of
 * milliseconds. */
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

void fit_helper_start(struct solve *sv)
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

void fit_helper_stop(struct solve *sv)
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
void fit_run_parallel(struct solve *sv, void (*task)(struct solve *, struct worker *, uint32_t),
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
	fit_em_part_step(j->in, j->ft, j->pk, &j->ft->part[i], j->all, j->full);
}

/* False: the second thread has not started yet (a list would wait for it:
 * 0.1-2.5 ms here), and the step's parts are the caller's to run. */
bool fit_em_parts_parallel(struct infer *in, struct fit *ft, const struct packed *pk, bool all,
			      bool full)
{
	if (!atomic_load_explicit(&ft->sv->helper_up, memory_order_acquire))
		return false;
	struct em_job j = {in, ft, pk, all, full};
	ft->sv->em = &j;
	fit_run_parallel(ft->sv, em_task, EM_PARTS);
	ft->sv->em = NULL;
	return true;
}

void fit_test_feature(struct solve *sv, struct worker *w, uint32_t i)
{
	struct infer *in = w->in;
	uint32_t f = sv->feats[i], R = in->nroutes;
	w->sl.pk = sv->all;
	for (uint32_t r = 0; r < R; r++)
		w->b[r] = sv->save[(size_t)r * (2 * INFER_FEATURES) + INFER_FEATURES + f];
	fit_select_feature(in, &w->sl, f, w->b, w->b + R, w->b + 2 * R);
}

void fit_task(struct solve *sv, struct worker *w, uint32_t k)
{
	/* the fit with the doubtful first, where there is one: it runs on the
	 * whole sample, the others on a part of it, and the largest taken
	 * last would leave the other thread idle */
	uint32_t i = sv->doubts_first ? (k == 0 ? TASK_DOUBT : k - 1) : k;
	struct infer *in = w->in;
	struct fit *ft = &w->ft;
	uint32_t R = in->nroutes;
	double *t = sv->out + (size_t)i * R;
	fit_restore(in, sv->save);
	memcpy(t, sv->tot, R * sizeof(double));
	if (i < TASK_MODEL) { /* the jackknife: the estimate without part i */
		struct part pt = {(int)i, sv->stride, in->sample, in->nsample, in->rec_size, NULL, 0};
		if (!fit_pack(&pt, &w->pk)) {
			atomic_store(&sv->short_of_memory, true);
			return;
		}
		fit_start_from_lift(in, ft, &w->pk);
		fit_to(in, ft, &w->pk, FIT_STEPS, t);
	} else if (i < TASK_DOUBT) {
		if (!fit_model(in, ft, &w->pk, sv->stride, (int)(i - TASK_MODEL), t))
			atomic_store(&sv->short_of_memory, true);
	} else { /* the doubtful in: the interval's other end */
		/* on those features' blocks alone, or where there is no room
		 * for them, on the whole packing: the same fit (the rest held) */
		const struct packed *pk = fit_pack_subset(&sv->whole, sv->doubts, &w->pk) ? &w->pk
										     : &sv->whole;
		ft->doubtful = false;
		ft->only = sv->doubts;
		fit_start_from_lift(in, ft, pk);
		fit_to(in, ft, pk, FIT_STEPS, t);
		ft->doubtful = true;
		ft->only = NULL;
	}
}

