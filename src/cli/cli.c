/* cli.c - diagnostics in one format: "pgrtt: <command>: <message>". */
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"
#include "base/textring.h"


const char *pgrtt_cmd = "";

/* Messages carry file names, routes and values from the command line: no
 * control byte reaches the terminal as it is. */
static void vmsg(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

static void vmsg(const char *fmt, va_list ap)
{
	char buf[4096];
	vsnprintf(buf, sizeof buf, fmt, ap);
	fflush(stdout);
	/* the line whole, then one write: stderr is unbuffered, and a byte
	 * at a time was a system call each (~770 for analyze's notes) */
	char line[128 + 4 * sizeof buf]; /* every byte escaped at most 4 to 1 */
	int n = snprintf(line, sizeof line, "pgrtt: %s%s", pgrtt_cmd, pgrtt_cmd[0] ? ": " : "");
	size_t o = n > 0 && (size_t)n < sizeof line ? (size_t)n : 0;
	/* as on every terminal pgrtt writes to (esc_term): C0, DEL, C1 sent
	 * as UTF-8 and bytes that are not UTF-8 as \xHH */
	o += strlen(esc_term_buf(line + o, sizeof line - o - 1, buf));
	line[o++] = '\n';
	fwrite(line, 1, o, stderr);
}

void warnx_(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

void usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	if (pgrtt_cmd[0])
		fprintf(stderr, "Try 'pgrtt %s --help'.\n", pgrtt_cmd);
	else
		fprintf(stderr, "Try 'pgrtt --help'.\n");
}

bool parse_port(const char *s, uint16_t *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 1 || v > 65535)
		return false;
	*out = (uint16_t)v;
	return true;
}


FILE *output_open(const char *path)
{
	if (!path)
		return stdout;
	FILE *f = fopen(path, "w");
	if (!f)
		warnx_("%s: cannot write: %s", path, strerror(errno));
	return f;
}

int output_close(FILE *out, const char *path, int rc)
{
	if (fflush(out) != 0 || (out != stdout && fclose(out) != 0)) {
		warnx_("%s: write failed: %s", path ? path : "standard output", strerror(errno));
		return EXIT_ERROR;
	}
	return rc;
}

void print_statement(FILE *out, const struct textring *t, uint64_t text, uint32_t stmts)
{
	if (!t || (!text && !stmts))
		return; /* not kept, or no statement: a ping, a lone Sync */
	size_t n = 0;
	const char *s = textring_get(t, text, &n);
	if (!s) {
		fputs(text ? "  (statement text no longer held)"
			   : "  (statement prepared before the capture)",
		      out);
	} else {
		char buf[STATEMENT_SHOWN + 4];
		size_t len = n < STATEMENT_SHOWN ? n : STATEMENT_SHOWN;
		while (len < n && len > 0 && ((unsigned char)s[len] & 0xc0) == 0x80)
			len--; /* not inside a character */
		memcpy(buf, s, len);
		if (len < n)
			memcpy(buf + len, "\xe2\x80\xa6", 3), len += 3;
		buf[len] = '\0';
		fputs("  \"", out);
		esc_term(out, buf);
		fputc('"', out);
	}
	if (stmts > 1)
		fprintf(out, " (+%u more)", stmts - 1);
}

