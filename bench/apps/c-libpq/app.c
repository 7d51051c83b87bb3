/* app.c - the benchmark's reference blog app: C, libpq pipeline mode, a
 * real pool (min/max connections, idle connections handed out oldest first
 * like sqlx's), and the pool patterns of the seed's stacks reproduced byte
 * for byte on the wire (POOL_MODE):
 *
 *   pgx             a checkout per query, no pings           3 round trips per detail page
 *   rustango        a checkout per page, a release ping      4
 *   rocket          a checkout per page, acquire + release   5
 *   axum-sqlx       a checkout per query, a release ping     6
 *   axum-sqlx-ping  a checkout per query, acquire + release  9
 *
 * A ping is sqlx's: a lone Sync (PQpipelineSync with nothing queued) and
 * its ReadyForQuery.  Every query is one extended-protocol round trip
 * (Parse/Bind/Describe/Execute/Sync) with the SQL of bench/queries.h.
 *
 * Environment: PORT, DATABASE_URL (libpq), POOL_MAX (16), POOL_MIN (4),
 * POOL_MODE (pgx), POOL_ORDER (fifo, or lifo: the idle connection returned
 * last is handed out first), REDIS_URL (redis://HOST:PORT, for the cached routes),
 * SESSION_LOOKUP (1: every page first runs the same lookup, SESSION_SQL, as
 * apps with sessions do: one more query per page, whatever the route).
 * Routes: / (the 20 latest articles), /articles/{id}, /tags/{slug},
 * /cached/ and /cached/articles/{id} (the same pages from a Redis page
 * cache: GET, and on a miss the page rendered and SET; no PostgreSQL round
 * trip once warm), /compute (the sum of the primes below 20,000).  HTTP/1.1
 * with keep-alive, one thread per client connection.  Prints "ready" on
 * standard output once it listens. */
#define _GNU_SOURCE /* memmem, strcasestr */
#include <arpa/inet.h>
#include <errno.h>
#include <libpq-fe.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../../queries.h"

/* ---------------------------------------------------------------- pool */

#define POOL_CAP 256

struct pool {
	pthread_mutex_t mu;
	PGconn *idle[POOL_CAP]; /* a ring: handed out from the head (oldest) */
	int head, nidle, total, max;
	const char *dsn;
	bool per_query, acquire_ping, release_ping;
	bool lifo; /* POOL_ORDER=lifo: the most recently returned first (bb8, HikariCP) */
	bool session_lookup; /* SESSION_LOOKUP=1: every page runs SESSION_SQL first */
};

/* What an app with sessions runs first on every page, whatever its route:
 * the same statement under every route (docs/pages.md, "A statement every
 * route runs first") */
#define SESSION_SQL "SELECT id, name FROM authors WHERE id = $1"

static struct pool pool = {.mu = PTHREAD_MUTEX_INITIALIZER};

static PGconn *connect_one(void)
{
	PGconn *c = PQconnectdb(pool.dsn);
	if (PQstatus(c) != CONNECTION_OK || !PQenterPipelineMode(c)) {
		fprintf(stderr, "app: connect: %s", PQerrorMessage(c));
		PQfinish(c);
		return NULL;
	}
	return c;
}

/* sqlx's ping: a lone Sync, answered by ReadyForQuery */
static bool ping(PGconn *c)
{
	if (PQpipelineSync(c) != 1)
		return false;
	PGresult *r = PQgetResult(c);
	bool ok = r && PQresultStatus(r) == PGRES_PIPELINE_SYNC;
	PQclear(r);
	return ok;
}

/* Waiters are served in arrival order, as sqlx's pool (a fair semaphore)
 * serves them: a returned connection is handed to the oldest waiter
 * directly.  (A shared condition variable wakes any waiter, and under 50
 * clients some waited over wrk's 2 s timeout.) */
