/* test_sqlnorm.c - statements as pgrtt trace and dump --round-trips show
 * them: pg_stat_statements' constants-to-$n, on what drivers send. */
#include <string.h>

#include "sqlnorm.h"
#include "tinytest.h"

static char buf[256];

static const char *norm(const char *s)
{
	sql_normalize(s, strlen(s) + 1, true, buf, sizeof buf); /* with the wire's NUL */
	return buf;
}

#define IS(in, want) CHECK_STR(norm(in), want)

static void test_constants(void)
{
	IS("SELECT * FROM articles WHERE id = 42", "SELECT * FROM articles WHERE id = $1");
	IS("select name from t where a = 'x' and b = 3.5e-2", "select name from t where a = $1 and b = $2");
	IS("SELECT 'it''s', E'a\\'b', B'101', X'ff', N'n', U&'d\\0061'", "SELECT $1, $2, $3, $4, $5, $6");
	IS("SELECT $tag$ any 'thing' $tag$, $$x$$", "SELECT $1, $2");
	IS("SELECT * FROM t WHERE id IN (1, 2, 3)", "SELECT * FROM t WHERE id IN ($1, $2, $3)");
	/* after the parameters the text already has, as pg_stat_statements numbers them */
	IS("UPDATE t SET a = $1 WHERE b = $2 AND c = 7", "UPDATE t SET a = $1 WHERE b = $2 AND c = $3");
	IS("SELECT $10 + 1", "SELECT $10 + $11");
	/* a sign before a number is the constant's; a minus between operands is not */
	IS("SELECT x FROM t WHERE a = -5 AND b = c-1 AND d = (-2)",
	   "SELECT x FROM t WHERE a = $1 AND b = c-$2 AND d = ($3)");
	/* identifiers with digits, quoted identifiers, casts and keywords stay */
	IS("SELECT t1.a2, \"Col 1\" FROM t1 WHERE x::int4 = 0 AND y IS NULL AND z = true",
	   "SELECT t1.a2, \"Col 1\" FROM t1 WHERE x::int4 = $1 AND y IS NULL AND z = true");
	IS("BEGIN", "BEGIN");
	IS("ROLLBACK", "ROLLBACK");
	IS("", "");
}

static void test_layout(void)
{
	/* one line: white space collapsed, comments (trace ids, user names) dropped */
	IS("SELECT a,\n\tb\r\n  FROM t -- user alice\nWHERE /* trace=abc /* nested */ */ id = 1",
	   "SELECT a, b FROM t WHERE id = $1");
	IS("/* SQLx ping */", "");
	IS("  ;  ", ";");
	/* a text the capture cut: what was seen, then an ellipsis */
	sql_normalize("SELECT * FROM t WHERE name = 'ali", 33, false, buf, sizeof buf);
	CHECK_STR(buf, "SELECT * FROM t WHERE name = $1\xe2\x80\xa6");
	/* a full buffer: cut at a character boundary, with an ellipsis */
	char small[20];
	size_t n = sql_normalize("SELECT caf\xc3\xa9\xc3\xa9\xc3\xa9 FROM t", 23, true, small, sizeof small);
	CHECK(n == strlen(small));
	CHECK(n <= sizeof small - 1);
	CHECK(memcmp(small + n - 3, "\xe2\x80\xa6", 3) == 0);
	CHECK(((unsigned char)small[n - 4] & 0xc0) != 0xc0); /* no lead byte left without its tail */
	/* below the contract: nothing written past the buffer */
	char tiny[4] = "abc";
	CHECK(sql_normalize("SELECT 1", 8, true, tiny, sizeof tiny) == 0 && tiny[0] == '\0');
}

static void test_hostile(void)
{
	/* unterminated quotes, comments, dollar quotes: never past the text */
	IS("SELECT 'open", "SELECT $1");
	IS("SELECT \"open", "SELECT \"open");
	IS("SELECT /* open", "SELECT");
	IS("SELECT $a$ open", "SELECT $1");
	IS("SELECT $", "SELECT $");
	IS("x\x1b[31m = 1", "x\x1b[$1m = $2"); /* bytes kept: the caller escapes for its output */
}

int main(void)
{
	RUN(test_constants);
	RUN(test_layout);
	RUN(test_hostile);
	return TT_EXIT();
}
