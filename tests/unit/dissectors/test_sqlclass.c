/* test_sqlclass.c - ping, reset and transaction strings that drivers and
 * pools send (docs/pools.md), and application queries that must not match. */
#include <string.h>

#include "sqlclass.h"
#include "tinytest.h"

static enum sql_kind k(const char *s)
{
	return sql_classify(s, strlen(s) + 1, true); /* with the wire's NUL */
}

static void test_pings(void)
{
	CHECK(k("") == SQL_EMPTY);
	CHECK(k("   \n\t") == SQL_EMPTY);
	CHECK(k(";") == SQL_EMPTY);
	CHECK(k("-- ping") == SQL_EMPTY);
	CHECK(k("/* SQLx ping */") == SQL_EMPTY);
	CHECK(k("/* nested /* comment */ still */ ;") == SQL_EMPTY);
	CHECK(k("SELECT 1") == SQL_SELECT1);
	CHECK(k("select 1;") == SQL_SELECT1);
	CHECK(k("  Select  1 ") == SQL_SELECT1);
	CHECK(k("SELECT $1") == SQL_SELECT1);
	CHECK(sql_is_select_param("SELECT $1", 9));
	CHECK(!sql_is_select_param("SELECT $1 + 1", 13));
	/* existence checks and other SELECTs are application queries */
	CHECK(k("SELECT 1 FROM t WHERE id = 3 LIMIT 1") == SQL_OTHER);
	CHECK(k("SELECT 10") == SQL_OTHER);
	CHECK(k("SELECT 1; SELECT 2") == SQL_OTHER);
	/* an unterminated comment is not an empty query we can vouch for */
	CHECK(k("/* open") == SQL_OTHER);
	/* found by fuzzing: an open dollar quote once looped forever */
	CHECK(k("SELECT$$1::int + 1") == SQL_OTHER);
	CHECK(k("SELECT 1 -- \n; $x") == SQL_OTHER);
}

static void test_resets(void)
{
	CHECK(k("DISCARD ALL") == SQL_RESET);
	CHECK(k("RESET ALL") == SQL_RESET);
	CHECK(k("DEALLOCATE ALL") == SQL_RESET);
	CHECK(k("deallocate prepare all") == SQL_RESET);
	CHECK(k("DEALLOCATE s1") == SQL_OTHER);
	CHECK(k("CLOSE CURSOR_1") == SQL_OTHER);
	CHECK(k("CLOSE ALL; SET SESSION AUTHORIZATION DEFAULT; RESET ALL; UNLISTEN *; "
		"SELECT pg_advisory_unlock_all(); DISCARD TEMP; DISCARD SEQUENCES;") == SQL_RESET);
	CHECK(k("SET SESSION AUTHORIZATION DEFAULT;RESET ALL;CLOSE ALL;UNLISTEN *;SELECT "
		"pg_advisory_unlock_all();DISCARD PLANS;DISCARD SEQUENCES;DISCARD TEMP;") == SQL_RESET);
	CHECK(k("RESET ROLE;RESET ALL;DEALLOCATE ALL;") == SQL_RESET);
	CHECK(k("ROLLBACK; DISCARD ALL") == SQL_RESET);
	CHECK(k("SELECT pg_advisory_unlock_all() FROM t") == SQL_OTHER);
	CHECK(k("SET search_path = x") == SQL_OTHER);
}

static void test_transactions(void)
{
	CHECK(k("BEGIN") == SQL_TX);
	CHECK(k("begin isolation level serializable") == SQL_TX);
	CHECK(k("START TRANSACTION READ ONLY") == SQL_TX);
	CHECK(k("COMMIT") == SQL_TX);
	CHECK(k("END;") == SQL_TX);
	CHECK(k("ROLLBACK TO SAVEPOINT _sqlx_savepoint_1") == SQL_TX);
	CHECK(k("SAVEPOINT a; RELEASE SAVEPOINT a") == SQL_TX);
	CHECK(k("PREPARE TRANSACTION 'x'") == SQL_TX);
	CHECK(k("BEGIN; UPDATE t SET a = 1; COMMIT") == SQL_OTHER);
}

