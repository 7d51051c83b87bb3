/* http1.c - HTTP/1.x incremental framer (see http1.h).
 *
 * Reference: RFC 9112 "HTTP/1.1" - 2 (message format), 3 (request line),
 * 4 (status line), 5 (field syntax), 6 (message body length), 7.1 (chunked).
 *
 *   start-line CRLF *( field-line CRLF ) CRLF [ message-body ]
 *
 * A body's length is decided as in RFC 9112 6.3: no body for responses to
 * HEAD and for 1xx, 204 and 304; a tunnel after CONNECT 2xx and 101; then
 * Transfer-Encoding chunked, then Content-Length; a response with neither
 * is read until the connection closes, a request with neither has none.
 */
#include "http1.h"

#include "gap.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

enum state {
	H_START,      /* before a start line: empty lines are skipped */
	H_HEADERS,    /* accumulating the header block */
	H_BODY,       /* body_left bytes of a Content-Length body */
	H_CHUNK_SIZE, /* hex digits of a chunk size */
	H_CHUNK_EXT,  /* chunk extensions, up to the end of the line */
	H_CHUNK_DATA, /* body_left bytes of chunk data */
	H_CHUNK_END,  /* the CRLF after chunk data */
	H_TRAILERS,   /* trailer fields up to an empty line */
	H_CLOSE_BODY, /* a response body read until the connection closes */
	H_DEAD,       /* not decodable from here on: see error */
};

const char *http1_error_name(int e)
{
	static const char *names[] = {
		"ok", "bad start line", "header block too large", "too many header fields",
		"bad header field", "bad Content-Length", "bad chunk", "bad Transfer-Encoding",
		"too many pipelined requests", "capture gap", "HTTP/2", "TLS", "upgraded or tunnelled",
		"out of memory",
	};
	_Static_assert(sizeof names / sizeof names[0] == HTTP1_E_COUNT, "a name for each code");
	return e >= 0 && e < HTTP1_E_COUNT ? names[e] : "?";
}

void http1_conn_init(struct http1_conn *c)
{
	uint8_t *hdr[2] = {c->dir[0].hdr, c->dir[1].hdr};
	memset(c, 0, sizeof(*c));
	c->dir[0].hdr = hdr[0];
	c->dir[1].hdr = hdr[1];
	c->dir[HTTP1_CLIENT].cur.side = HTTP1_CLIENT;
	c->dir[HTTP1_SERVER].cur.side = HTTP1_SERVER;
}

void http1_conn_free(struct http1_conn *c)
{
	for (int k = 0; k < 2; k++) {
		free(c->dir[k].hdr);
		c->dir[k].hdr = NULL;
	}
}

static void die(struct http1_conn *c, struct http1_dir *d, enum http1_error e)
{
	d->state = H_DEAD;
	d->error = (uint8_t)e;
	if (!c->error)
		c->error = (uint8_t)e;
	if (e != HTTP1_E_HTTP2 && e != HTTP1_E_TLS && e != HTTP1_E_UPGRADE)
		c->malformed++;
}

static void reset_msg(struct http1_dir *d, uint8_t side)
{
	/* field by field: the whole, its target's 257 bytes in, was a tenth
	 * of the framer's cost per message (bytes past a string's NUL are
	 * never read) */
	struct http1_msg *m = &d->cur;
	m->side = side;
	m->request = m->interim = m->target_truncated = m->close_delimited = false;
	m->version_minor = 0;
	m->status = 0;
	m->seq = 0;
	m->method[0] = '\0';
	m->target[0] = '\0';
	m->body_bytes = m->ts_first = m->ts_last = m->request_ts = 0;
	d->hdr_len = 0;
	d->line_len = 0;
	d->fields = 0;
	d->body_left = 0;
	d->chunk_size = 0;
	d->chunked_cr = false;
	d->state = H_START;
}

static void finish(struct http1_conn *c, struct http1_dir *d, uint64_t ts, http1_msg_fn *emit,
		   void *ctx)
{
	d->cur.ts_last = ts;
	if (d->cur.request)
		c->requests++;
	else if (d->cur.interim)
		c->interim++;
	else
		c->responses++;
	emit(ctx, &d->cur);
	reset_msg(d, d->cur.side);
}

