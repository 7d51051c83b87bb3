/* attrib_pipe.c - attribution's events, straight through or to a thread of
 * its own (attrib_pipe.h). */
#include "attrib_pipe.h"
#include "base/hash.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h> /* streaming stores: put() */
#endif

#define PIPE_EVENTS 1024 /* per batch: 64 KiB, a handover per thousand events */
#define PIPE_BATCHES 8  /* in the pool: the reader runs up to 7 batches ahead */
#define PIPE_ENDING 256 /* events a batch goes with once the input is ending */
#define NAME_SLOTS (2 * ATTRIB_ROUTES_MAX) /* open addressing, at most half full */

enum { EV_ROUTE, EV_PAGE, EV_RT, EV_COMMAND, EV_FLIGHT, EV_SETTLE, EV_FINISH };

/* Of a round trip, what attribution reads when nothing lists the pages
 * (no trace: its flight letters and text are not needed), so that an
 * event is a cache line: the batches pass from one core to the other, and
 * at twice the size, moving them cost the reader more than queueing. */
struct pipe_rt {
	uint64_t t_start, t_end, key;
	uint32_t count, rows;
	uint8_t cls, ping_role, role_how, timing_role, status_before, status_after;
	bool has_end, tail_ping, part;
	uint32_t flight; /* a part's: its low bits name it well enough */
};

struct pipe_ev {
	_Alignas(64) uint8_t kind; /* an event a cache line, and on one */
	uint16_t status;
	uint32_t u32; /* route: the reader's id; command: its place in its flight */
	uint64_t conn;
	union {
		struct pipe_rt rt;
		struct {
			uint64_t t0, t_answer, t1;
		} page;
		struct {
			uint64_t flight, ts, key;
		} cmd;
		struct {
			uint64_t watermark, full;
		} settle;
		struct {
			uint64_t t_start, t_end;
			uint32_t commands;
		} flight; /* a flight of commands: its span alone (nothing lists the pages) */
	} u;
};

_Static_assert(sizeof(struct pipe_ev) == 64, "an event a cache line");

struct attrib_pipe_batch {
	uint32_t n;
	struct pipe_ev ev[PIPE_EVENTS];
};

struct attrib_pipe_shared {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t ready, room; /* a full batch is queued; an empty one is back */
	struct attrib_pipe_batch *full[PIPE_BATCHES], *empty[PIPE_BATCHES];
	uint32_t full_head, nfull, nempty;
	struct attrib_pipe_batch *pool;
	struct attrib *a;
	const char (*names)[ROUTE_MAX];
	uint32_t route_of[ATTRIB_ROUTES_MAX]; /* the reader's route id -> the attribution's */
};

static void settle(struct attrib *a, uint64_t watermark, uint64_t full)
{
	attrib_settle(a, attrib_waiting(a) > ATTRIB_HOLD_MAX ? full : watermark);
}

/* The worker's side: one batch applied.  Returns false after the last. */
static bool apply(struct attrib_pipe_shared *sh, const struct attrib_pipe_batch *b)
{
	struct attrib *a = sh->a;
	for (uint32_t i = 0; i < b->n; i++) {
		const struct pipe_ev *e = &b->ev[i];
		switch (e->kind) {
		case EV_ROUTE:
			sh->route_of[e->u32] = attrib_route_id(a, sh->names[e->u32]);
			break;
		case EV_PAGE:
			attrib_add_page(a, sh->route_of[e->u32], e->u.page.t0, e->u.page.t_answer,
					e->u.page.t1, e->conn, "", "", e->status);
			break;
		case EV_RT: {
			const struct pipe_rt *p = &e->u.rt;
			struct rt_event ev = {
				.kind = RT_EVENT_ROUND_TRIP, .t_start = p->t_start, .t_end = p->t_end,
				.key = p->key, .count = p->count, .rows = p->rows, .cls = p->cls,
				.ping_role = p->ping_role, .role_how = p->role_how,
				.timing_role = p->timing_role, .status_before = p->status_before,
				.status_after = p->status_after, .has_start = true,
				.has_end = p->has_end, .tail_ping = p->tail_ping,
				.part = p->part, .flight = p->flight,
			};
			attrib_add(a, e->conn, &ev);
			break;
		}
		case EV_COMMAND: {
			struct rt_event ev = {.kind = RT_EVENT_COMMAND, .has_start = true,
					      .t_start = e->u.cmd.ts, .t_end = e->u.cmd.ts,
					      .key = e->u.cmd.key, .flight = e->u.cmd.flight,
					      .count = e->u32};
			attrib_add(a, e->conn, &ev);
			break;
		}
		case EV_FLIGHT: {
			struct rt_event ev = {.kind = RT_EVENT_FLIGHT, .has_start = true, .has_end = true,
					      .t_start = e->u.flight.t_start,
					      .t_end = e->u.flight.t_end,
					      .count = e->u.flight.commands};
			attrib_add(a, e->conn, &ev);
			break;
		}
		case EV_SETTLE:
			settle(a, e->u.settle.watermark, e->u.settle.full);
			break;
		case EV_FINISH:
			attrib_finish(a);
			return false;
		}
	}
	return true;
}

