/* metrics.c - a live capture's figures as Prometheus metrics (metrics.h).
 * Every value is read from the analysis at scrape time - the totals of
 * closed connections plus the open ones' - so nothing is kept per series
 * and a scrape costs what the open connections do. */
#define _DEFAULT_SOURCE
#include "metrics.h"

#include "base/escape.h"
#include "findings/evidence.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void head(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* name{app="..."[,k="v"...]} value: extra is "k=\"v\"" pairs already escaped */
static void series(FILE *f, const char *name, const char *app, const char *extra, double v)
{
	fprintf(f, "%s{app=\"", name);
	esc_prom_label(f, app);
	fprintf(f, "\"%s%s} %.15g\n", extra[0] ? "," : "", extra, v);
}

static void kv(char *buf, size_t cap, const char *k, const char *v)
{
	snprintf(buf, cap, "%s=\"%s\"", k, v); /* v: one of pgrtt's own names */
}

/* Route r's name as a label pair, escaped; "other" past the cap. */
static void route_kv(FILE *f, const char *name)
{
	fputs("route=\"", f);
	esc_prom_label(f, name);
	fputc('"', f);
}

static void route_series(FILE *f, const char *metric, const char *app, const char *route,
			 const char *extra, double v)
{
	char *pair = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&pair, &n);
	if (!m)
		return;
	route_kv(m, route);
	if (extra[0])
		fprintf(m, ",%s", extra);
	fclose(m);
	series(f, metric, app, pair, v);
	free(pair);
}

/* The buckets' upper bounds, seconds: a database round trip on a LAN is
 * tens of microseconds to milliseconds, a slow one a second. */
static const double BUCKETS[] = {0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005,
				 0.01,    0.025,  0.05,    0.1,    0.25,  0.5,    1,     2.5};

/* The classes a route's round trips are split into (the rest is "other"). */
static const int ROUTE_CLASSES[] = {RT_QUERY, RT_PING, RT_TRANSACTION, RT_RESET, RT_PREPARE};

struct route_sum {
	double pages, rt, cls[sizeof ROUTE_CLASSES / sizeof ROUTE_CLASSES[0]], pings[PING_NROLE];
	bool estimated;
};

static void add_route(struct route_sum *s, const struct attrib_route *r)
{
	s->pages += (double)r->pages;
	s->rt += r->rt;
	for (size_t k = 0; k < sizeof ROUTE_CLASSES / sizeof ROUTE_CLASSES[0]; k++)
		s->cls[k] += r->by_class[ROUTE_CLASSES[k]];
	for (int k = 0; k < PING_NROLE; k++)
		s->pings[k] += r->pings[k];
	s->estimated |= r->pages_mixed > 0;
}

