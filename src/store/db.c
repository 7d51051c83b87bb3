/* db.c - the store's SQL on SQLite or PostgreSQL (db.h).  Every difference
 * between the two dialects the store meets is in db_pg_sql, here. */
#define _DEFAULT_SOURCE
#include "db.h"
#include "base/escape.h"

#include <ctype.h>
#include <errno.h>
#include <libpq-fe.h>
#include <poll.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DB_PARAMS 64 /* parameters of one statement: the store's widest has 35 */

struct db {
	enum db_kind kind;
	sqlite3 *lite;
	PGconn *pg;
	int64_t last_id;
	bool lost;      /* PostgreSQL gave no answer in time: the connection is closed */
	bool transient; /* the last error may pass by itself (db_error_transient) */
	char err[512];
};

/* Seconds a PostgreSQL store has to connect and to answer each statement;
 * 0: as long as it takes (db_set_deadline). */
static int deadline_s;

void db_set_deadline(int seconds)
{
	deadline_s = seconds;
}

static bool connect_transient;

static PGresult *pg_exec(struct db *db, const char *sql, int n, const char *const *params);

static int64_t now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

struct db_stmt {
	struct db *db;
	sqlite3_stmt *lite;
	/* PostgreSQL: the rewritten text, its parameters as text, the result
	 * being read and the next row of it */
	char *sql;
	char *param[DB_PARAMS];
	int nparam;
	PGresult *res;
	int row, nrows;
	bool ran;
	char num[DB_PARAMS][32]; /* db_column_text of REAL columns */
};

struct db *db_wrap_sqlite(sqlite3 *h)
{
	struct db *db = calloc(1, sizeof(*db));
	if (db) {
		db->kind = DB_SQLITE;
		db->lite = h;
	}
	return db;
}

struct db *db_connect_pg(const char *conninfo, char *err, int errcap)
{
	/* a deadline, unless the string or the environment names one: libpq's
	 * connect_timeout covers the whole handshake, so a server that accepts
	 * and never answers is given up on too.  Earlier keywords yield to
	 * those of the expanded string. */
	char secs[16];
	snprintf(secs, sizeof secs, "%d", deadline_s);
	bool timed = deadline_s > 0 && !getenv("PGCONNECT_TIMEOUT");
	const char *const keys[] = {"connect_timeout", "dbname", "client_encoding", NULL};
	const char *const vals[] = {secs, conninfo, "UTF8", NULL};
	/* the text bound is UTF-8 (db_bind_text), whatever the database's own */
	PGconn *c = PQconnectdbParams(keys + !timed, vals + !timed, 1);
	connect_transient = false;
	if (!c || PQstatus(c) != CONNECTION_OK) {
		const char *m = c ? PQerrorMessage(c) : "out of memory";
		snprintf(err, (size_t)errcap, "%.*s", (int)strcspn(m, "\n"), m); /* its first line */
		/* no server answered (refused, unreachable, timed out): it may
		 * come back; a server's FATAL (a password, a database) will not */
		connect_transient = c && !strstr(m, "FATAL");
		PQfinish(c);
		return NULL;
	}
	struct db *db = calloc(1, sizeof(*db));
	if (!db) {
		PQfinish(c);
		snprintf(err, (size_t)errcap, "out of memory");
		return NULL;
	}
	db->kind = DB_PG;
	db->pg = c;
	/* quiet: notices (a table already there) are not the user's business */
	PQclear(pg_exec(db, "SET client_min_messages = warning", -1, NULL));
	return db;
}

bool db_connect_transient(void)
{
	return connect_transient;
}

bool db_error_transient(struct db *db)
{
	return db->kind == DB_PG && (db->lost || db->transient);
}

/* Waits for the connection to be readable (or writable) until deadline;
 * false when the time is up. */
static bool pg_wait(PGconn *c, bool out, int64_t deadline)
{
	struct pollfd p = {PQsocket(c), (short)(POLLIN | (out ? POLLOUT : 0)), 0};
	for (;;) {
		int64_t left = deadline - now_ms();
		if (left <= 0)
			return false;
		int r = poll(&p, 1, (int)(left > 1000 ? 1000 : left));
		if (r > 0)
			return true;
		if (r < 0 && errno != EINTR)
			return true; /* libpq will say what is wrong with the socket */
	}
}

