/* escape.c - one escaping function per output sink (see escape.h). */
#include "escape.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

static bool is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

/* The length of the well-formed UTF-8 sequence at p (n bytes left), or 0. */
static size_t utf8_seq(const unsigned char *p, size_t n)
{
	unsigned char c = p[0];
	size_t len;
	unsigned char lo = 0x80, hi = 0xbf; /* the second byte's range */
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		lo = c == 0xe0 ? 0xa0 : 0x80;
		hi = c == 0xed ? 0x9f : 0xbf;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		lo = c == 0xf0 ? 0x90 : 0x80;
		hi = c == 0xf4 ? 0x8f : 0xbf;
	} else {
		return 0;
	}
	if (n < len || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return len;
}

/* One character of s for a terminal, into tmp (its length in *n): a
 * control byte (C0, DEL), a UTF-8 encoded C1 control (U+0080-U+009F: CSI
 * and its kin to a terminal that honours them) and a byte that begins no
 * well-formed UTF-8 sequence as \xHH each, a backslash as \\.  Returns the
 * bytes of s it took. */
static size_t term_char(const unsigned char *p, size_t left, char tmp[16], size_t *n)
{
	size_t len = *p < 0x80 ? 1 : utf8_seq(p, left);
	if (is_control(*p) || len == 0) {
		snprintf(tmp, 16, "\\x%02x", *p);
		*n = 4;
		return 1;
	}
	if (len == 2 && p[0] == 0xc2 && p[1] < 0xa0) {
		snprintf(tmp, 16, "\\x%02x\\x%02x", p[0], p[1]);
		*n = 8;
		return 2;
	}
	if (*p == '\\') {
		memcpy(tmp, "\\\\", 2);
		*n = 2;
		return 1;
	}
	memcpy(tmp, p, len);
	*n = len;
	return len;
}

void esc_term(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t left = strlen(s);
	while (left) {
		char tmp[16];
		size_t n, took = term_char(p, left, tmp, &n);
		fwrite(tmp, 1, n, f);
		p += took;
		left -= took;
	}
}

char *esc_term_buf(char *buf, size_t cap, const char *s)
{
	size_t o = 0;
	if (cap == 0)
		return buf;
	const unsigned char *p = (const unsigned char *)s;
	size_t left = strlen(s);
	while (left) {
		char tmp[16];
		size_t n, took = term_char(p, left, tmp, &n);
		if (o + n >= cap)
			break; /* whole characters only */
		memcpy(buf + o, tmp, n);
		o += n;
		p += took;
		left -= took;
	}
	buf[o] = '\0';
	return buf;
}

void esc_md(FILE *f, const char *s)
{
	/* links need [ ], images ![, autolinks : @ and www. - so ( ) # stay */
	static const char special[] = "\\`*_[]<>|!~&:@.";
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (is_control(*p))
			fprintf(f, "\\\\x%02x", *p); /* renders as \xHH */
		else if (strchr(special, *p))
			fprintf(f, "\\%c", *p);
		else
			fputc(*p, f);
	}
}

void esc_csv(FILE *f, const char *s)
{
	fputc('"', f);
	if (strchr("=+-@\t\r", s[0]) && s[0])
		fputc('\'', f);
	const unsigned char *p = (const unsigned char *)s;
	for (size_t left = strlen(s); left;) {
		char tmp[16];
		size_t n, took;
		if (*p == '"' || *p == '\\') { /* CSV's own quote doubled; a backslash means nothing here */
			tmp[0] = tmp[1] = (char)*p;
			n = *p == '"' ? 2 : 1;
			took = 1;
		} else {
			took = term_char(p, left, tmp, &n);
		}
		fwrite(tmp, 1, n, f);
		p += took;
		left -= took;
	}
	fputc('"', f);
}

static void esc_markup(FILE *f, const char *s, bool xml)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default:
			if (is_control(*p) && *p != '\t' && *p != '\n' && *p != '\r')
				fputs(xml ? "?" : "\xef\xbf\xbd", f);
			else
				fputc(*p, f);
		}
	}
}

void esc_html(FILE *f, const char *s)
{
	esc_markup(f, s, false);
}

void esc_xml(FILE *f, const char *s)
{
	esc_markup(f, s, true);
}

void esc_github(FILE *f, const char *s, bool property)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '%' || *p == '\r' || *p == '\n' || (property && (*p == ':' || *p == ',')))
			fprintf(f, "%%%02X", *p);
		else
			fputc(*p, f);
	}
}

/* s as well-formed UTF-8, malloc'ed: each byte that begins no sequence as
 * the text \xHH (hex) or as U+FFFD; NULL when out of memory. */
static char *utf8_mend(const char *s, bool hex)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), k = 0;
	char *out = malloc(4 * n + 1); /* a bad byte becomes 4 at most */
	if (!out)
		return NULL;
	for (size_t i = 0; i < n;) {
		size_t len = utf8_seq(p + i, n - i);
		if (len) {
			memcpy(out + k, p + i, len);
			k += len;
			i += len;
		} else if (hex) {
			k += (size_t)snprintf(out + k, 5, "\\x%02x", p[i++]);
		} else {
			memcpy(out + k, "\xef\xbf\xbd", 3);
			k += 3;
			i++;
		}
	}
	out[k] = '\0';
	return out;
}

char *esc_utf8_dup(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);
	for (size_t i = 0, len; i < n; i += len)
		if (!(len = utf8_seq(p + i, n - i)))
			return utf8_mend(s, true);
	return NULL;
}

struct cJSON *esc_json_string(const char *s)
{
	char *out = utf8_mend(s, false);
	if (!out)
		return NULL;
	cJSON *j = cJSON_CreateString(out);
	free(out);
	return j;
}

void esc_json_add(struct cJSON *o, const char *k, const char *s)
{
	cJSON *j = esc_json_string(s);
	if (j)
		cJSON_AddItemToObject(o, k, j);
}

void esc_prom_label(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	for (size_t left = strlen(s); left > 0;) {
		size_t len = *p < 0x80 ? 1 : utf8_seq(p, left);
		if (*p == '\\' || *p == '"')
			fprintf(f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (len > 1)
			fwrite(p, 1, len, f);
		else if (*p >= 0x80) /* as the store holds it (esc_utf8_dup) */
			fprintf(f, "\\\\x%02x", *p), len = 1;
		else
			fputc(*p, f);
		len = len ? len : 1;
		p += len;
		left -= len;
	}
}
