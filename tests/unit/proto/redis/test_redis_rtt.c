/* test_redis_rtt.c - Redis round trips on byte streams whose flights are
 * known: single commands, pipelines, the commands that change the reply
 * stream (CLIENT REPLY, SUBSCRIBE in RESP2 and RESP3, MULTI, MONITOR,
 * RESET), replies nothing awaited, and the gaps that deliver a reply
 * before its command.  The bytes go through the RESP framer (resp.c) as
 * they would from a capture. */
#include <string.h>

#include "proto/redis/redis_rtt.h"
#include "tinytest.h"

static struct resp_conn rc;
static struct redis_rtt r;
static struct hist lat;
static uint64_t now;
static struct redis_rt rts[64];
static int nrt;

static void on_rt(void *ctx, const struct redis_rt *rt)
{
	(void)ctx;
	if (nrt < 64)
		rts[nrt] = *rt;
	nrt++;
}

static void on_msg(void *ctx, const struct resp_msg *m)
{
	(void)ctx;
	redis_rtt_msg(&r, m);
}

static void start(bool from_start)
{
	resp_conn_init(&rc, from_start);
	hist_init(&lat);
	redis_rtt_init(&r, &lat, NULL, on_rt, NULL);
	nrt = 0;
	now = 1000000;
}

static void feed(enum resp_side side, const char *s)
{
	resp_feed(&rc, side, (const uint8_t *)s, strlen(s), now, on_msg, NULL);
	now += 10000;
}

#define CL(s) feed(RESP_CLIENT, (s))
#define SV(s) feed(RESP_SERVER, (s))
#define GET "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n"
#define SET "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n"

static void test_one_command_one_round_trip(void)
{
	start(true);
	CL("*2\r\n$5\r\nHELLO\r\n$1\r\n3\r\n");
	SV("%1\r\n$6\r\nserver\r\n$5\r\nredis\r\n");
	CL(GET);
	SV("$1\r\nv\r\n");
	CL("PING\r\n"); /* inline */
	SV("+PONG\r\n");
	CL(SET);
	SV("-ERR wrong\r\n");
	redis_rtt_finish(&r);
	CHECK_EQ_U(nrt, 4);
	CHECK_EQ_U(rts[0].cls, RT_STARTUP);
	CHECK_EQ_U(rts[1].cls, RT_QUERY);
	CHECK(strcmp(rts[1].first, "GET") == 0);
	CHECK_EQ_U(rts[2].cls, RT_PING);
	CHECK_EQ_U(rts[3].errors, 1);
	CHECK_EQ_U(r.st.commands, 4);
	CHECK_EQ_U(r.st.replies, 4);
	CHECK_EQ_U(r.st.errors, 1);
	CHECK_EQ_U(r.st.round_trips, 4);
	CHECK_EQ_U(lat.count, 4);
	CHECK_EQ_U(rts[1].t_end - rts[1].t_start, 10000);
}

/* redis-benchmark -P 3: three commands, then three replies, twice; the
 * replies split across pieces anywhere */
static void test_pipeline(void)
{
	start(true);
	for (int round = 0; round < 2; round++) {
		CL(GET GET GET);
		SV("$1\r\nv\r\n$-1\r");
		SV("\n:1\r\n");
	}
	CL(GET SET);
	SV("$1\r\nv\r\n");
	CL(GET); /* sent before the flight was answered: the same flight */
	SV("+OK\r\n$1\r\nv\r\n");
	redis_rtt_finish(&r);
	CHECK_EQ_U(nrt, 3);
	CHECK_EQ_U(rts[0].commands, 3);
	CHECK_EQ_U(rts[1].commands, 3);
	CHECK_EQ_U(rts[2].commands, 3);
	CHECK_EQ_U(r.st.pipelined, 3);
	CHECK_EQ_U(r.st.max_pipeline, 3);
	CHECK_EQ_U(r.st.commands, 9);
}

/* CLIENT REPLY OFF: commands without a reply are no round trip; ON gets
 * its +OK.  SKIP: neither it nor the next command is answered. */
static void test_client_reply(void)
{
	start(true);
	CL("*3\r\n$6\r\nCLIENT\r\n$5\r\nREPLY\r\n$3\r\nOFF\r\n");
	CL(SET SET);
	CL("*3\r\n$6\r\nCLIENT\r\n$5\r\nREPLY\r\n$2\r\nON\r\n");
	SV("+OK\r\n");
	CL("*3\r\n$6\r\nclient\r\n$5\r\nreply\r\n$4\r\nskip\r\n");
	CL(SET);
	CL(GET);
	SV("$1\r\nv\r\n");
	redis_rtt_finish(&r);
	CHECK_EQ_U(nrt, 2);
	CHECK_EQ_U(r.st.no_reply, 5);
	CHECK_EQ_U(r.st.commands, 7);
	CHECK_EQ_U(r.st.unanswered, 0);
	CHECK_EQ_U(rts[1].commands, 1);
	CHECK(strcmp(rts[1].first, "GET") == 0);
}