struct waiter {
	pthread_cond_t cv;
	bool ready;
	PGconn *conn; /* handed over; NULL: a slot to connect in */
	struct waiter *next;
};
static struct waiter *wait_head, *wait_tail;

/* With the lock held: give c (or, NULL, a slot for a new connection) to the
 * oldest waiter; false when nobody waits. */
static bool hand_over(PGconn *c)
{
	struct waiter *w = wait_head;
	if (!w)
		return false;
	wait_head = w->next;
	if (!wait_head)
		wait_tail = NULL;
	w->conn = c;
	w->ready = true;
	pthread_cond_signal(&w->cv);
	return true;
}

static PGconn *acquire(void)
{
	pthread_mutex_lock(&pool.mu);
	PGconn *c = NULL;
	bool connect = false;
	if (!wait_head && pool.nidle && pool.lifo) {
		c = pool.idle[(pool.head + --pool.nidle) % POOL_CAP];
	} else if (!wait_head && pool.nidle) {
		c = pool.idle[pool.head];
		pool.head = (pool.head + 1) % POOL_CAP;
		pool.nidle--;
	} else if (!wait_head && pool.total < pool.max) {
		pool.total++;
		connect = true;
	} else {
		struct waiter w = {.ready = false, .conn = NULL, .next = NULL};
		pthread_cond_init(&w.cv, NULL);
		if (wait_tail)
			wait_tail->next = &w;
		else
			wait_head = &w;
		wait_tail = &w;
		while (!w.ready)
			pthread_cond_wait(&w.cv, &pool.mu);
		pthread_cond_destroy(&w.cv);
		c = w.conn;
		connect = !c; /* the slot of a connection that was closed */
	}
	pthread_mutex_unlock(&pool.mu);
	if (connect && !(c = connect_one())) {
		pthread_mutex_lock(&pool.mu);
		if (!hand_over(NULL)) /* the slot goes to the next waiter */
			pool.total--;
		pthread_mutex_unlock(&pool.mu);
		return NULL;
	}
	if (pool.acquire_ping)
		ping(c);
	return c;
}

static void release(PGconn *c)
{
	if (pool.release_ping)
		ping(c);
	pthread_mutex_lock(&pool.mu);
	if (PQstatus(c) != CONNECTION_OK) {
		PQfinish(c);
		if (!hand_over(NULL))
			pool.total--;
	} else if (!hand_over(c)) {
		pool.idle[(pool.head + pool.nidle) % POOL_CAP] = c;
		pool.nidle++;
	}
	pthread_mutex_unlock(&pool.mu);
}

/* A page's database work: one checkout for the page, or one per query. */
struct db {
	PGconn *page; /* held for the whole page (per-page modes) */
};

static PGresult *query(struct db *d, const char *sql, const char *param)
{
	PGconn *c = d->page ? d->page : acquire();
	if (!c)
		return NULL;
	PGresult *res = NULL;
	const char *params[1] = {param};
	if (PQsendQueryParams(c, sql, param ? 1 : 0, NULL, param ? params : NULL, NULL, NULL, 0) &&
	    PQpipelineSync(c)) {
		res = PQgetResult(c);       /* the rows */
		PQclear(PQgetResult(c));    /* NULL: the end of this query's results */
		PQclear(PQgetResult(c));    /* PGRES_PIPELINE_SYNC */
	}
	if (res && PQresultStatus(res) != PGRES_TUPLES_OK) {
		fprintf(stderr, "app: %s", PQresultErrorMessage(res));
		PQclear(res);
		res = NULL;
	}
	if (!d->page)
		release(c);
	return res;
}

static void page_end(struct db *d)
{
	if (d->page)
		release(d->page);
	d->page = NULL;
}

static bool page_begin(struct db *d)
{
	d->page = NULL;
	if (!pool.per_query && !(d->page = acquire()))
		return false;
	if (pool.session_lookup) { /* in the page's checkout, or one of its own */
		PGresult *user = query(d, SESSION_SQL, "1");
		if (!user) {
			page_end(d);
			return false;
		}
		PQclear(user);
	}
	return true;
}

