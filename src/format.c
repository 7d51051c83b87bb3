/* format.c - names and timestamps as every output writes them (format.h). */
#define _DEFAULT_SOURCE /* gmtime_r */
#include "format.h"

#include <inttypes.h>
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
	if (r->pages_aggregate == 0)
		return "exact";
	return r->pages_exact ? "exact+aggregate" : "aggregate";
}
