/* load.c - blogload SCHEMA.sql DSN: the benchmark's blog (bench/schema.sql,
 * bench/dataset.c) into a database, with COPY, in one transaction: a
 * failed load leaves the database as it was.  Prints the row counts. */
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
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

static int run(PGconn *c, const char *sql)
{
	PGresult *r = PQexec(c, sql);
	int ok = PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK;
	if (!ok)
		fprintf(stderr, "blogload: %s", PQerrorMessage(c));
	PQclear(r);
	return ok;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: blogload SCHEMA.sql DSN\n");
		return 64;
	}
	FILE *f = fopen(argv[1], "rb");
	static char schema[1 << 16];
	size_t n = f ? fread(schema, 1, sizeof schema - 1, f) : 0;
	if (!f || n == 0) {
		fprintf(stderr, "blogload: %s: cannot read\n", argv[1]);
		return 2;
	}
	fclose(f);
	PGconn *c = PQconnectdb(argv[2]);
	if (PQstatus(c) != CONNECTION_OK) {
		fprintf(stderr, "blogload: %s", PQerrorMessage(c));
		return 2;
	}
	int ok = run(c, "BEGIN") && run(c, schema);
	for (int t = 0; ok && t < DS_NTABLES; t++) {
		char sql[256];
		snprintf(sql, sizeof sql, "COPY %s FROM STDIN", dataset_copy_target((enum dataset_table)t));
		PGresult *r = PQexec(c, sql);
		ok = PQresultStatus(r) == PGRES_COPY_IN;
		PQclear(r);
		struct copy k = {c, 0};
		size_t rows = ok ? dataset_rows((enum dataset_table)t, row, &k) : 0;
		ok = ok && !k.failed && PQputCopyEnd(c, NULL) == 1;
		r = PQgetResult(c);
		ok = ok && PQresultStatus(r) == PGRES_COMMAND_OK;
		if (!ok)
			fprintf(stderr, "blogload: %s", PQerrorMessage(c));
		PQclear(r);
		if (ok)
			printf("%s=%zu\n", strtok(sql + 5, " "), rows);
	}
	ok = ok && run(c, "COMMIT") && run(c, "ANALYZE");
	PQfinish(c);
	return ok ? 0 : 2;
}