/* A statement's result, as PQexecParams (n < 0: PQexec, several
 * statements), but within the deadline when there is one: a store that
 * stops answering is given up on, its connection closed, and every later
 * call fails at once. */
static PGresult *pg_exec(struct db *db, const char *sql, int n, const char *const *params)
{
	PGconn *c = db->pg;
	if (db->lost)
		return NULL;
	if (deadline_s <= 0)
		return n < 0 ? PQexec(c, sql) : PQexecParams(c, sql, n, NULL, params, NULL, NULL, 0);
	int64_t deadline = now_ms() + (int64_t)deadline_s * 1000;
	if (!(n < 0 ? PQsendQuery(c, sql) : PQsendQueryParams(c, sql, n, NULL, params, NULL, NULL, 0)))
		return NULL;
	int f;
	while ((f = PQflush(c)) == 1)
		if (!pg_wait(c, true, deadline) || !PQconsumeInput(c))
			goto lost;
	if (f < 0)
		return NULL;
	PGresult *kept = NULL, *r;
	for (;;) {
		while (PQisBusy(c))
			if (!pg_wait(c, false, deadline) || !PQconsumeInput(c))
				goto lost_kept;
		if (!(r = PQgetResult(c)))
			break;
		ExecStatusType s = PQresultStatus(r);
		bool bad = s == PGRES_FATAL_ERROR || s == PGRES_BAD_RESPONSE;
		if (!kept || bad || PQresultStatus(kept) != PGRES_FATAL_ERROR) { /* the error wins */
			PQclear(kept);
			kept = r;
		} else {
			PQclear(r);
		}
	}
	return kept;
lost_kept:
	PQclear(kept);
lost:
	if (PQstatus(c) == CONNECTION_OK) {
		db->lost = true;
		snprintf(db->err, sizeof db->err, "no answer in %d s (the connection is closed)",
			 deadline_s);
		PQfinish(c);
		db->pg = NULL;
	}
	return NULL;
}

void db_close(struct db *db)
{
	if (!db)
		return;
	if (db->lite)
		sqlite3_close(db->lite);
	if (db->pg)
		PQfinish(db->pg);
	free(db);
}

static bool has_uri_scheme(const char *s)
{
	return strncmp(s, "postgresql://", 13) == 0 || strncmp(s, "postgres://", 11) == 0;
}

bool db_is_pg_uri(const char *s)
{
	if (has_uri_scheme(s))
		return true;
	/* libpq's key=value form: a word, then '=' ("host=db dbname=pgrtt"), and
	 * libpq takes the whole string - a file named "a=b.db" is not one */
	const char *p = s;
	while (*p == ' ')
		p++;
	const char *w = p;
	while (isalnum((unsigned char)*p) || *p == '_')
		p++;
	while (*p == ' ')
		p++;
	if (p == w || *p != '=')
		return false;
	PQconninfoOption *o = PQconninfoParse(s, NULL);
	PQconninfoFree(o);
	return o != NULL;
}

/* Appends to out[*o..cap) as far as it fits; out stays terminated. */
static void put(char *out, size_t cap, size_t *o, const char *s, size_t n)
{
	if (*o >= cap)
		return;
	size_t room = cap - 1 - *o;
	if (n > room)
		n = room;
	memcpy(out + *o, s, n);
	*o += n;
	out[*o] = '\0';
}

static void puts_(char *out, size_t cap, size_t *o, const char *s)
{
	put(out, cap, o, s, strlen(s));
}

/* A value in a URI: RFC 3986's unreserved characters as they are, the rest
 * %-encoded, so that what is shown reads back as what was given. */
static void put_uri_value(char *out, size_t cap, size_t *o, const char *v)
{
	for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
		char enc[4];
		if (isalnum(*p) || strchr("-._~", *p))
			put(out, cap, o, (const char *)p, 1);
		else
			put(out, cap, o, enc, (size_t)snprintf(enc, sizeof enc, "%%%02X", *p));
	}
}

