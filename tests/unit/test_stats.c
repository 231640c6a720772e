/* Statistics: percentiles (numpy linear), mean, population std.
 * Expected values are worked out by hand in the comments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "memprof.h"
#include "model/region.h"
#include "model/stats.h"

static void test_percentile_small(void **state)
{
    (void)state;
    int64_t v[] = {4, 1, 3, 2};
    /* sorted 1 2 3 4; p50: idx 1.5 → 2.5; p95: idx 2.85 → 3.85; p99: 3.97 */
    double pc[] = {0, 50, 95, 99, 100}, out[5];
    stats_percentiles_inplace(v, 4, pc, out, 5);
    assert_float_equal(out[0], 1.0, 1e-12);
    assert_float_equal(out[1], 2.5, 1e-12);
    assert_float_equal(out[2], 3.85, 1e-12);
    assert_float_equal(out[3], 3.97, 1e-12);
    assert_float_equal(out[4], 4.0, 1e-12);
}

static void test_percentile_single_and_empty(void **state)
{
    (void)state;
    int64_t one[] = {7};
    assert_float_equal(stats_percentile_inplace(one, 1, 99), 7.0, 0);
    assert_float_equal(stats_percentile_inplace(NULL, 0, 50), 0.0, 0);
}

static int cmp64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Selection must agree with interpolating a fully sorted copy. */
static void test_percentile_random_vs_sorted(void **state)
{
    (void)state;
    srand(7);
    for (int round = 0; round < 50; round++) {
        size_t n = 1 + (size_t)(rand() % 5000);
        int64_t *v = malloc(n * sizeof *v), *s = malloc(n * sizeof *s);
        for (size_t i = 0; i < n; i++)
            v[i] = s[i] = rand() % (round % 3 ? 100000 : 5); /* many duplicates too */
        qsort(s, n, sizeof *s, cmp64);
        double pc[] = {50, 95, 99}, out[3];
        stats_percentiles_inplace(v, n, pc, out, 3);
        for (int k = 0; k < 3; k++) {
            double idx = pc[k] / 100.0 * (double)(n - 1);
            size_t lo = (size_t)idx, hi = lo + 1 < n ? lo + 1 : lo;
            double want = (double)s[lo] + ((double)s[hi] - (double)s[lo]) * (idx - (double)lo);
            assert_float_equal(out[k], want, 1e-6);
        }
        free(v);
        free(s);
    }
}

static void test_percentile_all_equal_large(void **state)
{
    (void)state;
    size_t n = 200000;
    int64_t *v = calloc(n, sizeof *v);
    assert_float_equal(stats_percentile_inplace(v, n, 95), 0.0, 0);
    free(v);
}

static void test_mean_std(void **state)
{
    (void)state;
    int64_t v[] = {2, 4, 4, 4, 5, 5, 7, 9}; /* mean 5, population std 2 */
    double m, s;
    stats_mean_std(v, 8, &m, &s);
    assert_float_equal(m, 5.0, 1e-12);
    assert_float_equal(s, 2.0, 1e-12);
}

/* Region statistics through the model: durations 2,4,4,4,5,5,7,9 ns. */
static void test_region_stats(void **state)
{
    (void)state;
    profile *p = profile_new("mem");
    rank_data *rk = profile_add_rank(p, 0);
    int64_t s[] = {0, 10, 20, 30, 40, 50, 60, 70};
    int64_t e[] = {2, 14, 24, 34, 45, 55, 67, 79};
    mp_region(rk, "r", 8, s, e);
    mp_finish(p);
    region *r = p->regions[0];
    assert_int_equal(region_num_calls(r), 8);
    assert_float_equal(region_total_duration(r), 40e-9, 1e-20);
    assert_float_equal(region_average_duration(r), 5e-9, 1e-20);
    assert_float_equal(region_std_duration(r), 2e-9, 1e-20);
    assert_float_equal(region_min_duration(r), 2e-9, 1e-20);
    assert_float_equal(region_max_duration(r), 9e-9, 1e-20);
    assert_float_equal(region_first_duration(r), 2e-9, 1e-20);
    assert_float_equal(region_last_duration(r), 9e-9, 1e-20);
    assert_float_equal(region_first_start_time(r), 0.0, 0);
    assert_float_equal(region_last_end_time(r), 79e-9, 1e-20);
    /* sorted 2 4 4 4 5 5 7 9: p50 idx 3.5 → 4.5; p95 idx 6.65 → 7 + .65*2 = 8.3 */
    double x;
    assert_true(region_stat(r, RSTAT_P50, &x));
    assert_float_equal(x, 4.5e-9, 1e-20);
    assert_true(region_stat(r, RSTAT_P95, &x));
    assert_float_equal(x, 8.3e-9, 1e-20);
    profile_free(p);
}

/* A duration that overflows int64 drops the region with a warning. */
static void test_overflow_dropped(void **state)
{
    (void)state;
    profile *p = profile_new("mem");
    rank_data *rk = profile_add_rank(p, 0);
    int64_t s[] = {INT64_MIN + 1}, e[] = {INT64_MAX};
    int64_t s2[] = {5}, e2[] = {3};
    mp_region(rk, "huge", 1, s, e);
    mp_region(rk, "backwards", 1, s2, e2);
    mp_region(rk, "ok", 1, s2, s2);
    mp_finish(p);
    assert_int_equal(p->nregions, 1);
    assert_string_equal(p->regions[0]->name, "ok");
    assert_int_equal(p->nwarnings, 2);
    profile_free(p);
}

/* Durations near 2^62: the exact integer form would overflow, the
 * fallback still gives mean 1.5 * 2^61 and std 0.5 * 2^61. */
static void test_huge_durations_std(void **state)
{
    (void)state;
    profile *p = profile_new("mem");
    int64_t s[] = {0, 0}, e[] = {(int64_t)1 << 62, (int64_t)1 << 61};
    mp_region(profile_add_rank(p, 0), "big", 2, s, e);
    mp_finish(p);
    double x, two61 = 2305843009213693952.0;
    assert_true(region_stat_ns(p->regions[0], RSTAT_MEAN, &x));
    assert_float_equal(x, 1.5 * two61, two61 * 1e-12);
    assert_true(region_stat_ns(p->regions[0], RSTAT_STD, &x));
    assert_float_equal(x, 0.5 * two61, two61 * 1e-12);
    profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_percentile_small),
        cmocka_unit_test(test_percentile_single_and_empty),
        cmocka_unit_test(test_percentile_random_vs_sorted),
        cmocka_unit_test(test_percentile_all_equal_large),
        cmocka_unit_test(test_mean_std),
        cmocka_unit_test(test_region_stats),
        cmocka_unit_test(test_overflow_dropped),
        cmocka_unit_test(test_huge_durations_std),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
