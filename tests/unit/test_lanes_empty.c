/* Lanes without calls (lanes_empty.c): the out-of-core viewer's rows.
 * The expected lanes, depths and rank ranges are written by hand from the
 * profiles built here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/lanes.h"
#include "memprof.h"
#include "testutil.h"

/* Ranks 0, 1 and 2, each one region.  Rank 1 has threads (rows 0 and 1):
 *   rank 0: a [0,100] (one lane, LANE_RANK, depth 1)
 *   rank 1: t [0,50] thread 1 (lane thread 1, depth 1)
 *   rank 2: b [10,20] (one lane, depth 1) */
static profile *three_ranks_ex(size_t rank1_calls)
{
    profile *p = profile_new("mem");
    int64_t s0[] = {0}, e0[] = {100};
    mp_region(profile_add_rank(p, 0), "a", 1, s0, e0);
    rank_data *r1 = profile_add_rank(p, 1);
    static const char *const names[] = {"MainThread", "Worker"};
    r1->has_threads = true;
    r1->threads.n = 2;
    r1->threads.name = calloc(2, sizeof *r1->threads.name);
    assert_non_null(r1->threads.name);
    for (int k = 0; k < 2; k++)
        r1->threads.name[k] = strdup(names[k]);
    int64_t s1[] = {0}, e1[] = {50}, th[] = {1};
    region *t = mp_region(r1, "t", rank1_calls, s1, e1);
    if (rank1_calls)
        mp_col(&t->thread_ids, th, 1);
    int64_t s2[] = {10}, e2[] = {20};
    mp_region(profile_add_rank(p, 2), "b", 1, s2, e2);
    mp_finish(p);
    return p;
}

static profile *three_ranks(void)
{
    return three_ranks_ex(1);
}

static lanes_index *built(profile *p)
{
    lanes_index *ix = NULL;
    sv_error err;
    sv_error_clear(&err);
    if (lanes_build(p, NULL, &ix, &err) != SV_OK)
        fail_msg("lanes_build: %s", err.msg);
    return ix;
}

static void check_lane(const lanes_index *ix, size_t l, const rank_data *rk, lane_kind kind,
                       int64_t row, uint32_t ndepth, size_t ncalls)
{
    const lane *ln = &ix->lanes[l];
    if (ln->rk != rk || ln->kind != kind || ln->row != row || ln->ndepth != ndepth)
        fail_msg("lane %zu: rank %d kind %d row %lld depths %u; want rank %d kind %d row %lld "
                 "depths %u",
                 l, ln->rk->rank, (int)ln->kind, (long long)ln->row, ln->ndepth, rk->rank,
                 (int)kind, (long long)row, ndepth);
    size_t n = 0;
    for (uint32_t d = 0; d < ln->ndepth; d++)
        n += ln->rows[d].n;
    if (n != ncalls)
        fail_msg("lane %zu holds %zu calls in its rows, want %zu", l, n, ncalls);
}

/* Queries on an empty row answer "nothing" without reading arrays. */
static void check_empty_row(const lane *ln, uint32_t d)
{
    size_t first = 7;
    assert_int_equal(lane_row_count(ln, &ln->rows[d], INT64_MIN, INT64_MAX, 8, &first), 0);
    assert_int_equal(first, 0);
    assert_int_equal(lane_row_lower_start(ln, &ln->rows[d], 5), 0);
    assert_int_equal(lane_row_first_visible(ln, &ln->rows[d], 5), 0);
}

static void test_build_empty(void **state)
{
    (void)state;
    profile *p = three_ranks();
    /* Rank index 1 with a task lane the profile never had: the spec rules. */
    lanes_spec spec[] = {{0, LANE_RANK, -1, 3}, {1, LANE_THREAD, 1, 2}, {1, LANE_TASK, 4, 1}};
    lanes_index *ix = NULL;
    sv_error err;
    sv_error_clear(&err);
    assert_int_equal(lanes_build_empty(p, spec, 3, &ix, &err), SV_OK);
    assert_int_equal(ix->nlanes, 3);
    check_lane(ix, 0, &p->ranks[0], LANE_RANK, -1, 3, 0);
    check_lane(ix, 1, &p->ranks[1], LANE_THREAD, 1, 2, 0);
    check_lane(ix, 2, &p->ranks[1], LANE_TASK, 4, 1, 0);
    /* rank 0: lane 0; rank 1: lanes 1, 2; rank 2: none */
    size_t want0[] = {0, 1, 3, 3};
    for (size_t r = 0; r < 4; r++)
        if (ix->rank_lane0[r] != want0[r])
            fail_msg("rank_lane0[%zu] = %zu, want %zu", r, ix->rank_lane0[r], want0[r]);
    assert_int_equal(ix->ncalls, 0);
    assert_int_equal(lanes_find_lane(ix, 1, LANE_TASK, 4), 2);
    assert_int_equal(lanes_find_lane(ix, 2, LANE_RANK, -1), SIZE_MAX);
    for (uint32_t d = 0; d < 3; d++)
        check_empty_row(&ix->lanes[0], d);
    size_t l, pos;
    uint32_t dd;
    assert_false(lanes_locate(ix, 0, 0, &l, &dd, &pos)); /* no call is indexed */
    lanes_free(ix);
    profile_free(p);
}

