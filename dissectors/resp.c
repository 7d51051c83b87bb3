/* resp.c - Redis's protocol, RESP2 and RESP3: incremental framer (resp.h).
 *
 * A value is a line ("<type><text>\r\n") and, for the string types, a body
 * of the length the line gave and its CRLF; an aggregate's line gives how
 * many values follow.  Each direction is a small state machine over those
 * pieces with a stack of the elements left at each level, so a value may be
 * split anywhere between calls.  Every read is bounded by len. */
#include "resp.h"

#include <string.h>

#include "encstream.h"
#include "gap.h"

#define STREAMED UINT64_MAX /* an aggregate of unknown size ("*?"): ends at "." */

bool resp_type_valid(uint8_t b)
{
	return b && strchr("+-:$*_,#(!=%~>|", b) != NULL;
}

static bool is_string(uint8_t t)
{
	return t == '$' || t == '!' || t == '=';
}

static uint8_t upper(uint8_t b)
{
	return b >= 'a' && b <= 'z' ? (uint8_t)(b - 'a' + 'A') : b;
}

/* Only these commands' first two arguments change how the connection
 * talks (CLIENT REPLY OFF|SKIP, HELLO's protocol, SELECT's database): no
 * other argument is kept - keys, values and AUTH's are not the framer's. */
static bool keeps_args(const char *name)
{
	/* the first letter first: this runs for every command */
	return (name[0] == 'C' || name[0] == 'H' || name[0] == 'S') &&
	       (!strcmp(name, "CLIENT") || !strcmp(name, "HELLO") || !strcmp(name, "SELECT"));
}

static void reset_value(struct resp_dir *d)
{
	d->depth = 0;
	d->attr_levels = 0;
	d->total0 = 0;
	d->streamed_str = false;
	d->keep = 0;
	d->kept = 0;
	d->words = 0;
	d->in_word = false;
	memset(&d->cur, 0, sizeof d->cur);
}

void resp_conn_init(struct resp_conn *c, bool from_start)
{
	memset(c, 0, sizeof(*c));
	c->mid_stream = !from_start;
	for (int s = 0; s < 2; s++) {
		struct resp_dir *d = &c->dir[s];
		d->cur.side = (uint8_t)s;
		d->state = from_start ? RESP_ST_TYPE : RESP_ST_RESYNC;
		d->at_piece = true;
	}
}

/* at_line: the next byte starts a line (a value may start there) */
static void resync(struct resp_dir *d, bool malformed, bool at_line)
{
	d->malformed += malformed && !d->tentative;
	d->tentative = false;
	d->state = RESP_ST_RESYNC;
	d->at_piece = at_line;
	uint8_t side = d->cur.side;
	reset_value(d);
	d->cur.side = side;
}

/* The top-level value is complete: emit it (an attribute waits for the
 * reply it annotates). */
/* A server's array whose first string names what it is, not data: the
 * kinds of pub/sub and client tracking messages (RESP2 sends them as
 * arrays, RESP3 as pushes). */
static bool names_a_kind(const char *s)
{
	static const char *const kinds[] = {
		"MESSAGE",   "PMESSAGE",     "SMESSAGE",     "SUBSCRIBE",    "PSUBSCRIBE",
		"SSUBSCRIBE", "UNSUBSCRIBE", "PUNSUBSCRIBE", "SUNSUBSCRIBE", "PONG",
		"INVALIDATE", NULL};
	/* most replies have no name, the rest start with one of these: this
	 * runs for every reply */
	if (!s[0] || !strchr("MPSUI", s[0]))
		return false;
	for (int i = 0; kinds[i]; i++)
		if (!strcmp(s, kinds[i]))
			return true;
	return false;
}

static void top_done(struct resp_dir *d, uint64_t ts, resp_msg_fn *emit, void *ctx)
{
	d->state = RESP_ST_TYPE;
	d->cur.ts_last = ts;
	if (d->cur.side == RESP_SERVER && !d->cur.push && !names_a_kind(d->cur.name)) {
		d->cur.name[0] = '\0'; /* a reply's first string is data */
		d->cur.name_cut = false;
	}
	d->msgs++;
	if (emit)
		emit(ctx, &d->cur);
	uint8_t side = d->cur.side;
	reset_value(d);
	d->cur.side = side;
}

