/* heap.h - the process's heap made ready for the analysis's working set. */
#ifndef PGRTT_HEAP_H
#define PGRTT_HEAP_H

/* Called before a saved capture is read with pages to attribute
 * (run_analysis with --http-port), before the analysis starts its
 * threads: on glibc, where the kernel offers
 * transparent huge pages, one arena grown ahead and backed by huge pages;
 * elsewhere, or again, nothing.  Never fails: at worst the heap is as it
 * was.  Not for a live capture: a huge page's fault may wait for the
 * kernel to compact memory, milliseconds that a file's reading absorbs and
 * a capture's ring buffer may not; nor for a plain analysis, whose few
 * pages a 2 MiB one would outweigh. */
void heap_prepare(void);

#endif
