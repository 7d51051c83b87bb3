/* test_manifest.c - pgrtt bench's app manifests: the bundled ones parse,
 * variants become apps sharing one build, every malformed input is a
 * one-line error naming what is wrong (and appends nothing), the
 * harness's contract cannot be overridden, $APP/$BUILD/$BENCH expand, and
 * requirements name the apt-get line. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "bench/bench_manifest.h"
#include "tinytest.h"

static struct bench_apps apps;
static char err[512];

static int parse(const char *json)
{
	err[0] = '\0';
	return bench_manifest_parse(json, strlen(json), "/srv/app", &apps, err, sizeof err);
}

static void test_minimal(void)
{
	apps.n = 0;
	CHECK(parse("{\"name\": \"x\", \"stack\": \"X\", \"run\": [\"$BUILD/app\", \"-v\"]}") == 0);
	CHECK_EQ_U(apps.n, 1);
	CHECK(strcmp(apps.app[0].name, "x") == 0);
	CHECK(strcmp(apps.app[0].dir, "/srv/app") == 0);
	CHECK(strcmp(apps.app[0].build_id, "x") == 0);
	CHECK_EQ_U(apps.app[0].nrun, 2);
	CHECK(apps.app[0].start_timeout == 60);
	CHECK(apps.app[0].build[0] == '\0');
}

static void test_variants(void)
{
	apps.n = 0;
	CHECK(parse("{\"name\": \"c\", \"stack\": \"C\", \"build\": \"make\", \"run\": [\"a\"],"
		    " \"env\": {\"COMMON\": \"1\"}, \"dir\": \"sub\", \"variants\": ["
		    "{\"name\": \"c-one\", \"pattern\": \"3\", \"env\": {\"MODE\": \"one\"}},"
		    "{\"name\": \"c-two\", \"stack\": \"C two\", \"env\": {\"MODE\": \"two\"}}]}") == 0);
	CHECK_EQ_U(apps.n, 2);
	CHECK(strcmp(apps.app[0].name, "c-one") == 0 && strcmp(apps.app[1].name, "c-two") == 0);
	CHECK(strcmp(apps.app[0].build_id, "c") == 0 && strcmp(apps.app[1].build_id, "c") == 0);
	CHECK(strcmp(apps.app[0].stack, "C") == 0 && strcmp(apps.app[1].stack, "C two") == 0);
	CHECK(strcmp(apps.app[0].pattern, "3") == 0);
	CHECK_EQ_U(apps.app[1].nenv, 2);
	CHECK(strcmp(apps.app[1].env[0], "COMMON=1") == 0 && strcmp(apps.app[1].env[1], "MODE=two") == 0);
	CHECK(strcmp(apps.app[0].dir, "/srv/app/sub") == 0);
}

static void test_config_list(void)
{
	apps.n = 0;
	CHECK(parse("{\"apps\": [{\"name\": \"a\", \"stack\": \"A\", \"run\": [\"a\"], \"dir\": \"/abs\"},"
		    " {\"name\": \"b\", \"stack\": \"B\", \"run\": [\"b\"]}]}") == 0);
	CHECK_EQ_U(apps.n, 2);
	CHECK(strcmp(apps.app[0].dir, "/abs") == 0);
	CHECK(parse("[{\"name\": \"c\", \"stack\": \"C\", \"run\": [\"c\"]}]") == 0);
	CHECK_EQ_U(apps.n, 3);
}

/* each bad input: an error that names the problem, and nothing appended */
static void bad(const char *json, const char *says)
{
	int n0 = apps.n;
	bool failed = parse(json) != 0;
	CHECK(failed);
	CHECK(apps.n == n0);
	if (!strstr(err, says)) {
		fprintf(stderr, "  error \"%s\" does not say \"%s\"\n", err, says);
		CHECK(!"the error names the problem");
	}
	CHECK(!strchr(err, '\n'));
}

