/* report_text.c - the human summary: totals, then one row per connection. */
#define _DEFAULT_SOURCE
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "base/escape.h"
#include "findings/evidence.h"
#include "report.h"

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

static void class_line(FILE *out, const struct rtt_stats *st)
{
	const char *sep = "";
	for (int c = 0; c < RT_NCLASS; c++) {
		if (!st->by_class[c])
			continue;
		fprintf(out, "%s%s %" PRIu64, sep, rt_class_name(c), st->by_class[c]);
		if (c == RT_PING)
			fprintf(out, " (acquire %" PRIu64 ", release %" PRIu64 ", idle %" PRIu64 ")",
				st->pings[PING_ACQUIRE], st->pings[PING_RELEASE], st->pings[PING_IDLE]);
		sep = ", ";
	}
	if (!sep[0])
		fprintf(out, "none");
	fputc('\n', out);
}

/* A protocol's figures per page and route, beside PostgreSQL's (figure.h:
 * Redis's, with --redis-port) */
static void page_figures_table(FILE *out, const struct analysis *a, const struct proto_ops *p)
{
	const struct attrib *at = analysis_attrib(a);
	if (!p->npage_figs || !analysis_asked(a, p->id))
		return;
	if (!analysis_measured(a, p->id)) { /* a wrong port is no Redis-free app */
		fprintf(out, "%s per page: not measured (no %s round trip on the %s ports; see warnings)\n",
			p->name, p->title, p->port_option);
		return;
	}
	fprintf(out, "\n  %-28s %6s", "route", "pages");
	for (int k = 0; k < p->npage_figs; k++)
		fprintf(out, " %s", p->page_figs[k].head);
	fprintf(out, "  %s\n", "attribution");
	for (uint32_t i = 0; i < at->nroutes; i++) {
		const struct attrib_route *r = &at->routes[i];
		if (!r->pages)
			continue;
		double n = (double)r->pages;
		fprintf(out, "  %-28s %6" PRIu64, r->name, r->pages);
		for (int k = 0; k < p->npage_figs; k++)
			fprintf(out, " %*.2f", (int)strlen(p->page_figs[k].head),
				route_page_count(r, p->page_figs[k].count) / n);
		fprintf(out, "  %s\n", route_attribution(r));
	}
	fprintf(out, "%s round trips: %" PRIu64 " in pages (%" PRIu64 " shared by several), %" PRIu64
		     " outside any page\n",
		p->name, at->cmd_rts_in_pages, at->cmd_rts_shared, at->cmd_rts_outside);
}

