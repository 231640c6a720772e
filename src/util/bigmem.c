#include "bigmem.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#define BIGMEM_POPULATE_MIN ((size_t)64 << 10)
#define BIGMEM_PAGE ((uintptr_t)4096)

/* Best effort: a kernel without MADV_POPULATE_WRITE faults pages lazily. */
static void bigmem_prefault(void *p, size_t bytes)
{
#ifdef MADV_POPULATE_WRITE
    uintptr_t a = ((uintptr_t)p + BIGMEM_PAGE - 1) & ~(BIGMEM_PAGE - 1);
    uintptr_t e = ((uintptr_t)p + bytes) & ~(BIGMEM_PAGE - 1);
    if (e > a)
        madvise((void *)a, e - a, MADV_POPULATE_WRITE);
#else
    (void)p;
    (void)bytes;
#endif
}

void *bigmem_column(size_t bytes)
{
    if (bytes < BIGMEM_HUGE_MIN) {
        void *p = malloc(bytes ? bytes : 1);
        if (p && bytes >= BIGMEM_POPULATE_MIN)
            bigmem_prefault(p, bytes);
        return p;
    }
    size_t sz = (bytes + BIGMEM_HUGE_ALIGN - 1) & ~(BIGMEM_HUGE_ALIGN - 1);
    void *p;
    if (posix_memalign(&p, BIGMEM_HUGE_ALIGN, sz) != 0)
        return NULL;
    /* Huge pages for the whole 2 MiB steps the column fills, not its last
     * partial one: a huge page there would fault in up to 2 MiB past the
     * column's end (7 MiB on ten 15 MiB columns), never used. */
    size_t whole = bytes & ~(BIGMEM_HUGE_ALIGN - 1);
    madvise(p, whole, MADV_HUGEPAGE);
    return p;
}

void *bigmem_array(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (p && bytes >= BIGMEM_HUGE_MIN) {
        uintptr_t a = ((uintptr_t)p + BIGMEM_HUGE_ALIGN - 1) & ~(uintptr_t)(BIGMEM_HUGE_ALIGN - 1);
        uintptr_t e = ((uintptr_t)p + bytes) & ~(uintptr_t)(BIGMEM_HUGE_ALIGN - 1);
        if (e > a)
            madvise((void *)a, e - a, MADV_HUGEPAGE);
    }
    return p;
}
