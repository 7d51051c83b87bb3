/* evidence.c - findings about what a run could measure (see evidence.h). */
#include "attrib/page_twins.h"
#include "attrib/route_learn.h"
#include "evidence.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EV_NAME(id, name, sev) name,
static const char *const code_names[] = {EVIDENCE_CODES(EV_NAME)};
#undef EV_NAME
#define EV_SEV(id, name, sev) sev,
static const uint8_t code_sev[] = {EVIDENCE_CODES(EV_SEV)};
#undef EV_SEV

const char *ev_code_name(int code)
{
	return code >= 0 && code < EV_NCODES ? code_names[code] : "?";
}

enum ev_severity ev_code_severity(int code)
{
	return code >= 0 && code < EV_NCODES ? (enum ev_severity)code_sev[code] : EV_WARNING;
}

const char *ev_severity_name(int sev)
{
	return sev == EV_FATAL ? "fatal" : sev == EV_WARNING ? "warning" : "note";
}

int ev_code_parse(const char *name)
{
	for (int i = 0; i < EV_NCODES; i++)
		if (strcmp(code_names[i], name) == 0)
			return i;
	return -1;
}

const char *ev_code_list(void)
{
	static char buf[EV_NCODES * 32];
	if (!buf[0]) {
		size_t n = 0;
		for (int i = 0; i < EV_NCODES && n < sizeof buf; i++)
			n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", i ? ", " : "",
					      code_names[i]);
	}
	return buf;
}

void evidence_add(struct evidence *ev, enum ev_code code, uint64_t count, bool lower_bound,
		  const char *fmt, ...)
{
	if (ev->n == EV_NCODES)
		return;
	struct ev_finding *f = &ev->f[ev->n++];
	f->code = (uint8_t)code;
	f->severity = (uint8_t)ev_code_severity(code);
	f->lower_bound = lower_bound;
	f->count = count;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(f->message, sizeof f->message, fmt, ap);
	va_end(ap);
	ev->lower_bound |= lower_bound;
}

static void port_list(char *buf, size_t cap, const uint16_t *ports, int n)
{
	size_t o = 0;
	buf[0] = '\0';
	for (int i = 0; i < n && o < cap; i++)
		o += (size_t)snprintf(buf + o, cap - o, "%s%u", i ? ", " : "", ports[i]);
}

static int busiest_first(const void *x, const void *y)
{
	const struct analysis_other_port *a = x, *b = y;
	if (a->pg_like != b->pg_like)
		return a->pg_like > b->pg_like ? -1 : 1;
	if (a->syns != b->syns)
		return a->syns > b->syns ? -1 : 1;
	return (a->port > b->port) - (a->port < b->port);
}

static void no_postgresql(const struct analysis *a, const struct report_input *in,
			  struct evidence *ev)
{
	const struct analysis_totals *t = analysis_counts(a);
	char ports[256];
	port_list(ports, sizeof ports, analysis_options(a)->ports, analysis_options(a)->nports);
	const char *s = analysis_options(a)->nports > 1 ? "s" : "";
	for (int i = 0; i < ANALYSIS_OTHER_PORTS; i++)
		if (t->other_ports[i].syns || t->other_ports[i].pg_like)
			ev->ports[ev->nports++] = t->other_ports[i];
	qsort(ev->ports, (size_t)ev->nports, sizeof ev->ports[0], busiest_first);

	char like[256] = "", opened[256] = "";
	size_t nl = 0, no = 0;
	uint16_t first = 0;
	for (int i = 0; i < ev->nports; i++) {
		const struct analysis_other_port *p = &ev->ports[i];
		if (p->pg_like && nl < sizeof like) {
			nl += (size_t)snprintf(like + nl, sizeof like - nl, "%s%u (%" PRIu64 " packets)",
					       nl ? ", " : "", p->port, p->pg_like);
			if (!first)
				first = p->port;
		} else if (p->syns && no < sizeof opened) {
			no += (size_t)snprintf(opened + no, sizeof opened - no, "%s%u", no ? ", " : "",
					       p->port);
		}
	}
	if (t->packets == 0 && in && in->drops) /* live: the filter passed only our ports */
		evidence_add(ev, EV_NO_POSTGRESQL, 0, false,
			     "no packet on PostgreSQL port%s %s reached the capture: is the server on "
			     "another port (-p) or interface (-i)?",
			     s, ports);
	else if (t->packets == 0)
		evidence_add(ev, EV_NO_POSTGRESQL, 0, false, "the capture holds no packets");
	else if (first)
		evidence_add(ev, EV_NO_POSTGRESQL, t->packets, false,
			     "no packets on PostgreSQL port%s %s; PostgreSQL traffic was seen on port %s: "
			     "try -p %u",
			     s, ports, like, first);
	else if (opened[0])
		evidence_add(ev, EV_NO_POSTGRESQL, t->packets, false,
			     "no packets on PostgreSQL port%s %s; connections were opened to port %s, "
			     "none of it parsed as PostgreSQL: check -p and the capture filter",
			     s, ports, opened);
	else
		evidence_add(ev, EV_NO_POSTGRESQL, t->packets, false,
			     "no packets on PostgreSQL port%s %s, and none of the %" PRIu64
			     " packets parsed as PostgreSQL on another port",
			     s, ports, t->packets);
}

