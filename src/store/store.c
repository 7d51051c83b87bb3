/* store.c - the store opened: SQLite files or a central PostgreSQL, the
 * schema migrated, a store only read refused when it would read stale
 * (see store.h, store_schema.h). */
#define _DEFAULT_SOURCE
#include "store.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/about.h"
#include "db.h"
#include "findings/format.h"
#include "store_impl.h"
#include "store_schema.h"


static struct store *pg_open(const char *uri, enum store_mode mode, char *err);

static void newer_schema(char *err, int v)
{
	snprintf(err, STORE_ERRBUF,
		 "schema version %d is newer than this pgrtt's (%d): upgrade pgrtt; nothing was changed",
		 v, STORE_SCHEMA_VERSION);
}

/* The store around an open handle (closed when NULL comes back). */
static struct store *store_of(struct db *db, char *err)
{
	struct store *s = db ? calloc(1, sizeof(*s)) : NULL;
	if (!s) {
		db_close(db);
		snprintf(err, STORE_ERRBUF, "out of memory");
		return NULL;
	}
	s->db = db;
	return s;
}

static void set_err(char *err, const char *what, sqlite3 *db)
{
	snprintf(err, STORE_ERRBUF, "%s: %s", what, db ? sqlite3_errmsg(db) : "out of memory");
}