static void test_build_empty_order(void **state)
{
    (void)state;
    profile *p = three_ranks();
    lanes_spec bad[] = {{1, LANE_THREAD, 1, 1}, {0, LANE_RANK, -1, 1}};
    lanes_spec dup[] = {{1, LANE_THREAD, 1, 1}, {1, LANE_THREAD, 1, 1}};
    lanes_spec far[] = {{3, LANE_RANK, -1, 1}};
    lanes_index *ix = (lanes_index *)1;
    sv_error err;
    assert_int_equal(lanes_build_empty(p, bad, 2, &ix, &err), SV_ERR_RANGE);
    assert_null(ix);
    assert_int_equal(lanes_build_empty(p, dup, 2, &ix, &err), SV_ERR_RANGE);
    assert_int_equal(lanes_build_empty(p, far, 1, &ix, &err), SV_ERR_RANGE);
    profile_free(p);
}

/* A window's index (ranks 0 and 2 have calls; rank 1's calls are "outside
 * the window": its region is emptied before the build) completed with the
 * whole profile's lanes: rank 0 deeper, rank 1's thread lane added empty,
 * rank 2 kept as it is, with its calls. */
static void test_add_empty(void **state)
{
    (void)state;
    profile *p = three_ranks_ex(0); /* a window without rank 1's call */
    lanes_index *ix = built(p);
    assert_int_equal(ix->nlanes, 2);
    lanes_spec spec[] = {{0, LANE_RANK, -1, 4}, {1, LANE_THREAD, 0, 1}, {1, LANE_THREAD, 1, 2}};
    sv_error err;
    sv_error_clear(&err);
    assert_int_equal(lanes_add_empty(ix, spec, 3, &err), SV_OK);
    assert_int_equal(ix->nlanes, 4);
    check_lane(ix, 0, &p->ranks[0], LANE_RANK, -1, 4, 1);
    check_lane(ix, 1, &p->ranks[1], LANE_THREAD, 0, 1, 0);
    check_lane(ix, 2, &p->ranks[1], LANE_THREAD, 1, 2, 0);
    check_lane(ix, 3, &p->ranks[2], LANE_RANK, -1, 1, 1); /* not in spec: kept */
    size_t want0[] = {0, 1, 3, 4};
    for (size_t r = 0; r < 4; r++)
        if (ix->rank_lane0[r] != want0[r])
            fail_msg("rank_lane0[%zu] = %zu, want %zu", r, ix->rank_lane0[r], want0[r]);
    for (uint32_t d = 1; d < 4; d++)
        check_empty_row(&ix->lanes[0], d);
    /* The calls are found where they were: a at depth 0 of lane 0, b on lane 3. */
    size_t l, pos;
    uint32_t d;
    assert_true(lanes_locate(ix, 0, 0, &l, &d, &pos));
    assert_int_equal(l, 0);
    assert_int_equal(d, 0);
    assert_true(lanes_locate(ix, 2, 0, &l, &d, &pos));
    assert_int_equal(l, 3);
    size_t first;
    assert_int_equal(lane_row_count(&ix->lanes[0], &ix->lanes[0].rows[0], 50, 60, 8, &first), 1);
    /* Out of order: refused, the index unchanged. */
    lanes_spec bad[] = {{2, LANE_RANK, -1, 1}, {0, LANE_RANK, -1, 9}};
    assert_int_equal(lanes_add_empty(ix, bad, 2, &err), SV_ERR_RANGE);
    assert_int_equal(ix->nlanes, 4);
    assert_int_equal(ix->lanes[0].ndepth, 4);
    lanes_free(ix);
    profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_build_empty),
        cmocka_unit_test(test_build_empty_order),
        cmocka_unit_test(test_add_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
