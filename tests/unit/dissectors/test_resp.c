/* test_resp.c - the RESP framer (dissectors/resp.c): every value type of
 * RESP2 and RESP3, commands and inline commands, what is kept and what is
 * never, limits, garbage, gaps, mid-stream pickup and TLS - each fed whole,
 * split at every position and byte by byte, with the same messages. */
#include "resp.h"
#include "tinytest.h"

#include <stdlib.h>
#include <string.h>

#define MAXMSG 64

struct got {
	int n;
	struct resp_msg m[MAXMSG];
};

static void on_msg(void *ctx, const struct resp_msg *m)
{
	struct got *g = ctx;
	if (g->n < MAXMSG)
		g->m[g->n] = *m;
	g->n++;
}

/* Feeds s[0..n) to one side in pieces of at most `piece` bytes (0: whole),
 * or split once at `split` when piece is -1. */
static void feed(struct resp_conn *c, enum resp_side side, const char *s, size_t n, long piece,
		 size_t split, struct got *g)
{
	if (piece == -1) {
		resp_feed(c, side, (const uint8_t *)s, split, 1, on_msg, g);
		resp_feed(c, side, (const uint8_t *)s + split, n - split, 2, on_msg, g);
		return;
	}
	size_t step = piece > 0 ? (size_t)piece : (n ? n : 1);
	for (size_t i = 0; i < n; i += step)
		resp_feed(c, side, (const uint8_t *)s + i, n - i < step ? n - i : step, i, on_msg, g);
}

static bool same_msg(const struct resp_msg *a, const struct resp_msg *b)
{
	return a->type == b->type && a->push == b->push && a->error == b->error &&
	       a->null == b->null && a->attr == b->attr && a->argc == b->argc &&
	       a->bytes == b->bytes && !strcmp(a->name, b->name) && !strcmp(a->arg[0], b->arg[0]) &&
	       !strcmp(a->arg[1], b->arg[1]) && a->name_cut == b->name_cut;
}

/* The messages of s on a connection from its start, the same however s is
 * split; into *whole.  Returns the malformed count. */
static uint64_t parse(enum resp_side side, const char *s, size_t n, struct got *whole)
{
	struct resp_conn c;
	memset(whole, 0, sizeof *whole);
	resp_conn_init(&c, true);
	feed(&c, side, s, n, 0, 0, whole);
	uint64_t bad = c.dir[side].malformed;
	for (size_t split = 0; split <= n; split++) {
		struct got g = {0};
		resp_conn_init(&c, true);
		feed(&c, side, s, n, -1, split, &g);
		bool same = g.n == whole->n && c.dir[side].malformed == bad;
		for (int i = 0; same && i < g.n && i < MAXMSG; i++)
			same = same_msg(&g.m[i], &whole->m[i]);
		if (!same) {
			fprintf(stderr, "split at %zu of %zu differs\n", split, n);
			CHECK(same);
			break;
		}
	}
	struct got g = {0};
	resp_conn_init(&c, true);
	feed(&c, side, s, n, 1, 0, &g);
	bool same = g.n == whole->n;
	for (int i = 0; same && i < g.n && i < MAXMSG; i++)
		same = same_msg(&g.m[i], &whole->m[i]);
	CHECK(same); /* byte by byte */
	/* whole, by the incremental machine alone: the whole-value path agrees */
	memset(&g, 0, sizeof g);
	resp_conn_init(&c, true);
	c.slow = true;
	feed(&c, side, s, n, 0, 0, &g);
	same = g.n == whole->n && c.dir[side].malformed == bad;
	for (int i = 0; same && i < g.n && i < MAXMSG; i++)
		same = same_msg(&g.m[i], &whole->m[i]) && g.m[i].ts_first == whole->m[i].ts_first &&
		       g.m[i].ts_last == whole->m[i].ts_last;
	CHECK(same);
	return bad;
}

#define PARSE(side, lit, g) parse((side), (lit), sizeof(lit) - 1, (g))

