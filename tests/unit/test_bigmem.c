/* bigmem: a big column's memory past its end is never faulted in.
 *
 * A column is rounded up to whole 2 MiB steps; with transparent huge pages
 * (the "madvise" mode hinted by bigmem_column) a huge page over the last
 * partial step would make the bytes past the column's end resident, up to
 * 2 MiB a column.  Written whole, a column holds no resident page beyond
 * the page of its last byte (mincore).  Without THP this cannot fail. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/bigmem.h"

static size_t resident_past_end(const unsigned char *p, size_t bytes)
{
    const uintptr_t page = 4096;
    uintptr_t lo = ((uintptr_t)p + bytes + page - 1) & ~(page - 1);
    uintptr_t hi = ((uintptr_t)p + bytes + BIGMEM_HUGE_ALIGN - 1) & ~(BIGMEM_HUGE_ALIGN - 1);
    if (hi <= lo)
        return 0;
    size_t npages = (hi - lo) / page;
    unsigned char *vec = malloc(npages);
    assert_non_null(vec);
    assert_int_equal(mincore((void *)lo, hi - lo, vec), 0);
    size_t k = 0;
    for (size_t i = 0; i < npages; i++)
        k += vec[i] & 1;
    free(vec);
    return k;
}

static void test_tail_not_resident(void **state)
{
    (void)state;
    /* 5 MiB and a page: two whole huge pages, then 1 MiB and a page. */
    size_t sizes[] = {(5u << 20) + 4096, (15u << 20) + 12345, BIGMEM_HUGE_MIN + 1};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        unsigned char *p = bigmem_column(sizes[i]);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % BIGMEM_HUGE_ALIGN, 0);
        memset(p, 0x5a, sizes[i]);
        assert_int_equal(resident_past_end(p, sizes[i]), 0);
        assert_int_equal(p[sizes[i] - 1], 0x5a);
        free(p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tail_not_resident),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
