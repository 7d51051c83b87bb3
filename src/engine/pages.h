/* pages.h - an HTTP plug-in's requests and responses into pages.
 *
 * A page is one request/response pair (attrib.h).  The plug-in
 * (src/proto/http/) frames the messages; here each request's route is
 * named (--route patterns, route learning), a proxy's copies of the app's
 * pages are found (page_twins.h), and each page goes to the attribution,
 * or is held while routes are learnt (page_hold.h).  These are
 * struct proto_host's page functions (analysis.c). */
#ifndef PGRTT_PAGES_H
#define PGRTT_PAGES_H

#include <stddef.h>
#include <stdint.h>

struct analysis;
struct http1_msg;

/* What a request keeps until its response: the plug-in holds this many
 * bytes for each. */
extern const size_t pages_slot_size;

/* A server endpoint's number among those pages are compared over
 * (page_twins.h; TWIN_NONE when nothing is attributed). */
uint16_t pages_endpoint(struct analysis *a, const char *server);

/* A request: its route named, kept in slot. */
void pages_request(struct analysis *a, const struct http1_msg *m, void *slot);

/* Its response, complete: the page, from what slot kept, to the
 * attribution (or held, or a proxy's copy left out). */
void pages_response(struct analysis *a, uint64_t conn, uint16_t endpoint,
		    const struct http1_msg *m, const void *slot);

#endif
