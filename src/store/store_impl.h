/* store_impl.h - shared by the store's files only (store.c opens and
 * migrates, store_write.c writes runs, store_read.c reads them): the
 * handle and the helpers they share.  Commands read records through
 * store.h, never SQL. */
#ifndef PGRTT_STORE_IMPL_H
#define PGRTT_STORE_IMPL_H

#include "db.h"

#include "store.h"

struct db *store_db(struct store *s); /* SQLite or PostgreSQL: db.h */

struct store {
	struct db *db; /* SQLite or PostgreSQL (db.h) */
	int64_t run_id;
	bool in_run;
	struct db_stmt *rt_insert;
	char failed[STORE_ERRBUF]; /* the first failed round-trip row: the run fails */
};

/* err from db's last error: "what: why" (NULL db: out of memory). */
void store_dberr(char *err, const char *what, struct db *db);
/* sql run once; 0, or -1 with err set as store_dberr sets it. */
int store_dbexec(struct db *db, const char *sql, char *err, const char *what);

#endif
