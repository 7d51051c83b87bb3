/* hiredisclient.c PORT - hiredis (Debian's libhiredis) on 127.0.0.1:PORT,
 * in the patterns a C service uses, and what it knows it did on stdout
 * (key=value) for tests/live/redis_live_test.py:
 *
 *   - single commands (redisCommand): one round trip each;
 *   - a pipeline (redisAppendCommand x N, then N redisGetReply): hiredis
 *     writes the whole buffer at the first redisGetReply, so N commands are
 *     one flight and one round trip;
 *   - a MULTI/EXEC transaction in one pipeline;
 *   - a value larger than a segment (SET of 200 KiB, GET of it back).
 *
 * Every reply is checked: a wrong one exits 1, so the counts printed are
 * what the server answered. */
#include <hiredis/hiredis.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static redisContext *c;
static unsigned commands, round_trips, pipelined, largest;

static void fail(const char *what)
{
	fprintf(stderr, "hiredisclient: %s: %s\n", what, c->err ? c->errstr : "unexpected reply");
	exit(1);
}

/* One command, one round trip; the reply must be of type want. */
static void single(int want, const char *fmt, const char *arg)
{
	redisReply *r = arg ? redisCommand(c, fmt, arg) : redisCommand(c, fmt);
	if (!r || r->type != want)
		fail(fmt);
	freeReplyObject(r);
	commands++;
	round_trips++;
}

/* n commands appended, then their replies: one flight. */
static void pipeline(unsigned n, const char *const *fmts, const int *want)
{
	for (unsigned i = 0; i < n; i++)
		if (redisAppendCommand(c, fmts[i]) != REDIS_OK)
			fail("append");
	for (unsigned i = 0; i < n; i++) {
		redisReply *r;
		if (redisGetReply(c, (void **)&r) != REDIS_OK || !r || r->type != want[i])
			fail(fmts[i]);
		freeReplyObject(r);
	}
	commands += n;
	round_trips++;
	pipelined += n > 1;
	largest = n > largest ? n : largest;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: hiredisclient PORT\n");
		return 64;
	}
	c = redisConnect("127.0.0.1", atoi(argv[1]));
	if (!c || c->err)
		fail("connect");
	largest = 1;
	single(REDIS_REPLY_STATUS, "PING", NULL);
	single(REDIS_REPLY_STATUS, "SET hk:%s 1", "a");
	single(REDIS_REPLY_STRING, "GET hk:%s", "a");

	const char *gets[25];
	int strings[25];
	for (unsigned i = 0; i < 25; i++) {
		gets[i] = "GET hk:a";
		strings[i] = REDIS_REPLY_STRING;
	}
	pipeline(25, gets, strings);

	const char *mixed[] = {"SET hk:b 2", "INCR hk:b", "INCR hk:b", "GET hk:b", "DEL hk:b",
			       "EXISTS hk:b"};
	const int mixed_want[] = {REDIS_REPLY_STATUS, REDIS_REPLY_INTEGER, REDIS_REPLY_INTEGER,
				  REDIS_REPLY_STRING, REDIS_REPLY_INTEGER, REDIS_REPLY_INTEGER};
	pipeline(6, mixed, mixed_want);

	const char *tx[] = {"MULTI", "INCR hk:c", "INCR hk:c", "EXEC"};
	const int tx_want[] = {REDIS_REPLY_STATUS, REDIS_REPLY_STATUS, REDIS_REPLY_STATUS,
			       REDIS_REPLY_ARRAY};
	pipeline(4, tx, tx_want);

	size_t big = 200 << 10;
	char *v = malloc(big + 1);
	if (!v)
		fail("malloc");
	memset(v, 'x', big);
	v[big] = '\0';
	single(REDIS_REPLY_STATUS, "SET hk:big %s", v);
	redisReply *r = redisCommand(c, "GET hk:big");
	if (!r || r->type != REDIS_REPLY_STRING || r->len != big)
		fail("GET hk:big");
	freeReplyObject(r);
	commands++;
	round_trips++;
	free(v);
	redisFree(c);
	printf("commands=%u round_trips=%u pipelined=%u largest=%u\n", commands, round_trips,
	       pipelined, largest);
	return 0;
}