static void routes_table(FILE *out, const struct analysis *a, const struct evidence *ev)
{
	const struct attrib *at = analysis_attrib(a);
	for (int i = 0; i < ev->n; i++) {
		if (ev->f[i].severity == EV_FATAL) {
			uint64_t pages = 0;
			for (uint32_t r = 0; r < at->nroutes; r++)
				pages += at->routes[r].pages;
			fprintf(out, "\nroutes: %u routes, %" PRIu64 " pages; round trips per page not "
				     "measured (%s)\n",
				at->nroutes, pages, ev_code_name(ev->f[i].code));
			return;
		}
	}
	fprintf(out, "\nroutes (a round trip belongs to the page it starts in, or up to %.1f ms after):\n",
		(double)at->grace_ns / 1e6);
	fprintf(out, "  %-28s %6s %8s %9s %7s %-19s %6s %6s %6s %8s %8s %6s  %s\n", "route", "pages",
		"rt/page", "rfq/page", "query", "ping (acq/rel)", "reset", "tx", "prep", "p50 ms",
		"p99 ms", "conns", "attribution");
	for (uint32_t i = 0; i < at->nroutes; i++) {
		const struct attrib_route *r = &at->routes[i];
		if (!r->pages) {
			if (r->pages_long)
				fprintf(out, "  %-28s %6s  (all %" PRIu64 " pages open longer than the "
					     "page timeout: not attributed)\n",
					r->name, "-", r->pages_long);
			continue;
		}
		double n = (double)r->pages;
		char ping[48];
		snprintf(ping, sizeof ping, "%.2f (%.2f/%.2f)", r->by_class[RT_PING] / n,
			 r->pings[PING_ACQUIRE] / n, r->pings[PING_RELEASE] / n);
		char how[96];
		if (r->pages_mixed) {
			double lo, hi;
			route_interval(r, &lo, &hi);
			snprintf(how, sizeof how, "%s (%.0f%% inferred; 95%% %.2f-%.2f)",
				 route_attribution(r), 100 * route_inferred_share(r), lo, hi);
		} else {
			snprintf(how, sizeof how, "%s", route_attribution(r));
		}
		double cpp = route_conns_per_page(r);
		char conns[16];
		snprintf(conns, sizeof conns, isnan(cpp) ? "-" : "%.2f", cpp);
		fprintf(out, "  %-28s %6" PRIu64 " %8.2f %9.2f %7.2f %-19s %6.2f %6.2f %6.2f %8.3f %8.3f %6s  %s\n",
			r->name, r->pages, r->rt / n, r->rfq / n, r->by_class[RT_QUERY] / n, ping,
			r->by_class[RT_RESET] / n, r->by_class[RT_TRANSACTION] / n,
			r->by_class[RT_PREPARE] / n, ms(hist_quantile(r->http_ns, 0.5)),
			ms(hist_quantile(r->http_ns, 0.99)), conns, how);
	}
	fprintf(out, "round trips: %" PRIu64 " in pages, %" PRIu64 " outside any page",
		at->rts_in_pages, at->rts_outside);
	if (at->dropped)
		fprintf(out,
			", %" PRIu64 " pages or round trips not attributed (too many at once, or no "
			"memory)",
			at->dropped);
	fputc('\n', out);
	if (at->mixed_pages)
		fprintf(out, "pages overlapping other routes: %" PRIu64 " (estimated: %" PRIu64
			     " round trips held by pages of several routes given by inference)\n",
			at->mixed_pages, at->rts_mixed);
	for (int p = 0; p < PROTO_N; p++)
		if (analysis_protocol(p))
			page_figures_table(out, a, analysis_protocol(p));
}

static void pg_rows(FILE *out, const struct analysis *a);

/* The rows of the connections of every protocol that prints its own
 * (proto_ops.text_connection), protocol by protocol. */
static void other_rows(FILE *out, const struct analysis *a)
{
	for (int p = 0; p < PROTO_N; p++) {
		const struct proto_ops *ops = analysis_protocol(p);
		if (!ops || !ops->text_connection)
			continue;
		bool first = true;
		uint32_t n;
		const struct conn_summary *listed = analysis_listed(a, &n);
		for (uint32_t i = 0; i < n; i++) {
			if (listed[i].proto != p)
				continue;
			ops->text_connection(out, &listed[i], first);
			first = false;
		}
	}
}

/* What was read: the files, the packets of each protocol, the ports. */
static void input_lines(FILE *out, const struct analysis *a, const struct report_input *in)
{
	const struct analysis_totals *t = analysis_counts(a);
	double dur = t->last_ts > t->first_ts ? (double)(t->last_ts - t->first_ts) / 1e9 : 0;
	fprintf(out, "input: ");
	for (int i = 0; i < in->nfiles; i++) {
		fputs(i ? ", " : "", out);
		esc_term(out, in->files[i]);
	}
	fprintf(out, "%s\n", in->partial ? " (incomplete: see warnings)" : "");
	fprintf(out, "packets: %" PRIu64 " (%" PRIu64 " PostgreSQL) over %.3f s; ports", t->packets,
		analysis_pgsql(a)->tot.packets, dur);
	for (int i = 0; i < analysis_options(a)->nports; i++)
		fprintf(out, " %u", analysis_options(a)->ports[i]);
	for (int p = 0; p < PROTO_N; p++) { /* every other protocol with totals asked for */
		const struct proto_ops *ops = analysis_protocol(p);
		if (!ops || !ops->totals || !analysis_asked(a, p))
			continue;
		int nports;
		const uint16_t *port = analysis_ports(a, p, &nports);
		fprintf(out, "; %" PRIu64 " %s, ports", ops->totals(analysis_shared(a, p))->packets,
			ops->title);
		for (int i = 0; i < nports; i++)
			fprintf(out, " %u", port[i]);
	}
	fputc('\n', out);
}

