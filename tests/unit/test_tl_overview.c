/* The timeline's provisional overview (tl_overview.c): calls starting per
 * time bin, per rank or recorded thread, and their resampling to columns.
 * Every expected bin is worked out by hand in the comments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "memprof.h"
#include "view/timeline/tl_overview.h"

/* One rank, no thread ids:
 *   A starts 100 105 163 164 227, ends 110 300 170 164 227 (A[1] crosses bins)
 *   B starts 130 131, ends 132 200
 * t_min 100, t_max 300: span 200; at most 8 bins: 200 >> 5 = 6 < 8, so
 * shift 5 (bins of 32 ns), 7 bins.  Offsets from 100: A 0 5 63 64 127 ->
 * bins 0 0 1 2 3 (63 is the last ns of bin 1, 64 the first of bin 2);
 * B 30 31 -> 0 0.  Bins: 4 1 1 1 0 0 0. */
static profile *one_rank(void)
{
    profile *p = profile_new("mem");
    rank_data *rk = profile_add_rank(p, 0);
    int64_t as[] = {100, 105, 163, 164, 227}, ae[] = {110, 300, 170, 164, 227};
    int64_t bs[] = {130, 131}, be[] = {132, 200};
    mp_region(rk, "A", 5, as, ae);
    mp_region(rk, "B", 2, bs, be);
    mp_finish(p);
    return p;
}

static void expect_bins(const tl_overview *ov, size_t r, const uint32_t *want, size_t n)
{
    assert_int_equal(ov->nbins, n);
    for (size_t b = 0; b < n; b++) {
        if (ov->rows[r].bins[b] != want[b])
            fail_msg("row %zu bin %zu: %u, want %u", r, b, ov->rows[r].bins[b], want[b]);
    }
}

static void test_bins_one_rank(void **state)
{
    (void)state;
    profile *p = one_rank();
    tl_overview ov;
    assert_true(tl_overview_build(p, NULL, 8, &ov));
    assert_int_equal(ov.t_min, 100);
    assert_int_equal(ov.t_max, 300);
    assert_int_equal(ov.shift, 5);
    assert_int_equal(ov.nrows, 1);
    assert_int_equal(ov.rows[0].thread, -1);
    assert_int_equal(ov.ncalls, 7);
    static const uint32_t want[] = {4, 1, 1, 1, 0, 0, 0};
    expect_bins(&ov, 0, want, 7);
    tl_overview_free(&ov);
    profile_free(p);
}

/* The profile's first start is only a hint: one too late (120, after the
 * start at 100) is caught and the bins come out the same. */
static void test_wrong_hint(void **state)
{
    (void)state;
    profile *p = one_rank();
    p->has_min_start = true;
    p->min_start_ns = 120;
    tl_overview ov;
    assert_true(tl_overview_build(p, NULL, 8, &ov));
    assert_int_equal(ov.t_min, 100);
    static const uint32_t want[] = {4, 1, 1, 1, 0, 0, 0};
    expect_bins(&ov, 0, want, 7);
    tl_overview_free(&ov);
    profile_free(p);
}

/* Two ranks; rank 0's region X records threads, Y does not:
 *   X starts 0 10 20 30 (threads 0 0 1 -1), ends 5 15 25 40;  Y [35, 36)
 *   rank 1: Z [8, 9)
 * t_min 0, t_max 40; at most 4 bins: 40 >> 4 = 2 < 4: shift 4 (16 ns), 3 bins.
 * Rows by rank then thread: r0 other (X[3] at 30 -> bin 1, Y at 35 -> 2),
 * r0 thread 0 (0, 10 -> bin 0), r0 thread 1 (20 -> 1), r1 (8 -> 0). */
static void test_bins_threads(void **state)
{
    (void)state;
    profile *p = profile_new("mem");
    rank_data *r0 = profile_add_rank(p, 0), *r1 = profile_add_rank(p, 1);
    int64_t xs[] = {0, 10, 20, 30}, xe[] = {5, 15, 25, 40}, xt[] = {0, 0, 1, -1};
    int64_t ys[] = {35}, ye[] = {36}, zs[] = {8}, ze[] = {9};
    region *x = mp_region(r0, "X", 4, xs, xe);
    mp_col(&x->thread_ids, xt, 4);
    mp_region(r0, "Y", 1, ys, ye);
    mp_region(r1, "Z", 1, zs, ze);
    mp_finish(p);
    tl_overview ov;
    assert_true(tl_overview_build(p, NULL, 4, &ov));
    assert_int_equal(ov.t_min, 0);
    assert_int_equal(ov.t_max, 40);
    assert_int_equal(ov.shift, 4);
    assert_int_equal(ov.nrows, 4);
    assert_int_equal(ov.ncalls, 6);
    int64_t threads[] = {-1, 0, 1, -1};
    size_t ranks[] = {0, 0, 0, 1};
    for (size_t k = 0; k < 4; k++) {
        assert_int_equal(ov.rows[k].thread, threads[k]);
        assert_int_equal(ov.rows[k].rank_index, ranks[k]);
    }
    static const uint32_t w0[] = {0, 1, 1}, w1[] = {2, 0, 0}, w2[] = {0, 1, 0}, w3[] = {1, 0, 0};
    expect_bins(&ov, 0, w0, 3);
    expect_bins(&ov, 1, w1, 3);
    expect_bins(&ov, 2, w2, 3);
    expect_bins(&ov, 3, w3, 3);
    tl_overview_free(&ov);
    profile_free(p);
}

