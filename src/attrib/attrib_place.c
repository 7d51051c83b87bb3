/* attrib_place.c - a round trip given to the pages that held it:
 * checkouts, candidates, the running guess (attrib_impl.h). */
#include "attrib_impl.h"
#include "base/hash.h"
#include "base/timing.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ----------------------------------------------------------------------
 * A round trip held by pages of several routes at once
 *
 * Which page it came from is inferred (infer.h): by its feature - its
 * statement's fingerprint, or its class - and each candidate page's
 * length.  Pings and resets carry no statement: a release ping or
 * a reset goes where the query before it on the same connection went, an
 * acquire ping where the query after it goes (a checkout serves one
 * request); their feature names that query's, so the fit moves them with
 * it.  docs/pages.md has the method and its measured error.
 * ---------------------------------------------------------------------- */

#define FEAT_SLOTS (2 * ATTRIB_FEATURES_MAX)
#define RUN_FEATURE_SALT 0x94d049bb133111ebull /* a run's or a chain's key, as a feature's */

/* Feature key's slot in the table: its own, or the empty one it would
 * take (the table is half full at most: the probe ends); *stored: the
 * key as the table holds it */
static uint32_t feature_slot(const struct attrib *a, uint64_t key, uint64_t *stored)
{
	key *= 0x9e3779b97f4a7c15ull;
	key = key ? key : 1;
	*stored = key;
	uint32_t i = (uint32_t)(key >> 40) % FEAT_SLOTS;
	while (a->feat_key[i] != key && a->feat_key[i] != 0)
		i = (i + 1) % FEAT_SLOTS;
	return i;
}

static uint32_t feature_id(struct attrib *a, uint64_t key, uint32_t fallback)
{
	uint32_t i = feature_slot(a, key, &key);
	if (a->feat_key[i] == key)
		return a->feat_id[i];
	if (a->nfeat == ATTRIB_FEATURES_MAX)
		return fallback;
	a->feat_key[i] = key;
	a->feat_id[i] = (uint16_t)a->nfeat;
	return a->nfeat++;
}

/* A statement known by its chain (checkout_runs.h) is a feature more
 * than the statement alone: within a budget, and only while
 * the table is half empty, so that the statements themselves still find
 * room (the synthetic capture of 120 routes, 240 statements, each of half
 * of them split by what followed it, ran out of features and lumped the
 * rest by class: fewer than 90% of its routes within 5%) */
#define CHAIN_FEATS_MAX (ATTRIB_FEATURES_MAX / 8)
static uint64_t chain_room(struct attrib *a, uint64_t chain)
{
	uint64_t stored;
	if (!chain || a->feat_key[feature_slot(a, chain ^ RUN_FEATURE_SALT, &stored)] == stored)
		return chain; /* a feature already */
	if (a->nfeat >= ATTRIB_FEATURES_MAX / 2 || a->chain_feats >= CHAIN_FEATS_MAX)
		return 0;
	a->chain_feats++;
	return chain;
}

/* tied: the feature of the query it shares a page with, or INFER_NONE;
 * run: for a checkout's first statement, what its run held (checkout_runs.h;
 * 0: by its own statement) */
