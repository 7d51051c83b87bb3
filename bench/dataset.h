/* dataset.h - the benchmark's blog, row by row, deterministic.
 *
 * 10 authors, 30 tags, 1,000 articles, 2,600 article-tag links and 10,000
 * comments (the seed's round 2), as PostgreSQL COPY text lines for
 * bench/schema.sql.  The same bytes on every machine and every run: the
 * pages every app renders from them are compared byte for byte.  Pure libc.
 */
#ifndef PGRTT_BENCH_DATASET_H
#define PGRTT_BENCH_DATASET_H

#include <stddef.h>

enum dataset_table {
	DS_AUTHORS,
	DS_TAGS,
	DS_ARTICLES,
	DS_ARTICLE_TAGS,
	DS_COMMENTS,
	DS_NTABLES,
};

#define DS_AUTHORS_N 10
#define DS_TAGS_N 30
#define DS_ARTICLES_N 1000
#define DS_LINKS_N 2600
#define DS_COMMENTS_N 10000

/* The schema (DROP and CREATE of every table, indexes), as one SQL string. */
extern const char dataset_schema_sql[];

/* Load the schema and every row into the database of conn (libpq), with COPY,
 * in one transaction; then ANALYZE.  counts[t] gets each table's rows.
 * Returns 0, or -1 with libpq's message in err (nothing is left half
 * loaded). */
struct pg_conn;
int dataset_load(struct pg_conn *conn, size_t counts[DS_NTABLES], char *err, size_t errcap);

/* The table's name and its COPY column list, e.g. "authors (id, name, bio)". */
const char *dataset_copy_target(enum dataset_table t);

/* Call fn once per row of t with one COPY text line (tab-separated, ending
 * in '\n', no escaping needed: the generator never writes tabs,
 * backslashes or newlines inside a value).  Returns the number of rows. */
typedef void dataset_row_fn(void *ctx, const char *line, size_t len);
size_t dataset_rows(enum dataset_table t, dataset_row_fn *fn, void *ctx);

#endif
