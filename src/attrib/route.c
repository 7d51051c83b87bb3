/* route.c - request targets to routes (see route.h). */
#include "route.h"

#include <stdio.h>
#include <string.h>

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* 8-4-4-4-12 hex digits */
static bool is_uuid(const char *s, size_t n)
{
	if (n != 36)
		return false;
	for (size_t i = 0; i < n; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;
		if (dash ? s[i] != '-' : !is_hex(s[i]))
			return false;
	}
	return true;
}

/* What a path segment stands for: NULL to keep it, else a placeholder. */
static const char *placeholder(const char *s, size_t n)
{
	if (n == 0)
		return NULL;
	size_t digits = 0, hex = 0, alpha = 0, seps = 0, other = 0;
	for (size_t i = 0; i < n; i++) {
		if (is_digit(s[i]))
			digits++;
		else if (is_alpha(s[i]))
			alpha++;
		else if (s[i] == '-' || s[i] == '_')
			seps++;
		else
			other++;
		if (is_hex(s[i]))
			hex++;
	}
	if (digits == n)
		return "{id}";
	if (is_uuid(s, n))
		return "{id}";
	if (hex == n && n >= 16 && digits > 0)
		return "{id}"; /* hashes, object ids */
	if (digits > 0 && alpha > 0 && seps > 0 && other == 0)
		return "{slug}"; /* words and digits joined: "mi-articulo-2024", not "v2" */
	return NULL;
}

/* The path of a request-target: no scheme://authority, query or fragment. */
static void path_of(const char *target, const char **p, size_t *n)
{
	const char *t = target;
	const char *scheme = strstr(t, "://");
	if (t[0] != '/' && scheme) {
		t = strchr(scheme + 3, '/');
		if (!t)
			t = "/";
	}
	size_t len = strcspn(t, "?#");
	*p = t;
	*n = len;
}

bool route_add_pattern(struct route_set *rs, const char *pattern, char *err, size_t errlen)
{
	if (rs->n == ROUTE_PATTERNS_MAX) {
		snprintf(err, errlen, "at most %d route patterns", ROUTE_PATTERNS_MAX);
		return false;
	}
	struct route_pattern *p = &rs->p[rs->n];
	memset(p, 0, sizeof *p);
	const char *sp = strchr(pattern, ' ');
	const char *path = pattern;
	if (sp) {
		size_t m = (size_t)(sp - pattern);
		if (m == 0 || m >= sizeof p->method) {
			snprintf(err, errlen, "bad method in route pattern \"%s\"", pattern);
			return false;
		}
		memcpy(p->method, pattern, m);
		path = sp + 1;
	}
	if (path[0] != '/' || strlen(path) >= sizeof p->path || strlen(pattern) >= sizeof p->text) {
		snprintf(err, errlen, "route pattern \"%s\": expected [METHOD ]/path", pattern);
		return false;
	}
	strcpy(p->path, path);
	strcpy(p->text, pattern);
	rs->n++;
	return true;
}

/* Does the pattern path match path[0..n)? */
static bool match_path(const char *pat, const char *path, size_t n)
{
	size_t i = 0, j = 0, plen = strlen(pat);
	while (i < plen && j <= n) {
		/* one segment each: pattern [i, ie), path [j, je) */
		size_t ie = i + 1, je = j + 1;
		if (pat[i] != '/' || j >= n || path[j] != '/')
			return false;
		while (ie < plen && pat[ie] != '/')
			ie++;
		while (je < n && path[je] != '/')
			je++;
		const char *ps = pat + i + 1;
		size_t pn = ie - i - 1, sn = je - j - 1;
		if (pn == 2 && memcmp(ps, "**", 2) == 0 && ie == plen)
			return true;
		bool wild = (pn == 1 && ps[0] == '*') || (pn >= 2 && ps[0] == '{' && ps[pn - 1] == '}');
		if (wild ? sn == 0 : (pn != sn || memcmp(ps, path + j + 1, sn) != 0))
			return false;
		i = ie;
		j = je;
	}
	return i == plen && j == n;
}

/* Not snprintf: this runs for every page, and formatting was most of it. */
size_t route_put(char *out, size_t cap, size_t o, const char *s, size_t n)
{
	size_t room = o + 1 < cap ? cap - 1 - o : 0;
	n = n < room ? n : room;
	memcpy(out + o, s, n);
	return o + n;
}

/* "METHOD rest" into out */
static void method_and(char *out, size_t cap, const char *method, const char *rest)
{
	size_t o = route_put(out, cap, 0, method, strlen(method));
	o = route_put(out, cap, o, " ", 1);
	o = route_put(out, cap, o, rest, strlen(rest));
	out[o] = '\0';
}

bool route_of(const struct route_set *rs, const char *method, const char *target, char *out,
	      size_t cap)
{
	const char *p;
	size_t n;
	if (cap == 0)
		return false;
	if (target[0] != '/' && !strstr(target, "://")) { /* "*", authority-form */
		method_and(out, cap, method, target);
		return false;
	}
	path_of(target, &p, &n);
	for (int k = 0; rs && k < rs->n; k++) {
		const struct route_pattern *pt = &rs->p[k];
		if (pt->method[0] && strcmp(pt->method, method) != 0)
			continue;
		if (match_path(pt->path, p, n)) {
			method_and(out, cap, method, pt->path);
			return true;
		}
	}
	size_t o = route_put(out, cap, 0, method, strlen(method));
	o = route_put(out, cap, o, " ", 1);
	if (n == 0 && o + 1 < cap)
		out[o++] = '/';
	for (size_t i = 0; i < n && o + 1 < cap;) {
		if (p[i] != '/') { /* a path not starting with '/' cannot happen here */
			out[o++] = p[i++];
			continue;
		}
		size_t e = i + 1;
		while (e < n && p[e] != '/')
			e++;
		const char *ph = placeholder(p + i + 1, e - i - 1);
		out[o++] = '/';
		const char *src = ph ? ph : p + i + 1;
		size_t len = ph ? strlen(ph) : e - i - 1;
		for (size_t k = 0; k < len && o + 1 < cap; k++)
			out[o++] = src[k];
		i = e;
	}
	out[o] = '\0';
	return false;
}