static void routes(FILE *f, const struct analysis *a, const char *app)
{
	const struct attrib *at = analysis_attrib(a);
	uint32_t n = at->nroutes < METRICS_ROUTES - 1 ? at->nroutes : METRICS_ROUTES - 1;
	struct route_sum sums[METRICS_ROUTES];
	memset(sums, 0, sizeof sums);
	const char *names[METRICS_ROUTES];
	uint32_t shown = 0;
	for (uint32_t i = 0; i < at->nroutes; i++) {
		if (at->routes[i].pages == 0 && at->routes[i].pages_long == 0)
			continue; /* named by a request still open: no figure yet */
		uint32_t k = shown < n ? shown++ : METRICS_ROUTES - 1;
		names[k] = k == METRICS_ROUTES - 1 ? "other" : at->routes[i].name;
		add_route(&sums[k], &at->routes[i]);
	}
	bool other = sums[METRICS_ROUTES - 1].pages > 0;
	static const char *const cls_names[] = {"query", "ping", "transaction", "reset", "prepare"};
	static const char *const roles[PING_NROLE] = {"none", "acquire", "release", "idle"};
	head(f, "pgrtt_pages_total", "counter", "HTTP pages (request/response pairs) attributed, by route.");
	for (uint32_t k = 0; k < METRICS_ROUTES; k++)
		if (k < shown || (k == METRICS_ROUTES - 1 && other))
			route_series(f, "pgrtt_pages_total", app, names[k], "", sums[k].pages);
	head(f, "pgrtt_route_round_trips_total", "counter",
	     "PostgreSQL round trips of a route's pages, by class (estimated shares when pages of "
	     "several routes overlapped).");
	for (uint32_t k = 0; k < METRICS_ROUTES; k++) {
		if (!(k < shown || (k == METRICS_ROUTES - 1 && other)))
			continue;
		double rest = sums[k].rt;
		char pair[64];
		for (size_t c = 0; c < sizeof cls_names / sizeof cls_names[0]; c++) {
			kv(pair, sizeof pair, "class", cls_names[c]);
			route_series(f, "pgrtt_route_round_trips_total", app, names[k], pair, sums[k].cls[c]);
			rest -= sums[k].cls[c];
		}
		kv(pair, sizeof pair, "class", "other");
		route_series(f, "pgrtt_route_round_trips_total", app, names[k], pair, rest > 1e-9 ? rest : 0);
	}
	head(f, "pgrtt_route_pings_total", "counter", "Pool pings of a route's pages, by role.");
	for (uint32_t k = 0; k < METRICS_ROUTES; k++) {
		if (!(k < shown || (k == METRICS_ROUTES - 1 && other)))
			continue;
		char pair[64];
		for (int r = PING_ACQUIRE; r < PING_NROLE; r++) {
			kv(pair, sizeof pair, "role", roles[r]);
			route_series(f, "pgrtt_route_pings_total", app, names[k], pair, sums[k].pings[r]);
		}
	}
	head(f, "pgrtt_route_round_trips_per_page", "gauge",
	     "Round trips per page of a route so far (a running estimate when it is estimated).");
	for (uint32_t k = 0; k < METRICS_ROUTES; k++)
		if (k < shown || (k == METRICS_ROUTES - 1 && other))
			route_series(f, "pgrtt_route_round_trips_per_page", app, names[k], "",
				     sums[k].pages > 0 ? sums[k].rt / sums[k].pages : 0);
	head(f, "pgrtt_route_estimated", "gauge",
	     "1 when the route's pages overlapped pages of other routes: its figures are estimated.");
	for (uint32_t k = 0; k < METRICS_ROUTES; k++)
		if (k < shown || (k == METRICS_ROUTES - 1 && other))
			route_series(f, "pgrtt_route_estimated", app, names[k], "", sums[k].estimated);
}

/* A protocol's counters (figure.h's conn_figs with a metric), once its
 * ports were named: pgrtt_NAME_METRIC_total, the open connections' too. */
static void proto_counters(FILE *f, const struct analysis *a, const struct analysis_live *now,
			   enum proto_id id, const char *app)
{
	const struct proto_ops *p = analysis_protocol(id);
	const void *figs = analysis_live_figures(now, id);
	if (!figs || !analysis_asked(a, id))
		return;
	for (int i = 0; i < p->nconn_figs; i++) {
		const struct conn_figure *c = &p->conn_figs[i];
		if (!c->metric || c->by_class)
			continue;
		char name[128];
		snprintf(name, sizeof name, "pgrtt_%s_%s_total", p->name, c->metric);
		head(f, name, "counter", c->help);
		series(f, name, app, "", (double)*(const uint64_t *)((const char *)figs + c->at));
	}
}

