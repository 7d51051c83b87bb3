/* failmalloc.c - an LD_PRELOAD library that makes one allocation fail, for
 * nomem_test.py: the FAILMALLOC_NTH-th call of malloc, calloc, realloc or
 * aligned_alloc asking for at least FAILMALLOC_MIN bytes (4096 unless set)
 * returns NULL with ENOMEM.  With FAILMALLOC_COUNT set it fails none and
 * writes how many such calls there were to standard error at exit, so that
 * the test can fail each in turn.  Not for a sanitized build: ASan's
 * allocator is its own. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static atomic_ulong calls;
static unsigned long nth, min_size = 4096;
static int counting;

/* dlsym's own calloc, before real_calloc is known: from a static pool */
static unsigned char early[4096];
static size_t early_used;

__attribute__((constructor)) static void start(void)
{
	const char *n = getenv("FAILMALLOC_NTH"), *m = getenv("FAILMALLOC_MIN");
	nth = n ? strtoul(n, NULL, 10) : 0;
	if (m)
		min_size = strtoul(m, NULL, 10);
	counting = getenv("FAILMALLOC_COUNT") != NULL;
}

__attribute__((destructor)) static void stop(void)
{
	if (counting) {
		char line[64];
		int k = snprintf(line, sizeof line, "failmalloc: %lu\n", atomic_load(&calls));
		if (write(2, line, (size_t)k) < 0)
			return;
	}
}

static int fails(size_t n)
{
	if (n < min_size)
		return 0;
	unsigned long i = atomic_fetch_add(&calls, 1) + 1;
	if (nth && i == nth && !counting) {
		errno = ENOMEM;
		return 1;
	}
	return 0;
}

void *malloc(size_t n)
{
	if (!real_malloc)
		real_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
	return fails(n) ? NULL : real_malloc(n);
}

void *calloc(size_t k, size_t n)
{
	if (!real_calloc) {
		static int resolving;
		if (resolving) { /* dlsym asking: zeroed bytes from the pool */
			size_t size = (k * n + 15) & ~(size_t)15;
			if (early_used + size > sizeof early)
				return NULL;
			early_used += size;
			return early + early_used - size;
		}
		resolving = 1;
		real_calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
		resolving = 0;
	}
	return fails(k * n) ? NULL : real_calloc(k, n);
}

void *realloc(void *p, size_t n)
{
	if (!real_realloc)
		real_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
	return fails(n) ? NULL : real_realloc(p, n);
}

void *aligned_alloc(size_t align, size_t n)
{
	if (!real_aligned_alloc)
		real_aligned_alloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "aligned_alloc");
	return fails(n) ? NULL : real_aligned_alloc(align, n);
}

void free(void *p)
{
	static void (*real_free)(void *);
	if ((unsigned char *)p >= early && (unsigned char *)p < early + sizeof early)
		return;
	if (!real_free)
		real_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
	real_free(p);
}