void report_text(FILE *out, const struct analysis *a, const struct report_input *in)
{
	const struct pgsql_shared *pg = analysis_pgsql(a);
	const struct analysis_totals *t = analysis_counts(a);
	const struct http_totals *ht = analysis_http(a);
	const struct pgsql_totals *pt = &pg->tot;

	input_lines(out, a, in);

	if (in->drops)
		fprintf(out, "capture: %" PRIu64 " received by filter, %" PRIu64
			     " dropped by kernel, %" PRIu64 " dropped by interface%s\n",
			in->drops->recv, in->drops->drop, in->drops->ifdrop,
			in->drops->drop + in->drops->ifdrop ? " (counts below are lower bounds)" : "");
	struct evidence ev;
	evidence_of(a, in, &ev);
	const struct rtt_stats *s = &pt->st;
	fprintf(out, "connections: %" PRIu64 "  ready_for_query: %" PRIu64 "  round_trips: %" PRIu64
		     "%s\n",
		pt->connections, s->rfq, s->round_trips,
		ev.lower_bound ? "  (lower bounds: see warnings)" : "");
	fprintf(out, "by class: ");
	class_line(out, s);
	uint64_t timed = ping_told_by_timing(s);
	if (s->pings_policy)
		fprintf(out, "ping roles: the pool pings on %s only (evidence: %" PRIu64 " release, %" PRIu64
			     " acquire by position; %" PRIu64 " release, %" PRIu64 " acquire by idle time);"
			     " %" PRIu64 " lone Syncs between two queries labelled by that\n",
			ping_policy_name(pg->ping_policy), pg->ping_ev.release, pg->ping_ev.acquire,
			pg->ping_ev.release_idle, pg->ping_ev.acquire_idle, s->pings_policy);
	if (timed)
		fprintf(out, "ping roles: %" PRIu64 " lone Syncs between two queries told apart by timing"
			     " alone (the pool's policy is %s): the acquire/release split is uncertain\n",
			timed, ping_policy_name(pg->ping_policy));
	if (pg->lat.count)
		fprintf(out, "latency: p50 %.3f ms  p99 %.3f ms  max %.3f ms  (%" PRIu64 " round trips)\n",
			ms(hist_quantile(&pg->lat, 0.5)), ms(hist_quantile(&pg->lat, 0.99)),
			ms(pg->lat.max), pg->lat.count);
	fprintf(out, "rows: %" PRIu64 "  errors: %" PRIu64 "  unanswered: %" PRIu64, s->rows,
		s->errors, s->unanswered);
	if (s->cancel_requests)
		fprintf(out, "  cancel requests: %" PRIu64, s->cancel_requests);
	if (s->notifications)
		fprintf(out, "  notifications: %" PRIu64, s->notifications);
	fputc('\n', out);
	fprintf(out, "damage: gaps %" PRIu64 " (%" PRIu64 " bytes)  malformed %" PRIu64
		     "  mid-stream %" PRIu64 "  encrypted %" PRIu64 "\n",
		pt->gaps, pt->gap_bytes, pt->malformed, pt->mid_stream, pt->tls);
	if (analysis_options(a)->nhttp_ports)
		fprintf(out, "http: %" PRIu64 " connections, %" PRIu64 " requests, %" PRIu64
			     " responses (%" PRIu64 " interim, %" PRIu64 " without their request), "
			     "malformed %" PRIu64 ", not decodable %" PRIu64 ", gaps %" PRIu64 "\n",
			ht->connections, ht->requests, ht->responses, ht->interim,
			ht->unmatched, ht->malformed, ht->not_decodable, ht->gaps);
	for (int p = 0; p < PROTO_N; p++) {
		const struct proto_ops *ops = analysis_protocol(p);
		if (ops && ops->text_totals && analysis_asked(a, p))
			ops->text_totals(out, analysis_shared(a, p));
	}
	if (t->truncated_hdr || t->fragments || t->bad_hdr || t->nomem || t->evicted)
		fprintf(out, "skipped packets: truncated headers %" PRIu64 ", fragments %" PRIu64
			     ", bad headers %" PRIu64 "; evicted connections %" PRIu64
			     "; out of memory %" PRIu64 "\n",
			t->truncated_hdr, t->fragments, t->bad_hdr, t->evicted, t->nomem);

	if (ev.n) {
		fprintf(out, "warnings:");
		for (int i = 0; i < ev.n; i++)
			fprintf(out, "%s %s (%s)", i ? "," : "", ev_code_name(ev.f[i].code),
				ev_severity_name(ev.f[i].severity));
		fputc('\n', out);
	}
	if (analysis_attributing(a))
		routes_table(out, a, &ev);
	uint32_t nlisted;
	analysis_listed(a, &nlisted);
	if (nlisted == 0)
		return;
	if (pg->tot.connections)
		pg_rows(out, a);
	other_rows(out, a);
	if (t->conns_not_listed)
		fprintf(out, "(%" PRIu64 " more connections counted in the totals, not listed)\n",
			t->conns_not_listed);
}

