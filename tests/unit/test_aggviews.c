/* The aggregate views' model (imbalance.h, series.h, butterfly.h and the
 * regions' imbalance in merged.h) on agg4.h5 (tests/gen/FIXTURES.md),
 * every expected figure worked out here from the fixture's raw calls. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "load/loader.h"
#include "memprof.h"
#include "model/butterfly.h"
#include "model/imbalance.h"
#include "model/merged.h"
#include "model/series.h"
#include "testutil.h"

/* The fixture's raw durations (FIXTURES.md), from which the test computes. */
static const double work_len[4] = {1000, 1200, 800, 1000}; /* two calls each */
static const double io_len[3] = {300, 300, 1000};          /* rank 3: none */

static profile *load_agg4(void)
{
    char path[4096];
    sv_fixture_path(path, sizeof path, "agg4.h5");
    profile *p = NULL;
    sv_error err;
    sv_error_clear(&err);
    if (profile_load(path, NULL, &p, &err))
        fail_msg("load %s: %s", path, err.msg);
    return p;
}

/* max / mean - 1 and max - mean over the n totals, computed here. */
static void upstream_imbalance(const double *t, size_t n, double *imb, double *excess)
{
    double sum = 0, hi = t[0];
    for (size_t i = 0; i < n; i++) {
        sum += t[i];
        hi = t[i] > hi ? t[i] : hi;
    }
    double mean = sum / (double)n;
    *imb = hi / mean - 1;
    *excess = hi - mean;
}

static const imb_row *find_row(const imb_row *rows, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(rows[i].name, name) == 0)
            return &rows[i];
    fail_msg("no imbalance row %s", name);
    return NULL;
}

static void test_imbalance_rows(void **state)
{
    (void)state;
    profile *p = load_agg4();
    imb_row *rows;
    size_t n;
    assert_int_equal(imb_build(p, NULL, &rows, &n, NULL), SV_OK);
    assert_int_equal(n, 6);

    double wt[4], imb, exc;
    for (int r = 0; r < 4; r++)
        wt[r] = 2 * work_len[r];
    upstream_imbalance(wt, 4, &imb, &exc);
    const imb_row *w = find_row(rows, n, "work");
    assert_true(w->known);
    assert_int_equal(w->f.nran, 4);
    assert_float_equal(w->f.imbalance, imb, 1e-12);
    assert_float_equal(w->f.excess, exc, 1e-9);
    assert_int_equal(w->straggler, 1);

    /* io: rank 3 did not run it and stays out of the mean */
    upstream_imbalance(io_len, 3, &imb, &exc);
    const imb_row *io = find_row(rows, n, "io");
    assert_true(io->known);
    assert_int_equal(io->nranks, 4);
    assert_int_equal(io->f.nran, 3);
    assert_float_equal(io->f.imbalance, imb, 1e-12);
    assert_float_equal(io->f.excess, exc, 1e-9);
    assert_float_equal(io->f.mean, (300.0 + 300 + 1000) / 3, 1e-9);
    assert_int_equal(io->straggler, 2);
    assert_int_equal(io->ranks[3].rank, 3);
    assert_false(io->ranks[3].ran);
    assert_null(io->ranks[3].r);
    assert_true(io->ranks[2].ran);
    assert_float_equal(io->ranks[2].total, 1000, 0);

    /* sorted by excess: io, work, then the even ones by name */
    assert_string_equal(rows[0].name, "io");
    assert_string_equal(rows[1].name, "work");
    assert_string_equal(rows[2].name, "kernel");
    assert_string_equal(rows[5].name, "step");
    const imb_row *st = find_row(rows, n, "step");
    assert_int_equal(st->f.nran, 1);
    assert_float_equal(st->f.imbalance, 0, 0);
    imb_free(rows, n);

    /* --ranks 2,3: io ran on rank 2 alone */
    region_filter f;
    filter_init(&f);
    assert_int_equal(filter_set_ranks(&f, "2,3", NULL), SV_OK);
    assert_int_equal(imb_build(p, &f, &rows, &n, NULL), SV_OK);
    io = find_row(rows, n, "io");
    assert_int_equal(io->nranks, 2);
    assert_int_equal(io->f.nran, 1);
    assert_float_equal(io->f.imbalance, 0, 0);
    assert_int_equal(io->straggler, 2);
    imb_free(rows, n);
    filter_free(&f);
    profile_free(p);
}