static uint32_t feature_of(struct attrib *a, const struct attrib_rt_rec *r, uint32_t tied,
			   uint64_t run)
{
	uint32_t f;
	if (r->cls == RT_PING || r->cls == RT_RESET) {
		bool amb = r->role_how != ROLE_PLAIN;
		uint64_t key = 1 + ((uint64_t)r->cls << 8 | (uint64_t)r->role << 16 |
				    (uint64_t)amb << 24 | (uint64_t)r->timing_role << 32 |
				    (uint64_t)(tied + 1) << 40);
		f = feature_id(a, key ^ 0x5bd1e995ull, r->cls);
		if (tied != INFER_NONE && f >= RT_NCLASS)
			infer_tie(&a->infer, f, tied);
	} else if (tied != INFER_NONE) { /* a query of a checkout: its first query's page */
		uint64_t key = (r->sig ? r->sig : r->cls) ^ ((uint64_t)r->cls << 56) ^
			       ((uint64_t)(tied + 1) * 0xc2b2ae3d27d4eb4full) ^ 0x27d4eb2full;
		f = feature_id(a, key, r->cls);
		if (f >= RT_NCLASS)
			infer_tie(&a->infer, f, tied);
	} else if (run) { /* a checkout's anchor: by the statements of its checkout */
		f = feature_id(a, run ^ RUN_FEATURE_SALT, r->cls);
	} else if (r->sig) {
		f = feature_id(a, r->sig ^ ((uint64_t)r->cls << 56), r->cls);
	} else {
		f = r->cls;
	}
	struct attrib_feature *x = a->feats ? &a->feats[f] : NULL;
	if (x && x->n == 0) {
		x->cls = r->cls;
		x->role = r->role;
		x->amb = r->role_how != ROLE_PLAIN;
		x->timing_role = r->timing_role;
	}
	if (x) {
		x->n += 1;
		x->rfq += r->rfq;
		x->pg_ns += r->timed ? (double)(r->t_end - r->t_start) : 0;
	}
	return f;
}

/* Slot `slot`'s entry (a connection's by its hash): made the first time.
 * In chunks, never moved - callers hold an entry across placing others
 * (attrib_flush_pending).  Out of memory, the slot shares one of the first chunk
 * (take_entry hands an entry from one connection to another). */
struct attrib_conn *attrib_slot_entry(struct attrib *a, uint32_t slot)
{
	uint32_t i = a->conn_at[slot];
	if (!i) {
		i = a->nconns + 1;
		struct attrib_conn **chunk = &a->conn_chunks[a->nconns / ATTRIB_CONN_CHUNK];
		if (!*chunk && !(*chunk = calloc(ATTRIB_CONN_CHUNK, sizeof(**chunk)))) {
			i = slot % ATTRIB_CONN_CHUNK + 1;
			a->conns_short = true;
		} else {
			a->nconns++;
		}
		a->conn_at[slot] = (uint16_t)i;
	}
	i--;
	return &a->conn_chunks[i / ATTRIB_CONN_CHUNK][i % ATTRIB_CONN_CHUNK];
}

static uint32_t conn_slot(uint64_t conn)
{
	return (uint32_t)(conn_hash(conn) % ATTRIB_CONNS);
}

static struct attrib_conn *conn_entry(struct attrib *a, uint64_t conn)
{
	return attrib_slot_entry(a, conn_slot(conn));
}

/* Page p joins its route's group in g (a new one if none yet): its index. */
static uint32_t group_of(struct routes_in *g, uint32_t route, bool mixed)
{
	uint64_t bit = 1ull << (route % 64);
	uint32_t k = g->n;
	if (g->seen & bit) { /* perhaps there: where the first route of its bit went, or look */
		k = g->at[route % 64];
		if (g->grp[k].route != route)
			for (k = 0; k < g->n && g->grp[k].route != route;)
				k++;
	} else {
		g->at[route % 64] = (uint8_t)k;
	}
	g->seen |= bit;
	if (k == g->n) {
		g->grp[k].route = (uint16_t)route;
		g->grp[k].pages = 0;
		g->grp[k].w = 0;
		g->n++;
	}
	g->grp[k].pages++;
	g->all_mixed &= mixed;
	return k;
}

/* The active pages active[c[i]], grouped by route */
static void group_routes(const struct attrib *a, const uint32_t *c, uint32_t n, struct routes_in *g)
{
	g->n = 0;
	g->seen = 0;
	g->all_mixed = true;
	for (uint32_t i = 0; i < n; i++)
		g->in[i] = group_of(g, a->active[c[i]].route, a->active[c[i]].mixed);
}

/* Page p (the page in slot, if it still is) could hold a round trip at t
 * tied to a checkout: its window and grace are enough for a ping (a pool's
 * release ping often follows the answer); a query needs it still working. */
static bool in_window(const struct attrib *a, uint32_t slot, uint64_t serial, uint64_t t,
		      bool working)
{
	const struct attrib_page *p = &a->pages[slot];
	return p->serial == serial && t >= p->t0 && t <= (working ? p->t_answer : page_end(a, p));
}

