/* report_json.c - machine-readable results (schema in docs/json.md). */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attrib/page_twins.h"
#include "base/about.h"
#include "findings/evidence.h"
#include "report.h"
#include "base/escape.h"

#define JSON_SCHEMA_VERSION 1

static double us(uint64_t ns)
{
	return (double)ns / 1e3;
}

static cJSON *by_class(const struct rtt_stats *st)
{
	cJSON *o = cJSON_CreateObject();
	for (int c = 0; c < RT_NCLASS; c++)
		cJSON_AddNumberToObject(o, rt_class_name(c), (double)st->by_class[c]);
	return o;
}

static cJSON *pings(const struct rtt_stats *st)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "acquire", (double)st->pings[PING_ACQUIRE]);
	cJSON_AddNumberToObject(o, "release", (double)st->pings[PING_RELEASE]);
	cJSON_AddNumberToObject(o, "idle", (double)st->pings[PING_IDLE]);
	cJSON *sig = cJSON_AddObjectToObject(o, "signatures");
	for (int i = PSIG_LONE_SYNC; i <= PSIG_SELECT1; i++)
		cJSON_AddNumberToObject(sig, rt_ping_sig_name(i), (double)st->ping_sigs[i]);
	return o;
}

/* Message counts keyed by type letter; startup-phase packets by name. */
static cJSON *msg_counts(const struct rtt_stats *st, enum pgsql_side side)
{
	cJSON *o = cJSON_CreateObject();
	for (int i = 0; i < RTT_MSG_SLOTS; i++) {
		uint8_t t = rtt_slot_type(side, i);
		if (!t || !st->msgs[side][i])
			continue;
		char key[2] = {(char)t, 0};
		const char *k = t < 0x20 ? pgsql_type_name(side, t) : key;
		cJSON_AddNumberToObject(o, k, (double)st->msgs[side][i]);
	}
	return o;
}

static cJSON *latency(uint64_t count, uint64_t p50, uint64_t p99, uint64_t max)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "count", (double)count);
	cJSON_AddNumberToObject(o, "p50", us(p50));
	cJSON_AddNumberToObject(o, "p99", us(p99));
	cJSON_AddNumberToObject(o, "max", us(max));
	return o;
}

static cJSON *hist_json(const struct hist *h)
{
	return latency(h->count, hist_quantile(h, 0.5), hist_quantile(h, 0.99), h->max);
}

static void add_str_or_null(cJSON *o, const char *k, const char *v)
{
	if (v && v[0])
		esc_json_add(o, k, v); /* from the network: any byte */
	else
		cJSON_AddNullToObject(o, k);
}

static void add_ts(cJSON *o, const char *k, uint64_t ts)
{
	char b[48];
	ts_format(b, sizeof b, ts);
	cJSON_AddStringToObject(o, k, b);
}

/* A connection's damage and size, whatever its protocol. */
static void damage_json(cJSON *o, const struct conn_summary *c)
{
	cJSON_AddBoolToObject(o, "mid_stream", c->mid_stream);
	add_str_or_null(o, "tls", tls_name(c->tls));
	cJSON_AddNumberToObject(o, "gaps", (double)c->gaps);
	cJSON_AddNumberToObject(o, "gap_bytes", (double)c->gap_bytes);
	cJSON_AddNumberToObject(o, "malformed", (double)c->malformed);
	cJSON_AddNumberToObject(o, "skipped_bytes", (double)c->skipped_bytes);
	cJSON_AddNumberToObject(o, "resyncs", (double)c->resyncs);
	cJSON_AddNumberToObject(o, "retransmitted_bytes", (double)c->retrans_bytes);
	cJSON_AddNumberToObject(o, "packets", (double)c->packets);
}

/* A protocol's figures (figure.h's conn_figs) of one connection or of
 * their totals, in its order. */
