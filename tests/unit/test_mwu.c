/* The comparison statistics (mwu.h) against values worked out by hand
 * (scipy's formulas evaluated with a calculator from average ranks) and an
 * independent brute force written here: U by counting every pair, ties by
 * counting equal values, the shift by sorting every pairwise difference. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>

#include <cmocka.h>

#include "model/mwu.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* scipy.stats.mannwhitneyu([1,2,3], [4,5,6], method="asymptotic"):
 * R1 = 6, U1 = 0, U = 9, mu = 4.5, sigma = sqrt(9/12 * 7) = 2.29129,
 * z = (9 - 4.5 - 0.5) / sigma = 1.745743, p = erfc(z / sqrt 2) = 0.0808556. */
static void test_u_no_ties(void **state)
{
    (void)state;
    int64_t x[] = {1, 2, 3}, y[] = {4, 5, 6};
    mwu_result r;
    assert_true(mwu_test(x, 3, y, 3, &r));
    assert_float_equal(r.u1, 0.0, 0);
    assert_float_equal(r.z, 1.7457431218879391, 1e-12);
    assert_float_equal(r.p, 0.0808555983700523, 1e-12);
    /* the other way round: U1 = 9, same p */
    assert_true(mwu_test(y, 3, x, 3, &r));
    assert_float_equal(r.u1, 9.0, 0);
    assert_float_equal(r.p, 0.0808555983700523, 1e-12);
    double hl;
    assert_true(mwu_hl_shift(x, 3, y, 3, &hl));
    assert_float_equal(hl, 3.0, 0); /* differences 1..5, median of 9: 3 */
}

/* x = 1 2 2 3 5, y = 2 3 3 4 6 7.  Tie groups: {2 x3}, {3 x3}: tie term
 * 2 (27 - 3) = 48.  Average ranks: 1 -> 1, 2 -> 3, 3 -> 6, 4 -> 8,
 * 5 -> 9, 6 -> 10, 7 -> 11; R1 = 1 + 3 + 3 + 6 + 9 = 22, U1 = 22 - 15 = 7,
 * U = 23, sigma = sqrt(30/12 (12 - 48/110)) = 5.3771, z = 7.5 / 5.3771
 * = 1.394903, p = 0.163045.  Shift: the 30 differences y - x sorted have
 * 15th and 16th values 1 and 1. */
static void test_u_ties(void **state)
{
    (void)state;
    int64_t x[] = {1, 2, 2, 3, 5}, y[] = {2, 3, 3, 4, 6, 7};
    mwu_result r;
    assert_true(mwu_test(x, N(x), y, N(y), &r));
    assert_float_equal(r.u1, 7.0, 0);
    assert_float_equal(r.tie_term, 48.0, 0);
    assert_float_equal(r.z, 1.3949031210020042, 1e-12);
    assert_float_equal(r.p, 0.16304505585423731, 1e-12);
    double hl;
    assert_true(mwu_hl_shift(x, N(x), y, N(y), &hl));
    assert_float_equal(hl, 1.0, 0);
}

/* Every value equal: sigma = 0, U = mu, z = -inf, p = 1 (clipped). */
static void test_equal_samples(void **state)
{
    (void)state;
    int64_t x[] = {5, 5, 5}, y[] = {5, 5, 5, 5};
    mwu_result r;
    assert_true(mwu_test(x, 3, y, 4, &r));
    assert_float_equal(r.u1, 6.0, 0);
    assert_float_equal(r.tie_term, 336.0, 0);
    assert_true(isinf(r.z) && r.z < 0);
    assert_float_equal(r.p, 1.0, 0);
    double hl;
    assert_true(mwu_hl_shift(x, 3, y, 4, &hl));
    assert_float_equal(hl, 0.0, 0);
    /* the same sample on both sides is never significant */
    int64_t s[] = {1, 4, 4, 9, 12, 30, 31, 31, 50};
    assert_true(mwu_test(s, N(s), s, N(s), &r));
    assert_float_equal(r.p, 1.0, 0);
    assert_true(mwu_hl_shift(s, N(s), s, N(s), &hl));
    assert_float_equal(hl, 0.0, 0);
}

