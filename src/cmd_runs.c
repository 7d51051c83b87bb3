/* cmd_runs.c - pgrtt runs: list, show and delete stored runs. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "escape.h"
#include "commands.h"
#include "results.h"
#include "store.h"

static void help(FILE *out)
{
	fputs("Usage: pgrtt runs --db FILE [list]\n"
	      "       pgrtt runs --db FILE show RUN\n"
	      "       pgrtt runs --db FILE delete RUN\n"
	      "\n"
	      "List the runs stored by 'pgrtt analyze --db', show one (totals, round trips\n"
	      "by class, routes), or delete one with everything stored for it.\n"
	      "The schema is in docs/storage.md; sqlite3 FILE answers anything else.\n"
	      "\n"
	      "Exit status: 0 ok, 2 no such database or run, or not a pgrtt database,\n"
	      "64 usage error.\n",
	      out);
}

/* A column as text for the terminal: stored values came from the network
 * (routes) or a caller (--app, --label, file names), so control bytes are
 * escaped.  Buffers rotate: up to 16 may be in one printf. */
static const char *col(sqlite3_stmt *st, int i)
{
	static char buf[16][1024];
	static int next;
	const unsigned char *t = sqlite3_column_text(st, i);
	if (!t)
		return "-";
	char *b = buf[next++ % 16];
	return esc_term_buf(b, sizeof buf[0], (const char *)t);
}

static int list(sqlite3 *db)
{
	sqlite3_stmt *st;
	const char *sql =
		"SELECT r.id, r.created_at, r.app, "
		" (SELECT group_concat(key || '=' || value, ' ') FROM run_labels WHERE run_id = r.id),"
		" r.connections, r.ready_for_query, r.round_trips, r.http_requests, r.source "
		"FROM runs r ORDER BY r.id";
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		warnx_("%s", sqlite3_errmsg(db));
		return EXIT_ERROR;
	}
	int n = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (n++ == 0)
			printf("%4s  %-20s  %-14s  %-24s %6s %9s %9s %7s  %s\n", "run", "stored (UTC)",
			       "app", "labels", "conns", "rfq", "rt", "pages", "source");
		printf("%4s  %-20s  %-14s  %-24s %6s %9s %9s %7s  %s\n", col(st, 0), col(st, 1),
		       col(st, 2), col(st, 3), col(st, 4), col(st, 5), col(st, 6), col(st, 7),
		       col(st, 8));
	}
	sqlite3_finalize(st);
	if (n == 0)
		printf("no runs stored yet (pgrtt analyze --db adds one)\n");
	return EXIT_OK;
}

static bool run_exists(sqlite3 *db, sqlite3_int64 id)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM runs WHERE id = ?", -1, &st, NULL) != SQLITE_OK)
		return false;
	sqlite3_bind_int64(st, 1, id);
	bool ok = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return ok;
}

/* Print every column of each row of sql (bound to id) as name: value. */
static void rows(sqlite3 *db, const char *title, const char *sql, sqlite3_int64 id, bool table)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int64(st, 1, id);
	int n = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int nc = sqlite3_column_count(st);
		if (n++ == 0 && title)
			printf("\n%s:\n", title);
		if (table) {
			for (int i = 0; i < nc; i++)
				printf("%s%s=%s", i ? "  " : "  ", sqlite3_column_name(st, i), col(st, i));
			putchar('\n');
		} else {
			for (int i = 0; i < nc; i++)
				if (sqlite3_column_type(st, i) != SQLITE_NULL)
					printf("%-26s %s\n", sqlite3_column_name(st, i), col(st, i));
		}
	}
	sqlite3_finalize(st);
}

static int show(sqlite3 *db, sqlite3_int64 id)
{
	rows(db, NULL, "SELECT * FROM runs WHERE id = ?", id, false);
	rows(db, "labels", "SELECT key, value FROM run_labels WHERE run_id = ? ORDER BY key", id, true);
	rows(db, "round trips by class",
	     "SELECT class, round_trips, latency_p50_us, latency_p99_us FROM run_classes "
	     "WHERE run_id = ? AND round_trips > 0",
	     id, true);
	rows(db, "warnings", "SELECT code, severity, count, message FROM run_warnings WHERE run_id = ?"
	     " ORDER BY rowid", id, true);
	rows(db, "routes",
	     "SELECT route, pages, round_trips_per_page, ready_for_query_per_page, query_per_page,"
	     " ping_acquire_per_page, ping_release_per_page, attribution FROM routes "
	     "WHERE run_id = ? ORDER BY pages DESC",
	     id, true);
	return EXIT_OK;
}

int cmd_runs(int argc, char **argv)
{
	const char *dbpath = NULL;
	int i = 1;
	for (; i < argc; i++) {
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			help(stdout);
			return EXIT_OK;
		}
		if (strcmp(argv[i], "--db") == 0 && i + 1 < argc) {
			dbpath = argv[++i];
			continue;
		}
		if (argv[i][0] == '-') {
			usage_error("unknown option %s", argv[i]);
			return EXIT_USAGE;
		}
		break;
	}
	if (!dbpath) {
		usage_error("--db FILE is required");
		return EXIT_USAGE;
	}
	const char *verb = i < argc ? argv[i++] : "list";
	sqlite3_int64 id = 0;
	bool needs_id = strcmp(verb, "show") == 0 || strcmp(verb, "delete") == 0;
	if (needs_id) {
		char *end;
		if (i >= argc || (id = strtoll(argv[i], &end, 10)) < 1 || *end) {
			usage_error("%s needs a run number", verb);
			return EXIT_USAGE;
		}
		i++;
	} else if (strcmp(verb, "list") != 0) {
		usage_error("unknown action \"%s\": list, show or delete", verb);
		return EXIT_USAGE;
	}
	if (i < argc) {
		usage_error("unexpected \"%s\"", argv[i]);
		return EXIT_USAGE;
	}
	struct store *s = open_db(dbpath, strcmp(verb, "delete") == 0 ? STORE_WRITE : STORE_READ);
	if (!s)
		return EXIT_ERROR;
	sqlite3 *db = store_db(s);
	int rc;
	if (needs_id && !run_exists(db, id)) {
		warnx_("%s: no run %lld (pgrtt runs --db %s lists them)", dbpath, (long long)id, dbpath);
		rc = EXIT_ERROR;
	} else if (strcmp(verb, "show") == 0) {
		rc = show(db, id);
	} else if (strcmp(verb, "delete") == 0) {
		sqlite3_stmt *st;
		rc = EXIT_ERROR;
		if (sqlite3_prepare_v2(db, "DELETE FROM runs WHERE id = ?", -1, &st, NULL) == SQLITE_OK) {
			sqlite3_bind_int64(st, 1, id);
			if (sqlite3_step(st) == SQLITE_DONE) {
				printf("deleted run %lld\n", (long long)id);
				rc = EXIT_OK;
			}
			sqlite3_finalize(st);
		}
		if (rc != EXIT_OK)
			warnx_("%s: %s", dbpath, sqlite3_errmsg(db));
	} else {
		rc = list(db);
	}
	store_close(s);
	return rc;
}