static void conn_figures_json(cJSON *o, const struct proto_ops *p, const void *figs)
{
	for (int i = 0; i < p->nconn_figs; i++) {
		const struct conn_figure *f = &p->conn_figs[i];
		const uint64_t *v = (const uint64_t *)((const char *)figs + f->at);
		if (!f->by_class) {
			cJSON_AddNumberToObject(o, f->key, (double)*v);
			continue;
		}
		cJSON *bc = cJSON_AddObjectToObject(o, f->key);
		for (int c = 0; c < RT_NCLASS; c++)
			if (!p->class_used || p->class_used(c))
				cJSON_AddNumberToObject(bc, rt_class_name(c), (double)v[c]);
	}
}

/* A connection of a protocol with figures of its own (not PostgreSQL's). */
static cJSON *figures_connection(const struct proto_ops *p, const struct conn_summary *c)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "id", (double)c->id);
	cJSON_AddStringToObject(o, "protocol", p->name);
	cJSON_AddStringToObject(o, "client", c->client);
	cJSON_AddStringToObject(o, "server", c->server);
	add_ts(o, "first_ts", c->first_ts);
	add_ts(o, "last_ts", c->last_ts);
	conn_figures_json(o, p, analysis_conn_figures(c));
	cJSON_AddItemToObject(o, "latency_us", latency(c->lat_count, c->lat_p50, c->lat_p99, c->lat_max));
	damage_json(o, c);
	cJSON_AddNumberToObject(o, "bytes_client", (double)c->bytes[0]);
	cJSON_AddNumberToObject(o, "bytes_server", (double)c->bytes[1]);
	cJSON_AddBoolToObject(o, "rst", c->rst_seen);
	cJSON_AddBoolToObject(o, "syn_seen", c->syn_seen);
	cJSON_AddStringToObject(o, "server_from", c->server_from ? c->server_from : "port");
	return o;
}

/* The totals of a protocol with figures of its own: its ports, its
 * connections' figures summed, its keys by name, latencies, damage. */
static cJSON *figures_totals(const struct analysis *a, const struct proto_ops *p)
{
	const void *shared = analysis_shared(a, p->id);
	const struct proto_totals *t = p->totals(shared);
	cJSON *o = cJSON_CreateObject();
	cJSON *ports = cJSON_AddArrayToObject(o, "ports");
	int nports;
	const uint16_t *port = analysis_ports(a, p->id, &nports);
	for (int i = 0; i < nports; i++)
		cJSON_AddItemToArray(ports, cJSON_CreateNumber(port[i]));
	cJSON_AddNumberToObject(o, "packets", (double)t->packets);
	cJSON_AddNumberToObject(o, "connections", (double)t->connections);
	conn_figures_json(o, p, p->figures_sum(shared));
	if (p->by_name) {
		static struct name_count names[NAME_COUNTS_MAX];
		uint64_t rest;
		uint32_t n = p->by_name(shared, names, NAME_COUNTS_MAX, &rest);
		char key[64];
		snprintf(key, sizeof key, "by_%s", p->by_name_noun);
		cJSON *bn = cJSON_AddObjectToObject(o, key);
		for (uint32_t i = 0; i < n; i++)
			cJSON_AddNumberToObject(bn, names[i].name, (double)names[i].n);
		snprintf(key, sizeof key, "other_%ss", p->by_name_noun);
		cJSON_AddNumberToObject(o, key, (double)rest);
	}
	cJSON_AddItemToObject(o, "latency_us", hist_json(&t->lat));
	cJSON *lc = cJSON_AddObjectToObject(o, "latency_us_by_class");
	for (int c = 0; c < RT_NCLASS; c++)
		if (t->lat_class[c].count)
			cJSON_AddItemToObject(lc, rt_class_name(c), hist_json(&t->lat_class[c]));
	cJSON_AddNumberToObject(o, "mid_stream", (double)t->mid_stream);
	cJSON_AddNumberToObject(o, "tls", (double)t->tls);
	cJSON_AddNumberToObject(o, "gaps", (double)t->gaps);
	cJSON_AddNumberToObject(o, "gap_bytes", (double)t->gap_bytes);
	cJSON_AddNumberToObject(o, "malformed", (double)t->malformed);
	cJSON_AddNumberToObject(o, "skipped_bytes", (double)t->skipped_bytes);
	cJSON_AddNumberToObject(o, "resyncs", (double)t->resyncs);
	return o;
}