static void test_quotes(void)
{
	/* separators inside quotes, dollar quotes and comments are not statements */
	CHECK(k("SELECT ';' ") == SQL_OTHER);
	CHECK(k("DISCARD ALL; -- ; SELECT 2") == SQL_RESET);
	CHECK(k("DO $$ BEGIN PERFORM 1; END $$") == SQL_OTHER);
	CHECK(k("SELECT $tag$ ; $tag$") == SQL_OTHER);
	CHECK(k("SELECT 'unterminated") == SQL_OTHER);
	/* a prefix of a longer string is never claimed to be a ping */
	CHECK(sql_classify("   ", 3, false) == SQL_OTHER);
}

#define FP(s) sql_fingerprint((s), sizeof(s) - 1)

static void test_fingerprint(void)
{
	/* one statement, however it was written or sent */
	CHECK(FP("SELECT * FROM a WHERE id = 7") == FP("select *\n from a  where id=$1"));
	CHECK(FP("SELECT * FROM a WHERE id = 7") == FP("SELECT * /* c */ FROM a -- x\n WHERE id = 'x''y'"));
	CHECK(FP("SELECT 1.5e-3, $$a;b$$, $t$x$t$") == FP("SELECT $1"));
	CHECK(FP("SELECT a FROM t WHERE id IN (1, 2, 3)") == FP("SELECT a FROM t WHERE id IN ($1)"));
	CHECK(FP("SELECT a FROM t WHERE id IN (1,2)") == FP("SELECT a FROM t WHERE id IN (7)"));
	/* different statements */
	CHECK(FP("SELECT a FROM t") != FP("SELECT b FROM t"));
	CHECK(FP("SELECT a FROM t") != FP("SELECT a FROM \"T\""));
	CHECK(FP("SELECT ab FROM t") != FP("SELECT a b FROM t"));
	CHECK(FP("SELECT f(1, x)") != FP("SELECT f(1)"));
	CHECK(FP("SELECT f(x, 1)") != FP("SELECT f(x)"));
	/* hostile: unterminated quotes and comments, NULs, high bytes: bounded */
	CHECK(FP("SELECT 'abc") != 0);
	CHECK(FP("SELECT \"abc") != 0 && FP("/* x") != 0 && FP("$tag$ no end") != 0);
	CHECK(sql_fingerprint("SELECT a\0junk", 13) == FP("SELECT a"));
	CHECK(FP("") != 0 && FP("\xff\xfe") != 0);
}

/* PgBouncer's own SETs on a server connection (its varcache.c), and what
 * people and drivers write instead */
#define PS(s) sql_is_pooler_set(s, sizeof(s))
static void test_pooler_set(void)
{
	CHECK(PS("SET application_name='pgbench';"));
	CHECK(PS("SET client_encoding='UTF8';SET application_name='psql';"));
	CHECK(PS("SET DateStyle='ISO, MDY';SET TimeZone='Europe/Madrid';"));
	CHECK(PS("SET application_name='it''s';"));
	CHECK(PS("SET application_name=E'a\\\\b';"));
	CHECK(PS("SET application_name='';"));
	CHECK(PS("SET search_path=\"$user\", public;"));
	CHECK(PS("SET search_path=public;"));
	/* as people write it */
	CHECK(!PS("SET application_name = 'x';"));
	CHECK(!PS("SET application_name='x'"));
	CHECK(!PS("set application_name='x';"));
	CHECK(!PS("SET TIME ZONE 'UTC';"));
	CHECK(!PS("SET application_name TO 'x';"));
	CHECK(!PS("SET application_name='x'; SELECT 1;"));
	CHECK(!PS("SET application_name='x';SELECT 1;"));
	CHECK(!PS("SET extra_float_digits = 3"));
	CHECK(!PS(""));
	/* hostile: bounded, never past n */
	CHECK(!PS("SET a='open;"));
	CHECK(!PS("SET a=\"open;"));
	CHECK(!PS("SET =1;"));
	CHECK(!sql_is_pooler_set("SET a='x';", 9));
	CHECK(sql_is_pooler_set("SET a='x';\0SET b", 16));
}

int main(void)
{
	RUN(test_pooler_set);
	RUN(test_fingerprint);
	RUN(test_pings);
	RUN(test_resets);
	RUN(test_transactions);
	RUN(test_quotes);
	return TT_EXIT();
}
