/* sqlclass.c - classify simple-query strings by their leading keywords.
 *
 * Pools and drivers send a small set of fixed strings to check or reset a
 * connection (see docs/pools.md): empty and comment-only queries, "SELECT 1",
 * DISCARD ALL and multi-statement clean-ups.  This lexer splits a string into
 * statements (honouring quotes, dollar quotes and nested comments) and looks
 * at the first words of each.
 */
#include "sqlclass.h"

#include <stdint.h>
#include <string.h>

struct lex {
	const char *s;
	size_t n;
	size_t i;
	bool open; /* a quote or comment runs past the end */
};

static bool is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static char to_upper(char c)
{
	return c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* Skip whitespace and comments.  Returns false if a comment is unterminated. */
static bool skip_ws(struct lex *l)
{
	while (l->i < l->n) {
		char c = l->s[l->i];
		if (is_space(c)) {
			l->i++;
		} else if (c == '-' && l->i + 1 < l->n && l->s[l->i + 1] == '-') {
			while (l->i < l->n && l->s[l->i] != '\n')
				l->i++;
		} else if (c == '/' && l->i + 1 < l->n && l->s[l->i + 1] == '*') {
			int depth = 0; /* PostgreSQL block comments nest */
			while (l->i < l->n) {
				if (l->s[l->i] == '/' && l->i + 1 < l->n && l->s[l->i + 1] == '*') {
					depth++;
					l->i += 2;
				} else if (l->s[l->i] == '*' && l->i + 1 < l->n &&
					   l->s[l->i + 1] == '/') {
					depth--;
					l->i += 2;
					if (depth == 0)
						break;
				} else {
					l->i++;
				}
			}
			if (depth != 0) {
				l->open = true;
				return false;
			}
		} else {
			break;
		}
	}
	return true;
}

/* Read one word ([A-Za-z_0-9*$]+ or one punctuation char) upper-cased into
 * w (at most cap-1 chars).  Returns its length, 0 at end. */
static size_t word(struct lex *l, char *w, size_t cap)
{
	size_t k = 0;
	w[0] = '\0';
	if (!skip_ws(l) || l->i >= l->n)
		return 0;
	char c = l->s[l->i];
	if (is_alnum(c) || c == '_' || c == '$') {
		while (l->i < l->n) {
			c = l->s[l->i];
			if (!(is_alnum(c) || c == '_' || c == '$'))
				break;
			if (k + 1 < cap)
				w[k++] = to_upper(c);
			l->i++;
		}
	} else {
		if (cap > 1)
			w[k++] = c;
		l->i++;
	}
	w[k < cap ? k : cap - 1] = '\0';
	return k;
}

/* Advance past the current statement to just after its ';' (or the end).
 * Returns false if a quote or comment is left open. */
/* A quote or comment runs past the end: the rest is one open statement. */
static bool unterminated(struct lex *l)
{
	l->i = l->n;
	l->open = true;
	return false;
}

static bool skip_statement(struct lex *l)
{
	while (l->i < l->n) {
		char c = l->s[l->i];
		if (c == ';') {
			l->i++;
			return true;
		}
		if (c == '\'' || c == '"') {
			l->i++;
			while (l->i < l->n && l->s[l->i] != c)
				l->i++;
			if (l->i >= l->n)
				return unterminated(l);
			l->i++;
		} else if (c == '$') {
			/* dollar quote: $tag$ ... $tag$ */
			size_t j = l->i + 1;
			while (j < l->n && (is_alnum(l->s[j]) || l->s[j] == '_'))
				j++;
			if (j < l->n && l->s[j] == '$' &&
			    (j == l->i + 1 || !is_digit(l->s[l->i + 1]))) {
				size_t tag = j + 1 - l->i;
				const char *t = l->s + l->i;
				size_t k = j + 1;
				while (k + tag <= l->n && memcmp(l->s + k, t, tag) != 0)
					k++;
				if (k + tag > l->n)
					return unterminated(l);
				l->i = k + tag;
			} else {
				l->i = j;
			}
		} else if ((c == '-' && l->i + 1 < l->n && l->s[l->i + 1] == '-') ||
			   (c == '/' && l->i + 1 < l->n && l->s[l->i + 1] == '*')) {
			if (!skip_ws(l))
				return unterminated(l);
		} else {
			l->i++;
		}
	}
	return true;
}

static bool eq(const char *a, const char *b)
{
	return strcmp(a, b) == 0;
}

/* Classify one statement starting at l->i.  Words are read only as far as
 * needed (most statements are decided by the first one or two).  For an
 * application statement returns SQL_OTHER at once - that decides the whole
 * string; otherwise leaves l->i after the statement. */
static enum sql_kind statement(struct lex *l, bool *open)
{
	char w1[16], w2[32], w3[16], w4[8];
	size_t start = l->i;
	if (word(l, w1, sizeof w1) == 0) {
		l->i = l->n;
		return SQL_EMPTY;
	}
	if (eq(w1, ";"))
		return SQL_EMPTY;
	enum sql_kind k = SQL_OTHER;
	if (eq(w1, "SELECT")) {
		word(l, w2, sizeof w2);
		if (eq(w2, "1") || eq(w2, "$1")) {
			word(l, w3, sizeof w3);
			if (eq(w3, ";") || w3[0] == '\0')
				k = SQL_SELECT1;
		} else if (eq(w2, "PG_ADVISORY_UNLOCK_ALL")) {
			char a[4], b[4], c[4];
			word(l, a, sizeof a);
			word(l, b, sizeof b);
			word(l, c, sizeof c);
			if (eq(a, "(") && eq(b, ")") && (eq(c, ";") || c[0] == '\0'))
				k = SQL_RESET;
		}
	} else if (eq(w1, "BEGIN") || eq(w1, "START") || eq(w1, "COMMIT") || eq(w1, "END") ||
		   eq(w1, "ROLLBACK") || eq(w1, "ABORT") || eq(w1, "SAVEPOINT") ||
		   eq(w1, "RELEASE")) {
		k = SQL_TX;
	} else if (eq(w1, "DISCARD") || eq(w1, "RESET")) {
		k = SQL_RESET;
	} else if (eq(w1, "PREPARE") || eq(w1, "DEALLOCATE") || eq(w1, "CLOSE") ||
		   eq(w1, "UNLISTEN") || eq(w1, "SET")) {
		word(l, w2, sizeof w2);
		if (eq(w1, "PREPARE") && eq(w2, "TRANSACTION"))
			k = SQL_TX;
		else if (eq(w1, "DEALLOCATE") && eq(w2, "ALL"))
			k = SQL_RESET;
		else if ((eq(w1, "CLOSE") && eq(w2, "ALL")) || (eq(w1, "UNLISTEN") && eq(w2, "*")))
			k = SQL_RESET;
		else if (eq(w1, "DEALLOCATE") && eq(w2, "PREPARE")) {
			word(l, w3, sizeof w3);
			if (eq(w3, "ALL"))
				k = SQL_RESET;
		} else if (eq(w1, "SET") && eq(w2, "SESSION")) {
			word(l, w3, sizeof w3);
			word(l, w4, sizeof w4);
			if (eq(w3, "AUTHORIZATION") && eq(w4, "DEFAULT"))
				k = SQL_RESET;
		}
	}
	if (k == SQL_OTHER)
		return k;
	l->i = start;
	if (!skip_statement(l))
		*open = true;
	return k;
}

enum sql_kind sql_classify(const char *text, size_t n, bool complete)
{
	struct lex l = {text, n, 0, false};
	bool any = false, all_tx = true, all_resetish = true, open = false;
	int nstmt = 0;
	enum sql_kind single = SQL_EMPTY, first = SQL_EMPTY;

	/* a NUL ends the string (the wire form carries one) */
	const char *nul = memchr(text, '\0', n);
	if (nul)
		l.n = (size_t)(nul - text);

	while (l.i < l.n) {
		enum sql_kind k = statement(&l, &open);
		if (k == SQL_EMPTY)
			continue;
		any = true;
		nstmt++;
		single = k;
		/* one application statement, or a second statement after SELECT 1,
		 * settles it: no need to lex the rest of a long query */
		if (k == SQL_OTHER || (nstmt > 1 && (single == SQL_SELECT1 || first == SQL_SELECT1)))
			return SQL_OTHER;
		if (nstmt == 1)
			first = k;
		if (k != SQL_TX)
			all_tx = false;
		if (k != SQL_TX && k != SQL_RESET)
			all_resetish = false;
	}
	if (!complete || open || l.open)
		return SQL_OTHER;
	if (!any)
		return SQL_EMPTY;
	if (nstmt == 1)
		return single;
	if (all_tx)
		return SQL_TX;
	if (all_resetish)
		return SQL_RESET;
	return SQL_OTHER;
}

bool sql_is_select_param(const char *text, size_t n)
{
	struct lex l = {text, n, 0, false};
	char w1[8], w2[8], w3[4];
	const char *nul = memchr(text, '\0', n);
	if (nul)
		l.n = (size_t)(nul - text);
	word(&l, w1, sizeof w1);
	word(&l, w2, sizeof w2);
	word(&l, w3, sizeof w3);
	return eq(w1, "SELECT") && eq(w2, "$1") && (w3[0] == '\0' || eq(w3, ";"));
}

static bool ident_char(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       (!first && ((c >= '0' && c <= '9') || c == '.'));
}

/* At text[i], a quoted literal ('it''s', E'a\\b'): the index past it, or 0. */
static size_t quoted_literal(const char *t, size_t n, size_t i)
{
	bool e = i < n && (t[i] == 'E' || t[i] == 'e');
	i += e;
	if (i >= n || t[i] != '\'')
		return 0;
	for (i++; i < n; i++) {
		if (e && t[i] == '\\' && i + 1 < n) {
			i++;
			continue;
		}
		if (t[i] != '\'')
			continue;
		if (i + 1 < n && t[i + 1] == '\'') { /* '' inside */
			i++;
			continue;
		}
		return i + 1;
	}
	return 0;
}

/* At text[i], a list of identifiers, bare or double-quoted, separated by
 * ", " ("$user", public): the index past it, or 0. */
static size_t ident_list(const char *t, size_t n, size_t i)
{
	for (;;) {
		if (i < n && t[i] == '"') {
			for (i++; i < n && t[i] != '"'; i++)
				;
			if (i == n)
				return 0;
			i++;
		} else {
			size_t s = i;
			while (i < n && (ident_char(t[i], i == s) || t[i] == '$'))
				i++;
			if (i == s)
				return 0;
		}
		if (i + 1 < n && t[i] == ',' && t[i + 1] == ' ')
			i += 2;
		else
			return i;
	}
}

bool sql_is_pooler_set(const char *text, size_t n)
{
	const char *nul = memchr(text, '\0', n);
	if (nul)
		n = (size_t)(nul - text);
	size_t i = 0, sets = 0;
	while (i < n) {
		if (n - i < 4 || memcmp(text + i, "SET ", 4) != 0)
			return false;
		size_t s = i += 4;
		while (i < n && ident_char(text[i], i == s))
			i++;
		if (i == s || i >= n || text[i] != '=')
			return false;
		i++;
		size_t past = quoted_literal(text, n, i);
		if (!past)
			past = ident_list(text, n, i);
		if (!past || past >= n || text[past] != ';')
			return false;
		i = past + 1;
		sets++;
	}
	return sets > 0;
}

/* ----------------------------------------------------------------------
 * Fingerprints
 * ---------------------------------------------------------------------- */

struct fp {
	uint64_t h;
	bool last_param;   /* the last token emitted was a literal or parameter */
	bool comma_held;   /* a ',' after one, not emitted yet */
};

static void fp_byte(struct fp *f, uint8_t b)
{
	f->h = (f->h ^ b) * 0x100000001b3ull;
}

static void fp_token_end(struct fp *f)
{
	fp_byte(f, 0x1f); /* tokens apart: "a b" is not "ab" */
}

static void fp_flush_comma(struct fp *f)
{
	if (f->comma_held) {
		fp_byte(f, ',');
		fp_token_end(f);
		f->comma_held = false;
	}
	f->last_param = false;
}

/* A literal or a parameter: '?'.  "?, ?, ?" is "?": IN lists of any length
 * are one statement. */
static void fp_param(struct fp *f)
{
	if (f->comma_held) {
		f->comma_held = false; /* ", ?" after "?": dropped */
		f->last_param = true;
		return;
	}
	fp_byte(f, '?');
	fp_token_end(f);
	f->last_param = true;
}

uint64_t sql_fingerprint(const char *text, size_t n)
{
	const char *nul = memchr(text, '\0', n);
	if (nul)
		n = (size_t)(nul - text);
	struct lex l = {text, n, 0, false};
	struct fp f = {0xcbf29ce484222325ull, false, false};
	while (l.i < l.n) {
		if (!skip_ws(&l))
			break;
		if (l.i >= l.n)
			break;
		char c = l.s[l.i];
		if (c == '\'') { /* a string literal; '' inside is two quotes */
			l.i++;
			while (l.i < l.n) {
				if (l.s[l.i] == '\'' && !(l.i + 1 < l.n && l.s[l.i + 1] == '\''))
					break;
				l.i += l.s[l.i] == '\'' ? 2 : 1;
			}
			l.i++;
			fp_param(&f);
		} else if (is_digit(c) || (c == '.' && l.i + 1 < l.n && is_digit(l.s[l.i + 1]))) {
			while (l.i < l.n && (is_alnum(l.s[l.i]) || l.s[l.i] == '.' ||
					     ((l.s[l.i] == '+' || l.s[l.i] == '-') &&
					      (l.s[l.i - 1] == 'e' || l.s[l.i - 1] == 'E'))))
				l.i++;
			fp_param(&f);
		} else if (c == '$' && l.i + 1 < l.n && is_digit(l.s[l.i + 1])) {
			l.i++;
			while (l.i < l.n && is_digit(l.s[l.i]))
				l.i++;
			fp_param(&f);
		} else if (c == '$') { /* a dollar-quoted literal, or a lone '$' */
			size_t j = l.i + 1;
			while (j < l.n && (is_alnum(l.s[j]) || l.s[j] == '_'))
				j++;
			if (j < l.n && l.s[j] == '$') {
				size_t tag = j + 1 - l.i;
				size_t k = j + 1;
				while (k + tag <= l.n && memcmp(l.s + k, l.s + l.i, tag) != 0)
					k++;
				l.i = k + tag <= l.n ? k + tag : l.n;
				fp_param(&f);
			} else {
				fp_flush_comma(&f);
				fp_byte(&f, '$');
				fp_token_end(&f);
				l.i++;
			}
		} else if (c == '"') { /* a quoted identifier: as written */
			fp_flush_comma(&f);
			size_t j = l.i + 1;
			while (j < l.n && l.s[j] != '"')
				j++;
			for (size_t k = l.i; k < j && k < l.n; k++)
				fp_byte(&f, (uint8_t)l.s[k]);
			fp_token_end(&f);
			l.i = j + 1;
		} else if (is_alnum(c) || c == '_' || (uint8_t)c >= 0x80) {
			fp_flush_comma(&f);
			while (l.i < l.n && (is_alnum(l.s[l.i]) || l.s[l.i] == '_' ||
					     (uint8_t)l.s[l.i] >= 0x80))
				fp_byte(&f, (uint8_t)to_upper(l.s[l.i++]));
			fp_token_end(&f);
		} else if (c == ',' && f.last_param && !f.comma_held) {
			f.comma_held = true;
			l.i++;
		} else {
			fp_flush_comma(&f);
			fp_byte(&f, (uint8_t)c);
			fp_token_end(&f);
			l.i++;
		}
	}
	return f.h ? f.h : 1;
}
