/* Comparing two runs (diff.h): matching by name and path, new and gone
 * rows, summary-only rows untested, A/A flags nothing, a region made 20 %
 * slower flags exactly it and its ancestors.  Profiles are built in memory
 * (memprof.h) from a small seeded workload, or loaded from the shared data. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/diff.h"
#include "load/loader.h"
#include "memprof.h"
#include "testutil.h"

#define US 1000LL

/* A deterministic jitter source (xorshift), so runs are reproducible. */
static int64_t jitter(uint64_t *s, int64_t range)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (int64_t)(*s % (uint64_t)range);
}

/* main > step x steps > {solve, io} (and extra, when asked).  solve takes
 * 1 ms + jitter, scaled by slow_pct; io 200 us + jitter.  Nesting comes from
 * the times (no ids), as in a legacy file. */
typedef struct wl_opts {
    int steps;
    int slow_pct;
    uint64_t seed;
    bool extra;       /* a region "extra" under step (a new path) */
    bool summary_reg; /* a summary-only "allreduce" */
} wl_opts;

static profile *workload(const wl_opts *o)
{
    profile *p = profile_new(o->extra ? "new.h5" : "base.h5");
    rank_data *rk = profile_add_rank(p, 0);
    size_t n = (size_t)o->steps;
    int64_t *ss = malloc(n * sizeof *ss), *se = malloc(n * sizeof *se);
    int64_t *vs = malloc(n * sizeof *vs), *ve = malloc(n * sizeof *ve);
    int64_t *is = malloc(n * sizeof *is), *ie = malloc(n * sizeof *ie);
    int64_t *xs = malloc(n * sizeof *xs), *xe = malloc(n * sizeof *xe);
    uint64_t s = o->seed;
    int64_t t = 1000;
    for (size_t i = 0; i < n; i++) {
        ss[i] = t;
        vs[i] = t + 10 * US;
        int64_t solve = 1000 * US + jitter(&s, 300 * US);
        ve[i] = vs[i] + solve * (100 + o->slow_pct) / 100;
        is[i] = ve[i] + 5 * US;
        ie[i] = is[i] + 200 * US + jitter(&s, 50 * US);
        xs[i] = ie[i] + 5 * US;
        xe[i] = xs[i] + (o->extra ? 30 * US : 0);
        se[i] = (o->extra ? xe[i] : ie[i]) + 10 * US;
        t = se[i] + 20 * US;
    }
    int64_t ms = 0, me = t + 100;
    mp_region(rk, "main", 1, &ms, &me);
    mp_region(rk, "step", n, ss, se);
    mp_region(rk, "solve", n, vs, ve);
    mp_region(rk, "io/write", n, is, ie);
    if (o->extra)
        mp_region(rk, "extra", n, xs, xe);
    if (o->summary_reg) {
        region *r = rank_add_region(rk, "allreduce");
        r->has_stored_summary = true;
        r->stored.known = 1u << SUM_NUM_CALLS | 1u << SUM_TOTAL;
        r->stored.v[SUM_NUM_CALLS] = 40;
        r->stored.v[SUM_TOTAL] = o->slow_pct ? 9e6 : 4e6;
    }
    mp_finish(p);
    free(ss), free(se), free(vs), free(ve), free(is), free(ie), free(xs), free(xe);
    return p;
}

static diff_result *compare(profile *a, profile *b, const region_filter *f)
{
    diff_options o;
    diff_options_init(&o);
    diff_result *d = NULL;
    sv_error err;
    sv_error_clear(&err);
    if (diff_profiles(a, b, &o, f, &d, &err))
        fail_msg("diff_profiles: %s", err.msg);
    return d;
}

static const diff_row *region_row(const diff_result *d, const char *name)
{
    for (size_t i = 0; i < d->nregions; i++)
        if (strcmp(d->names[d->regions[i].name], name) == 0)
            return &d->regions[i];
    fail_msg("no region row %s", name);
    return NULL;
}