/* The lane of x's call i in ix (where the lanes put it), SIZE_MAX if none. */
static size_t lane_of_call(const lanes_index *ix, const region *x, size_t i)
{
    size_t l, pos;
    uint32_t d;
    return lanes_locate(ix, x->owner->rank, (int64_t)(x->gidx0 + i), &l, &d, &pos) ? l : SIZE_MAX;
}

/* An overview row hands the cursor to the lane that shows its calls (the
 * lanes' own placement of one of them, lanes_locate): much the profile of
 * test_bins_threads, rows r0 other (Y), r0 thread 0 (X[0]), r0 thread 1
 * (X[2]), r1 (Z).  A thread the lanes do not have, and a row past the
 * last, have none. */
static void test_lane_of_row(void **state)
{
    (void)state;
    profile *p = profile_new("mem");
    rank_data *r0 = profile_add_rank(p, 0), *r1 = profile_add_rank(p, 1);
    int64_t xs[] = {0, 10, 20, 30}, xe[] = {5, 15, 25, 40}, xt[] = {0, 0, 1, -1};
    /* Z[0] crosses Z[1]'s start: r1 (no thread ids) gets inferred lanes, no
     * rank lane; Y crosses X[3]'s end (r0 records threads: its rank lane). */
    int64_t ys[] = {35}, ye[] = {45}, zs[] = {8, 10}, ze[] = {12, 14};
    region *x = mp_region(r0, "X", 4, xs, xe);
    mp_col(&x->thread_ids, xt, 4);
    region *y = mp_region(r0, "Y", 1, ys, ye);
    region *z = mp_region(r1, "Z", 2, zs, ze);
    mp_finish(p);
    tl_overview ov;
    assert_true(tl_overview_build(p, NULL, 4, &ov));
    assert_int_equal(ov.nrows, 4);
    lanes_index *ix = NULL;
    sv_error err;
    assert_int_equal(lanes_build(p, NULL, &ix, &err), SV_OK);
    size_t want[] = {lane_of_call(ix, y, 0), lane_of_call(ix, x, 0), lane_of_call(ix, x, 2),
                     lane_of_call(ix, z, 0)};
    for (size_t r = 0; r < 4; r++) {
        assert_int_not_equal(want[r], SIZE_MAX);
        if (tl_overview_lane(&ov, r, ix) != want[r])
            fail_msg("overview row %zu: lane %zu, its calls are on lane %zu", r,
                     tl_overview_lane(&ov, r, ix), want[r]);
    }
    assert_int_equal(ix->lanes[want[0]].kind, LANE_RANK);
    assert_int_equal(ix->lanes[want[1]].kind, LANE_THREAD);
    assert_int_equal(ix->lanes[want[3]].kind, LANE_INFERRED);
    assert_int_equal(tl_overview_lane(&ov, 4, ix), SIZE_MAX);
    ov.rows[2].thread = 7; /* no such thread among the lanes */
    assert_int_equal(tl_overview_lane(&ov, 2, ix), SIZE_MAX);
    lanes_free(ix);
    tl_overview_free(&ov);
    profile_free(p);
}

/* Columns of 64 ns from 100: bins start at 100 132 164 196 ..., so bins
 * 0 and 1 fall in column 0 (4 + 1 calls), bins 2 and 3 in column 1 (1 + 1). */
static void test_columns(void **state)
{
    (void)state;
    profile *p = one_rank();
    tl_overview ov;
    assert_true(tl_overview_build(p, NULL, 8, &ov));
    tl_view v = {100, 64, 4};
    uint64_t cols[4];
    assert_int_equal(tl_overview_columns(&ov, 0, &v, cols), 5);
    assert_int_equal(cols[0], 5);
    assert_int_equal(cols[1], 2);
    assert_int_equal(cols[2], 0);
    assert_int_equal(cols[3], 0);
    /* Shifted by one column to the left: bins 0-1 before the view. */
    v.t0 = 164;
    assert_int_equal(tl_overview_columns(&ov, 0, &v, cols), 2);
    assert_int_equal(cols[0], 2);
    tl_overview_free(&ov);
    profile_free(p);
}

