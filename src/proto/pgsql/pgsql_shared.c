/* pgsql_shared.c - what a capture's PostgreSQL connections share
 * (pgsql_shared.h). */
#include "pgsql_shared.h"

#include <stdlib.h>
#include <string.h>

int pgsql_shared_init(struct pgsql_shared *p)
{
	memset(p, 0, sizeof(*p));
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
