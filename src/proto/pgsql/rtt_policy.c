/* rtt_policy.c - a pool's ping policy, learnt from the pings whose role
 * is plain, and the ambiguous pings settled by it at the end (rtt.h). */
#include "rtt.h"

/* One side at least POLICY_MIN_EVIDENCE times and twice the other: that
 * side.  Twice, not all: a capture cut in the middle of a checkout leaves a
 * last ping that looks like a release, whatever the pool's policy. */
static enum ping_policy one_side(uint64_t release, uint64_t acquire)
{
	if (release >= POLICY_MIN_EVIDENCE && acquire * 2 <= release)
		return POLICY_RELEASE;
	if (acquire >= POLICY_MIN_EVIDENCE && release * 2 <= acquire)
		return POLICY_ACQUIRE;
	return POLICY_UNKNOWN;
}

/* Runs of lone Syncs between queries: the pool pings on both sides, and a
 * lone single between two queries is the rare edge (timing tells it).
 * Otherwise position says it where it can (a connection's first query, its
 * end), unless idle time says the other side as plainly; idle time alone
 * where position cannot.  Idle time is the weaker word: on a loaded machine
 * a client descheduled between a query's answer and its release ping makes
 * that ping look sent after idle time, and a LIFO pool hands a released
 * connection straight to a waiting client: under load a release-only pool
 * shows acquires by idle time by the hundred, while by position every
 * connection's last ping is a release (docs/pools.md). */
enum ping_policy ping_policy_of(const struct ping_evidence *e)
{
	if (!e)
		return POLICY_UNKNOWN;
	if (e->both >= POLICY_MIN_EVIDENCE)
		return POLICY_BOTH;
	enum ping_policy by_position = one_side(e->release, e->acquire);
	enum ping_policy by_idle = one_side(e->release_idle, e->acquire_idle);
	if (by_position != POLICY_UNKNOWN)
		return by_idle == POLICY_UNKNOWN || by_idle == by_position ? by_position
									 : POLICY_UNKNOWN;
	return one_side(e->release + e->release_idle, e->acquire + e->acquire_idle);
}

const char *ping_policy_name(enum ping_policy p)
{
	static const char *names[] = {"unknown", "release", "acquire", "both"};
	return p >= 0 && p <= POLICY_BOTH ? names[p] : "?";
}

uint64_t ping_policy_settle(enum ping_policy p, struct rtt_stats *st)
{
	uint64_t *amb = st->pings_amb, *guess = st->pings_amb_timing;
	uint64_t n = 0;
	int to = p == POLICY_RELEASE ? PING_RELEASE : p == POLICY_ACQUIRE ? PING_ACQUIRE : -1;
	if (to >= 0) {
		int from = PING_ACQUIRE + PING_RELEASE - to;
		n = amb[from] <= st->pings[from] ? amb[from] : st->pings[from];
		st->pings[from] -= n;
		st->pings[to] += n;
		amb[to] += n;
		amb[from] = 0;
		st->pings_policy = amb[to];
		return n;
	}
	/* no policy in the end: every ambiguous one by its neighbours */
	uint64_t total = amb[PING_ACQUIRE] + amb[PING_RELEASE];
	if (guess[PING_ACQUIRE] + guess[PING_RELEASE] != total ||
	    st->pings[PING_ACQUIRE] < amb[PING_ACQUIRE] || st->pings[PING_RELEASE] < amb[PING_RELEASE])
		return 0; /* not one connection's or a sum's counts: leave them */
	for (int i = PING_ACQUIRE; i <= PING_RELEASE; i++) {
		n += amb[i] > guess[i] ? amb[i] - guess[i] : 0;
		st->pings[i] = st->pings[i] - amb[i] + guess[i];
		amb[i] = guess[i];
	}
	st->pings_policy = 0;
	return n;
}

uint64_t ping_told_by_timing(const struct rtt_stats *st)
{
	uint64_t amb = st->pings_amb[PING_ACQUIRE] + st->pings_amb[PING_RELEASE];
	return amb > st->pings_policy ? amb - st->pings_policy : 0;
}
