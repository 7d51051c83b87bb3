/* rt_event.h - a round trip as pages and routes take it, from any protocol.
 *
 * Each protocol's round-trip engine keeps a record of its own (rtt.h's
 * struct rt for PostgreSQL, redis_rtt.h's struct redis_rt); its glue turns
 * that into an rt_event, and attribution (attrib.h) reads nothing else.
 * Two ways to place one exist, and a protocol picks by the kind it sends:
 *   RT_EVENT_ROUND_TRIP  placed by its start, whole (PostgreSQL: a page
 *                        waited for each round trip its connection made);
 *   RT_EVENT_COMMAND     one request of a flight, placed by when it was
 *                        sent, and RT_EVENT_FLIGHT when the flight is
 *                        answered (Redis: pages share a pipeline's flight
 *                        by the commands they put in it).
 */
#ifndef PGRTT_RT_EVENT_H
#define PGRTT_RT_EVENT_H

#include <stdbool.h>
#include <stdint.h>

#include "rt_class.h"

/* A flight's frontend letters as a listing shows them ('+' past this). */
#define RT_FLIGHT_MAX 24

enum rt_event_kind { RT_EVENT_ROUND_TRIP, RT_EVENT_COMMAND, RT_EVENT_FLIGHT };

struct rt_event {
	uint8_t kind;        /* enum rt_event_kind */
	uint8_t cls;         /* enum rt_class */
	uint8_t ping_role;   /* enum rt_ping_role */
	uint8_t role_how;    /* enum rt_role_how */
	uint8_t timing_role; /* not ROLE_PLAIN: what the nearer neighbour says */
	/* the transaction's status before and after: 'I' 'T' 'E', '?' unknown */
	uint8_t status_before, status_after;
	bool has_start, has_end;
	/* its flight ends with the next checkout's test (rtt.h's tail_ping) */
	bool tail_ping;
	/* one part of a pipelined flight (rtt.h's struct rt_part): flight
	 * names the flight, and a page waits once for the parts it had */
	bool part;
	uint64_t t_start, t_end; /* a command: t_start is when it was sent */
	/* what it ran, the feature routes are told apart by: a statement's
	 * fingerprint, a command's name (rt_event_name_key); 0 none */
	uint64_t key;
	/* the flight it is of on its connection: a part's flight index, a
	 * command's or flight's serial */
	uint64_t flight;
	/* ROUND_TRIP: its ReadyForQuery; COMMAND: its place in its flight, from
	 * 1 (the first counts the flight); FLIGHT: its commands */
	uint32_t count;
	uint32_t rows;
	/* what only a listing of pages reads (pgrtt trace): the flight's
	 * letters or, for a FLIGHT, its first command's name, as sent
	 * (NUL-terminated; the listing cuts it to RT_FLIGHT_MAX + 1 and shows
	 * a byte outside '!'..'~' as '?'); the statement's text handle
	 * (textring.h, 0 none) and the statements run */
	const char *label;
	uint64_t text;
	uint32_t stmts;
};

/* A command name's key (FNV-1a): the same name, the same feature. */
static inline uint64_t rt_event_name_key(const char *name)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (const char *p = name; *p; p++)
		h = (h ^ (uint8_t)*p) * 0x100000001b3ull;
	return h;
}

#endif