/* Durations near 2^62 and 2^63: the shift's search asks for y - d with
 * |d| past 2^62, which overflowed (UBSan) and was clamped, giving a wrong
 * median.  x = {0, 1}, y = {2^62 + 5, 2^63 - 3}: the 4 differences y - x
 * sorted are 2^62 + 4, 2^62 + 5, 2^63 - 4, 2^63 - 3; the median is
 * (2^62 + 5 + 2^63 - 4) / 2 = 3 * 2^61 + 0.5.  The other way round the
 * differences are their negatives: pairs_le counts them exactly. */
static void test_shift_near_2_63(void **state)
{
    (void)state;
    const int64_t big = INT64_MAX - 2; /* 2^63 - 3 */
    int64_t x[] = {0, 1}, y[] = {((int64_t)1 << 62) + 5, big};
    double hl;
    assert_true(mwu_hl_shift(x, 2, y, 2, &hl));
    assert_float_equal(hl, 3.0 * 2305843009213693952.0 + 0.5, 1024);
    assert_true(mwu_hl_shift(y, 2, x, 2, &hl));
    assert_float_equal(hl, -(3.0 * 2305843009213693952.0 + 0.5), 1024);
    /* pairs_le counts y - x <= d.  d = -2^62 - 1: y - d passes INT64_MAX
     * for both y (it overflowed): no pair */
    assert_int_equal(mwu_pairs_le(x, 2, y, 2, -((int64_t)1 << 62) - 1), 0);
    /* d = 2^62 + 4: only A - 1 = 2^62 + 4 */
    assert_int_equal(mwu_pairs_le(x, 2, y, 2, ((int64_t)1 << 62) + 4), 1);
    /* d = INT64_MAX: every pair */
    assert_int_equal(mwu_pairs_le(x, 2, y, 2, INT64_MAX), 4);
    /* x - y <= -(2^62 + 6): 0 - B and 1 - B, not -(2^62 + 5), -(2^62 + 4) */
    assert_int_equal(mwu_pairs_le(y, 2, x, 2, -((int64_t)1 << 62) - 6), 2);
}

static void test_empty_and_single(void **state)
{
    (void)state;
    int64_t x[] = {7}, y[] = {9}, e[] = {0};
    mwu_result r = {0};
    double hl = 42;
    assert_false(mwu_test(e, 0, y, 1, &r));
    assert_false(mwu_test(x, 1, e, 0, &r));
    assert_false(mwu_hl_shift(e, 0, y, 1, &hl));
    assert_float_equal(hl, 42, 0);
    /* n = 1 each: U1 = 0, U = 1, mu = 0.5, sigma = sqrt(3/12) = 0.5,
     * z = (1 - 0.5 - 0.5) / 0.5 = 0, p = 1 */
    assert_true(mwu_test(x, 1, y, 1, &r));
    assert_float_equal(r.u1, 0.0, 0);
    assert_float_equal(r.z, 0.0, 1e-15);
    assert_float_equal(r.p, 1.0, 0);
    assert_true(mwu_hl_shift(x, 1, y, 1, &hl));
    assert_float_equal(hl, 2.0, 0);
    /* n = 1 each, tied: U1 = 0.5, sigma = 0, p = 1 */
    assert_true(mwu_test(x, 1, x, 1, &r));
    assert_float_equal(r.u1, 0.5, 0);
    assert_float_equal(r.p, 1.0, 0);
}

/* Even number of pairs: x = 10 20 30 40, y = 15 25 35 45 55 (20
 * differences; the 10th and 11th are 5 and 15: shift 10); U1 = 6,
 * z = (14 - 10 - 0.5) / sqrt(20/12 * 10) = 0.857321, p = 0.391267. */
static void test_even_pairs(void **state)
{
    (void)state;
    int64_t x[] = {10, 20, 30, 40}, y[] = {15, 25, 35, 45, 55};
    mwu_result r;
    assert_true(mwu_test(x, 4, y, 5, &r));
    assert_float_equal(r.u1, 6.0, 0);
    assert_float_equal(r.p, 0.3912672792826394, 1e-12);
    double hl;
    assert_true(mwu_hl_shift(x, 4, y, 5, &hl));
    assert_float_equal(hl, 10.0, 0);
}

/* ------------------------------------------------------------ brute force */

