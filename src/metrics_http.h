/* metrics_http.h - capture --metrics ADDR:PORT: the one endpoint GET
 * /metrics, served from the capture's own loop (no thread): sockets are
 * non-blocking, a scrape is read and answered a piece at a time between
 * packet batches, a slow or silent client is dropped at its deadline, and
 * at most METRICS_CLIENTS are served at once. */
#ifndef PGRTT_METRICS_HTTP_H
#define PGRTT_METRICS_HTTP_H

#include <stddef.h>

#define METRICS_CLIENTS 8
#define METRICS_REQUEST_MAX 4096 /* a scrape's request head; longer is refused */
#define METRICS_DEADLINE_S 5.0   /* to send the request and read the answer */

typedef char *metrics_body_fn(void *ctx, size_t *len); /* malloc'ed, NULL: out of memory */

struct metrics_client {
	int fd; /* -1: free */
	double deadline;
	char req[METRICS_REQUEST_MAX];
	size_t nreq;
	char *out; /* the answer being sent */
	size_t nout, sent;
};

struct metrics_server {
	int fd;
	struct metrics_client c[METRICS_CLIENTS];
};

/* Listen on "HOST:PORT" or "[V6]:PORT" (numeric or a name that resolves to
 * one address).  0, or -1 with a reason in err. */
int metrics_listen(struct metrics_server *m, const char *addr, char *err, size_t errcap);

/* Accept, read and answer what is ready; never blocks. now: seconds. */
void metrics_poll(struct metrics_server *m, double now, metrics_body_fn *body, void *ctx);

void metrics_close(struct metrics_server *m);

#endif
