/* metrics_http.c - the /metrics endpoint (metrics_http.h) on libmicrohttpd,
 * run from the capture's loop (MHD_run: no thread of its own). */
#define _GNU_SOURCE /* getaddrinfo under -std=c11 */
#include "metrics_http.h"

#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned status, const char *text)
{
	struct MHD_Response *r =
		MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	enum MHD_Result ok = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return ok;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **state)
{
	struct metrics_server *m = cls;
	(void)version;
	(void)upload;
	if (!*state) { /* the head only: answered once the request is whole */
		*state = m;
		return MHD_YES;
	}
	if (*upload_size) { /* a body: not read, and the answer says why */
		*upload_size = 0;
		return MHD_YES;
	}
	if (strcmp(url, "/metrics") != 0)
		return reply(conn, MHD_HTTP_NOT_FOUND, "pgrtt serves /metrics only\n");
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return reply(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "GET /metrics\n");
	size_t len = 0;
	char *body = m->body ? m->body(m->ctx, &len) : NULL;
	if (!body)
		return reply(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				"text/plain; version=0.0.4; charset=utf-8");
	enum MHD_Result ok = MHD_queue_response(conn, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ok;
}

int metrics_listen(struct metrics_server *m, const char *addr, char *err, size_t errcap)
{
	memset(m, 0, sizeof(*m));
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
	unsigned flags = MHD_USE_EPOLL | MHD_USE_SUPPRESS_DATE_NO_CLOCK |
			 (res->ai_family == AF_INET6 ? MHD_USE_IPv6 : 0);
	errno = 0;
	m->d = MHD_start_daemon(flags, 0, NULL, NULL, on_request, m, MHD_OPTION_SOCK_ADDR, res->ai_addr,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)METRICS_IDLE_S,
				MHD_OPTION_CONNECTION_LIMIT, (unsigned)METRICS_CLIENTS,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)METRICS_REQUEST_MAX,
				MHD_OPTION_END);
	int e = errno;
	freeaddrinfo(res);
	if (!m->d) {
		snprintf(err, errcap, "--metrics %s: %s", addr, e ? strerror(e) : "cannot listen");
		return -1;
	}
	return 0;
}

void metrics_poll(struct metrics_server *m, double now, metrics_body_fn *body, void *ctx)
{
	(void)now; /* libmicrohttpd keeps its own clock for the timeouts */
	if (!m->d)
		return;
	m->body = body;
	m->ctx = ctx;
	MHD_run(m->d);
}

int metrics_fd(const struct metrics_server *m)
{
	const union MHD_DaemonInfo *i = m->d ? MHD_get_daemon_info(m->d, MHD_DAEMON_INFO_EPOLL_FD) : NULL;
	return i ? i->epoll_fd : -1;
}

void metrics_close(struct metrics_server *m)
{
	if (m->d)
		MHD_stop_daemon(m->d);
	m->d = NULL;
}