static cJSON *connection(const struct conn_summary *c)
{
	if (analysis_conn_figures(c))
		return figures_connection(analysis_protocol(c->proto), c);
	const struct rtt_stats *st = conn_rtt_stats(c);
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "id", (double)c->id);
	cJSON_AddStringToObject(o, "protocol", "postgresql");
	cJSON_AddStringToObject(o, "client", c->client);
	cJSON_AddStringToObject(o, "server", c->server);
	add_ts(o, "first_ts", c->first_ts);
	add_ts(o, "last_ts", c->last_ts);
	cJSON_AddNumberToObject(o, "ready_for_query", (double)st->rfq);
	cJSON_AddNumberToObject(o, "round_trips", (double)st->round_trips);
	cJSON_AddItemToObject(o, "by_class", by_class(st));
	cJSON_AddItemToObject(o, "pings", pings(st));
	cJSON_AddItemToObject(o, "latency_us", latency(c->lat_count, c->lat_p50, c->lat_p99, c->lat_max));
	cJSON_AddNumberToObject(o, "rows", (double)st->rows);
	cJSON_AddNumberToObject(o, "errors", (double)st->errors);
	cJSON_AddNumberToObject(o, "unanswered", (double)st->unanswered);
	cJSON_AddItemToObject(o, "frontend", msg_counts(st, PGSQL_FE));
	cJSON_AddItemToObject(o, "backend", msg_counts(st, PGSQL_BE));
	damage_json(o, c);
	cJSON_AddNumberToObject(o, "bytes_frontend", (double)c->bytes[PGSQL_FE]);
	cJSON_AddNumberToObject(o, "bytes_backend", (double)c->bytes[PGSQL_BE]);
	add_str_or_null(o, "driver", st->driver);
	add_str_or_null(o, "application_name", st->application_name);
	add_str_or_null(o, "user", st->user);
	add_str_or_null(o, "database", st->database);
	if (st->proto) {
		char v[16];
		snprintf(v, sizeof v, "%u.%u", st->proto >> 16, st->proto & 0xffff);
		cJSON_AddStringToObject(o, "protocol_version", v);
	} else {
		cJSON_AddNullToObject(o, "protocol_version");
	}
	cJSON_AddNumberToObject(o, "cancel_requests", (double)st->cancel_requests);
	cJSON_AddBoolToObject(o, "terminated", st->terminated);
	cJSON_AddBoolToObject(o, "rst", c->rst_seen);
	cJSON_AddBoolToObject(o, "syn_seen", c->syn_seen);
	cJSON_AddStringToObject(o, "server_from", c->server_from ? c->server_from : "port");
	return o;
}

/* Per-page means are sums of shares: keep 6 decimals, not float noise. */
static double per_page(double total, double pages)
{
	return round(total / pages * 1e6) / 1e6;
}

/* name: [lo, hi], each to 6 decimals (never -0) */
static void add_range(cJSON *o, const char *name, double lo, double hi)
{
	cJSON *a = cJSON_AddArrayToObject(o, name);
	cJSON_AddItemToArray(a, cJSON_CreateNumber(round(lo * 1e6) / 1e6 + 0.0));
	cJSON_AddItemToArray(a, cJSON_CreateNumber(round(hi * 1e6) / 1e6 + 0.0));
}

/* A route's figures per page of every protocol asked for that pages wait
 * on beside PostgreSQL (figure.h): null where not measured or where it has
 * no page, never 0; estimated, their 95% intervals after them. */
static void page_figures_json(cJSON *o, const struct analysis *a, const struct attrib_route *r)
{
	const struct proto_ops *p;
	const struct page_figure *f;
	double n = (double)r->pages;
	for (int i = 0; (f = analysis_page_figure(i, &p)); i++) {
		if (!analysis_asked(a, p->id))
			continue;
		if (r->pages && analysis_measured(a, p->id))
			cJSON_AddNumberToObject(o, f->key, per_page(route_page_count(r, f->count), n));
		else
			cJSON_AddNullToObject(o, f->key);
	}
	for (int i = 0; (f = analysis_page_figure(i, &p)); i++) {
		double iv[2]; /* estimated (docs/pages.md) */
		if (f->interval_key && analysis_measured(a, p->id) &&
		    route_page_interval(r, f->count, iv))
			add_range(o, f->interval_key, iv[0], iv[1]);
	}
}

