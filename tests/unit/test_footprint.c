/* footprint: the model and the timeline index hold at most 32 bytes a call
 * for a profile with start and end times only (16 for the times,
 * 16 for the nesting and the index), counted from the model's own arrays
 * (footprint.c), not from the process's resident size; optional columns
 * cost only when present. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "model/footprint.h"
#include "model/lanes.h"
#include "memprof.h"

#define MAX_PER_CALL 32.0

enum { L_MAIN, L_STEP, L_ASSEMBLE, L_SOLVE, L_PRECOND, L_COUNT };
static const char *const l_names[L_COUNT] = {"main", "step", "assemble", "solve", "precond"};

typedef struct cols {
    int64_t *s, *e;
    size_t n;
} cols;

static void push(cols *c, int64_t s, int64_t e)
{
    c->s[c->n] = s;
    c->e[c->n++] = e;
}

/* svgen legacy's shape: main > steps > {assemble, solve > 2 precond}, 5
 * calls a step, times as a profiler appends them (each region's calls in
 * start order). */
static void legacy_rank(profile *p, int rank, size_t nsteps)
{
    cols c[L_COUNT];
    for (int k = 0; k < L_COUNT; k++) {
        c[k].s = malloc((2 * nsteps + 1) * sizeof *c[k].s);
        c[k].e = malloc((2 * nsteps + 1) * sizeof *c[k].e);
        assert_true(c[k].s && c[k].e);
        c[k].n = 0;
    }
    int64_t t = 1000;
    for (size_t i = 0; i < nsteps; i++) {
        int64_t s0 = t, a = 3000 + (int64_t)(i % 7) * 300;
        t += 200;
        push(&c[L_ASSEMBLE], t, t + a);
        t += a + 100;
        int64_t solve0 = t;
        t += 50;
        for (int k = 0; k < 2; k++) {
            int64_t pd = 800 + (int64_t)((i + (size_t)k) % 5) * 100;
            push(&c[L_PRECOND], t, t + pd);
            t += pd + 40;
        }
        push(&c[L_SOLVE], solve0, t);
        t += 100;
        push(&c[L_STEP], s0, t);
        t += 300;
    }
    push(&c[L_MAIN], 0, t + 1000);
    rank_data *rk = profile_add_rank(p, rank);
    assert_non_null(rk);
    for (int k = 0; k < L_COUNT; k++) {
        mp_region(rk, l_names[k], c[k].n, c[k].s, c[k].e);
        free(c[k].s);
        free(c[k].e);
    }
}

/* Builds what the viewer holds (nesting and the timeline index) and counts. */
static footprint measure(profile *p)
{
    assert_int_equal(profile_ensure_calls(p, NULL), SV_OK);
    lanes_index *ix = NULL;
    assert_int_equal(lanes_build(p, NULL, &ix, NULL), SV_OK);
    footprint fp = {0, 0, 0, 0};
    footprint_model(p, &fp);
    footprint_index(ix, &fp);
    lanes_free(ix);
    return fp;
}

static void check_per_call(const char *what, const footprint *fp)
{
    double per = (double)footprint_total(fp) / (double)fp->calls;
    printf("# %s: %zu calls, %.2f bytes a call (columns %.2f, nesting %.2f, index %.2f)\n", what,
           fp->calls, per, (double)fp->columns / (double)fp->calls,
           (double)fp->nesting / (double)fp->calls, (double)fp->index / (double)fp->calls);
    if (per > MAX_PER_CALL)
        fail_msg("%s: %.2f bytes a call, more than %.0f", what, per, MAX_PER_CALL);
}

static void test_legacy(void **state)
{
    (void)state;
    profile *p = profile_new("gen-legacy");
    legacy_rank(p, 0, 40000); /* 200 001 calls */
    mp_finish(p);
    footprint fp = measure(p);
    assert_int_equal(fp.calls, 200001);
    /* start and end only: 16 bytes a call (and the region records) */
    assert_int_equal(fp.columns, 16 * fp.calls + L_COUNT * sizeof(region));
    assert_null(p->ranks[0].calls->lane); /* nothing overlaps partly */
    check_per_call("legacy, one rank", &fp);
    profile_free(p);
}

