/* attrib_commands.c - a command (Redis's) given to the pages that held its flight (attrib_impl.h). */
#include "attrib_impl.h"
#include "base/hash.h"
#include "base/timing.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The entry following connection conn's open flight (created when asked
 * for: the least recently used of its set of 4 given up), or NULL. */
static struct attrib_open_flight *open_flight(struct attrib *a, uint64_t conn, bool create)
{
	if (!a->open_flights && (!create || !(a->open_flights = calloc(ATTRIB_CMD_CONNS,
								sizeof(*a->open_flights)))))
		return NULL;
	struct attrib_open_flight *set =
		&a->open_flights[conn_hash(conn) % (ATTRIB_CMD_CONNS / 4) * 4];
	struct attrib_open_flight *old = set;
	for (int i = 0; i < 4; i++) {
		if (set[i].conn == conn + 1) {
			set[i].used = ++a->open_flight_clock;
			return &set[i];
		}
		if (set[i].used < old->used)
			old = &set[i];
	}
	if (!create)
		return NULL;
	old->conn = conn + 1;
	old->flight = UINT64_MAX;
	old->used = ++a->open_flight_clock;
	return old;
}

/* A Redis command name's feature in cmd_infer: its hash's slot (the last
 * one when all are taken, "others"). */
static uint32_t cmd_feature(struct attrib *a, uint64_t h)
{
	for (uint32_t i = 0; i < INFER_FEATURES - 1; i++) {
		uint32_t f = (uint32_t)((h + i) % (INFER_FEATURES - 1));
		if (a->cmd_feat[f] == h + 1)
			return f;
		if (a->cmd_feat[f] == 0) {
			a->cmd_feat[f] = h + 1;
			return f;
		}
	}
	return INFER_FEATURES - 1;
}

/* The round trip each page followed in flight e waited on, from its share
 * of the flight's commands: each command was some page's wait, and a page
 * waits on a flight once, so a page's share past one goes to the others
 * in proportion to theirs (at most one each, and in all no more than the
 * commands or the pages).  Taken at min(1, share) alone, a client that
 * keeps its pipeline full (node-redis: commands of many pages, written
 * as they come, in one flight) had pages in flight for several of the
 * flight's commands capped, and a page of one GET read 0.95 to 0.98
 * round trips (pgrtt bench --quick, node-pg's cached page; CI failed at
 * 0.9497 for 1 +- 5%).  A page that sends several commands in one write
 * gets the same as before where its candidates share alike. */
/* Water-filling: the lambda that brings shares w[0 .. n) to target, each
 * scaled by it and capped at one (the largest capped first); never below 1 */
static double fill_level(double *w, uint32_t n, double target)
{
	for (uint32_t i = 1; i < n; i++) /* descending: at most ATTRIB_CMD_PAGES */
		for (uint32_t k = i; k > 0 && w[k - 1] < w[k]; k--) {
			double t = w[k];
			w[k] = w[k - 1];
			w[k - 1] = t;
		}
	double rest = 0, lambda = 1;
	for (uint32_t i = 0; i < n; i++)
		rest += w[i];
	for (uint32_t capped = 0; capped < n; capped++) {
		double l = rest > 0 ? (target - capped) / rest : 1;
		if (l * w[capped] <= 1)
			return l > 1 ? l : 1;
		rest -= w[capped];
		lambda = 1 / w[capped]; /* all capped */
	}
	return lambda;
}