static void test_commands(void)
{
	struct got g;
	CHECK_EQ_U(PARSE(RESP_CLIENT, "*3\r\n$3\r\nset\r\n$3\r\nkey\r\n$5\r\nvalue\r\n", &g), 0);
	CHECK_EQ_U(g.n, 1);
	CHECK(g.m[0].type == '*' && g.m[0].argc == 3 && !strcmp(g.m[0].name, "SET"));
	CHECK(g.m[0].arg[0][0] == '\0' && g.m[0].arg[1][0] == '\0'); /* keys and values: never */
	CHECK_EQ_U(g.m[0].bytes, 33);
	/* a pipeline: three commands in one flight */
	CHECK_EQ_U(PARSE(RESP_CLIENT, "*2\r\n$3\r\nGET\r\n$1\r\na\r\n*2\r\n$3\r\nGET\r\n$1\r\nb\r\n"
				      "*1\r\n$4\r\nPING\r\n",
			 &g),
		   0);
	CHECK_EQ_U(g.n, 3);
	CHECK(!strcmp(g.m[1].name, "GET") && !strcmp(g.m[2].name, "PING") && g.m[2].argc == 1);
	/* the arguments that change how the connection talks */
	PARSE(RESP_CLIENT, "*3\r\n$6\r\nCLIENT\r\n$5\r\nreply\r\n$3\r\noff\r\n", &g);
	CHECK(g.n == 1 && !strcmp(g.m[0].arg[0], "REPLY") && !strcmp(g.m[0].arg[1], "OFF"));
	PARSE(RESP_CLIENT, "*2\r\n$6\r\nSELECT\r\n$1\r\n2\r\n", &g);
	CHECK(g.n == 1 && !strcmp(g.m[0].arg[0], "2"));
	/* a name longer than kept */
	PARSE(RESP_CLIENT, "*1\r\n$40\r\nabcdefghijabcdefghijabcdefghijabcdefghij\r\n", &g);
	CHECK(g.n == 1 && g.m[0].name_cut && strlen(g.m[0].name) == RESP_NAME_MAX);
	/* an empty command array is a value, not a command Redis runs */
	PARSE(RESP_CLIENT, "*0\r\n", &g);
	CHECK(g.n == 1 && g.m[0].argc == 0 && g.m[0].name[0] == '\0');
}

/* Passwords are never kept: AUTH's arguments, HELLO's past its AUTH. */
static void test_secrets(void)
{
	static const char auth[] = "*3\r\n$4\r\nAUTH\r\n$5\r\nalice\r\n$9\r\nhunter2!x\r\n"
				   "*6\r\n$5\r\nHELLO\r\n$1\r\n3\r\n$4\r\nAUTH\r\n$5\r\nalice\r\n"
				   "$9\r\nhunter2!x\r\n$7\r\nSETNAME\r\n"
				   "AUTH hunter2!x\r\n";
	struct got g;
	/* the last line ends the HELLO's array too early: 6 elements, 5 given */
	struct resp_conn c;
	memset(&g, 0, sizeof g);
	resp_conn_init(&c, true);
	feed(&c, RESP_CLIENT, auth, sizeof auth - 1, 7, 0, &g);
	CHECK(g.n >= 1 && !strcmp(g.m[0].name, "AUTH") && g.m[0].arg[0][0] == '\0');
	for (int i = 0; i < g.n && i < MAXMSG; i++) {
		const char *p = (const char *)&g.m[i];
		for (size_t k = 0; k + 7 <= sizeof g.m[i]; k++)
			CHECK(memcmp(p + k, "hunter2", 7) != 0);
	}
	PARSE(RESP_CLIENT, "*5\r\n$5\r\nhello\r\n$1\r\n3\r\n$4\r\nauth\r\n$1\r\nu\r\n$6\r\nsecret\r\n",
	      &g);
	CHECK(g.n == 1 && !strcmp(g.m[0].name, "HELLO") && !strcmp(g.m[0].arg[0], "3") &&
	      !strcmp(g.m[0].arg[1], "AUTH"));
	PARSE(RESP_CLIENT, "auth s3cret\r\n", &g);
	CHECK(g.n == 1 && !strcmp(g.m[0].name, "AUTH") && g.m[0].arg[0][0] == '\0');
	CHECK(strstr(g.m[0].name, "S3CRET") == NULL);
}