static void test_ranks(void **state)
{
    (void)state;
    profile *p = profile_new("gen-ranks");
    for (int k = 0; k < 4; k++)
        legacy_rank(p, k, 10000 + 5000 * (size_t)k);
    mp_finish(p);
    footprint fp = measure(p);
    assert_int_equal(fp.calls, 4 * 1 + 5 * (10000 + 15000 + 20000 + 25000));
    check_per_call("legacy, four ranks", &fp);
    profile_free(p);
}

/* One flat region (a schema-3 file's single row): no children at all. */
static void test_flat(void **state)
{
    (void)state;
    size_t n = 100000;
    int64_t *s = malloc(n * sizeof *s), *e = malloc(n * sizeof *e);
    assert_true(s && e);
    for (size_t i = 0; i < n; i++) {
        s[i] = (int64_t)i * 100;
        e[i] = s[i] + 50;
    }
    profile *p = profile_new("gen-flat");
    mp_region(profile_add_rank(p, 0), "kernel", n, s, e);
    free(s);
    free(e);
    mp_finish(p);
    footprint fp = measure(p);
    assert_int_equal(p->ranks[0].calls->nchild, 0);
    check_per_call("flat", &fp);
    profile_free(p);
}

/* An optional column costs its 8 bytes a call only in the region that has
 * it. */
static void test_optional_column(void **state)
{
    (void)state;
    profile *p = profile_new("gen-opt");
    legacy_rank(p, 0, 1000);
    mp_finish(p);
    footprint before = {0, 0, 0, 0};
    footprint_model(p, &before);
    region *r = rank_region(&p->ranks[0], "precond");
    int64_t *g = calloc(r->n, sizeof *g);
    assert_non_null(g);
    r->gpu_ns = g;
    footprint after = {0, 0, 0, 0};
    footprint_model(p, &after);
    assert_int_equal(after.columns - before.columns, 8 * r->n);
    profile_free(p);
}

/* rank_call_children (a binary search over the children grouped by parent,
 * which replaced the offsets array) gives every call's children, in
 * (start, -end, index) order, as a scan of all the parents does: families
 * of one, of a few and of thousands (the gallop's steps), and leaves. */
static bool before(const rank_data *rk, uint32_t a, uint32_t b)
{
    int64_t as, ae, bs, be;
    size_t i;
    const region *r = rank_call_region(rk, a, &i);
    as = r->start_ns[i];
    ae = r->end_ns[i];
    r = rank_call_region(rk, b, &i);
    bs = r->start_ns[i];
    be = r->end_ns[i];
    return as < bs || (as == bs && (ae > be || (ae == be && a < b)));
}

static void test_children_scan(void **state)
{
    (void)state;
    profile *p = profile_new("gen-kids");
    legacy_rank(p, 0, 3000);
    mp_finish(p);
    assert_int_equal(profile_ensure_calls(p, NULL), SV_OK);
    const rank_data *rk = &p->ranks[0];
    const rank_calls *c = rk->calls;
    size_t n = c->n, total = 0;
    uint32_t *want = malloc(n * sizeof *want);
    assert_non_null(want);
    for (size_t g = 0; g < n; g++) {
        size_t m = 0;
        for (size_t k = 0; k < n; k++)
            if (c->parent[k] == (int32_t)g)
                want[m++] = (uint32_t)k;
        const uint32_t *kids;
        size_t got = rank_call_children(rk, g, &kids);
        assert_int_equal(got, m);
        assert_true(m > 0 || kids == NULL);
        for (size_t k = 0; k < m; k++) {
            bool found = false;
            for (size_t j = 0; j < m && !found; j++)
                found = kids[k] == want[j];
            assert_true(found);
            if (k > 0)
                assert_true(before(rk, kids[k - 1], kids[k]));
        }
        total += m;
    }
    assert_int_equal(total, c->nchild);
    assert_int_equal(rank_call_children(rk, n, &(const uint32_t *){NULL}), 0);
    free(want);
    profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_legacy),        cmocka_unit_test(test_ranks),
        cmocka_unit_test(test_flat),          cmocka_unit_test(test_optional_column),
        cmocka_unit_test(test_children_scan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