/* A value in key=value form, quoted as libpq reads it when it must be. */
static void put_kv_value(char *out, size_t cap, size_t *o, const char *v)
{
	bool plain = *v != '\0';
	for (const char *p = v; *p; p++)
		plain = plain && !isspace((unsigned char)*p) && *p != '\'' && *p != '\\';
	if (plain) {
		puts_(out, cap, o, v);
		return;
	}
	put(out, cap, o, "'", 1);
	for (const char *p = v; *p; p++) {
		if (*p == '\'' || *p == '\\')
			put(out, cap, o, "\\", 1);
		put(out, cap, o, p, 1);
	}
	put(out, cap, o, "'", 1);
}

static const char *opt_val(const PQconninfoOption *opts, const char *key)
{
	for (const PQconninfoOption *p = opts; p->keyword; p++)
		if (strcmp(p->keyword, key) == 0)
			return p->val;
	return NULL;
}

/* libpq names its secrets: dispchar "*" (password, sslpassword, and any it
 * adds).  Their values never leave here; that one was given is shown. */
static bool is_secret(const PQconninfoOption *p)
{
	return p->dispchar && strchr(p->dispchar, '*');
}

void db_redact(const char *s, char *out, int cap)
{
	size_t c = (size_t)cap, o = 0;
	if (c == 0)
		return;
	out[0] = '\0';
	if (!has_uri_scheme(s) && !strchr(s, '=')) { /* a file's name */
		puts_(out, c, &o, s);
		return;
	}
	/* rebuilt from libpq's own reading of it: whatever the spacing, quoting
	 * or escaping, the fields libpq would send are what is shown */
	PQconninfoOption *opts = PQconninfoParse(s, NULL);
	if (!opts) {
		if (has_uri_scheme(s) || strstr(s, "password"))
			puts_(out, c, &o, "(a PostgreSQL connection string libpq cannot read)");
		else
			puts_(out, c, &o, s);
		return;
	}
	if (has_uri_scheme(s)) {
		const char *user = opt_val(opts, "user"), *host = opt_val(opts, "host");
		const char *port = opt_val(opts, "port"), *dbname = opt_val(opts, "dbname");
		const char *pw = opt_val(opts, "password");
		/* one plain host in the authority; several, IPv6 or a socket
		 * directory as parameters, which libpq reads the same */
		bool host_inline = host && *host && !strpbrk(host, ",:/%") &&
				   !(port && strchr(port, ','));
		puts_(out, c, &o, "postgresql://");
		if (user || pw) {
			if (user)
				put_uri_value(out, c, &o, user);
			if (pw)
				puts_(out, c, &o, ":***");
			puts_(out, c, &o, "@");
		}
		if (host_inline) {
			put_uri_value(out, c, &o, host);
			if (port && *port) {
				puts_(out, c, &o, ":");
				put_uri_value(out, c, &o, port);
			}
		}
		if (dbname) {
			puts_(out, c, &o, "/");
			put_uri_value(out, c, &o, dbname);
		}
		char sep = '?';
		for (const PQconninfoOption *p = opts; p->keyword; p++) {
			const char *k = p->keyword;
			if (!p->val || strcmp(k, "user") == 0 || strcmp(k, "dbname") == 0 ||
			    strcmp(k, "password") == 0 ||
			    (host_inline && (strcmp(k, "host") == 0 || strcmp(k, "port") == 0)))
				continue;
			put(out, c, &o, &sep, 1);
			sep = '&';
			puts_(out, c, &o, k);
			puts_(out, c, &o, "=");
			if (is_secret(p))
				puts_(out, c, &o, "***");
			else
				put_uri_value(out, c, &o, p->val);
		}
	} else {
		const char *sp = "";
		for (const PQconninfoOption *p = opts; p->keyword; p++) {
			if (!p->val)
				continue;
			puts_(out, c, &o, sp);
			sp = " ";
			puts_(out, c, &o, p->keyword);
			puts_(out, c, &o, "=");
			if (is_secret(p))
				puts_(out, c, &o, "***");
			else
				put_kv_value(out, c, &o, p->val);
		}
	}
	PQconninfoFree(opts);
}

/* ---- SQLite's dialect, PostgreSQL's ---- */

