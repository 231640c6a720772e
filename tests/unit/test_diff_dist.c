/* The compare view's shared bins (diff_dist.h): counts of a sorted sample by
 * binary search against counting each value by hand from the definition
 * (linear: bin = floor((v - lo) / (hi - lo) * nbins), the maximum in the
 * last bin; logarithmic the same on log(max(v, 1))). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "view/compare/diff_dist.h"

static size_t by_hand(const dist_bins *b, int64_t v)
{
    double lo = (double)b->lo, hi = (double)b->hi, x = (double)v;
    if (b->log) {
        lo = log(lo > 1 ? lo : 1);
        hi = log(hi);
        x = log(x > 1 ? x : 1);
    }
    double p = hi > lo ? (x - lo) / (hi - lo) : 0;
    size_t k = (size_t)(p * (double)b->nbins);
    return k >= b->nbins ? b->nbins - 1 : k;
}

static int cmp64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void test_counts(void **state)
{
    (void)state;
    srand(5);
    for (int round = 0; round < 200; round++) {
        size_t nx = (size_t)(rand() % 300), ny = 1 + (size_t)(rand() % 300);
        int64_t *x = malloc((nx ? nx : 1) * sizeof *x), *y = malloc(ny * sizeof *y);
        int64_t scale = round % 2 ? 1000 : 100000000; /* linear and log bins */
        for (size_t i = 0; i < nx; i++)
            x[i] = 50 + rand() % scale;
        for (size_t i = 0; i < ny; i++)
            y[i] = rand() % (round % 4 ? scale : 3);
        qsort(x, nx, sizeof *x, cmp64);
        qsort(y, ny, sizeof *y, cmp64);
        dist_bins b;
        size_t nb = 1 + (size_t)(rand() % 90);
        dist_bins_init(&b, x, nx, y, ny, nb);
        assert_int_equal(b.lo, nx && x[0] < y[0] ? x[0] : y[0]);
        uint64_t *c = calloc(nb, sizeof *c), *want = calloc(nb, sizeof *want);
        dist_count(&b, y, ny, c);
        for (size_t i = 0; i < ny; i++)
            want[by_hand(&b, y[i])]++;
        for (size_t k = 0; k < nb; k++)
            assert_int_equal(c[k], want[k]);
        free(c);
        free(want);
        free(x);
        free(y);
    }
}

/* 101..1000 (max <= 100 min: linear) in 10 bins of width 89.9: bin k holds
 * v with 89.9 k <= v - 101 < 89.9 (k + 1), 90 values each (101..190, ...,
 * 911..1000). */
static void test_by_hand(void **state)
{
    (void)state;
    int64_t v[900];
    for (int i = 0; i < 900; i++)
        v[i] = i + 101;
    dist_bins b;
    dist_bins_init(&b, v, 900, v, 900, 10);
    assert_false(b.log);
    uint64_t c[10];
    dist_count(&b, v, 900, c);
    for (int k = 0; k < 10; k++)
        assert_int_equal(c[k], 90);
    /* 1..1000 is wide (1000 > 100 x 1): logarithmic */
    int64_t w[2] = {1, 1000};
    dist_bins_init(&b, w, 2, w, 2, 3);
    assert_true(b.log);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_counts),
                                       cmocka_unit_test(test_by_hand)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
