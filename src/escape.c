/* escape.c - one escaping function per output sink (see escape.h). */
#include "escape.h"

#include <string.h>

static bool is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

void esc_term(FILE *f, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (is_control(*p))
			fprintf(f, "\\x%02x", *p);
		else if (*p == '\\')
			fputs("\\\\", f);
		else
			fputc(*p, f);
	}
}

char *esc_term_buf(char *buf, size_t cap, const char *s)
{
	size_t o = 0;
	if (cap == 0)
		return buf;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		char tmp[5];
		size_t n;
		if (is_control(*p)) {
			snprintf(tmp, sizeof tmp, "\\x%02x", *p);
			n = 4;
		} else if (*p == '\\') {
			memcpy(tmp, "\\\\", 2);
			n = 2;
		} else {
			tmp[0] = (char)*p;
			n = 1;
		}
		if (o + n >= cap)
			break;
		memcpy(buf + o, tmp, n);
		o += n;
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
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
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