static bool word_at(const char *s, size_t i, const char *w)
{
	size_t n = strlen(w);
	return strncmp(s + i, w, n) == 0 && (i == 0 || !(isalnum((unsigned char)s[i - 1]) || s[i - 1] == '_')) &&
	       !(isalnum((unsigned char)s[i + n]) || s[i + n] == '_');
}

/* PostgreSQL's form of a statement in SQLite's dialect (db.h), into out. */
static char *db_pg_sql(const char *sql, char *out, int cap)
{
	static const struct {
		const char *from, *to;
	} words[] = {
		{"INTEGER PRIMARY KEY", "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"},
		{"BEGIN IMMEDIATE", "BEGIN"},
		{"INTEGER", "BIGINT"},
		{"REAL", "DOUBLE PRECISION"},
		{"group_concat", "string_agg"},
		{"rowid", "ctid"}, /* the order rows were written in (never updated here) */
	};
	size_t o = 0, c = (size_t)cap;
	int next = 0;
#define PUT(str, n) (o + (n) < c ? (memcpy(out + o, str, n), o += (n)) : (o = c))
	for (size_t i = 0; sql[i] && o < c;) {
		char ch = sql[i];
		if (ch == '\'' || ch == '"') { /* a literal or a quoted name: as it is */
			size_t j = i + 1;
			while (sql[j] && sql[j] != ch)
				j++;
			j += sql[j] == ch;
			PUT(sql + i, j - i);
			i = j;
			continue;
		}
		if (ch == '?') {
			char num[16];
			size_t j = i + 1;
			int n = 0;
			while (isdigit((unsigned char)sql[j]))
				n = n * 10 + (sql[j++] - '0');
			if (j == i + 1)
				n = ++next;
			int len = snprintf(num, sizeof num, "$%d", n);
			PUT(num, (size_t)len);
			i = j;
			continue;
		}
		bool done = false;
		for (size_t k = 0; k < sizeof words / sizeof words[0] && !done; k++) {
			if (word_at(sql, i, words[k].from)) {
				PUT(words[k].to, strlen(words[k].to));
				i += strlen(words[k].from);
				done = true;
			}
		}
		if (!done) {
			PUT(sql + i, 1);
			i++;
		}
	}
#undef PUT
	out[o < c ? o : c - 1] = '\0';
	return out;
}

/* ---- statements ---- */

/* SQLSTATE classes of errors that pass by themselves: a lost connection
 * (08), a serialisation failure or deadlock (40), a lock not available
 * (55), the server out of resources (53), shutting down (57), failing (58)
 * or failing inside (XX), and an error without a code.  Every other error
 * is the store refusing what it was given. */
static bool sqlstate_transient(const char *code)
{
	static const char *const classes[] = {"08", "40", "53", "55", "57", "58", "XX"};
	if (!code || strlen(code) != 5)
		return true;
	for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++)
		if (strncmp(code, classes[i], 2) == 0)
			return true;
	return false;
}

static int pg_ok(struct db *db, PGresult *r)
{
	ExecStatusType s = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
	db->transient = false;
	if (s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK)
		return DB_OK;
	if (db->lost) /* db->err says so */
		return DB_ERROR;
	const char *m = r ? PQresultErrorMessage(r) : PQerrorMessage(db->pg);
	snprintf(db->err, sizeof db->err, "%.*s", (int)strcspn(m, "\n"), m);
	db->transient = !r || PQstatus(db->pg) != CONNECTION_OK ||
			sqlstate_transient(PQresultErrorField(r, PG_DIAG_SQLSTATE));
	return DB_ERROR;
}

int db_exec(struct db *db, const char *sql)
{
	if (db->kind == DB_SQLITE) {
		char *msg = NULL;
		int rc = sqlite3_exec(db->lite, sql, NULL, NULL, &msg);
		if (rc != SQLITE_OK)
			snprintf(db->err, sizeof db->err, "%s", msg ? msg : sqlite3_errmsg(db->lite));
		sqlite3_free(msg);
		return rc == SQLITE_OK ? DB_OK : DB_ERROR;
	}
	size_t n = strlen(sql) * 2 + 64;
	char *t = malloc(n);
	if (!t) {
		snprintf(db->err, sizeof db->err, "out of memory");
		return DB_ERROR;
	}
	PGresult *r = pg_exec(db, db_pg_sql(sql, t, (int)n), -1, NULL);
	free(t);
	int rc = pg_ok(db, r);
	PQclear(r);
	return rc;
}