/* The path row for "a > b > c", or NULL. */
static const diff_row *path_row(const diff_result *d, const char *text)
{
    char buf[1024];
    for (size_t i = 1; i < d->npaths; i++)
        if (strcmp(diff_path_text(d, (uint32_t)i, buf, sizeof buf), text) == 0)
            return &d->paths[i];
    return NULL;
}

static size_t count_flags(const diff_result *d, bool paths)
{
    size_t n = 0;
    const diff_row *rows = paths ? d->paths : d->regions;
    size_t m = paths ? d->npaths : d->nregions;
    for (size_t i = 0; i < m; i++)
        n += rows[i].flag != 0;
    return n;
}

static void test_self_flags_nothing(void **state)
{
    (void)state;
    wl_opts o = {.steps = 60, .seed = 5, .summary_reg = true};
    profile *a = workload(&o);
    diff_result *d = compare(a, a, NULL);
    assert_int_equal(count_flags(d, false), 0);
    assert_int_equal(count_flags(d, true), 0);
    const diff_row *r = region_row(d, "solve");
    assert_true(r->tested);
    assert_float_equal(r->mwu.p, 1.0, 0);
    assert_float_equal(r->hl_ns, 0.0, 0);
    assert_int_equal(r->state, DS_BOTH);
    double v;
    assert_true(diff_row_delta(r, DV_TOTAL, &v));
    assert_float_equal(v, 0.0, 0);
    /* main, step, solve, io/write */
    assert_int_equal(d->npaths, 5);
    assert_non_null(path_row(d, "main > step > io/write"));
    diff_free(d);
    profile_free(a);
}

/* solve 20 % slower: solve and step (whose calls contain it) are flagged
 * slower; main has one call per run, which no test can call significant;
 * io/write is untouched (same jitter seed: identical durations, p = 1). */
static void test_slower_region(void **state)
{
    (void)state;
    wl_opts base = {.steps = 60, .seed = 5}, slow = {.steps = 60, .seed = 5, .slow_pct = 20};
    profile *a = workload(&base), *b = workload(&slow);
    diff_result *d = compare(a, b, NULL);
    const diff_row *solve = region_row(d, "solve"), *step = region_row(d, "step");
    assert_int_equal(solve->flag, 1);
    assert_int_equal(step->flag, 1);
    assert_int_equal(region_row(d, "main")->flag, 0);
    assert_int_equal(region_row(d, "io/write")->flag, 0);
    assert_float_equal(region_row(d, "io/write")->mwu.p, 1.0, 0);
    assert_int_equal(count_flags(d, false), 2);
    assert_true(solve->q < 1e-10);
    /* every solve call is 20 % longer: about 230 us (1150 us mean) */
    assert_true(solve->hl_ns > 180 * US && solve->hl_ns < 280 * US);
    assert_true(fabs(solve->rel - 0.20) < 0.005);
    assert_int_equal(path_row(d, "main > step > solve")->flag, 1);
    assert_int_equal(path_row(d, "main > step")->flag, 1);
    assert_int_equal(path_row(d, "main")->flag, 0);
    assert_int_equal(path_row(d, "main > step > io/write")->flag, 0);
    assert_int_equal(count_flags(d, true), 2);
    assert_int_equal(d->nflag[0][0], 2);
    assert_int_equal(d->nflag[1][0], 2);
    /* the other way round, the same rows are faster */
    diff_free(d);
    d = compare(b, a, NULL);
    assert_int_equal(region_row(d, "solve")->flag, -1);
    assert_int_equal(d->nflag[0][1], 2);
    diff_free(d);
    profile_free(a);
    profile_free(b);
}

/* New and gone rows; a region the filter leaves out hangs its children on
 * their kept ancestor on both sides. */
