/* test_rtt.c - the round-trip engine on message sequences whose flights and
 * classes are known: pipelines, Flush, COPY in extended mode, pings and
 * their roles, resets, and recovery after capture gaps. */
#include <stdio.h>
#include <string.h>

#include "proto/legs.h"
#include "proto/pgsql/rtt.h"
#include "sqlclass.h"
#include "tinytest.h"

static struct rtt r;
static struct hist lat;
static uint64_t now;
static char classes[64][24];
static int nrt;

static uint64_t sigs[64];
static bool pooler_set[64];

static void on_rt(void *ctx, const struct rt *rt)
{
	(void)ctx;
	if (nrt < 64) {
		sigs[nrt] = rt->sig;
		pooler_set[nrt] = rt->pooler_set;
	}
	if (nrt < 64) {
		if (rt->cls == RT_PING)
			strcpy(classes[nrt], rt_ping_role_name(rt->ping_role));
		else
			strcpy(classes[nrt], rt_class_name(rt->cls));
		nrt++;
	}
}

static void start(void)
{
	hist_init(&lat);
	rtt_init(&r, &lat, NULL, on_rt, NULL);
	nrt = 0;
	now = 1000;
}

static void msg(enum pgsql_side side, uint8_t type, const char *body, size_t n)
{
	struct pgsql_msg m = {0};
	m.side = (uint8_t)side;
	m.type = type;
	m.len = (uint32_t)n + 4;
	m.body = (const uint8_t *)body;
	m.body_len = (uint32_t)n;
	m.ts_first = m.ts_last = now;
	now += 10000;
	rtt_msg(&r, &m);
}

#define FE(t, s) msg(PGSQL_FE, (t), (s), sizeof(s))       /* with the NUL */
#define FE0(t) msg(PGSQL_FE, (t), "", 0)
#define BE(t, s) msg(PGSQL_BE, (t), (s), sizeof(s) - 1)
#define Z() BE('Z', "I")

static void startup(void)
{
	msg(PGSQL_FE, PGSQL_STARTUP, "\0\3\0\0user\0u\0\0", 13);
	BE('R', "\0\0\0\0");
	Z();
}

static void query(void)
{
	FE('P', "\0SELECT $1::int\0\0");
	FE('B', "\0\0\0\0\0\0\0\0");
	FE('E', "\0\0\0\0");
	FE0('S');
	BE('1', "");
	BE('2', "");
	BE('D', "\0\1\0\0\0\1x");
	BE('C', "SELECT 1\0");
	Z();
}

static void test_sqlx_pattern(void)
{
	start();
	startup();
	for (int i = 0; i < 3; i++) {
		FE0('S'); /* acquire */
		Z();
		query();
		FE0('S'); /* release */
		Z();
	}
	rtt_finish(&r);
	CHECK_EQ_U(r.st.round_trips, 10);
	CHECK_EQ_U(r.st.rfq, 10);
	CHECK_EQ_U(r.st.pings[PING_ACQUIRE], 3);
	CHECK_EQ_U(r.st.pings[PING_RELEASE], 3);
	CHECK(strcmp(classes[1], "acquire") == 0 && strcmp(classes[3], "release") == 0);
	CHECK(strcmp(classes[4], "acquire") == 0);
}

static void test_pipeline_and_flush(void)
{
	start();
	startup();
	/* three queries in one flight, answers after */
	for (int i = 0; i < 3; i++) {
		FE('Q', "SELECT now()");
	}
	for (int i = 0; i < 3; i++) {
		BE('T', "\0\1");
		BE('D', "\0\1");
		BE('C', "SELECT 1\0");
		Z();
	}
	/* Flush round trip, then the Sync that finishes it */
	FE('P', "\0SELECT 2\0\0");
	FE('B', "\0\0\0\0\0\0\0\0");
	FE('E', "\0\0\0\0");
	FE0('H');
	BE('1', "");
	BE('2', "");
	BE('C', "SELECT 1\0");
	FE0('S');
	Z();
	rtt_finish(&r);
	CHECK_EQ_U(r.st.rfq, 5);
	CHECK_EQ_U(r.st.round_trips, 4);
	CHECK_EQ_U(r.st.by_class[RT_QUERY], 2);
	CHECK_EQ_U(r.st.by_class[RT_OTHER], 1);
	CHECK_EQ_U(r.st.by_class[RT_PING], 0);
}