const char *db_errmsg(struct db *db)
{
	if (db->kind == DB_SQLITE && !db->err[0])
		return sqlite3_errmsg(db->lite);
	return db->err;
}

int64_t db_last_insert_id(struct db *db)
{
	if (db->kind == DB_SQLITE)
		return sqlite3_last_insert_rowid(db->lite);
	return db->last_id;
}

bool db_in_transaction(struct db *db)
{
	if (db->kind == DB_SQLITE)
		return !sqlite3_get_autocommit(db->lite);
	return PQtransactionStatus(db->pg) == PQTRANS_INTRANS;
}

int db_prepare(struct db *db, const char *sql, struct db_stmt **out)
{
	*out = NULL;
	db->err[0] = '\0';
	struct db_stmt *st = calloc(1, sizeof(*st));
	if (!st) {
		snprintf(db->err, sizeof db->err, "out of memory");
		return DB_ERROR;
	}
	st->db = db;
	if (db->kind == DB_SQLITE) {
		if (sqlite3_prepare_v2(db->lite, sql, -1, &st->lite, NULL) != SQLITE_OK) {
			free(st);
			return DB_ERROR;
		}
		*out = st;
		return DB_OK;
	}
	size_t n = strlen(sql) * 2 + 64;
	bool insert = strncmp(sql, "INSERT INTO runs ", 17) == 0; /* its id is wanted */
	st->sql = malloc(n + 16);
	if (!st->sql) {
		free(st);
		snprintf(db->err, sizeof db->err, "out of memory");
		return DB_ERROR;
	}
	db_pg_sql(sql, st->sql, (int)n);
	if (insert)
		strcat(st->sql, " RETURNING id");
	for (const char *p = st->sql; (p = strchr(p, '$')) != NULL; p++) {
		int k = atoi(p + 1);
		st->nparam = k > st->nparam ? k : st->nparam;
	}
	if (st->nparam > DB_PARAMS) {
		snprintf(db->err, sizeof db->err, "a statement of %d parameters", st->nparam);
		free(st->sql);
		free(st);
		return DB_ERROR;
	}
	*out = st;
	return DB_OK;
}

static void pg_set(struct db_stmt *st, int i, char *v)
{
	if (i < 1 || i > DB_PARAMS) {
		free(v);
		return;
	}
	free(st->param[i - 1]);
	st->param[i - 1] = v;
}

void db_bind_int64(struct db_stmt *st, int i, int64_t v)
{
	if (st->lite) {
		sqlite3_bind_int64(st->lite, i, v);
		return;
	}
	char b[32];
	snprintf(b, sizeof b, "%lld", (long long)v);
	pg_set(st, i, strdup(b));
}

void db_bind_int(struct db_stmt *st, int i, int v)
{
	db_bind_int64(st, i, v);
}

void db_bind_double(struct db_stmt *st, int i, double v)
{
	if (st->lite) {
		sqlite3_bind_double(st->lite, i, v);
		return;
	}
	char b[40];
	snprintf(b, sizeof b, "%.17g", v);
	pg_set(st, i, strdup(b));
}

void db_bind_text(struct db_stmt *st, int i, const char *v)
{
	/* both stores hold the same text: what PostgreSQL would refuse is
	 * escaped for SQLite too */
	char *fixed = esc_utf8_dup(v);
	if (st->lite) {
		sqlite3_bind_text(st->lite, i, fixed ? fixed : v, -1, SQLITE_TRANSIENT);
		free(fixed);
		return;
	}
	pg_set(st, i, fixed ? fixed : strdup(v));
}

void db_bind_null(struct db_stmt *st, int i)
{
	if (st->lite) {
		sqlite3_bind_null(st->lite, i);
		return;
	}
	pg_set(st, i, NULL);
}

