/* page_twins.h - a page seen twice: a proxy in front of the application,
 * both of their ports given to --http-port.
 *
 * nginx on :80 passing each request on to the app on :8080 makes every page
 * twice: the proxy's request (outer) and, inside its window, the app's
 * (inner) with the same method and target.  Counted twice, every route's
 * figures halved (1.50 round trips per page for 3, with an interval of
 * 1.50-1.50).  So as a response completes, its page is the outer copy of
 * another when a page on another server endpoint, not yet taken by one,
 * has the same method and target (or this one's target less a prefix,
 * below), its request came after this one's, and
 * this one's answer began after that page's began and no later than
 * TWIN_NEAR_NS after it ended; of several, the one whose request came
 * first (a proxy passes requests on as they come).
 *
 * Such nesting can be chance: two instances of an app, both ports given,
 * serving one path at once - a slow instance's page holds one of a fast
 * one's most of the time.  A proxy's timing is what tells it: it forwards
 * and answers within microseconds.  An endpoint is taken for a proxy once
 * TWIN_MIN of its pages had twins within TWIN_TIGHT_NS at both ends and
 * at least half of all its pages did; only then are its twinned pages left
 * out - the inner one is kept, its window being the application's own
 * work - and its other pages (paths a proxy answers itself) kept.  The
 * first pages are held (page_hold.h, also with learning off, and longer
 * while page_twins_pending) and decided as they leave, with what the
 * capture had shown by then; past the hold, as they complete (a proxy that
 * appears only then has its first twinned pages counted twice, and said
 * so: late).  A proxy may strip a prefix of one or two path segments
 * (nginx's location /api/ { proxy_pass http://app/; }): /api/articles/3
 * passed on as /articles/3 is its twin too.  One that rewrites the target
 * otherwise is not recognised.
 *
 * Pure bookkeeping on the reading thread: the last TWIN_RING completed
 * pages' keys and times, chained by key (one target fetched by 50 clients
 * at once completes dozens of pages between a proxy's page and its twin);
 * at most TWIN_WALK of them looked at per page; TWIN_ENDPOINTS endpoints
 * (beyond them, nothing is followed). */
#ifndef PGRTT_PAGE_TWINS_H
#define PGRTT_PAGE_TWINS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TWIN_RING 4096
#define TWIN_HEADS 1024
#define TWIN_WALK 256
#define TWIN_ENDPOINTS 32
#define TWIN_NONE 0xffff
#define TWIN_MIN 16
#define TWIN_NEAR_NS 100000000ull /* 100 ms: answered after its twin ended */
#define TWIN_TIGHT_NS 2000000ull   /* 2 ms: a proxy's, by its timing */
#define TWIN_NAME_MAX 64

struct twin_page {
	uint64_t key;
	uint64_t t0, t_answer, t1;
	uint64_t seq, prev_seq; /* its number (from 1); the same bucket's page before it */
	uint32_t prev;
	uint16_t endpoint;
	bool taken; /* some outer page's twin already */
};

struct twin_endpoint {
	uint64_t hash;
	char name[TWIN_NAME_MAX];
	uint64_t pages, twinned; /* completed; of them, with an inner twin */
	uint64_t tight;          /* of those, forwarded and answered within TWIN_TIGHT_NS */
	uint64_t left_out;       /* twinned pages not counted (it is a proxy) */
	uint64_t late;           /* twinned pages counted before it was known for one */
	uint16_t inner;          /* the endpoint its last twin was on */
};

struct twin_head {
	uint32_t at;
	uint64_t seq; /* 0: none */
};

struct page_twins {
	/* made when a second endpoint appears (a page's twin is on another:
	 * one application's port alone costs nothing); NULL also when out
	 * of memory, and then nothing is followed */
	struct twin_page *ring;  /* TWIN_RING */
	struct twin_head *head;  /* TWIN_HEADS: the latest page of each bucket of keys */
	uint64_t seq;            /* pages completed since */
	struct twin_endpoint ep[TWIN_ENDPOINTS];
	uint16_t nep;
};

void page_twins_init(struct page_twins *tw);
void page_twins_free(struct page_twins *tw);

/* The key of a request: its method and target. */
uint64_t page_twins_key(const char *method, const char *target, size_t target_len);

/* A request's keys: its own (k[0]), then with its first one and two path
 * segments taken off, where it has them (a proxy that strips a prefix) */
#define TWIN_KEYS 3
struct twin_keys {
	uint64_t k[TWIN_KEYS];
	uint8_t n;
};
void page_twins_keys(const char *method, const char *target, size_t target_len,
		     struct twin_keys *out);

/* The id of the server endpoint named name ("addr:port"), or TWIN_NONE
 * past TWIN_ENDPOINTS. */
uint16_t page_twins_endpoint(struct page_twins *tw, const char *name);

/* A page completed on endpoint ep: true when it is the outer copy of an
 * earlier page (which it takes).  It is kept as a candidate inner page for
 * the pages to come. */
bool page_twins_done(struct page_twins *tw, uint16_t ep, const struct twin_keys *keys,
		     uint64_t t0, uint64_t t_answer, uint64_t t1);

/* Whether endpoint ep is a proxy of another given one (see above). */
bool page_twins_proxy(const struct page_twins *tw, uint16_t ep);

/* Some endpoint's pages had twins, and it is not yet known for a proxy
 * but may become one: pages held (page_hold.h) had better wait. */
bool page_twins_pending(const struct page_twins *tw);

/* A twinned page of ep goes to attribution (false: it is left out); counts
 * which. */
bool page_twins_keep(struct page_twins *tw, uint16_t ep, bool twin);

#endif