/* The path segments taken for parameters (route_learn.h), a few with
 * the values that made them: a segment of an API's fixed resources taken
 * for one would merge routes, and this is where the user sees it. */
static void routes_learnt(const struct analysis *a, struct evidence *ev)
{
	const struct route_learn *l = analysis_learn(a);
	if (!l->nparams)
		return;
	char list[320];
	size_t o = 0;
	list[0] = '\0';
	for (uint32_t i = 0; i < l->nparams && i < 3 && o < sizeof list; i++) {
		const struct route_learn_note *nt = &l->notes[i];
		int w = snprintf(list + o, sizeof list - o, "%s%s (%s, %s, %s, ...)", i ? ", " : "",
				 nt->route, nt->example[0], nt->example[1], nt->example[2]);
		o += w > 0 ? (size_t)w : 0;
	}
	if (o >= sizeof list) /* cut: end on the last whole character */
		o = sizeof list - 1;
	evidence_add(ev, EV_ROUTES_LEARNT, l->nparams, false,
		     "%" PRIu32 " path segment%s took %" PRIu32 " different values after the same "
		     "segments and %s taken for a parameter: %s%s; --route names routes outright, "
		     "--route-values 0 keeps every value a route of its own",
		     l->nparams, l->nparams > 1 ? "s" : "", l->threshold,
		     l->nparams > 1 ? "were" : "was", list, l->nparams > 3 ? ", ..." : "");
}

/* Pages a proxy passed on to the application, both ports given: counted
 * once, as the application's (page_twins.h) */
static void proxied_pages(const struct analysis *a, struct evidence *ev)
{
	const struct page_twins *tw = analysis_twins(a);
	uint64_t left = 0, late = 0;
	const struct twin_endpoint *first = NULL;
	for (uint16_t i = 0; tw && i < tw->nep; i++)
		if (page_twins_proxy(tw, i)) {
			left += tw->ep[i].left_out;
			late += tw->ep[i].late;
			first = first ? first : &tw->ep[i];
		}
	if (!first)
		return;
	const char *inner = first->inner < tw->nep ? tw->ep[first->inner].name : "?";
	char twice[160] = "";
	if (late)
		snprintf(twice, sizeof twice,
			 "; %" PRIu64 " of them, before it was known for one, were counted twice", late);
	evidence_add(ev, EV_PROXIED_PAGES, left + late, false,
		     "%" PRIu64 " pages on %s%s were requests a proxy passed on to %s (the same "
		     "method and target, or the target less a prefix, inside each one's window): "
		     "each counted once, as the application's page%s",
		     left + late, first->name, left + late > first->left_out + first->late
						   ? " and other proxies" : "",
		     inner, twice);
}

/* An endpoint's ("address:port", "[v6]:port") port, and its address as
 * BPF takes it, into host (NULL: the port alone) */
static unsigned endpoint_split(const char *end, char *host, size_t cap)
{
	const char *colon = strrchr(end, ':');
	size_t n = colon ? (size_t)(colon - end) : strlen(end);
	const char *h = end;
	if (n >= 2 && h[0] == '[' && h[n - 1] == ']') {
		h++;
		n -= 2;
	}
	if (host)
		snprintf(host, cap, "%.*s", (int)n, h);
	return colon ? (unsigned)strtoul(colon + 1, NULL, 10) : 0;
}

/* What a finding on legs says of its protocol */
struct legs_words {
	const char *rts;   /* its round trips with something to match by */
	const char *same;  /* what a copy has the same of */
	const char *proxy; /* what passes them on, on another port */
	const char *relay; /* ... on the same port */
	const char *flag;  /* the option that gives one port */
};