/* The pages of the connection's last checkout that are candidates now
 * (still working on their answer, for a query: a page that has answered
 * runs no more), weighted as that round trip was, in sh[] (normalised);
 * their routes' sums in g->grp[].w.  0 if none is. */
static uint32_t tie(const struct attrib *a, const struct attrib_conn *e, uint64_t t, bool working,
		    struct routes_in *g, struct share *sh)
{
	uint32_t m = 0;
	double sum = 0;
	for (uint32_t k = 0; k < e->ntie; k++)
		if (e->w[k] > 0 && in_window(a, e->slot[k], e->serial[k], t, working)) {
			sh[m].slot = e->slot[k];
			sh[m++].w = e->w[k];
			sum += e->w[k];
		}
	if (sum <= 0)
		return 0;
	for (uint32_t i = 0; i < m; i++) {
		sh[i].w /= sum;
		const struct attrib_page *p = &a->pages[sh[i].slot];
		g->grp[group_of(g, p->route, p->mixed)].w += sh[i].w;
	}
	return m;
}

/* The kept weights' lightest, in four lanes: lane q holds the lightest of
 * w[q], w[q + 4], ... and its first place.  Placing a heavier page where
 * the lightest was changes one lane: rescanning all ATTRIB_TIE_MAX weights
 * after each (with 50 pages in flight, ~17 times for a query's ~49 pages,
 * each step waiting on the last comparison) was a fifth of the analysis's
 * CPU time with --http-port, on a 30 s capture of the blog app. */
struct lightest {
	double w[4];
	uint32_t at[4];
};

static void lane_scan(struct lightest *l, const double *w, uint32_t q)
{
	double lw = w[q];
	uint32_t at = q;
	for (uint32_t j = q + 4; j < ATTRIB_TIE_MAX; j += 4) {
		bool lt = w[j] < lw;
		at = lt ? j : at;
		lw = lt ? w[j] : lw;
	}
	l->w[q] = lw;
	l->at[q] = at;
}

/* The first of the lightest: the same place as one scan of all finds. */
static uint32_t lanes_lightest(const struct lightest *l)
{
	uint32_t best = 0;
	for (uint32_t q = 1; q < 4; q++)
		if (l->w[q] < l->w[best] || (l->w[q] == l->w[best] && l->at[q] < l->at[best]))
			best = q;
	return l->at[best];
}

/* Remember where a query-like round trip went: its heaviest pages. */
static void remember(struct attrib *a, struct attrib_conn *e, uint32_t f, const struct share *sh,
		     uint32_t m)
{
	_Static_assert(ATTRIB_TIE_MAX % 4 == 0, "weights in four lanes");
	struct lightest lanes;
	bool scanned = false; /* lanes hold the kept weights' lightest */
	e->feat = f;
	e->ntie = 0;
	uint32_t light = 0; /* the lightest kept, once all are taken */
	for (uint32_t i = 0; i < m; i++) {
		uint32_t k = e->ntie;
		if (k == ATTRIB_TIE_MAX) { /* keep the heaviest */
			if (e->w[light] >= sh[i].w)
				continue;
			k = light;
		} else {
			e->ntie++;
		}
		e->slot[k] = sh[i].slot;
		e->serial[k] = a->pages[sh[i].slot].serial;
		e->w[k] = sh[i].w;
		if (e->ntie < ATTRIB_TIE_MAX || i + 1 == m)
			continue; /* not all taken yet, or no page left to weigh */
		if (!scanned) /* just filled */
			for (uint32_t q = 0; q < 4; q++)
				lane_scan(&lanes, e->w, q);
		else /* the lightest's place took a heavier page: its lane */
			lane_scan(&lanes, e->w, k % 4);
		scanned = true;
		light = lanes_lightest(&lanes);
	}
}

/* The active pages whose window holds t: a page still working on its
 * answer (before its first byte) beats one sending it or in the grace
 * after it - an app runs a page's queries before it answers, and a page
 * can take long to send (Nagle and delayed ACKs hold the last segment of a
 * response ~40 ms); kept for the next round trip (struct attrib_cands). */

