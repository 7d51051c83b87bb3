/* hash.h - a string's 32-bit FNV-1a, for the small open-addressed tables
 * that name things read off the network (Redis commands, routes). */
#ifndef PGRTT_HASH_H
#define PGRTT_HASH_H

#include <stdint.h>

static inline uint32_t str_hash(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

#endif