/* A pooler and its server both captured: each round trip through it is on
 * both legs, and counted on both (legs.h).  Legs on two ports (both
 * given) are told apart by port; on one port, by address - a relay at
 * another address (a published container port, a tunnel, a pooler on its
 * own host) or a NAT captured on both sides (a Kubernetes Service) - and
 * -f says how to keep one. */
static void legs_finding(const struct analysis *a, const struct legs *l, enum ev_code code,
			 const struct legs_words *w, struct evidence *ev)
{
	uint8_t outer, inner;
	uint64_t copies;
	if (!l || !legs_found(l, &outer, &inner, &copies))
		return;
	char ih[LEGS_NAME_MAX];
	unsigned o = endpoint_split(l->end[outer], NULL, 0);
	unsigned i = endpoint_split(l->end[inner], ih, sizeof ih);
	char counted[320];
	char twice[96] = "";
	if (l->paged[inner])
		snprintf(twice, sizeof twice, "; its first %" PRIu64 ", before it was known, counted "
			 "twice", l->paged[inner]);
	char on[32] = "the relay's", in[32] = "the server's"; /* by port, or on one port by role */
	if (o != i) {
		snprintf(on, sizeof on, "port %u's", o);
		snprintf(in, sizeof in, "port %u's", i);
	}
	if (analysis_attributing(a) && l->decided)
		snprintf(counted, sizeof counted,
			 "pages count %s round trips alone (%s %" PRIu64 " left out%s), the totals "
			 "both %s'", on, in, l->left_out, twice, o != i ? "ports" : "legs");
	else
		snprintf(counted, sizeof counted, "each round trip through it is counted twice, in "
			 "the totals%s", analysis_attributing(a) ? " and in pages" : "");
	if (o != i) {
		evidence_add(ev, code, copies, false,
			     "%" PRIu64 " of the %" PRIu64 " %s on port %u ran inside one on port %u "
			     "with the same %s: port %u is the server side of a %s on port %u; %s; "
			     "analyze one port at a time (%s %u: what the application sends, and its "
			     "pages; %s %u: what the server receives)",
			     copies, l->stmts[inner], w->rts, i, o, w->same, i, w->proxy, o, counted,
			     w->flag, o, w->flag, i);
		return;
	}
	/* the server's endpoint, exactly: its host may be the client's too (loopback) */
	char side[2 * LEGS_NAME_MAX + 96];
	snprintf(side, sizeof side, "(src host %s and src port %u) or (dst host %s and dst port %u)",
		 ih, i, ih, i);
	evidence_add(ev, code, copies, false,
		     "%" PRIu64 " of the %" PRIu64 " %s to %s ran inside one to %s with the same "
		     "%s: a %s at %s passes them on to %s on the same port (a published "
		     "container port, a tunnel, an address translation captured on both sides); "
		     "%s; analyze one side at a time (-f 'not (%s)': the application's, and its "
		     "pages; -f '%s': the server's)",
		     copies, l->stmts[inner], w->rts, l->end[inner], l->end[outer], w->same,
		     w->relay, l->end[outer], l->end[inner], counted, side, side);
}

/* A protocol's finding named code (proto_ops' code_...), or -1: none. */
static int proto_code(const char *code)
{
	return code ? ev_code_parse(code) : -1;
}

static void pooler_legs(const struct analysis *a, struct evidence *ev)
{
	static const struct legs_words pg = {"statements' round trips", "statement",
					     "pooler or proxy", "pooler or relay", "-p"};
	legs_finding(a, &analysis_pgsql(a)->legs, EV_POOLER_LEGS, &pg, ev);
	for (int p = 0; p < PROTO_N; p++) { /* every other protocol's, in its words */
		const struct proto_ops *ops = analysis_protocol(p);
		if (!ops || !ops->legs || proto_code(ops->code_legs) < 0)
			continue;
		char rts[64], same[64];
		snprintf(rts, sizeof rts, "%s round trips", ops->title);
		snprintf(same, sizeof same, "%ss", ops->by_name_noun ? ops->by_name_noun : "message");
		const struct legs_words w = {rts, same, "proxy", "proxy or relay", ops->port_option};
		legs_finding(a, ops->legs(analysis_shared(a, p)), proto_code(ops->code_legs), &w, ev);
	}
}

