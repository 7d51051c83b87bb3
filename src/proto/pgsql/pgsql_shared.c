/* pgsql_shared.c - what a capture's PostgreSQL connections share
 * (pgsql_shared.h). */
#include "pgsql_shared.h"

#include <stdlib.h>
#include <string.h>

int pgsql_shared_init(struct pgsql_shared *p, const struct pgsql_observers *observe)
{
	memset(p, 0, sizeof(*p));
	if (observe)
		p->observe = *observe;
	hist_init(&p->lat);
	for (int i = 0; i < RT_NCLASS; i++)
		hist_init(&p->lat_class[i]);
	legs_init(&p->legs);
	p->texts = calloc(1, sizeof(*p->texts));
	return p->texts ? 0 : -1;
}

void pgsql_shared_free(struct pgsql_shared *p)
{
	legs_free(&p->legs);
	free(p->texts);
	p->texts = NULL;
}

void pooler_signs_add(struct pooler_signs *p, const struct rtt_stats *st, uint16_t port)
{
	p->startups += st->startups_pooler;
	p->other_startups += st->startups_other;
	if (!st->pooler_sets && !st->startups_pooler && !st->pooler_names)
		return;
	p->conns++;
	p->set_conns += st->pooler_sets > 0;
	p->relink_conns += st->pooler_relinks > 0;
	p->name_conns += st->pooler_names > 0;
	p->reset_conns += st->by_class[RT_RESET] > 0;
	if (!p->port)
		p->port = port;
}
