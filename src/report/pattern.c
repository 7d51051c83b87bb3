/* pattern.c - a stored run's pool pattern (pattern.h). */
#include "pattern.h"

#include <stdio.h>
#include <string.h>

/* A role or class counts when it is at least this share of its whole: a
 * pool's policy makes most of its pings, and timing's odd mistake
 * (docs/pools.md) should not name a second side. */
#define PATTERN_SHARE 0.05

static int64_t nonneg(int64_t v)
{
	return v > 0 ? v : 0;
}

const char *run_pattern(const struct run_figures *f, char *buf, size_t cap)
{
	int64_t q = f->cls[RT_QUERY], pings = f->cls[RT_PING];
	buf[0] = '\0';
	if (cap == 0 || q <= 0)
		return buf;
	size_t o = 0;
#define ADD(...) (o += o < cap ? (size_t)snprintf(buf + o, cap - o, __VA_ARGS__) : 0)
	bool named_driver = f->driver[0] && strcmp(f->driver, "several") != 0;
	if (named_driver)
		ADD("%s: ", f->driver);
	bool lone = false, acq = false, rel = false;
	if (pings == 0) {
		ADD("no pings");
	} else {
		int64_t kinds[3] = {nonneg(f->lone_sync), nonneg(f->empty_query), nonneg(f->select1)};
		static const char *const names[3] = {"lone Sync", "empty query", "SELECT 1"};
		int top = -1;
		for (int k = 0; k < 3; k++)
			if (kinds[k] > 0 && (top < 0 || kinds[k] > kinds[top]))
				top = k;
		lone = top == 0;
		acq = (double)f->acq >= PATTERN_SHARE * (double)pings;
		rel = (double)f->rel >= PATTERN_SHARE * (double)pings;
		bool idle = (double)f->idle >= PATTERN_SHARE * (double)pings;
		ADD("%s", top >= 0 ? names[top] : "ping");
		if (acq || rel)
			ADD(" on %s", acq && rel ? "acquire and release" : acq ? "acquire" : "release");
		if (idle)
			ADD("%s idle checks", acq || rel ? " and" : "");
	}
	if ((double)f->cls[RT_TRANSACTION] >= PATTERN_SHARE * (double)q)
		ADD(", transaction control");
	if ((double)f->cls[RT_RESET] >= PATTERN_SHARE * (double)q)
		ADD(", resets");
	/* a lone Sync on release is sqlx's pool's alone (docs/pools.md) */
	if (lone && rel && (!named_driver || strcmp(f->driver, "sqlx") == 0))
		ADD(acq ? " (sqlx's pool)" : " (sqlx's pool, test_before_acquire off)");
#undef ADD
	return buf;
}