/* Pages from the server's side of a transaction pooler alone (the default
 * port with PgBouncer on the application's host, -i any): its server
 * connections carry each client's statements and pings in turn, as each
 * transaction finds one free, so they hold none of the application's
 * checkouts and what is tied by checkout is tied wrongly (the C app's
 * three routes read 7.99 / 13.05 / 10.93 for 9 / 12 / 9, intervals that
 * missed, in an earlier version; 12.16 / 9.14 / 8.70 for 12 / 9 / 9 now,
 * the pings' roles 2.55 / 2.47 for 4 / 4: docs/pools.md).  Behind session
 * pooling (PgBouncer's default) a client keeps its server connection for
 * its session, and the server's leg is the application's.
 *
 * PgBouncer's server connections show themselves: a startup with the
 * database first and the user last, and SETs of its own when it gives one
 * to a client whose settings differ.  One SET is no proof (an application
 * may write that shape), nor is one startup (pgx orders its parameters at
 * random): two connections with the SETs, or a SET and the startup, or
 * eight startups and no other shape.  The pooling mode shows in fewer
 * ways: the statements it prepares for its clients (PGBOUNCER_n, by
 * default since 1.22, transaction pooling alone) on any connection, or its
 * SET after a client's statements with no reset between (handed on
 * mid-session: a session pooler resets with DISCARD ALL first) - the
 * warning; resets on most of them - session pooling, nothing said; neither
 * - the note, which says what to check.  Without pages the counts stand
 * (what the server ran), but the pings' roles do not (each ping went to a
 * connection apart from its checkout's statements): the note says so where
 * there are pings.  A pooler's connections opened
 * before the capture, given to clients all alike, running unnamed
 * statements, show nothing. */
static void pooler_server_leg(const struct analysis *a, const struct pooler_signs *p,
			      uint64_t pages, uint64_t pings, struct evidence *ev)
{
	if (p->conns == 0 || (pages == 0 && pings == 0) || analysis_pgsql(a)->legs.decided)
		return; /* nothing like it, nothing it would mislead, or both legs given */
	bool pgbouncer = p->name_conns >= 1 || p->set_conns >= 2 ||
			 (p->set_conns >= 1 && p->startups >= 1) ||
			 (p->startups >= 8 && p->other_startups == 0);
	bool by_transaction = p->name_conns >= 1 || p->relink_conns >= 2 ||
			      (p->relink_conns >= 1 && (p->set_conns >= 2 || p->startups >= 1));
	if (!pgbouncer || (!by_transaction && p->reset_conns * 2 >= p->conns))
		return;
	char signs[256];
	snprintf(signs, sizeof signs,
		 "PgBouncer's signs: its own SETs on %" PRIu64 " (%" PRIu64 " after a client's "
		 "statements), its prepared statements (PGBOUNCER_n) on %" PRIu64 ", its startup "
		 "(database first, user last) on %" PRIu64,
		 p->set_conns, p->relink_conns, p->name_conns, p->startups);
	/* without pages the counts are what the server ran; the pings' roles
	 * are not.  A warning only where pages rest on it and the mode shows */
	const char *tail = pages == 0 ? "the pings' roles (acquire, release) here are not the "
					"pool's; the counts are what the server ran, the "
					"pooler's port (-p 6432 by default) has the "
					"application's own"
			   : by_transaction ? "the pages' figures here rest on timing alone and "
					      "their pings' roles are not the pool's; for pages, "
					      "analyze the pooler's port (-p 6432 by default)"
					    : "the pages' figures here rest on timing alone and "
					      "their pings' roles are not the pool's; by session, "
					      "they are the application's; for pages, analyze the "
					      "pooler's port (-p 6432 by default)";
	evidence_add(ev, pages && by_transaction ? EV_POOLER_SERVER_LEG : EV_POOLER_SERVER_CONNS,
		     p->conns, false, "%" PRIu64 " connections on port %u %s server connections (%s)%s %s",
		     p->conns, p->port,
		     by_transaction ? "are a transaction pooler's" : "look like a pooler's", signs,
		     by_transaction ? ": each statement and ping went to whichever was free, so"
				    : ", its pooling mode not shown: by transaction,",
		     tail);
}

/* Commands the capture cannot give a route, in the words of the protocol
 * whose commands the pages held (asked for, with page figures: Redis). */