static void *work(void *arg)
{
	struct attrib_pipe_shared *sh = arg;
	for (bool more = true; more;) {
		pthread_mutex_lock(&sh->mu);
		while (sh->nfull == 0)
			pthread_cond_wait(&sh->ready, &sh->mu);
		struct attrib_pipe_batch *b = sh->full[sh->full_head];
		sh->full_head = (sh->full_head + 1) % PIPE_BATCHES;
		sh->nfull--;
		pthread_mutex_unlock(&sh->mu);
		more = apply(sh, b);
		pthread_mutex_lock(&sh->mu);
		sh->empty[sh->nempty++] = b;
		pthread_cond_signal(&sh->room);
		pthread_mutex_unlock(&sh->mu);
	}
	return NULL;
}

void attrib_pipe_start(struct attrib_pipe *p, struct attrib *a, bool threaded)
{
	memset(p, 0, sizeof(*p));
	p->a = a;
	if (!threaded)
		return;
	struct attrib_pipe_shared *sh = calloc(1, sizeof(*sh));
	p->names = malloc(ATTRIB_ROUTES_MAX * sizeof(*p->names));
	p->slots = calloc(NAME_SLOTS, sizeof(*p->slots));
	if (!sh || !p->names || !p->slots ||
	    !(sh->pool = aligned_alloc(64, PIPE_BATCHES * sizeof(*sh->pool)))) /* lines: put() */
		goto straight;
	sh->a = a;
	sh->names = (const char(*)[ROUTE_MAX])p->names;
	if (pthread_mutex_init(&sh->mu, NULL) != 0)
		goto straight;
	if (pthread_cond_init(&sh->ready, NULL) != 0 || pthread_cond_init(&sh->room, NULL) != 0 ||
	    pthread_create(&sh->thread, NULL, work, sh) != 0) {
		pthread_mutex_destroy(&sh->mu); /* conds: nothing to free on Linux */
		goto straight;
	}
	for (uint32_t i = 1; i < PIPE_BATCHES; i++)
		sh->empty[sh->nempty++] = &sh->pool[i];
	p->cur = &sh->pool[0];
	p->cur->n = 0;
	p->sh = sh;
	return;
straight: /* one thread, as with threaded false */
	if (sh)
		free(sh->pool);
	free(sh);
	free(p->names);
	free(p->slots);
	p->names = NULL;
	p->slots = NULL;
}

/* The reader's side: its batch to the worker (the mutex held). */
static void queue_batch(struct attrib_pipe *p)
{
	struct attrib_pipe_shared *sh = p->sh;
#if defined(__SSE2__)
	_mm_sfence(); /* streamed stores are not ordered by the mutex */
#endif
	sh->full[(sh->full_head + sh->nfull) % PIPE_BATCHES] = p->cur;
	sh->nfull++;
	pthread_cond_signal(&sh->ready);
}

/* The batch full, to the worker, and an empty one. */
static void hand_over(struct attrib_pipe *p)
{
	struct attrib_pipe_shared *sh = p->sh;
	pthread_mutex_lock(&sh->mu);
	queue_batch(p);
	while (sh->nempty == 0)
		pthread_cond_wait(&sh->room, &sh->mu);
	p->cur = sh->empty[--sh->nempty];
	pthread_mutex_unlock(&sh->mu);
	p->cur->n = 0;
}

/* The event e into the batch.  Streamed past the caches where there is
 * SSE2: a batch's lines were last read by the worker, on the other core,
 * and a plain store would first fetch each back from there, a cost the
 * reader pays on every event.  The worker's reads then come from memory,
 * in order, and the worker is not what the analysis waits for. */
static void put(struct attrib_pipe *p, const struct pipe_ev *e)
{
	uint32_t n = p->cur->n;
	if (n == PIPE_EVENTS || (p->ending && n == PIPE_ENDING))
		hand_over(p);
	struct pipe_ev *to = &p->cur->ev[p->cur->n++];
#if defined(__SSE2__)
	const __m128i *from = (const __m128i *)e;
	for (int i = 0; i < 4; i++)
		_mm_stream_si128((__m128i *)to + i, _mm_load_si128(from + i));
#else
	*to = *e;
#endif
}