/* ---------------------------------------------------------------- pages */

struct buf {
	char *p;
	size_t n, cap;
};

static void put(struct buf *b, const char *s, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		size_t c = b->cap ? b->cap * 2 : 8192;
		while (c < b->n + n + 1)
			c *= 2;
		char *p = realloc(b->p, c);
		if (!p)
			abort();
		b->p = p;
		b->cap = c;
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = '\0';
}

static void puts_(struct buf *b, const char *s)
{
	put(b, s, strlen(s));
}

/* text from the database, escaped for HTML */
static void esc(struct buf *b, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': puts_(b, "&lt;"); break;
		case '>': puts_(b, "&gt;"); break;
		case '&': puts_(b, "&amp;"); break;
		case '"': puts_(b, "&quot;"); break;
		default: put(b, s, 1);
		}
	}
}

static void head(struct buf *b, const char *title)
{
	puts_(b, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>");
	esc(b, title);
	puts_(b, "</title></head><body>\n<h1>");
	esc(b, title);
	puts_(b, "</h1>\n");
}

/* The list of articles of an index or tag page, with authors and tags. */
static void article_list(struct buf *b, PGresult *arts, PGresult *authors, PGresult *tags)
{
	puts_(b, "<ul>\n");
	for (int i = 0; i < PQntuples(arts); i++) {
		const char *id = PQgetvalue(arts, i, 0), *author = PQgetvalue(arts, i, 1);
		puts_(b, "<li><a href=\"/articles/");
		esc(b, id);
		puts_(b, "\">");
		esc(b, PQgetvalue(arts, i, 3));
		puts_(b, "</a> by ");
		for (int k = 0; k < PQntuples(authors); k++)
			if (strcmp(PQgetvalue(authors, k, 0), author) == 0)
				esc(b, PQgetvalue(authors, k, 1));
		puts_(b, ", ");
		esc(b, PQgetvalue(arts, i, 4));
		for (int k = 0; k < PQntuples(tags); k++) {
			if (strcmp(PQgetvalue(tags, k, 0), id) != 0)
				continue;
			puts_(b, " <a href=\"/tags/");
			esc(b, PQgetvalue(tags, k, 1));
			puts_(b, "\">#");
			esc(b, PQgetvalue(tags, k, 2));
			puts_(b, "</a>");
		}
		puts_(b, "</li>\n");
	}
	puts_(b, "</ul>\n</body></html>\n");
}

static int page_index(struct buf *b)
{
	struct db d;
	if (!page_begin(&d))
		return 503;
	PGresult *arts = query(&d, Q_INDEX_ARTICLES, NULL);
	PGresult *authors = arts ? query(&d, Q_INDEX_AUTHORS, NULL) : NULL;
	PGresult *tags = authors ? query(&d, Q_INDEX_TAGS, NULL) : NULL;
	page_end(&d);
	int status = tags ? 200 : 500;
	if (tags) {
		head(b, "Latest articles");
		article_list(b, arts, authors, tags);
	}
	PQclear(arts);
	PQclear(authors);
	PQclear(tags);
	return status;
}

static int page_article(struct buf *b, const char *id)
{
	struct db d;
	if (!page_begin(&d))
		return 503;
	PGresult *art = query(&d, Q_DETAIL_ARTICLE, id);
	PGresult *author = art ? query(&d, Q_DETAIL_AUTHOR, id) : NULL;
	PGresult *comments = author ? query(&d, Q_DETAIL_COMMENTS, id) : NULL;
	page_end(&d);
	int status = !comments ? 500 : PQntuples(art) == 0 ? 404 : 200;
	if (status == 200) {
		head(b, PQgetvalue(art, 0, 3));
		puts_(b, "<p class=\"meta\">by ");
		if (PQntuples(author))
			esc(b, PQgetvalue(author, 0, 1));
		puts_(b, ", ");
		esc(b, PQgetvalue(art, 0, 5));
		puts_(b, "</p>\n<p>");
		esc(b, PQgetvalue(art, 0, 4));
		puts_(b, "</p>\n<h2>Comments</h2>\n<ul>\n");
		for (int i = 0; i < PQntuples(comments); i++) {
			puts_(b, "<li><b>");
			esc(b, PQgetvalue(comments, i, 1));
			puts_(b, "</b> ");
			esc(b, PQgetvalue(comments, i, 3));
			puts_(b, ": ");
			esc(b, PQgetvalue(comments, i, 2));
			puts_(b, "</li>\n");
		}
		puts_(b, "</ul>\n</body></html>\n");
	}
	PQclear(art);
	PQclear(author);
	PQclear(comments);
	return status;
}

static int page_tag(struct buf *b, const char *slug)
{
	struct db d;
	if (!page_begin(&d))
		return 503;
	PGresult *tag = query(&d, Q_TAG_TAG, slug);
	PGresult *arts = tag ? query(&d, Q_TAG_ARTICLES, slug) : NULL;
	PGresult *authors = arts ? query(&d, Q_TAG_AUTHORS, slug) : NULL;
	PGresult *tags = authors ? query(&d, Q_TAG_TAGS, slug) : NULL;
	page_end(&d);
	int status = !tags ? 500 : PQntuples(tag) == 0 ? 404 : 200;
	if (status == 200) {
		char title[256];
		snprintf(title, sizeof title, "Articles tagged %s", PQgetvalue(tag, 0, 2));
		head(b, title);
		article_list(b, arts, authors, tags);
	}
	PQclear(tag);
	PQclear(arts);
	PQclear(authors);
	PQclear(tags);
	return status;
}

static int page_compute(struct buf *b)
{
	long long sum = 0;
	for (int n = 2; n < 20000; n++) {
		bool prime = true;
		for (int d = 2; d * d <= n && prime; d++)
			prime = n % d != 0;
		if (prime)
			sum += n;
	}
	char s[64];
	snprintf(s, sizeof s, "%lld", sum);
	head(b, "Compute");
	puts_(b, "<p>");
	puts_(b, s);
	puts_(b, "</p>\n</body></html>\n");
	return 200;
}

/* ---------------------------------------------------------------- Redis */

static char redis_host[128];
static int redis_port;

/* One connection per client thread, opened on first use. */
static __thread int redis_fd = -1;

static bool redis_connect(void)
{
	if (redis_fd >= 0)
		return true;
	if (!redis_port)
		return false;
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	struct sockaddr_in sa = {0};
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)redis_port);
	inet_pton(AF_INET, redis_host, &sa.sin_addr);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	redis_fd = fd;
	return true;
}

