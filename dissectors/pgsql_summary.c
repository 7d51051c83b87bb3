/* pgsql_summary.c - one-line summaries for pgrtt dump. */
#include "pgsql_summary.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rd.h"
#include "sqlnorm.h"

#define TEXT_MAX 160 /* characters of query text shown */

struct out {
	char *buf;
	size_t cap, len;
	bool values; /* statement texts as sent, not normalised */
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct out *o, const char *fmt, ...)
{
	if (o->len + 1 >= o->cap)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n < o->cap - o->len ? (size_t)n : o->cap - o->len - 1;
}

/* A quoted, escaped string of at most max characters. */
static void put_text(struct out *o, const char *s, size_t n, size_t max, bool more)
{
	put(o, "\"");
	size_t shown = 0;
	for (size_t i = 0; i < n && shown < max; i++, shown++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\')
			put(o, "\\%c", c);
		else if (c == '\n')
			put(o, "\\n");
		else if (c == '\t')
			put(o, "\\t");
		else if (c == '\r')
			put(o, "\\r");
		else if (c < 0x20 || c >= 0x7f)
			put(o, "\\x%02x", c);
		else
			put(o, "%c", c);
	}
	put(o, "\"%s", shown < n || more ? "..." : "");
}

static void put_cstr(struct out *o, struct rd *r, const char *label, size_t max,
		     bool truncated)
{
	const char *s;
	size_t left = rd_left(r);
	ptrdiff_t n = rd_cstr(r, &s);
	if (label[0])
		put(o, "%s=", label);
	if (n < 0) /* cut by the prefix limit */
		put_text(o, (const char *)r->end - left, left, max, truncated);
	else
		put_text(o, s, (size_t)n, max, false);
}

/* A statement's text: normalised unless o->values (sqlnorm.h), then as
 * put_cstr shows a string. */
static void put_stmt(struct out *o, struct rd *r, const char *label, bool truncated)
{
	if (o->values) {
		put_cstr(o, r, label, TEXT_MAX, truncated);
		return;
	}
	const char *s;
	size_t left = rd_left(r);
	ptrdiff_t n = rd_cstr(r, &s);
	bool cut = n < 0; /* by the prefix limit: put_text says "..." */
	if (cut)
		s = (const char *)r->end - left, n = (ptrdiff_t)left;
	char norm[TEXT_MAX * 2 + 8]; /* room for the shown part; longer is cut anyway */
	size_t len = sql_normalize(s, (size_t)n, true, norm, sizeof norm);
	bool full = len >= 3 && memcmp(norm + len - 3, "\xe2\x80\xa6", 3) == 0;
	if (full)
		len -= 3; /* the normaliser's ellipsis: put_text's "..." instead */
	if (label[0])
		put(o, "%s=", label);
	put_text(o, norm, len, TEXT_MAX, (cut && truncated) || full);
}

static const char *auth_name(uint32_t code)
{
	switch (code) {
	case 0:
		return "Ok";
	case 2:
		return "KerberosV5";
	case 3:
		return "CleartextPassword";
	case 5:
		return "MD5Password";
	case 7:
		return "GSS";
	case 8:
		return "GSSContinue";
	case 9:
		return "SSPI";
	case 10:
		return "SASL";
	case 11:
		return "SASLContinue";
	case 12:
		return "SASLFinal";
	default:
		return "Unknown";
	}
}

static void error_fields(struct out *o, struct rd *r)
{
	const char *sev = "", *code = "", *msg = "";
	ptrdiff_t msgn = 0;
	for (int i = 0; i < 64; i++) {
		uint8_t f = rd_u8(r);
		if (r->bad || f == 0)
			break;
		const char *v;
		ptrdiff_t n = rd_cstr(r, &v);
		if (n < 0)
			break;
		if (f == 'V' || (f == 'S' && sev[0] == '\0'))
			sev = v;
		else if (f == 'C')
			code = v;
		else if (f == 'M') {
			msg = v;
			msgn = n;
		}
	}
	put(o, "%s %s ", sev, code);
	put_text(o, msg, (size_t)msgn, TEXT_MAX, false);
}