/* The regions table's column uses the same definition and lists rank 3. */
static void test_merged_imbalance(void **state)
{
    (void)state;
    profile *p = load_agg4();
    merged_region *m;
    size_t n;
    assert_int_equal(merged_regions_build(p, NULL, &m, &n, NULL), SV_OK);
    double imb, exc;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(m[i].name, "io") == 0) {
            upstream_imbalance(io_len, 3, &imb, &exc);
            assert_true(m[i].known & (1u << MS_IMBALANCE));
            assert_float_equal(m[i].v[MS_IMBALANCE], imb, 1e-12);
            assert_int_equal(m[i].nabsent, 1);
            assert_int_equal(m[i].absent[0], 3);
            assert_int_equal(m[i].nnot_run, 1);
            assert_int_equal(m[i].slowest_rank, 2);
        } else if (strcmp(m[i].name, "step") == 0) {
            assert_float_equal(m[i].v[MS_IMBALANCE], 0, 0);
            assert_int_equal(m[i].nabsent, 3);
            assert_int_equal(m[i].absent[2], 3);
        } else if (strcmp(m[i].name, "work") == 0) {
            double wt[4];
            for (int r = 0; r < 4; r++)
                wt[r] = 2 * work_len[r];
            upstream_imbalance(wt, 4, &imb, &exc);
            assert_float_equal(m[i].v[MS_IMBALANCE], imb, 1e-12);
            assert_int_equal(m[i].nabsent, 0);
        }
    }
    merged_regions_free(m, n);
    profile_free(p);
}

/* The pure figures: a rank that did not run is not a zero. */
static void test_imbalance_figures(void **state)
{
    (void)state;
    const double t[4] = {4, 0, 2, 6};
    const bool ran[4] = {true, false, true, true};
    imb_figures f;
    assert_true(imb_figures_of(t, ran, 4, &f));
    assert_int_equal(f.nran, 3);
    assert_float_equal(f.mean, 4, 0);
    assert_float_equal(f.imbalance, 0.5, 1e-15);
    assert_float_equal(f.excess, 2, 0);
    assert_int_equal(f.argmax, 3);
    const bool none[4] = {false, false, false, false};
    assert_false(imb_figures_of(t, none, 4, &f));
}

/* linear-interpolated percentile of sorted v (numpy's default) */
static double pct_sorted(const double *v, size_t n, double q)
{
    double pos = q / 100 * (double)(n - 1);
    size_t lo = (size_t)pos;
    return lo + 1 < n ? v[lo] + (pos - (double)lo) * (v[lo + 1] - v[lo]) : v[lo];
}