/* A route's HTTP latency (r has pages) */
static void http_latency_json(cJSON *o, const struct attrib_route *r)
{
	cJSON *lat = cJSON_AddObjectToObject(o, "http_latency_ms");
	cJSON_AddNumberToObject(lat, "p50", (double)hist_quantile(r->http_ns, 0.5) / 1e6);
	cJSON_AddNumberToObject(lat, "p99", (double)hist_quantile(r->http_ns, 0.99) / 1e6);
}

/* PostgreSQL not measured (analysis_pg_measured): its figures are null,
 * not 0; likewise the other protocols' (page_figures_json) */
static cJSON *route_json(const struct analysis *a, const struct attrib_route *r)
{
	const struct attrib *at = analysis_attrib(a);
	bool pg_measured = analysis_pg_measured(a);
	double n = (double)r->pages;
	cJSON *o = cJSON_CreateObject();
	esc_json_add(o, "route", r->name);
	cJSON_AddNumberToObject(o, "pages", (double)r->pages);
	cJSON_AddNumberToObject(o, "pages_exact", (double)r->pages_exact);
	cJSON_AddNumberToObject(o, "pages_aggregate", (double)r->pages_aggregate);
	cJSON_AddNumberToObject(o, "pages_mixed", (double)r->pages_mixed); /* estimated */
	cJSON_AddNumberToObject(o, "pages_long", (double)r->pages_long); /* past --page-timeout */
	cJSON_AddStringToObject(o, "attribution", pg_measured ? route_attribution(r) : "not measured");
	if (!r->pages || !pg_measured) {
		/* every page open past --page-timeout, or PostgreSQL not
		 * measured (a fatal finding, analysis_pg_measured): nothing measured,
		 * not 0 - but a page's latency and other protocols were, where there are pages */
		const char *before[] = {"inferred_share", "round_trips_per_page",
					"ready_for_query_per_page", "by_class_per_page"};
		const char *after[] = {"pg_time_per_page_ms", "connections_per_page"};
		for (size_t i = 0; i < sizeof before / sizeof before[0]; i++)
			cJSON_AddNullToObject(o, before[i]);
		if (r->pages)
			http_latency_json(o, r);
		else
			cJSON_AddNullToObject(o, "http_latency_ms");
		for (size_t i = 0; i < sizeof after / sizeof after[0]; i++)
			cJSON_AddNullToObject(o, after[i]);
		page_figures_json(o, a, r);
		return o;
	}
	cJSON_AddNumberToObject(o, "inferred_share", round(route_inferred_share(r) * 1e6) / 1e6);
	cJSON *rt = cJSON_AddObjectToObject(o, "round_trips_per_page");
	cJSON_AddNumberToObject(rt, "mean", per_page(r->rt, n));
	double lo, hi;
	route_interval(r, &lo, &hi);
	add_range(rt, "interval95", lo, hi); /* under the inference */
	/* of that interval, what the model's other densities moved the figure by */
	add_range(rt, "model_shift", r->shift_lo / n, r->shift_hi / n);
	/* and what the statements the capture cannot place between routes could */
	add_range(rt, "unplaced", r->unplaced_lo / n, r->unplaced_hi / n);
	/* and what a route in lockstep with it could have run instead of it, or it instead of them */
	add_range(rt, "lockstep", r->lockstep_lo / n, r->lockstep_hi / n);
	/* and what its shares seen only beside a statement's largest route could */
	add_range(rt, "alike", r->alike_lo / n, r->alike_hi / n);
	if (r->lockstep) { /* the routes its pages start in lockstep with (docs/pages.md) */
		cJSON *ls = cJSON_AddArrayToObject(o, "lockstep_with");
		for (uint32_t k = 0; k < INFER_LOCK_ROUTES && k < at->nroutes; k++)
			if (r->lockstep >> k & 1)
				cJSON_AddItemToArray(ls, esc_json_string(at->routes[k].name));
	}
	if (r->pages_exact) {
		cJSON_AddNumberToObject(rt, "min", r->rt_min);
		cJSON_AddNumberToObject(rt, "max", r->rt_max);
		cJSON *dist = cJSON_AddObjectToObject(rt, "distribution"); /* exact pages */
		for (int k = 0; k <= ATTRIB_DIST_MAX; k++) {
			if (!r->rt_dist[k])
				continue;
			char key[16];
			snprintf(key, sizeof key, k < ATTRIB_DIST_MAX ? "%d" : "%d+", k);
			cJSON_AddNumberToObject(dist, key, (double)r->rt_dist[k]);
		}
	}
	cJSON_AddNumberToObject(o, "ready_for_query_per_page", per_page(r->rfq, n));
	cJSON *bc = cJSON_AddObjectToObject(o, "by_class_per_page");
	for (int c = 0; c < RT_NCLASS; c++)
		cJSON_AddNumberToObject(bc, rt_class_name(c), per_page(r->by_class[c], n));
	cJSON_AddNumberToObject(bc, "ping_acquire", per_page(r->pings[PING_ACQUIRE], n));
	cJSON_AddNumberToObject(bc, "ping_release", per_page(r->pings[PING_RELEASE], n));
	cJSON_AddNumberToObject(bc, "ping_idle", per_page(r->pings[PING_IDLE], n));
	http_latency_json(o, r);
	cJSON_AddNumberToObject(o, "pg_time_per_page_ms", r->pg_ns / n / 1e6);
	double cpp = route_conns_per_page(r); /* null: every page estimated */
	if (isnan(cpp))
		cJSON_AddNullToObject(o, "connections_per_page");
	else
		cJSON_AddNumberToObject(o, "connections_per_page", round(cpp * 1e6) / 1e6);
	page_figures_json(o, a, r);
	return o;
}