static void test_copy_extended(void)
{
	start();
	startup();
	/* COPY FROM STDIN through the extended protocol: the Sync after Execute
	 * reaches the backend in copy-in mode and is ignored; the one after
	 * CopyDone gets the ReadyForQuery */
	FE('P', "\0COPY t FROM STDIN\0\0");
	FE('B', "\0\0\0\0\0\0\0\0");
	FE('E', "\0\0\0\0");
	FE0('S');
	BE('1', "");
	BE('2', "");
	BE('G', "\0\0\0");
	FE('d', "1\n");
	FE0('c');
	FE0('S');
	BE('C', "COPY 1\0");
	Z();
	query();
	rtt_finish(&r);
	CHECK_EQ_U(r.st.rfq, 3);
	CHECK_EQ_U(r.st.round_trips, 3);
	CHECK_EQ_U(r.st.by_class[RT_COPY], 1);
	CHECK_EQ_U(r.st.by_class[RT_QUERY], 1);
}

static void test_pings_and_resets(void)
{
	start();
	startup();
	FE('Q', ""); /* bb8, pgjdbc isValid */
	BE('I', "");
	Z();
	query();
	FE('Q', "-- ping"); /* pgx */
	BE('I', "");
	Z();
	query();
	FE('Q', "SELECT 1"); /* SQLAlchemy pre-ping */
	BE('T', "\0\1");
	BE('D', "\0\1");
	BE('C', "SELECT 1\0");
	Z();
	FE('Q', "SELECT 1 FROM t LIMIT 1"); /* an application query */
	BE('T', "\0\1");
	BE('D', "\0\1");
	BE('C', "SELECT 1\0");
	Z();
	FE('Q', "DISCARD ALL");
	BE('C', "DISCARD ALL\0");
	Z();
	FE('Q', "ROLLBACK"); /* sqlx: rollback queued on drop + the release Sync */
	FE0('S');
	BE('C', "ROLLBACK\0");
	Z();
	Z();
	FE('Q', "BEGIN");
	BE('C', "BEGIN\0");
	BE('Z', "T");
	rtt_finish(&r);
	CHECK_EQ_U(r.st.by_class[RT_PING], 3);
	CHECK_EQ_U(r.st.pings[PING_ACQUIRE], 3);
	CHECK_EQ_U(r.st.ping_sigs[PSIG_EMPTY_QUERY], 2);
	CHECK_EQ_U(r.st.ping_sigs[PSIG_SELECT1], 1);
	CHECK_EQ_U(r.st.by_class[RT_QUERY], 3);
	CHECK_EQ_U(r.st.by_class[RT_RESET], 2);
	CHECK_EQ_U(r.st.by_class[RT_TRANSACTION], 1);
	CHECK_EQ_U(r.st.rfq, 11);
	CHECK_EQ_U(r.st.round_trips, 10);
	CHECK_EQ_U(r.st.last_status, 'T');
	CHECK(strcmp(r.st.driver, "pgx") == 0);
}

static void test_gap_recovery(void)
{
	start();
	startup();
	query();
	/* the answer of the next query is lost: without recovery every later
	 * flight would wait for it */
	FE('Q', "SELECT 2");
	rtt_gap(&r, PGSQL_BE);
	for (int i = 0; i < 5; i++)
		query();
	rtt_finish(&r);
	CHECK_EQ_U(r.st.round_trips, 1 + 1 + 1 + 5);
	/* a lost Query, its answer counted in the round trip before it, and the
	 * next query delivered after its own answer */
	start();
	startup();
	query();
	rtt_gap(&r, PGSQL_FE);
	Z(); /* the lost query's answer */
	for (int i = 0; i < 5; i++)
		query();
	rtt_finish(&r);
	/* the lost query's answer is a round trip whose flight was not seen */
	CHECK_EQ_U(r.st.round_trips, 1 + 1 + 1 + 5);
	CHECK_EQ_U(r.st.by_class[RT_UNKNOWN], 1);
	CHECK_EQ_U(r.st.rfq, 1 + 1 + 1 + 5);
}

/* BEGIN, a statement, then a lone Sync while the transaction is open */
static void tx_lone_sync(void)
{
	FE('Q', "BEGIN");
	BE('C', "BEGIN\0");
	BE('Z', "T");
	FE('Q', "UPDATE t SET a = 1");
	BE('C', "UPDATE 1\0");
	BE('Z', "T");
	FE0('S');
	BE('Z', "T");
}

static void commit(void)
{
	FE('Q', "COMMIT");
	BE('C', "COMMIT\0");
	BE('Z', "I");
}