/* A value ended: count it as an element of its aggregate, and close the
 * aggregates it completes. */
static void value_done(struct resp_dir *d, uint64_t ts, resp_msg_fn *emit, void *ctx)
{
	d->keep = 0;
	while (d->depth > 0) {
		uint64_t *left = &d->left[d->depth - 1];
		if (*left == STREAMED)
			break;
		if (--*left > 0)
			break;
		d->depth--; /* the aggregate is complete: an element of its parent */
		if (d->attr_levels >> d->depth & 1) {
			/* an attribute: the value it annotates follows, and is
			 * the element (or the reply) */
			d->attr_levels &= ~(1u << d->depth);
			d->state = RESP_ST_TYPE;
			if (d->depth == 0) {
				d->cur.type = 0;
				d->cur.attr = true;
				d->cur.argc = 0;
				d->cur.name[0] = '\0';
				d->total0 = 0;
			}
			return;
		}
	}
	if (d->depth == 0)
		top_done(d, ts, emit, ctx);
	else
		d->state = RESP_ST_TYPE;
}

/* What the string value starting now goes to: the name, an argument, or
 * nothing (a key, a value, a password). */
static uint8_t keep_for(const struct resp_dir *d)
{
	if (d->depth != 1 || d->left[0] == STREAMED || d->total0 == 0)
		return 0;
	uint64_t idx = d->total0 - d->left[0];
	if (idx == 0)
		return 1;
	if (d->cur.side == RESP_CLIENT && idx <= 2 && keeps_args(d->cur.name))
		return (uint8_t)(1 + idx);
	return 0;
}

static void keep_bytes(struct resp_dir *d, const uint8_t *p, size_t n)
{
	char *to = d->keep == 1 ? d->cur.name : d->cur.arg[d->keep - 2];
	uint32_t cap = d->keep == 1 ? RESP_NAME_MAX : RESP_ARG_MAX;
	for (size_t i = 0; i < n; i++) {
		if (d->kept < cap)
			to[d->kept] = (char)upper(p[i]);
		else if (d->keep == 1)
			d->cur.name_cut = true;
		d->kept++;
	}
	to[d->kept < cap ? d->kept : cap] = '\0';
}

/* A decimal number of the header line (num[0..n)): -1 for "-1", -2 for
 * "?" (streamed), -3 if it is not one. */
