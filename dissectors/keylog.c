/* keylog.c - the NSS key log format, a line at a time (keylog.h). */
#include "keylog.h"

#include <string.h>

static const char *const names[KEYLOG_NLABELS] = {
	[KEYLOG_CLIENT_RANDOM] = "CLIENT_RANDOM",
	[KEYLOG_CLIENT_EARLY] = "CLIENT_EARLY_TRAFFIC_SECRET",
	[KEYLOG_CLIENT_HANDSHAKE] = "CLIENT_HANDSHAKE_TRAFFIC_SECRET",
	[KEYLOG_SERVER_HANDSHAKE] = "SERVER_HANDSHAKE_TRAFFIC_SECRET",
	[KEYLOG_CLIENT_TRAFFIC] = "CLIENT_TRAFFIC_SECRET_0",
	[KEYLOG_SERVER_TRAFFIC] = "SERVER_TRAFFIC_SECRET_0",
	[KEYLOG_EXPORTER] = "EXPORTER_SECRET",
	[KEYLOG_EARLY_EXPORTER] = "EARLY_EXPORTER_SECRET",
};

const char *keylog_label_name(enum keylog_label l)
{
	return (unsigned)l < KEYLOG_NLABELS ? names[l] : "?";
}

void keylog_init(struct keylog_reader *r)
{
	memset(r, 0, sizeof(*r));
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* s[0..n) as hex into out (n even, n/2 <= cap): the bytes, or -1. */
static int unhex(const char *s, size_t n, uint8_t *out, size_t cap)
{
	if (n == 0 || n % 2 || n / 2 > cap)
		return -1;
	for (size_t i = 0; i < n; i += 2) {
		int hi = hex_digit(s[i]), lo = hex_digit(s[i + 1]);
		if (hi < 0 || lo < 0)
			return -1;
		out[i / 2] = (uint8_t)(hi << 4 | lo);
	}
	return (int)(n / 2);
}

/* The secret lengths a label's secret may have: a master secret is 48
 * bytes; a TLS 1.3 secret is its hash's length (SHA-256 or SHA-384). */
static bool secret_fits(enum keylog_label l, int len)
{
	return l == KEYLOG_CLIENT_RANDOM ? len == 48 : len == 32 || len == 48;
}

/* One whole line, without its end of line. */
static void line_done(struct keylog_reader *r, const char *s, size_t n, keylog_fn *fn, void *ctx)
{
	r->lines++;
	if (n && s[n - 1] == '\r')
		n--;
	size_t lead = 0;
	while (lead < n && (s[lead] == ' ' || s[lead] == '\t'))
		lead++;
	if (lead == n || s[lead] == '#')
		return; /* blank, or a comment */
	const char *f[3];
	size_t len[3];
	int nf = 0;
	for (size_t i = lead; i < n && nf < 4;) { /* a fourth field is one too many */
		size_t j = i;
		while (j < n && s[j] != ' ' && s[j] != '\t')
			j++;
		if (nf < 3) {
			f[nf] = s + i;
			len[nf] = j - i;
		}
		nf++;
		while (j < n && (s[j] == ' ' || s[j] == '\t'))
			j++;
		i = j;
	}
	int label = -1;
	for (int k = 0; k < KEYLOG_NLABELS && nf >= 1; k++)
		if (strlen(names[k]) == len[0] && memcmp(names[k], f[0], len[0]) == 0)
			label = k;
	if (label < 0) {
		r->unknown++; /* RSA (a premaster secret), a label from after this */
		return;
	}
	struct keylog_entry e = {.label = (enum keylog_label)label};
	int slen;
	if (nf != 3 || unhex(f[1], len[1], e.random, sizeof e.random) != KEYLOG_RANDOM ||
	    (slen = unhex(f[2], len[2], e.secret, sizeof e.secret)) < 0 ||
	    !secret_fits(e.label, slen)) {
		r->malformed++;
		return;
	}
	e.secret_len = (uint8_t)slen;
	r->entries++;
	fn(ctx, &e);
	memset(&e, 0, sizeof e); /* no copy of a secret outlives its call */
}

void keylog_feed(struct keylog_reader *r, const uint8_t *p, size_t n, keylog_fn *fn, void *ctx)
{
	while (n) {
		const uint8_t *nl = memchr(p, '\n', n);
		size_t take = nl ? (size_t)(nl - p) : n;
		if (!r->skipping) {
			if (memchr(p, '\0', take))
				r->skipping = true; /* binary: no key log line has a NUL */
			else if (take > sizeof r->line - r->len)
				r->skipping = true;
			else {
				memcpy(r->line + r->len, p, take);
				r->len += take;
			}
		}
		if (!nl)
			return;
		if (r->skipping) {
			r->lines++;
			r->malformed++;
		} else {
			line_done(r, r->line, r->len, fn, ctx);
		}
		memset(r->line, 0, r->len);
		r->len = 0;
		r->skipping = false;
		p = nl + 1;
		n -= take + 1;
	}
}

void keylog_finish(struct keylog_reader *r, keylog_fn *fn, void *ctx)
{
	if (r->skipping) {
		r->lines++;
		r->malformed++;
	} else if (r->len) {
		line_done(r, r->line, r->len, fn, ctx);
	}
	memset(r->line, 0, sizeof r->line);
	r->len = 0;
	r->skipping = false;
}
