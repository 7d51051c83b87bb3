/* bench_report.c - report.md and report.html from results.json: the seed's
 * figures.  Everything in results.json came from apps, manifests and the
 * network: escaped for the format it goes into. */
#include "bench_report.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/escape.h"
#include "base/about.h"

#define DETAIL "GET /articles/{id}"

static double num(const cJSON *o, const char *k)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(x) ? x->valuedouble : 0;
}

/* a figure that may be null (not measured): "-" then */
static const char *maybe(const cJSON *o, const char *k)
{
	static char buf[32];
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
	if (!cJSON_IsNumber(x))
		return "-";
	snprintf(buf, sizeof buf, "%.1f", x->valuedouble);
	return buf;
}

static const char *str(const cJSON *o, const char *k)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsString(x) ? x->valuestring : "";
}

static bool measured(const cJSON *r)
{
	return cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(r, "round_trips_per_page"));
}

static const cJSON *route_of(const cJSON *app, const char *route)
{
	const cJSON *r;
	cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(app, "routes"))
	if (strcmp(str(r, "route"), route) == 0)
		return r;
	return NULL;
}

int bench_write_md(const char *path, const cJSON *root)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fputs("| app | route | round trips / page | acquire / release pings | queries | transaction |"
	      " req/s | p50 ms | p99 ms | app CPU µs/req | PostgreSQL CPU µs/page | peak RSS MiB |"
	      " Redis round trips / page |\n"
	      "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
	      f);
	const cJSON *a, *r;
	cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(root, "apps"))
	{
		cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(a, "routes"))
		{
			fputs("| ", f);
			esc_md(f, str(a, "name"));
			fputs(" | ", f);
			esc_md(f, str(r, "route"));
			const cJSON *bc = cJSON_GetObjectItemCaseSensitive(r, "by_class_per_page");
			const cJSON *lat = cJSON_GetObjectItemCaseSensitive(r, "latency_ms");
			if (measured(r))
				fprintf(f, " | **%.2f** | %.2f / %.2f | %.2f | %.2f", num(r, "round_trips_per_page"),
					num(bc, "ping_acquire"), num(bc, "ping_release"), num(bc, "query"),
					num(bc, "transaction"));
			else
				fputs(" | not measured | | | ", f);
			const cJSON *rd = cJSON_GetObjectItemCaseSensitive(r, "redis_round_trips_per_page");
			char redis[32] = "-"; /* not captured (a --redis elsewhere), not measured */
			if (cJSON_IsNumber(rd))
				snprintf(redis, sizeof redis, "%.2f", rd->valuedouble);
			fprintf(f, " | %.0f | %.2f | %.2f | %.1f | %s | %.1f | %s |\n",
				num(r, "requests_per_s"), num(lat, "p50"), num(lat, "p99"),
				num(r, "app_cpu_us_per_request"), maybe(r, "pg_cpu_us_per_page"),
				num(r, "rss_mib"), redis);
		}
	}
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(root, "skipped");
	if (cJSON_GetArraySize(s) > 0) {
		fputs("\nSkipped:\n\n", f);
		cJSON_ArrayForEach(a, s)
		{
			fputs("- ", f);
			esc_md(f, str(a, "name"));
			fputs(": ", f);
			esc_md(f, str(a, "reason"));
			fputs("\n", f);
		}
	}
	fprintf(f, "\n%s; %s: round trips carry over to other machines, absolute req/s do not.\n",
		pgrtt_version_string(), str(root, "machine"));
	return fclose(f) == 0 ? 0 : -1;
}

static const char css[] =
	":root { color-scheme: light dark; --fg: #1d2329; --bg: #fff; --q: #2f6fb3; --a: #d9822b;"
	" --r: #e8b04a; --i: #c4622d; --t: #7a5cb8; --p: #4fa3a5; --x: #b3475f; --o: #8a949e;"
	" --grid: #d8dde2; --bar: #3d8a6b; }\n"
	"@media (prefers-color-scheme: dark) { :root { --fg: #e6e9ec; --bg: #14181c; --q: #6ea8e8;"
	" --a: #f0a45c; --r: #f5c76e; --i: #e08a5a; --t: #a98ae0; --p: #72c7c9; --x: #e0798f;"
	" --o: #9aa5ae; --grid: #2c343b; --bar: #5cc29a; } }\n"
	"body { font: 15px/1.45 system-ui, sans-serif; color: var(--fg); background: var(--bg);"
	" margin: 2rem auto; max-width: 72rem; padding: 0 1rem; }\n"
	"svg text { fill: var(--fg); font-size: 13px; } .q { fill: var(--q); } .a { fill: var(--a); }"
	" .r { fill: var(--r); } .i { fill: var(--i); } .t { fill: var(--t); } .p { fill: var(--p); }"
	" .x { fill: var(--x); } .o { fill: var(--o); } .b { fill: var(--bar); }"
	" .grid { stroke: var(--grid); }\n"
	"table { border-collapse: collapse; font-size: 13px; } th, td { padding: .3rem .6rem;"
	" border-bottom: 1px solid var(--grid); text-align: right; } td:first-child,"
	" td:nth-child(2), th:first-child, th:nth-child(2) { text-align: left; }\n";