/* Decades: floor(log10(max)) = d; levels from 1, 10^(d/3), 10^(2d/3),
 * at least 2 and 10. */
static void test_levels(void **state)
{
    (void)state;
    uint64_t t1, t2;
    tl_overview_thresholds(5, &t1, &t2);
    assert_int_equal(t1, 2);
    assert_int_equal(t2, 10);
    tl_overview_thresholds(1000, &t1, &t2); /* d 3 */
    assert_int_equal(t1, 10);
    assert_int_equal(t2, 100);
    tl_overview_thresholds(1600000, &t1, &t2); /* d 6 */
    assert_int_equal(t1, 100);
    assert_int_equal(t2, 10000);
    tl_overview_thresholds(0, &t1, &t2);
    assert_int_equal(t1, 2);
    assert_int_equal(t2, 10);
    assert_int_equal(tl_overview_level(0, 2, 10), -1);
    assert_int_equal(tl_overview_level(1, 2, 10), 0);
    assert_int_equal(tl_overview_level(2, 2, 10), 1);
    assert_int_equal(tl_overview_level(9, 2, 10), 1);
    assert_int_equal(tl_overview_level(10, 2, 10), 2);
}

/* No call with event data: no rows, no bins. */
static void test_empty(void **state)
{
    (void)state;
    profile *p = profile_new("mem");
    profile_add_rank(p, 0);
    mp_finish(p);
    tl_overview ov;
    assert_true(tl_overview_build(p, NULL, 8, &ov));
    assert_int_equal(ov.nrows, 0);
    assert_int_equal(ov.ncalls, 0);
    tl_overview_free(&ov);
    profile_free(p);
}

/* 600 ranks, one call each at 0 .. 5990 (rank k at 10 k, ending 1 ns
 * later): 600 > 256 ranks, so at most 4096 / (600 / 256 + 1) = 4096 / 3
 * = 1365 bins; span 5991 ns: 5991 >> 3 = 748 < 1365, so shift 3, 749
 * bins; rank 599's call at 5990 -> bin 748. */
static void test_many_ranks(void **state)
{
    (void)state;
    profile *p = profile_new("mem");
    for (int k = 0; k < 600; k++) {
        int64_t s = 10 * k, e = s + 1;
        mp_region(profile_add_rank(p, k), "A", 1, &s, &e);
    }
    mp_finish(p);
    tl_overview ov;
    assert_true(tl_overview_build(p, NULL, TL_OV_BINS, &ov));
    assert_int_equal(ov.shift, 3);
    assert_int_equal(ov.nbins, 749);
    assert_int_equal(ov.nrows, 600);
    assert_int_equal(ov.rows[599].bins[748], 1);
    assert_int_equal(ov.rows[0].bins[0], 1);
    tl_overview_free(&ov);
    profile_free(p);
}

/* 66 threads (ids 0 .. 65, one call each at t = id): threads 0 .. 63 get
 * the 64 rows a rank has before the rest join its "other" row, which sorts
 * first (thread -1) and holds the calls of threads 64 and 65. */
static void test_thread_cap(void **state)
{
    (void)state;
    profile *p = profile_new("mem");
    int64_t s[66], e[66], t[66];
    for (int k = 0; k < 66; k++) {
        s[k] = k;
        e[k] = k;
        t[k] = k;
    }
    region *r = mp_region(profile_add_rank(p, 0), "A", 66, s, e);
    mp_col(&r->thread_ids, t, 66);
    mp_finish(p);
    tl_overview ov;
    assert_true(tl_overview_build(p, NULL, TL_OV_BINS, &ov));
    assert_int_equal(ov.nrows, 65);
    assert_int_equal(ov.rows[0].thread, -1);
    assert_int_equal(ov.rows[0].ncalls, 2);
    assert_int_equal(ov.rows[1].thread, 0);
    assert_int_equal(ov.rows[64].thread, 63);
    assert_int_equal(ov.rows[64].ncalls, 1);
    assert_int_equal(ov.ncalls, 66);
    tl_overview_free(&ov);
    profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bins_one_rank), cmocka_unit_test(test_wrong_hint),
        cmocka_unit_test(test_bins_threads),  cmocka_unit_test(test_lane_of_row),
        cmocka_unit_test(test_columns),       cmocka_unit_test(test_levels),
        cmocka_unit_test(test_empty),         cmocka_unit_test(test_many_ranks),
        cmocka_unit_test(test_thread_cap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
