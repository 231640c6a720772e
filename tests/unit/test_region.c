/* The Region API mirror: properties, per-call arrays, for_thread, events,
 * summary-only regions.  Values worked out by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "memprof.h"
#include "model/region.h"

/* Two threads: thread 0 calls [0,10] [20,50] (await 0, 5), thread 1 [5,25]. */
static profile *two_threads(void)
{
    profile *p = profile_new("mem");
    rank_data *rk = profile_add_rank(p, 0);
    int64_t s[] = {0, 5, 20}, e[] = {10, 25, 50}, t[] = {0, 1, 0}, aw[] = {0, 0, 5};
    int64_t gpu[] = {4, -1, 6};
    region *r = mp_region(rk, "work", 3, s, e);
    mp_col(&r->thread_ids, t, 3);
    mp_col(&r->await_ns, aw, 3);
    mp_col(&r->gpu_ns, gpu, 3);
    region *so = rank_add_region(rk, "sumonly");
    so->has_stored_summary = true;
    so->stored.known = (1u << SUM_NUM_CALLS) | (1u << SUM_TOTAL);
    so->stored.v[SUM_NUM_CALLS] = 4;
    so->stored.v[SUM_TOTAL] = 4000;
    mp_finish(p);
    return p;
}

static void test_properties(void **state)
{
    (void)state;
    profile *p = two_threads();
    region *r = rank_region(&p->ranks[0], "work");
    assert_true(region_has_thread_data(r));
    assert_true(region_has_timing(r));
    assert_false(region_has_source(r));
    double x;
    assert_true(region_gpu_total_duration(r, &x));
    assert_float_equal(x, 10e-9, 1e-20); /* -1 ignored */
    assert_true(region_gpu_average_duration(r, &x));
    assert_float_equal(x, 5e-9, 1e-20);
    assert_true(region_total_await_duration(r, &x));
    assert_float_equal(x, 5e-9, 1e-20);
    int64_t *rows;
    size_t n;
    assert_int_equal(region_threads(r, &rows, &n, NULL), SV_OK);
    assert_int_equal(n, 2);
    assert_int_equal(rows[0], 0);
    assert_int_equal(rows[1], 1);
    free(rows);
    int64_t *d;
    assert_int_equal(region_durations_ns(r, &d, NULL), SV_OK);
    assert_int_equal(d[0], 10);
    assert_int_equal(d[1], 20);
    assert_int_equal(d[2], 30);
    free(d);
    sv_error err;
    assert_int_equal(region_percentile_duration(r, 101, &x, &err), SV_ERR_RANGE);
    assert_int_equal(region_percentile_duration(r, -0.5, &x, &err), SV_ERR_RANGE);
    assert_int_equal(region_percentile_duration(r, 50, &x, &err), SV_OK);
    assert_float_equal(x, 20e-9, 1e-20);
    profile_free(p);
}

static void test_for_thread(void **state)
{
    (void)state;
    profile *p = two_threads();
    region *r = rank_region(&p->ranks[0], "work"), *t0;
    assert_int_equal(region_for_thread(r, 0, &t0, NULL), SV_OK);
    assert_int_equal(region_num_calls(t0), 2);
    assert_float_equal(region_total_duration(t0), 40e-9, 1e-20);
    assert_float_equal(region_first_start_time(t0), 0.0, 0);
    double x;
    assert_true(region_gpu_total_duration(t0, &x));
    assert_float_equal(x, 10e-9, 1e-20);
    /* exclusive: nothing nests (different lanes / disjoint) */
    assert_float_equal(region_total_exclusive_duration(t0), 40e-9, 1e-20);
    region_free(t0);
    region *none;
    assert_int_equal(region_for_thread(r, 9, &none, NULL), SV_OK);
    assert_int_equal(region_num_calls(none), 0);
    assert_float_equal(region_average_duration(none), 0.0, 0);
    region_free(none);
    profile_free(p);
}

static void test_for_thread_without_column(void **state)
{
    (void)state;
    profile *p = profile_new("mem");
    int64_t s[] = {0}, e[] = {1};
    mp_region(profile_add_rank(p, 0), "legacy", 1, s, e);
    mp_finish(p);
    region *out;
    sv_error err;
    assert_int_equal(region_for_thread(p->regions[0], 0, &out, &err), SV_ERR_NO_THREADS);
    assert_null(out);
    assert_non_null(strstr(err.msg, "legacy"));
    profile_free(p);
}

