/* test_route.c - request targets to routes. */
#include <string.h>

#include "route.h"
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

int main(void)
{
	RUN(test_collapse);
	RUN(test_patterns);
	RUN(test_cut);
	return TT_EXIT();
}