/* RESP2 pub/sub: a confirmation per channel answers SUBSCRIBE; messages
 * answer nothing; PING's reply on a subscribed connection is an array. */
static void test_pubsub_resp2(void)
{
	start(true);
	CL("*3\r\n$9\r\nSUBSCRIBE\r\n$1\r\na\r\n$1\r\nb\r\n");
	SV("*3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n");
	SV("*3\r\n$9\r\nsubscribe\r\n$1\r\nb\r\n:2\r\n");
	SV("*3\r\n$7\r\nmessage\r\n$1\r\na\r\n$5\r\nhello\r\n");
	SV("*3\r\n$7\r\nmessage\r\n$1\r\nb\r\n$5\r\nhello\r\n");
	CL("*1\r\n$4\r\nPING\r\n");
	SV("*2\r\n$4\r\npong\r\n$0\r\n\r\n");
	CL("*1\r\n$11\r\nUNSUBSCRIBE\r\n"); /* all: two confirmations */
	SV("*3\r\n$11\r\nunsubscribe\r\n$1\r\na\r\n:1\r\n");
	SV("*3\r\n$11\r\nunsubscribe\r\n$1\r\nb\r\n:0\r\n");
	redis_rtt_finish(&r);
	CHECK_EQ_U(nrt, 3);
	CHECK_EQ_U(rts[0].replies, 2);
	CHECK_EQ_U(rts[1].cls, RT_PING);
	CHECK_EQ_U(r.st.pushes, 3); /* two messages, the second unsubscription */
	CHECK_EQ_U(r.st.by_class[RT_UNKNOWN], 0);
	/* subscribed before the capture: its messages answer nothing either */
	start(false);
	SV("*3\r\n$7\r\nmessage\r\n$1\r\na\r\n$5\r\nhello\r\n");
	SV("*3\r\n$7\r\nmessage\r\n$1\r\na\r\n$5\r\nhello\r\n");
	redis_rtt_finish(&r);
	CHECK_EQ_U(r.st.pushes, 2);
	CHECK_EQ_U(r.st.round_trips, 0);
}

/* RESP3: confirmations and messages are pushes; an invalidation push in
 * the middle of a flight is not its reply. */
static void test_pushes_resp3(void)
{
	start(true);
	CL("*2\r\n$9\r\nSUBSCRIBE\r\n$1\r\na\r\n");
	SV(">3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n");
	SV(">3\r\n$7\r\nmessage\r\n$1\r\na\r\n$2\r\nhi\r\n");
	start(true);
	CL(GET);
	SV(">2\r\n$10\r\ninvalidate\r\n*1\r\n$1\r\nk\r\n");
	SV("$1\r\nv\r\n");
	redis_rtt_finish(&r);
	CHECK_EQ_U(nrt, 1);
	CHECK_EQ_U(rts[0].replies, 1);
	CHECK_EQ_U(r.st.pushes, 1);
}

/* MULTI: every command answered +QUEUED (SUBSCRIBE too), EXEC an array;
 * a flight of MULTI alone is a transaction, one with work a query. */
static void test_multi(void)
{
	start(true);
	CL("*1\r\n$5\r\nMULTI\r\n");
	SV("+OK\r\n");
	CL(SET);
	SV("+QUEUED\r\n");
	CL("*2\r\n$9\r\nSUBSCRIBE\r\n$1\r\na\r\n");
	SV("+QUEUED\r\n");
	CL("*1\r\n$4\r\nEXEC\r\n");
	SV("*2\r\n+OK\r\n*3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n");
	CL("*1\r\n$5\r\nMULTI\r\n" SET "*1\r\n$4\r\nEXEC\r\n");
	SV("+OK\r\n+QUEUED\r\n*1\r\n+OK\r\n");
	redis_rtt_finish(&r);
	CHECK_EQ_U(nrt, 5);
	CHECK_EQ_U(rts[0].cls, RT_TRANSACTION);
	CHECK_EQ_U(rts[1].cls, RT_QUERY);
	CHECK_EQ_U(rts[3].cls, RT_TRANSACTION);
	CHECK_EQ_U(rts[4].cls, RT_QUERY);
	CHECK_EQ_U(rts[4].commands, 3);
}

/* MONITOR: its +OK is the reply, what follows is streamed */
static void test_monitor(void)
{
	start(true);
	CL("*1\r\n$7\r\nMONITOR\r\n");
	SV("+OK\r\n");
	SV("+1700000000.000000 [0 127.0.0.1:1] \"GET\" \"k\"\r\n");
	SV("+1700000000.000001 [0 127.0.0.1:1] \"SET\" \"k\" \"v\"\r\n");
	redis_rtt_finish(&r);
	CHECK_EQ_U(nrt, 1);
	CHECK_EQ_U(r.st.pushes, 2);
}