/* What was read: files, ports, time span, packets; a live capture's drops. */
static void input_json(cJSON *root, const struct analysis *a, const struct report_input *in)
{
	const struct analysis_totals *t = analysis_counts(a);
	const struct pgsql_totals *pt = &analysis_pgsql(a)->tot;
	cJSON *inp = cJSON_AddObjectToObject(root, "input");
	cJSON *files = cJSON_AddArrayToObject(inp, "files");
	for (int i = 0; i < in->nfiles; i++)
		cJSON_AddItemToArray(files, esc_json_string(in->files[i]));
	cJSON_AddBoolToObject(inp, "partial", in->partial);
	cJSON *ports = cJSON_AddArrayToObject(inp, "ports");
	for (int i = 0; i < analysis_options(a)->nports; i++)
		cJSON_AddItemToArray(ports, cJSON_CreateNumber(analysis_options(a)->ports[i]));
	if (t->packets) {
		add_ts(inp, "first_ts", t->first_ts);
		add_ts(inp, "last_ts", t->last_ts);
	}
	if (in->drops) { /* a live capture: what the kernel and interface lost */
		cJSON *d = cJSON_AddObjectToObject(root, "drops");
		cJSON_AddNumberToObject(d, "received", (double)in->drops->recv);
		cJSON_AddNumberToObject(d, "dropped", (double)in->drops->drop);
		cJSON_AddNumberToObject(d, "interface_dropped", (double)in->drops->ifdrop);
	}
	cJSON *pk = cJSON_AddObjectToObject(inp, "packets");
	cJSON_AddNumberToObject(pk, "total", (double)t->packets);
	cJSON_AddNumberToObject(pk, "postgresql", (double)pt->packets);
	cJSON_AddNumberToObject(pk, "other_ports", (double)t->other_packets);
	cJSON_AddNumberToObject(pk, "not_ip", (double)t->not_ip);
	cJSON_AddNumberToObject(pk, "not_tcp", (double)t->not_tcp);
	cJSON_AddNumberToObject(pk, "fragments", (double)t->fragments);
	cJSON_AddNumberToObject(pk, "truncated_headers", (double)t->truncated_hdr);
	cJSON_AddNumberToObject(pk, "bad_headers", (double)t->bad_hdr);
}

/* PostgreSQL's totals (and every other protocol's asked for: Redis's, with
 * --redis-port): the object. */
