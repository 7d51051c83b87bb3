/* test_route.c - request targets to routes. */
#include <stdio.h>
#include <string.h>

#include "attrib/route.h"
#include "attrib/route_learn.h"
#include "tinytest.h"

static const char *r(const struct route_set *rs, const char *m, const char *t)
{
	static char out[ROUTE_MAX];
	route_of(rs, m, t, out, sizeof out);
	return out;
}

static void test_collapse(void)
{
	CHECK(strcmp(r(NULL, "GET", "/articles/42"), "GET /articles/{id}") == 0);
	CHECK(strcmp(r(NULL, "GET", "/articles/42?page=2#c"), "GET /articles/{id}") == 0);
	CHECK(strcmp(r(NULL, "GET", "/"), "GET /") == 0);
	CHECK(strcmp(r(NULL, "GET", "/?q=1"), "GET /") == 0);
	CHECK(strcmp(r(NULL, "GET", "/u/9b2f6c3e-1a2b-4c3d-8e9f-0a1b2c3d4e5f/posts"),
		     "GET /u/{id}/posts") == 0);
	CHECK(strcmp(r(NULL, "GET", "/blob/3f786850e387550fdab836ed7e6dc881de23001b"),
		     "GET /blob/{id}") == 0);
	CHECK(strcmp(r(NULL, "GET", "/articulos/mi-articulo-2024"), "GET /articulos/{slug}") == 0);
	CHECK(strcmp(r(NULL, "POST", "/articles/7/comments"), "POST /articles/{id}/comments") == 0);
	/* words, versions with dots, and short hex words stay */
	CHECK(strcmp(r(NULL, "GET", "/api/v2/feed"), "GET /api/v2/feed") == 0);
	CHECK(strcmp(r(NULL, "GET", "/p/2024-05-01-hola"), "GET /p/{slug}") == 0);
	CHECK(strcmp(r(NULL, "GET", "/static/app.css"), "GET /static/app.css") == 0);
	CHECK(strcmp(r(NULL, "GET", "/cafe/added"), "GET /cafe/added") == 0);
	CHECK(strcmp(r(NULL, "GET", "http://example.com/articles/5?x"), "GET /articles/{id}") == 0);
	CHECK(strcmp(r(NULL, "OPTIONS", "*"), "OPTIONS *") == 0);
	CHECK(strcmp(r(NULL, "CONNECT", "db:5432"), "CONNECT db:5432") == 0);
}

static void test_patterns(void)
{
	static struct route_set rs;
	char err[128];
	CHECK(route_add_pattern(&rs, "GET /articles/{slug}", err, sizeof err));
	CHECK(route_add_pattern(&rs, "/api/*/feed", err, sizeof err));
	CHECK(route_add_pattern(&rs, "/static/**", err, sizeof err));
	CHECK(!route_add_pattern(&rs, "articles", err, sizeof err));
	CHECK(strstr(err, "expected") != NULL);
	CHECK(strcmp(r(&rs, "GET", "/articles/hola-mundo"), "GET /articles/{slug}") == 0);
	CHECK(strcmp(r(&rs, "DELETE", "/articles/3"), "DELETE /articles/{id}") == 0);
	CHECK(strcmp(r(&rs, "GET", "/api/v2/feed?x=1"), "GET /api/*/feed") == 0);
	CHECK(strcmp(r(&rs, "GET", "/static/css/app.css"), "GET /static/**") == 0);
	CHECK(strcmp(r(&rs, "GET", "/articles/"), "GET /articles/") == 0); /* empty segment */
	CHECK(strcmp(r(&rs, "GET", "/articles/1/x"), "GET /articles/{id}/x") == 0);
}