char *metrics_render(const struct analysis *a, const struct metrics_info *mi, size_t *len)
{
	char *buf = NULL;
	*len = 0;
	FILE *f = open_memstream(&buf, len);
	if (!f)
		return NULL;
	const char *app = mi->app ? mi->app : "";
	struct hist *lat = malloc(sizeof *lat);
	if (lat)
		*lat = analysis_pgsql(a)->lat; /* the closed connections', then the open ones' merged in */
	struct analysis_live now = {0};
	now.pg.lat = lat;
	analysis_live(a, &now);
	char pair[64];

	head(f, "pgrtt_capture_elapsed_seconds", "gauge", "Seconds since the capture started.");
	series(f, "pgrtt_capture_elapsed_seconds", app, "", mi->elapsed);
	head(f, "pgrtt_packets_total", "counter", "Packets the capture read.");
	series(f, "pgrtt_packets_total", app, "", (double)analysis_counts(a)->packets);
	head(f, "pgrtt_dropped_packets_total", "counter",
	     "Packets dropped before pgrtt read them (pcap_stats), by where.");
	series(f, "pgrtt_dropped_packets_total", app, "where=\"kernel\"",
	       (double)(mi->drops ? mi->drops->drop : 0));
	series(f, "pgrtt_dropped_packets_total", app, "where=\"interface\"",
	       (double)(mi->drops ? mi->drops->ifdrop : 0));
	head(f, "pgrtt_open_connections", "gauge", "Connections open now, of every protocol.");
	series(f, "pgrtt_open_connections", app, "", (double)now.open);
	head(f, "pgrtt_ready_for_query_total", "counter", "PostgreSQL ReadyForQuery messages.");
	series(f, "pgrtt_ready_for_query_total", app, "", (double)now.pg.rfq);
	head(f, "pgrtt_round_trips_total", "counter", "PostgreSQL round trips, by class (docs/round-trips.md).");
	for (int c = 0; c < RT_NCLASS; c++) {
		kv(pair, sizeof pair, "class", rt_class_name(c));
		series(f, "pgrtt_round_trips_total", app, pair, (double)now.pg.by_class[c]);
	}
	head(f, "pgrtt_pings_total", "counter", "Pool pings, by role (acquire, release, idle).");
	static const char *const roles[PING_NROLE] = {"none", "acquire", "release", "idle"};
	for (int r = PING_ACQUIRE; r < PING_NROLE; r++) {
		kv(pair, sizeof pair, "role", roles[r]);
		series(f, "pgrtt_pings_total", app, pair, (double)now.pg.ping_roles[r]);
	}
	if (lat) {
		head(f, "pgrtt_round_trip_duration_seconds", "histogram",
		     "PostgreSQL round trips' latency, first flight byte to the last answer (buckets to ~3%).");
		for (size_t i = 0; i < sizeof BUCKETS / sizeof BUCKETS[0]; i++) {
			snprintf(pair, sizeof pair, "le=\"%g\"", BUCKETS[i]);
			series(f, "pgrtt_round_trip_duration_seconds_bucket", app, pair,
			       (double)hist_count_le(lat, (uint64_t)(BUCKETS[i] * 1e9)));
		}
		series(f, "pgrtt_round_trip_duration_seconds_bucket", app, "le=\"+Inf\"", (double)lat->count);
		series(f, "pgrtt_round_trip_duration_seconds_sum", app, "", (double)lat->sum / 1e9);
		series(f, "pgrtt_round_trip_duration_seconds_count", app, "", (double)lat->count);
		free(lat);
	}
	head(f, "pgrtt_capture_gaps_total", "counter", "Stretches of TCP data never captured.");
	uint64_t gaps = analysis_pgsql(a)->tot.gaps;
	for (int p = 0; p < PROTO_N; p++) {
		const struct proto_ops *ops = analysis_protocol(p);
		if (ops && ops->totals)
			gaps += ops->totals(analysis_shared(a, p))->gaps;
	}
	series(f, "pgrtt_capture_gaps_total", app, "", (double)gaps);
	for (int p = 0; p < PROTO_N; p++)
		proto_counters(f, a, &now, p, app);
	if (analysis_attributing(a))
		routes(f, a, app);
	/* what the figures above cannot vouch for yet: a wrong port reads as
	 * a finding, not as an app that makes no round trips */
	struct evidence *ev = malloc(sizeof *ev);
	if (ev) {
		evidence_live(a, &now, ev);
		head(f, "pgrtt_finding", "gauge",
		     "1 for each finding that holds now: the figures measure nothing or less than "
		     "all (code and severity as in docs/ci.md).");
		for (int i = 0; i < ev->n; i++) {
			char labels[128];
			snprintf(labels, sizeof labels, "code=\"%s\",severity=\"%s\"",
				 ev_code_name(ev->f[i].code), ev_severity_name(ev->f[i].severity));
			series(f, "pgrtt_finding", app, labels, 1);
		}
		free(ev);
	}
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}