static bool send_all(int fd, const char *p, size_t n);

/* A RESP command of argc bulk strings; the reply in *out (a bulk string's
 * bytes, or "+OK"), its length, -1 for a nil, -2 on an error. */
static long redis_cmd(int argc, const char *const *argv, const size_t *lens, struct buf *out)
{
	if (!redis_connect())
		return -2;
	struct buf req = {0};
	char head[64];
	snprintf(head, sizeof head, "*%d\r\n", argc);
	puts_(&req, head);
	for (int i = 0; i < argc; i++) {
		snprintf(head, sizeof head, "$%zu\r\n", lens[i]);
		puts_(&req, head);
		put(&req, argv[i], lens[i]);
		puts_(&req, "\r\n");
	}
	bool ok = send_all(redis_fd, req.p, req.n);
	free(req.p);
	out->n = 0;
	/* the reply: a line, then for a bulk string its bytes and CRLF */
	char line[64];
	size_t ln = 0;
	while (ok && ln < sizeof line - 1) {
		ssize_t r = recv(redis_fd, line + ln, 1, 0);
		if (r <= 0) {
			ok = false;
			break;
		}
		if (line[ln++] == '\n')
			break;
	}
	line[ln] = '\0';
	if (!ok || ln < 3) {
		close(redis_fd);
		redis_fd = -1;
		return -2;
	}
	if (line[0] == '+') {
		puts_(out, "+OK");
		return 3;
	}
	if (line[0] != '$')
		return -2;
	long n = atol(line + 1);
	if (n < 0)
		return -1;
	size_t need = (size_t)n + 2;
	char *tmp = malloc(need);
	size_t got = 0;
	while (tmp && got < need) {
		ssize_t r = recv(redis_fd, tmp + got, need - got, 0);
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	if (got == need)
		put(out, tmp, (size_t)n);
	free(tmp);
	if (got != need) {
		close(redis_fd);
		redis_fd = -1;
		return -2;
	}
	return n;
}

/* A page from the cache, or rendered and stored: the seed's page cache. */
static int cached(const char *key, struct buf *b, int (*render)(struct buf *, const char *),
		  const char *arg)
{
	const char *get[] = {"GET", key};
	size_t getl[] = {3, strlen(key)};
	long n = redis_cmd(2, get, getl, b);
	if (n >= 0)
		return 200;
	b->n = 0;
	int status = render(b, arg);
	if (status == 200) {
		struct buf reply = {0};
		const char *set[] = {"SET", key, b->p};
		size_t setl[] = {3, strlen(key), b->n};
		redis_cmd(3, set, setl, &reply);
		free(reply.p);
	}
	return status;
}

static int render_index(struct buf *b, const char *arg)
{
	(void)arg;
	return page_index(b);
}

static int render_article(struct buf *b, const char *id)
{
	return page_article(b, id);
}

static bool digits(const char *s)
{
	if (!*s || strlen(s) > 9)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

static int route(const char *path, struct buf *b)
{
	if (strcmp(path, "/") == 0)
		return page_index(b);
	if (strncmp(path, "/articles/", 10) == 0 && digits(path + 10))
		return page_article(b, path + 10);
	if (strncmp(path, "/tags/", 6) == 0 && path[6] && !strchr(path + 6, '/'))
		return page_tag(b, path + 6);
	if (strcmp(path, "/compute") == 0)
		return page_compute(b);
	if (strcmp(path, "/cached/") == 0)
		return cached("page:/", b, render_index, NULL);
	if (strncmp(path, "/cached/articles/", 17) == 0 && digits(path + 17)) {
		char key[64];
		snprintf(key, sizeof key, "page:/articles/%s", path + 17);
		return cached(key, b, render_article, path + 17);
	}
	return 404;
}

/* ---------------------------------------------------------------- HTTP */

static bool send_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
		if (w <= 0)
			return false;
		p += w;
		n -= (size_t)w;
	}
	return true;
}

