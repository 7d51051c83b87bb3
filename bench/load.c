/* load.c - blogload DSN: the benchmark's blog (bench/schema.c,
 * bench/dataset.c) into a database, with COPY, in one transaction: a failed
 * load leaves the database as it was.  Prints the row counts.
 * blogload --schema prints the schema. */
#include <libpq-fe.h>
#include <stdio.h>
#include <string.h>

#include "dataset.h"

static const char *const names[DS_NTABLES] = {"authors", "tags", "articles", "article_tags",
					      "comments"};

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "--schema") == 0) {
		fputs(dataset_schema_sql, stdout);
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: blogload DSN | blogload --schema\n");
		return 64;
	}
	PGconn *c = PQconnectdb(argv[1]);
	if (PQstatus(c) != CONNECTION_OK) {
		fprintf(stderr, "blogload: %s", PQerrorMessage(c));
		return 2;
	}
	size_t counts[DS_NTABLES];
	char err[512];
	if (dataset_load((struct pg_conn *)c, counts, err, sizeof err) != 0) {
		fprintf(stderr, "blogload: %s", err);
		PQfinish(c);
		return 2;
	}
	for (int t = 0; t < DS_NTABLES; t++)
		printf("%s=%zu\n", names[t], counts[t]);
	PQfinish(c);
	return 0;
}