/* ----------------------------------------------------------------------
 * Header block parsing (the block is complete: in d->hdr, or in the bytes
 * fed when they hold it whole)
 * ---------------------------------------------------------------------- */

struct span {
	const char *p;
	size_t n;
};

/* RFC 9110 5.6.2 tchar, by byte: a table, as a header name's every byte
 * is looked up (a test per byte is a branch mispredicted per name). */
#define T_(c) [c] = 1
static const uint8_t TCHAR[256] = {
	T_('!'), T_('#'), T_('$'), T_('%'), T_('&'), T_('\''), T_('*'), T_('+'), T_('-'),
	T_('.'), T_('^'), T_('_'), T_('`'), T_('|'), T_('~'),
	T_('0'), T_('1'), T_('2'), T_('3'), T_('4'), T_('5'), T_('6'), T_('7'), T_('8'), T_('9'),
	T_('A'), T_('B'), T_('C'), T_('D'), T_('E'), T_('F'), T_('G'), T_('H'), T_('I'), T_('J'),
	T_('K'), T_('L'), T_('M'), T_('N'), T_('O'), T_('P'), T_('Q'), T_('R'), T_('S'), T_('T'),
	T_('U'), T_('V'), T_('W'), T_('X'), T_('Y'), T_('Z'),
	T_('a'), T_('b'), T_('c'), T_('d'), T_('e'), T_('f'), T_('g'), T_('h'), T_('i'), T_('j'),
	T_('k'), T_('l'), T_('m'), T_('n'), T_('o'), T_('p'), T_('q'), T_('r'), T_('s'), T_('t'),
	T_('u'), T_('v'), T_('w'), T_('x'), T_('y'), T_('z'),
};
#undef T_

static bool tchar(char ch)
{
	return TCHAR[(unsigned char)ch];
}

static char lower(char ch)
{
	return ch >= 'A' && ch <= 'Z' ? (char)(ch - 'A' + 'a') : ch;
}

/* lit: lower case, n its length (a literal's sizeof - 1: most names
 * differ in length, and fail at once) */