static void *client(void *arg)
{
	int fd = (int)(intptr_t)arg;
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	char in[16384];
	size_t have = 0;
	struct buf body = {0}, out = {0};
	for (;;) {
		char *end = have ? memmem(in, have, "\r\n\r\n", 4) : NULL;
		if (!end) {
			if (have == sizeof in)
				break; /* a header block this large: not a benchmark client */
			ssize_t r = recv(fd, in + have, sizeof in - have, 0);
			if (r <= 0)
				break;
			have += (size_t)r;
			continue;
		}
		size_t used = (size_t)(end - in) + 4;
		char method[16] = "", path[1024] = "";
		*end = '\0';
		bool close_after = strcasestr(in, "\r\nconnection: close") != NULL;
		if (sscanf(in, "%15s %1023s", method, path) != 2)
			break;
		char *q = strchr(path, '?');
		if (q)
			*q = '\0';
		body.n = 0;
		int status = strcmp(method, "GET") == 0 ? route(path, &body) : 405;
		if (status != 200) {
			body.n = 0;
			char msg[64];
			snprintf(msg, sizeof msg, "status %d\n", status);
			puts_(&body, msg);
		}
		out.n = 0;
		char hdr[256];
		int hn = snprintf(hdr, sizeof hdr,
				  "HTTP/1.1 %d %s\r\nContent-Type: text/html; charset=utf-8\r\n"
				  "Content-Length: %zu\r\n%s\r\n",
				  status, status == 200 ? "OK" : "Error", body.n,
				  close_after ? "Connection: close\r\n" : "");
		put(&out, hdr, (size_t)hn);
		put(&out, body.p, body.n);
		if (!send_all(fd, out.p, out.n) || close_after)
			break;
		memmove(in, in + used, have - used);
		have -= used;
	}
	free(body.p);
	free(out.p);
	close(fd);
	return NULL;
}