static int cmp64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void brute(const int64_t *x, size_t n1, const int64_t *y, size_t n2, double *u1, double *p,
                  double *hl)
{
    double u = 0;
    for (size_t i = 0; i < n1; i++)
        for (size_t j = 0; j < n2; j++)
            u += x[i] > y[j] ? 1.0 : x[i] == y[j] ? 0.5 : 0.0;
    /* tie term: for each distinct value, t = how many of x and y equal it */
    size_t n = n1 + n2;
    int64_t *all = malloc(n * sizeof *all);
    for (size_t i = 0; i < n1; i++)
        all[i] = x[i];
    for (size_t j = 0; j < n2; j++)
        all[n1 + j] = y[j];
    qsort(all, n, sizeof *all, cmp64);
    double tie = 0;
    for (size_t i = 0; i < n;) {
        size_t k = i;
        while (k < n && all[k] == all[i])
            k++;
        double t = (double)(k - i);
        tie += t * t * t - t;
        i = k;
    }
    free(all);
    double a = (double)n1, b = (double)n2, big = u > a * b - u ? u : a * b - u;
    double s = sqrt(a * b / 12 * ((a + b + 1) - tie / ((a + b) * (a + b - 1))));
    double z = s > 0 ? (big - a * b / 2 - 0.5) / s : -INFINITY;
    double pv = erfc(z / sqrt(2.0));
    *u1 = u;
    *p = pv > 1 ? 1 : pv;
    int64_t *d = malloc(n1 * n2 * sizeof *d);
    size_t k = 0;
    for (size_t i = 0; i < n1; i++)
        for (size_t j = 0; j < n2; j++)
            d[k++] = y[j] - x[i];
    qsort(d, k, sizeof *d, cmp64);
    *hl = k % 2 ? (double)d[k / 2] : ((double)d[k / 2 - 1] + (double)d[k / 2]) / 2;
    free(d);
}

static void test_random_vs_brute(void **state)
{
    (void)state;
    srand(11);
    for (int round = 0; round < 300; round++) {
        size_t n1 = 1 + (size_t)(rand() % 60), n2 = 1 + (size_t)(rand() % 60);
        int spread = round % 3 == 0 ? 4 : round % 3 == 1 ? 100 : 1000000000;
        int64_t *x = malloc(n1 * sizeof *x), *y = malloc(n2 * sizeof *y);
        int shift = rand() % (spread / 2 + 1);
        for (size_t i = 0; i < n1; i++)
            x[i] = rand() % spread;
        for (size_t j = 0; j < n2; j++)
            y[j] = rand() % spread + shift;
        qsort(x, n1, sizeof *x, cmp64);
        qsort(y, n2, sizeof *y, cmp64);
        double u1, p, hl, got;
        brute(x, n1, y, n2, &u1, &p, &hl);
        mwu_result r;
        assert_true(mwu_test(x, n1, y, n2, &r));
        assert_float_equal(r.u1, u1, 0);
        assert_float_equal(r.p, p, 1e-12);
        assert_true(mwu_hl_shift(x, n1, y, n2, &got));
        assert_float_equal(got, hl, 0);
        free(x);
        free(y);
    }
}

/* A large sample: the exact search agrees with the pairs it counts. */
static void test_hl_large(void **state)
{
    (void)state;
    size_t n1 = 30000, n2 = 25000;
    int64_t *x = malloc(n1 * sizeof *x), *y = malloc(n2 * sizeof *y);
    srand(3);
    for (size_t i = 0; i < n1; i++)
        x[i] = 1000000 + rand() % 500000;
    for (size_t j = 0; j < n2; j++)
        y[j] = 1200000 + rand() % 600000;
    assert_true(mwu_sort_i64(x, n1, NULL));
    assert_true(mwu_sort_i64(y, n2, NULL));
    for (size_t i = 1; i < n1; i++)
        assert_true(x[i - 1] <= x[i]);
    double hl;
    assert_true(mwu_hl_shift(x, n1, y, n2, &hl));
    /* n1 n2 is even: the two middle differences a <= b bracket the median
     * count 375 000 000 exactly */
    uint64_t half = (uint64_t)n1 * n2 / 2;
    int64_t a = (int64_t)floor(hl), b = (int64_t)ceil(hl);
    assert_true(mwu_pairs_le(x, n1, y, n2, a) >= half);
    assert_true(mwu_pairs_le(x, n1, y, n2, a - 1) < half);
    assert_true(mwu_pairs_le(x, n1, y, n2, b) >= half + 1);
    /* uniform(0, 500k) vs uniform(200k, 800k): the shift is near 250 000 */
    assert_true(fabs(hl - 250000) < 10000);
    free(x);
    free(y);
}

