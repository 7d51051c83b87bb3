/* pg_legs.c - a pooler's two legs (pg_legs.h). */
#define _POSIX_C_SOURCE 200809L /* strnlen */
#include <stdlib.h>
#include <string.h>

#include "pg_legs.h"

_Static_assert(PG_LEGS_SETS == 256, "a set is the top byte of the hash");

void pg_legs_init(struct pg_legs *l)
{
	memset(l, 0, sizeof(*l));
}

void pg_legs_free(struct pg_legs *l)
{
	free(l->recent);
	l->recent = NULL;
}

uint8_t pg_legs_endpoint(struct pg_legs *l, const char *name)
{
	size_t n = strnlen(name, PG_LEGS_NAME_MAX - 1);
	for (uint8_t i = 0; i < l->nends; i++)
		if (strncmp(l->end[i], name, n) == 0 && l->end[i][n] == '\0')
			return i;
	if (l->nends == PG_LEGS_ENDS)
		return PG_LEGS_NONE;
	memcpy(l->end[l->nends], name, n);
	l->end[l->nends][n] = '\0';
	if (l->nends == 1 && !l->recent && !l->short_of_memory &&
	    !(l->recent = calloc(PG_LEGS_SETS, sizeof(*l->recent))))
		l->short_of_memory = true; /* the legs are not followed; the counts stand */
	return l->nends++;
}

void pg_legs_rt(struct pg_legs *l, uint8_t leg, const struct rt *rt)
{
	/* not a pooler's own SET either: it has no client's to be a copy of,
	 * and PgBouncer sends one each time it hands a server connection to a
	 * client of other settings - the C app and pgbench through it: 876 of
	 * the server leg's 2,078 statements, its copies 57%, under the three
	 * quarters that decide */
	if (rt->has_start && rt->has_end && !rt->pooler_set) /* has_*: time to match by */
		pg_legs_flight(l, leg, rt->sig, rt->t_start, rt->t_end);
}

void pg_legs_flight(struct pg_legs *l, uint8_t leg, uint64_t sig, uint64_t t_start,
		    uint64_t t_end)
{
	if (!l->recent || !sig || leg >= PG_LEGS_ENDS)
		return; /* not followed, or a ping: nothing to match by */
	l->stmts[leg]++;
	struct pg_legs_rt *set = l->recent[(sig * 0x9e3779b97f4a7c15ull) >> 56];
	/* the inner copy ended first (the server answered the pooler before
	 * the pooler answered its client): it is here already.  Of several
	 * (clients running the same statement at once), the longest: the
	 * pooler's copy fills its client's round trip but for the time it
	 * takes to pass the query on and the answer back; another client's
	 * inside it is shorter */
	struct pg_legs_rt *copy = NULL;
	for (int w = 0; w < PG_LEGS_WAYS; w++) {
		struct pg_legs_rt *e = &set[w];
		if (e->sig == sig && e->leg != leg && e->t_start >= t_start &&
		    e->t_end <= t_end && t_end - e->t_end <= PG_LEGS_RELAY_NS &&
		    (!copy || e->t_end - e->t_start > copy->t_end - copy->t_start))
			copy = e;
	}
	if (copy) {
		uint64_t n = ++l->inside[leg][copy->leg];
		copy->sig = 0; /* one copy, one original */
		if (!l->decided && n >= PG_LEGS_DECIDE && 4 * n >= 3 * l->stmts[copy->leg]) {
			l->decided = true;
			l->outer = leg;
			l->inner = copy->leg;
		}
	}
	/* kept in place of a free way, or of the one that ended first */
	int take = 0;
	for (int w = 0; w < PG_LEGS_WAYS; w++) {
		if (!set[w].sig) {
			take = w;
			break;
		}
		if (set[w].t_end < set[take].t_end)
			take = w;
	}
	set[take] = (struct pg_legs_rt){sig, t_start, t_end, leg};
}

bool pg_legs_to_pages(struct pg_legs *l, uint8_t leg)
{
	if (l->decided && leg == l->inner) {
		l->left_out++;
		return false;
	}
	/* every one until it is known, those before a second endpoint showed up
	 * too: a capture that starts as the server's leg answers can see its
	 * round trip end before the relay's leg's first packet */
	if (!l->decided && leg < PG_LEGS_ENDS)
		l->paged[leg]++;
	return true;
}

bool pg_legs_found(const struct pg_legs *l, uint8_t *outer, uint8_t *inner, uint64_t *copies)
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
			if (a == b || n < PG_LEGS_MIN || 2 * n < l->stmts[b] || n <= best)
				continue;
			best = n;
			*outer = a;
			*inner = b;
		}
	*copies = best;
	return best > 0;
}
