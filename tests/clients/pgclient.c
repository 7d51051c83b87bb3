/* pgclient.c - a libpq client that puts known message patterns on the wire,
 * for captures whose expected counts are known by construction.
 *
 * Usage: pgclient CONNINFO SCENARIO N
 * Prints "ready_for_query=R round_trips=T pings=P acquire=A release=B" as the
 * client itself counted them (from the results libpq returned).
 *
 * Scenarios:
 *   pipeline  N  one flight of N parameterised queries, each with its own
 *                Sync (pipeline mode): N ReadyForQuery, 1 round trip
 *   sqlxlike  N  N times: lone Sync (acquire ping), one extended-protocol
 *                query, lone Sync (release ping) - what sqlx's pool does
 *   flush     N  N times: Parse/Bind/Describe/Execute + Flush, wait for the
 *                rows, then Sync: 2 round trips, 1 ReadyForQuery each
 *   fastpath  N  N large-object create/unlink pairs in a transaction
 *                (FunctionCall messages)
 */
#include <libpq-fe.h>
#include <libpq/libpq-fs.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die(PGconn *c, const char *what)
{
	fprintf(stderr, "pgclient: %s: %s", what, c ? PQerrorMessage(c) : "\n");
	exit(1);
}

/* Consume results up to and including the next PGRES_PIPELINE_SYNC. */
static void wait_sync(PGconn *c)
{
	for (;;) {
		PGresult *r = PQgetResult(c);
		if (!r)
			continue; /* end of one query's results */
		ExecStatusType st = PQresultStatus(r);
		PQclear(r);
		if (st == PGRES_PIPELINE_SYNC)
			return;
		if (st == PGRES_FATAL_ERROR)
			die(c, "query");
	}
}

/* TCP_CORK holds the writes libpq flushes after each Sync, so the whole
 * pipeline leaves in one flight whatever the timing. */
static void cork(PGconn *c, int on)
{
	if (setsockopt(PQsocket(c), IPPROTO_TCP, TCP_CORK, &on, sizeof on) != 0)
		die(NULL, "TCP_CORK");
}

static void lone_sync(PGconn *c)
{
	if (PQpipelineSync(c) != 1)
		die(c, "sync");
	wait_sync(c);
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: pgclient CONNINFO SCENARIO N\n");
		return 64;
	}
	PGconn *c = PQconnectdb(argv[1]);
	if (PQstatus(c) != CONNECTION_OK)
		die(c, "connect");
	const char *sc = argv[2];
	int n = atoi(argv[3]);
	long rfq = 1, rts = 1, pings = 0, acq = 0, rel = 0; /* the startup */
	const char *params[1] = {"42"};

	if (strcmp(sc, "pipeline") == 0) {
		if (PQenterPipelineMode(c) != 1)
			die(c, "pipeline");
		cork(c, 1);
		for (int i = 0; i < n; i++) {
			if (!PQsendQueryParams(c, "SELECT $1::int + 1", 1, NULL, params, NULL, NULL, 0))
				die(c, "send");
			if (PQpipelineSync(c) != 1)
				die(c, "sync");
		}
		cork(c, 0);
		for (int i = 0; i < n; i++)
			wait_sync(c);
		PQexitPipelineMode(c);
		rfq += n;
		rts += 1;
	} else if (strcmp(sc, "sqlxlike") == 0) {
		if (PQenterPipelineMode(c) != 1)
			die(c, "pipeline");
		for (int i = 0; i < n; i++) {
			lone_sync(c);
			if (!PQsendQueryParams(c, "SELECT $1::int + 1", 1, NULL, params, NULL, NULL, 0))
				die(c, "send");
			if (PQpipelineSync(c) != 1)
				die(c, "sync");
			wait_sync(c);
			lone_sync(c);
		}
		PQexitPipelineMode(c);
		rfq += 3L * n;
		rts += 3L * n;
		pings += 2L * n;
		acq += n;
		rel += n;
	} else if (strcmp(sc, "flush") == 0) {
		if (PQenterPipelineMode(c) != 1)
			die(c, "pipeline");
		for (int i = 0; i < n; i++) {
			if (!PQsendQueryParams(c, "SELECT $1::int * 2", 1, NULL, params, NULL, NULL, 0))
				die(c, "send");
			if (PQsendFlushRequest(c) != 1 || PQflush(c) != 0)
				die(c, "flush");
			PGresult *r = PQgetResult(c);
			if (!r || PQresultStatus(r) != PGRES_TUPLES_OK)
				die(c, "flush result");
			PQclear(r);
			if (PQgetResult(c) != NULL)
				die(c, "flush end");
			lone_sync(c);
		}
		PQexitPipelineMode(c);
		rfq += n;
		rts += 2L * n;
	} else if (strcmp(sc, "fastpath") == 0) {
		PGresult *r = PQexec(c, "BEGIN");
		PQclear(r);
		for (int i = 0; i < n; i++) {
			Oid o = lo_creat(c, INV_READ | INV_WRITE);
			if (o == InvalidOid)
				die(c, "lo_creat");
			if (lo_unlink(c, o) != 1)
				die(c, "lo_unlink");
		}
		r = PQexec(c, "COMMIT");
		PQclear(r);
		/* libpq looks up the large-object function OIDs with one query first */
		rfq += 2 + 1 + 2L * n;
		rts += 2 + 1 + 2L * n;
	} else {
		fprintf(stderr, "pgclient: unknown scenario %s\n", sc);
		return 64;
	}
	PQfinish(c);
	printf("ready_for_query=%ld round_trips=%ld pings=%ld acquire=%ld release=%ld\n", rfq, rts,
	       pings, acq, rel);
	return 0;
}