static void test_inline(void)
{
	struct got g;
	CHECK_EQ_U(PARSE(RESP_CLIENT, "PING\r\nset a  b\n\r\n\nclient reply skip\r\n", &g), 0);
	CHECK_EQ_U(g.n, 3); /* empty lines are skipped, as Redis does */
	CHECK(g.m[0].type == RESP_INLINE && !strcmp(g.m[0].name, "PING") && g.m[0].argc == 1);
	CHECK(!strcmp(g.m[1].name, "SET") && g.m[1].argc == 3 && g.m[1].arg[0][0] == '\0');
	CHECK(!strcmp(g.m[2].arg[0], "REPLY") && !strcmp(g.m[2].arg[1], "SKIP"));
	/* past Redis's 64 KiB an inline command is refused */
	size_t n = RESP_INLINE_MAX + 10;
	char *big = malloc(n + 16);
	memset(big, 'a', n);
	memcpy(big + n, "\r\nPING\r\n", 8);
	struct resp_conn c;
	memset(&g, 0, sizeof g);
	resp_conn_init(&c, true);
	feed(&c, RESP_CLIENT, big, n + 8, 4096, 0, &g);
	CHECK_EQ_U(c.dir[0].malformed, 1);
	CHECK(g.n == 1 && !strcmp(g.m[0].name, "PING")); /* found again after the line */
	free(big);
}

static void test_replies(void)
{
	struct got g;
	static const char r[] =
		"+OK\r\n-ERR unknown command\r\n:1000\r\n:-5\r\n$5\r\nhello\r\n$0\r\n\r\n$-1\r\n"
		"*-1\r\n*2\r\n$1\r\na\r\n:1\r\n*2\r\n*1\r\n+a\r\n%1\r\n+k\r\n:1\r\n"
		"_\r\n,3.14\r\n,inf\r\n#t\r\n(3492890328409238509324850943850943825024385\r\n"
		"!21\r\nSYNTAX invalid syntax\r\n=15\r\ntxt:Some string\r\n~2\r\n+a\r\n+b\r\n"
		"%2\r\n+first\r\n:1\r\n+second\r\n:2\r\n"
		">3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$2\r\nhi\r\n"
		"*3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n";
	CHECK_EQ_U(PARSE(RESP_SERVER, r, &g), 0);
	CHECK_EQ_U(g.n, 21);
	/* an array whose first string is long and starts with a NUL: data, its
	 * name and its cut mark dropped, by either path (a fuzzer's find) */
	static const char nul[] = "*2\r\n$40\r\n\0abcdefghijklmnopqrstuvwxyz0123456789abc\r\n:1\r\n";
	struct got h;
	CHECK_EQ_U(PARSE(RESP_SERVER, nul, &h), 0);
	CHECK(h.n == 1 && h.m[0].name[0] == '\0' && !h.m[0].name_cut);
	CHECK(g.m[0].type == '+' && !g.m[0].error);
	CHECK(g.m[1].type == '-' && g.m[1].error);
	CHECK(g.m[4].type == '$' && g.m[4].bytes == 11 && !g.m[4].null);
	CHECK(g.m[6].null && g.m[7].null); /* $-1, *-1 */
	CHECK(g.m[8].type == '*' && g.m[8].argc == 2);
	CHECK(g.m[9].type == '*' && g.m[9].argc == 2); /* nested */
	CHECK(g.m[10].type == '_' && g.m[10].null);
	CHECK(g.m[15].type == '!' && g.m[15].error);
	CHECK(g.m[16].type == '=');
	CHECK(g.m[17].type == '~' && g.m[17].argc == 2);
	CHECK(g.m[18].type == '%' && g.m[18].argc == 2);
	CHECK(g.m[19].type == '>' && g.m[19].push && !strcmp(g.m[19].name, "MESSAGE"));
	CHECK(g.m[20].type == '*' && !g.m[20].push && !strcmp(g.m[20].name, "SUBSCRIBE"));
}

/* RESP3's attribute belongs to the reply after it; streamed strings and
 * aggregates end at their terminators. */
static void test_resp3_special(void)
{
	struct got g;
	CHECK_EQ_U(PARSE(RESP_SERVER,
			 "|1\r\n+key-popularity\r\n%2\r\n$1\r\na\r\n,0.19\r\n$1\r\nb\r\n,0.05\r\n"
			 "*2\r\n:2039123\r\n:9543892\r\n"
			 "*2\r\n|1\r\n+ttl\r\n:3600\r\n+x\r\n+y\r\n",
			 &g),
		   0);
	CHECK_EQ_U(g.n, 2);
	CHECK(g.m[0].type == '*' && g.m[0].attr && g.m[0].argc == 2 && g.m[0].bytes == 77);
	CHECK(g.m[1].type == '*' && !g.m[1].attr && g.m[1].argc == 2); /* attribute inside */
	CHECK_EQ_U(PARSE(RESP_SERVER,
			 "$?\r\n;4\r\nHell\r\n;5\r\no wor\r\n;0\r\n*?\r\n:1\r\n*?\r\n.\r\n:2\r\n.\r\n+OK\r\n",
			 &g),
		   0);
	CHECK_EQ_U(g.n, 3);
	CHECK(g.m[0].type == '$' && g.m[0].bytes == 29);
	CHECK(g.m[1].type == '*' && g.m[1].bytes == 22);
	CHECK(g.m[2].type == '+');
}

