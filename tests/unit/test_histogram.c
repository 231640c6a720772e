/* Histogram bins and percentile marks, every number worked out by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "view/histogram.h"

static void expect_counts(const histogram *h, const uint64_t *want, size_t n)
{
    assert_int_equal(h->nbins, n);
    for (size_t b = 0; b < n; b++)
        assert_int_equal(h->count[b], want[b]);
}

/* lo 10, hi 110: ratio 11, linear bins of 25 ns: [10,35) [35,60) [60,85) [85,110].
 * Sorted values 10 10 10 10 20 20 30 40 50 110:
 *   p50 = rank 4.5 -> (20+20)/2 = 20         -> bin 0
 *   p95 = rank 8.55 -> 50 + 0.55*60 = 83     -> bin 2
 *   p99 = rank 8.91 -> 50 + 0.91*60 = 104.6  -> bin 3 */
static void test_linear(void **state)
{
    (void)state;
    const int64_t v[] = {40, 10, 110, 20, 10, 50, 10, 30, 20, 10};
    histogram h;
    assert_int_equal(histogram_build(&h, v, 10, 4, NULL), SV_OK);
    assert_false(h.log);
    assert_int_equal(h.lo, 10);
    assert_int_equal(h.hi, 110);
    const uint64_t want[] = {7, 2, 0, 1};
    expect_counts(&h, want, 4);
    assert_int_equal(h.max_count, 7);
    assert_float_equal(h.pct[0], 20.0, 1e-9);
    assert_float_equal(h.pct[1], 83.0, 1e-9);
    assert_float_equal(h.pct[2], 104.6, 1e-9);
    assert_int_equal(h.mark[0], 0);
    assert_int_equal(h.mark[1], 2);
    assert_int_equal(h.mark[2], 3);
    assert_float_equal(histogram_edge(&h, 1), 35.0, 1e-9);
    assert_float_equal(histogram_pos(&h, 60.0), 0.5, 1e-12);
    assert_float_equal(histogram_pos(&h, 5.0), 0.0, 1e-12);
    assert_float_equal(histogram_pos(&h, 500.0), 1.0, 1e-12);
    assert_float_equal(histogram_edge(&h, 4), 110.0, 1e-9);
    /* Bars 4 rows high: ceil(7*4/7)=4, ceil(2*4/7)=2, 0, ceil(1*4/7)=1. */
    assert_int_equal(histogram_bar_height(&h, 0, 4), 4);
    assert_int_equal(histogram_bar_height(&h, 1, 4), 2);
    assert_int_equal(histogram_bar_height(&h, 2, 4), 0);
    assert_int_equal(histogram_bar_height(&h, 3, 4), 1);
    /* The input is left as it was. */
    assert_int_equal(v[0], 40);
    assert_int_equal(v[2], 110);
    histogram_free(&h);
}

/* A value on an edge opens the next bin: 0..100 in 4 bins of 25. */
static void test_linear_edges(void **state)
{
    (void)state;
    const int64_t v[] = {0, 24, 25, 50, 75, 100};
    histogram h;
    assert_int_equal(histogram_build(&h, v, 6, 4, NULL), SV_OK);
    assert_false(h.log); /* 100 is not > 100 * max(0, 1) */
    const uint64_t want[] = {2, 1, 1, 2};
    expect_counts(&h, want, 4);
    histogram_free(&h);
}

/* lo 1, hi 10000 (ratio 1e4 > 100): log bins, one decade each.
 * log10 of 1 5 50 500 5000 10000 = 0 .70 1.70 2.70 3.70 4 -> bins 0 0 1 2 3 3.
 *   p50 = rank 2.5 -> (50+500)/2 = 275        -> log10 2.44 -> bin 2
 *   p95 = rank 4.75 -> 5000 + .75*5000 = 8750 -> bin 3
 *   p99 = rank 4.95 -> 9750                   -> bin 3 */
