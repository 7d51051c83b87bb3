/* heap.c - the heap on huge pages (heap.h).
 *
 * Why: a page fault is the analysis's dearest single thing on a virtual
 * machine (about ten times bare metal's), and the attribution's
 * structures - the sample, the placing thread's arrays, the fit's - are
 * touched fresh, a fault per 4 KiB.  A fault on one vCPU also slows the
 * other, so the placing thread's faults are paid twice.  On 2 MiB pages an
 * analysis with --http-port takes less than half the faults (docs/perf.md
 * has the runs).
 *
 * How: the arena's growth, trimming and mmap thresholds raised so that
 * the working set stays in one region that is grown once, that region
 * marked MADV_HUGEPAGE, and one arena for every thread (the placing and
 * fit threads malloc a few times a second: no contention worth an arena
 * of 4 KiB pages of their own).  Only where the kernel offers huge pages
 * (transparent_hugepage "always" or "madvise"): without them, the raised
 * mmap threshold makes calloc clear from the heap what a fresh mapping
 * gives zeroed, and costs more faults than it saves.  Not under a
 * sanitizer, whose allocator is its own; nor with PGRTT_HUGE_PAGES=0. */
#define _DEFAULT_SOURCE /* sbrk, madvise */
#include "heap.h"

#include <stdlib.h> /* and with it, __GLIBC__ where it is glibc */

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define HEAP_OWN_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define HEAP_OWN_ALLOCATOR 1
#endif
#endif

#if defined(__GLIBC__) && defined(__linux__) && !defined(HEAP_OWN_ALLOCATOR)
#include <malloc.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define HEAP_PAD ((size_t)32 << 20) /* glibc's largest mmap threshold on 64 bits */
#define HUGE_PAGE ((uintptr_t)2 << 20)
#define DEFAULT_SMALL (128 * 1024) /* glibc's pad and thresholds (mallopt(3)) */

/* the heap below the first huge page, taken once and kept (heap_prepare) */
static void *volatile heap_below; /* volatile: a store never read is still made */

static int huge_pages_offered(void)
{
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	if (!f)
		return 0;
	char line[128] = "";
	int ok = fgets(line, sizeof line, f) != NULL &&
		 (strstr(line, "[always]") != NULL || strstr(line, "[madvise]") != NULL);
	fclose(f);
	return ok;
}

void heap_prepare(void)
{
	static bool done;
	const char *env = getenv("PGRTT_HUGE_PAGES"); /* 0: the usual heap (pgrtt(1)) */
	if (done || sizeof(void *) < 8 || (env && strcmp(env, "0") == 0) || !huge_pages_offered())
		return;
	done = true;
	if (mallopt(M_ARENA_MAX, 1) != 1 || mallopt(M_MMAP_THRESHOLD, (int)HEAP_PAD) != 1 ||
	    mallopt(M_TRIM_THRESHOLD, (int)(2 * HEAP_PAD)) != 1 ||
	    mallopt(M_TOP_PAD, (int)HEAP_PAD) != 1)
		return;
	char *start = sbrk(0);
	/* the arena grows once, by the pad beside it (volatile: a malloc freed
	 * unused is otherwise no call at all to the compiler): ~64 MiB of
	 * address space, touched only as used.  What the heap takes past it
	 * is on 4 KiB pages (a break grown later is not marked), and so is the
	 * region's last part short of a huge page: with 48 MiB, the 120-route
	 * fit's packing of its whole sample came to lie there, 209 faults and
	 * 3 ms more (glibc places a large block at the top, past the holes
	 * the earlier ones left).  Just under the mmap threshold: at it, the
	 * block is a mapping of its own and the arena does not grow. */
	void *volatile grow = malloc(HEAP_PAD - ((size_t)64 << 10));
	free(grow);
	char *end = sbrk(0);
	if (start == (char *)-1 || end == (char *)-1 || end <= start) {
		/* no room (a limit on the address space) or no brk: glibc's
		 * default values back, lest every growth ask for the pad too
		 * (its mmap threshold, once set, no longer moves by itself) */
		mallopt(M_TOP_PAD, DEFAULT_SMALL);
		mallopt(M_MMAP_THRESHOLD, DEFAULT_SMALL);
		mallopt(M_TRIM_THRESHOLD, DEFAULT_SMALL);
		mallopt(M_ARENA_MAX, 0);
		return;
	}
	uintptr_t lo = ((uintptr_t)start + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	if ((uintptr_t)end <= lo + HUGE_PAGE)
		return;
	(void)madvise((void *)lo, (uintptr_t)end - lo, MADV_HUGEPAGE);
	/* what comes next starts on the first huge page: the few hundred KiB
	 * below it taken once and kept, never touched beyond a header (the
	 * analysis's first tables, cleared by calloc, cost 400 faults there) */
	char *next = malloc(1);
	if (next && (uintptr_t)next + 4096 < lo) {
		free(next);
		heap_below = malloc(lo - (uintptr_t)next - 64);
	} else {
		free(next);
	}
}
#else
void heap_prepare(void)
{
}
#endif