/* a route cut to the room given, always terminated, by every path */
static void test_cut(void)
{
	static struct route_set rs;
	char err[128], out[16];
	CHECK(route_add_pattern(&rs, "/static/**", err, sizeof err));
	static const struct {
		const char *method, *target, *whole;
	} cases[] = {
		{"GET", "/articles/42/comments", "GET /articles/{id}/comments"},
		{"GET", "/static/css/app.css", "GET /static/**"},
		{"OPTIONS", "*", "OPTIONS *"},
		{"CONNECT", "db.example:5432", "CONNECT db.example:5432"},
		{"PROPPATCH", "/", "PROPPATCH /"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		for (size_t cap = 1; cap <= sizeof out; cap++) {
			memset(out, 'x', sizeof out);
			route_of(&rs, cases[i].method, cases[i].target, out, cap);
			size_t n = strlen(cases[i].whole) < cap - 1 ? strlen(cases[i].whole) : cap - 1;
			CHECK(memchr(out, '\0', cap) == out + n);
			CHECK(strncmp(out, cases[i].whole, n) == 0);
			CHECK(cap == sizeof out || out[cap] == 'x'); /* nothing past the room */
		}
}

static const char *learnt(const struct route_learn *l, const char *route)
{
	static char out[ROUTE_MAX];
	route_learn_apply(l, route, out, sizeof out);
	return out;
}

/* A request counted (its name not looked at here) */
static bool see(struct route_learn *l, const char *route)
{
	char name[ROUTE_MAX];
	return route_learn_name(l, route, name, sizeof name);
}

/* A segment is a parameter once it took the threshold's distinct values
 * under the same method, length and learnt prefix; not before, not in the
 * first segment, not across methods or lengths. */
static void test_learn(void)
{
	static const char *const tags[] = {"rust", "go", "postgres", "python", "java", "linux"};
	struct route_learn l;
	route_learn_init(&l, 4);
	char route[ROUTE_MAX];
	for (int rep = 0; rep < 3; rep++) /* repeats are one value */
		for (int i = 0; i < 3; i++) {
			snprintf(route, sizeof route, "GET /tags/%s", tags[i]);
			CHECK(!see(&l, route));
		}
	CHECK(strcmp(learnt(&l, "GET /tags/rust"), "GET /tags/rust") == 0);
	CHECK(l.nparams == 0);
	CHECK(l.pending == 1); /* on its way: page_hold.h waits for it */
	/* other methods, lengths, prefixes and the first segment count apart */
	CHECK(!see(&l, "POST /tags/linux"));
	CHECK(!see(&l, "GET /tags/linux/feed"));
	CHECK(!see(&l, "GET /labels/linux"));
	for (int i = 0; i < 6; i++) {
		snprintf(route, sizeof route, "GET /%s", tags[i]);
		CHECK(!see(&l, route));
	}
	CHECK(strcmp(learnt(&l, "GET /rust"), "GET /rust") == 0);
	/* the fourth value: a parameter, for every value since */
	CHECK(see(&l, "GET /tags/python"));
	CHECK(l.nparams == 1);
	CHECK(l.pending == 0); /* nothing else took two values (the first segment is never watched) */
	CHECK(strcmp(l.notes[0].route, "GET /tags/{slug}") == 0);
	CHECK(strcmp(l.notes[0].example[0], "rust") == 0);
	CHECK(strcmp(l.notes[0].example[2], "postgres") == 0);
	CHECK(strcmp(learnt(&l, "GET /tags/rust"), "GET /tags/{slug}") == 0);
	CHECK(strcmp(learnt(&l, "GET /tags/never-seen"), "GET /tags/{slug}") == 0);
	CHECK(strcmp(learnt(&l, "POST /tags/rust"), "POST /tags/rust") == 0);
	CHECK(strcmp(learnt(&l, "GET /tags/rust/feed"), "GET /tags/rust/feed") == 0);
	CHECK(strcmp(learnt(&l, "GET /tags/{id}"), "GET /tags/{id}") == 0);
	CHECK(!see(&l, "GET /tags/java")); /* already one */
	/* deeper: learnt under the learnt prefix */
	for (int i = 0; i < 4; i++) {
		snprintf(route, sizeof route, "GET /users/%s/repos/r%c", tags[i], 'a' + i);
		see(&l, route);
	}
	CHECK(strcmp(learnt(&l, "GET /users/x/repos/y"), "GET /users/{slug}/repos/y") == 0);
	CHECK(strcmp(l.notes[1].route, "GET /users/{slug}/...") == 0);
	for (int i = 0; i < 4; i++) {
		snprintf(route, sizeof route, "GET /users/u%d/repos/%s", i, tags[i]);
		see(&l, route);
	}
	CHECK(strcmp(learnt(&l, "GET /users/x/repos/y"), "GET /users/{slug}/repos/{slug}") == 0);
	/* no path, and hostile values shown as '?' */
	CHECK(strcmp(learnt(&l, "OPTIONS *"), "OPTIONS *") == 0);
	for (int i = 0; i < 4; i++) {
		snprintf(route, sizeof route, "GET /h/<b>%d\x1b[31m|`", i);
		see(&l, route);
	}
	CHECK(strcmp(l.notes[3].example[0], "?b?0??31m??") == 0);
	route_learn_free(&l);

	/* off: names as they are */
	route_learn_init(&l, 0);
	for (int i = 0; i < 6; i++) {
		snprintf(route, sizeof route, "GET /tags/%s", tags[i]);
		CHECK(!see(&l, route));
	}
	CHECK(strcmp(learnt(&l, "GET /tags/rust"), "GET /tags/rust") == 0);
	route_learn_free(&l);
}

/* The table is bounded: past half full no new position is watched (and
 * counted), and what is watched still works; out cut to its room. */
static void test_learn_bounds(void)
{
	struct route_learn l;
	route_learn_init(&l, 2);
	char route[ROUTE_MAX], out[ROUTE_MAX];
	for (int i = 0; i < 3 * ROUTE_LEARN_SLOTS; i++) {
		snprintf(route, sizeof route, "GET /p%d/a", i);
		see(&l, route);
	}
	CHECK(l.npos == ROUTE_LEARN_SLOTS / 2);
	CHECK(l.full > 0);
	CHECK(l.nparams == 0);
	see(&l, "GET /p0/b");
	CHECK(strcmp(learnt(&l, "GET /p0/zzz"), "GET /p0/{slug}") == 0);
	for (size_t cap = 1; cap <= 20; cap++) {
		memset(out, 'x', sizeof out);
		route_learn_apply(&l, "GET /p0/zzz", out, cap);
		size_t n = strlen("GET /p0/{slug}") < cap - 1 ? strlen("GET /p0/{slug}") : cap - 1;
		CHECK(memchr(out, '\0', cap) == out + n);
		CHECK(strncmp(out, "GET /p0/{slug}", n) == 0);
		CHECK(out[cap] == 'x');
	}
	/* a route of more segments than are learnt keeps the rest */
	char deep[ROUTE_MAX] = "GET ";
	for (int i = 0; i < 40; i++)
		strcat(deep, "/s");
	CHECK(strcmp(learnt(&l, deep), deep) == 0);
	route_learn_free(&l);
}

int main(void)
{
	RUN(test_learn);
	RUN(test_learn_bounds);
	RUN(test_collapse);
	RUN(test_patterns);
	RUN(test_cut);
	return TT_EXIT();
}
