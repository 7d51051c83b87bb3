/* route_learn.c - route segments that take many values are parameters
 * (route_learn.h). */
#define _POSIX_C_SOURCE 200809L /* strnlen */
#include "route_learn.h"
#include "base/hash.h"

#include <stdlib.h>
#include <string.h>

#define SEGMENTS_MAX 32 /* deeper segments are neither learnt nor collapsed */
#define PARAM "{slug}"

/* What learning keeps of a position besides its hashes: its first values,
 * for the note (route_learn_note). */
struct pos_examples {
	char v[ROUTE_LEARN_EXAMPLES][ROUTE_LEARN_EXAMPLE_MAX + 1];
};

void route_learn_init(struct route_learn *l, uint32_t threshold)
{
	memset(l, 0, sizeof(*l));
	l->threshold = threshold > ROUTE_LEARN_MAX ? ROUTE_LEARN_MAX : threshold;
	if (l->threshold == 1)
		l->threshold = 2; /* one value is no parameter */
}

void route_learn_free(struct route_learn *l)
{
	for (uint32_t i = 0; l->pos && i < ROUTE_LEARN_SLOTS; i++)
		free(l->pos[i].seen);
	free(l->pos);
	l->pos = NULL;
}

/* A route's parts: its method's length and its path's segments (after
 * each '/'), or false when it has no path to learn from. */
struct parts {
	size_t mlen;
	uint32_t n;
	const char *seg[SEGMENTS_MAX];
	size_t len[SEGMENTS_MAX];
	const char *rest; /* past SEGMENTS_MAX segments: kept as it is */
};

static bool split(const char *route, struct parts *p)
{
	const char *sp = strchr(route, ' ');
	if (!sp || sp[1] != '/')
		return false;
	p->mlen = (size_t)(sp - route);
	p->n = 0;
	p->rest = NULL;
	for (const char *s = sp + 1; *s == '/';) {
		if (p->n == SEGMENTS_MAX) {
			p->rest = s;
			break;
		}
		const char *b = s + 1, *e = b;
		while (*e && *e != '/')
			e++;
		p->seg[p->n] = b;
		p->len[p->n++] = (size_t)(e - b);
		s = e;
	}
	return true;
}

static bool placeholder(const char *s, size_t n)
{
	return n >= 2 && s[0] == '{' && s[n - 1] == '}';
}

/* The position of segment k of n after the learnt prefix pre[0..plen): its
 * slot, or NULL (create: a free one taken while the table is under half
 * full). */
static struct route_learn_pos *find(struct route_learn *l, const char *pre, size_t plen,
				    uint32_t k, uint32_t n, bool create)
{
	if (!l->pos)
		return NULL;
	uint64_t key = mem_hash64(pre, plen);
	key ^= ((uint64_t)n << 32 | k) * 0x9e3779b97f4a7c15ull;
	key = key ? key : 1;
	for (uint32_t i = (uint32_t)(key >> 40) % ROUTE_LEARN_SLOTS;; i = (i + 1) % ROUTE_LEARN_SLOTS) {
		struct route_learn_pos *x = &l->pos[i];
		if (x->key == key)
			return x;
		if (x->key == 0) { /* at most half full: the probe ends */
			if (!create)
				return NULL;
			if (l->npos >= ROUTE_LEARN_SLOTS / 2) {
				l->full++;
				return NULL;
			}
			x->seen = malloc(l->threshold * sizeof(*x->seen) + sizeof(struct pos_examples));
			if (!x->seen) {
				l->nomem = true;
				return NULL;
			}
			x->key = key;
			x->n = 0;
			x->param = false;
			l->npos++;
			return x;
		}
	}
}

