/* fuzz_route.c - request targets to routes, and routes' parameters learnt
 * from them (route.c, route_learn.c), on arbitrary bytes.  The input is
 * lines: each is a request target (its first byte picks the method); every
 * one is learnt, then each is named and learnt again.  What must hold, or
 * the fuzzer traps: every name ends within its room (cut or not), a learnt
 * name not cut is its own (naming it again changes nothing), and the table
 * stays within its bounds. */
#define _POSIX_C_SOURCE 200809L /* strnlen */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "http1.h"
#include "attrib/route.h"
#include "attrib/route_learn.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const methods[] = {"GET", "POST", "PUT", "DELETE"};

#define LINES_MAX 256

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char target[LINES_MAX][HTTP1_TARGET_MAX + 1];
	static char named[LINES_MAX][ROUTE_MAX];
	static const char *method[LINES_MAX];
	struct route_learn l;
	route_learn_init(&l, size ? 2 + data[0] % 20 : 16);
	uint32_t n = 0;
	for (size_t i = size ? 1 : 0; i < size && n < LINES_MAX;) {
		size_t e = i;
		while (e < size && data[e] != '\n')
			e++;
		size_t m = e - i < HTTP1_TARGET_MAX + 1 - 1 ? e - i : HTTP1_TARGET_MAX + 1 - 1;
		method[n] = methods[m ? data[i] % 4 : 0];
		memcpy(target[n], data + i, m);
		target[n][m] = '\0'; /* a NUL inside ends it, as in the framer's target */
		n++;
		i = e + 1;
	}
	for (uint32_t i = 0; i < n; i++) {
		memset(named[i], 'x', sizeof named[i]);
		bool pattern = route_of(NULL, method[i], target[i], named[i], sizeof named[i]);
		if (pattern || !memchr(named[i], '\0', sizeof named[i]))
			__builtin_trap();
		char name[ROUTE_MAX];
		route_learn_name(&l, named[i], name, sizeof name);
	}
	for (uint32_t i = 0; i < n; i++) {
		char once[ROUTE_MAX], twice[ROUTE_MAX], cut[16];
		route_learn_apply(&l, named[i], once, sizeof once);
		route_learn_apply(&l, once, twice, sizeof twice);
		if (strlen(once) < sizeof once - 1 && strcmp(once, twice) != 0)
			__builtin_trap(); /* (a name cut at its room may end inside a {slug}) */
		memset(cut, 'x', sizeof cut); /* again, under what was learnt since, cut */
		route_learn_name(&l, named[i], cut, 1 + i % (sizeof cut - 1));
		if (!memchr(cut, '\0', 1 + i % (sizeof cut - 1)) || cut[sizeof cut - 1] != 'x')
			__builtin_trap();
		memset(cut, 'x', sizeof cut);
		route_learn_apply(&l, named[i], cut, 1 + i % (sizeof cut - 1));
		if (!memchr(cut, '\0', 1 + i % (sizeof cut - 1)) || cut[sizeof cut - 1] != 'x')
			__builtin_trap();
	}
	if (l.npos > ROUTE_LEARN_SLOTS / 2 || l.nparams > l.npos || l.pending > l.npos)
		__builtin_trap();
	for (uint32_t i = 0; i < l.nparams && i < ROUTE_LEARN_NOTES; i++)
		if (!memchr(l.notes[i].route, '\0', sizeof l.notes[i].route))
			__builtin_trap();
	route_learn_free(&l);
	return 0;
}
