/* metrics_http.c - the /metrics endpoint (metrics_http.h).  HTTP/1.0 and
 * 1.1 requests, one per connection (Connection: close): Prometheus opens a
 * connection per scrape or keeps one alive; both work, the second as a new
 * connection each time. */
#define _GNU_SOURCE /* accept4 */
#include "metrics_http.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int metrics_listen(struct metrics_server *m, const char *addr, char *err, size_t errcap)
{
	memset(m, 0, sizeof(*m));
	m->fd = -1;
	for (int i = 0; i < METRICS_CLIENTS; i++)
		m->c[i].fd = -1;
	char host[256];
	const char *colon = strrchr(addr, ':');
	size_t hl = colon ? (size_t)(colon - addr) : 0;
	if (!colon || hl == 0 || hl >= sizeof host || !colon[1]) {
		snprintf(err, errcap, "--metrics %s: expected HOST:PORT (e.g. 127.0.0.1:9187)", addr);
		return -1;
	}
	memcpy(host, addr, hl);
	host[hl] = '\0';
	if (host[0] == '[' && hl > 2 && host[hl - 1] == ']') { /* [::1]:9187 */
		memmove(host, host + 1, hl - 2);
		host[hl - 2] = '\0';
	}
	struct addrinfo hints = {0}, *res = NULL;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	int g = getaddrinfo(host, colon + 1, &hints, &res);
	if (g != 0) {
		snprintf(err, errcap, "--metrics %s: %s", addr, gai_strerror(g));
		return -1;
	}
	int fd = socket(res->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int one = 1;
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
	    bind(fd, res->ai_addr, res->ai_addrlen) != 0 || listen(fd, 16) != 0) {
		snprintf(err, errcap, "--metrics %s: %s", addr, strerror(errno));
		if (fd >= 0)
			close(fd);
		freeaddrinfo(res);
		return -1;
	}
	freeaddrinfo(res);
	m->fd = fd;
	return 0;
}

static void drop(struct metrics_client *c)
{
	close(c->fd);
	free(c->out);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
}

static void answer(struct metrics_client *c, int status, const char *reason, const char *type,
		   char *body, size_t len)
{
	char head[256];
	int n = snprintf(head, sizeof head,
			 "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
			 "Connection: close\r\n\r\n",
			 status, reason, type, len);
	c->out = malloc((size_t)n + len);
	if (!c->out || (!body && len)) {
		free(c->out);
		c->out = NULL;
		free(body);
		return;
	}
	memcpy(c->out, head, (size_t)n);
	memcpy(c->out + n, body, len);
	c->nout = (size_t)n + len;
	c->sent = 0;
	free(body);
}

static void answer_text(struct metrics_client *c, int status, const char *reason, const char *s)
{
	answer(c, status, reason, "text/plain; charset=utf-8", strdup(s), strlen(s));
}

/* A complete request head in c->req: what to answer. */
static void respond(struct metrics_client *c, metrics_body_fn *body,
		    void *ctx)
{
	size_t len;
	char method[16] = "", target[256] = "";
	if (sscanf(c->req, "%15s %255s", method, target) != 2) {
		answer_text(c, 400, "Bad Request", "bad request\n");
		return;
	}
	char *q = strchr(target, '?');
	if (q)
		*q = '\0';
	if (strcmp(target, "/metrics") != 0) {
		answer_text(c, 404, "Not Found", "pgrtt serves /metrics only\n");
		return;
	}
	if (strcmp(method, "GET") != 0) {
		answer_text(c, 405, "Method Not Allowed", "GET /metrics\n");
		return;
	}
	char *b = body(ctx, &len);
	if (!b) {
		answer_text(c, 500, "Internal Server Error", "out of memory\n");
		return;
	}
	answer(c, 200, "OK", "text/plain; version=0.0.4; charset=utf-8", b, len);
}

void metrics_poll(struct metrics_server *m, double now, metrics_body_fn *body, void *ctx)
{
	if (m->fd < 0)
		return;
	for (;;) { /* new connections: as many as there are free slots */
		int slot = -1;
		for (int i = 0; i < METRICS_CLIENTS && slot < 0; i++)
			if (m->c[i].fd < 0)
				slot = i;
		if (slot < 0)
			break; /* the rest wait in the backlog */
		int fd = accept4(m->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			break;
		m->c[slot].fd = fd;
		m->c[slot].deadline = now + METRICS_DEADLINE_S;
	}
	for (int i = 0; i < METRICS_CLIENTS; i++) {
		struct metrics_client *c = &m->c[i];
		if (c->fd < 0)
			continue;
		if (now > c->deadline) {
			drop(c);
			continue;
		}
		if (!c->out) {
			ssize_t n = recv(c->fd, c->req + c->nreq, sizeof c->req - 1 - c->nreq, 0);
			if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) {
				drop(c);
				continue;
			}
			if (n > 0)
				c->nreq += (size_t)n;
			c->req[c->nreq] = '\0';
			if (strstr(c->req, "\r\n\r\n") || strstr(c->req, "\n\n"))
				respond(c, body, ctx);
			else if (c->nreq == sizeof c->req - 1) {
				answer_text(c, 431, "Request Header Fields Too Large", "request too large\n");
			}
			if (!c->out)
				continue;
		}
		bool failed = false;
		while (c->sent < c->nout) {
			ssize_t n = send(c->fd, c->out + c->sent, c->nout - c->sent, MSG_NOSIGNAL);
			if (n <= 0) {
				failed = n < 0 && errno != EAGAIN && errno != EWOULDBLOCK;
				break;
			}
			c->sent += (size_t)n;
		}
		if (c->sent == c->nout) {
			shutdown(c->fd, SHUT_WR);
			drop(c);
		} else if (failed) {
			drop(c);
		}
	}
}

void metrics_close(struct metrics_server *m)
{
	for (int i = 0; i < METRICS_CLIENTS; i++)
		if (m->c[i].fd >= 0)
			drop(&m->c[i]);
	if (m->fd >= 0)
		close(m->fd);
	m->fd = -1;
}