static void test_new_gone_filter(void **state)
{
    (void)state;
    wl_opts base = {.steps = 30, .seed = 9, .summary_reg = true};
    wl_opts next = {.steps = 30, .seed = 9, .extra = true};
    profile *a = workload(&base), *b = workload(&next);
    diff_result *d = compare(a, b, NULL);
    const diff_row *x = region_row(d, "extra");
    assert_int_equal(x->state, DS_NEW);
    assert_false(x->tested);
    assert_int_equal(x->flag, 0);
    assert_int_equal(path_row(d, "main > step > extra")->state, DS_NEW);
    double v;
    assert_true(diff_row_delta(path_row(d, "main > step > extra"), DV_TOTAL, &v));
    assert_float_equal(v, 30.0 * 30 * US, 0);
    const diff_row *g = region_row(d, "allreduce");
    assert_int_equal(g->state, DS_GONE);
    assert_false(g->tested);
    diff_free(d);

    region_filter f;
    filter_init(&f);
    sv_error err;
    assert_int_equal(filter_add_exclude(&f, "step", &err), SV_OK);
    d = compare(a, b, &f);
    assert_non_null(path_row(d, "main > solve"));
    assert_null(path_row(d, "main > step > solve"));
    assert_int_equal(path_row(d, "main > solve")->s[DIFF_NEW].calls, 30);
    diff_free(d);
    filter_free(&f);
    profile_free(a);
    profile_free(b);
}

/* A summary-only region on both sides: totals and counts, untested. */
static void test_summary_untested(void **state)
{
    (void)state;
    wl_opts base = {.steps = 20, .seed = 1, .summary_reg = true};
    wl_opts slow = {.steps = 20, .seed = 1, .summary_reg = true, .slow_pct = 50};
    profile *a = workload(&base), *b = workload(&slow);
    diff_result *d = compare(a, b, NULL);
    const diff_row *r = region_row(d, "allreduce");
    assert_int_equal(r->state, DS_BOTH);
    assert_false(r->tested);
    assert_int_equal(r->flag, 0);
    assert_int_equal(r->s[0].calls, 40);
    double v;
    assert_true(diff_row_delta(r, DV_TOTAL, &v));
    assert_float_equal(v, 5e6, 0);
    assert_true(diff_row_rel(r, DV_TOTAL, &v));
    assert_float_equal(v, 1.25, 1e-12);
    assert_false(diff_side_value(r, DIFF_BASE, DV_P50, &v));
    diff_free(d);
    profile_free(a);
    profile_free(b);
}

static profile *load(const char *rel)
{
    char path[4096];
    sv_shared_path(path, sizeof path, rel);
    profile *p = NULL;
    sv_error err;
    sv_error_clear(&err);
    if (profile_load(path, NULL, &p, &err))
        fail_msg("load %s: %s", path, err.msg);
    return p;
}

/* A/A on every shared profile: nothing flagged, every row on both sides. */
static void test_shared_aa(void **state)
{
    (void)state;
    if (!sv_shared_available())
        skip();
    static const char *const files[] = {
        "data/real/recursive.h5",
        "data/real/solver.h5",
        "data/real/solver_mpi4.h5",
        "data/real/solver_threads_small.h5",
        "data/extended/async_server.h5",
        "data/extended/gpu_train.h5",
        "data/extended/recursion.h5",
        "data/upstream/hdf5-schema-1.h5",
        "data/upstream/hdf5-schema-2.h5",
        "data/upstream/hdf5-schema-3.h5",
        "data/upstream/sp2-basic.h5",
        "data/upstream/sp3-aggregate.h5",
        "data/upstream/sp3-basic.h5",
        "data/upstream/sp3-gpu.h5",
        "data/upstream/sp3-parallel-fixedstr.h5",
        "data/upstream/sp3-threads-async.h5",
        "data/upstream/sp2-c-api_rank00000.h5",
    };
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        profile *a = load(files[i]), *b = load(files[i]);
        diff_result *d = compare(a, b, NULL);
        if (count_flags(d, false) || count_flags(d, true))
            fail_msg("%s compared with itself flags %zu regions, %zu paths", files[i],
                     count_flags(d, false), count_flags(d, true));
        for (size_t k = 0; k < d->nregions; k++)
            assert_int_equal(d->regions[k].state, DS_BOTH);
        for (size_t k = 1; k < d->npaths; k++) {
            assert_int_equal(d->paths[k].state, DS_BOTH);
            if (d->paths[k].tested)
                assert_float_equal(d->paths[k].mwu.p, 1.0, 0);
        }
        diff_free(d);
        profile_free(a);
        profile_free(b);
    }
}