static void test_returned_in_transaction(void)
{
	/* a query inside a transaction, then the pool's release ping while the
	 * transaction is still open: a connection handed back mid-transaction */
	start();
	startup();
	tx_lone_sync();
	rtt_finish(&r);
	CHECK_EQ_U(r.st.pings[PING_RELEASE], 1);
	CHECK_EQ_U(r.st.returned_in_tx, 1);

	/* psycopg 3 leaving pipeline mode: a lone Sync between two statements
	 * of the transaction, then its COMMIT.  Its role is told by timing
	 * alone (no pool's pings to learn a policy from): no hand-back */
	start();
	startup();
	tx_lone_sync();
	commit();
	rtt_finish(&r);
	CHECK_EQ_U(r.st.by_class[RT_PING], 1);
	CHECK_EQ_U(r.st.returned_in_tx, 0);

	/* ... and many of them, each idle after (a client descheduled before
	 * its COMMIT, under load): no policy learnt from them, so still no
	 * hand-back (before: a release policy, and every one returned) */
	struct ping_evidence ev = {0};
	start();
	r.policy = &ev;
	startup();
	for (int i = 0; i < 8; i++) {
		tx_lone_sync();
		now += 5000000; /* idle after it */
		commit();
	}
	rtt_finish(&r);
	CHECK_EQ_U(r.st.by_class[RT_PING], 8);
	CHECK_EQ_U(ev.release_idle, 0);
	CHECK_EQ_U(r.st.returned_in_tx, 0);
}

static void test_ping_wait(void)
{
	/* a release ping on a connection that then idles: its role is settled
	 * after a second of capture time, not when the connection next works */
	start();
	startup();
	query();
	FE0('S');
	Z();
	rtt_tick(&r, now);
	CHECK_EQ_U(r.st.pings[PING_RELEASE], 0); /* a query may still follow */
	rtt_tick(&r, now + RTT_PING_WAIT_NS + 1);
	CHECK_EQ_U(r.st.pings[PING_RELEASE], 1);
	CHECK_EQ_U(r.npend, 0);
	rtt_finish(&r);
	CHECK_EQ_U(r.st.round_trips, 3);
}

/* Asynchronous backend messages (NotificationResponse, NoticeResponse,
 * ParameterStatus) are counted, never answers: a LISTENing connection that
 * receives a notification while idle, or a notice in the middle of an
 * answer, changes no round trip nor where its latency ends. */
static void test_async_messages(void)
{
	start();
	startup();
	query();
	int before = nrt;
	BE('A', "\0\0\0\1chan\0payload\0"); /* idle: a NOTIFY from another session */
	BE('S', "TimeZone\0UTC\0");
	CHECK_EQ_U(r.st.notifications, 1);
	CHECK_EQ_U(nrt, before);
	FE('Q', "SELECT 1");
	BE('N', "SNOTICE\0Mhello\0\0");
	BE('T', "\0\1");
	BE('C', "SELECT 1");
	uint64_t rfq_at = now;
	Z();
	FE('Q', "SELECT 2"); /* closes the previous round trip */
	Z();
	rtt_finish(&r);
	CHECK_EQ_U(r.st.round_trips, 4); /* startup, two queries and the last one */
	CHECK(lat.max <= rfq_at - 1000); /* no round trip ended at an async message */
}

/* One lone Sync between two queries, placed by the idle time around it:
 * LOOKS_ACQUIRE after a long pause (a client descheduled before its
 * release ping looks just like that), LOOKS_RELEASE before one. */
enum { LOOKS_RELEASE, LOOKS_ACQUIRE };
static void single_ping_between(int looks)
{
	if (looks == LOOKS_ACQUIRE)
		now += 2000000;
	FE0('S');
	Z();
	if (looks == LOOKS_RELEASE)
		now += 2000000;
	query();
}

static int told_by_interim_policy;
static void count_policy_told(void *ctx, const struct rt *rt)
{
	on_rt(ctx, rt);
	told_by_interim_policy += rt->cls == RT_PING && rt->role_how == ROLE_POLICY &&
				  rt->ping_role == PING_ACQUIRE;
}

/* The policy known while a capture runs is thin at first: three releases
 * that look like acquires (a loaded machine) make an interim "acquire"
 * policy that labels the next ambiguous pings.  The final policy relabels
 * every ambiguous one, those the interim policy told too (a CI run read
 * 0.056 acquire pings per page for a release-only pool before this). */
