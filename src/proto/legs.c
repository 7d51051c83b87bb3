/* legs.c - a pooler's two legs (legs.h). */
#define _POSIX_C_SOURCE 200809L /* strnlen */
#include <stdlib.h>
#include <string.h>

#include "legs.h"

_Static_assert(LEGS_SETS == 256, "a set is the top byte of the hash");

void legs_init(struct legs *l)
{
	memset(l, 0, sizeof(*l));
}

void legs_free(struct legs *l)
{
	free(l->recent);
	l->recent = NULL;
}

uint8_t legs_endpoint(struct legs *l, const char *name)
{
	size_t n = strnlen(name, LEGS_NAME_MAX - 1);
	for (uint8_t i = 0; i < l->nends; i++)
		if (strncmp(l->end[i], name, n) == 0 && l->end[i][n] == '\0')
			return i;
	if (l->nends == LEGS_ENDS)
		return LEGS_NONE;
	memcpy(l->end[l->nends], name, n);
	l->end[l->nends][n] = '\0';
	if (l->nends == 1 && !l->recent && !l->short_of_memory &&
	    !(l->recent = calloc(LEGS_SETS, sizeof(*l->recent))))
		l->short_of_memory = true; /* the legs are not followed; the counts stand */
	return l->nends++;
}

void legs_flight(struct legs *l, uint8_t leg, uint64_t sig, uint64_t t_start,
		    uint64_t t_end)
{
	if (!l->recent || !sig || leg >= LEGS_ENDS)
		return; /* not followed, or a ping: nothing to match by */
	l->stmts[leg]++;
	struct legs_copy *set = l->recent[(sig * 0x9e3779b97f4a7c15ull) >> 56];
	/* the inner copy ended first (the server answered the pooler before
	 * the pooler answered its client): it is here already.  Of several
	 * (clients running the same statement at once), the longest: the
	 * pooler's copy fills its client's round trip but for the time it
	 * takes to pass the query on and the answer back; another client's
	 * inside it is shorter */
	struct legs_copy *copy = NULL;
	for (int w = 0; w < LEGS_WAYS; w++) {
		struct legs_copy *e = &set[w];
		if (e->sig == sig && e->leg != leg && e->t_start >= t_start &&
		    e->t_end <= t_end && t_end - e->t_end <= LEGS_RELAY_NS &&
		    (!copy || e->t_end - e->t_start > copy->t_end - copy->t_start))
			copy = e;
	}
	if (copy) {
		uint64_t n = ++l->inside[leg][copy->leg];
		copy->sig = 0; /* one copy, one original */
		if (!l->decided && n >= LEGS_DECIDE && 4 * n >= 3 * l->stmts[copy->leg]) {
			l->decided = true;
			l->outer = leg;
			l->inner = copy->leg;
		}
	}
	/* kept in place of a free way, or of the one that ended first */
	int take = 0;
	for (int w = 0; w < LEGS_WAYS; w++) {
		if (!set[w].sig) {
			take = w;
			break;
		}
		if (set[w].t_end < set[take].t_end)
			take = w;
	}
	set[take] = (struct legs_copy){sig, t_start, t_end, leg};
}

bool legs_to_pages(struct legs *l, uint8_t leg)
{
	if (l->decided && leg == l->inner) {
		l->left_out++;
		return false;
	}
	/* every one until it is known, those before a second endpoint showed up
	 * too: a capture that starts as the server's leg answers can see its
	 * round trip end before the relay's leg's first packet */
	if (!l->decided && leg < LEGS_ENDS)
		l->paged[leg]++;
	return true;
}

bool legs_found(const struct legs *l, uint8_t *outer, uint8_t *inner, uint64_t *copies)
{
	uint64_t best = 0;
	if (l->decided) { /* the pair whose round trips left the pages */
		*outer = l->outer;
		*inner = l->inner;
		*copies = l->inside[l->outer][l->inner];
		return true;
	}
	for (uint8_t a = 0; a < l->nends; a++)
		for (uint8_t b = 0; b < l->nends; b++) {
			uint64_t n = l->inside[a][b];
			if (a == b || n < LEGS_MIN || 2 * n < l->stmts[b] || n <= best)
				continue;
			best = n;
			*outer = a;
			*inner = b;
		}
	*copies = best;
	return best > 0;
}