static void pg_rows(FILE *out, const struct analysis *a)
{
	fprintf(out, "\n%4s  %-22s %-22s %7s %7s %7s %7s %7s %5s %5s %5s %5s %8s %8s  %s\n", "id",
		"client", "server", "rt", "rfq", "query", "ping", "acq/rel", "reset", "tx", "prep",
		"other", "p50 ms", "p99 ms", "flags");
	uint32_t nlisted;
	const struct conn_summary *listed = analysis_listed(a, &nlisted);
	for (uint32_t i = 0; i < nlisted; i++) {
		const struct conn_summary *c = &listed[i];
		const struct proto_ops *own = analysis_protocol(c->proto);
		if (own && own->text_connection)
			continue; /* its protocol's rows (other_rows) */
		const struct rtt_stats *st = conn_rtt_stats(c);
		uint64_t other = 0;
		for (int k = 0; k < RT_NCLASS; k++)
			other += rt_class_is_other(k) ? st->by_class[k] : 0;
		char acqrel[32];
		snprintf(acqrel, sizeof acqrel, "%" PRIu64 "/%" PRIu64, st->pings[PING_ACQUIRE],
			 st->pings[PING_RELEASE]);
		fprintf(out,
			"%4" PRIu64 "  %-22s %-22s %7" PRIu64 " %7" PRIu64 " %7" PRIu64 " %7" PRIu64
			" %7s %5" PRIu64 " %5" PRIu64 " %5" PRIu64 " %5" PRIu64,
			c->id, c->client, c->server, st->round_trips, st->rfq, st->by_class[RT_QUERY],
			st->by_class[RT_PING], acqrel, st->by_class[RT_RESET],
			st->by_class[RT_TRANSACTION], st->by_class[RT_PREPARE], other);
		if (c->lat_count)
			fprintf(out, " %8.3f %8.3f ", ms(c->lat_p50), ms(c->lat_p99));
		else
			fprintf(out, " %8s %8s ", "-", "-");
		if (st->driver[0])
			fprintf(out, " driver=%s", st->driver);
		if (c->mid_stream)
			fprintf(out, " mid-stream");
		if (tls_name(c->tls))
			fprintf(out, " encrypted=%s", tls_name(c->tls));
		if (c->gaps)
			fprintf(out, " gaps=%" PRIu64, c->gaps);
		if (c->malformed)
			fprintf(out, " malformed=%" PRIu64, c->malformed);
		if (st->cancel_requests)
			fprintf(out, " cancel");
		if (c->rst_seen)
			fprintf(out, " rst");
		if (c->evicted)
			fprintf(out, " evicted");
		fputc('\n', out);
	}
}