static int dbl_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void test_series_step(void **state)
{
    (void)state;
    profile *p = load_agg4();
    double x[20], y[20], sorted[20];
    for (int i = 0; i < 20; i++) {
        x[i] = 6000 + 200 * i;
        y[i] = i == 0 ? 150 : 50 + i;
        sorted[i] = y[i];
    }
    qsort(sorted, 20, sizeof *sorted, dbl_cmp);
    series *s = NULL;
    sv_error err;
    assert_int_equal(series_build(p, NULL, "step", -1, &s, &err), SV_OK);
    assert_int_equal(s->n, 20);
    assert_int_equal(s->calls[0].dur, 150);
    assert_int_equal(s->calls[19].start, 6000 + 200 * 19);
    assert_float_equal(s->p50, pct_sorted(sorted, 20, 50), 1e-9);
    assert_float_equal(s->p95, pct_sorted(sorted, 20, 95), 1e-9);
    assert_float_equal(s->p99, pct_sorted(sorted, 20, 99), 1e-9);
    assert_int_equal(s->outliers, 1); /* the 150 */
    /* warm-up: 150 against the median of 51..69 */
    assert_true(s->has_warmup);
    assert_float_equal(s->warmup_rest, sorted[9], 0); /* rest sorted: sorted[0..18] */
    assert_float_equal(s->warmup_ratio, 150.0 / 60.0, 1e-12);
    /* drift: least squares over (x, y) of the calls after the first, read at 5% and 95% of
     * their span */
    double mx = 0, my = 0;
    for (int i = 1; i < 20; i++) {
        mx += x[i] / 19;
        my += y[i] / 19;
    }
    double sxy = 0, sxx = 0;
    for (int i = 1; i < 20; i++) {
        sxy += (x[i] - mx) * (y[i] - my);
        sxx += (x[i] - mx) * (x[i] - mx);
    }
    double b = sxy / sxx, a = my - b * mx;
    double xa = x[1] + 0.05 * (x[19] - x[1]), xb = x[1] + 0.95 * (x[19] - x[1]);
    double want = (a + b * xb - (a + b * xa)) / (a + b * xa);
    assert_true(s->has_drift);
    assert_float_equal(s->drift, want, 1e-9);
    assert_float_equal(s->drift_from, a + b * xa, 1e-6);

    /* 5 columns by index: 4 calls each, the first holds the 150 */
    series_bin bins[5];
    int64_t scratch[20];
    series_bins(s, false, bins, 5, scratch);
    assert_int_equal(bins[0].n, 4);
    assert_int_equal(bins[0].max, 150);
    assert_int_equal(bins[0].min, 51);
    assert_int_equal(bins[0].med, 52); /* 51 52 53 150: lower median */
    assert_int_equal(bins[0].slowest, 0);
    assert_int_equal(bins[4].n, 4);
    assert_int_equal(bins[4].max, 69);
    assert_int_equal(bins[4].slowest, 19);
    series_free(s);

    /* io over every rank: rank 3 has none; on rank 3 alone: not found */
    assert_int_equal(series_build(p, NULL, "io", -1, &s, &err), SV_OK);
    assert_int_equal(s->n, 3);
    assert_false(s->has_drift); /* every call starts at 4000: no span */
    series_free(s);
    assert_int_equal(series_build(p, NULL, "io", 3, &s, &err), SV_ERR_NOT_FOUND);
    assert_null(s);
    assert_int_equal(series_build(p, NULL, "nope", -1, &s, &err), SV_ERR_NOT_FOUND);
    profile_free(p);
}

