/* spool.c - runs waiting for a central store (spool.h). */
#define _DEFAULT_SOURCE
#include "spool.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "db.h"

static int count(const char *path)
{
	char err[STORE_ERRBUF];
	if (access(path, F_OK) != 0)
		return 0;
	struct store *s = store_open(path, STORE_READ, err);
	struct route_query q = {0};
	struct run_figures *runs = NULL;
	int n = 0;
	if (s && store_runs(s, &q, &runs, &n, err) != 0)
		n = 0;
	free(runs);
	store_close(s);
	return n;
}

void spool_init(struct spool *sp, const char *db, const char *path)
{
	memset(sp, 0, sizeof(*sp));
	if (!db || !db_is_pg_uri(db))
		return;
	if (path) {
		snprintf(sp->path, sizeof sp->path, "%s", path);
	} else {
		const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
		if (state && state[0])
			snprintf(sp->path, sizeof sp->path, "%s/pgrtt/spool.db", state);
		else if (home && home[0])
			snprintf(sp->path, sizeof sp->path, "%s/.local/state/pgrtt/spool.db", home);
		else
			snprintf(sp->path, sizeof sp->path, "/var/tmp/pgrtt-spool-%u.db", (unsigned)getuid());
	}
	sp->waiting = count(sp->path);
}

int spool_keep(struct spool *sp, const struct analysis *a, const struct store_run_info *info,
	       int64_t *id, char *err)
{
	make_parents(sp->path, 0700); /* a state directory: the user's own */
	struct store *s = store_open(sp->path, STORE_CREATE, err);
	if (!s)
		return -1;
	int rc = store_finish_run(s, a, info, id, err);
	if (rc == 0 && ++sp->waiting > SPOOL_MAX_RUNS) {
		struct route_query q = {0};
		struct run_figures *runs = NULL;
		int n = 0;
		char e2[STORE_ERRBUF];
		if (store_runs(s, &q, &runs, &n, e2) == 0 && n > 0 && store_delete_run(s, runs[0].run, e2) == 0)
			sp->waiting--;
		free(runs);
	}
	store_close(s);
	return rc;
}

int spool_deliver(struct spool *sp, struct store *to, int *delivered, char *err)
{
	*delivered = 0;
	if (!sp->path[0] || sp->waiting == 0)
		return 0;
	struct store *s = store_open(sp->path, STORE_WRITE, err);
	if (!s)
		return -1;
	struct route_query q = {0};
	struct run_figures *runs = NULL;
	int n = 0, rc = store_runs(s, &q, &runs, &n, err);
	for (int i = 0; rc == 0 && i < n; i++) {
		int64_t id;
		rc = store_copy_run(s, runs[i].run, to, &id, err);
		if (rc == 0) {
			store_delete_run(s, runs[i].run, err);
			(*delivered)++;
		}
	}
	free(runs);
	store_close(s);
	sp->waiting = rc == 0 ? 0 : sp->waiting - *delivered;
	return rc;
}