const struct attrib_cands *attrib_candidates(struct attrib *a, uint64_t t)
{
	struct attrib_cands *k = a->cands;
	if (k->valid && k->version == a->active_version && t >= k->from && t <= k->until)
		return k;
	uint32_t work[64], loose[64]; /* active entries */
	uint32_t ns = 0, nl = 0;
	uint64_t until = UINT64_MAX;
	for (uint32_t i = 0; i < a->nactive; i++) {
		const struct attrib_live *p = &a->active[i];
		uint64_t next = t < p->t0 ? p->t0 - 1 : t <= p->t_answer ? p->t_answer : p->end;
		until = next < until ? next : until;
		if (t < p->t0 || t > p->end)
			continue;
		if (t <= p->t_answer && ns < 64)
			work[ns++] = i;
		else if (nl < 64)
			loose[nl++] = i;
	}
	const uint32_t *pick = ns ? work : loose;
	k->n = ns ? ns : nl;
	k->working = ns > 0;
	group_routes(a, pick, k->n, &k->g);
	for (uint32_t i = 0; i < k->n; i++) {
		const struct attrib_live *p = &a->active[pick[i]];
		k->c[i] = p->slot;
		k->d[i] = p->density;
		k->g.grp[k->g.in[i]].w += k->d[i];
	}
	k->valid = true;
	k->version = a->active_version;
	k->from = t;
	k->until = until;
	return k;
}


/* A round trip's shares of a route's figures, added to the route itself:
 * for a round trip every one of whose pages is estimated (the page's own
 * sums would only be added to its route when it closes). */
static void add_to_route(struct attrib_route *rt, const struct attrib_rt_rec *r, double share)
{
	ADD_SHARE(rt, r, share);
	rt->inferred += share;
}

/* Returns what the pages counted of it as round trips: 1, or less for a
 * part of a flight whose other parts they had. */
static double spread(struct attrib *a, const struct attrib_rt_rec *r, const struct share *sh,
		     uint32_t m, const struct routes_in *g)
{
	bool mixed = g->n > 1;
	a->rts_in_pages++;
	a->rts_mixed += mixed;
	if (mixed && g->all_mixed && !a->on_page && !r->flight_key) {
		for (uint32_t k = 0; k < g->n; k++)
			if (g->grp[k].w > 0)
				add_to_route(&a->routes[g->grp[k].route], r, g->grp[k].w);
		a->mixed_rts += 1;
		return 1;
	}
	double counted = 0, given = 0;
	for (uint32_t i = 0; i < m; i++) {
		struct attrib_page *p = &a->pages[sh[i].slot];
		double rtw = attrib_add_to_page(p, r, sh[i].w, !mixed);
		counted += rtw;
		given += sh[i].w;
		if (mixed)
			p->inferred += rtw;
		if (a->on_page && sh[i].w > 0)
			attrib_keep(p, r, m > 1, sh[i].w);
	}
	return given > 0 ? counted / given : 1;
}

/* The fit saw the checkout's first statement with every page that held
 * it; its checkout since, from ep_t0 to a round trip of it at t, can only
 * be a page's that held all of that (still working at t, for a later
 * query of it): the fit sees those alone.  A page's first query comes as
 * it starts, beside pages of every route, and the even spread alone
 * cannot tell whose it was; the checkout's span can. */
static void narrow(struct attrib *a, const struct attrib_conn *e, uint64_t t, bool working)
{
	uint32_t c[64], n = 0; /* active entries */
	for (uint32_t i = 0; i < a->nactive && n < 64; i++) {
		const struct attrib_live *p = &a->active[i];
		/* and among the first statement's candidates: working then, if any
		 * page was */
		if (p->t0 <= e->ep_t0 && (!e->anchor_working || e->anchor_t <= p->t_answer) &&
		    t <= (working ? p->t_answer : p->end))
			c[n++] = i;
	}
	if (n == 0)
		return; /* none held all of it: the checkout was not what it seemed */
	/* Each page's density for a checkout that long: it starts anywhere in
	 * the page's window but the checkout's length before its end.  With
	 * 1 / the page's length (as for a lone round trip) long pages, which
	 * hold any span by chance more often than short ones, came out owning
	 * every checkout (a simulation: 0.5 / 0.1 / 18.3 for 6 / 6 / 7). */
	/* less its pauses: none fits in a span shorter than one (quiet_time.h) */
	uint64_t pauses = t - e->ep_t0 >= QUIET_MIN_NS ? quiet_time_within(&a->quiet, e->ep_t0, t) : 0;
	double span = (double)(t - e->ep_t0 - pauses);
	struct routes_in g;
	group_routes(a, c, n, &g);
	for (uint32_t i = 0; i < n; i++) {
		const struct attrib_live *p = &a->active[c[i]];
		double room = (double)p->len - span;
		g.grp[g.in[i]].w += (float)(1e9 / ((room > 0 ? room : 0) + 1e3));
	}
	infer_narrow(&a->infer, e->rec, g.grp, g.n);
}