enum { LABEL_W = 190, BAR_W = 460, ROW_H = 30, NSEG = 8 };

/* the headline: round trips per detail page by app, stacked by class,
 * each bar beside the pattern it reproduces */
static void headline(FILE *f, const cJSON *apps)
{
	double max = 1;
	int n = 0;
	const cJSON *a;
	cJSON_ArrayForEach(a, apps)
	{
		const cJSON *d = route_of(a, DETAIL);
		if (d && measured(d)) {
			n++;
			if (num(d, "round_trips_per_page") > max)
				max = num(d, "round_trips_per_page");
		}
	}
	fputs("<h2>Round trips to PostgreSQL per detail page</h2>\n<p>The same three queries "
	      "(article, author, its comments); what the driver and the pool add, by app.</p>\n",
	      f);
	if (!n) {
		fputs("<p>No detail page was measured.</p>\n", f);
		return;
	}
	max = ceil(max); /* the axis ends on a whole round trip */
	fprintf(f, "<svg role=\"img\" aria-label=\"round trips per detail page by app\" width=\"%d\" "
		   "height=\"%d\">\n",
		LABEL_W + BAR_W + 560, n * ROW_H + 60);
	/* the axis: whole round trips */
	for (int k = 0; k <= (int)ceil(max); k++) {
		double x = LABEL_W + k / max * BAR_W;
		fprintf(f, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"0\" y2=\"%d\"/>"
			   "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d</text>\n",
			x, x, n * ROW_H, x, n * ROW_H + 16, k);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">round trips per page</text>\n",
		LABEL_W + BAR_W / 2, n * ROW_H + 34);
	static const char *const cls[NSEG] = {"q", "a", "r", "i", "t", "p", "x", "o"};
	static const char *const what[NSEG] = {"queries", "acquire pings", "release pings",
					       "other pings", "transaction control",
					       "prepare / close", "session reset", "other"};
	int row = 0;
	cJSON_ArrayForEach(a, apps)
	{
		const cJSON *d = route_of(a, DETAIL);
		if (!d || !measured(d))
			continue;
		const cJSON *bc = cJSON_GetObjectItemCaseSensitive(d, "by_class_per_page");
		double rt = num(d, "round_trips_per_page");
		double acq = num(bc, "ping_acquire"), rel = num(bc, "ping_release");
		double seg[NSEG] = {num(bc, "query"), acq, rel, num(bc, "ping") - acq - rel,
				    num(bc, "transaction"), num(bc, "prepare") + num(bc, "close"),
				    num(bc, "reset"), 0};
		double named = 0;
		for (int k = 0; k < NSEG - 1; k++)
			named += seg[k];
		seg[NSEG - 1] = rt - named;
		int y = row * ROW_H + 4;
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", LABEL_W - 8, y + 16);
		esc_html(f, str(a, "name"));
		fputs("</text>\n", f);
		double x = LABEL_W;
		for (int k = 0; k < NSEG; k++) {
			double w = seg[k] > 0.005 ? seg[k] / max * BAR_W : 0;
			if (w <= 0)
				continue;
			fprintf(f, "<rect class=\"%s\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"20\">"
				   "<title>%s: %.2f</title></rect>\n",
				cls[k], x, y, w, what[k], seg[k]);
			x += w;
		}
		fprintf(f, "<text x=\"%.1f\" y=\"%d\"><tspan font-weight=\"600\">%.2f</tspan> ", x + 6,
			y + 16, rt);
		esc_html(f, str(a, "pattern")[0] ? str(a, "pattern") : str(a, "stack"));
		fputs("</text>\n", f);
		row++;
	}
	fputs("</svg>\n<p>", f);
	for (int k = 0; k < NSEG; k++)
		fprintf(f, "<svg width=\"12\" height=\"12\"><rect class=\"%s\" width=\"12\" "
			   "height=\"12\"/></svg> %s &nbsp; ",
			cls[k], what[k]);
	fputs("</p>\n", f);
}