/* A value as a note shows it: [A-Za-z0-9._~-], the rest '?', cut. */
static void example(char *dst, const char *s, size_t n)
{
	size_t m = n < ROUTE_LEARN_EXAMPLE_MAX ? n : ROUTE_LEARN_EXAMPLE_MAX;
	for (size_t i = 0; i < m; i++) {
		char c = s[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			  c == '.' || c == '_' || c == '~' || c == '-';
		dst[i] = ok ? c : '?';
	}
	dst[m] = '\0';
}

/* Value v (hash h) counted at position x: true when x became a parameter. */
static bool count_value(struct route_learn *l, struct route_learn_pos *x, uint64_t h,
			const char *v, size_t vlen)
{
	for (uint32_t i = 0; i < x->n; i++)
		if (x->seen[i] == h)
			return false;
	struct pos_examples *ex = (struct pos_examples *)(x->seen + l->threshold);
	if (x->n < ROUTE_LEARN_EXAMPLES)
		example(ex->v[x->n], v, vlen);
	x->seen[x->n++] = h;
	l->pending += x->n == 2;
	if (x->n < l->threshold)
		return false;
	l->pending--; /* n >= threshold >= 2: it was counted */
	return true;
}

/* The walk both share: route's segments after the method, each learnt
 * parameter as {slug}, into out (learn: counting each value first). */
static bool walk(struct route_learn *l, const char *route, char *out, size_t cap, bool learn)
{
	struct parts p;
	bool became = false;
	if (!split(route, &p)) { /* "*", an authority: as it is */
		size_t n = strnlen(route, cap - 1);
		memcpy(out, route, n);
		out[n] = '\0';
		return false;
	}
	size_t o = route_put(out, cap, 0, route, p.mlen + 1); /* "GET " */
	for (uint32_t k = 0; k < p.n; k++) {
		const char *s = p.seg[k];
		size_t n = p.len[k];
		struct route_learn_pos *x = NULL;
		if (k > 0 && n > 0 && !placeholder(s, n) && o + 1 < cap)
			x = find(l, out, o, k, p.n, learn);
		if (x && !x->param && learn &&
		    count_value(l, x, mem_hash64(s, n), s, n)) {
			x->param = true;
			became = true;
			if (l->nparams < ROUTE_LEARN_NOTES) {
				struct route_learn_note *nt = &l->notes[l->nparams];
				const struct pos_examples *ex =
					(const struct pos_examples *)(x->seen + l->threshold);
				size_t r = route_put(nt->route, sizeof nt->route, 0, out, o);
				r = route_put(nt->route, sizeof nt->route, r, "/" PARAM, strlen(PARAM) + 1);
				if (k + 1 < p.n)
					r = route_put(nt->route, sizeof nt->route, r, "/...", 4);
				nt->route[r] = '\0';
				memcpy(nt->example, ex->v, sizeof nt->example);
			}
			l->nparams++;
			free(x->seen); /* a parameter needs none of its values */
			x->seen = NULL;
		}
		o = route_put(out, cap, o, "/", 1);
		if (x && x->param)
			o = route_put(out, cap, o, PARAM, strlen(PARAM));
		else
			o = route_put(out, cap, o, s, n);
	}
	if (p.rest)
		o = route_put(out, cap, o, p.rest, strlen(p.rest));
	out[o] = '\0';
	return became;
}

bool route_learn_name(struct route_learn *l, const char *route, char *out, size_t cap)
{
	if (cap == 0)
		return false;
	if (l->threshold == 0) {
		size_t n = strnlen(route, cap - 1);
		memcpy(out, route, n);
		out[n] = '\0';
		return false;
	}
	if (!l->pos && !l->nomem) {
		l->pos = calloc(ROUTE_LEARN_SLOTS, sizeof(*l->pos));
		l->nomem = !l->pos;
	}
	return walk(l, route, out, cap, true);
}

void route_learn_apply(const struct route_learn *l, const char *route, char *out, size_t cap)
{
	if (cap == 0)
		return;
	if (l->threshold == 0 || !l->pos || l->nparams == 0) {
		size_t n = strnlen(route, cap - 1);
		memcpy(out, route, n);
		out[n] = '\0';
		return;
	}
	/* without learn, walk only looks positions up: l is not changed */
	walk((struct route_learn *)l, route, out, cap, false);
}