/* The same run in schema 1 (legacy groups) and schema 3 (columnar,
 * gap-encoded): every region and path matches, nothing changed. */
static void test_legacy_vs_schema3(void **state)
{
    (void)state;
    if (!sv_shared_available())
        skip();
    static const char *const pairs[][2] = {
        {"data/upstream/hdf5-schema-1.h5", "data/upstream/hdf5-schema-3.h5"},
        {"data/upstream/sp2-basic.h5", "data/upstream/sp3-basic.h5"},
    };
    for (size_t i = 0; i < 2; i++) {
        profile *a = load(pairs[i][0]), *b = load(pairs[i][1]);
        if (b->nregions == 0) {
            /* a loader without the columnar layouts yet reads no region */
            profile_free(a);
            profile_free(b);
            skip();
        }
        diff_result *d = compare(a, b, NULL);
        assert_true(d->nregions > 0);
        for (size_t k = 0; k < d->nregions; k++) {
            assert_int_equal(d->regions[k].state, DS_BOTH);
            double v;
            if (diff_row_delta(&d->regions[k], DV_TOTAL, &v))
                assert_float_equal(v, 0.0, 0);
        }
        for (size_t k = 1; k < d->npaths; k++)
            assert_int_equal(d->paths[k].state, DS_BOTH);
        assert_int_equal(count_flags(d, false) + count_flags(d, true), 0);
        diff_free(d);
        profile_free(a);
        profile_free(b);
    }
}

/* The batch way (parents computed for the walk alone) gives the same rows
 * as the views' way (the full nesting), call path by call path. */
static void test_batch_nesting_same(void **state)
{
    (void)state;
    wl_opts base = {.steps = 40, .seed = 3},
            slow = {.steps = 40, .seed = 4, .slow_pct = 20, .extra = true};
    profile *a = workload(&base), *b = workload(&slow);
    profile *a2 = workload(&base), *b2 = workload(&slow);
    diff_options o;
    diff_options_init(&o);
    diff_result *d1 = NULL, *d2 = NULL;
    sv_error err;
    assert_int_equal(diff_profiles(a, b, &o, NULL, &d1, &err), SV_OK);
    o.release_calls = true;
    assert_int_equal(diff_profiles(a2, b2, &o, NULL, &d2, &err), SV_OK);
    assert_null(a2->ranks[0].calls);
    assert_int_equal(d1->npaths, d2->npaths);
    char t1[512], t2[512];
    for (size_t i = 1; i < d1->npaths; i++) {
        assert_string_equal(diff_path_text(d1, (uint32_t)i, t1, sizeof t1),
                            diff_path_text(d2, (uint32_t)i, t2, sizeof t2));
        for (int sd = 0; sd < 2; sd++) {
            assert_int_equal(d1->paths[i].s[sd].calls, d2->paths[i].s[sd].calls);
            assert_float_equal(d1->paths[i].s[sd].v[DV_EXCL], d2->paths[i].s[sd].v[DV_EXCL], 0);
        }
        assert_int_equal(d1->paths[i].flag, d2->paths[i].flag);
    }
    diff_free(d1);
    diff_free(d2);
    profile_free(a);
    profile_free(b);
    profile_free(a2);
    profile_free(b2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_self_flags_nothing), cmocka_unit_test(test_slower_region),
        cmocka_unit_test(test_new_gone_filter),    cmocka_unit_test(test_summary_untested),
        cmocka_unit_test(test_shared_aa),          cmocka_unit_test(test_legacy_vs_schema3),
        cmocka_unit_test(test_batch_nesting_same),
    };
    return sv_shared_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