static void test_log(void **state)
{
    (void)state;
    const int64_t v[] = {5000, 1, 50, 10000, 5, 500};
    histogram h;
    assert_int_equal(histogram_build(&h, v, 6, 4, NULL), SV_OK);
    assert_true(h.log);
    const uint64_t want[] = {2, 1, 1, 2};
    expect_counts(&h, want, 4);
    assert_float_equal(h.pct[0], 275.0, 1e-9);
    assert_float_equal(h.pct[1], 8750.0, 1e-9);
    assert_float_equal(h.pct[2], 9750.0, 1e-9);
    assert_int_equal(h.mark[0], 2);
    assert_int_equal(h.mark[1], 3);
    assert_int_equal(h.mark[2], 3);
    assert_float_equal(histogram_edge(&h, 2), 100.0, 1e-6);
    assert_float_equal(histogram_pos(&h, 100.0), 0.5, 1e-12); /* two decades of four */
    histogram_free(&h);
}

/* Zero-length calls in log bins go to bin 0 (the bins start at 1 ns). */
static void test_log_zeros(void **state)
{
    (void)state;
    const int64_t v[] = {0, 1000, 0};
    histogram h;
    assert_int_equal(histogram_build(&h, v, 3, 3, NULL), SV_OK);
    assert_true(h.log);
    const uint64_t want[] = {2, 0, 1};
    expect_counts(&h, want, 3);
    assert_int_equal(h.mark[0], 0); /* p50 = 0 */
    histogram_free(&h);
}

static void test_degenerate(void **state)
{
    (void)state;
    const int64_t same[] = {5, 5, 5};
    histogram h;
    assert_int_equal(histogram_build(&h, same, 3, 8, NULL), SV_OK);
    assert_false(h.log);
    assert_int_equal(h.count[0], 3);
    assert_int_equal(h.max_count, 3);
    assert_float_equal(h.pct[2], 5.0, 1e-9);
    assert_int_equal(h.mark[2], 0);
    histogram_free(&h);

    assert_int_equal(histogram_build(&h, NULL, 0, 5, NULL), SV_OK);
    assert_int_equal(h.n, 0);
    assert_int_equal(h.max_count, 0);
    assert_int_equal(histogram_bar_height(&h, 0, 4), 0);
    histogram_free(&h);

    /* nbins 0 is taken as 1. */
    assert_int_equal(histogram_build(&h, same, 3, 0, NULL), SV_OK);
    assert_int_equal(h.nbins, 1);
    histogram_free(&h);
}

/* Near the top of int64 the integer binning would overflow: the double
 * path takes over.  lo 1e17, hi 9e18 (ratio 90: linear), 4 bins of 2.225e18:
 * offsets 0, 4.9e18, 8.9e18 -> bins 0, 2, 3. */
static void test_huge_range(void **state)
{
    (void)state;
    const int64_t v[] = {100000000000000000, 5000000000000000000, 9000000000000000000};
    histogram h;
    assert_int_equal(histogram_build(&h, v, 3, 4, NULL), SV_OK);
    assert_false(h.log);
    const uint64_t want[] = {1, 0, 1, 1};
    expect_counts(&h, want, 4);
    histogram_free(&h);
}

/* 2 * ceil(sqrt(n)), at least 8, at most the width. */
static void test_nbins_for(void **state)
{
    (void)state;
    assert_int_equal(histogram_nbins_for(60, 158), 16); /* sqrt 7.75 -> 8 */
    assert_int_equal(histogram_nbins_for(64, 158), 16);
    assert_int_equal(histogram_nbins_for(65, 158), 18);
    assert_int_equal(histogram_nbins_for(2, 80), 8);
    assert_int_equal(histogram_nbins_for(1000000, 158), 158);
    assert_int_equal(histogram_nbins_for(100, 5), 5);
    assert_int_equal(histogram_nbins_for(10, 0), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_linear),     cmocka_unit_test(test_linear_edges),
        cmocka_unit_test(test_log),        cmocka_unit_test(test_log_zeros),
        cmocka_unit_test(test_degenerate), cmocka_unit_test(test_huge_range),
        cmocka_unit_test(test_nbins_for),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