static int cmp_ll(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* mwu_sort_i64 against qsort on every kind of sample it tells apart: tiny,
 * constant, a narrow range (counting sort), a wide one (radix), negative
 * values, both ends of int64. */
static void test_sort(void **state)
{
    (void)state;
    static const struct {
        size_t n;
        int64_t base, range; /* range 0: the extremes */
    } cases[] = {{100, 5, 10},         {5000, 42, 1},           {100000, 3000, 7000},
                 {100000, -500, 1000}, {70000, 1, 1 << 20},     {4000, -3, (int64_t)1 << 40},
                 {3000, 0, 0},         {200000, 1000000, 65537}};
    srand(17);
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        size_t n = cases[k].n;
        int64_t *v = malloc(n * sizeof *v), *w = malloc(n * sizeof *w);
        for (size_t i = 0; i < n; i++) {
            uint64_t r = (uint64_t)rand() << 31 ^ (uint64_t)rand();
            if (cases[k].range == 0)
                v[i] = r % 3 == 0 ? INT64_MIN : r % 3 == 1 ? INT64_MAX : (int64_t)(r % 7) - 3;
            else
                v[i] = cases[k].base + (int64_t)(r % (uint64_t)cases[k].range);
        }
        memcpy(w, v, n * sizeof *v);
        qsort(w, n, sizeof *w, cmp_ll);
        int64_t *scratch = k % 2 ? malloc(n * sizeof *scratch) : NULL; /* both ways */
        assert_true(mwu_sort_i64(v, n, scratch));
        assert_memory_equal(v, w, n * sizeof *v);
        free(scratch);
        free(v);
        free(w);
    }
}

/* p = 0.01 0.04 0.03 0.005 (NaN not in the family), m = 4: sorted
 * 0.005 0.01 0.03 0.04 -> m p / rank = 0.02 0.02 0.04 0.04, running min
 * from the top: 0.02 0.02 0.04 0.04. */
static void test_bh(void **state)
{
    (void)state;
    double p[] = {0.01, 0.04, 0.03, 0.005, NAN}, q[5];
    assert_true(mwu_bh_adjust(p, 5, q));
    assert_float_equal(q[0], 0.02, 1e-15);
    assert_float_equal(q[1], 0.04, 1e-15);
    assert_float_equal(q[2], 0.04, 1e-15);
    assert_float_equal(q[3], 0.02, 1e-15);
    assert_true(isnan(q[4]));
    /* capped at 1; a smaller p later cannot raise an earlier q */
    double p2[] = {0.9, 0.8}, q2[2];
    assert_true(mwu_bh_adjust(p2, 2, q2));
    assert_float_equal(q2[0], 0.9, 1e-15);
    assert_float_equal(q2[1], 0.9, 1e-15);
    assert_true(mwu_bh_adjust(NULL, 0, NULL));
}

static void test_sf_and_percentile(void **state)
{
    (void)state;
    assert_float_equal(mwu_norm_sf(0), 0.5, 1e-15);
    assert_float_equal(mwu_norm_sf(1.959963984540054), 0.025, 1e-12);
    assert_float_equal(mwu_norm_sf(-INFINITY), 1.0, 0);
    int64_t v[] = {1, 2, 3, 4};
    assert_float_equal(mwu_sorted_percentile(v, 4, 50), 2.5, 1e-12);
    assert_float_equal(mwu_sorted_percentile(v, 4, 95), 3.85, 1e-12);
    assert_float_equal(mwu_sorted_percentile(v, 0, 50), 0.0, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_u_no_ties),         cmocka_unit_test(test_u_ties),
        cmocka_unit_test(test_equal_samples),     cmocka_unit_test(test_empty_and_single),
        cmocka_unit_test(test_even_pairs),        cmocka_unit_test(test_random_vs_brute),
        cmocka_unit_test(test_hl_large),          cmocka_unit_test(test_bh),
        cmocka_unit_test(test_sf_and_percentile), cmocka_unit_test(test_sort),
        cmocka_unit_test(test_shift_near_2_63),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
