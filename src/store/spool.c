/* spool.c - runs waiting for a central store (spool.h). */
#define _DEFAULT_SOURCE
#include "spool.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/paths.h"
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

/* Set PGRTT_FAULT=NAME and the process is killed at the point of that
 * name: the tests' way into windows no timing can hit. */
static void fault_point(const char *name)
{
	const char *f = getenv("PGRTT_FAULT");
	if (f && strcmp(f, name) == 0)
		raise(SIGKILL);
}

void spool_aside_path(const struct spool *sp, char *out, size_t cap)
{
	size_t n = strlen(sp->path);
	if (n > 3 && strcmp(sp->path + n - 3, ".db") == 0)
		n -= 3;
	snprintf(out, cap, "%.*s-refused.db", (int)n, sp->path);
}

/* A run the store refused, into the file beside the spool, labelled
 * pgrtt.refused with the store's reason.  from and id: a spooled run;
 * else a and info: the run just made. */
static int put_aside(struct spool *sp, struct store *from, int64_t id, const struct analysis *a,
		     const struct store_run_info *info, const char *why, char *err)
{
	char path[4200];
	spool_aside_path(sp, path, sizeof path);
	make_parents(path, 0700);
	struct store *to = store_open(path, STORE_CREATE, err);
	if (!to)
		return -1;
	int64_t new_id = 0;
	bool there = false;
	int rc;
	if (from) {
		rc = store_copy_run(from, id, to, &new_id, &there, err);
	} else {
		rc = store_finish_run(to, a, info, &new_id, err);
	}
	char reason[STORE_ERRBUF + 32];
	snprintf(reason, sizeof reason, "pgrtt.refused=%s", why);
	if (rc == 0 && !(from && there))
		rc = store_add_label(to, new_id, reason, err);
	store_close(to);
	if (rc == 0)
		sp->aside++;
	return rc;
}

int spool_put_aside(struct spool *sp, const struct analysis *a, const struct store_run_info *info,
		    const char *why, char *err)
{
	return put_aside(sp, NULL, 0, a, info, why, err);
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
	int left = n;
	for (int i = 0; rc == 0 && i < n; i++) {
		int64_t id;
		bool there;
		rc = store_copy_run(s, runs[i].run, to, &id, &there, err);
		if (rc != 0 && !store_failure_transient(to)) {
			/* the store answered and refused this run: kept aside with
			 * its reason, never retried, the rest delivered */
			char why[STORE_ERRBUF], e2[STORE_ERRBUF];
			snprintf(why, sizeof why, "%s", err);
			if (put_aside(sp, s, runs[i].run, NULL, NULL, why, e2) != 0) {
				snprintf(err, STORE_ERRBUF, "%.110s; and kept aside: %.110s", why, e2);
				break;
			}
			sp->refused++;
			rc = 0;
		} else if (rc != 0) {
			break;
		} else {
			*delivered += !there;
		}
		fault_point("spool-delivered");
		if (store_delete_run(s, runs[i].run, err) != 0) {
			rc = -1; /* delivered, still in the spool: its key keeps it from a second copy */
			break;
		}
		left--;
	}
	free(runs);
	store_close(s);
	sp->waiting = left;
	return rc;
}