static bool query_like(uint8_t cls)
{
	return cls != RT_PING && cls != RT_RESET && cls != RT_STARTUP && cls != RT_UNKNOWN;
}


/* Acquire pings waiting for their query: placed now, by the connection's
 * last checkout when tie says so. */
void attrib_flush_pending(struct attrib *a, struct attrib_conn *e)
{
	uint32_t n = e->npend;
	struct attrib_rt_rec pend[CONN_PEND_MAX];
	memcpy(pend, e->pend, n * sizeof(*pend));
	e->npend = 0;
	for (uint32_t i = 0; i < n; i++)
		attrib_place_rt(a, &pend[i], false);
}

static void take_entry(struct attrib *a, struct attrib_conn *e, uint64_t conn)
{
	if (e->conn == conn + 1)
		return;
	if (e->conn && e->npend) { /* another connection's entry: reused */
		e->ntie = 0;
		attrib_flush_pending(a, e);
	}
	e->conn = conn + 1;
	e->ntie = 0;
	e->ep = EP_NONE;
	e->tx = false;
	e->announced = false;
	e->tx_bound = false;
	e->rec = 0;
}

/* Whether a pool's pings mark its checkouts.  A pool that pings every
 * checkout, or on release, or wraps it in a transaction, shows a boundary
 * for every few queries; HikariCP pings only a connection idle over
 * 500 ms and returns it silently, so a ping opens a "checkout" that the
 * connection's next checkouts seem to continue, and their statements go,
 * certain, to the first page's route while that page still works on its
 * answer: two such episodes early in a capture are enough to move a
 * route's figure by a tenth.  So a ping opens a checkout only
 * once the pool has shown, over 64 queries at least, a boundary per 16 of
 * them, and while few of the checkouts opened ended unseen (a query after
 * its pages stopped working). */
static bool episodes_trusted(const struct attrib *a)
{
	if (a->query_rts < 64 || a->boundary_rts * 16 < a->query_rts)
		return false;
	return a->episodes_unseen < 2 || a->episodes_unseen * 4 < a->episodes;
}

/* What placing one round trip knows of it and of its connection's
 * checkout, phase to phase (attrib_place_rt). */
struct placing {
	const struct attrib_rt_rec *r;
	struct attrib_conn *e; /* the connection's entry, maybe another's (mine) */
	bool may_wait, mine, tied_kind, query, in_episode, in_tx, acquire, ends, opens, announces,
		startup, closes_last;
	bool tied, cands_working;
	uint32_t f, m; /* its feature; the pages sharing it, in sh */
	uint64_t handle;
	struct share sh[64];
	struct routes_in g;
};

