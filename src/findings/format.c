/* format.c - names and timestamps as every output writes them (format.h). */
#define _DEFAULT_SOURCE /* gmtime_r */
#include "format.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <time.h>

const char *tls_name(uint8_t tls)
{
	switch (tls) {
	case 'S':
		return "ssl";
	case 'G':
		return "gssapi";
	case 'D':
		return "direct-tls";
	case 'T':
		return "tls";
	default:
		return NULL;
	}
}

void ts_format(char *buf, size_t cap, uint64_t ts)
{
	time_t s = (time_t)(ts / 1000000000ull);
	struct tm tm;
	gmtime_r(&s, &tm);
	char d[32];
	strftime(d, sizeof d, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, cap, "%s.%09" PRIu64 "Z", d, (uint64_t)(ts % 1000000000u));
}

const char *route_attribution(const struct attrib_route *r)
{
	static const char *names[8] = {
		"none", "exact", "aggregate", "exact+aggregate",
		"estimated", "exact+estimated", "aggregate+estimated", "exact+aggregate+estimated",
	};
	return names[(r->pages_exact ? 1 : 0) | (r->pages_aggregate ? 2 : 0) | (r->pages_mixed ? 4 : 0)];
}

double route_conns_per_page(const struct attrib_route *r)
{
	return r->conn_pages ? r->conns / (double)r->conn_pages : NAN;
}

double route_inferred_share(const struct attrib_route *r)
{
	return r->rt > 0 ? r->inferred / r->rt : 0;
}

void route_interval(const struct attrib_route *r, double *lo, double *hi)
{
	double n = r->pages ? (double)r->pages : 1;
	double mean = r->rt / n, half = 1.96 * sqrt(r->var > 0 ? r->var : 0) / n;
	/* the sample's noise, widened by what another density model would
	 * have made of the same round trips and by the statements the capture
	 * cannot place, or a route in lockstep could have run (docs/pages.md) */
	double lo_ = mean - half + (r->shift_lo + r->unplaced_lo + r->lockstep_lo + r->alike_lo) / n;
	double hi_ = mean + half + (r->shift_hi + r->unplaced_hi + r->lockstep_hi + r->alike_hi) / n;
	*lo = lo_ > 0 ? lo_ : 0;
	*hi = hi_;
}

double route_page_count(const struct attrib_route *r, enum page_count c)
{
	switch (c) {
	case PAGE_CMD_RTS:
		return r->cmd_rts;
	case PAGE_CMD_FLIGHTS:
		return r->cmd_flights;
	default:
		return r->cmds;
	}
}

bool route_page_interval(const struct attrib_route *r, enum page_count c, double iv[2])
{
	if (!r->cmd_interval || r->pages == 0) {
		iv[0] = iv[1] = NAN;
		return false;
	}
	double n = (double)r->pages;
	/* round trips go with the commands: as many per command as the route
	 * waited on (one each where it was given none) */
	double k = c == PAGE_CMDS ? 1 : r->cmds > 1e-9 ? route_page_count(r, c) / r->cmds : 1;
	iv[0] = r->cmd_lo / n * k;
	iv[1] = r->cmd_hi / n * k;
	return true;
}