static void test_events_origin(void **state)
{
    (void)state;
    profile *p = two_threads();
    region *r = rank_region(&p->ranks[0], "work");
    region_event *ev;
    size_t n;
    assert_int_equal(region_events(r, 5e-9, &ev, &n, NULL), SV_OK);
    assert_int_equal(n, 3);
    assert_int_equal(ev[2].call_index, 2);
    assert_float_equal(ev[2].start, 15e-9, 1e-20);
    assert_float_equal(ev[2].end, 45e-9, 1e-20);
    assert_float_equal(ev[2].duration, 30e-9, 1e-20);
    free(ev);
    profile_free(p);
}

static void test_summary_only(void **state)
{
    (void)state;
    profile *p = two_threads();
    region *r = rank_region(&p->ranks[0], "sumonly");
    assert_false(r->has_event_data);
    assert_int_equal(region_num_calls(r), 4);
    assert_float_equal(region_total_duration(r), 4000e-9, 1e-20);
    double x;
    assert_true(region_stat(r, RSTAT_MEAN, &x)); /* derived total / calls */
    assert_float_equal(x, 1000e-9, 1e-20);
    assert_false(region_stat(r, RSTAT_P95, &x));
    assert_false(region_stat(r, RSTAT_FIRST_START, &x));
    sv_error err;
    int64_t *d;
    assert_int_equal(region_durations_ns(r, &d, &err), SV_ERR_NO_EVENT_DATA);
    assert_non_null(strstr(err.msg, "sumonly"));
    region_event *ev;
    size_t n;
    assert_int_equal(region_events(r, 0, &ev, &n, &err), SV_ERR_NO_EVENT_DATA);
    assert_int_equal(region_percentile_duration(r, 50, &x, &err), SV_ERR_NO_EVENT_DATA);
    assert_non_null(region_stored_summary(r));
    /* summary-only regions are not a start time */
    assert_int_equal(p->min_start_ns, 0);
    profile_free(p);
}

static void test_empty_region(void **state)
{
    (void)state;
    profile *p = profile_new("mem");
    mp_region(profile_add_rank(p, 0), "empty", 0, NULL, NULL);
    mp_finish(p);
    region *r = p->regions[0];
    assert_true(r->has_event_data);
    assert_false(region_has_timing(r));
    assert_float_equal(region_total_duration(r), 0.0, 0);
    assert_float_equal(region_std_duration(r), 0.0, 0);
    double x = -1;
    assert_int_equal(region_percentile_duration(r, 50, &x, NULL), SV_OK);
    assert_float_equal(x, 0.0, 0);
    region_summary_dict d;
    assert_int_equal(region_get_summary(r, &d, NULL), SV_OK);
    assert_int_equal(d.num_calls, 0);
    assert_false(p->has_min_start);
    profile_free(p);
}

static void test_exclusive_per_call(void **state)
{
    (void)state;
    profile *p = profile_new("mem");
    rank_data *rk = profile_add_rank(p, 0);
    int64_t os[] = {0}, oe[] = {100}, is[] = {10, 50}, ie[] = {20, 80};
    mp_region(rk, "outer", 1, os, oe);
    mp_region(rk, "inner", 2, is, ie);
    mp_finish(p);
    int64_t *x;
    region *outer = rank_region(rk, "outer");
    assert_int_equal(region_exclusive_durations_ns(outer, &x, NULL), SV_OK);
    assert_int_equal(x[0], 60);
    free(x);
    double *xs;
    assert_int_equal(region_exclusive_durations(rank_region(rk, "inner"), &xs, NULL), SV_OK);
    assert_float_equal(xs[1], 30e-9, 1e-20);
    free(xs);
    profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_properties),
        cmocka_unit_test(test_for_thread),
        cmocka_unit_test(test_for_thread_without_column),
        cmocka_unit_test(test_events_origin),
        cmocka_unit_test(test_summary_only),
        cmocka_unit_test(test_empty_region),
        cmocka_unit_test(test_exclusive_per_call),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
