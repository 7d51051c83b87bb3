/* rtt_stmts.c - statements as the round-trip engine knows them: texts
 * classified once per analysis and kept, prepared statements by name,
 * the drivers and poolers their names, words and startup parameters
 * betray (rtt_impl.h). */
#include <stdio.h>
#include <string.h>

#include "base/textring.h"
#include "rd.h"
#include "rtt_impl.h"
#include "sqlclass.h"
#include "sqlnorm.h"

/* ----------------------------------------------------------------------
 * Driver fingerprints
 * ---------------------------------------------------------------------- */

static bool has_prefix(const char *s, size_t n, const char *pre)
{
	size_t k = strlen(pre);
	return n >= k && memcmp(s, pre, k) == 0;
}

static bool digits_from(const char *s, size_t n, size_t from)
{
	if (n <= from)
		return false;
	for (size_t i = from; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

/* Evidence ranks: 2 statement names, 1 ping texts and application_name. */
void rtt_set_driver(struct rtt *r, const char *name, int rank)
{
	if (rank <= r->driver_rank)
		return;
	r->driver_rank = rank;
	size_t n = strlen(name);
	if (n >= RTT_DRIVER_MAX)
		n = RTT_DRIVER_MAX - 1;
	memcpy(r->st.driver, name, n);
	r->st.driver[n] = '\0';
}

/* Driver from a prepared statement name (driver-pings.md section 4.11). */
const char *rtt_driver_from_stmt(const char *s, size_t n)
{
	if (n == 0)
		return NULL;
	if (has_prefix(s, n, "sqlx_s_") || has_prefix(s, n, "sqlx_p_"))
		return "sqlx";
	if (has_prefix(s, n, "stmtcache_"))
		return "pgx";
	if (has_prefix(s, n, "lrupsc_"))
		return "pgx-v4";
	if (has_prefix(s, n, "__diesel_stmt_"))
		return "diesel";
	if (has_prefix(s, n, "__asyncpg_stmt_"))
		return "asyncpg";
	if (has_prefix(s, n, "_pg3_"))
		return "psycopg3";
	if (has_prefix(s, n, "pdo_stmt_"))
		return "php-pdo";
	if (has_prefix(s, n, "S_") && digits_from(s, n, 2))
		return "pgjdbc";
	if (has_prefix(s, n, "_auto") && digits_from(s, n, 5))
		return "npgsql";
	if (has_prefix(s, n, "_p") && digits_from(s, n, 2))
		return "npgsql";
	if (s[0] == 's' && digits_from(s, n, 1))
		return "tokio-postgres";
	return NULL;
}

/* PgBouncer's name for a statement it prepares on a server connection for
 * its clients (PREPARED_STMT_NAME_FORMAT, max_prepared_statements: on by
 * default since 1.22): only its server connections carry these, and only
 * in transaction or statement pooling. */
bool rtt_pooler_stmt_name(const char *s, size_t n)
{
	return has_prefix(s, n, "PGBOUNCER_") && digits_from(s, n, 10);
}

/* ----------------------------------------------------------------------
 * Prepared statements
 * ---------------------------------------------------------------------- */

/* A statement's name from a counter (pgjdbc's S_1, tokio-postgres's s0,
 * asyncpg's __asyncpg_stmt_1__) names other statements on other
 * connections; a long run of hex digits (a hash of the text, as pgx's
 * stmtcache_ names) names the same one everywhere. */
bool rtt_name_is_global(const char *s, size_t n)
{
	size_t run = 0, best = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
		run = hex ? run + 1 : 0;
		best = run > best ? run : best;
	}
	return best >= 16;
}

uint64_t rtt_name_hash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	for (size_t i = 0; i < n; i++) {
		h ^= (uint8_t)s[i];
		h *= 1099511628211ull;
	}
	return h ? h : 1;
}

/* Hashes a statement's text 8 bytes at a time (name_hash's byte loop
 * costs more than the classification it saves on a long text). */
static uint64_t text_hash(const char *s, size_t n, uint64_t how)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ (uint64_t)n ^ how << 56;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t v;
		memcpy(&v, s + i, 8);
		h = (h ^ v) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	uint64_t v = 0;
	memcpy(&v, s + i, n - i);
	h = (h ^ v) * 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 29;
	return h ? h : 1;
}

static uint8_t classify_parse(const char *q, size_t n, bool whole)
{
	if (!whole) /* query text longer than the prefix kept */
		return SQL_OTHER;
	return sql_is_select_param(q, n) ? RTT_KIND_SELECT_PARAM : (uint8_t)sql_classify(q, n, true);
}

/* Whether a text gets its fingerprint: with fingerprints on (attribution,
 * a pooler's legs), and a statement prepared always - a connection's
 * statements are known by it when its Binds come, and the legs may be
 * followed only from a later packet on (legs.h): prepared before, its
 * Binds were known by the name alone and never matched the other leg's
 * (test_sigs_turned_on).  Prepared texts are few, each fingerprinted once;
 * a simple query's literals make every text new. */
static inline bool wants_sig(const struct rtt *r, bool parse)
{
	return r->fingerprints || parse;
}

/* A text the connection's own slots do not hold: from the analysis's (the
 * same two ways a set), or classified and fingerprinted - and kept there. */
