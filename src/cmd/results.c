/* results.c - what analyze and capture do with a finished analysis: store
 * it (--db), warn about damage, print the report. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "commands.h"
#include "findings/evidence.h"
#include "results.h"

#include "store/db.h"


/* Say on stderr what the figures cannot vouch for (evidence.h). */
void warn_evidence(const struct analysis *a, const struct report_input *in)
{
	struct evidence ev;
	evidence_of(a, in, &ev);
	for (int i = 0; i < ev.n; i++)
		warnx_("%s: %s [%s]", ev.f[i].severity == EV_NOTE ? "note" : "warning",
		       ev.f[i].message, ev_code_name(ev.f[i].code));
	const struct http_totals *ht = analysis_http(a);
	for (uint32_t i = 0; i < ht->nmarked; i++)
		warnx_("warning: HTTP connection %s > %s: %s: not decoded from there on",
		       ht->marked[i].client, ht->marked[i].server,
		       http1_error_name(ht->marked[i].error));
}

static void store_rt(void *ctx, const struct conn_summary *c, const struct rt *rt)
{
	store_round_trip(ctx, c->id, rt);
}


const char *store_shown(const char *db)
{
	static char shown[4096]; /* one store per process */
	db_redact(db, shown, sizeof shown);
	return shown;
}

struct store *open_db(const char *path, enum store_mode mode)
{
	char err[STORE_ERRBUF];
	struct store *s = store_open(path, mode, err);
	if (!s)
		warnx_("%s: %s", store_shown(path), err);
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
			warnx_("%s: %s", store_shown(dbo->db), err);
			store_close(*st);
			*st = NULL;
			return -1;
		}
		ao->pgsql.on_rt = store_rt;
		ao->ctx = ao->pgsql.ctx = *st;
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
			warnx_("%s: %s", store_shown(dbo->db), err);
			rc = EXIT_ERROR;
		} else {
			warnx_("stored run %lld in %s", (long long)id, store_shown(dbo->db));
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