static void test_ping_policy_settles_interim(void)
{
	struct ping_evidence ev = {0};
	start();
	rtt_init(&r, &lat, NULL, count_policy_told, NULL);
	told_by_interim_policy = 0;
	r.policy = &ev;
	startup();
	query();
	for (int i = 0; i < 3; i++)
		single_ping_between(LOOKS_ACQUIRE);
	CHECK_EQ_U(ping_policy_of(&ev), POLICY_ACQUIRE);
	for (int i = 0; i < 12; i++)
		single_ping_between(LOOKS_RELEASE);
	rtt_finish(&r);
	CHECK(told_by_interim_policy >= 1); /* the case under test happened */
	CHECK_EQ_U(ping_policy_of(&ev), POLICY_RELEASE);
	CHECK_EQ_U(r.st.pings[PING_ACQUIRE] + r.st.pings[PING_RELEASE], 15);
	ping_policy_settle(ping_policy_of(&ev), &r.st);
	CHECK_EQ_U(r.st.pings[PING_ACQUIRE], 0);
	CHECK_EQ_U(r.st.pings[PING_RELEASE], 15);
	CHECK_EQ_U(r.st.pings_policy, 15);
	CHECK_EQ_U(ping_told_by_timing(&r.st), 0);
	ping_policy_settle(ping_policy_of(&ev), &r.st); /* idempotent */
	CHECK_EQ_U(r.st.pings[PING_RELEASE], 15);
	CHECK_EQ_U(r.st.pings_policy, 15);
}

/* No policy in the end: every ambiguous ping takes its neighbours' word,
 * those an interim policy told included, and counts as told by timing. */
static void test_ping_policy_none_in_the_end(void)
{
	struct ping_evidence ev = {0};
	start();
	r.policy = &ev;
	startup();
	query();
	for (int i = 0; i < 3; i++)
		single_ping_between(LOOKS_ACQUIRE);
	for (int i = 0; i < 3; i++)
		single_ping_between(LOOKS_RELEASE);
	rtt_finish(&r);
	CHECK_EQ_U(ping_policy_of(&ev), POLICY_UNKNOWN);
	CHECK(r.st.pings_policy >= 1); /* the interim policy told some */
	ping_policy_settle(ping_policy_of(&ev), &r.st);
	CHECK_EQ_U(r.st.pings[PING_ACQUIRE], 3);
	CHECK_EQ_U(r.st.pings[PING_RELEASE], 3);
	CHECK_EQ_U(r.st.pings_policy, 0);
	CHECK_EQ_U(ping_told_by_timing(&r.st), 6);
}

/* Position outweighs idle time: a release-only pool under load (a LIFO
 * pool, 8 clients on 2 cores) gave 8 releases by position and 568 release,
 * 298 acquire by idle time, and read "unknown" when they were one count.
 * Idle time still vetoes position when it plainly says the other side,
 * and decides alone where position says nothing. */
static void test_ping_policy_weighs_position(void)
{
	struct ping_evidence e = {.release = 8, .release_idle = 568, .acquire_idle = 298};
	CHECK_EQ_U(ping_policy_of(&e), POLICY_RELEASE);
	e = (struct ping_evidence){.release = 8, .release_idle = 100, .acquire_idle = 300};
	CHECK_EQ_U(ping_policy_of(&e), POLICY_UNKNOWN);
	e = (struct ping_evidence){.acquire = 4, .release = 1, .acquire_idle = 50};
	CHECK_EQ_U(ping_policy_of(&e), POLICY_ACQUIRE);
	e = (struct ping_evidence){.release = 2, .release_idle = 30, .acquire_idle = 10};
	CHECK_EQ_U(ping_policy_of(&e), POLICY_RELEASE);
	e = (struct ping_evidence){.release = 2, .release_idle = 30, .acquire_idle = 20};
	CHECK_EQ_U(ping_policy_of(&e), POLICY_UNKNOWN);
	e = (struct ping_evidence){.release = 20, .acquire = 15};
	CHECK_EQ_U(ping_policy_of(&e), POLICY_UNKNOWN);
	e = (struct ping_evidence){.release = 20, .both = 3};
	CHECK_EQ_U(ping_policy_of(&e), POLICY_BOTH);

	/* what counts as which: a connection's first query after a lone Sync
	 * (acquire by position), its last one before a lone Sync and the end
	 * (release by position), a single between two with idle time on one
	 * side (by idle time) */
	struct ping_evidence ev = {0};
	start();
	r.policy = &ev;
	startup();
	FE0('S');
	Z();
	query();
	single_ping_between(LOOKS_ACQUIRE);
	single_ping_between(LOOKS_RELEASE);
	single_ping_between(LOOKS_RELEASE);
	FE0('S');
	Z();
	rtt_finish(&r);
	CHECK_EQ_U(ev.acquire, 1);
	CHECK_EQ_U(ev.release, 1);
	CHECK_EQ_U(ev.acquire_idle, 1);
	CHECK_EQ_U(ev.release_idle, 2);
	CHECK_EQ_U(ev.both, 0);
}

