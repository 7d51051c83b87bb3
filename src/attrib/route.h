/* route.h - routes from HTTP requests: "GET /articles/{id}".
 *
 * The query string and fragment are dropped, an absolute-form target loses
 * its scheme and authority, and path segments that identify one object are
 * collapsed: integers, UUIDs and long hex strings become {id}, slugs that
 * carry digits ("mi-articulo-2024") become {slug}.  Patterns given by the
 * user win: "GET /articles/{id}", "/users/<star>", "/static/<star><star>" (a
 * star matches one segment, two stars at the end the rest).
 */
#ifndef PGRTT_ROUTE_H
#define PGRTT_ROUTE_H

#include <stdbool.h>
#include <stddef.h>

#define ROUTE_MAX 256       /* bytes of a route, with its method */
#define ROUTE_PATTERNS_MAX 64

struct route_pattern {
	char method[16];      /* "" matches any method */
	char path[ROUTE_MAX]; /* segments; {x} or a star match one, a final two stars the rest */
	char text[ROUTE_MAX]; /* as given, for error messages */
};

struct route_set {
	struct route_pattern p[ROUTE_PATTERNS_MAX];
	int n;
};

/* Add a pattern "[METHOD ]/path".  Returns false, with a reason in err, if
 * it is not a path or there are too many. */
bool route_add_pattern(struct route_set *rs, const char *pattern, char *err, size_t errlen);

/* s[0..n) at out + o, cut to cap (the NUL's room kept): the new o */
size_t route_put(char *out, size_t cap, size_t o, const char *s, size_t n);

/* The route of a request into out[0..cap): the first matching pattern of rs
 * (may be NULL), else the collapsed path.  Returns true for a pattern's. */
bool route_of(const struct route_set *rs, const char *method, const char *target, char *out,
	      size_t cap);

#endif
