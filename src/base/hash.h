/* hash.h - a string's 32-bit FNV-1a, for the small open-addressed tables
 * that name things read off the network (Redis commands, routes); a
 * connection's id spread over a table's slots. */
#ifndef PGRTT_HASH_H
#define PGRTT_HASH_H

#include <stddef.h>
#include <stdint.h>

static inline uint32_t str_hash(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

/* n bytes' 64-bit FNV-1a */
static inline uint64_t mem_hash64(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

/* Connection id conn's hash, for the tables by connection (attrib.c's,
 * checkout_runs.c's): take it modulo the table's size */
static inline uint64_t conn_hash(uint64_t conn)
{
	return (conn + 1) * 0x9e3779b97f4a7c15ull >> 40;
}

#endif