/* With fingerprints on (pages are attributed), a round trip carries its
 * first statement's: the same text as a simple query or prepared under a
 * name; a statement prepared before the capture, by its name; none when
 * off (plain analysis does not pay for it). */
/* Fingerprints turned on mid-connection (legs.h: a second server
 * endpoint showed up): a statement prepared before is known by its text,
 * not its name, and a simple query's text kept before gets one too */
static void test_sigs_turned_on(void)
{
	start();
	startup();
	FE('P', "s1\0select id from t where id=$1\0\0");
	FE0('S');
	BE('1', "");
	Z();
	FE('Q', "SELECT id FROM t WHERE id = 7");
	BE('C', "SELECT 1\0");
	Z();
	r.fingerprints = true;
	FE('B', "\0s1\0\0\0\0\0\0\0");
	FE('E', "\0\0\0\0");
	FE0('S');
	BE('2', "");
	BE('C', "SELECT 1\0");
	Z();
	FE('Q', "SELECT id FROM t WHERE id = 7");
	BE('C', "SELECT 1\0");
	Z();
	rtt_finish(&r);
	CHECK_EQ_U(nrt, 5);
	CHECK(sigs[1] == 0 && sigs[2] == 0); /* off: the round trips carry none */
	CHECK(sigs[3] != 0 && sigs[3] == sigs[4]);
	CHECK(sigs[3] == sql_fingerprint("select id from t where id=$1", 28));
}

static void test_statement_sigs(void)
{
	for (int on = 0; on < 2; on++) {
		start();
		r.fingerprints = on;
		startup();
		FE('Q', "SELECT id FROM t WHERE id = 7");
		BE('C', "SELECT 1\0");
		Z();
		FE('P', "s1\0select id from t where id=$1\0\0");
		FE('B', "\0s1\0\0\0\0\0\0\0");
		FE('E', "\0\0\0\0");
		FE0('S');
		BE('1', "");
		BE('2', "");
		BE('C', "SELECT 1\0");
		Z();
		FE('B', "\0s9\0\0\0\0\0\0\0"); /* prepared before the capture */
		FE('E', "\0\0\0\0");
		FE0('S');
		BE('2', "");
		BE('C', "SELECT 1\0");
		Z();
		rtt_finish(&r);
		CHECK_EQ_U(nrt, 4);
		if (!on) {
			CHECK(sigs[1] == 0 && sigs[2] == 0 && sigs[3] == 0);
			continue;
		}
		CHECK(sigs[1] != 0 && sigs[1] == sigs[2]);
		CHECK(sigs[1] == sql_fingerprint("SELECT id FROM t WHERE id = 7", 29));
		CHECK(sigs[3] != 0 && sigs[3] != sigs[1]);
	}
}

/* Texts classified once for every connection (rtt.shared): more
 * statements than a connection's own slots hold, over two connections,
 * each given its fingerprint and class as without the table, and the
 * table holding every one of them. */
static void test_shared_texts(void)
{
	static struct rtt_texts shared;
	memset(&shared, 0, sizeof shared);
	for (int conn = 0; conn < 3; conn++) {
		start();
		r.fingerprints = true;
		r.shared = conn < 2 ? &shared : NULL; /* the third: the reference */
		startup();
		for (int round = 0; round < 2; round++)
			for (int k = 0; k < 60; k++) {
				char q[64];
				int n = snprintf(q, sizeof q, "SELECT c FROM t%d WHERE id = %d", k, round);
				msg(PGSQL_FE, 'Q', q, (size_t)n + 1);
				BE('C', "SELECT 1\0");
				Z();
				uint64_t want = sql_fingerprint(q, (size_t)n);
				CHECK(nrt > 0 && sigs[(nrt - 1) % 64] == want);
				CHECK_STR(classes[(nrt - 1) % 64], "query");
				nrt = 0;
			}
		rtt_finish(&r);
	}
	int held = 0;
	for (int i = 0; i < RTT_SHARED_TEXTS; i++)
		held += shared.slot[i].hash != 0;
	/* 60 statements x 2 texts each (the literals differ), less any a set of
	 * two had no room for; none without the table */
	CHECK(held >= 110 && held <= 120);
}

