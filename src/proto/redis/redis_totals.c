/* redis_totals.c - a capture's Redis connections added up (redis_totals.h). */
#include "redis_totals.h"

#include <stdlib.h>
#include <string.h>

#include "base/hash.h"

void redis_totals_init(struct redis_totals *t, const struct redis_observers *observe)
{
	memset(t, 0, sizeof(*t));
	if (observe)
		t->observe = *observe;
	hist_init(&t->tot.lat);
	for (int i = 0; i < RT_NCLASS; i++)
		hist_init(&t->tot.lat_class[i]);
	legs_init(&t->legs);
}

void redis_totals_free(struct redis_totals *t)
{
	legs_free(&t->legs);
}

/* Open addressing over a fixed table, so memory does not follow what a
 * hostile client names; the last free slot is the rest's. */
struct redis_name_count *redis_totals_count_name(struct redis_totals *t, const char *raw)
{
	/* printable only, so that no output (JSON's UTF-8, a terminal) gets
	 * garbage raw */
	char name[RESP_NAME_MAX + 1];
	redis_name_printable(name, raw);
	uint32_t h = str_hash(name);
	for (uint32_t i = 0; i < REDIS_NAMES_MAX; i++) {
		struct redis_name_count *e = &t->by_command[(h + i) % REDIS_NAMES_MAX];
		if (e->n == 0) {
			if (t->nnames + 1 == REDIS_NAMES_MAX && name[0])
				return redis_totals_count_name(t, ""); /* the last slot is the rest's */
			memcpy(e->name, name, sizeof e->name);
			t->nnames++;
		} else if (strcmp(e->name, name) != 0) {
			continue;
		}
		e->n++;
		return e;
	}
	return NULL; /* unreachable: the rest's slot is always found */
}

static int by_count(const void *x, const void *y)
{
	const struct redis_name_count *a = *(const struct redis_name_count *const *)x,
				      *b = *(const struct redis_name_count *const *)y;
	if (a->n != b->n)
		return a->n < b->n ? 1 : -1;
	return strcmp(a->name, b->name);
}

uint32_t redis_totals_commands(const struct redis_totals *t, const struct redis_name_count **out,
			       uint64_t *rest)
{
	uint32_t n = 0;
	*rest = 0;
	for (uint32_t i = 0; i < REDIS_NAMES_MAX; i++) {
		const struct redis_name_count *e = &t->by_command[i];
		if (e->n == 0)
			continue;
		if (e->name[0])
			out[n++] = e;
		else
			*rest += e->n;
	}
	qsort(out, n, sizeof(*out), by_count);
	return n;
}

void redis_stats_add(struct redis_stats *t, const struct redis_stats *s)
{
	t->commands += s->commands;
	t->replies += s->replies;
	t->round_trips += s->round_trips;
	for (int i = 0; i < RT_NCLASS; i++)
		t->by_class[i] += s->by_class[i];
	t->pipelined += s->pipelined;
	if (s->max_pipeline > t->max_pipeline)
		t->max_pipeline = s->max_pipeline;
	t->pushes += s->pushes;
	t->no_reply += s->no_reply;
	t->errors += s->errors;
	t->unanswered += s->unanswered;
	t->written_off += s->written_off;
}
