/* metrics_http.h - capture --metrics ADDR:PORT: the one endpoint GET
 * /metrics, served by libmicrohttpd from the capture's own loop (no thread:
 * the figures are read where they are made).  libmicrohttpd reads every
 * connection that is ready, so scrapes are served ahead of idle or slow
 * ones; an idle connection is closed after METRICS_IDLE_S, a request head
 * past METRICS_REQUEST_MAX is refused, at most METRICS_CLIENTS are open. */
#ifndef PGRTT_METRICS_HTTP_H
#define PGRTT_METRICS_HTTP_H

#include <stdbool.h>
#include <stddef.h>

#define METRICS_CLIENTS 512       /* connections open at once */
#define METRICS_REQUEST_MAX 4096  /* a connection's memory for its request head */
#define METRICS_IDLE_S 5          /* a connection with nothing to do is closed */

typedef char *metrics_body_fn(void *ctx, size_t *len); /* malloc'ed, NULL: out of memory */

struct MHD_Daemon;

struct metrics_server {
	struct MHD_Daemon *d; /* NULL: not serving */
	metrics_body_fn *body;
	void *ctx;
};

/* Listen on "HOST:PORT" or "[V6]:PORT" (numeric or a name that resolves to
 * one address).  0, or -1 with a reason in err. */
int metrics_listen(struct metrics_server *m, const char *addr, char *err, size_t errcap);

/* Accept, read and answer what is ready; never blocks. now: seconds. */
void metrics_poll(struct metrics_server *m, double now, metrics_body_fn *body, void *ctx);

static inline bool metrics_serving(const struct metrics_server *m)
{
	return m->d != NULL;
}

/* A descriptor that is readable when a connection has something to do
 * (libmicrohttpd's epoll set): the capture's wait for packets ends on it,
 * so a scrape is answered at once, not at the next poll timeout. */
int metrics_fd(const struct metrics_server *m);

void metrics_close(struct metrics_server *m);

#endif