static struct rt parts[64];
static int nparts;

static void on_part(void *ctx, const struct rt *rt)
{
	(void)ctx;
	if (nparts < 64)
		parts[nparts++] = *rt;
}

/* A connection that prepared statement "a" (and "b", with two) */
static void parts_start(int statements)
{
	start();
	r.fingerprints = true;
	r.on_part = on_part;
	nparts = 0;
	startup();
	FE('P', "a\0SELECT 1 FROM a\0\0");
	if (statements > 1)
		FE('P', "b\0SELECT 1 FROM b\0\0");
	FE0('S');
	Z();
}

static void execute(const char *stmt) /* Bind, Execute, Sync of a named statement */
{
	char b[32] = {0};
	size_t n = strlen(stmt);
	memcpy(b + 1, stmt, n); /* portal "", then the statement's name */
	msg(PGSQL_FE, 'B', b, n + 8);
	FE('E', "\0\0\0\0");
	FE0('S');
}

static void answer(int rows)
{
	BE('2', "");
	for (int i = 0; i < rows; i++)
		BE('D', "\0\1\0\0\0\1x");
	BE('C', "SELECT 1\0");
	Z();
}

/* A pipelining driver (postgres.js): statements of several requests on one
 * connection, each with its own Sync, written before the last answer came.
 * The flight is one round trip of the connection; its parts go to on_part
 * as each is answered, with their own start, end, statement and rows. */
static void test_flight_parts(void)
{
	parts_start(2);
	CHECK_EQ_U(nparts, 0); /* a flight of one part: none */
	uint64_t t1 = now;
	execute("a");
	uint64_t t2 = now;
	execute("b");
	execute("a");
	answer(2);
	CHECK_EQ_U(nparts, 1); /* answered, and later parts follow: out now */
	answer(0);
	CHECK_EQ_U(nparts, 2);
	uint64_t t3 = now;
	execute("b"); /* sent while the third is unanswered: the same flight */
	answer(1);
	answer(3);
	CHECK_EQ_U(nparts, 4);
	CHECK_EQ_U(nrt, 3); /* startup, the prepare, one flight */
	CHECK_EQ_U(r.st.round_trips, 3);
	CHECK_EQ_U(r.st.rfq, 6);
	CHECK(parts[0].part && parts[0].t_start == t1 && parts[1].t_start == t2);
	CHECK(parts[3].t_start == t3 && parts[3].t_end == now - 10000);
	CHECK(parts[0].sig != 0 && parts[0].sig == parts[2].sig && parts[1].sig == parts[3].sig);
	CHECK(parts[0].sig != parts[1].sig);
	CHECK_EQ_U(parts[0].rows, 2);
	CHECK_EQ_U(parts[1].rows, 0);
	CHECK_EQ_U(parts[3].rows, 3);
	for (int i = 0; i < 4; i++) {
		CHECK_EQ_U(parts[i].rfq, 1);
		CHECK_EQ_U(parts[i].cls, RT_QUERY);
		CHECK(parts[i].index == parts[0].index);
	}

	/* more parts unanswered than followed: the rest join the newest, and
	 * every ReadyForQuery is still someone's */
	nparts = 0;
	for (int i = 0; i < RT_PARTS + 4; i++)
		execute("a");
	for (int i = 0; i < RT_PARTS + 4; i++)
		answer(0);
	rtt_finish(&r);
	CHECK_EQ_U(nparts, RT_PARTS);
	uint32_t rfq = 0;
	for (int i = 0; i < nparts; i++)
		rfq += parts[i].rfq;
	CHECK_EQ_U(rfq, RT_PARTS + 4);
	CHECK_EQ_U(parts[RT_PARTS - 1].rfq, 5);
}

/* A connection that never drains (a pipeline kept full): the flight stays
 * open, but what holds the sweep back is its oldest part not answered. */
static void test_flight_parts_watermark(void)
{
	parts_start(1);
	uint64_t first = now, oldest = 0;
	execute("a");
	for (int i = 0; i < 50; i++) {
		uint64_t next = now;
		execute("a");
		answer(0); /* the one before it */
		CHECK(rtt_oldest_open(&r, 0, &oldest));
		CHECK(oldest == next);
	}
	CHECK(oldest > first);
	CHECK_EQ_U(nparts, 50);
	answer(0);
	rtt_finish(&r);
	CHECK_EQ_U(nparts, 51);
	CHECK_EQ_U(r.st.round_trips, 3);
}

