/* test_output.c - the output library (pgrtt_output): each escaping sink on
 * hostile text, the store written from an analysis and read back as
 * records, the JSON report's warnings, and message summaries. */
#define _DEFAULT_SOURCE /* fmemopen, open_memstream, mkstemp */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libpq-fe.h>

#include "engine/analysis.h"
#include "store/db.h"
#include "base/escape.h"
#include "findings/evidence.h"
#include "pgsql_summary.h"
#include "report/report.h"
#include "store/store.h"
#include "tinytest.h"

/* What fn writes for s, as a string (static buffer). */
static const char *sink(void (*fn)(FILE *, const char *), const char *s)
{
	static char buf[1024];
	FILE *f = fmemopen(buf, sizeof buf, "w");
	fn(f, s);
	fclose(f);
	return buf;
}

static void gh_msg(FILE *f, const char *s)
{
	esc_github(f, s, false);
}

static void gh_prop(FILE *f, const char *s)
{
	esc_github(f, s, true);
}

static void escapes(void)
{
	CHECK(strcmp(sink(esc_term, "a\x1b[31mb\\"), "a\\x1b[31mb\\\\") == 0);
	char small[8];
	CHECK(strcmp(esc_term_buf(small, sizeof small, "\x1b\x1b\x1b"), "\\x1b") == 0); /* cut whole */
	/* not UTF-8, and C1 controls sent as UTF-8 (U+009B is CSI), escaped;
	 * well-formed text kept */
	CHECK(strcmp(sink(esc_term, "caf\xe9 caf\xc3\xa9"), "caf\\xe9 caf\xc3\xa9") == 0);
	CHECK(strcmp(sink(esc_term, "\xc2\x9b" "31m\xc2\xa0"), "\\xc2\\x9b31m\xc2\xa0") == 0);
	CHECK(strcmp(sink(esc_term, "\xe2\x82"), "\\xe2\\x82") == 0); /* cut short */
	CHECK(strcmp(sink(esc_md, "GET /a|b`c`![i](u)"), "GET /a\\|b\\`c\\`\\!\\[i\\](u)") == 0);
	CHECK(strcmp(sink(esc_md, "www.x.com:80 <b>"), "www\\.x\\.com\\:80 \\<b\\>") == 0);
	CHECK(strcmp(sink(esc_csv, "=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"") == 0);
	CHECK(strcmp(sink(esc_csv, "+cmd|x"), "\"'+cmd|x\"") == 0);
	CHECK(strcmp(sink(esc_csv, "GET /a,b"), "\"GET /a,b\"") == 0);
	CHECK(strcmp(sink(esc_csv, ""), "\"\"") == 0);
	CHECK(strcmp(sink(esc_html, "<script>'&\"\x01"), "&lt;script&gt;&#39;&amp;&quot;\xef\xbf\xbd") ==
	      0);
	CHECK(strcmp(sink(esc_xml, "a\x01<"), "a?&lt;") == 0);
	CHECK(strcmp(sink(gh_msg, "50%\n::error::x"), "50%25%0A::error::x") == 0);
	CHECK(strcmp(sink(gh_prop, "a:b,c"), "a%3Ab%2Cc") == 0);
	/* JSON: well-formed UTF-8 kept, every other byte U+FFFD */
	static const struct {
		const char *in, *out;
	} utf8[] = {
		{"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"},
		{"caf\xe9", "caf\xef\xbf\xbd"},                          /* Latin-1 */
		{"\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd"},                    /* overlong '/' */
		{"\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},      /* a surrogate */
		{"\xf4\x90\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"}, /* > U+10FFFF */
		{"a\xe2\x82", "a\xef\xbf\xbd\xef\xbf\xbd"},                 /* cut short */
		{"\xff\xfe", "\xef\xbf\xbd\xef\xbf\xbd"},
		{"", ""},
	};
	for (size_t i = 0; i < sizeof utf8 / sizeof utf8[0]; i++) {
		cJSON *j = esc_json_string(utf8[i].in);
		CHECK(j && strcmp(j->valuestring, utf8[i].out) == 0);
		cJSON_Delete(j);
	}
}

static void summaries(void)
{
	char buf[256];
	const uint8_t q[] = "SELECT 1\0";
	struct pgsql_msg m = {PGSQL_FE, 'Q', false, false, 13, 0, 0, 0, q, 9};
	pgsql_summarize(&m, true, buf, sizeof buf);
	CHECK(strstr(buf, "SELECT 1") != NULL);
	pgsql_summarize(&m, false, buf, sizeof buf); /* by default no value shown */
	CHECK(strstr(buf, "\"SELECT $1\"") != NULL);
	/* a password message is never shown */
	const uint8_t pw[] = "s3cret\0";
	struct pgsql_msg p = {PGSQL_FE, 'p', false, false, 11, 0, 0, 0, pw, 7};
	pgsql_summarize(&p, true, buf, sizeof buf);
	CHECK(strstr(buf, "s3cret") == NULL);
}

/* Ethernet + IPv4 + TCP from 127.0.0.1:port to :5432 (or back). */
static size_t frame(uint8_t *f, uint16_t cport, bool to_server, uint32_t seq, uint8_t flags,
		    const void *payload, size_t n)
{
	memset(f, 0, 54);
	f[12] = 0x08;
	uint8_t *ip = f + 14;
	ip[0] = 0x45;
	ip[2] = (uint8_t)((40 + n) >> 8);
	ip[3] = (uint8_t)(40 + n);
	ip[9] = 6;
	ip[12] = 127, ip[15] = 1, ip[16] = 127, ip[19] = 1;
	uint8_t *t = ip + 20;
	uint16_t sp = to_server ? cport : 5432, dp = to_server ? 5432 : cport;
	t[0] = (uint8_t)(sp >> 8), t[1] = (uint8_t)sp, t[2] = (uint8_t)(dp >> 8), t[3] = (uint8_t)dp;
	t[4] = (uint8_t)(seq >> 24), t[5] = (uint8_t)(seq >> 16), t[6] = (uint8_t)(seq >> 8);
	t[7] = (uint8_t)seq;
	t[12] = 5 << 4;
	t[13] = flags;
	memcpy(t + 20, payload, n);
	return 54 + n;
}

/* One mid-stream connection with three query round trips. */
static void three_queries(struct analysis *a)
{
	static const uint8_t q[] = "Q\0\0\0\x20SELECT title FROM a WHERE x\0";
	static const uint8_t z[] = "Z\0\0\0\x05I";
	uint8_t f[256];
	uint32_t cs = 100, ss = 900;
	for (int i = 0; i < 3; i++) {
		size_t n = frame(f, 40000, true, cs, 0x18, q, sizeof q - 1);
		analysis_packet(a, 1, f, (uint32_t)n, 1000 + 10 * (uint64_t)i);
		cs += sizeof q - 1;
		n = frame(f, 40000, false, ss, 0x18, z, sizeof z - 1);
		analysis_packet(a, 1, f, (uint32_t)n, 1005 + 10 * (uint64_t)i);
		ss += sizeof z - 1;
	}
	analysis_finish(a);
}

static void rows_cb(void *ctx, int row, int nc, const char *const *names, const char *const *v)
{
	(void)row;
	int *found = ctx;
	for (int i = 0; i < nc; i++)
		if (strcmp(names[i], "round_trips") == 0 && v[i] && strcmp(v[i], "3") == 0)
			(*found)++;
}

/* A new SQLite store under a name made from path's XXXXXX. */
static struct store *new_store(char *path, char *err)
{
	int fd = mkstemp(path);
	close(fd);
	unlink(path);
	return store_open(path, STORE_CREATE, err);
}

/* The store's file and its journal's. */
static void remove_store(const char *path)
{
	char wal[64];
	snprintf(wal, sizeof wal, "%s-wal", path);
	unlink(wal);
	snprintf(wal, sizeof wal, "%s-shm", path);
	unlink(wal);
	unlink(path);
}

static void store_and_read(void)
{
	char path[] = "/tmp/pgrtt-test-output-XXXXXX";
	char err[STORE_ERRBUF];
	struct store *s = new_store(path, err);
	CHECK(s != NULL);
	struct analysis *a = analysis_new();
	CHECK(a != NULL);
	struct analysis_opts o = {.ports = {5432}, .nports = 1};
	CHECK(analysis_init(a, &o) == 0);
	three_queries(a);
	struct store_run_info info = {"app", "test", NULL, 0, false, NULL};
	int64_t id = 0;
	CHECK(store_finish_run(s, a, &info, &id, err) == 0);
	CHECK_EQ_U(id, 1);
	CHECK(store_has_run(s, 1) && !store_has_run(s, 2));
	struct route_query every = {0};
	CHECK_EQ_U(store_latest_matching(s, &every), 1);
	int found = 0;
	CHECK(store_listing(s, STORE_LIST_TOTALS, 1, rows_cb, &found, err) == 1);
	CHECK_EQ_U(found, 1);
	struct evidence ev;
	CHECK(store_run_evidence(s, 1, &ev, err) == 0);
	CHECK_EQ_U(ev.n, 1); /* picked up mid-stream: a note, kept with the run */
	CHECK_EQ_U(ev.f[0].code, EV_MID_STREAM);
	struct run_pings p;
	CHECK(store_run_pings(s, 1, &p, err) == 0 && !p.http && p.acq == 0);
	CHECK(store_delete_run(s, 1, err) == 0 && !store_has_run(s, 1));
	store_close(s);
	/* readers never write: a read-only open of a newer file is refused */
	s = store_open(path, STORE_READ, err);
	CHECK(s != NULL);
	store_close(s);
	analysis_free(a);
	analysis_delete(a);
	remove_store(path);
}

/* Every protocol's page figures (figure.h) are whole, fit the outputs'
 * arrays, and are columns of the store's routes: a run with pages is
 * written and read back through them. */
static void page_figures(void)
{
	const struct proto_ops *p;
	const struct page_figure *f;
	int n = 0, budgets = 0;
	for (; (f = analysis_page_figure(n, &p)); n++) {
		CHECK(f->key && f->head && p->port_option && p->title);
		CHECK(!f->reported || f->title);
		CHECK(!f->option == !f->rule && !f->option == !f->what);
		budgets += f->option != NULL;
	}
	CHECK(n >= 3 && n <= PAGE_FIGS_MAX); /* Redis's three at least */
	CHECK(budgets >= 2);
	/* the connection figures: a kept total (title) has its column */
	const struct conn_figure *c;
	int kept = 0;
	for (; (c = analysis_run_figure(kept, &p)); kept++)
		CHECK(c->column && !c->by_class && p->totals && p->figures_sum);
	CHECK(kept >= 1 && kept <= RUN_FIGS_MAX);
	/* a protocol's findings are codes evidence.h knows (a typo would
	 * silence the finding) */
	for (int id = 0; id < PROTO_N; id++) {
		const struct proto_ops *o = analysis_protocol(id);
		const char *codes[] = {o ? o->code_absent : NULL, o ? o->code_damage : NULL,
				       o ? o->code_only : NULL, o ? o->code_legs : NULL};
		for (int k = 0; k < 4; k++)
			CHECK(!codes[k] || ev_code_parse(codes[k]) >= 0);
		CHECK(!o || !o->totals || (o->code_absent && o->code_damage));
	}
	char path[] = "/tmp/pgrtt-test-figures-XXXXXX";
	char err[STORE_ERRBUF];
	struct store *s = new_store(path, err);
	CHECK(s != NULL);
	struct analysis *a = analysis_new();
	CHECK(a != NULL);
	struct analysis_opts o = {.ports = {5432}, .nports = 1, .http_ports = {8080},
				  .nhttp_ports = 1, .proto_ports[PROTO_REDIS] = {{6379}, 1}};
	CHECK(analysis_init(a, &o) == 0);
	three_queries(a);
	CHECK(!analysis_measured(a, PROTO_REDIS)); /* asked for, none seen: not 0 */
	CHECK(analysis_asked(a, PROTO_REDIS) && analysis_asked(a, PROTO_PGSQL));
	struct store_run_info info = {"app", "test", NULL, 0, false, NULL};
	int64_t id = 0;
	CHECK(store_finish_run(s, a, &info, &id, err) == 0);
	struct route_query every = {.with_mixed_only = true};
	struct route_figures *rows = NULL;
	int nrows = -1;
	CHECK(store_routes(s, &every, &rows, &nrows, err) == 0 && nrows == 0);
	free(rows);
	/* the run's Redis totals went to their columns, and read back: 0 round
	 * trips where the port was named and nothing came (the findings say
	 * no-redis; the count is what was seen) */
	struct run_figures *runs = NULL;
	int nruns = -1;
	CHECK(store_runs(s, &every, &runs, &nruns, err) == 0 && nruns == 1);
	CHECK(nruns == 1 && runs[0].proto_fig[0] == 0);
	CHECK(nruns == 1 && (kept == RUN_FIGS_MAX || isnan(runs[0].proto_fig[kept])));
	free(runs);
	store_close(s);
	analysis_free(a);
	analysis_delete(a);
	remove_store(path);
}

static void json_report(void)
{
	struct analysis *a = analysis_new();
	CHECK(a != NULL);
	struct analysis_opts o = {.ports = {5432}, .nports = 1};
	CHECK(analysis_init(a, &o) == 0);
	three_queries(a);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	char *files[] = {"x.pcap"};
	struct report_input in = {files, 1, false, NULL};
	CHECK(report_json(f, a, &in) == 0);
	fclose(f);
	cJSON *root = cJSON_Parse(buf);
	CHECK(root != NULL);
	cJSON *tot = cJSON_GetObjectItem(root, "totals");
	CHECK(cJSON_GetObjectItem(tot, "round_trips")->valuedouble == 3);
	CHECK(cJSON_IsFalse(cJSON_GetObjectItem(tot, "lower_bound")));
	cJSON *w = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "warnings"), 0);
	CHECK(w && strcmp(cJSON_GetObjectItem(w, "code")->valuestring, "mid-stream") == 0);
	cJSON_Delete(root);
	free(buf);
	analysis_free(a);
	analysis_delete(a);
}

/* What libpq reads from a connection string, as "key=value\n" lines, the
 * secrets' values replaced by "***"; NULL when libpq cannot read it. */
static char *fields(const char *s, bool mask)
{
	PQconninfoOption *o = PQconninfoParse(s, NULL);
	if (!o)
		return NULL;
	static char buf[2][2048];
	char *b = buf[mask];
	size_t n = 0;
	b[0] = '\0';
	for (PQconninfoOption *p = o; p->keyword; p++)
		if (p->val)
			n += (size_t)snprintf(b + n, sizeof buf[0] - n, "%s=%s\n", p->keyword,
					      mask && strchr(p->dispchar, '*') ? "***" : p->val);
	PQconninfoFree(o);
	return b;
}

/* Every way libpq's grammar lets a password be written: the redacted string
 * holds none of it, and libpq reads from it every other field as given. */
static void redaction(void)
{
	static const struct {
		const char *dsn, *secret;
	} cases[] = {
		{"host=127.0.0.1 port=57099 user=pgrtt password = LongSecret123 dbname=pgrtt", "LongSecret123"},
		{"host=h password=x dbname=d", NULL},
		{"host=h password=xy dbname=d", NULL},
		{"host=h password='my secret pw' dbname=d", "secret"},
		{"host=h password=my\\ secret\\ pw dbname=d", "secret"},
		{"host=h password='it\\'s s3cr\\\\et' dbname=d", "s3cr"},
		{"password=Leading1 host=h", "Leading1"},
		{"host=h\tpassword\t=\tTabbed99 dbname=d", "Tabbed99"},
		{"host=h sslpassword=KeyPass42 password=Pw4242", "KeyPass42"},
		{"host=h password= dbname=d", NULL},
		{"postgresql://alice:UriSecret9@db.example:5433/shop?sslmode=disable", "UriSecret9"},
		{"postgres://alice:p%40ss%20word@db/shop", "p%40ss"},
		{"postgresql://alice@db/shop?password=QuerySecret7&sslmode=require", "QuerySecret7"},
		{"postgresql://alice:a@db/shop", NULL},
		{"postgresql://a:SecretInList@h1:5432,h2:5433/shop", "SecretInList"},
		{"postgresql://u:V6Secret@[::1]:55432/db", "V6Secret"},
		{"postgresql://u:SockSecret@/db?host=/var/run/postgresql", "SockSecret"},
		{"postgresql://u@h/db?application_name=a%20b&options=-c%20x%3Dy", NULL},
		{"host=/var/run/postgresql dbname=x password=SocketDir5", "SocketDir5"},
	};
	char shown[1024];
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *dsn = cases[i].dsn;
		CHECK(db_is_pg_uri(dsn));
		db_redact(dsn, shown, sizeof shown);
		if (cases[i].secret && strstr(shown, cases[i].secret)) {
			tt_failures++;
			fprintf(stderr, "redaction: %s shows its secret: %s\n", dsn, shown);
		}
		char *want = fields(dsn, true), *got = fields(shown, false);
		if (!want || !got || strcmp(want, got) != 0) {
			tt_failures++;
			fprintf(stderr, "redaction: %s shown as %s reads as\n%s, not\n%s", dsn, shown,
				got ? got : "(unreadable)\n", want ? want : "(unreadable)\n");
		}
		tt_checks++;
	}
	/* one- and two-character passwords are hidden as any other */
	db_redact("host=h password=q", shown, sizeof shown);
	CHECK_STR(shown, "password=*** host=h"); /* in libpq's order of its fields */
	db_redact("postgresql://u:zz@h/d", shown, sizeof shown);
	CHECK_STR(shown, "postgresql://u:***@h/d");
	/* what libpq cannot read is not echoed: it may hold a password */
	db_redact("host=h password='never closed", shown, sizeof shown);
	CHECK(strstr(shown, "never") == NULL);
	db_redact("postgresql://u:Broken7@h:notaport/d?nosuch=1", shown, sizeof shown);
	CHECK(strstr(shown, "Broken7") == NULL);
	/* files are files, shown as they are */
	db_redact("/tmp/runs=1.db", shown, sizeof shown);
	CHECK_STR(shown, "/tmp/runs=1.db");
	CHECK(!db_is_pg_uri("runs=1.db"));
	CHECK(!db_is_pg_uri("/tmp/pgrtt.db"));
	/* cut short, never past the buffer */
	char tiny[8];
	db_redact("host=h password=Secret99 dbname=d", tiny, sizeof tiny);
	CHECK(strlen(tiny) < sizeof tiny && !strstr(tiny, "Secret"));
}

/* What a store's text becomes: well-formed UTF-8 kept (no copy), a byte that
 * begins no sequence as \xHH - a Latin-1 name, a cut sequence, a lone
 * continuation byte, an overlong form, a surrogate. */
static void utf8_for_stores(void)
{
	CHECK(esc_utf8_dup("caf\xc3\xa9 \x1b[31m plain") == NULL);
	static const struct {
		const char *in, *want;
	} cases[] = {
		{"caf\xe9", "caf\\xe9"},
		{"cut \xe2\x82", "cut \\xe2\\x82"},
		{"\x80lone", "\\x80lone"},
		{"over\xc0\xafong", "over\\xc0\\xafong"},
		{"sur\xed\xa0\x80", "sur\\xed\\xa0\\x80"},
		{"mix\xe9\xc3\xa9", "mix\\xe9\xc3\xa9"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *got = esc_utf8_dup(cases[i].in);
		CHECK_STR(got ? got : "(null)", cases[i].want);
		CHECK(got && esc_utf8_dup(got) == NULL); /* what it makes is well-formed */
		free(got);
	}
}

int main(void)
{
	RUN(escapes);
	RUN(summaries);
	RUN(store_and_read);
	RUN(page_figures);
	RUN(json_report);
	RUN(redaction);
	RUN(utf8_for_stores);
	return TT_EXIT();
}
