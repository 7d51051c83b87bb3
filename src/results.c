/* results.c - what analyze and capture do with a finished analysis: store
 * it (--db), warn about damage, print the report. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "results.h"


/* The --db options, taken out of argv; the rest are left for the shared parser. */
int take_db_opts(int *argc, char **argv, struct db_opts *d)
{
	int n = 1;
	for (int i = 1; i < *argc; i++) {
		const char *a = argv[i];
		bool has_val = i + 1 < *argc;
		if (strcmp(a, "--store-round-trips") == 0) {
			d->round_trips = true;
		} else if ((strcmp(a, "--db") == 0 || strcmp(a, "--app") == 0 ||
			    strcmp(a, "--label") == 0)) {
			if (!has_val) {
				usage_error("option %s needs a value", a);
				return -1;
			}
			const char *v = argv[++i];
			if (strcmp(a, "--db") == 0) {
				d->db = v;
			} else if (strcmp(a, "--app") == 0) {
				d->app = v;
			} else {
				const char *eq = strchr(v, '=');
				if (!eq || eq == v || d->nlabels == 64) {
					usage_error("bad --label \"%s\": expected KEY=VALUE (at most 64)", v);
					return -1;
				}
				d->labels[d->nlabels++] = argv[i];
			}
		} else {
			argv[n++] = argv[i];
		}
	}
	*argc = n;
	if (!d->db && (d->app || d->nlabels || d->round_trips)) {
		usage_error("--app, --label and --store-round-trips need --db");
		return -1;
	}
	return 0;
}

static void store_rt(void *ctx, const struct conn_summary *c, const struct rt *rt)
{
	store_round_trip(ctx, c->id, rt);
}


struct store *open_db(const char *path, enum store_mode mode)
{
	char err[STORE_ERRBUF];
	struct store *s = store_open(path, mode, err);
	if (!s)
		warnx_("%s: %s", path, err);
	return s;
}

int results_begin(const struct db_opts *dbo, struct store **st, struct analysis_opts *ao)
{
	char err[STORE_ERRBUF];
	*st = NULL;
	if (!dbo->db)
		return 0;
	/* open the database first: a bad one stops us before any work */
	if (!(*st = open_db(dbo->db, STORE_CREATE)))
		return -1;
	if (dbo->round_trips) {
		if (store_begin_run(*st, err) != 0) {
			warnx_("%s: %s", dbo->db, err);
			store_close(*st);
			*st = NULL;
			return -1;
		}
		ao->on_rt = store_rt;
		ao->ctx = *st;
	}
	return 0;
}

int results_finish(struct analysis *a, struct store *st, const struct db_opts *dbo,
		   const char *source, const struct report_input *in, const char *format,
		   const char *output, FILE *out, int rc)
{
	if (st) {
		char err[STORE_ERRBUF];
		struct store_run_info info = {dbo->app, source, dbo->labels, dbo->nlabels, in->partial,
					      in->drops};
		int64_t id;
		if (store_finish_run(st, a, &info, &id, err) != 0) {
			warnx_("%s: %s", dbo->db, err);
			rc = EXIT_ERROR;
		} else {
			warnx_("stored run %lld in %s", (long long)id, dbo->db);
		}
		store_close(st);
	}
	warn_evidence(a, in);
	if (!out && !(out = output_open(output)))
		return EXIT_ERROR;
	if (strcmp(format, "json") == 0) {
		if (report_json(out, a, in) != 0) {
			warnx_("out of memory writing JSON");
			rc = EXIT_ERROR;
		}
	} else {
		report_text(out, a, in);
	}
	return output_close(out, output, rc);
}
