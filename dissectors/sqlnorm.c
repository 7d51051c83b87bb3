/* sqlnorm.c - statements normalised as pg_stat_statements shows them
 * (sqlnorm.h).  One pass to find the highest $n, one to write. */
#include "sqlnorm.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (uint8_t)c >= 0x80;
}

static bool is_ident(char c)
{
	return is_ident_start(c) || is_digit(c) || c == '$';
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* The end of a quoted run starting at i (the opening quote q): a doubled
 * quote stays inside; with backslashes (E'...'), \x does too.  n when it
 * does not end. */
static size_t quoted_end(const char *s, size_t n, size_t i, char q, bool backslashes)
{
	for (size_t j = i + 1; j < n; j++) {
		if (backslashes && s[j] == '\\') {
			j++;
			continue;
		}
		if (s[j] == q) {
			if (j + 1 < n && s[j + 1] == q) {
				j++;
				continue;
			}
			return j + 1;
		}
	}
	return n;
}

/* A dollar-quoted literal at i ($tag$...$tag$): its end, n when it does
 * not end, 0 when i is no opening tag. */
static size_t dollar_end(const char *s, size_t n, size_t i)
{
	size_t j = i + 1;
	while (j < n && (is_ident_start(s[j]) || is_digit(s[j])) && !(j == i + 1 && is_digit(s[j])))
		j++;
	if (j >= n || s[j] != '$')
		return 0;
	size_t tag = j + 1 - i;
	for (size_t k = j + 1; k + tag <= n; k++)
		if (s[k] == '$' && memcmp(s + k, s + i, tag) == 0)
			return k + tag;
	return n;
}

/* A comment at i: its end (block comments nest, as PostgreSQL's do), or 0. */
static size_t comment_end(const char *s, size_t n, size_t i)
{
	if (i + 1 < n && s[i] == '-' && s[i + 1] == '-') {
		const char *nl = memchr(s + i, '\n', n - i);
		return nl ? (size_t)(nl - s) + 1 : n;
	}
	if (i + 1 < n && s[i] == '/' && s[i + 1] == '*') {
		size_t depth = 1, j = i + 2;
		while (j < n && depth) {
			if (j + 1 < n && s[j] == '/' && s[j + 1] == '*')
				depth++, j += 2;
			else if (j + 1 < n && s[j] == '*' && s[j + 1] == '/')
				depth--, j += 2;
			else
				j++;
		}
		return j;
	}
	return 0;
}

/* A number at i: its end (digits, one point, an exponent), or 0. */
static size_t number_end(const char *s, size_t n, size_t i)
{
	size_t j = i;
	while (j < n && is_digit(s[j]))
		j++;
	if (j < n && s[j] == '.') {
		j++;
		while (j < n && is_digit(s[j]))
			j++;
	}
	if (j == i || (j == i + 1 && s[i] == '.'))
		return 0;
	if (j < n && (s[j] == 'e' || s[j] == 'E')) {
		size_t k = j + 1;
		if (k < n && (s[k] == '+' || s[k] == '-'))
			k++;
		if (k < n && is_digit(s[k])) {
			while (k < n && is_digit(s[k]))
				k++;
			j = k;
		}
	}
	return j;
}

/* A constant's prefix letter before a quote: E'..', B'..', X'..', N'..',
 * U&'..'.  Returns the quote's index, or 0. */
static size_t prefixed_quote(const char *s, size_t n, size_t i)
{
	char c = (char)(s[i] | 0x20);
	if ((c == 'e' || c == 'b' || c == 'x' || c == 'n') && i + 1 < n && s[i + 1] == '\'')
		return i + 1;
	if (c == 'u' && i + 2 < n && s[i + 1] == '&' && s[i + 2] == '\'')
		return i + 2;
	return 0;
}

struct out {
	char *p;
	size_t len, cap; /* cap: bytes for text, the NUL and the ellipsis kept aside */
	bool full;
};

static void put(struct out *o, const char *s, size_t n)
{
	if (o->full)
		return;
	if (o->len + n > o->cap) {
		n = o->cap - o->len;
		while (n > 0 && ((uint8_t)s[n] & 0xc0) == 0x80) /* not inside a character */
			n--;
		o->full = true;
	}
	memcpy(o->p + o->len, s, n);
	o->len += n;
}

static void put_space(struct out *o)
{
	if (o->len > 0 && o->p[o->len - 1] != ' ')
		put(o, " ", 1);
}

/* The highest $n in the text, outside literals, identifiers and comments. */
static unsigned long max_param(const char *s, size_t n)
{
	unsigned long max = 0;
	for (size_t i = 0; i < n;) {
		size_t e;
		char c = s[i];
		if ((e = comment_end(s, n, i)) != 0) {
			i = e;
		} else if (c == '\'' || c == '"') {
			i = quoted_end(s, n, i, c, false);
		} else if (c == '$' && i + 1 < n && is_digit(s[i + 1])) {
			unsigned long v = 0;
			for (i++; i < n && is_digit(s[i]); i++)
				v = v < 100000 ? v * 10 + (unsigned long)(s[i] - '0') : v;
			max = v > max ? v : max;
		} else if (c == '$' && (e = dollar_end(s, n, i)) != 0) {
			i = e;
		} else if (is_ident_start(c)) {
			size_t q = prefixed_quote(s, n, i);
			if (q)
				i = quoted_end(s, n, q, '\'', (s[i] | 0x20) == 'e');
			else
				while (i < n && is_ident(s[i]))
					i++;
		} else {
			i++;
		}
	}
	return max;
}

size_t sql_normalize(const char *text, size_t n, bool complete, char *out, size_t cap)
{
	static const char ellipsis[] = "\xe2\x80\xa6";
	if (cap < 16) { /* below the contract: nothing, but never past out */
		if (cap)
			out[0] = '\0';
		return 0;
	}
	const char *nul = memchr(text, '\0', n);
	if (nul)
		n = (size_t)(nul - text);
	struct out o = {out, 0, cap - 1 - (sizeof ellipsis - 1), false};
	unsigned long k = max_param(text, n);
	bool cut = !complete;
	/* what the last token was: a unary minus only follows an operator,
	 * a comma, an opening parenthesis or nothing */
	bool operand_before = false;
	for (size_t i = 0; i < n && !o.full;) {
		char c = text[i];
		size_t e, q;
		if (is_space(c)) {
			put_space(&o);
			i++;
			continue;
		}
		if ((e = comment_end(text, n, i)) != 0) {
			put_space(&o);
			i = e;
			continue;
		}
		bool constant = false;
		if (c == '\'') {
			e = quoted_end(text, n, i, '\'', false);
			constant = true;
		} else if (is_ident_start(c) && (q = prefixed_quote(text, n, i)) != 0) {
			e = quoted_end(text, n, q, '\'', (c | 0x20) == 'e');
			constant = true;
		} else if (c == '$' && i + 1 < n && is_digit(text[i + 1])) {
			for (e = i + 1; e < n && is_digit(text[e]);)
				e++;
		} else if (c == '$' && (e = dollar_end(text, n, i)) != 0) {
			constant = true;
		} else if ((e = number_end(text, n, i)) != 0) {
			constant = true;
		} else if (c == '-' && !operand_before && i + 1 < n &&
			   (e = number_end(text, n, i + 1)) != 0) {
			constant = true; /* -5: the parser folds the sign into the constant */
		} else if (c == '"') {
			e = quoted_end(text, n, i, '"', false);
		} else if (is_ident_start(c)) {
			for (e = i; e < n && is_ident(text[e]);)
				e++;
		} else {
			e = i + 1;
		}
		if (constant) {
			/* never glued to a word before it: "date'2020-01-01'" is
			 * "date $1", and "$a'..." cannot turn into a dollar quote */
			if (o.len > 0 && is_ident(o.p[o.len - 1]))
				put(&o, " ", 1);
			char p[16];
			int len = snprintf(p, sizeof p, "$%lu", ++k);
			put(&o, p, (size_t)len);
		} else {
			put(&o, text + i, e - i);
		}
		operand_before = constant || c == '"' || c == '$' || c == ')' || c == ']' ||
				 (is_ident_start(c) && !constant);
		i = e;
	}
	while (o.len > 0 && o.p[o.len - 1] == ' ')
		o.len--;
	if (cut || o.full) {
		memcpy(o.p + o.len, ellipsis, sizeof ellipsis - 1);
		o.len += sizeof ellipsis - 1;
	}
	o.p[o.len] = '\0';
	return o.len;
}
