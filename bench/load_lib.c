/* load_lib.c - the blog into a database with COPY (dataset_load, dataset.h). */
#include <libpq-fe.h>
#include <stdio.h>
#include <string.h>

#include "dataset.h"

struct copy {
	PGconn *c;
	int failed;
};

static void row(void *ctx, const char *line, size_t len)
{
	struct copy *k = ctx;
	if (!k->failed && PQputCopyData(k->c, line, (int)len) != 1)
		k->failed = 1;
}

static void quiet(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

static int run(PGconn *c, const char *sql)
{
	PGresult *r = PQexec(c, sql);
	int ok = PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK;
	PQclear(r);
	return ok;
}

int dataset_load(struct pg_conn *conn, size_t counts[DS_NTABLES], char *err, size_t errcap)
{
	PGconn *c = (PGconn *)conn;
	PQsetNoticeProcessor(c, quiet, NULL); /* the schema's DROP ... IF EXISTS notices */
	int ok = run(c, "BEGIN") && run(c, dataset_schema_sql);
	for (int t = 0; ok && t < DS_NTABLES; t++) {
		char sql[256];
		snprintf(sql, sizeof sql, "COPY %s FROM STDIN", dataset_copy_target((enum dataset_table)t));
		PGresult *r = PQexec(c, sql);
		ok = PQresultStatus(r) == PGRES_COPY_IN;
		PQclear(r);
		struct copy k = {c, 0};
		counts[t] = ok ? dataset_rows((enum dataset_table)t, row, &k) : 0;
		ok = ok && !k.failed && PQputCopyEnd(c, NULL) == 1;
		r = PQgetResult(c);
		ok = ok && PQresultStatus(r) == PGRES_COMMAND_OK;
		PQclear(r);
	}
	if (!ok) {
		snprintf(err, errcap, "%s", PQerrorMessage(c));
		run(c, "ROLLBACK");
		return -1;
	}
	if (!run(c, "COMMIT") || !run(c, "ANALYZE")) {
		snprintf(err, errcap, "%s", PQerrorMessage(c));
		return -1;
	}
	return 0;
}
