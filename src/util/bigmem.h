/* bigmem: the one allocator for big arrays (columns, per-call arrays).
 *
 * The page faults of a fresh buffer cost more than filling it (4x on a
 * 2-core VM: 316 ms against 38 ms for 6M values in 1 MiB columns), so big
 * arrays get transparent huge pages and medium ones are faulted in by one
 * madvise call.  Everything it returns is freed with free(). */
#ifndef SV_BIGMEM_H
#define SV_BIGMEM_H

#include <stddef.h>

/* From here on an array is "big" (huge pages). */
#define BIGMEM_HUGE_MIN ((size_t)4 << 20)
/* The huge-page size the hints are aligned to. */
#define BIGMEM_HUGE_ALIGN ((size_t)2 << 20)

/* A column: bytes >= BIGMEM_HUGE_MIN get 2 MiB-aligned memory, rounded up
 * to whole huge pages, the whole huge pages it fills hinted (the rounding
 * is address space only: the tail is faulted 4 KiB at a time), faulted in
 * by whoever writes it; from 64 KiB on a malloc'ed buffer is faulted in at
 * once.  NULL when out of memory. */
void *bigmem_column(size_t bytes);

/* A per-call array: malloc'ed as it is (no rounding, which would hold up to
 * 2 MiB more per array), the whole 2 MiB pages inside a big one hinted. */
void *bigmem_array(size_t bytes);

#endif