static cJSON *totals_json(cJSON *root, const struct analysis *a)
{
	const struct pgsql_shared *pg = analysis_pgsql(a);
	const struct analysis_totals *t = analysis_counts(a);
	const struct pgsql_totals *pt = &pg->tot;
	const struct rtt_stats *s = &pt->st;
	cJSON *tot = cJSON_AddObjectToObject(root, "totals");
	cJSON_AddNumberToObject(tot, "connections", (double)pt->connections);
	cJSON_AddNumberToObject(tot, "ready_for_query", (double)s->rfq);
	cJSON_AddNumberToObject(tot, "round_trips", (double)s->round_trips);
	cJSON_AddItemToObject(tot, "by_class", by_class(s));
	cJSON *tp = pings(s);
	/* the pool's policy (rtt.h) and the lone Syncs only timing could
	 * tell, after it was applied */
	cJSON_AddStringToObject(tp, "policy", ping_policy_name(pg->ping_policy));
	cJSON *pe = cJSON_AddObjectToObject(tp, "policy_evidence");
	cJSON_AddNumberToObject(pe, "release", (double)pg->ping_ev.release);
	cJSON_AddNumberToObject(pe, "acquire", (double)pg->ping_ev.acquire);
	cJSON_AddNumberToObject(pe, "both", (double)pg->ping_ev.both);
	cJSON_AddNumberToObject(pe, "release_by_idle_time", (double)pg->ping_ev.release_idle);
	cJSON_AddNumberToObject(pe, "acquire_by_idle_time", (double)pg->ping_ev.acquire_idle);
	cJSON_AddNumberToObject(tp, "told_by_policy", (double)s->pings_policy);
	cJSON_AddNumberToObject(tp, "told_by_timing",
				(double)ping_told_by_timing(s));
	cJSON_AddItemToObject(tot, "pings", tp);
	cJSON_AddItemToObject(tot, "latency_us", hist_json(&pg->lat));
	cJSON *lc = cJSON_AddObjectToObject(tot, "latency_us_by_class");
	for (int c = 0; c < RT_NCLASS; c++)
		if (pg->lat_class[c].count)
			cJSON_AddItemToObject(lc, rt_class_name(c), hist_json(&pg->lat_class[c]));
	cJSON_AddNumberToObject(tot, "rows", (double)s->rows);
	cJSON_AddNumberToObject(tot, "errors", (double)s->errors);
	cJSON_AddNumberToObject(tot, "unanswered", (double)s->unanswered);
	cJSON_AddNumberToObject(tot, "cancel_requests", (double)s->cancel_requests);
	cJSON_AddNumberToObject(tot, "notifications", (double)s->notifications);
	cJSON_AddNumberToObject(tot, "returned_in_transaction", (double)s->returned_in_tx);
	cJSON_AddItemToObject(tot, "frontend", msg_counts(s, PGSQL_FE));
	cJSON_AddItemToObject(tot, "backend", msg_counts(s, PGSQL_BE));
	cJSON_AddNumberToObject(tot, "gaps", (double)pt->gaps);
	cJSON_AddNumberToObject(tot, "gap_bytes", (double)pt->gap_bytes);
	cJSON_AddNumberToObject(tot, "malformed", (double)pt->malformed);
	cJSON_AddNumberToObject(tot, "skipped_bytes", (double)pt->skipped_bytes);
	cJSON_AddNumberToObject(tot, "resyncs", (double)pt->resyncs);
	cJSON_AddNumberToObject(tot, "retransmitted_bytes", (double)pt->retrans_bytes);
	cJSON_AddNumberToObject(tot, "out_of_order_segments", (double)pt->ooo_segs);
	cJSON_AddNumberToObject(tot, "truncated_segments", (double)pt->truncated_segs);
	cJSON_AddNumberToObject(tot, "mid_stream", (double)pt->mid_stream);
	cJSON_AddNumberToObject(tot, "tls", (double)pt->tls);
	/* plaintext right after an 'S' answer: a man-in-the-middle sign (CVE-2021-23222) */
	cJSON_AddNumberToObject(tot, "bytes_after_ssl_answer", (double)pt->enc_extra_bytes);
	cJSON_AddNumberToObject(tot, "evicted", (double)t->evicted);
	cJSON_AddNumberToObject(tot, "connections_not_listed", (double)t->conns_not_listed);
	for (int p = 0; p < PROTO_N; p++) { /* every other protocol's asked for, by name */
		const struct proto_ops *ops = analysis_protocol(p);
		if (ops && ops->nconn_figs && analysis_asked(a, p))
			cJSON_AddItemToObject(tot, ops->name, figures_totals(a, ops));
	}
	return tot;
}