static void fe_summary(struct out *o, const struct pgsql_msg *m, struct rd *r)
{
	switch (m->type) {
	case PGSQL_STARTUP: {
		uint32_t v = rd_be32(r);
		put(o, "protocol %u.%u", v >> 16, v & 0xffff);
		for (int i = 0; i < 32; i++) {
			const char *k, *val;
			ptrdiff_t kn = rd_cstr(r, &k);
			if (kn <= 0)
				break;
			ptrdiff_t vn = rd_cstr(r, &val);
			if (vn < 0)
				break;
			if (strcmp(k, "user") == 0 || strcmp(k, "database") == 0 ||
			    strcmp(k, "application_name") == 0) {
				put(o, " %s=", k);
				put_text(o, val, (size_t)vn, 64, false);
			}
		}
		break;
	}
	case PGSQL_CANCEL: {
		rd_skip(r, 4);
		uint32_t pid = rd_be32(r);
		put(o, "pid %u key %u bytes", pid, (unsigned)rd_left(r));
		break;
	}
	case PGSQL_FE_QUERY:
		put_stmt(o, r, "", m->truncated);
		break;
	case PGSQL_FE_PARSE:
		put_cstr(o, r, "stmt", 64, m->truncated);
		put(o, " ");
		put_stmt(o, r, "query", m->truncated);
		if (!r->bad) {
			uint16_t np = rd_be16(r);
			put(o, " params=%u", np);
		}
		break;
	case PGSQL_FE_BIND:
		put_cstr(o, r, "portal", 64, m->truncated);
		put(o, " ");
		put_cstr(o, r, "stmt", 64, m->truncated);
		break;
	case PGSQL_FE_DESCRIBE:
	case PGSQL_FE_CLOSE: {
		uint8_t what = rd_u8(r);
		put(o, "%s ", what == 'S' ? "statement" : what == 'P' ? "portal" : "?");
		put_cstr(o, r, "", 64, m->truncated);
		break;
	}
	case PGSQL_FE_EXECUTE: {
		put_cstr(o, r, "portal", 64, m->truncated);
		uint32_t max = rd_be32(r);
		if (!r->bad)
			put(o, " max_rows=%u", max);
		break;
	}
	case PGSQL_FE_FUNCTION_CALL: {
		uint32_t oid = rd_be32(r);
		put(o, "oid %u", oid);
		break;
	}
	case PGSQL_FE_PASSWORD:
		/* password, SASL or GSS payload: never shown */
		put(o, "(%u bytes, not shown)", m->len - 4);
		break;
	case PGSQL_FE_COPY_DATA:
		put(o, "%u bytes", m->len - 4);
		break;
	case PGSQL_FE_COPY_FAIL:
		put_cstr(o, r, "", TEXT_MAX, m->truncated);
		break;
	default:
		break;
	}
}

static void be_summary(struct out *o, const struct pgsql_msg *m, struct rd *r)
{
	switch (m->type) {
	case PGSQL_ENC_ANSWER: {
		uint8_t a = rd_u8(r);
		put(o, "'%c' (%s)", a, a == 'N' ? "refused" : "accepted: encrypted from here");
		break;
	}
	case PGSQL_BE_AUTH: {
		uint32_t code = rd_be32(r);
		put(o, "%s", auth_name(code));
		if (code == 10) { /* mechanism names are public; later SASL data is not */
			for (int i = 0; i < 8; i++) {
				const char *mech;
				ptrdiff_t n = rd_cstr(r, &mech);
				if (n <= 0)
					break;
				put(o, " %s", mech);
			}
		} else if (code == 11 || code == 12 || code == 8) {
			put(o, " (%u bytes, not shown)", m->len - 8);
		}
		break;
	}
	case PGSQL_BE_BACKEND_KEY: {
		uint32_t pid = rd_be32(r);
		put(o, "pid %u key %u bytes", pid, m->len >= 8 ? m->len - 8 : 0);
		break;
	}
	case PGSQL_BE_COMMAND_COMPLETE:
		put_cstr(o, r, "", 64, m->truncated);
		break;
	case PGSQL_BE_READY: {
		uint8_t st = rd_u8(r);
		put(o, "%c", st >= 0x20 && st < 0x7f ? st : '?');
		break;
	}
	case PGSQL_BE_ERROR:
	case PGSQL_BE_NOTICE:
		error_fields(o, r);
		break;
	case PGSQL_BE_PARAM_STATUS:
		put_cstr(o, r, "", 64, m->truncated);
		put(o, "=");
		put_cstr(o, r, "", 64, m->truncated);
		break;
	case PGSQL_BE_ROW_DESC:
	case PGSQL_BE_DATA_ROW: {
		uint16_t n = rd_be16(r);
		put(o, "%u %s", n, m->type == PGSQL_BE_DATA_ROW ? "columns" : "fields");
		if (m->type == PGSQL_BE_DATA_ROW)
			put(o, ", %u bytes", m->len - 4);
		break;
	}
	case PGSQL_BE_NOTIFICATION: {
		uint32_t pid = rd_be32(r);
		put(o, "pid %u ", pid);
		put_cstr(o, r, "channel", 64, m->truncated);
		break;
	}
	case PGSQL_BE_NEGOTIATE: {
		uint32_t minor = rd_be32(r);
		uint32_t n = rd_be32(r);
		put(o, "newest minor %u, %u unrecognised options", minor, n);
		break;
	}
	case PGSQL_BE_COPY_IN:
	case PGSQL_BE_COPY_OUT:
	case PGSQL_BE_COPY_BOTH: {
		uint8_t fmt = rd_u8(r);
		uint16_t n = rd_be16(r);
		put(o, "%s, %u columns", fmt ? "binary" : "text", n);
		break;
	}
	case PGSQL_BE_COPY_DATA:
	case PGSQL_BE_FUNCTION_RESULT:
		put(o, "%u bytes", m->len - 4);
		break;
	case PGSQL_BE_PARAM_DESC: {
		uint16_t n = rd_be16(r);
		put(o, "%u parameters", n);
		break;
	}
	default:
		break;
	}
}

void pgsql_summarize(const struct pgsql_msg *m, bool values, char *buf, size_t cap)
{
	struct out o = {buf, cap, 0, values};
	if (cap == 0)
		return;
	buf[0] = '\0';
	struct rd r = rd_init(m->body, m->body_len);
	if (m->side == PGSQL_FE)
		fe_summary(&o, m, &r);
	else
		be_summary(&o, m, &r);
	if (m->gap)
		put(&o, "%s[gap]", o.len ? " " : "");
}