static void placing_init(struct attrib *a, const struct attrib_rt_rec *r, bool may_wait,
			 struct placing *pl)
{
	struct attrib_conn *e = conn_entry(a, r->conn);
	pl->r = r;
	pl->e = e;
	pl->may_wait = may_wait;
	pl->mine = e->conn == r->conn + 1;
	pl->tied_kind = r->cls == RT_PING || r->cls == RT_RESET;
	pl->query = query_like(r->cls);
	pl->in_episode = pl->query && pl->mine && e->ep == EP_OPEN;
	pl->tied = false;
	/* Inside a transaction the connection is the checkout of the statement
	 * that began it: a pool cannot hand it on before COMMIT or ROLLBACK.
	 * A bare BEGIN says nothing of its page (every route's is alike): like
	 * an acquire ping it waits for the transaction's first statement, and
	 * goes where that goes. */
	pl->in_tx = pl->mine && e->tx && (r->status_before == 'T' || r->status_before == 'E');
	/* a lone Sync inside the transaction begins or ends no checkout,
	 * whatever its timing says (psycopg 3 leaving pipeline mode sends one
	 * before COMMIT: taken for a release ping, it cut the COMMIT from its
	 * page - 1.35 transactions per page for 2, 5.35 round trips for 6) */
	pl->acquire = r->cls == RT_PING && r->role == PING_ACQUIRE && !pl->in_tx;
	pl->ends = ((r->cls == RT_PING && r->role == PING_RELEASE) || r->cls == RT_RESET) &&
		   !pl->in_tx;
	bool known = r->status_before != '?' && r->status_after != '?';
	pl->opens = r->cls == RT_TRANSACTION &&
		    (known ? r->status_before == 'I' &&
				     (r->status_after == 'T' || r->status_after == 'E')
			   : /* a status the capture does not show: at a checkout's start */
			     pl->mine && (e->ep == EP_ACQUIRED || e->ep == EP_RELEASED));
	pl->announces = pl->acquire || pl->opens;
	/* a connection's startup is the page's that opened it: the page of
	 * its first statement (PHP's connection per request, a pool that
	 * connects for the page waiting), not every page then working - all
	 * startups are alike, and by their feature alone the fit shared them
	 * out as it shares the routes' pages (a connection per page: 1.18 /
	 * 0.87 / 0.95 startups per page for 1 each) */
	pl->startup = r->cls == RT_STARTUP;
	/* a Close of the statement the connection last ran goes where that
	 * went, as the answer goes out or after it (tokio-postgres closes each
	 * Statement it drops): by the pages working then, r2d2's Closes under
	 * three routes at once read 0.73 / 0.53 / 2.67 per page for 1 each */
	pl->closes_last = r->cls == RT_CLOSE && r->sig && pl->mine && r->sig == e->last_sig;
	pl->handle = 0;
	pl->cands_working = false;
	if (may_wait) { /* not again when what waited for its query is placed */
		a->query_rts += pl->query;
		a->boundary_rts += pl->announces || pl->ends;
	}
}

/* An acquire ping or a BEGIN announces the connection's next checkout. */
static void announce(struct attrib *a, struct placing *pl)
{
	struct attrib_conn *e = pl->e;
	take_entry(a, e, pl->r->conn);
	pl->mine = true;
	/* a BEGIN with no checkout open is its transaction's alone; after
	 * a ping (acquire, or release then BEGIN) the pings bound it; a
	 * BEGIN inside an open checkout leaves it as it began (sqlx:
	 * acquire ping, a statement, BEGIN ... COMMIT, a statement) */
	if (pl->acquire || e->ep == EP_RELEASED)
		e->tx_bound = false;
	else if (e->ep == EP_NONE)
		e->tx_bound = true;
	if (pl->acquire || e->ep != EP_ACQUIRED)
		e->ep = EP_ACQUIRED;
	if (!e->announced) {
		e->announced = true;
		e->ep_t0 = pl->r->t_start;
	}
}

/* The round trip belongs to the checkout of the query before it (after
 * it, for an acquire whose query came; its first query, for a later query
 * of it): to its pages while they are open, working or not - a pool
 * returns a connection when the handler is done, often as the answer goes
 * out.  Those pages are attrib_candidates (window and grace): no need to
 * look for the others.  A later query of a checkout needs them still
 * working, unless a transaction binds it.  True when it was placed so. */