int db_step(struct db_stmt *st)
{
	if (st->lite) {
		int rc = sqlite3_step(st->lite);
		return rc == SQLITE_ROW ? DB_ROW : rc == SQLITE_DONE ? DB_DONE : DB_ERROR;
	}
	if (!st->ran) {
		st->ran = true;
		st->res = pg_exec(st->db, st->sql, st->nparam, (const char *const *)st->param);
		if (pg_ok(st->db, st->res) != DB_OK)
			return DB_ERROR;
		st->nrows = PQntuples(st->res);
		st->row = -1;
		if (strstr(st->sql, " RETURNING id") && st->nrows == 1) {
			st->db->last_id = strtoll(PQgetvalue(st->res, 0, 0), NULL, 10);
			st->nrows = 0; /* an INSERT: no rows to step through */
		}
	}
	if (!st->res)
		return DB_ERROR;
	return ++st->row < st->nrows ? DB_ROW : DB_DONE;
}

void db_reset(struct db_stmt *st)
{
	if (st->lite) {
		sqlite3_reset(st->lite);
		return;
	}
	PQclear(st->res);
	st->res = NULL;
	st->ran = false;
}

void db_finalize(struct db_stmt *st)
{
	if (!st)
		return;
	if (st->lite)
		sqlite3_finalize(st->lite);
	PQclear(st->res);
	for (int i = 0; i < DB_PARAMS; i++)
		free(st->param[i]);
	free(st->sql);
	free(st);
}

int db_column_count(struct db_stmt *st)
{
	return st->lite ? sqlite3_column_count(st->lite) : st->res ? PQnfields(st->res) : 0;
}

const char *db_column_name(struct db_stmt *st, int i)
{
	return st->lite ? sqlite3_column_name(st->lite, i) : PQfname(st->res, i);
}

static bool pg_cell(struct db_stmt *st, int i)
{
	return st->res && st->row >= 0 && st->row < st->nrows && i < PQnfields(st->res) &&
	       !PQgetisnull(st->res, st->row, i);
}

int db_column_type(struct db_stmt *st, int i)
{
	if (st->lite)
		return sqlite3_column_type(st->lite, i);
	return pg_cell(st, i) ? 1 : DB_NULL;
}

int64_t db_column_int64(struct db_stmt *st, int i)
{
	if (st->lite)
		return sqlite3_column_int64(st->lite, i);
	if (!pg_cell(st, i))
		return 0;
	const char *v = PQgetvalue(st->res, st->row, i);
	if (v[0] == 't' || v[0] == 'f') /* a boolean (IS NOT NULL, a comparison) */
		return v[0] == 't';
	if (strpbrk(v, ".eE")) /* a sum of integers comes back as numeric */
		return (int64_t)strtod(v, NULL);
	return strtoll(v, NULL, 10);
}

int db_column_int(struct db_stmt *st, int i)
{
	return (int)db_column_int64(st, i);
}

double db_column_double(struct db_stmt *st, int i)
{
	if (st->lite)
		return sqlite3_column_double(st->lite, i);
	if (!pg_cell(st, i))
		return 0;
	const char *v = PQgetvalue(st->res, st->row, i);
	return v[0] == 't' || v[0] == 'f' ? v[0] == 't' : strtod(v, NULL);
}

/* A REAL as the same text from either store - SQLite writes 9436 as
 * "9436.0", PostgreSQL as "9436" - and exactly: the shortest of %.15g and
 * %.17g that reads back as the value. */
static const char *real_text(struct db_stmt *st, int i, double v)
{
	if (i < 0 || i >= DB_PARAMS)
		return NULL;
	char *b = st->num[i];
	snprintf(b, sizeof st->num[i], "%.15g", v);
	if (strtod(b, NULL) != v)
		snprintf(b, sizeof st->num[i], "%.17g", v);
	return b;
}

const char *db_column_text(struct db_stmt *st, int i)
{
	if (st->lite) {
		if (sqlite3_column_type(st->lite, i) == SQLITE_FLOAT)
			return real_text(st, i, sqlite3_column_double(st->lite, i));
		return (const char *)sqlite3_column_text(st->lite, i);
	}
	if (!pg_cell(st, i))
		return NULL;
	const char *v = PQgetvalue(st->res, st->row, i);
	Oid t = PQftype(st->res, i);
	return t == 700 || t == 701 ? real_text(st, i, strtod(v, NULL)) : v; /* float4, float8 */
}