static void unplaced_commands(const struct analysis *a, struct evidence *ev)
{
	const struct attrib *at = analysis_attrib(a);
	const char *of = "command";
	for (int p = PROTO_N - 1; p >= 0; p--)
		if (analysis_protocol(p) && analysis_protocol(p)->npage_figs && analysis_asked(a, p))
			of = analysis_protocol(p)->title;
	if (at->unplaced_cmds)
		evidence_add(ev, EV_UNPLACED_COMMANDS, at->unplaced_cmds, false,
			     "%" PRIu32 " %s command name%s (%.0f commands) fit pages of several routes "
			     "about as well: the capture cannot tell which route sends %s, so %s routes' "
			     "%s intervals span none to all of %s",
			     at->unplaced_cmds, of, at->unplaced_cmds > 1 ? "s" : "", at->unplaced_cmd_n,
			     at->unplaced_cmds > 1 ? "them" : "it", at->unplaced_cmds > 1 ? "their" : "its",
			     of, at->unplaced_cmds > 1 ? "them" : "it");
}

static void http_findings(const struct analysis *a, struct evidence *ev)
{
	const struct http_totals *ht = analysis_http(a);
	const struct pgsql_totals *pt = &analysis_pgsql(a)->tot;
	const struct attrib *at = analysis_attrib(a);
	char ports[256];
	port_list(ports, sizeof ports, analysis_options(a)->http_ports, analysis_options(a)->nhttp_ports);
	const char *s = analysis_options(a)->nhttp_ports > 1 ? "s" : "";
	uint64_t pages = 0, estimated = 0;
	double rts = 0, inferred = 0;
	for (uint32_t i = 0; i < at->nroutes; i++) {
		pages += at->routes[i].pages;
		estimated += at->routes[i].pages_mixed != 0;
		rts += at->routes[i].rt;
		inferred += at->routes[i].inferred;
	}
	/* first: with no page at all, what was lost is still lost */
	if (at->dropped)
		evidence_add(ev, EV_ATTRIBUTION_DROPPED, at->dropped, true,
			     "%" PRIu64 " pages or round trips were not attributed: more than %u waited "
			     "at once, or memory ran out",
			     at->dropped, ATTRIB_BUFFER_MAX);
	if (ht->not_decodable) {
		char why[160] = "";
		size_t n = 0;
		for (int e = 1; e < HTTP1_E_COUNT && n < sizeof why; e++)
			if (ht->by_error[e] && (e == HTTP1_E_HTTP2 || e == HTTP1_E_TLS ||
						    e == HTTP1_E_UPGRADE))
				n += (size_t)snprintf(why + n, sizeof why - n, "%s%s %" PRIu64,
						      n ? ", " : "", http1_error_name(e),
						      ht->by_error[e]);
		evidence_add(ev, EV_HTTP_UNDECODABLE, ht->not_decodable, true,
			     "%" PRIu64 " HTTP connections could not be decoded (%s): their pages are "
			     "not counted",
			     ht->not_decodable, why);
	}
	if (pages == 0) {
		if (ht->packets == 0)
			evidence_add(ev, EV_NO_PAGES, 0, false,
				     "no packets on HTTP port%s %s: no page to attribute round trips to",
				     s, ports);
		else
			evidence_add(ev, EV_NO_PAGES, 0, false,
				     "no complete HTTP page on port%s %s (%" PRIu64 " packets, %" PRIu64
				     " requests, %" PRIu64 " responses)",
				     s, ports, ht->packets, ht->requests, ht->responses);
		return;
	}
	if (pt->st.round_trips && at->rts_in_pages == 0)
		evidence_add(ev, EV_PAGES_WITHOUT_ROUND_TRIPS, pages, false,
			     "%" PRIu64 " pages and %" PRIu64 " round trips, but no round trip started "
			     "inside a page: is this capture missing the application's database "
			     "connections (another host, port or interface)?",
			     pages, pt->st.round_trips);
	/* with no round trip in a page nothing was estimated: the finding
	 * above (or no-postgresql) says why, and "0.0% inferred" beside it
	 * would read as a figure */
	if (rts <= 0)
		estimated = 0;
	routes_learnt(a, ev);
	proxied_pages(a, ev);
	if (estimated)
		evidence_add(ev, EV_MIXED_ROUTES, estimated, false,
			     "%" PRIu64 " route%s figures are estimated: %" PRIu64 " pages overlapped pages of other "
			     "routes, and %.1f%% of the round trips in pages were given to a route by "
			     "inference (each route's share and 95%% interval in its figures)",
			     estimated, estimated > 1 ? "s'" : "'s", at->mixed_pages,
			     rts > 0 ? 100 * inferred / rts : 0.0);
	if (estimated && at->unplaced_feats)
		evidence_add(ev, EV_UNPLACED, at->unplaced_feats, false,
			     "%" PRIu32 " statement%s (%.0f round trips) fit pages of several routes about "
			     "as well: the capture cannot tell which route runs %s (pages of one route "
			     "start as another's do: lockstep load?), so %s routes' intervals span "
			     "none to all of %s",
			     at->unplaced_feats, at->unplaced_feats > 1 ? "s" : "", at->unplaced_rts,
			     at->unplaced_feats > 1 ? "them" : "it", at->unplaced_feats > 1 ? "their" : "its",
			     at->unplaced_feats > 1 ? "them" : "it");
	if (estimated && at->lockstep_pairs)
		evidence_add(ev, EV_LOCKSTEP, at->lockstep_pairs, false,
			     "%" PRIu32 " pair%s of routes start in lockstep (one's pages right behind the "
			     "other's: a load tool cycling paths in a fixed order?): which of them ran a "
			     "statement both could have run rests on the model alone: their figures can "
			     "be far off, and where the fit split such a statement between them their "
			     "95%% intervals span none to all of it (JSON lockstep_with and lockstep per "
			     "route; vary the order of the load)",
			     at->lockstep_pairs, at->lockstep_pairs > 1 ? "s" : "");
	unplaced_commands(a, ev);
	if (at->long_pages)
		evidence_add(ev, EV_LONG_REQUESTS, at->long_pages, false,
			     "%" PRIu64 " pages were open longer than %.0f s (long polls, server-sent "
			     "events): counted, not attributed, so they hold nothing back",
			     at->long_pages, (double)at->hold_ns / 1e9);
}