static void cmd_waits(struct attrib *a, struct attrib_open_flight *e)
{
	double total = 0, fixed = 0, most = 0, order[ATTRIB_CMD_PAGES];
	bool open[ATTRIB_CMD_PAGES];
	uint32_t nopen = 0;
	for (uint32_t j = 0; j < e->n; j++) {
		open[j] = a->pages[e->slot[j]].serial == e->serial[j];
		total += e->cmds[j];
		most = e->cmds[j] > most ? e->cmds[j] : most;
		if (open[j])
			order[nopen++] = e->cmds[j];
		else
			fixed += e->waits[j]; /* its page closed: what it was given stays */
	}
	double lambda = 1; /* no share past one and every page open: each its share */
	if (most > 1 || nopen < e->n) {
		double target = (total < e->n ? total : (double)e->n) - fixed;
		lambda = fill_level(order, nopen, target < nopen ? target : nopen);
	}
	for (uint32_t j = 0; j < e->n; j++) {
		if (!open[j])
			continue;
		double w = lambda * e->cmds[j];
		w = w < 1 ? w : 1;
		a->pages[e->slot[j]].cmd_rts += w - e->waits[j];
		e->waits[j] = w;
	}
}

/* A Redis command: its candidate pages share it (attrib_add, a COMMAND),
 * and the round trips they waited on follow (cmd_waits).  Past
 * ATTRIB_CMD_PAGES pages in one flight the oldest followed is given up
 * (a page of it sending again would count up to one round trip more). */
void attrib_place_cmd(struct attrib *a, const struct attrib_rt_rec *r)
{
	const struct attrib_cands *k = attrib_candidates(a, r->t_start);
	bool first = r->commands == 1;
	if (first) { /* the flight, as the server saw it: once */
		a->cmd_rts_outside += k->n == 0;
		a->cmd_rts_in_pages += k->n > 0;
		a->cmd_rts_shared += k->n > 1;
	}
	if (k->n == 0)
		return;
	struct attrib_open_flight *e = open_flight(a, r->conn, true);
	if (!e) {
		a->dropped++; /* no memory to follow its flight */
		return;
	}
	if (e->flight != r->cmd_flight) {
		e->flight = r->cmd_flight;
		e->n = e->next = 0;
	}
	/* by route: one route's pages share it equally, certain; several
	 * routes' by the model's running guess, each route's pages by density */
	double pr[64];
	uint32_t f = cmd_feature(a, r->sig);
	if (k->g.n == 1) {
		infer_certain(&a->cmd_infer, k->g.grp[0].route, f, 1);
	} else {
		a->cmds_mixed++;
		infer_weigh(&a->cmd_infer, f, k->g.grp, k->g.n, pr);
	}
	for (uint32_t i = 0; i < k->n; i++) {
		uint32_t slot = k->c[i];
		struct attrib_page *p = &a->pages[slot];
		const struct infer_cand *x = &k->g.grp[k->g.in[i]];
		double share = k->g.n == 1 ? 1.0 / k->n
			       : x->w > 0   ? pr[k->g.in[i]] * k->d[i] / x->w
					    : 0;
		p->cmds += share;
		if (first)
			p->cmd_flights += share;
		uint32_t j = 0;
		while (j < e->n && !(e->slot[j] == slot && e->serial[j] == p->serial))
			j++;
		if (j == e->n) {
			if (e->n < ATTRIB_CMD_PAGES)
				e->n++;
			else
				j = e->next++ % ATTRIB_CMD_PAGES;
			e->slot[j] = slot;
			e->serial[j] = p->serial;
			e->cmds[j] = e->waits[j] = 0;
		}
		e->cmds[j] += share;
	}
	cmd_waits(a, e);
}

/* A Redis flight answered (attrib_add, a FLIGHT, for on_page): listed with
 * each page still open that had commands in it, at the round trip it
 * waited on. */
void attrib_place_cmd_rt(struct attrib *a, const struct attrib_rt_rec *r)
{
	struct attrib_open_flight *e = open_flight(a, r->conn, false);
	if (!e || e->flight != r->cmd_flight)
		return;
	for (uint32_t j = 0; j < e->n; j++) {
		struct attrib_page *p = &a->pages[e->slot[j]];
		if (p->serial == e->serial[j])
			attrib_keep(p, r, e->cmds[j] + 1e-9 < r->commands, e->waits[j]);
	}
	e->conn = 0; /* the flight is over: the entry is free */
	e->used = 0;
}