/* postgres.js describes a statement it has not prepared on a connection
 * with Parse, Describe, Flush - behind other requests' Bind, Execute, Sync
 * in one flight.  The last ReadyForQuery is not the flight's end: the
 * describe's answers come after it.  (Ended there, they opened a round
 * trip with no start, `unknown`, that took the next Execute's answer.) */
static void test_flush_after_syncs(void)
{
	parts_start(1);
	execute("a");
	FE('P', "b\0SELECT 1 FROM b\0\0");
	FE('D', "Sb\0");
	FE0('H');
	answer(1);
	BE('1', "");
	BE('t', "\0\0");
	BE('T', "\0\0");
	execute("b"); /* after the describe's answers: a round trip of its own */
	answer(1);
	rtt_finish(&r);
	CHECK_EQ_U(nrt, 4);
	CHECK_EQ_U(r.st.by_class[RT_UNKNOWN], 0);
	CHECK_EQ_U(r.st.by_class[RT_QUERY], 2);
	CHECK_EQ_U(r.st.rfq, 4);
}

static bool tails[64];

static void on_rt_tail(void *ctx, const struct rt *rt)
{
	if (nrt < 64)
		tails[nrt] = rt->tail_ping;
	on_rt(ctx, rt);
}

/* tokio-postgres under r2d2 (a real capture's flights): a round trip that
 * only prepares is known by what it prepares; the Close of the last
 * statement, sent with the next checkout's empty-query test, is a close
 * whose flight ends with a ping. */
static void test_tokio_postgres_flights(void)
{
	start();
	rtt_init(&r, &lat, NULL, on_rt_tail, NULL);
	r.fingerprints = true;
	startup();
	FE('P', "s0\0SELECT id FROM tags WHERE slug = $1\0\0"); /* P D S */
	FE('D', "Ss0");
	FE0('S');
	BE('1', "");
	BE('t', "\0\0");
	BE('T', "\0\0");
	Z();
	FE('B', "\0s0\0\0\0\0\0\0\0"); /* B E S */
	FE('E', "\0\0\0\0");
	FE0('S');
	BE('2', "");
	BE('C', "SELECT 1\0");
	Z();
	FE('C', "Ss0"); /* C S Q(""): Close, and the next checkout's test */
	FE0('S');
	FE('Q', "");
	BE('3', "");
	Z();
	BE('I', "");
	Z();
	rtt_finish(&r);
	CHECK_EQ_U(nrt, 4);
	CHECK(strcmp(classes[1], "prepare") == 0);
	CHECK(sigs[1] != 0 && sigs[1] == sigs[2]); /* the statement it prepared */
	CHECK(strcmp(classes[2], "query") == 0);
	CHECK(strcmp(classes[3], "close") == 0);
	/* known by the statement it closes, not by the test's empty query:
	 * it goes where that statement went (attrib.c closes_last) */
	CHECK(sigs[3] == sigs[1]);
	CHECK(!tails[1] && !tails[2]);
	CHECK(tails[3]);
}

/* The sig of a statement known by name alone (prepared before the
 * capture), on connection conn. */
static uint64_t sig_by_name(uint64_t conn, const char *bind, size_t n)
{
	start();
	r.fingerprints = true;
	r.conn_id = conn;
	startup();
	msg(PGSQL_FE, 'B', bind, n);
	FE('E', "\0\0\0\0");
	FE0('S');
	BE('2', "");
	BE('C', "SELECT 1\0");
	Z();
	rtt_finish(&r);
	return nrt == 2 ? sigs[1] : 0;
}

/* pgjdbc's S_1 on one connection is not S_1 on another (names from a
 * counter, per connection: a capture begun after the warm-up mixed the
 * routes' statements up); a name that is a hash of the text (pgx's
 * stmtcache_) is the same statement everywhere. */
static void test_statement_names(void)
{
	static const char s1[] = "\0S_1\0\0\0\0\0\0\0";
	static const char h[] = "\0stmtcache_9f86d081884c7d65\0\0\0\0\0\0\0";
	uint64_t a = sig_by_name(1, s1, sizeof s1 - 1), b = sig_by_name(2, s1, sizeof s1 - 1);
	CHECK(a != 0 && b != 0 && a != b);
	CHECK(a == sig_by_name(1, s1, sizeof s1 - 1));
	uint64_t x = sig_by_name(1, h, sizeof h - 1), y = sig_by_name(2, h, sizeof h - 1);
	CHECK(x != 0 && x == y);
}