/* A protocol asked for with its port option (Redis's --redis-port):
 * measured, or why not.  A wrong port must not read as an app that does
 * without it. */
static void proto_findings(const struct analysis *a, const struct proto_ops *p,
			   struct evidence *ev)
{
	const void *shared = analysis_shared(a, p->id);
	const struct proto_totals *t = p->totals(shared);
	char ports[256];
	int nports;
	const uint16_t *port = analysis_ports(a, p->id, &nports);
	port_list(ports, sizeof ports, port, nports);
	const char *s = nports > 1 ? "s" : "";
	int absent = proto_code(p->code_absent), damage = proto_code(p->code_damage);
	if (t->packets == 0 && absent >= 0)
		evidence_add(ev, absent, 0, false,
			     "no packets on %s port%s %s: is the server on another port (%s)?",
			     p->title, s, ports, p->port_option);
	else if (!analysis_measured(a, p->id) && absent >= 0)
		evidence_add(ev, absent, t->packets, false,
			     "%" PRIu64 " packets on %s port%s %s, but not one round trip could be "
			     "counted%s",
			     t->packets, p->title, s, ports, t->tls ? " (encrypted connections)" : "");
	if ((t->gaps || t->malformed || t->tls) && damage >= 0)
		evidence_add(ev, damage, t->gaps + t->malformed + t->tls, true,
			     "%s connections with %" PRIu64 " gaps (%" PRIu64 " bytes never "
			     "captured), %" PRIu64 " malformed values, %" PRIu64 " encrypted: their "
			     "figures are lower bounds",
			     p->title, t->gaps, t->gap_bytes, t->malformed, t->tls);
}

/* The protocols asked for that have totals of their own (proto_findings's). */
static const struct proto_ops *asked_proto(const struct analysis *a, int *p)
{
	for (; *p < PROTO_N; ++*p) {
		const struct proto_ops *ops = analysis_protocol(*p);
		if (ops && ops->totals && analysis_asked(a, *p))
			return ops;
	}
	return NULL;
}