static int env_int(const char *name, int def)
{
	const char *v = getenv(name);
	return v && *v ? atoi(v) : def;
}

int main(void)
{
	const char *mode = getenv("POOL_MODE") ? getenv("POOL_MODE") : "pgx";
	const char *order = getenv("POOL_ORDER") ? getenv("POOL_ORDER") : "fifo";
	if (strcmp(order, "fifo") != 0 && strcmp(order, "lifo") != 0) {
		fprintf(stderr, "app: POOL_ORDER: fifo or lifo\n");
		return 2;
	}
	pool.lifo = strcmp(order, "lifo") == 0;
	pool.session_lookup = env_int("SESSION_LOOKUP", 0) == 1;
	const char *redis = getenv("REDIS_URL");
	if (redis && *redis &&
	    sscanf(redis, "redis://%127[^:]:%d", redis_host, &redis_port) != 2) {
		fprintf(stderr, "app: REDIS_URL: redis://HOST:PORT\n");
		return 2;
	}
	pool.dsn = getenv("DATABASE_URL") ? getenv("DATABASE_URL") : "";
	pool.max = env_int("POOL_MAX", 16);
	int min = env_int("POOL_MIN", 4), port = env_int("PORT", 8080);
	if (pool.max < 1 || pool.max > POOL_CAP || min < 0 || min > pool.max) {
		fprintf(stderr, "app: POOL_MAX 1..%d, POOL_MIN 0..POOL_MAX\n", POOL_CAP);
		return 2;
	}
	if (strcmp(mode, "pgx") == 0) {
		pool.per_query = true;
	} else if (strcmp(mode, "rustango") == 0) {
		pool.release_ping = true;
	} else if (strcmp(mode, "rocket") == 0) {
		pool.acquire_ping = pool.release_ping = true;
	} else if (strcmp(mode, "axum-sqlx") == 0) {
		pool.per_query = pool.release_ping = true;
	} else if (strcmp(mode, "axum-sqlx-ping") == 0) {
		pool.per_query = pool.acquire_ping = pool.release_ping = true;
	} else {
		fprintf(stderr, "app: POOL_MODE: pgx, rustango, rocket, axum-sqlx or axum-sqlx-ping\n");
		return 2;
	}
	for (int i = 0; i < min; i++) { /* the pool's minimum, connected up front */
		PGconn *c = connect_one();
		if (!c)
			return 2;
		pool.idle[(pool.head + pool.nidle++) % POOL_CAP] = c;
		pool.total++;
	}
	int ls = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	struct sockaddr_in sa = {0};
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(ls, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(ls, 1024) != 0) {
		fprintf(stderr, "app: 127.0.0.1:%d: %s\n", port, strerror(errno));
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		int fd = accept(ls, NULL, NULL);
		if (fd < 0) {
			if (errno == EINTR)
				continue;
			return 2;
		}
		pthread_t t;
		pthread_attr_t at;
		pthread_attr_init(&at);
		pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
		pthread_attr_setstacksize(&at, 256 * 1024);
		if (pthread_create(&t, &at, client, (void *)(intptr_t)fd) != 0)
			close(fd);
		pthread_attr_destroy(&at);
	}
}