/* Redis's limits, and what is not RESP: malformed, found again after. */
static void test_limits_and_garbage(void)
{
	struct got g;
	CHECK_EQ_U(PARSE(RESP_CLIENT, "*2000000\r\n*1\r\n$4\r\nPING\r\n", &g), 1);
	CHECK(g.n == 1 && !strcmp(g.m[0].name, "PING"));
	CHECK_EQ_U(PARSE(RESP_SERVER, "$600000000\r\n+OK\r\n", &g), 1);
	CHECK_EQ_U(g.n, 1);
	CHECK_EQ_U(PARSE(RESP_SERVER, "garbage\r\n+OK\r\n", &g), 1);
	CHECK(g.n == 1 && g.m[0].type == '+');
	CHECK_EQ_U(PARSE(RESP_SERVER, "+bare LF\n+OK\r\n", &g), 1);
	CHECK_EQ_U(g.n, 1);
	CHECK_EQ_U(PARSE(RESP_SERVER, "$3\r\nabcd\r\n+OK\r\n", &g), 1); /* no CRLF after the body */
	CHECK_EQ_U(g.n, 1);
	/* the first bad line is malformed; the lines after it are searched */
	CHECK_EQ_U(PARSE(RESP_SERVER, "#x\r\n_1\r\n:12a\r\n+OK\r\n", &g), 1);
	CHECK_EQ_U(g.n, 1);
	CHECK_EQ_U(PARSE(RESP_CLIENT, "*1\r\n:1\r\n*1\r\n$4\r\nPING\r\n", &g), 1); /* not a bulk */
	CHECK_EQ_U(g.n, 1);
	/* nesting deeper than followed */
	char deep[8 * (RESP_DEPTH_MAX + 2) + 16];
	size_t n = 0;
	for (int i = 0; i < RESP_DEPTH_MAX + 1; i++)
		n += (size_t)snprintf(deep + n, sizeof deep - n, "*1\r\n");
	n += (size_t)snprintf(deep + n, sizeof deep - n, ":1\r\n+OK\r\n");
	struct resp_conn c;
	memset(&g, 0, sizeof g);
	resp_conn_init(&c, true);
	feed(&c, RESP_SERVER, deep, n, 0, 0, &g);
	CHECK_EQ_U(c.dir[1].malformed, 1);
}

/* A large value across many pieces costs no memory and keeps its count. */
static void test_large_bulk(void)
{
	size_t body = 3u << 20, n = body + 32;
	char *s = malloc(n);
	size_t h = (size_t)snprintf(s, n, "$%zu\r\n", body);
	memset(s + h, 'x', body);
	memcpy(s + h + body, "\r\n+OK\r\n", 7);
	struct resp_conn c;
	struct got g = {0};
	resp_conn_init(&c, true);
	feed(&c, RESP_SERVER, s, h + body + 7, 1448, 0, &g);
	CHECK_EQ_U(g.n, 2);
	CHECK_EQ_U(g.m[0].bytes, h + body + 2);
	free(s);
}