void evidence_live(const struct analysis *a, const struct analysis_live *now, struct evidence *ev)
{
	const struct analysis_totals *t = analysis_counts(a);
	const struct http_totals *ht = analysis_http(a);
	const struct pgsql_totals *pt = &analysis_pgsql(a)->tot;
	char ports[256];
	memset(ev, 0, sizeof(*ev));
	port_list(ports, sizeof ports, analysis_options(a)->ports, analysis_options(a)->nports);
	uint64_t others = 0; /* packets of the other protocols asked for */
	const struct proto_ops *ops;
	for (int p = 0; (ops = asked_proto(a, &p)); p++)
		others += ops->totals(analysis_shared(a, p))->packets;
	if (pt->packets == 0 && !others)
		evidence_add(ev, EV_NO_POSTGRESQL, t->packets, false,
			     "no packets on PostgreSQL port%s %s yet", analysis_options(a)->nports > 1 ? "s" : "",
			     ports);
	else if (pt->packets && now->pg.round_trips == 0)
		evidence_add(ev, EV_NO_ROUND_TRIPS, pt->packets, false,
			     "%" PRIu64 " packets on PostgreSQL port%s %s, no round trip yet",
			     pt->packets, analysis_options(a)->nports > 1 ? "s" : "", ports);
	if (analysis_attributing(a) && ht->packets == 0) {
		port_list(ports, sizeof ports, analysis_options(a)->http_ports, analysis_options(a)->nhttp_ports);
		evidence_add(ev, EV_NO_PAGES, 0, false, "no packets on HTTP port%s %s yet",
			     analysis_options(a)->nhttp_ports > 1 ? "s" : "", ports);
	}
	for (int p = 0; (ops = asked_proto(a, &p)); p++) {
		int nports, absent = proto_code(ops->code_absent);
		const uint16_t *port = analysis_ports(a, p, &nports);
		if (ops->totals(analysis_shared(a, p))->packets || absent < 0)
			continue;
		port_list(ports, sizeof ports, port, nports);
		evidence_add(ev, absent, 0, false, "no packets on %s port%s %s yet", ops->title,
			     nports > 1 ? "s" : "", ports);
	}
	pooler_legs(a, ev); /* a scraper would read every round trip twice */
	/* its open connections' signs too: long-lived */
	pooler_server_leg(a, &now->pg.pooler, analysis_attributing(a) ? now->http.pages : 0, now->pg.pings, ev);
}

/* What the capture itself lost or cut: an input read in part, drops,
 * snaplen, gaps, malformed messages - every count after them a lower
 * bound. */
static void capture_findings(const struct analysis *a, const struct report_input *in,
			     struct evidence *ev)
{
	const struct analysis_totals *t = analysis_counts(a);
	const struct pgsql_totals *pt = &analysis_pgsql(a)->tot;
	if (in && in->partial)
		evidence_add(ev, EV_PARTIAL_INPUT, 1, true,
			     "an input could not be read to its end: figures cover what was read");
	if (in && in->drops && in->drops->drop + in->drops->ifdrop)
		evidence_add(ev, EV_DROPS, in->drops->drop + in->drops->ifdrop, true,
			     "%" PRIu64 " packets dropped by the kernel, %" PRIu64 " by the interface: "
			     "counts are lower bounds (try a larger -B)",
			     in->drops->drop, in->drops->ifdrop);
	if (pt->truncated_segs)
		evidence_add(ev, EV_TRUNCATED, pt->truncated_segs, true,
			     "%" PRIu64 " TCP segments were cut by the capture's snaplen: counts are "
			     "lower bounds (capture with -s 0)",
			     pt->truncated_segs);
	if (pt->gaps && t->buffer_gaps)
		evidence_add(ev, EV_GAPS, pt->gaps, true,
			     "%" PRIu64 " gaps (%" PRIu64 " bytes never captured; %" PRIu64 " holes given "
			     "up at the --max-buffer limit): round trips on those connections are lower "
			     "bounds",
			     pt->gaps, pt->gap_bytes, t->buffer_gaps);
	else if (pt->gaps)
		evidence_add(ev, EV_GAPS, pt->gaps, true,
			     "%" PRIu64 " gaps (%" PRIu64 " bytes never captured): round trips on "
			     "those connections are lower bounds",
			     pt->gaps, pt->gap_bytes);
	if (pt->malformed)
		evidence_add(ev, EV_MALFORMED, pt->malformed, true,
			     "%" PRIu64 " malformed PostgreSQL messages skipped (resynchronised): "
			     "counts are lower bounds",
			     pt->malformed);
}

