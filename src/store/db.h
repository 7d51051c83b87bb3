/* db.h - the SQL the store speaks, on SQLite or on PostgreSQL (libpq).
 *
 * store.c and store_read.c write their statements once, in SQLite's
 * dialect with ? and ?N parameters; a statement is prepared, bound, stepped
 * row by row and finalised as with sqlite3.  For PostgreSQL db.c rewrites
 * what differs - and only there: parameters become $N, group_concat is
 * string_agg, BEGIN IMMEDIATE is BEGIN, INTEGER PRIMARY KEY is an identity,
 * REAL is double precision, rowid is ctid - runs it with text parameters (PQexecParams)
 * and hands its rows back one by one.  Library code: no printing. */
#ifndef PGRTT_DB_H
#define PGRTT_DB_H

#include <stdbool.h>
#include <stdint.h>

struct sqlite3;

enum db_kind { DB_SQLITE, DB_PG };
enum { DB_OK = 0, DB_ERROR = 1, DB_ROW = 100, DB_DONE = 101 };
#define DB_NULL 5 /* db_column_type of a NULL, as SQLITE_NULL */

struct db;
struct db_stmt;

/* A handle around an open SQLite connection (the store opened it: the file
 * and its pragmas are SQLite's business), or a PostgreSQL connection made
 * from a URI or key=value string (libpq: PGPASSWORD, .pgpass and service
 * files give the password).  NULL with err filled. */
struct db *db_wrap_sqlite(struct sqlite3 *h);
struct db *db_connect_pg(const char *conninfo, char *err, int errcap);
void db_close(struct db *db);

/* From now on, a PostgreSQL store has this many seconds to connect
 * (connect_timeout, unless the string or PGCONNECT_TIMEOUT names one) and to
 * answer each statement; past it the connection is closed and every later
 * call fails at once.  0 (the default): no limit.  A live capture sets it,
 * so that a store that hangs never holds up the capture. */
void db_set_deadline(int seconds);
/* Did the last db_connect_pg fail without a server's answer (refused,
 * unreachable, timed out), so that it may work later? */
bool db_connect_transient(void);
/* Is db's last error one that may pass by itself (the connection lost or
 * timed out, a deadlock, the server out of resources), rather than the
 * store refusing what it was given?  Always false for SQLite. */
bool db_error_transient(struct db *db);

/* Is this --db value PostgreSQL's (postgresql://, postgres://, key=value)? */
bool db_is_pg_uri(const char *s);
/* s with a URI's password replaced by "***", for messages. */
void db_redact(const char *s, char *out, int cap);

int db_exec(struct db *db, const char *sql); /* DB_OK or DB_ERROR (db_errmsg) */
const char *db_errmsg(struct db *db);
int64_t db_last_insert_id(struct db *db); /* of the last INSERT with an id */
bool db_in_transaction(struct db *db);    /* not rolled back by an error since BEGIN */

int db_prepare(struct db *db, const char *sql, struct db_stmt **out);
void db_bind_int64(struct db_stmt *st, int i, int64_t v);
void db_bind_int(struct db_stmt *st, int i, int v);
void db_bind_double(struct db_stmt *st, int i, double v);
void db_bind_text(struct db_stmt *st, int i, const char *v); /* copied */
void db_bind_null(struct db_stmt *st, int i);
int db_step(struct db_stmt *st); /* DB_ROW, DB_DONE or DB_ERROR */
void db_reset(struct db_stmt *st); /* to step again, bindings kept */
void db_finalize(struct db_stmt *st);
int db_column_count(struct db_stmt *st);
const char *db_column_name(struct db_stmt *st, int i);
int db_column_type(struct db_stmt *st, int i); /* DB_NULL, or anything else */
int64_t db_column_int64(struct db_stmt *st, int i);
int db_column_int(struct db_stmt *st, int i);
double db_column_double(struct db_stmt *st, int i);
/* NULL for NULL; a REAL column's value the same text on both stores */
const char *db_column_text(struct db_stmt *st, int i);

#endif