static void test_errors(void)
{
	apps.n = 0;
	bad("", "not valid JSON");
	bad("{\"name\": \"x\"", "not valid JSON");
	bad("42", "JSON object");
	bad("{\"stack\": \"X\", \"run\": [\"a\"]}", "\"name\" is missing");
	bad("{\"name\": 3, \"stack\": \"X\", \"run\": [\"a\"]}", "\"name\" must be a string");
	bad("{\"name\": \"Bad Name\", \"stack\": \"X\", \"run\": [\"a\"]}", "a name is");
	bad("{\"name\": \"x\", \"run\": [\"a\"]}", "\"stack\" is missing");
	bad("{\"name\": \"x\", \"stack\": \"X\"}", "\"run\" must be");
	bad("{\"name\": \"x\", \"stack\": \"X\", \"run\": []}", "\"run\" must be");
	bad("{\"name\": \"x\", \"stack\": \"X\", \"run\": [\"\"]}", "\"run\" must be");
	bad("{\"name\": \"x\", \"stack\": \"X\", \"run\": \"a\"}", "\"run\" must be");
	bad("{\"name\": \"x\", \"stack\": \"X\", \"run\": [\"a\"], \"buld\": \"make\"}",
	    "unknown key \"buld\"");
	bad("{\"name\": \"x\", \"stack\": \"X\", \"run\": [\"a\"], \"env\": {\"PORT\": \"1\"}}",
	    "set by the harness");
	bad("{\"name\": \"x\", \"stack\": \"X\", \"run\": [\"a\"], \"env\": {\"DATABASE_URL\": \"1\"}}",
	    "set by the harness");
	bad("{\"name\": \"x\", \"stack\": \"X\", \"run\": [\"a\"], \"env\": {\"lower\": \"1\"}}",
	    "a NAME");
	bad("{\"name\": \"x\", \"stack\": \"X\", \"run\": [\"a\"], \"env\": {\"N\": 1}}", "a NAME");
	bad("{\"name\": \"x\", \"stack\": \"X\", \"run\": [\"a\"], \"start_timeout\": 0}",
	    "start_timeout");
	bad("{\"name\": \"x\", \"stack\": \"X\", \"run\": [\"a\"], \"requires\": [{\"apt\": \"p\"}]}",
	    "a command or a path");
	bad("{\"name\": \"x\", \"stack\": \"X\", \"run\": [\"a\"], \"requires\": [{\"command\": \"a\","
	    " \"path\": \"/b\"}]}",
	    "a command or a path");
	bad("{\"name\": \"x\", \"stack\": \"X\", \"run\": [\"a\"], \"requires\": [{\"cmd\": \"a\"}]}",
	    "unknown key \"cmd\"");
	bad("{\"name\": \"x\", \"stack\": \"X\", \"run\": [\"a\"], \"variants\": []}", "non-empty");
	bad("{\"name\": \"x\", \"stack\": \"X\", \"run\": [\"a\"], \"variants\": [{\"stack\": \"Y\"}]}",
	    "\"name\" is missing");
	bad("{\"name\": \"x\", \"stack\": \"X\", \"run\": [\"a\"], \"variants\": [{\"name\": \"y\","
	    " \"run\": [\"b\"]}]}",
	    "unknown key \"run\"");
	bad("[{\"name\": \"x\", \"stack\": \"X\", \"run\": [\"a\"]}, {\"name\": \"x\", \"stack\": \"Y\","
	    " \"run\": [\"b\"]}]",
	    "defined twice");
	bad("{\"apps\": {\"name\": \"x\"}}", "\"apps\" must be an array");
	bad("{\"apps\": [], \"extra\": 1}", "unknown key \"extra\"");
	/* bounded: a string longer than its field is an error, not a cut */
	char big[2048] = "{\"name\": \"x\", \"stack\": \"";
	memset(big + strlen(big), 'a', 300);
	strcat(big, "\", \"run\": [\"a\"]}");
	bad(big, "longer than");
	/* a duplicate against apps already loaded (another manifest) */
	apps.n = 0;
	CHECK(parse("{\"name\": \"x\", \"stack\": \"X\", \"run\": [\"a\"]}") == 0);
	bad("{\"name\": \"x\", \"stack\": \"X2\", \"run\": [\"a\"]}", "defined twice");
}

static void test_expand(void)
{
	char out[128];
	CHECK(bench_expand("$BUILD/app", "/a", "/b", "/c", out, sizeof out) == 0);
	CHECK(strcmp(out, "/b/app") == 0);
	CHECK(bench_expand("${APP}x $BENCH/q $BUILDX $HOME", "/a", "/b", "/c", out, sizeof out) == 0);
	CHECK(strcmp(out, "/ax /c/q $BUILDX $HOME") == 0);
	CHECK(bench_expand("$BUILD$BUILD", "/a", "0123456789", "/c", out, 15) == -1);
}

static void test_runnable(void)
{
	apps.n = 0;
	CHECK(parse("{\"name\": \"x\", \"stack\": \"X\", \"run\": [\"a\"], \"requires\": ["
		    "{\"command\": \"sh\"}, {\"path\": \"/\"}]}") == 0);
	char why[300] = "";
	CHECK(bench_app_runnable(&apps.app[0], why, sizeof why));
	CHECK(parse("{\"name\": \"y\", \"stack\": \"Y\", \"run\": [\"a\"], \"requires\": ["
		    "{\"command\": \"no-such-command-pgrtt\", \"apt\": \"pkg-a\"},"
		    "{\"path\": \"/no/such/path\", \"apt\": \"pkg-b\"}, {\"command\": \"sh\", \"apt\": \"dash\"}]}") == 0);
	CHECK(!bench_app_runnable(&apps.app[1], why, sizeof why));
	CHECK(strcmp(why, "no-such-command-pgrtt, /no/such/path missing: apt-get install -y pkg-a pkg-b") == 0);
}

/* the manifests bench/apps holds */
static void test_bundled(void)
{
	apps.n = 0;
	CHECK(bench_manifest_load_dir(PGRTT_BENCH_SRC, &apps, err, sizeof err) == 0);
	if (err[0])
		fprintf(stderr, "  %s\n", err);
	CHECK(apps.n >= 7);
	CHECK(strcmp(apps.app[0].name, "c-pgx") == 0); /* the reference comes first */
	int c = 0;
	for (int i = 0; i < apps.n; i++)
		c += strcmp(apps.app[i].build_id, "c-libpq") == 0;
	CHECK_EQ_U(c, 5);
}

int main(void)
{
	RUN(test_minimal);
	RUN(test_variants);
	RUN(test_config_list);
	RUN(test_errors);
	RUN(test_expand);
	RUN(test_runnable);
	RUN(test_bundled);
	return TT_EXIT();
}