void evidence_of(const struct analysis *a, const struct report_input *in, struct evidence *ev)
{
	const struct analysis_totals *t = analysis_counts(a);
	const struct pgsql_totals *pt = &analysis_pgsql(a)->tot;
	memset(ev, 0, sizeof(*ev));
	const struct proto_ops *only = NULL; /* the other protocol measured, PostgreSQL not */
	for (int p = 0; pt->packets == 0 && !only && asked_proto(a, &p); p++)
		if (analysis_measured(a, p)) /* as analysis_pg_measured says */
			only = analysis_protocol(p);
	if (only && proto_code(only->code_only) >= 0) {
		char ports[256];
		port_list(ports, sizeof ports, analysis_options(a)->ports, analysis_options(a)->nports);
		evidence_add(ev, proto_code(only->code_only), 0, false,
			     "no packets on PostgreSQL port%s %s: only %s was measured",
			     analysis_options(a)->nports > 1 ? "s" : "", ports, only->title);
	} else if (pt->packets == 0 && !only) {
		no_postgresql(a, in, ev);
	}
	else if (pt->st.round_trips == 0 && pt->packets)
		evidence_add(ev, EV_NO_ROUND_TRIPS, pt->packets, false,
			     "%" PRIu64 " PostgreSQL packets on %" PRIu64 " connections, but not one "
			     "round trip could be counted%s",
			     pt->packets, pt->connections,
			     pt->tls == pt->connections ? ": every connection is encrypted" : "");
	if (pt->tls)
		evidence_add(ev, EV_ENCRYPTED, pt->tls, true,
			     "%" PRIu64 " of %" PRIu64 " connections are encrypted (TLS/GSSAPI%s)%s: "
			     "their round trips cannot be counted; give the clients' TLS key log "
			     "(--tls-keylog, TLS 1.3 after SSLRequest or direct), or connect with "
			     "sslmode=disable on a test system",
			     pt->tls, pt->connections,
			     pt->tls_mid_stream ? ", recognised mid-stream" : "",
			     pt->tls_decrypted ? " and not read with a key log" : "");
	if (pt->undecodable)
		evidence_add(ev, EV_UNDECODABLE, pt->undecodable, true,
			     "%" PRIu64 " connections carried bytes that never framed as PostgreSQL "
			     "(picked up mid-stream, not recognisably encrypted): not counted",
			     pt->undecodable);
	capture_findings(a, in, ev);
	if (t->evicted)
		evidence_add(ev, EV_EVICTED, t->evicted, false,
			     "%" PRIu64 " connections were closed early: more than %u were open at "
			     "once",
			     t->evicted, analysis_options(a)->max_open);
	/* the attribution short of memory: routes not learnt (or pages named
	 * before they were), estimates the running guess or intervals not the
	 * jackknife's (infer.h) */
	bool fit_short = analysis_attributing(a) &&
			 (attrib_short_of_memory(analysis_attrib(a)) || analysis_pages_short(a));
	if (t->nomem)
		evidence_add(ev, EV_OUT_OF_MEMORY, t->nomem, true,
			     "out of memory %" PRIu64 " times: some packets or connections were not "
			     "analysed%s",
			     t->nomem, fit_short ? ", and the routes' figures are rough" : "");
	else if (fit_short)
		evidence_add(ev, EV_OUT_OF_MEMORY, 1, false,
			     "out of memory in the attribution to routes: route names, estimated "
			     "figures or their intervals are rough (values not learnt as parameters, "
			     "the running guess, the widest bounds)");
	if (pt->enc_extra_bytes)
		evidence_add(ev, EV_SSL_INJECTION, pt->enc_extra_bytes, false,
			     "%" PRIu64 " bytes followed the server's 'S' answer to SSLRequest in the "
			     "same segment: possible man-in-the-middle injection (CVE-2021-23222)",
			     pt->enc_extra_bytes);
	pooler_legs(a, ev);
	uint64_t pages = 0;
	for (uint32_t i = 0; analysis_attributing(a) && i < analysis_attrib(a)->nroutes; i++)
		pages += analysis_attrib(a)->routes[i].pages;
	pooler_server_leg(a, &pt->pooler, pages, pt->st.by_class[RT_PING], ev);
	if (analysis_attributing(a))
		http_findings(a, ev);
	const struct proto_ops *ops;
	for (int p = 0; (ops = asked_proto(a, &p)); p++)
		proto_findings(a, ops, ev);
	uint64_t plain_mid = pt->mid_stream - pt->tls_mid_stream;
	if (plain_mid > pt->undecodable)
		evidence_add(ev, EV_MID_STREAM, plain_mid - pt->undecodable, false,
			     "%" PRIu64 " connections were picked up mid-stream: what they did before "
			     "the capture started is not counted",
			     plain_mid - pt->undecodable);
}