/* HTTP's counts, the proxies, the attribution's, and the routes. */
static void http_json(cJSON *root, const struct analysis *a)
{
	const struct http_totals *ht = analysis_http(a);
	cJSON *h = cJSON_AddObjectToObject(root, "http");
	cJSON *hp = cJSON_AddArrayToObject(h, "ports");
	for (int i = 0; i < analysis_options(a)->nhttp_ports; i++)
		cJSON_AddItemToArray(hp, cJSON_CreateNumber(analysis_options(a)->http_ports[i]));
	cJSON_AddNumberToObject(h, "packets", (double)ht->packets);
	cJSON_AddNumberToObject(h, "connections", (double)ht->connections);
	cJSON_AddNumberToObject(h, "requests", (double)ht->requests);
	cJSON_AddNumberToObject(h, "responses", (double)ht->responses);
	cJSON_AddNumberToObject(h, "interim_responses", (double)ht->interim);
	cJSON_AddNumberToObject(h, "unmatched_responses", (double)ht->unmatched);
	cJSON_AddNumberToObject(h, "malformed", (double)ht->malformed);
	cJSON_AddNumberToObject(h, "not_decodable", (double)ht->not_decodable);
	cJSON_AddNumberToObject(h, "gaps", (double)ht->gaps);
	cJSON *be = cJSON_AddObjectToObject(h, "stopped_by"); /* connections per reason */
	for (int e = 1; e < HTTP1_E_COUNT; e++)
		if (ht->by_error[e])
			cJSON_AddNumberToObject(be, http1_error_name(e), (double)ht->by_error[e]);
	cJSON *mk = cJSON_AddArrayToObject(h, "stopped_connections"); /* the first 16 */
	for (uint32_t i = 0; i < ht->nmarked; i++) {
		cJSON *x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "client", ht->marked[i].client);
		cJSON_AddStringToObject(x, "server", ht->marked[i].server);
		cJSON_AddStringToObject(x, "reason", http1_error_name(ht->marked[i].error));
		cJSON_AddItemToArray(mk, x);
	}
	/* proxies in front of the application, both ports given: their
	 * copies of its pages left out (page_twins.h) */
	cJSON *px = cJSON_AddArrayToObject(h, "proxies");
	for (uint16_t i = 0; analysis_twins(a) && i < analysis_twins(a)->nep; i++) {
		const struct twin_endpoint *e = &analysis_twins(a)->ep[i];
		if (!page_twins_proxy(analysis_twins(a), i))
			continue;
		cJSON *x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "endpoint", e->name);
		cJSON_AddStringToObject(x, "passes_to", e->inner < analysis_twins(a)->nep
								? analysis_twins(a)->ep[e->inner].name
								: "");
		cJSON_AddNumberToObject(x, "pages", (double)e->pages);
		cJSON_AddNumberToObject(x, "left_out", (double)e->left_out);
		cJSON_AddNumberToObject(x, "counted_twice", (double)e->late);
		cJSON_AddItemToArray(px, x);
	}
	const struct attrib *at = analysis_attrib(a);
	cJSON_AddNumberToObject(h, "grace_ms", (double)at->grace_ns / 1e6);
	cJSON_AddNumberToObject(h, "round_trips_in_pages", (double)at->rts_in_pages);
	cJSON_AddNumberToObject(h, "round_trips_outside_pages", (double)at->rts_outside);
	for (int p = 0; p < PROTO_N; p++) { /* the commands' round trips (attrib.h) */
		const struct proto_ops *ops = analysis_protocol(p);
		if (!ops || !ops->npage_figs || !analysis_asked(a, p))
			continue;
		const char *what[] = {"in_pages", "outside_pages", "shared"};
		uint64_t v[] = {at->cmd_rts_in_pages, at->cmd_rts_outside, at->cmd_rts_shared};
		for (int k = 0; k < 3; k++) {
			char key[64];
			snprintf(key, sizeof key, "%s_round_trips_%s", ops->name, what[k]);
			cJSON_AddNumberToObject(h, key, (double)v[k]);
		}
	}
	/* pages overlapping pages of other routes: in the routes, estimated */
	cJSON *mx = cJSON_AddObjectToObject(h, "mixed_routes");
	cJSON_AddNumberToObject(mx, "pages", (double)at->mixed_pages);
	cJSON_AddNumberToObject(mx, "round_trips", round(at->mixed_rts * 1e6) / 1e6);
	cJSON_AddNumberToObject(mx, "round_trips_inferred", (double)at->rts_mixed);
	cJSON_AddNumberToObject(h, "dropped", (double)at->dropped);
	cJSON_AddNumberToObject(h, "long_pages", (double)at->long_pages);
	cJSON_AddNumberToObject(h, "page_timeout_s", (double)at->hold_ns / 1e9);
	cJSON *routes = cJSON_AddArrayToObject(root, "routes");
	for (uint32_t i = 0; i < at->nroutes; i++)
		if (at->routes[i].pages || at->routes[i].pages_long)
			cJSON_AddItemToArray(routes,
					     route_json(a, &at->routes[i]));
	
}