static bool place_in_checkout(struct attrib *a, struct placing *pl)
{
	const struct attrib_rt_rec *r = pl->r;
	struct attrib_conn *e = pl->e;
	pl->g.n = 0;
	pl->g.seen = 0;
	pl->g.all_mixed = true;
	/* a later statement needs its pages still working; a statement's
	 * Close or the COMMIT or ROLLBACK may come as the answer goes out
	 * (a driver closing what the handler prepared as it drops the
	 * client, a pool ending the transaction on return) */
	bool working = (pl->in_episode || pl->in_tx) && !pl->opens && r->cls != RT_CLOSE &&
		       r->cls != RT_TRANSACTION;
	if (!(pl->m = tie(a, e, r->t_start, working, &pl->g, pl->sh)))
		return false;
	pl->tied = true;
	if (e->rec && r->t_start > e->anchor_t && working)
		narrow(a, e, r->t_start, true);
	pl->f = feature_of(a, r, e->feat, 0);
	if (pl->g.n == 1) {
		infer_certain(&a->infer, pl->g.grp[0].route, pl->f, 1);
	} else {
		for (uint32_t i = 0; i < pl->g.n; i++)
			infer_tied(&a->infer, pl->g.grp[i].route, pl->f, pl->g.grp[i].w, i == 0);
	}
	return true;
}

/* A run's first statement - where pings or transactions mark the
 * checkouts, the checkout's anchor - is known by what its run held, not
 * by its own statement: a lookup every route runs first shared its
 * checkouts out among the routes as it shares itself (checkout_runs.h).
 * Whether or not it opens a checkout here: one statement known two ways
 * (before the pool's pings are trusted, and after) split its records
 * between two features (captures/web-learnt.pcap: one of them 14 records,
 * too few, and its route's interval twice as wide). */
static uint64_t anchor_of(struct attrib *a, const struct placing *pl)
{
	const struct attrib_rt_rec *r = pl->r;
	if (pl->query && r->run_key)
		return r->run_key;
	uint64_t stmt;
	if (pl->query && r->chain_next[0] && attrib_run_mark_of(r, &stmt) == RUN_STATEMENT)
		return chain_room(a, checkout_runs_chain(&a->runs, stmt, r->chain_next));
	return 0;
}

/* The pages whose window holds its start, and each one's share: certain
 * where they are all one route's, else the fit's running guess.  False
 * when it is placed nowhere for now: outside every page, or waiting for
 * the query it announces. */
static bool place_by_candidates(struct attrib *a, struct placing *pl)
{
	const struct attrib_rt_rec *r = pl->r;
	struct attrib_conn *e = pl->e;
	struct routes_in *g = &pl->g;
	uint64_t anchor = anchor_of(a, pl);
	const struct attrib_cands *k = attrib_candidates(a, r->t_start);
	const uint32_t *c = k->c;
	uint32_t n = k->n;
	pl->cands_working = k->working;
	if (n == 0) {
		a->rts_outside++;
		if (pl->mine && pl->query) {
			e->ntie = 0; /* a checkout outside every page */
			attrib_flush_pending(a, e);
		}
		return false;
	}
	g->n = k->g.n;
	g->seen = k->g.seen;
	g->all_mixed = k->g.all_mixed;
	memcpy(g->grp, k->g.grp, g->n * sizeof(*g->grp));
	memcpy(g->at, k->g.at, sizeof(g->at));
	if ((pl->announces || pl->startup) && g->n > 1 && pl->may_wait &&
	    (take_entry(a, e, r->conn), e->npend < CONN_PEND_MAX)) {
		e->pend[e->npend++] = *r; /* until the query it announces */
		uint32_t i = conn_slot(r->conn);
		a->conns_pending[i / 64] |= 1ull << (i % 64);
		return false;
	}
	pl->m = n;
	if (g->n == 1) {
		pl->f = feature_of(a, r,
				   pl->tied_kind && !pl->announces && pl->mine && e->ntie ? e->feat
											: INFER_NONE,
				   anchor);
		infer_certain(&a->infer, g->grp[0].route, pl->f, 1);
		g->grp[0].w = 1;
		for (uint32_t i = 0; i < n; i++) {
			pl->sh[i].slot = c[i];
			pl->sh[i].w = 1.0 / n; /* pages of one route share it equally */
		}
		return true;
	}
	/* the pages' own shares: for the trace, for pages not all estimated,
	 * and for a query's checkout (remember) */
	bool by_page = a->on_page || !g->all_mixed || pl->query;
	double p[64];
	pl->m = by_page ? n : 0;
	pl->f = feature_of(a, r, INFER_NONE, anchor);
	pl->handle = infer_weigh(&a->infer, pl->f, g->grp, g->n, p);
	/* within a route, its pages share by density */
	for (uint32_t i = 0; i < pl->m; i++) {
		const struct infer_cand *x = &g->grp[k->g.in[i]];
		pl->sh[i].slot = c[i];
		pl->sh[i].w = x->w > 0 ? p[k->g.in[i]] * k->d[i] / x->w : 0;
	}
	for (uint32_t i = 0; i < g->n; i++)
		g->grp[i].w = p[i];
	return true;
}