static int i64_sort_cmp(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Columns of hundreds of calls in no duration order: each column's median
 * is the lower middle of its durations sorted here. */
static void test_series_bin_median(void **state)
{
    (void)state;
    enum { CALLS = 1000, BINS = 3 };
    series s = {0};
    s.calls = calloc(CALLS, sizeof *s.calls);
    assert_non_null(s.calls);
    s.n = CALLS;
    for (size_t i = 0; i < CALLS; i++)
        s.calls[i] = (series_call){(int64_t)i, (int64_t)((i * 7919) % 1009), 0, (int64_t)i, i};
    series_bin bins[BINS];
    int64_t scratch[CALLS], d[CALLS];
    series_bins(&s, false, bins, BINS, scratch);
    size_t at = 0;
    for (size_t b = 0; b < BINS; b++) {
        assert_true(bins[b].n > 300);
        for (size_t k = 0; k < bins[b].n; k++)
            d[k] = s.calls[at + k].dur;
        qsort(d, bins[b].n, sizeof *d, i64_sort_cmp);
        assert_int_equal(bins[b].med, d[(bins[b].n - 1) / 2]);
        assert_int_equal(bins[b].min, d[0]);
        assert_int_equal(bins[b].max, d[bins[b].n - 1]);
        at += bins[b].n;
    }
    assert_int_equal(at, CALLS);
    free(s.calls);
}

static const bfly_caller *find_caller(const butterfly *b, const char *path)
{
    for (size_t i = 0; i < b->ncallers; i++)
        if (strcmp(b->callers[i].path, path) == 0)
            return &b->callers[i];
    fail_msg("no caller path '%s'", path);
    return NULL;
}

/* solve on rank 0 (FIXTURES.md): [200,500] in work with [400,480] inside it
 * (recursion, counted in the outer call), [4100,4200] in io; kernel
 * [250,350] [420,450] [4120,4160], one in each solve call. */
static void test_butterfly_solve(void **state)
{
    (void)state;
    profile *p = load_agg4();
    butterfly *b = NULL;
    sv_error err;
    assert_int_equal(butterfly_build(p, NULL, "solve", -1, &b, &err), SV_OK);
    assert_int_equal(b->calls, 2);
    assert_int_equal(b->nested, 1);
    assert_int_equal(b->incl_ns, (500 - 200) + (4200 - 4100));
    assert_int_equal(b->ncallers, 2);
    const bfly_caller *w = find_caller(b, "main > work");
    assert_int_equal(w->calls, 1);
    assert_int_equal(w->incl_ns, 300);
    assert_string_equal(w->parent, "work");
    const bfly_caller *io = find_caller(b, "main > io");
    assert_int_equal(io->incl_ns, 100);
    assert_string_equal(b->callers[0].path, "main > work"); /* the larger first */
    assert_int_equal(b->ncallees, 1);
    assert_string_equal(b->callees[0].name, "kernel");
    assert_int_equal(b->callees[0].calls, 3);
    assert_int_equal(b->callees[0].incl_ns, 100 + 30 + 40);
    assert_int_equal(b->callees[0].excl_ns, 100 + 30 + 40);
    /* self: 300 - (100 + 80), 80 - 30, 100 - 40 */
    assert_int_equal(b->self_ns, 120 + 50 + 60);
    assert_int_equal(b->self_ns + b->callees[0].incl_ns, b->incl_ns);
    butterfly_free(b);

    /* kernel's callers: solve under work (two calls, one through the inner solve) and io */
    assert_int_equal(butterfly_build(p, NULL, "kernel", 0, &b, &err), SV_OK);
    assert_int_equal(b->ncallers, 3);
    assert_int_equal(find_caller(b, "main > work > solve")->incl_ns, 100);
    assert_int_equal(find_caller(b, "main > work > solve > solve")->incl_ns, 30);
    assert_int_equal(find_caller(b, "main > io > solve")->incl_ns, 40);
    assert_int_equal(b->ncallees, 0);
    assert_int_equal(b->self_ns, 170);
    butterfly_free(b);

    /* work over the four ranks: callers main (8 calls), callees solve on rank 0 */
    assert_int_equal(butterfly_build(p, NULL, "work", -1, &b, &err), SV_OK);
    assert_int_equal(b->calls, 8);
    assert_int_equal(b->ncallers, 1);
    assert_int_equal(b->callers[0].calls, 8);
    assert_int_equal(b->callers[0].incl_ns, 2 * (1000 + 1200 + 800 + 1000));
    assert_int_equal(b->ncallees, 1);
    assert_int_equal(b->callees[0].calls, 1); /* the outer solve only: the inner is in it */
    assert_int_equal(b->callees[0].incl_ns, 300);
    butterfly_free(b);
    assert_int_equal(butterfly_build(p, NULL, "io", 3, &b, &err), SV_ERR_NOT_FOUND);
    profile_free(p);
}

/* Indirect recursion x > y > x > z: the inner x is in y's time, once. */
static void test_butterfly_indirect(void **state)
{
    (void)state;
    profile *p = profile_new("mem");
    rank_data *rk = profile_add_rank(p, 0);
    mp_region(rk, "x", 2, (int64_t[]){0, 20}, (int64_t[]){100, 80});
    mp_region(rk, "y", 1, (int64_t[]){10}, (int64_t[]){90});
    mp_region(rk, "z", 1, (int64_t[]){30}, (int64_t[]){40});
    mp_finish(p);
    butterfly *b = NULL;
    sv_error err;
    assert_int_equal(butterfly_build(p, NULL, "x", -1, &b, &err), SV_OK);
    assert_int_equal(b->calls, 1);
    assert_int_equal(b->nested, 1);
    assert_int_equal(b->incl_ns, 100);
    assert_int_equal(b->ncallers, 1);
    assert_string_equal(b->callers[0].path, ""); /* a root call */
    assert_null(b->callers[0].parent);
    assert_int_equal(b->ncallees, 1);
    assert_string_equal(b->callees[0].name, "y");
    assert_int_equal(b->callees[0].incl_ns, 80);
    assert_int_equal(b->callees[0].excl_ns, 80 - 60);
    assert_int_equal(b->self_ns, 20);
    butterfly_free(b);
    profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_imbalance_figures),  cmocka_unit_test(test_imbalance_rows),
        cmocka_unit_test(test_merged_imbalance),   cmocka_unit_test(test_series_step),
        cmocka_unit_test(test_series_bin_median),  cmocka_unit_test(test_butterfly_solve),
        cmocka_unit_test(test_butterfly_indirect),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