static int exec(sqlite3 *db, const char *sql, char *err, const char *what)
{
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		snprintf(err, STORE_ERRBUF, "%s: %s", what, msg ? msg : sqlite3_errmsg(db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

static int user_version(sqlite3 *db, int *v)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return rc;
	rc = sqlite3_step(st);
	*v = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? SQLITE_OK : rc;
}

/* Apply the migrations past the database's version, in one transaction. */
static int migrate(sqlite3 *db, char *err)
{
	if (exec(db, "BEGIN IMMEDIATE", err, "locking the database") != 0)
		return -1;
	int v;
	if (user_version(db, &v) != SQLITE_OK) { /* again: another pgrtt may have migrated */
		set_err(err, "reading the schema version", db);
		goto fail;
	}
	for (int i = v; i < STORE_SCHEMA_VERSION; i++) {
		if (exec(db, store_migrations[i], err, "migrating the schema") != 0)
			goto fail;
	}
	if (v < STORE_SCHEMA_VERSION) {
		char sql[64];
		snprintf(sql, sizeof sql, "PRAGMA user_version = %d", STORE_SCHEMA_VERSION);
		if (exec(db, sql, err, "setting the schema version") != 0)
			goto fail;
	}
	if (exec(db, "COMMIT", err, "migrating the schema") != 0)
		goto fail;
	return 0;
fail:
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

/* WAL, so that readers never wait for a writer.  Changing the journal mode
 * is answered "locked" at once (no busy handler) while another pgrtt does
 * the same on a new file: try again for as long as the busy timeout. */
static int set_wal(sqlite3 *db, char *err)
{
	for (int i = 0;; i++) {
		char *msg = NULL;
		int rc = sqlite3_exec(db, "PRAGMA journal_mode = WAL", NULL, NULL, &msg);
		sqlite3_free(msg);
		if (rc == SQLITE_OK)
			return 0;
		if ((rc != SQLITE_BUSY && rc != SQLITE_LOCKED) || i == 1000) {
			set_err(err, "WAL", db);
			return -1;
		}
		sqlite3_sleep(10);
	}
}

/* Tables in a database whose user_version is 0: another program's data. */
static int foreign_tables(sqlite3 *db)
{
	sqlite3_stmt *st;
	int n = -1;
	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master", -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			n = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
	}
	return n;
}

/* Does path's -wal hold frames (commits not checkpointed into the file)? */
static bool wal_pending(const char *path)
{
	char wal[4200];
	struct stat st;
	snprintf(wal, sizeof wal, "%s-wal", path);
	return stat(wal, &st) == 0 && st.st_size > 32; /* more than its header */
}

static sqlite3 *open_handle(const char *path, enum store_mode mode, bool immutable, char *err)
{
	sqlite3 *db = NULL;
	int flags = SQLITE_OPEN_URI;
	char uri[4200];
	/* a URI, so that a read can ask for mode=ro and, in a read-only
	 * directory where the WAL index cannot be made, immutable=1 */
	size_t o = (size_t)snprintf(uri, sizeof uri, "file:");
	for (const char *p = path; *p && o + 4 < sizeof uri; p++) {
		if (*p == '%' || *p == '?' || *p == '#')
			o += (size_t)snprintf(uri + o, sizeof uri - o, "%%%02X", (unsigned char)*p);
		else
			uri[o++] = *p;
	}
	uri[o] = '\0';
	if (mode == STORE_READ) {
		flags |= SQLITE_OPEN_READONLY;
		snprintf(uri + o, sizeof uri - o, "%s", immutable ? "?mode=ro&immutable=1" : "?mode=ro");
	} else {
		flags |= SQLITE_OPEN_READWRITE | (mode == STORE_CREATE ? SQLITE_OPEN_CREATE : 0);
	}
	if (sqlite3_open_v2(uri, &db, flags, NULL) != SQLITE_OK) {
		snprintf(err, STORE_ERRBUF, "%s", db ? sqlite3_errmsg(db) : "out of memory");
		if (mode != STORE_CREATE && db && sqlite3_errcode(db) == SQLITE_CANTOPEN)
			snprintf(err, STORE_ERRBUF, "no such database (analyze --db creates one)");
		sqlite3_close(db);
		return NULL;
	}
	return db;
}

/* Can a run be written here?  SQLite needs the file and, for its WAL and
 * shared-memory files, the directory. */
static bool writable(const char *path, char *err)
{
	char dir[4096];
	snprintf(dir, sizeof dir, "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash == dir)
		dir[1] = '\0';
	else if (slash)
		*slash = '\0';
	else
		snprintf(dir, sizeof dir, ".");
	if (access(path, F_OK) == 0 && access(path, W_OK) != 0) {
		snprintf(err, STORE_ERRBUF, "read-only file: cannot store a run in it");
		return false;
	}
	if (access(dir, W_OK) != 0 && access(dir, F_OK) == 0) {
		snprintf(err, STORE_ERRBUF,
			 "read-only directory: cannot store a run (SQLite writes its journal beside "
			 "the file)");
		return false;
	}
	return true;
}

struct store *store_open(const char *path, enum store_mode mode, char *err)
{
	if (db_is_pg_uri(path))
		return pg_open(path, mode, err);
	if (mode != STORE_READ && !writable(path, err))
		return NULL;
	sqlite3 *db = open_handle(path, mode, false, err);
	if (!db)
		return NULL;
	sqlite3_busy_timeout(db, 10000);
	int v = 0;
	int rc = user_version(db, &v);
	if (rc != SQLITE_OK && rc != SQLITE_NOTADB && mode == STORE_READ) {
		/* a WAL database in a directory we cannot write (its -shm cannot
		 * be made): read it as it is - unless its -wal holds commits not
		 * in the file yet, which SQLite cannot read without the -shm, and
		 * reading without them would be reading an older store */
		sqlite3_close(db);
		if (wal_pending(path)) {
			snprintf(err, STORE_ERRBUF,
				 "its -wal holds runs not yet in the file, and SQLite cannot read them "
				 "here (no -shm beside it, a read-only directory): copy the file and its "
				 "-wal to a writable directory and read the copy");
			return NULL;
		}
		if (!(db = open_handle(path, mode, true, err)))
			return NULL;
		rc = user_version(db, &v);
	}
	if (rc == SQLITE_NOTADB) {
		snprintf(err, STORE_ERRBUF, "not a SQLite database; nothing was changed");
		sqlite3_close(db);
		return NULL;
	}
	if (rc != SQLITE_OK) {
		set_err(err, "reading the schema version", db);
		sqlite3_close(db);
		return NULL;
	}
	if (v > STORE_SCHEMA_VERSION) {
		newer_schema(err, v);
		sqlite3_close(db);
		return NULL;
	}
	/* tables, but version 0 when it was read: another program's - or a
	 * pgrtt's that migrated this new file since (tables and version commit
	 * together, so the version read again tells; store.concurrent failed
	 * now and then without this) */
	if (v == 0 && foreign_tables(db) != 0 && (user_version(db, &v) != SQLITE_OK || v == 0)) {
		snprintf(err, STORE_ERRBUF,
			 "not a pgrtt database (it holds tables of another program); nothing was "
			 "changed");
		sqlite3_close(db);
		return NULL;
	}
	if (mode == STORE_READ && v < STORE_SCHEMA_VERSION) {
		/* an older schema: upgrade it if we may write, else say how */
		sqlite3_close(db);
		struct store *w = store_open(path, STORE_WRITE, err);
		if (w)
			return w;
		snprintf(err, STORE_ERRBUF,
			 "schema version %d is older than this pgrtt's (%d): run pgrtt analyze --db "
			 "on it once with write access to upgrade it",
			 v, STORE_SCHEMA_VERSION);
		return NULL;
	}
	char e2[STORE_ERRBUF];
	if (mode != STORE_READ) {
		/* can we write? find out now, not after the work is done */
		if (sqlite3_db_readonly(db, "main") == 1) {
			snprintf(err, STORE_ERRBUF, "read-only: cannot store a run in it");
			sqlite3_close(db);
			return NULL;
		}
		if (set_wal(db, e2) != 0 ||
		    exec(db, "PRAGMA foreign_keys = ON", e2, "foreign keys") != 0 ||
		    exec(db, "BEGIN IMMEDIATE; ROLLBACK", e2, "cannot write") != 0 ||
		    (v < STORE_SCHEMA_VERSION && migrate(db, e2) != 0)) {
			snprintf(err, STORE_ERRBUF, "%s", e2);
			sqlite3_close(db);
			return NULL;
		}
	}
	struct db *w = db_wrap_sqlite(db);
	if (!w)
		sqlite3_close(db);
	return store_of(w, err);
}

void store_close(struct store *s)
{
	if (!s)
		return;
	if (s->in_run)
		store_abort_run(s);
	db_finalize(s->rt_insert);
	db_close(s->db);
	free(s);
}

struct db *store_db(struct store *s)
{
	return s->db;
}

bool store_failure_transient(struct store *s)
{
	return db_error_transient(s->db);
}

bool store_open_transient(void)
{
	return db_connect_transient();
}

void store_set_deadline(int seconds)
{
	db_set_deadline(seconds);
}

void store_dberr(char *err, const char *what, struct db *db)
{
	snprintf(err, STORE_ERRBUF, "%s: %s", what, db ? db_errmsg(db) : "out of memory");
}

int store_dbexec(struct db *db, const char *sql, char *err, const char *what)
{
	if (db_exec(db, sql) != DB_OK) {
		store_dberr(err, what, db);
		return -1;
	}
	return 0;
}

/* ---- PostgreSQL (--db postgresql://...): the same tables, through db.c ---- */

/* The version the central store's schema is at: a table of its own, as a
 * PostgreSQL database holds other things than pgrtt's.  -1: not readable. */
static int pg_version(struct db *db)
{
	struct db_stmt *st;
	int v = -1;
	if (db_prepare(db, "SELECT coalesce(max(version), 0) FROM pgrtt_schema", &st) == DB_OK) {
		if (db_step(st) == DB_ROW)
			v = db_column_int(st, 0);
		db_finalize(st);
	}
	return v;
}

/* The migrations past the store's version, in one transaction under an
 * advisory lock: two hosts upgrading at once take turns, the second finds
 * nothing left to do. */
static int pg_migrate(struct db *db, char *err)
{
	if (store_dbexec(db, "BEGIN", err, "migrating the schema") != 0)
		return -1;
	if (store_dbexec(db, "SELECT pg_advisory_xact_lock(7270937823)", err, "migrating the schema") != 0)
		goto fail;
	/* a database that holds another program's tables and no pgrtt schema
	 * is not made a store (as a SQLite file of another program is not);
	 * read under the lock, where another pgrtt's new tables are either
	 * committed with their version or not there */
	struct db_stmt *st;
	int64_t foreign = -1;
	if (db_prepare(db, "SELECT CASE WHEN to_regclass('pgrtt_schema') IS NULL THEN (SELECT count(*) "
			   "FROM pg_tables WHERE schemaname = current_schema()) ELSE 0 END",
		       &st) == DB_OK) {
		if (db_step(st) == DB_ROW)
			foreign = db_column_int64(st, 0);
		db_finalize(st);
	}
	if (foreign != 0) {
		if (foreign < 0)
			store_dberr(err, "reading the database's tables", db);
		else
			snprintf(err, STORE_ERRBUF,
				 "not a pgrtt database (its schema holds %lld tables of another "
				 "program); nothing was changed: give a database of its own",
				 (long long)foreign);
		goto fail;
	}
	if (store_dbexec(db, "CREATE TABLE IF NOT EXISTS pgrtt_schema (version INTEGER NOT NULL)", err,
		   "migrating the schema") != 0)
		goto fail;
	int v = pg_version(db);
	if (v < 0) {
		store_dberr(err, "reading the schema version", db);
		goto fail;
	}
	if (v > STORE_SCHEMA_VERSION) {
		newer_schema(err, v);
		goto fail;
	}
	for (int i = v; i < STORE_SCHEMA_VERSION; i++)
		if (store_dbexec(db, store_migrations[i], err, "migrating the schema") != 0)
			goto fail;
	if (v < STORE_SCHEMA_VERSION) {
		char sql[96];
		snprintf(sql, sizeof sql, "DELETE FROM pgrtt_schema; INSERT INTO pgrtt_schema VALUES (%d)",
			 STORE_SCHEMA_VERSION);
		if (store_dbexec(db, sql, err, "setting the schema version") != 0)
			goto fail;
	}
	return store_dbexec(db, "COMMIT", err, "migrating the schema");
fail:
	db_exec(db, "ROLLBACK");
	return -1;
}

static struct store *pg_open(const char *uri, enum store_mode mode, char *err)
{
	char e[STORE_ERRBUF];
	struct db *db = db_connect_pg(uri, e, sizeof e);
	if (!db) {
		snprintf(err, STORE_ERRBUF, "%s", e);
		return NULL;
	}
	int v = pg_version(db);
	if (mode == STORE_READ) {
		if (v < 0) {
			snprintf(err, STORE_ERRBUF,
				 "no pgrtt store in this database (analyze --db creates one)");
			db_close(db);
			return NULL;
		}
		if (v != STORE_SCHEMA_VERSION) {
			snprintf(err, STORE_ERRBUF,
				 "schema version %d, this pgrtt's is %d: %s", v, STORE_SCHEMA_VERSION,
				 v > STORE_SCHEMA_VERSION ? "upgrade pgrtt"
							  : "run pgrtt analyze --db on it once to upgrade it");
			db_close(db);
			return NULL;
		}
	} else {
		if (v != STORE_SCHEMA_VERSION && pg_migrate(db, err) != 0) {
			db_close(db);
			return NULL;
		}
		/* can this role write a run?  Find out now, not after the work */
		if (store_dbexec(db, "BEGIN; LOCK TABLE runs IN ROW EXCLUSIVE MODE; ROLLBACK", e,
			   "cannot write") != 0) {
			snprintf(err, STORE_ERRBUF, "%.180s (a role that may insert into pgrtt's tables is needed)",
				 e);
			db_exec(db, "ROLLBACK");
			db_close(db);
			return NULL;
		}
	}
	return store_of(db, err);
}