/* A query placed on its own opens or continues its connection's checkout:
 * its pages remembered for what follows; a release ping or a reset ends
 * one. */
static void follow_checkout(struct attrib *a, struct placing *pl)
{
	const struct attrib_rt_rec *r = pl->r;
	struct attrib_conn *e = pl->e;
	if (pl->query && !pl->tied) {
		take_entry(a, e, r->conn);
		remember(a, e, pl->f, pl->sh, pl->m);
		e->rec = pl->handle;
		e->anchor_t = r->t_start;
		e->anchor_working = pl->cands_working;
		e->ep_t0 = e->announced && e->ep_t0 < r->t_start ? e->ep_t0 : r->t_start;
		e->announced = false;
		if ((e->ep == EP_ACQUIRED || e->ep == EP_RELEASED) && episodes_trusted(a)) {
			e->ep = EP_OPEN; /* the checkout's first query */
			a->episodes++;
		} else if (e->ep == EP_ACQUIRED || e->ep == EP_RELEASED) {
			e->ep = EP_NONE;
		} else if (pl->in_episode && ++a->episodes_unseen)
			/* its first query's pages no longer work: the checkout
			 * ended unseen (a pool that pings only now and then, as
			 * HikariCP after 500 ms idle): no episode until a ping */
			e->ep = EP_NONE;
		/* it began a transaction, or is the first statement of one */
		e->tx = r->status_after == 'T' || r->status_after == 'E';
	} else if (pl->ends) {
		take_entry(a, e, r->conn); /* the next query opens a checkout */
		e->ep = EP_RELEASED;
		e->announced = false;
	}
	if (e->conn != r->conn + 1)
		return;
	if (pl->query && r->sig)
		e->last_sig = r->sig;
	if (pl->query && e->npend)
		attrib_flush_pending(a, e); /* what waited for this statement */
	if (r->status_after == 'I' && e->tx && e->tx_bound && e->ep == EP_OPEN) {
		/* a checkout that only its BEGIN announced ends with its COMMIT
		 * or ROLLBACK: nothing says the connection's next statement is
		 * the same page's (Go's database/sql returns the connection on
		 * Commit; lib/pq under three routes at once gave the next page's
		 * statements, tied to the transaction's, to the tag route: 5.96
		 * (5.95-5.96) round trips per detail page for 6) */
		e->ep = EP_NONE;
		e->tx_bound = false;
	}
	if (r->status_after == 'I')
		e->tx = false; /* COMMIT, ROLLBACK: the transaction's bond ends */
	if (r->tail_ping) { /* the next checkout's test came with it */
		e->ep = EP_ACQUIRED;
		e->announced = false; /* when it was sent in the flight: unknown */
	}
}

void attrib_place_rt(struct attrib *a, const struct attrib_rt_rec *r, bool may_wait)
{
	struct placing pl;
	placing_init(a, r, may_wait, &pl);
	if (pl.announces && may_wait)
		announce(a, &pl);
	bool in_checkout = (((pl.tied_kind || pl.opens) && (!pl.announces || !may_wait)) ||
			    (pl.startup && !may_wait) || pl.in_episode || pl.in_tx || pl.closes_last) &&
			   pl.mine && pl.e->ntie;
	if (!(in_checkout && place_in_checkout(a, &pl)) && !place_by_candidates(a, &pl))
		return;
	if (a->feats && pl.f < a->nfeat)
		a->feats[pl.f].rtw += spread(a, r, pl.sh, pl.m, &pl.g);
	else
		spread(a, r, pl.sh, pl.m, &pl.g);
	follow_checkout(a, &pl);
}

