/* attrib_pipe.h - what the protocols hand attribution (attrib.h), on a
 * thread of its own when a file is read.
 *
 * Placing round trips on pages, and the fit at the end, are a third of
 * what reading a mixed capture with --http-port costs, and they need only
 * what the protocols give them: pages, round trips (rt_event.h) and the
 * watermark, in order.  So when nothing reads the attribution while it
 * runs (a file, no pgrtt trace, no live status line), the reading thread
 * queues those events in batches and a second thread applies them to the
 * attribution, in the same order; the results are the same as on one
 * thread (tests/run_golden.sh compares both).  Otherwise - or when the
 * thread cannot start - each call goes straight through.
 *
 * The queue is a fixed pool of batches allocated at the start: the reader
 * waits when all are full, so memory is bounded and nothing is allocated
 * per event.  Route ids are the reader's (it needs them before the worker
 * has seen the route): the worker maps them to the attribution's own. */
#ifndef PGRTT_ATTRIB_PIPE_H
#define PGRTT_ATTRIB_PIPE_H

#include <stdbool.h>
#include <stdint.h>

#include "attrib.h"
#include "route.h"

struct attrib_pipe_shared;

struct attrib_pipe {
	struct attrib *a;
	struct attrib_pipe_shared *sh; /* NULL: straight through */
	struct attrib_pipe_batch *cur; /* the reader's batch being filled */
	char (*names)[ROUTE_MAX];      /* the reader's route ids' names */
	uint32_t nnames;
	uint16_t *slots;               /* names by hash: id + 1, 0 empty (every page looks) */
	uint64_t sent;                 /* round-trip events handed on (page_hold.h) */
	bool ending;                   /* the input's last events: hand them on sooner */
	bool finished;
};

/* threaded: on a second thread if it starts (false: straight through). */
void attrib_pipe_start(struct attrib_pipe *p, struct attrib *a, bool threaded);

/* As attrib.h's functions of the same names. */
uint32_t attrib_pipe_route_id(struct attrib_pipe *p, const char *name);
void attrib_pipe_page(struct attrib_pipe *p, uint32_t route, uint64_t t0, uint64_t t_answer,
		      uint64_t t1, uint64_t conn, const char *method, const char *target,
		      uint16_t status);
void attrib_pipe_add(struct attrib_pipe *p, uint64_t conn, const struct rt_event *e);

/* attrib_settle at watermark, or at full - the watermark that waits for
 * no open request - once more than ATTRIB_HOLD_MAX pages and round trips
 * wait (which only the attribution's side knows). */
void attrib_pipe_settle(struct attrib_pipe *p, uint64_t watermark, uint64_t full);

/* The input is near its end (a file's last dispatch): from now on the
 * worker gets the events in smaller batches, so that what it still has to
 * place once the reading ends is a few hundred of them, not up to a full
 * batch - the wait after the reading, on a short capture. */
void attrib_pipe_ending(struct attrib_pipe *p);

/* attrib_finish, and the thread joined: the attribution is the caller's
 * again.  Idempotent. */
void attrib_pipe_finish(struct attrib_pipe *p);

/* Finishes, and frees the pipe (not the attribution). */
void attrib_pipe_free(struct attrib_pipe *p);

#endif