uint32_t attrib_pipe_route_id(struct attrib_pipe *p, const char *name)
{
	if (!p->sh)
		return attrib_route_id(p->a, name);
	/* the reader's ids, as attrib_route_id gives them: the worker maps */
	uint32_t at = str_hash(name) % NAME_SLOTS;
	for (; p->slots[at]; at = (at + 1) % NAME_SLOTS)
		if (strcmp(p->names[p->slots[at] - 1], name) == 0)
			return p->slots[at] - 1u;
	if (p->nnames == ATTRIB_ROUTES_MAX)
		return ATTRIB_ROUTES_MAX - 1; /* "(other routes)", the last, is not slotted */
	if (p->nnames == ATTRIB_ROUTES_MAX - 1)
		name = "(other routes)";
	else
		p->slots[at] = (uint16_t)(p->nnames + 1);
	strncpy(p->names[p->nnames], name, ROUTE_MAX - 1);
	p->names[p->nnames][ROUTE_MAX - 1] = '\0';
	put(p, &(struct pipe_ev){.kind = EV_ROUTE, .u32 = p->nnames});
	return p->nnames++;
}

void attrib_pipe_page(struct attrib_pipe *p, uint32_t route, uint64_t t0, uint64_t t_answer,
		      uint64_t t1, uint64_t conn, const char *method, const char *target,
		      uint16_t status)
{
	if (!p->sh) {
		attrib_add_page(p->a, route, t0, t_answer, t1, conn, method, target, status);
		return;
	}
	/* method, target: for on_page, never threaded */
	put(p, &(struct pipe_ev){.kind = EV_PAGE, .u32 = route, .conn = conn, .status = status,
				 .u.page = {t0, t_answer, t1}});
}

void attrib_pipe_add(struct attrib_pipe *p, uint64_t conn, const struct rt_event *e)
{
	p->sent++;
	if (!p->sh) {
		attrib_add(p->a, conn, e);
		return;
	}
	switch (e->kind) {
	case RT_EVENT_ROUND_TRIP:
		if (!e->has_start)
			return; /* attrib_add's first test: no time to place it by */
		put(p, &(struct pipe_ev){
			       .kind = EV_RT, .conn = conn,
			       .u.rt = {e->t_start, e->t_end, e->key, e->count, e->rows, e->cls,
					e->ping_role, e->role_how, e->timing_role, e->status_before,
					e->status_after, e->has_end, e->tail_ping, e->part,
					(uint32_t)e->flight},
		       });
		break;
	case RT_EVENT_COMMAND:
		put(p, &(struct pipe_ev){.kind = EV_COMMAND, .conn = conn, .u32 = e->count,
					 .u.cmd = {e->flight, e->t_start, e->key}});
		break;
	case RT_EVENT_FLIGHT:
		/* threaded, nothing lists the pages (on_page): of the flight, its
		 * span (quiet_time.h) */
		if (e->count == 0 || e->t_end <= e->t_start)
			return;
		put(p, &(struct pipe_ev){.kind = EV_FLIGHT, .conn = conn,
					 .u.flight = {e->t_start, e->t_end, e->count}});
		break;
	}
}

void attrib_pipe_settle(struct attrib_pipe *p, uint64_t watermark, uint64_t full)
{
	if (!p->sh) {
		settle(p->a, watermark, full);
		return;
	}
	put(p, &(struct pipe_ev){.kind = EV_SETTLE, .u.settle = {watermark, full}});
}

void attrib_pipe_ending(struct attrib_pipe *p)
{
	p->ending = true;
	/* what waits is handed on now: placing starts on it while the rest
	 * is read (the worker keeps up: it waits for this batch) */
	if (p->sh && p->cur->n >= PIPE_ENDING)
		hand_over(p);
}

void attrib_pipe_finish(struct attrib_pipe *p)
{
	if (p->finished)
		return;
	p->finished = true;
	struct attrib_pipe_shared *sh = p->sh;
	if (!sh) {
		attrib_finish(p->a);
		return;
	}
	put(p, &(struct pipe_ev){.kind = EV_FINISH});
	pthread_mutex_lock(&sh->mu);
	queue_batch(p);
	pthread_mutex_unlock(&sh->mu);
	pthread_join(sh->thread, NULL);
	pthread_mutex_destroy(&sh->mu);
	pthread_cond_destroy(&sh->ready);
	pthread_cond_destroy(&sh->room);
	free(sh->pool);
	free(sh);
	p->sh = NULL;
	p->cur = NULL;
}

void attrib_pipe_free(struct attrib_pipe *p)
{
	attrib_pipe_finish(p);
	free(p->names);
	free(p->slots);
	p->names = NULL;
	p->slots = NULL;
}