/* requests per second, one group of bars per route */
static void throughput(FILE *f, const cJSON *apps)
{
	fputs("<h2>Requests per second</h2>\n<p>The median run of each route; wrk and every server "
	      "on the same two cores, so compare ratios, not absolutes.</p>\n",
	      f);
	char routes[16][64];
	int nr = 0, na = cJSON_GetArraySize(apps);
	double max = 1;
	const cJSON *a, *r;
	cJSON_ArrayForEach(a, apps)
	{
		cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(a, "routes"))
		{
			int k = 0;
			while (k < nr && strcmp(routes[k], str(r, "route")) != 0)
				k++;
			if (k == nr && nr < 16)
				snprintf(routes[nr++], sizeof routes[0], "%s", str(r, "route"));
			if (num(r, "requests_per_s") > max)
				max = num(r, "requests_per_s");
		}
	}
	const int h = 18;
	int y = 0;
	fprintf(f, "<svg role=\"img\" aria-label=\"requests per second by route and app\" "
		   "width=\"%d\" height=\"%d\">\n",
		LABEL_W + BAR_W + 120, nr * (na * h + 28) + 10);
	for (int k = 0; k < nr; k++) {
		fprintf(f, "<text x=\"0\" y=\"%d\" font-weight=\"600\">", y + 14);
		esc_html(f, routes[k]);
		fputs("</text>\n", f);
		y += 20;
		cJSON_ArrayForEach(a, apps)
		{
			const cJSON *x = route_of(a, routes[k]);
			if (!x)
				continue;
			double v = num(x, "requests_per_s");
			fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", LABEL_W - 8, y + 13);
			esc_html(f, str(a, "name"));
			fprintf(f, "</text><rect class=\"b\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"14\"/>"
				   "<text x=\"%.1f\" y=\"%d\">%.0f req/s</text>\n",
				LABEL_W, y, v / max * BAR_W, LABEL_W + v / max * BAR_W + 6, y + 12, v);
			y += h;
		}
		y += 8;
	}
	fputs("</svg>\n", f);
}

static void every_route(FILE *f, const cJSON *apps)
{
	fputs("<h2>Every route</h2>\n<table>\n<tr><th>app</th><th>route</th><th>round trips / page"
	      "</th><th>acquire / release pings</th><th>transaction</th><th>req/s</th><th>p50 ms</th>"
	      "<th>p99 ms</th><th>app CPU µs/req</th><th>PostgreSQL CPU µs/page</th>"
	      "<th>context switches / req</th><th>PostgreSQL connections</th><th>peak RSS MiB</th>"
	      "</tr>\n",
	      f);
	const cJSON *a, *r;
	cJSON_ArrayForEach(a, apps)
	{
		cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(a, "routes"))
		{
			fputs("<tr><td>", f);
			esc_html(f, str(a, "name"));
			fputs("</td><td>", f);
			esc_html(f, str(r, "route"));
			const cJSON *bc = cJSON_GetObjectItemCaseSensitive(r, "by_class_per_page");
			const cJSON *lat = cJSON_GetObjectItemCaseSensitive(r, "latency_ms");
			if (measured(r))
				fprintf(f, "</td><td>%.2f</td><td>%.2f / %.2f</td><td>%.2f", num(r, "round_trips_per_page"),
					num(bc, "ping_acquire"), num(bc, "ping_release"), num(bc, "transaction"));
			else
				fputs("</td><td>not measured</td><td></td><td>", f);
			fprintf(f, "</td><td>%.0f</td><td>%.2f</td><td>%.2f</td><td>%.1f</td><td>%s</td>"
				   "<td>%.2f</td><td>%.0f</td><td>%.1f</td></tr>\n",
				num(r, "requests_per_s"), num(lat, "p50"), num(lat, "p99"),
				num(r, "app_cpu_us_per_request"), maybe(r, "pg_cpu_us_per_page"),
				num(r, "context_switches_per_request"), num(r, "pg_connections"),
				num(r, "rss_mib"));
		}
	}
	fputs("</table>\n", f);
}

int bench_write_html(const char *path, const cJSON *root)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		   "<title>pgrtt bench</title>\n<style>\n%s</style></head><body>\n"
		   "<h1>pgrtt bench: the blog on every stack</h1>\n",
		css);
	const cJSON *apps = cJSON_GetObjectItemCaseSensitive(root, "apps");
	headline(f, apps);
	throughput(f, apps);
	every_route(f, apps);
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(root, "skipped"), *a;
	if (cJSON_GetArraySize(s) > 0) {
		fputs("<h2>Skipped</h2>\n<ul>\n", f);
		cJSON_ArrayForEach(a, s)
		{
			fputs("<li>", f);
			esc_html(f, str(a, "name"));
			fputs(": ", f);
			esc_html(f, str(a, "reason"));
			fputs("</li>\n", f);
		}
		fputs("</ul>\n", f);
	}
	fputs("<p>", f);
	esc_html(f, pgrtt_version_string());
	fputs("; ", f);
	esc_html(f, str(root, "machine"));
	fputs(": round trips carry over to other machines, absolute req/s do not.</p>\n</body></html>\n",
	      f);
	return fclose(f) == 0 ? 0 : -1;
}
