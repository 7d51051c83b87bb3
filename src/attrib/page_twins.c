/* page_twins.c - a proxy's copies of the application's pages (page_twins.h). */
#define _DEFAULT_SOURCE /* strnlen */
#include "page_twins.h"

#include <stdlib.h>
#include <string.h>

#include "base/hash.h"

void page_twins_init(struct page_twins *tw)
{
	memset(tw, 0, sizeof(*tw));
}

void page_twins_free(struct page_twins *tw)
{
	free(tw->ring);
	free(tw->head);
	tw->ring = NULL;
	tw->head = NULL;
}

/* never 0 */
uint64_t page_twins_key(const char *method, const char *target, size_t target_len)
{
	return (mem_hash64(method, strlen(method)) * 0x9e3779b97f4a7c15ull ^
		mem_hash64(target, target_len)) |
	       1;
}

void page_twins_keys(const char *method, const char *target, size_t target_len,
		     struct twin_keys *out)
{
	out->k[0] = page_twins_key(method, target, target_len);
	out->n = 1;
	size_t at = 0;
	while (out->n < TWIN_KEYS && at < target_len && target[at] == '/') {
		const char *next = memchr(target + at + 1, '/', target_len - at - 1);
		const char *query = memchr(target + at + 1, '?', target_len - at - 1);
		if (!next || (query && query < next))
			break; /* the last segment: nothing left to pass on */
		at = (size_t)(next - target);
		out->k[out->n++] = page_twins_key(method, target + at, target_len - at);
	}
}

uint16_t page_twins_endpoint(struct page_twins *tw, const char *name)
{
	size_t n = strnlen(name, TWIN_NAME_MAX - 1);
	uint64_t h = mem_hash64(name, n);
	for (uint16_t i = 0; i < tw->nep; i++)
		if (tw->ep[i].hash == h && strncmp(tw->ep[i].name, name, n) == 0 &&
		    tw->ep[i].name[n] == '\0')
			return i;
	if (tw->nep == TWIN_ENDPOINTS)
		return TWIN_NONE;
	struct twin_endpoint *e = &tw->ep[tw->nep];
	e->hash = h;
	memcpy(e->name, name, n);
	e->name[n] = '\0';
	e->inner = TWIN_NONE;
	if (tw->nep == 1 && !tw->ring) { /* a second endpoint: pages can be twins */
		tw->ring = calloc(TWIN_RING, sizeof(*tw->ring));
		tw->head = calloc(TWIN_HEADS, sizeof(*tw->head));
		if (!tw->ring || !tw->head)
			page_twins_free(tw);
	}
	return tw->nep++;
}

/* How long after page x's answer began, or after it ended if that is
 * nearer, an answer beginning at t_answer came (a proxy that passes the
 * answer on as it comes, or once it has all of it) */
static uint64_t answer_gap(const struct twin_page *x, uint64_t t_answer)
{
	uint64_t after_start = t_answer - x->t_answer; /* t_answer >= x->t_answer */
	uint64_t from_end = t_answer >= x->t1 ? t_answer - x->t1 : x->t1 - t_answer;
	return after_start < from_end ? after_start : from_end;
}

/* Of the pages completed under key that could be the inner twin of one
 * that began at t0 and answered at t_answer on endpoint ep, the one whose
 * request came first after t0, if it came before *best (which it sets) */
static struct twin_page *inner_of(struct page_twins *tw, uint16_t ep, uint64_t key, uint64_t t0,
				  uint64_t t_answer, uint64_t *best)
{
	uint32_t h = (uint32_t)(key % TWIN_HEADS);
	struct twin_page *in = NULL;
	uint32_t at = tw->head[h].at;
	uint64_t seq = tw->head[h].seq;
	/* newest first; a page that ended before this one began is no twin,
	 * nor is any before it */
	for (uint32_t n = 0; seq && tw->ring[at].seq == seq && n < TWIN_WALK; n++) {
		struct twin_page *x = &tw->ring[at];
		if (x->t1 < t0)
			break;
		/* inside this one's window, answered within TWIN_NEAR_NS of
		 * its end: of those, the one whose request came first after
		 * this one's - a proxy passes requests on as they come, while
		 * how soon it answers hangs on its buffering and its CPU
		 * (nearest at both ends took the next page's twin under load).
		 * No bound on the forwarding: a proxy may wait to connect (an
		 * app's listen queue full: nginx's SYN again after 1 s) */
		if (x->key == key && x->endpoint != ep && !x->taken && x->t0 >= t0 &&
		    t_answer >= x->t_answer && t_answer <= x->t1 + TWIN_NEAR_NS &&
		    x->t0 - t0 < *best) {
			*best = x->t0 - t0;
			in = x;
		}
		at = x->prev;
		seq = x->prev_seq;
	}
	return in;
}

bool page_twins_done(struct page_twins *tw, uint16_t ep, const struct twin_keys *keys,
		     uint64_t t0, uint64_t t_answer, uint64_t t1)
{
	if (ep == TWIN_NONE || !tw->ring)
		return false;
	struct twin_page *in = NULL;
	uint64_t best = UINT64_MAX;
	for (uint32_t j = 0; j < keys->n && j < TWIN_KEYS; j++) {
		struct twin_page *x = inner_of(tw, ep, keys->k[j], t0, t_answer, &best);
		in = x ? x : in;
	}
	struct twin_endpoint *e = &tw->ep[ep];
	e->pages++;
	if (in) {
		in->taken = true;
		e->twinned++;
		e->tight += in->t0 - t0 <= TWIN_TIGHT_NS && answer_gap(in, t_answer) <= TWIN_TIGHT_NS;
		e->inner = in->endpoint;
	}
	/* this page, by its own target, as a candidate inner one for a
	 * proxy's page to come */
	uint32_t h = (uint32_t)(keys->k[0] % TWIN_HEADS);
	uint32_t slot = (uint32_t)(tw->seq++ % TWIN_RING);
	tw->ring[slot] = (struct twin_page){.key = keys->k[0], .t0 = t0, .t_answer = t_answer,
					    .t1 = t1, .seq = tw->seq, .prev = tw->head[h].at,
					    .prev_seq = tw->head[h].seq, .endpoint = ep};
	tw->head[h].at = slot;
	tw->head[h].seq = tw->seq;
	return in != NULL;
}

bool page_twins_proxy(const struct page_twins *tw, uint16_t ep)
{
	if (ep == TWIN_NONE)
		return false;
	const struct twin_endpoint *e = &tw->ep[ep];
	return e->tight >= TWIN_MIN && e->tight * 2 >= e->pages;
}

bool page_twins_pending(const struct page_twins *tw)
{
	for (uint16_t i = 0; tw && tw->ring && i < tw->nep; i++) {
		const struct twin_endpoint *e = &tw->ep[i];
		if (e->tight && e->tight < TWIN_MIN && e->tight * 2 >= e->pages)
			return true;
	}
	return false;
}

bool page_twins_keep(struct page_twins *tw, uint16_t ep, bool twin)
{
	if (!twin || ep == TWIN_NONE)
		return true;
	if (page_twins_proxy(tw, ep)) {
		tw->ep[ep].left_out++;
		return false;
	}
	tw->ep[ep].late++;
	return true;
}