/* What a pooler's server connection shows (the pooler-server-leg
 * finding): PgBouncer's startup (database first, user last), its own SETs
 * and the names of the statements it prepares; and what clients send */
static void test_pooler_signs(void)
{
	start();
	msg(PGSQL_FE, PGSQL_STARTUP, "\0\3\0\0database\0d\0user\0u\0\0", 26);
	BE('R', "\0\0\0\0");
	Z();
	FE('Q', "SET application_name='pgbench';");
	BE('C', "SET\0");
	Z();
	FE('Q', "SET application_name = 'mine'");
	BE('C', "SET\0");
	Z();
	FE('P', "PGBOUNCER_17\0SELECT 1 FROM a\0\0");
	FE0('S');
	Z();
	execute("PGBOUNCER_17");
	answer(1);
	execute("PGBOUNCER_x");
	answer(1);
	execute("lrupsc_1_0");
	answer(1);
	/* handed on after a client's statements, no reset between: transaction
	 * pooling; after DISCARD ALL (session pooling), or a check (a ping), not */
	FE('Q', "SET application_name='other';");
	BE('C', "SET\0");
	Z();
	FE('Q', "DISCARD ALL");
	BE('C', "DISCARD ALL\0");
	Z();
	FE('Q', "select 1");
	BE('T', "\0\1");
	BE('D', "\0\1");
	BE('C', "SELECT 1\0");
	Z();
	FE('Q', "SET application_name='pgbench';");
	BE('C', "SET\0");
	Z();
	rtt_finish(&r);
	CHECK(r.st.startups_pooler == 1 && r.st.startups_other == 0);
	CHECK(r.st.pooler_sets == 3);
	CHECK(r.st.pooler_relinks == 1);
	CHECK(r.st.pooler_names == 2);
	/* its own SETs are flagged, the client's SET not (legs.h: no copies) */
	CHECK_EQ_U(nrt, 11);
	CHECK(pooler_set[1] && pooler_set[7] && pooler_set[10]);
	CHECK(!pooler_set[0] && !pooler_set[2] && !pooler_set[3] && !pooler_set[8] && !pooler_set[9]);
	/* libpq's order, user first; pgx's at random (a map), with more */
	start();
	startup();
	msg(PGSQL_FE, PGSQL_STARTUP, "\0\3\0\0database\0d\0user\0u\0options\0\0\0", 35);
	rtt_finish(&r);
	CHECK(r.st.startups_pooler == 0 && r.st.startups_other == 2);
}

/* A round trip joins a pooler's legs (legs.h) with its statement and both
 * ends; one without an end has no span to match, and a pooler's own SET
 * no client's to be a copy of. */
static void test_round_trips_to_legs(void)
{
	struct legs l;
	legs_init(&l);
	uint8_t outer = legs_endpoint(&l, "127.0.0.1:6432");
	legs_endpoint(&l, "127.0.0.1:5432"); /* the second endpoint: followed from here */
	struct rt rt = {.t_start = 1, .t_end = 2, .has_start = true, .has_end = true, .sig = 5};
	rtt_legs(&l, outer, &rt);
	CHECK_EQ_U(l.stmts[outer], 1);
	rt.has_end = false;
	rtt_legs(&l, outer, &rt);
	rt.has_end = true;
	rt.pooler_set = true;
	rtt_legs(&l, outer, &rt);
	CHECK_EQ_U(l.stmts[outer], 1);
	legs_free(&l);
}

int main(void)
{
	RUN(test_round_trips_to_legs);
	RUN(test_pooler_signs);
	RUN(test_statement_sigs);
	RUN(test_sigs_turned_on);
	RUN(test_shared_texts);
	RUN(test_flight_parts);
	RUN(test_flight_parts_watermark);
	RUN(test_flush_after_syncs);
	RUN(test_statement_names);
	RUN(test_tokio_postgres_flights);
	RUN(test_ping_policy_settles_interim);
	RUN(test_ping_policy_none_in_the_end);
	RUN(test_ping_policy_weighs_position);
	RUN(test_async_messages);
	RUN(test_sqlx_pattern);
	RUN(test_pipeline_and_flush);
	RUN(test_copy_extended);
	RUN(test_pings_and_resets);
	RUN(test_gap_recovery);
	RUN(test_ping_wait);
	RUN(test_returned_in_transaction);
	return TT_EXIT();
}
