/* The lanes view's rank rows (lanestats_rank): figures that hold for the
 * rank as a whole.  Every expectation is worked out by hand in the
 * comments, never taken from the code. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/lanestats.h"
#include "model/region.h"
#include "memprof.h"

/* pool.h5 of tests/gen/FIXTURES.md in microseconds: main [5000, 9000) on
 * thread 0; compress twice 1500 us on each of threads 1..3:
 * [100,1600) [3100,4600), [200,1700) [3200,4700), [300,1800) [3300,4800).
 * Span 100 .. 9000 = 8900.  Busy per lane 4000 and 3 x 3000 = 13000 in all.
 * The lanes together cover [100,1800) u [3100,4800) u [5000,9000) = 7400,
 * so the rank is idle 1500 (the lanes' idle times sum to 4900 + 3 x 5900 =
 * 22600, more than the span).  Exclusive time: main 4000 on one lane,
 * compress 3000 on each of three, 9000 over the rank: the busiest. */
static profile *pool(void)
{
    profile *p = profile_new("mem");
    rank_data *rk = profile_add_rank(p, 0);
    int64_t ms = 5000, me = 9000, mt = 0;
    region *m = mp_region(rk, "main", 1, &ms, &me);
    mp_col(&m->thread_ids, &mt, 1);
    int64_t cs[] = {100, 3100, 200, 3200, 300, 3300};
    int64_t ce[] = {1600, 4600, 1700, 4700, 1800, 4800};
    int64_t ct[] = {1, 1, 2, 2, 3, 3};
    region *c = mp_region(rk, "compress", 6, cs, ce);
    mp_col(&c->thread_ids, ct, 6);
    mp_finish(p);
    return p;
}

static void test_rank_row(void **state)
{
    (void)state;
    profile *p = pool();
    lanes_index *ix = NULL;
    lanestats *ls = NULL;
    sv_error err;
    sv_error_clear(&err);
    assert_int_equal(lanes_build(p, NULL, &ix, &err), SV_OK);
    assert_int_equal(lanestats_build(ix, &ls, &err), SV_OK);
    assert_int_equal(ix->nlanes, 4);
    int64_t idle_sum = 0;
    for (size_t l = 0; l < ls->n; l++)
        idle_sum += ls->st[l].idle;
    assert_int_equal(idle_sum, 22600); /* what the rank row used to say */
    lane_stat t;
    assert_int_equal(lanestats_rank(ls, 0, &t, &err), SV_OK);
    assert_int_equal(t.busy, 13000);
    assert_int_equal(t.idle, 1500);
    assert_int_equal(t.calls, 7);
    assert_int_equal(t.first, 100);
    assert_int_equal(t.last, 9000);
    assert_non_null(t.busiest);
    assert_string_equal(t.busiest->name, "compress");
    assert_int_equal(t.busiest_excl, 9000);
    assert_int_equal(t.lane, SIZE_MAX);
    lanestats_free(ls);
    lanes_free(ix);
    profile_free(p);
}

/* A rank whose two lanes take turns without a gap is never idle, though
 * each lane alone is idle part of the span. */
static void test_rank_idle_edges(void **state)
{
    (void)state;
    profile *p = profile_new("mem");
    rank_data *rk = profile_add_rank(p, 0);
    int64_t s[] = {0, 10}, e[] = {10, 30}, t[] = {0, 1};
    region *r = mp_region(rk, "a", 2, s, e);
    mp_col(&r->thread_ids, t, 2);
    mp_finish(p);
    lanes_index *ix = NULL;
    lanestats *ls = NULL;
    sv_error err;
    sv_error_clear(&err);
    assert_int_equal(lanes_build(p, NULL, &ix, &err), SV_OK);
    assert_int_equal(lanestats_build(ix, &ls, &err), SV_OK);
    lane_stat st;
    assert_int_equal(lanestats_rank(ls, 0, &st, &err), SV_OK);
    assert_int_equal(st.busy, 30);
    assert_int_equal(st.idle, 0); /* [0,10) then [10,30) on the other lane */
    assert_int_equal(st.busiest_excl, 30);
    lanestats_free(ls);
    lanes_free(ix);
    profile_free(p);
}

/* pool() with a summary-only region "allreduce" (no calls), which sorts
 * before "compress" and starts its calls' numbering where compress does:
 * the busiest region is still compress, 9000 us over the rank (main 4000). */
static void test_rank_busiest_after_summary_only(void **state)
{
    (void)state;
    profile *p = profile_new("mem");
    rank_data *rk = profile_add_rank(p, 0);
    region *ar = rank_add_region(rk, "allreduce");
    assert_non_null(ar);
    ar->has_event_data = false;
    int64_t ms = 5000, me = 9000, mt = 0;
    region *m = mp_region(rk, "main", 1, &ms, &me);
    mp_col(&m->thread_ids, &mt, 1);
    int64_t cs[] = {100, 3100, 200, 3200, 300, 3300};
    int64_t ce[] = {1600, 4600, 1700, 4700, 1800, 4800};
    int64_t ct[] = {1, 1, 2, 2, 3, 3};
    region *c = mp_region(rk, "compress", 6, cs, ce);
    mp_col(&c->thread_ids, ct, 6);
    mp_finish(p);
    lanes_index *ix = NULL;
    lanestats *ls = NULL;
    sv_error err;
    sv_error_clear(&err);
    assert_int_equal(lanes_build(p, NULL, &ix, &err), SV_OK);
    assert_int_equal(lanestats_build(ix, &ls, &err), SV_OK);
    lane_stat t;
    assert_int_equal(lanestats_rank(ls, 0, &t, &err), SV_OK);
    assert_non_null(t.busiest);
    assert_string_equal(t.busiest->name, "compress");
    assert_int_equal(t.busiest_excl, 9000);
    lanestats_free(ls);
    lanes_free(ix);
    profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rank_row),
        cmocka_unit_test(test_rank_idle_edges),
        cmocka_unit_test(test_rank_busiest_after_summary_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