/* Picked up mid-stream: replies to commands sent before the capture are
 * one round trip of class unknown; then the count is in step. */
static void test_mid_stream(void)
{
	start(false);
	SV("$1\r\nv\r\n$1\r\nv\r\n");
	SV("+OK\r\n");
	CL(GET);
	SV("$1\r\nv\r\n");
	redis_rtt_finish(&r);
	CHECK_EQ_U(nrt, 2);
	CHECK_EQ_U(rts[0].cls, RT_UNKNOWN);
	CHECK_EQ_U(rts[0].replies, 3);
	CHECK_EQ_U(rts[1].cls, RT_QUERY);
}

/* A client-side hole holds a command back in reassembly while its reply
 * comes through: the reply is delivered first.  Counted naively every
 * later flight merges into one (a CI capture with 11 packets removed read
 * one flight of 250 commands); after the gap, a command whose predecessor
 * was answered by then starts a new flight. */
static void test_reply_before_command(void)
{
	start(true);
	CL(GET);
	SV("$1\r\nv\r\n");
	redis_rtt_gap(&r, RESP_CLIENT); /* the next GET lost */
	uint64_t t_cmd = now;
	now += 20000;
	SV("$1\r\nv\r\n"); /* its reply, delivered first: unknown */
	uint64_t later = now;
	now = t_cmd + 10000; /* the command behind the hole, with its own time */
	CL(GET);
	now = later + 10000;
	for (int i = 0; i < 5; i++) { /* the client's next ones, each after a reply */
		CL(GET);
		SV("$1\r\nv\r\n");
	}
	redis_rtt_finish(&r);
	CHECK_EQ_U(r.st.max_pipeline, 1);
	CHECK_EQ_U(r.st.commands, 7);
	CHECK_EQ_U(r.st.round_trips, 7); /* the reply taken for unknown's, the late one's lost */
	CHECK_EQ_U(r.st.by_class[RT_UNKNOWN], 1);
	CHECK_EQ_U(r.st.unanswered, 1);
}

/* A server-side gap: the replies awaited are written off, and the next
 * command starts a flight of its own. */
static void test_server_gap(void)
{
	start(true);
	CL(GET GET);
	SV("$1\r\nv\r\n");
	redis_rtt_gap(&r, RESP_SERVER);
	resp_gap(&rc, RESP_SERVER, 7, NULL, NULL);
	CL(GET);
	SV("$1\r\nv\r\n");
	redis_rtt_finish(&r);
	CHECK_EQ_U(nrt, 2);
	CHECK_EQ_U(r.st.written_off, 1);
	CHECK(rts[0].damaged);
	CHECK_EQ_U(rts[1].commands, 1);
	CHECK(!rts[1].damaged);
}

/* The end of the capture: a flight without any reply is unanswered. */
static void test_unanswered(void)
{
	start(true);
	CL(GET);
	redis_rtt_finish(&r);
	CHECK_EQ_U(nrt, 0);
	CHECK_EQ_U(r.st.unanswered, 1);
	CL("\r\n"); /* an empty inline line: no command */
	CHECK_EQ_U(r.st.commands, 1);
}

/* A flight's signature (legs.h: a relay's copy has the same): the same
 * commands the same, never 0; another name, key size or command count
 * another */
static void test_signature(void)
{
	uint64_t sig[5];
	const char *flights[5] = {GET, GET, "*2\r\n$3\r\nGET\r\n$2\r\nkk\r\n", SET, GET GET};
	for (int i = 0; i < 5; i++) {
		start(true);
		CL(flights[i]);
		SV(i == 4 ? "$1\r\nv\r\n$1\r\nv\r\n" : "$1\r\nv\r\n");
		redis_rtt_finish(&r);
		CHECK_EQ_U(nrt, 1);
		sig[i] = rts[0].sig;
		CHECK(sig[i] != 0);
	}
	CHECK(sig[0] == sig[1]);
	CHECK(sig[0] != sig[2]);
	CHECK(sig[0] != sig[3]);
	CHECK(sig[0] != sig[4]);
	CHECK(sig[2] != sig[3]);
}

int main(void)
{
	RUN(test_one_command_one_round_trip);
	RUN(test_pipeline);
	RUN(test_client_reply);
	RUN(test_pubsub_resp2);
	RUN(test_pushes_resp3);
	RUN(test_multi);
	RUN(test_monitor);
	RUN(test_mid_stream);
	RUN(test_reply_before_command);
	RUN(test_server_gap);
	RUN(test_unanswered);
	RUN(test_signature);
	return TT_EXIT();
}