static int64_t header_number(const char *s, uint32_t n)
{
	if (n == 1 && s[0] == '?')
		return -2;
	if (n == 2 && s[0] == '-' && s[1] == '1')
		return -1;
	if (n == 0 || n > 19)
		return -3;
	uint64_t v = 0; /* 19 digits fit; an int64_t could overflow */
	for (uint32_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -3;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	return v > INT64_MAX ? -3 : (int64_t)v;
}

/* Does a header line of type t with text s[0..n) make sense?  (The rules
 * header_done applies, without acting on them.) */
static bool header_ok(enum resp_side side, uint8_t t, const char *s, uint32_t n)
{
	int64_t v = n < 24 ? header_number(s, n) : -3;
	switch (t) {
	case '+':
	case '-':
	case ',':
	case '(':
		for (uint32_t i = 0; i < n; i++)
			if ((uint8_t)s[i] < 0x20 && s[i] != '\t')
				return false;
		return true;
	case ':':
		return v >= 0 || (n > 1 && s[0] == '-' && header_number(s + 1, n - 1) >= 0);
	case '_':
		return n == 0;
	case '#':
		return n == 1 && (s[0] == 't' || s[0] == 'f');
	case '$':
		return (v >= 0 && (uint64_t)v <= RESP_BULK_MAX) || v == -1 ||
		       (v == -2 && side == RESP_SERVER);
	case '!':
	case '=':
		return v >= 0 && (uint64_t)v <= RESP_BULK_MAX;
	case '*':
	case '%':
	case '~':
	case '>':
	case '|':
		if (t == '*' && v == -1)
			return true; /* RESP2's null array */
		if (side == RESP_CLIENT)
			return t == '*' && v >= 0 && (uint64_t)v <= RESP_MULTIBULK_MAX;
		return (v >= 0 && (uint64_t)v <= RESP_AGG_MAX) || v == -2;
	default:
		return false;
	}
}

/* Could p[0..n), a piece's last bytes without a line's end, begin a value
 * (its header's first bytes)? */
static bool prefix_ok(enum resp_side side, bool inl, const uint8_t *p, size_t n)
{
	if (side == RESP_CLIENT && p[0] != '*') {
		if (!inl)
			return false;
		for (size_t i = 0; i < n; i++)
			if (!((p[i] >= 'a' && p[i] <= 'z') || (p[i] >= 'A' && p[i] <= 'Z') ||
			      (i > 0 && p[i] >= 0x20 && p[i] < 0x7f)))
				return false;
		return true;
	}
	if (!resp_type_valid(p[0]))
		return false;
	bool number = strchr("+-,(", p[0]) == NULL;
	for (size_t i = 1; i < n; i++) {
		bool cr = p[i] == '\r' && i == n - 1;
		if (number ? !((p[i] >= '0' && p[i] <= '9') || p[i] == '-' || p[i] == '?' || cr ||
			       (p[0] == '#' && (p[i] == 't' || p[i] == 'f')))
			   : (p[i] < 0x20 && p[i] != '\t' && !cr))
			return false;
	}
	return true;
}

/* Could a value start at p[0..n) (the rest of the piece)?  Its whole header
 * line must be there and make sense: a client's command is an array, or -
 * inl: the client has sent inline commands - an inline command (a word of
 * letters, printable text, a line's end).  *partial: the piece ended first,
 * and what it has could begin one. */
static bool plausible_start(enum resp_side side, bool inl, const uint8_t *p, size_t n,
			    bool *partial)
{
	const uint8_t *lf = memchr(p, '\n', n < 1024 ? n : 1024);
	*partial = !lf;
	if (!lf)
		return n < 24 && prefix_ok(side, inl, p, n);
	size_t line = (size_t)(lf - p);
	if (side == RESP_CLIENT && p[0] != '*') {
		if (!inl)
			return false;
		if (!((p[0] >= 'a' && p[0] <= 'z') || (p[0] >= 'A' && p[0] <= 'Z')))
			return false;
		for (size_t i = 0; i < line; i++)
			if ((p[i] < 0x20 && p[i] != '\t' && p[i] != '\r') || p[i] >= 0x7f)
				return false;
		return true;
	}
	if (line < 2 || lf[-1] != '\r' || !resp_type_valid(p[0]))
		return false;
	return header_ok(side, p[0], (const char *)p + 1, (uint32_t)(line - 2));
}

static bool push_level(struct resp_dir *d, uint64_t elements)
{
	if (d->depth == RESP_DEPTH_MAX)
		return false;
	d->left[d->depth++] = elements;
	return true;
}

/* A header line is complete: what it starts.  False: malformed. */
static bool header_done(struct resp_dir *d, uint64_t ts, resp_msg_fn *emit, void *ctx)
{
	uint8_t t = d->type;
	bool top = d->depth == 0 && !d->streamed_str;
	uint32_t n = d->line_len;
	int64_t v = n < sizeof d->num ? header_number(d->num, n) : -3;
	/* header_ok says what makes sense (a line too long to keep can only be
	 * a simple string's); below, what it starts */
	bool text = t == '+' || t == '-' || t == ',' || t == '(';
	if (n >= sizeof d->num ? !text
			       : t != ';' && t != '.' &&
					 !header_ok((enum resp_side)d->cur.side, t, d->num, n))
		return false;
	d->tentative = false;
	if (top) {
		d->cur.type = t;
		d->cur.push = t == '>';
		d->cur.error = t == '-' || t == '!';
	}
	switch (t) {
	case '+':
	case '-':
	case ',':
	case '(':
		if (d->keep == 1 && d->cur.side == RESP_SERVER) /* a push's kind, as a simple string */
			keep_bytes(d, (const uint8_t *)d->num, n < sizeof d->num ? n : sizeof d->num);
		break;
	case ':':
	case '#':
		break;
	case '_':
		d->cur.null |= top;
		break;
	case ';': /* a streamed string's chunk */
		if (v < 0 || (uint64_t)v > RESP_BULK_MAX)
			return false;
		if (v == 0) {
			d->streamed_str = false;
			break; /* the string is complete */
		}
		d->bulk_left = (uint64_t)v + 2;
		d->state = RESP_ST_BULK;
		return true;
	case '$':
	case '!':
	case '=':
		if (v == -1 && t == '$') {
			d->cur.null |= top;
			break;
		}
		if (v == -2) { /* "$?", a server's only (header_ok) */
			d->streamed_str = true;
			d->state = RESP_ST_TYPE;
			return true;
		}
		d->bulk_left = (uint64_t)v + 2;
		d->state = RESP_ST_BULK;
		return true;
	case '.': /* the end of a streamed aggregate */
		if (n != 0 || d->depth == 0 || d->left[d->depth - 1] != STREAMED)
			return false;
		d->depth--;
		break;
	default: { /* an aggregate */
		if (v == -1 && t == '*') {
			d->cur.null |= top;
			break;
		}
		/* "?" (a server's only) or a count within the side's limit: header_ok */
		uint64_t elements = v == -2 ? STREAMED
					    : (uint64_t)v * ((t == '%' || t == '|') ? 2 : 1);
		if (top) {
			d->cur.argc = v >= 0 ? (uint64_t)v : 0;
			d->total0 = elements == STREAMED ? 0 : elements;
		}
		if (elements == 0)
			break; /* empty: complete */
		if (!push_level(d, elements))
			return false;
		if (t == '|')
			d->attr_levels |= 1u << (d->depth - 1);
		d->state = RESP_ST_TYPE;
		return true;
	}
	}
	value_done(d, ts, emit, ctx);
	return true;
}

/* ----------------------------------------------------------------------
 * Whole values in one piece
 *
 * Most values are whole in the piece they start in (a GET and its reply,
 * a pipeline of them in one segment): those are parsed straight from the
 * bytes, as picohttpparser parses a request, without the state machine's
 * switch per element and line byte by byte.  Only plainly valid values of
 * the common shapes take this path - a command of bulk strings; a reply
 * that is a scalar or a flat array of scalars - and it changes nothing
 * until the whole value has been read: anything else (split, nested,
 * streamed, an attribute, a null in a command, malformed) returns 0, and
 * the machine reads it from the same byte, so the two always agree
 * (test_resp.c and fuzz_resp.c compare them).
 * ---------------------------------------------------------------------- */

/* The LF ending the line that starts at p[0], within max bytes, with its
 * CR: its index (>= 2), or 0. */
static size_t fast_line(const uint8_t *p, size_t n, size_t max)
{
	const uint8_t *lf = memchr(p, '\n', n < max ? n : max);
	return lf && lf - p >= 2 && lf[-1] == '\r' ? (size_t)(lf - p) : 0;
}

/* A header of 1 to 19 digits at s[0..n) and its CRLF: the number
 * (header_number's), and *end the index past the LF; -1 if not that.  A
 * loop of its own, not memchr: the line is a few bytes. */
static inline int64_t fast_number(const uint8_t *s, size_t n, size_t *end)
{
	size_t lim = n < 19 ? n : 19, i = 0;
	uint64_t v = 0;
	unsigned dg;
	while (i < lim && (dg = (unsigned)s[i] - '0') <= 9) {
		v = v * 10 + dg;
		i++;
	}
	/* a 20th digit is no CR: refused */
	if (i == 0 || n - i < 2 || s[i] != '\r' || s[i + 1] != '\n' || v > INT64_MAX)
		return -1;
	*end = i + 2;
	return (int64_t)v;
}

/* A bulk string with a length, whole at p[0..n) ('$' at p[0]): its size,
 * its body in *body and *len; 0 if not that. */
static inline size_t fast_bulk(const uint8_t *p, size_t n, const uint8_t **body, size_t *len)
{
	size_t end;
	int64_t v = fast_number(p + 1, n - 1, &end);
	if (v < 0 || (uint64_t)v > RESP_BULK_MAX || (uint64_t)v + 2 > n - (1 + end))
		return 0;
	const uint8_t *b = p + 1 + end;
	if (b[v] != '\r' || b[v + 1] != '\n')
		return 0;
	*body = b;
	*len = (size_t)v;
	return 1 + end + (size_t)v + 2;
}

struct fast_scalar {
	bool null;
	const uint8_t *text; /* a string's body, or a simple string's line */
	size_t len;
};

/* A value that is no aggregate, whole at p[0..n), of a type this path
 * reads (a client's: a bulk string with a length): its size, or 0. */
static inline size_t fast_scalar(enum resp_side side, const uint8_t *p, size_t n, struct fast_scalar *e)
{
	if (n < 3)
		return 0;
	size_t lf;
	e->null = false;
	e->text = p + 1;
	e->len = 0;
	if (side == RESP_CLIENT && p[0] != '$')
		return 0;
	switch (p[0]) {
	case '$':
		if (side == RESP_SERVER && n >= 5 && !memcmp(p + 1, "-1\r\n", 4)) {
			e->null = true;
			return 5;
		}
		return fast_bulk(p, n, &e->text, &e->len);
	case '+':
	case '-':
	case ',':
	case '(':
		if (!(lf = fast_line(p, n, RESP_LINE_MAX + 3)))
			return 0;
		for (size_t i = 1; i < lf - 1; i++)
			if (p[i] < 0x20 && p[i] != '\t')
				return 0;
		e->len = lf - 2;
		return lf + 1;
	case ':': {
		size_t minus = p[1] == '-', end;
		return fast_number(p + 1 + minus, n - 1 - minus, &end) < 0 ? 0 : 1 + minus + end;
	}
	case '_':
		e->null = true;
		return p[1] == '\r' && p[2] == '\n' ? 3 : 0;
	case '#':
		return n >= 4 && (p[1] == 't' || p[1] == 'f') && p[2] == '\r' && p[3] == '\n' ? 4 : 0;
	default:
		return 0;
	}
}

/* What keep_bytes keeps of n bytes, into to[cap + 1]. */
static void fast_keep(char *to, size_t cap, const uint8_t *p, size_t n)
{
	size_t k = n < cap ? n : cap;
	for (size_t i = 0; i < k; i++)
		to[i] = (char)upper(p[i]);
	to[k] = '\0';
}

/* A top-level value whole at p[0..n): emitted as the machine would, and
 * its size; 0 when it is not one this path reads. */
static size_t fast_value(struct resp_dir *d, enum resp_side side, const uint8_t *p, size_t n,
			 uint64_t ts, resp_msg_fn *emit, void *ctx)
{
	struct resp_msg m;
	struct fast_scalar e;
	size_t at;
	/* field by field, not a memset of the whole: this runs per value */
	m.side = (uint8_t)side;
	m.type = p[0];
	m.push = m.error = m.null = m.attr = m.gap = m.name_cut = false;
	m.argc = 0;
	m.ts_first = m.ts_last = ts;
	m.name[0] = m.arg[0][0] = m.arg[1][0] = '\0';
	if (p[0] != '*') {
		if (side == RESP_CLIENT || !(at = fast_scalar(side, p, n, &e)))
			return 0;
		m.error = p[0] == '-';
		m.null = e.null;
	} else {
		size_t end;
		int64_t v = fast_number(p + 1, n - 1, &end);
		if (v < 0 || (uint64_t)v > (side == RESP_CLIENT ? RESP_MULTIBULK_MAX : RESP_AGG_MAX))
			return 0;
		m.argc = (uint64_t)v;
		at = 1 + end;
		bool args = false; /* a command whose first arguments are kept */
		for (uint64_t k = 0; k < m.argc; k++) { /* each element >= 3 bytes: bounded by n */
			size_t used = 0;
			if (at + 3 > n)
				return 0;
			if (side == RESP_SERVER) /* a client's are bulk strings */
				used = fast_scalar(side, p + at, n - at, &e);
			else if (p[at] == '$')
				used = fast_bulk(p + at, n - at, &e.text, &e.len);
			if (!used)
				return 0;
			uint8_t t = p[at];
			if (k == 0 && (t == '$' || (side == RESP_SERVER && (t == '+' || t == '-')))) {
				/* a simple string's name: the header's first bytes (num[]) */
				size_t len = t == '$' ? e.len : e.len < sizeof d->num ? e.len : sizeof d->num;
				fast_keep(m.name, RESP_NAME_MAX, e.text, len);
				m.name_cut = len > RESP_NAME_MAX;
				args = side == RESP_CLIENT && (len == 5 || len == 6) && keeps_args(m.name);
			} else if (k <= 2 && args) {
				fast_keep(m.arg[k - 1], RESP_ARG_MAX, e.text, e.len);
			}
			at += used;
		}
	}
	m.bytes = at;
	if (side == RESP_SERVER && !names_a_kind(m.name)) {
		m.name[0] = '\0'; /* a reply's first string is data */
		m.name_cut = false;
	}
	d->tentative = false;
	d->msgs++;
	if (emit)
		emit(ctx, &m);
	return at;
}

void resp_feed(struct resp_conn *c, enum resp_side side, const uint8_t *data, size_t len,
	       uint64_t ts_ns, resp_msg_fn *emit, void *ctx)
{
	struct resp_dir *d = &c->dir[side];
	if (!c->started[side] && len > 0) {
		c->started[side] = true;
		bool whole;
		if (c->tls || (c->mid_stream ? enc_kind_of(data, len, &whole) == ENC_TLS
					     : side == RESP_CLIENT && data[0] == 0x16)) {
			c->tls = true; /* a ClientHello, or TLS records picked up */
			c->dir[0].state = c->dir[1].state = RESP_ST_TLS;
		}
	}
	if (d->state == RESP_ST_RESYNC)
		d->at_piece = true;
	size_t i = 0;
	while (i < len) {
		const uint8_t *p = data + i;
		size_t n = len - i;
		switch (d->state) {
		case RESP_ST_TLS:
			d->tls_bytes += n;
			return;
		case RESP_ST_RESYNC: {
			size_t k = 0;
			bool found = false, partial = false;
			while (k < n) {
				if ((k == 0 ? d->at_piece : p[k - 1] == '\n') &&
				    plausible_start(side, d->inline_seen, p + k, n - k, &partial)) {
					found = true;
					break;
				}
				k++;
			}
			d->skipped_bytes += k;
			i += k;
			d->at_piece = false;
			if (found) {
				d->resyncs++;
				d->state = RESP_ST_TYPE;
				d->tentative = partial; /* a miss then is no malformed value */
			}
			continue;
		}
		case RESP_ST_TYPE: {
			uint8_t b = p[0];
			if (d->depth == 0 && !d->cur.attr && !d->streamed_str && !c->slow) {
				size_t used = fast_value(d, side, p, n, ts_ns, emit, ctx);
				if (used) {
					i += used;
					continue;
				}
			}
			if (d->depth == 0 && !d->cur.attr && !d->streamed_str) {
				uint8_t s = d->cur.side;
				reset_value(d); /* a new top-level value */
				d->cur.side = s;
			}
			if (d->depth == 0 && d->cur.bytes == 0)
				d->cur.ts_first = ts_ns;
			if (side == RESP_CLIENT && d->depth == 0 && b != '*') {
				d->inline_seen = true;
				d->state = RESP_ST_INLINE; /* the byte is the line's */
				d->cur.type = RESP_INLINE;
				d->line_len = 0;
				d->cr = false;
				continue;
			}
			bool ok = d->streamed_str ? b == ';'
				  : side == RESP_CLIENT ? (d->depth == 0 ? b == '*' : b == '$')
				  : resp_type_valid(b) || (b == '.' && d->depth > 0);
			if (!ok) {
				resync(d, true, false);
				continue;
			}
			if (!d->streamed_str && is_string(b))
				d->keep = keep_for(d);
			else if (!d->streamed_str && d->cur.side == RESP_SERVER &&
				 (b == '+' || b == '-'))
				d->keep = keep_for(d) == 1 ? 1 : 0;
			d->kept = 0;
			d->type = b;
			d->line_len = 0;
			d->cr = false;
			d->state = RESP_ST_LINE;
			d->cur.bytes++;
			i++;
			continue;
		}
		case RESP_ST_LINE: {
			size_t k = 0;
			bool end = false;
			for (; k < n; k++) {
				uint8_t b = p[k];
				if (b == '\n') {
					if (!d->cr)
						break; /* a bare LF: malformed below */
					end = true;
					k++;
					break;
				}
				if (d->cr) { /* CR not before LF */
					d->cr = false;
					d->line_len = RESP_LINE_MAX + 1;
					break;
				}
				if (b == '\r') {
					d->cr = true;
					continue;
				}
				if (d->line_len < sizeof d->num)
					d->num[d->line_len] = (char)b;
				d->line_len++;
				if (d->line_len > RESP_LINE_MAX)
					break;
			}
			d->cur.bytes += k;
			i += k;
			if (!end && (k < n || d->line_len > RESP_LINE_MAX)) {
				resync(d, true, false); /* bare LF, stray CR, too long */
				continue;
			}
			if (end && !header_done(d, ts_ns, emit, ctx))
				resync(d, true, true); /* a whole line that is not RESP */
			continue;
		}
		case RESP_ST_BULK: {
			uint64_t take = d->bulk_left < n ? d->bulk_left : n;
			uint64_t body_left = d->bulk_left > 2 ? d->bulk_left - 2 : 0;
			uint64_t body = body_left < take ? body_left : take;
			if (d->keep && body)
				keep_bytes(d, p, (size_t)body);
			bool crlf = true; /* what follows the body must be CRLF */
			for (uint64_t k = body; k < take && crlf; k++)
				crlf = p[k] == (d->bulk_left - k == 2 ? '\r' : '\n');
			if (!crlf) {
				resync(d, true, false);
				continue;
			}
			d->bulk_left -= take;
			d->cur.bytes += take;
			i += take;
			if (d->bulk_left == 0) {
				if (d->streamed_str) {
					d->state = RESP_ST_TYPE; /* the next chunk */
					d->keep = 0;
				} else {
					value_done(d, ts_ns, emit, ctx);
				}
			}
			continue;
		}
		case RESP_ST_INLINE: {
			size_t k = 0;
			bool end = false;
			for (; k < n; k++) {
				uint8_t b = p[k];
				if (b == '\n') {
					end = true;
					k++;
					break;
				}
				if (++d->line_len > RESP_INLINE_MAX)
					break;
				if (b == ' ' || b == '\t' || b == '\r') {
					d->in_word = false;
					continue;
				}
				if (!d->in_word) {
					d->in_word = true;
					d->words++;
					d->kept = 0;
					d->keep = d->words == 1 ? 1
						  : d->words <= 3 && keeps_args(d->cur.name) ? (uint8_t)d->words
											     : 0;
				}
				if (d->keep)
					keep_bytes(d, &b, 1);
			}
			d->cur.bytes += k;
			i += k;
			if (!end && d->line_len > RESP_INLINE_MAX) {
				resync(d, true, false);
				continue;
			}
			if (end) {
				if (d->words == 0) { /* an empty line: Redis skips it */
					d->state = RESP_ST_TYPE;
					d->cur.type = 0;
					d->cur.bytes = 0;
					continue;
				}
				d->cur.argc = d->words;
				d->tentative = false;
				top_done(d, ts_ns, emit, ctx);
			}
			continue;
		}
		default:
			return;
		}
	}
}

void resp_gap(struct resp_conn *c, enum resp_side side, uint64_t n, resp_msg_fn *emit, void *ctx)
{
	struct resp_dir *d = &c->dir[side];
	d->gap_bytes += n;
	if (d->state == RESP_ST_TLS || d->state == RESP_ST_RESYNC)
		return;
	if (d->state == RESP_ST_BULK && d->bulk_left >= 2 &&
	    gap_keeps_framing(true, n, d->bulk_left - 2)) {
		d->bulk_left -= n; /* inside the body: still in step */
		d->cur.bytes += n;
		d->cur.gap = true;
		return;
	}
	if (side == RESP_CLIENT && d->state != RESP_ST_INLINE && d->cur.type == '*' && d->depth >= 1 &&
	    d->total0 > 0) {
		/* a command cut short: it was sent; its name only if read whole */
		bool name_read = d->depth == 1 && (d->total0 - d->left[0] >= 1 ||
						   (d->state == RESP_ST_BULK && d->keep == 1 &&
						    d->bulk_left <= 2)); /* all but its CRLF */
		if (!name_read || d->cur.name_cut)
			d->cur.name[0] = '\0';
		d->cur.arg[0][0] = d->cur.arg[1][0] = '\0';
		d->cur.argc = d->total0;
		d->cur.gap = true;
		d->cur.bytes += n;
		top_done(d, d->cur.ts_first, emit, ctx);
	}
	resync(d, false, false); /* the value is lost with its boundaries */
}
