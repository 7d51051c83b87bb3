/* heap.h - the process's heap made ready for the analysis's working set. */
#ifndef PGRTT_HEAP_H
#define PGRTT_HEAP_H

/* Called first thing in main, before any thread: on glibc, where the
 * kernel offers transparent huge pages, one arena grown ahead and backed by
 * huge pages; elsewhere nothing.  Never fails: at worst the heap is as it
 * was. */
void heap_prepare(void);

#endif
