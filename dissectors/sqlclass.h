/* sqlclass.h - what a simple-query string is for, from its statements'
 * leading keywords.  Pure lexing over caller-owned bytes; no parsing of SQL
 * beyond quotes, comments and statement separators. */
#ifndef PGRTT_SQLCLASS_H
#define PGRTT_SQLCLASS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum sql_kind {
	SQL_EMPTY,   /* only whitespace, comments and ';' */
	SQL_SELECT1, /* exactly "SELECT 1" (or "SELECT $1"), a probable ping */
	SQL_TX,      /* BEGIN, COMMIT, ROLLBACK, SAVEPOINT ... only */
	SQL_RESET,   /* DISCARD, RESET, DEALLOCATE ALL ... (tx control may be mixed in) */
	SQL_OTHER,   /* anything else: an application query */
};

/* Classify text[0..n).  complete is false when text is only a prefix of the
 * real string (then nothing short of SQL_OTHER is claimed for the unseen
 * rest, except that an unterminated prefix is never EMPTY). */
enum sql_kind sql_classify(const char *text, size_t n, bool complete);

/* True if text is exactly "SELECT $1" (a parameterised ping statement). */
bool sql_is_select_param(const char *text, size_t n);

/* True if text is exactly what PgBouncer sends a server connection of its
 * own before it hands it to a client whose settings differ: one or more
 * "SET name=value;" with nothing between them, no space around '=', each
 * value a quoted literal ('..', E'..') or a list of identifiers (a
 * GUC_LIST_QUOTE setting's, as the server reported it).  People and
 * drivers write "SET application_name = 'x'" or "SET TIME ZONE ..."; an
 * application sending this exact shape is not impossible, so callers take
 * it as one sign among others (pgrtt's pooler-server-leg finding). */
bool sql_is_pooler_set(const char *text, size_t n);

/* A statement's identity, as pg_stat_statements' normalisation has it:
 * literals and parameters are one '?', a list of them ("IN (1, 2, 3)") one,
 * keywords and identifiers case-folded (quoted ones as written), whitespace
 * and comments dropped.  So "SELECT * FROM a WHERE id = 7" and the
 * prepared "select * from a where id=$1" are the same statement.  Reads
 * text[0..n) up to a NUL; never 0. */
uint64_t sql_fingerprint(const char *text, size_t n);

#endif