static bool span_ieq(struct span s, const char *lit, size_t n)
{
	if (s.n != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (lower(s.p[i]) != lit[i])
			return false;
	return true;
}

struct block {
	const char *p;
	size_t n;
};

/* Next line of the block at *pos, without its CRLF or LF. */
static struct span next_line(struct block b, size_t *pos)
{
	size_t start = *pos;
	const char *nl = start < b.n ? memchr(b.p + start, '\n', b.n - start) : NULL;
	size_t i = nl ? (size_t)(nl - b.p) : b.n;
	struct span s = {b.p + start, i - start};
	if (s.n && s.p[s.n - 1] == '\r')
		s.n--;
	*pos = i < b.n ? i + 1 : i;
	return s;
}

static bool http_version(struct span s, uint8_t *minor)
{
	if (s.n != 8 || memcmp(s.p, "HTTP/1.", 7) != 0 || s.p[7] < '0' || s.p[7] > '9')
		return false;
	*minor = (uint8_t)(s.p[7] - '0');
	return true;
}

static enum http1_error request_line(struct http1_msg *m, struct span l)
{
	size_t i = 0;
	while (i < l.n && tchar(l.p[i]))
		i++;
	if (i == 0 || i >= sizeof m->method || i >= l.n || l.p[i] != ' ')
		return HTTP1_E_START_LINE;
	memcpy(m->method, l.p, i);
	m->method[i] = '\0';
	size_t t = ++i;
	/* any byte but controls and space: servers take raw UTF-8 (or Latin-1)
	 * in a path, though RFC 9112 wants it percent-encoded, and a page they
	 * answer is a page */
	while (i < l.n && (unsigned char)l.p[i] > ' ' && (unsigned char)l.p[i] != 0x7f)
		i++;
	if (i == t || i >= l.n || l.p[i] != ' ')
		return HTTP1_E_START_LINE;
	/* kept as a client should have sent it: bytes past ASCII %XX, so that
	 * the target is printable ASCII in every output */
	static const char hex[] = "0123456789ABCDEF";
	size_t tn = 0, k = t;
	m->target_truncated = false;
	/* the usual target, ASCII: as it is, up to the first byte that is not */
	while (k < i && (unsigned char)l.p[k] < 0x80 && tn < HTTP1_TARGET_MAX)
		m->target[tn++] = l.p[k++];
	for (; k < i; k++) {
		unsigned char c = (unsigned char)l.p[k];
		if (tn + (c >= 0x80 ? 3 : 1) > HTTP1_TARGET_MAX) {
			m->target_truncated = true;
			break;
		}
		if (c >= 0x80) {
			m->target[tn++] = '%';
			m->target[tn++] = hex[c >> 4];
			m->target[tn++] = hex[c & 15];
		} else {
			m->target[tn++] = (char)c;
		}
	}
	m->target[tn] = '\0';
	struct span v = {l.p + i + 1, l.n - i - 1};
	if (strcmp(m->method, "PRI") == 0 && v.n == 8 && memcmp(v.p, "HTTP/2.0", 8) == 0)
		return HTTP1_E_HTTP2;
	if (!http_version(v, &m->version_minor))
		return HTTP1_E_START_LINE;
	m->request = true;
	return HTTP1_OK;
}

static enum http1_error status_line(struct http1_msg *m, struct span l)
{
	if (l.n < 12 || !http_version((struct span){l.p, 8}, &m->version_minor) || l.p[8] != ' ')
		return HTTP1_E_START_LINE;
	uint16_t code = 0;
	for (int i = 9; i < 12; i++) {
		if (l.p[i] < '0' || l.p[i] > '9')
			return HTTP1_E_START_LINE;
		code = (uint16_t)(code * 10 + (uint16_t)(l.p[i] - '0'));
	}
	if (l.n > 12 && l.p[12] != ' ')
		return HTTP1_E_START_LINE;
	if (code < 100)
		return HTTP1_E_START_LINE;
	m->status = code;
	m->interim = code < 200;
	return HTTP1_OK;
}

struct fields {
	bool chunked, te, has_cl;
	uint64_t cl;
};

/* Content-Length: 1*DIGIT, or a list of equal values (RFC 9110 8.6). */
static bool content_length(struct span v, struct fields *f)
{
	size_t i = 0;
	while (i < v.n) {
		uint64_t x = 0;
		size_t digits = 0;
		while (i < v.n && v.p[i] >= '0' && v.p[i] <= '9') {
			if (x > (UINT64_MAX >> 4) / 10)
				return false;
			x = x * 10 + (uint64_t)(v.p[i] - '0');
			i++;
			digits++;
		}
		if (!digits || (f->has_cl && x != f->cl))
			return false;
		f->has_cl = true;
		f->cl = x;
		while (i < v.n && (v.p[i] == ' ' || v.p[i] == '\t'))
			i++;
		if (i < v.n) {
			if (v.p[i] != ',')
				return false;
			i++;
			while (i < v.n && (v.p[i] == ' ' || v.p[i] == '\t'))
				i++;
		}
	}
	return true;
}

/* Transfer-Encoding: the codings, comma-separated; the last one decides
 * whether the body is chunked (RFC 9112 6.1). */
static void codings(struct span v, struct fields *f)
{
	size_t i = 0;
	while (i <= v.n) {
		size_t s = i;
		while (i < v.n && v.p[i] != ',')
			i++;
		struct span t = {v.p + s, i - s};
		while (t.n && (t.p[0] == ' ' || t.p[0] == '\t')) {
			t.p++;
			t.n--;
		}
		while (t.n && (t.p[t.n - 1] == ' ' || t.p[t.n - 1] == '\t'))
			t.n--;
		f->te = true;
		if (t.n)
			f->chunked = span_ieq(t, "chunked", 7);
		i++;
	}
}

static enum http1_error field_lines(struct block b, size_t pos, struct fields *f)
{
	for (;;) {
		struct span l = next_line(b, &pos);
		if (l.n == 0)
			return HTTP1_OK;
		if (l.p[0] == ' ' || l.p[0] == '\t')
			return HTTP1_E_HEADER_SYNTAX; /* obsolete line folding */
		size_t c = 0;
		while (c < l.n && tchar(l.p[c]))
			c++;
		if (c == 0 || c >= l.n || l.p[c] != ':')
			return HTTP1_E_HEADER_SYNTAX;
		struct span name = {l.p, c}, v = {l.p + c + 1, l.n - c - 1};
		while (v.n && (v.p[0] == ' ' || v.p[0] == '\t')) {
			v.p++;
			v.n--;
		}
		while (v.n && (v.p[v.n - 1] == ' ' || v.p[v.n - 1] == '\t'))
			v.n--;
		if (span_ieq(name, "content-length", 14)) {
			if (!content_length(v, f))
				return HTTP1_E_LENGTH;
		} else if (span_ieq(name, "transfer-encoding", 17)) {
			codings(v, f);
		}
	}
}

/* The header block is complete: decide how the body is framed. */
static void headers_done(struct http1_conn *c, struct http1_dir *d, struct block b, uint64_t ts,
			 http1_msg_fn *emit, void *ctx)
{
	struct http1_msg *m = &d->cur;
	size_t pos = 0;
	struct span start = next_line(b, &pos);
	enum http1_error e =
		m->side == HTTP1_CLIENT ? request_line(m, start) : status_line(m, start);
	struct fields f = {0};
	if (e == HTTP1_OK)
		e = field_lines(b, pos, &f);
	if (e != HTTP1_OK) {
		die(c, d, e);
		return;
	}

	if (m->request) {
		if (f.te && !f.chunked) {
			die(c, d, HTTP1_E_ENCODING);
			return;
		}
		if (c->pend_count == HTTP1_PENDING_MAX) {
			die(c, d, HTTP1_E_PIPELINE);
			return;
		}
		uint32_t slot = (c->pend_head + c->pend_count) % HTTP1_PENDING_MAX;
		memcpy(c->pend_method[slot], m->method, sizeof m->method);
		c->pend_seq[slot] = m->seq = c->next_seq++;
		c->pend_ts[slot] = m->ts_first;
		c->pend_count++;
		if (f.chunked) {
			d->state = H_CHUNK_SIZE;
		} else if (f.has_cl && f.cl > 0) {
			d->body_left = f.cl;
			m->body_bytes = f.cl;
			d->state = H_BODY;
		} else {
			finish(c, d, ts, emit, ctx);
		}
		return;
	}

	/* a response: the oldest request still waiting is the one answered */
	const char *method = c->pend_count ? c->pend_method[c->pend_head] : "";
	m->seq = c->pend_count ? c->pend_seq[c->pend_head] : UINT32_MAX;
	m->request_ts = c->pend_count ? c->pend_ts[c->pend_head] : 0;
	size_t mlen = strlen(method); /* < sizeof m->method: it came from one */
	memcpy(m->method, method, mlen + 1);
	if (m->interim) {
		bool upgrade = m->status == 101;
		finish(c, d, ts, emit, ctx);
		if (upgrade)
			die(c, d, HTTP1_E_UPGRADE);
		return;
	}
	if (c->pend_count) {
		c->pend_head = (c->pend_head + 1) % HTTP1_PENDING_MAX;
		c->pend_count--;
	} else {
		c->unmatched++;
	}
	bool tunnel = strcmp(method, "CONNECT") == 0 && m->status < 300;
	if (strcmp(method, "HEAD") == 0 || m->status == 204 || m->status == 304 || tunnel) {
		finish(c, d, ts, emit, ctx);
		if (tunnel)
			die(c, d, HTTP1_E_UPGRADE);
	} else if (f.te && f.chunked) {
		d->state = H_CHUNK_SIZE;
	} else if (f.te) {
		m->close_delimited = true; /* RFC 9112 6.3: read until close */
		d->state = H_CLOSE_BODY;
	} else if (f.has_cl) {
		m->body_bytes = f.cl;
		d->body_left = f.cl;
		if (f.cl == 0)
			finish(c, d, ts, emit, ctx);
		else
			d->state = H_BODY;
	} else {
		m->close_delimited = true;
		d->state = H_CLOSE_BODY;
	}
}

/* ----------------------------------------------------------------------
 * Feeding
 * ---------------------------------------------------------------------- */

static int hexval(uint8_t ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* A header block that starts at p and ends within p[0..n), no larger than
 * the copy below takes and with no more lines than it counts: its length
 * (to the LF of its empty line), *fields its lines but the empty one.
 * Else 0, and the copy below reads the bytes: a block split over
 * segments, or over a limit (the copy gives the error).  Most blocks
 * come in one segment, and copying them a line at a time to read them
 * again was half the framer's cost. */
static size_t whole_block(const uint8_t *p, size_t n, uint32_t *fields)
{
	size_t at = 0, lines = 0;
	if (n > HTTP1_HEADER_MAX)
		n = HTTP1_HEADER_MAX;
	while (at < n) {
		const uint8_t *nl = memchr(p + at, '\n', n - at);
		if (!nl)
			return 0;
		size_t end = (size_t)(nl - p), k = at;
		while (k < end && p[k] == '\r') /* only CRs before the LF: empty, as line_len says */
			k++;
		if (k == end) {
			*fields = (uint32_t)lines;
			return end + 1;
		}
		if (++lines > HTTP1_FIELDS_MAX + 1)
			return 0;
		at = end + 1;
	}
	return 0;
}

/* The chunk-size line ended: its data follows, or the trailers after the
 * last (zero-size) chunk. */
static void chunk_line_done(struct http1_dir *d)
{
	d->line_len = 0;
	d->chunked_cr = false;
	if (d->chunk_size == 0) {
		d->state = H_TRAILERS;
	} else {
		d->body_left = d->chunk_size;
		d->chunk_size = 0;
		d->state = H_CHUNK_DATA;
	}
}

void http1_feed(struct http1_conn *c, enum http1_side side, const uint8_t *data, size_t len,
		uint64_t ts, http1_msg_fn *emit, void *ctx)
{
	struct http1_dir *d = &c->dir[side];
	size_t i = 0;
	if (len && side == HTTP1_CLIENT && !c->started) {
		c->started = true;
		if (data[0] == 0x16) { /* a TLS ClientHello */
			die(c, d, HTTP1_E_TLS);
			die(c, &c->dir[HTTP1_SERVER], HTTP1_E_TLS);
			return;
		}
	}
	while (i < len) {
		uint8_t ch = data[i];
		switch (d->state) {
		case H_DEAD:
			return;
		case H_START:
			if (ch == '\r' || ch == '\n') { /* RFC 9112 2.2: empty lines before */
				i++;
				break;
			}
			d->cur.ts_first = ts;
			d->state = H_HEADERS;
			break;
		case H_HEADERS: {
			size_t used = d->hdr_len ? 0 : whole_block(data + i, len - i, &d->fields);
			if (used) { /* read where it lies, as the copy below would be */
				i += used;
				headers_done(c, d, (struct block){(const char *)data + i - used, used}, ts,
					     emit, ctx);
				break;
			}
			/* copy up to the end of the block (an empty line), a line at
			 * a time: line_len counts a line's bytes other than CR */
			if (!d->hdr && !(d->hdr = malloc(HTTP1_HEADER_MAX))) {
				die(c, d, HTTP1_E_NOMEM);
				return;
			}
			while (i < len) {
				size_t room = HTTP1_HEADER_MAX - d->hdr_len, take = len - i;
				if (room == 0) {
					die(c, d, HTTP1_E_HEADER_SIZE);
					return;
				}
				take = take < room ? take : room;
				const uint8_t *nl = memchr(data + i, '\n', take);
				size_t n = nl ? (size_t)(nl - (data + i)) : take; /* without the LF */
				memcpy(d->hdr + d->hdr_len, data + i, n + (nl != NULL));
				d->hdr_len += (uint32_t)(n + (nl != NULL));
				for (size_t k = 0; k < n && d->line_len == 0; k++)
					d->line_len += data[i + k] != '\r';
				if (d->line_len)
					d->line_len += 1; /* how many more does not matter: not 0 */
				i += n + (nl != NULL);
				if (!nl)
					break;
				if (d->line_len == 0) {
					headers_done(c, d, (struct block){(const char *)d->hdr, d->hdr_len},
						     ts, emit, ctx);
					break;
				}
				d->line_len = 0;
				if (++d->fields > HTTP1_FIELDS_MAX + 1) {
					die(c, d, HTTP1_E_HEADER_COUNT);
					return;
				}
			}
			break;
		}
		case H_BODY:
		case H_CHUNK_DATA: {
			size_t take = len - i;
			if (take > d->body_left)
				take = (size_t)d->body_left;
			i += take;
			d->body_left -= take;
			if (d->state == H_CHUNK_DATA)
				d->cur.body_bytes += take;
			if (d->body_left == 0) {
				if (d->state == H_BODY)
					finish(c, d, ts, emit, ctx);
				else
					d->state = H_CHUNK_END;
			}
			break;
		}
		case H_CHUNK_SIZE: {
			int v = hexval(ch);
			i++;
			if (v >= 0 && !d->chunked_cr) {
				if (d->chunk_size > (UINT64_MAX >> 8)) {
					die(c, d, HTTP1_E_CHUNK);
					return;
				}
				d->chunk_size = d->chunk_size * 16 + (uint64_t)v;
				d->line_len++;
			} else if ((ch == ';' || ch == ' ' || ch == '\t') && d->line_len) {
				d->state = H_CHUNK_EXT;
			} else if (ch == '\r' && d->line_len && !d->chunked_cr) {
				d->chunked_cr = true;
			} else if (ch == '\n' && d->line_len) {
				chunk_line_done(d);
			} else {
				die(c, d, HTTP1_E_CHUNK);
				return;
			}
			if (d->line_len > 16) {
				die(c, d, HTTP1_E_CHUNK);
				return;
			}
			break;
		}
		case H_CHUNK_EXT:
			i++;
			if (++d->line_len > HTTP1_CHUNK_LINE_MAX) {
				die(c, d, HTTP1_E_CHUNK);
				return;
			}
			if (ch == '\n')
				chunk_line_done(d);
			break;
		case H_CHUNK_END:
			i++;
			if (ch == '\r' && !d->chunked_cr) {
				d->chunked_cr = true;
			} else if (ch == '\n') {
				d->chunked_cr = false;
				d->state = H_CHUNK_SIZE;
			} else {
				die(c, d, HTTP1_E_CHUNK);
				return;
			}
			break;
		case H_TRAILERS:
			i++;
			if (ch == '\n') {
				if (d->line_len == 0) {
					finish(c, d, ts, emit, ctx);
					break;
				}
				d->line_len = 0;
				if (++d->fields > HTTP1_FIELDS_MAX) {
					die(c, d, HTTP1_E_HEADER_COUNT);
					return;
				}
			} else if (ch != '\r') {
				if (++d->line_len > HTTP1_HEADER_MAX) {
					die(c, d, HTTP1_E_HEADER_SIZE);
					return;
				}
			}
			break;
		case H_CLOSE_BODY:
			d->cur.body_bytes += len - i;
			i = len;
			break;
		default:
			return;
		}
	}
}

void http1_eof(struct http1_conn *c, enum http1_side side, uint64_t ts, http1_msg_fn *emit,
	       void *ctx)
{
	struct http1_dir *d = &c->dir[side];
	if (d->state == H_CLOSE_BODY)
		finish(c, d, ts, emit, ctx);
}

void http1_gap(struct http1_conn *c, enum http1_side side, uint64_t n, uint64_t ts,
	       http1_msg_fn *emit, void *ctx)
{
	struct http1_dir *d = &c->dir[side];
	if (n == 0 || d->state == H_DEAD)
		return;
	if (gap_keeps_framing(d->state == H_BODY || d->state == H_CHUNK_DATA, n, d->body_left)) {
		d->body_left -= n;
		if (d->state == H_CHUNK_DATA)
			d->cur.body_bytes += n;
		if (d->body_left == 0) {
			if (d->state == H_BODY)
				finish(c, d, ts, emit, ctx);
			else
				d->state = H_CHUNK_END;
		}
		return;
	}
	if (d->state == H_CLOSE_BODY) {
		d->cur.body_bytes += n;
		return;
	}
	die(c, d, HTTP1_E_GAP);
}

bool http1_oldest_open(const struct http1_conn *c, uint64_t *ts)
{
	/* oldest first: a response under way (its request left the queue when
	 * the status line came, and its body may take long), then the queue,
	 * then a request still being received */
	const struct http1_dir *s = &c->dir[HTTP1_SERVER];
	if (s->state != H_START && s->state != H_DEAD && s->cur.request_ts) {
		*ts = s->cur.request_ts;
		return true;
	}
	if (c->pend_count) {
		*ts = c->pend_ts[c->pend_head];
		return true;
	}
	const struct http1_dir *d = &c->dir[HTTP1_CLIENT];
	if (d->state != H_START && d->state != H_DEAD) {
		*ts = d->cur.ts_first;
		return true;
	}
	return false;
}