/* The findings (evidence.h), and whether the totals are a lower bound. */
static void warnings_json(cJSON *root, cJSON *tot, const struct analysis *a,
			  const struct report_input *in)
{
	struct evidence ev;
	evidence_of(a, in, &ev);
	cJSON_AddBoolToObject(tot, "lower_bound", ev.lower_bound);
	cJSON *warn = cJSON_AddArrayToObject(root, "warnings");
	for (int i = 0; i < ev.n; i++) {
		const struct ev_finding *f = &ev.f[i];
		cJSON *w = cJSON_CreateObject();
		cJSON_AddStringToObject(w, "code", ev_code_name(f->code));
		cJSON_AddStringToObject(w, "severity", ev_severity_name(f->severity));
		cJSON_AddNumberToObject(w, "count", (double)f->count);
		cJSON_AddBoolToObject(w, "lower_bound", f->lower_bound);
		esc_json_add(w, "message", f->message);
		if (f->code == EV_NO_POSTGRESQL) { /* where PostgreSQL-looking traffic was */
			cJSON *ps = cJSON_AddArrayToObject(w, "ports_seen");
			for (int k = 0; k < ev.nports; k++) {
				cJSON *p = cJSON_CreateObject();
				cJSON_AddNumberToObject(p, "port", ev.ports[k].port);
				cJSON_AddNumberToObject(p, "postgresql_packets", (double)ev.ports[k].pg_like);
				cJSON_AddNumberToObject(p, "syns", (double)ev.ports[k].syns);
				cJSON_AddItemToArray(ps, p);
			}
		}
		cJSON_AddItemToArray(warn, w);
	}
}

int report_json(FILE *out, const struct analysis *a, const struct report_input *in)
{
	cJSON *root = cJSON_CreateObject();
	if (!root)
		return -1;
	cJSON_AddNumberToObject(root, "schema_version", JSON_SCHEMA_VERSION);
	cJSON_AddStringToObject(root, "pgrtt", pgrtt_version_string());
	input_json(root, a, in);
	cJSON *tot = totals_json(root, a);
	if (analysis_options(a)->nhttp_ports)
		http_json(root, a);
	warnings_json(root, tot, a, in);
	cJSON *conns = cJSON_AddArrayToObject(root, "connections");
	uint32_t nlisted;
	const struct conn_summary *listed = analysis_listed(a, &nlisted);
	for (uint32_t i = 0; i < nlisted; i++)
		cJSON_AddItemToArray(conns, connection(&listed[i]));

	char *txt = cJSON_Print(root);
	cJSON_Delete(root);
	if (!txt)
		return -1;
	fputs(txt, out);
	fputc('\n', out);
	free(txt);
	return 0;
}
