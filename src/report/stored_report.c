/* stored_report.c - what every format of pgrtt report shares
 * (stored_report.h): segments, rates, names. */
#include "stored_report.h"

#include <inttypes.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const seg_name[SEG_N] = {
	"queries", "acquire pings", "release pings", "idle pings",
	"transaction control", "resets", "prepares", "other",
};
const char *const seg_key[SEG_N] = {
	"query", "ping_acquire", "ping_release", "ping_idle",
	"transaction", "reset", "prepare", "other",
};

static double at_least_0(double v)
{
	return v > 0 ? v : 0;
}

void run_segments(const struct run_figures *f, double per, double out[SEG_N])
{
	double d = per > 0 ? per : 1;
	out[SEG_QUERY] = (double)f->cls[RT_QUERY] / d;
	out[SEG_ACQUIRE] = (double)f->acq / d;
	out[SEG_RELEASE] = (double)f->rel / d;
	/* a ping of no role is neither side of a checkout: with the idle ones */
	out[SEG_IDLE] = at_least_0((double)(f->cls[RT_PING] - f->acq - f->rel)) / d;
	out[SEG_TX] = (double)f->cls[RT_TRANSACTION] / d;
	out[SEG_RESET] = (double)f->cls[RT_RESET] / d;
	out[SEG_PREPARE] = (double)f->cls[RT_PREPARE] / d;
	int64_t named = f->cls[RT_QUERY] + f->cls[RT_PING] + f->cls[RT_TRANSACTION] +
			f->cls[RT_RESET] + f->cls[RT_PREPARE];
	out[SEG_OTHER] = at_least_0((double)(f->rt - named)) / d;
}

void route_segments(const struct route_figures *r, double out[SEG_N])
{
	out[SEG_QUERY] = r->query;
	out[SEG_ACQUIRE] = r->acq;
	out[SEG_RELEASE] = r->rel;
	out[SEG_IDLE] = at_least_0(r->ping - r->acq - r->rel);
	out[SEG_TX] = r->tx;
	out[SEG_RESET] = r->reset;
	out[SEG_PREPARE] = r->prepare;
	/* estimated figures are sums of shares: what rounding leaves is not a class */
	double rest = r->rt - r->query - r->ping - r->tx - r->reset - r->prepare;
	out[SEG_OTHER] = rest > 1e-9 ? rest : 0;
}

double run_round_trips(const struct run_figures *f)
{
	return f->measured ? (double)f->rt : NAN;
}

void run_rates(const struct run_figures *f, struct run_rates *out)
{
	double q = (double)f->cls[RT_QUERY], rt = (double)f->rt;
	out->per_query = q > 0 ? rt / q : NAN;
	out->pings_per_100q = q > 0 ? 100 * (double)f->cls[RT_PING] / q : NAN;
	out->startups_per_1k = rt > 0 ? 1000 * (double)f->cls[RT_STARTUP] / rt : NAN;
}

const char *route_how(const struct route_figures *x, char *buf, size_t cap)
{
	if (strstr(x->attribution, "estimated"))
		snprintf(buf, cap, "%s (%.0f%% inferred; 95%% %.2f-%.2f)", x->attribution,
			 100 * x->inferred, x->rt_lo, x->rt_hi);
	else
		snprintf(buf, cap, "%s", x->attribution);
	return buf;
}

bool stored_page_column(const struct stored_report *r, int i)
{
	const struct page_figure *f = analysis_page_figure(i, NULL);
	for (int k = 0; f && f->reported && k < r->nrows; k++)
		if (!isnan(r->rows[k].page[i]))
			return true;
	return false;
}

bool stored_run_column(const struct stored_report *r, int i)
{
	for (int k = 0; k < r->nruns; k++)
		if (!isnan(r->runs[k].proto_fig[i]))
			return true;
	return false;
}

void stored_run_key(char *buf, size_t cap, int i)
{
	const struct proto_ops *p;
	const struct conn_figure *f = analysis_run_figure(i, &p);
	snprintf(buf, cap, "%s_%s", f ? p->name : "", f ? f->column : "");
}

void stored_run_name(char *buf, size_t cap, int64_t run, const char *app, const char *labels)
{
	snprintf(buf, cap, "%s%s%s%s#%" PRId64, app[0] ? app : "(no app)", labels[0] ? " (" : "",
		 labels, labels[0] ? ") " : " ", run);
}

void stored_left_out(FILE *out, const struct left_out *left, int n,
		     void (*esc)(FILE *, const char *))
{
	bool *done = calloc((size_t)(n > 0 ? n : 1), sizeof(bool));
	if (!done)
		return;
	for (int i = 0, groups = 0; i < n; i++) {
		if (done[i])
			continue;
		int same = 0;
		for (int j = i; j < n; j++)
			same += strcmp(left[j].why, left[i].why) == 0;
		fprintf(out, "%s%s ", groups++ ? "; " : "", same > 1 ? "runs" : "run");
		for (int j = i, k = 0; j < n; j++) {
			if (done[j] || strcmp(left[j].why, left[i].why) != 0)
				continue;
			done[j] = true;
			fprintf(out, "%s%" PRId64, k == 0 ? "" : k == same - 1 ? " and " : ", ", left[j].run);
			k++;
		}
		fputs(": ", out);
		esc(out, left[i].why);
	}
	free(done);
}

const char *cmp_status(const struct cmp_route *c, const struct run_figures *a,
		       const struct run_figures *b)
{
	if (c->a && c->b)
		return "both";
	if (c->b)
		return a->http && !a->routes_unmeasured ? "added" : "unmeasured";
	return b->http && !b->routes_unmeasured ? "removed" : "unmeasured";
}

void json_add_codes(cJSON *o, const char *key, const char *codes)
{
	cJSON *w = cJSON_AddArrayToObject(o, key);
	for (const char *p = codes; *p;) {
		size_t k = strcspn(p, " ");
		if (k) {
			char code[64];
			snprintf(code, sizeof code, "%.*s", (int)k, p);
			cJSON_AddItemToArray(w, cJSON_CreateString(code));
		}
		p += k + (p[k] == ' ');
	}
}