static void test_gaps(void)
{
	struct resp_conn c;
	struct got g = {0};
	resp_conn_init(&c, true);
	feed(&c, RESP_SERVER, "$10\r\nab", 7, 0, 0, &g);
	resp_gap(&c, RESP_SERVER, 5, on_msg, &g); /* inside the body: still in step */
	feed(&c, RESP_SERVER, "xyz\r\n+OK\r\n", 10, 0, 0, &g);
	CHECK_EQ_U(g.n, 2);
	CHECK(g.m[0].gap && g.m[0].bytes == 17 && !g.m[1].gap);
	CHECK_EQ_U(c.dir[1].gap_bytes, 5);
	/* in a header line: lost, found again at the next piece */
	memset(&g, 0, sizeof g);
	resp_conn_init(&c, true);
	feed(&c, RESP_SERVER, "*2\r\n$1", 6, 0, 0, &g);
	resp_gap(&c, RESP_SERVER, 9, on_msg, &g);
	feed(&c, RESP_SERVER, "+OK\r\n:1\r\n", 9, 0, 0, &g);
	CHECK_EQ_U(g.n, 2);
	CHECK_EQ_U(c.dir[1].malformed, 0);
	CHECK_EQ_U(c.dir[1].resyncs, 1);
	/* a client's command cut short (a small snaplen: the rest of its
	 * segment never captured): it was sent - emitted, marked gap, its name
	 * only if read whole */
	memset(&g, 0, sizeof g);
	resp_conn_init(&c, true);
	feed(&c, RESP_CLIENT, "*2\r\n$3\r\nGET\r\n$16\r\nke", 19, 0, 0, &g);
	resp_gap(&c, RESP_CLIENT, 16, on_msg, &g);
	feed(&c, RESP_CLIENT, "*2\r\n$3\r\nSET\r\n$1", 16, 0, 0, &g);
	resp_gap(&c, RESP_CLIENT, 40, on_msg, &g);
	feed(&c, RESP_CLIENT, "*1\r\n$4\r\nPI", 11, 0, 0, &g);
	resp_gap(&c, RESP_CLIENT, 4, on_msg, &g);
	feed(&c, RESP_CLIENT, "*1\r\n$4\r\nPING\r\n", 14, 0, 0, &g);
	CHECK_EQ_U(g.n, 4);
	CHECK(g.m[0].gap && !strcmp(g.m[0].name, "GET") && g.m[0].argc == 2 && g.m[0].bytes == 35);
	CHECK(g.m[1].gap && !strcmp(g.m[1].name, "SET"));
	CHECK(g.m[2].gap && g.m[2].name[0] == '\0' && g.m[2].argc == 1); /* "PI": not a name */
	CHECK(!g.m[3].gap && !strcmp(g.m[3].name, "PING"));
	CHECK_EQ_U(c.dir[0].malformed, 0);
	/* a gap before any of a command: nothing to emit */
	memset(&g, 0, sizeof g);
	resp_conn_init(&c, true);
	resp_gap(&c, RESP_CLIENT, 10, on_msg, &g);
	CHECK_EQ_U(g.n, 0);
}

/* Picked up mid-stream: boundaries searched for, at a piece's start or a
 * line's; TLS recognised from its records. */
static void test_mid_stream_and_tls(void)
{
	struct resp_conn c;
	struct got g = {0};
	resp_conn_init(&c, false);
	feed(&c, RESP_CLIENT, "y\r\n$5\r\nvalue\r\n*1\r\n$4\r\nPING\r\n", 29, 0, 0, &g);
	CHECK(g.n == 1 && !strcmp(g.m[0].name, "PING"));
	CHECK(c.mid_stream && c.dir[0].skipped_bytes == 14 && c.dir[0].resyncs == 1);
	memset(&g, 0, sizeof g);
	resp_conn_init(&c, true);
	static const uint8_t hello[] = {0x16, 0x03, 0x01, 0x00, 0x05, 1, 2, 3, 4, 5};
	resp_feed(&c, RESP_CLIENT, hello, sizeof hello, 1, on_msg, &g);
	resp_feed(&c, RESP_SERVER, (const uint8_t *)"+OK\r\n", 5, 2, on_msg, &g);
	CHECK(c.tls && g.n == 0 && c.dir[0].tls_bytes == sizeof hello && c.dir[1].tls_bytes == 5);
	memset(&g, 0, sizeof g);
	resp_conn_init(&c, false);
	static const uint8_t rec[] = {0x17, 0x03, 0x03, 0x00, 0x04, 9, 9, 9, 9};
	resp_feed(&c, RESP_SERVER, rec, sizeof rec, 1, on_msg, &g);
	CHECK(c.tls && g.n == 0);
}

int main(void)
{
	RUN(test_commands);
	RUN(test_secrets);
	RUN(test_inline);
	RUN(test_replies);
	RUN(test_resp3_special);
	RUN(test_limits_and_garbage);
	RUN(test_large_bulk);
	RUN(test_gaps);
	RUN(test_mid_stream_and_tls);
	return TT_EXIT();
}