static struct rtt_text shared_text(struct rtt *r, uint64_t h, const char *q, size_t n, bool parse,
				   bool whole)
{
	struct rtt_text *t = r->shared ? &r->shared->slot[h % (RTT_SHARED_TEXTS / 2) * 2] : NULL;
	if (t && t[1].hash == h) {
		struct rtt_text hit = t[1];
		t[1] = t[0];
		t[0] = hit;
	}
	if (t && t[0].hash == h) {
		if (!t[0].sig && wants_sig(r, parse)) /* kept before a second leg wanted it */
			t[0].sig = sql_fingerprint(q, n);
		return t[0];
	}
	struct rtt_text x = {h, parse ? classify_parse(q, n, whole) : (uint8_t)sql_classify(q, n, whole),
			     wants_sig(r, parse) ? sql_fingerprint(q, n) : 0};
	if (t) {
		t[1] = t[0];
		t[0] = x;
	}
	return x;
}

/* The kind and fingerprint of a text from cache, or by classifying and
 * fingerprinting it: a Parse's text or a Query's, whole or cut short, each
 * with a kind of its own. */
uint8_t rtt_text_kind(struct rtt *r, const char *q, size_t n, bool parse, bool whole,
			 uint64_t *sig)
{
	uint64_t h = text_hash(q, n, (parse ? 4u : 2u) | whole);
	/* two ways per set: the one used last first, the other evicted */
	struct rtt_text *t = &r->texts[h % (RTT_TEXT_SLOTS / 2) * 2];
	if (t[0].hash != h) {
		struct rtt_text was = t[0];
		if (t[1].hash == h)
			t[0] = t[1];
		else
			t[0] = shared_text(r, h, q, n, parse, whole);
		t[1] = was;
	}
	if (!t[0].sig && wants_sig(r, parse)) /* kept before a second leg wanted it (legs.h) */
		t[0].sig = sql_fingerprint(q, n);
	*sig = t[0].sig;
	return t[0].kind;
}

void rtt_stmt_put(struct rtt *r, const char *name, size_t n, uint8_t kind, uint64_t sig,
		     uint64_t text)
{
	if (n == 0) {
		r->unnamed_kind = kind;
		r->unnamed_sig = sig;
		r->unnamed_text = text;
		return;
	}
	uint64_t h = rtt_name_hash(name, n);
	struct rtt_stmt *s = &r->stmts[h % RTT_STMT_SLOTS];
	s->name_hash = h;
	s->kind = kind;
	s->sig = sig;
	s->text = text;
}

/* A statement's kind, and its fingerprint in *sig (0: not known: prepared
 * before the capture, or its slot taken since). */
uint8_t rtt_stmt_get(const struct rtt *r, const char *name, size_t n, uint64_t *sig,
			uint64_t *text)
{
	if (n == 0) {
		*sig = r->unnamed_sig;
		*text = r->unnamed_text;
		return r->unnamed_kind;
	}
	uint64_t h = rtt_name_hash(name, n);
	const struct rtt_stmt *s = &r->stmts[h % RTT_STMT_SLOTS];
	bool known = s->name_hash == h;
	*sig = known ? s->sig : 0;
	*text = known ? s->text : 0;
	return known ? s->kind : SQL_OTHER;
}

/* For dump and trace: a statement's text as they show it - normalised
 * (constants as $n: no value in a CI log), or as sent (--show-values) -
 * kept in the ring.  0 when texts are not kept. */
uint64_t rtt_keep_text(struct rtt *r, const char *q, size_t n, bool whole)
{
	if (!r->ring)
		return 0;
	char buf[TEXTRING_TEXT_MAX];
	size_t len;
	const char *nul = memchr(q, '\0', n);
	n = nul ? (size_t)(nul - q) : n;
	if (r->text_values) {
		len = n < sizeof buf - 3 ? n : sizeof buf - 3;
		while (len < n && len > 0 && ((uint8_t)q[len] & 0xc0) == 0x80)
			len--; /* cut, but not inside a character */
		memcpy(buf, q, len);
		if (len < n || !whole) {
			memcpy(buf + len, "\xe2\x80\xa6", 3);
			len += 3;
		}
	} else {
		len = sql_normalize(q, n, whole, buf, sizeof buf);
	}
	return textring_put(r->ring, buf, len);
}

static void copy_name(char *dst, const char *s, ptrdiff_t n)
{
	if (n < 0)
		n = 0;
	if (n >= RTT_NAME_MAX)
		n = RTT_NAME_MAX - 1;
	memcpy(dst, s, (size_t)n);
	dst[n] = '\0';
}

/* A StartupMessage's parameters: who the client says it is (user,
 * database, application_name, a driver that names itself there), and
 * whether its order is a pooler's (database first, user last). */
void rtt_startup_params(struct rtt *r, const struct pgsql_msg *m)
{
	struct rd rd = rd_init(m->body, m->body_len);
	r->st.proto = rd_be32(&rd);
	bool database_first = false, user_last = false;
	for (uint32_t n = 0;; n++) {
		const char *k, *v;
		ptrdiff_t kn = rd_cstr(&rd, &k);
		if (kn <= 0)
			break;
		ptrdiff_t vn = rd_cstr(&rd, &v);
		if (vn < 0)
			break;
		database_first |= n == 0 && strcmp(k, "database") == 0;
		user_last = strcmp(k, "user") == 0;
		if (user_last)
			copy_name(r->st.user, v, vn);
		else if (strcmp(k, "database") == 0)
			copy_name(r->st.database, v, vn);
		else if (strcmp(k, "application_name") == 0)
			copy_name(r->st.application_name, v, vn);
	}
	if (strcmp(r->st.application_name, "PostgreSQL JDBC Driver") == 0)
		rtt_set_driver(r, "pgjdbc", 1);
	if (r->st.proto >> 16 == 3) { /* not a cancel's or SSL's code */
		r->st.startups_pooler += database_first && user_last;
		r->st.startups_other += !(database_first && user_last);
	}
}
