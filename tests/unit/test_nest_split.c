/* A rank's inferred nesting cut by time into parts on threads
 * (nest_split.c) against the whole sweep: the same exclusive totals,
 * parents, exclusive times, inferred lanes and warnings, on generated
 * one-rank profiles made to be hard at the cuts: deep nesting, calls open
 * across every cut, equal starts, identical calls, zero-length calls at
 * starts and ends, partial overlaps (inferred lanes, more than the 256
 * allowed in one case), many regions (the merge's heap). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "memprof.h"
#include "model/nest.h"
#include "model/nest_internal.h"
#include "model/region.h"

static uint64_t rnd(uint64_t *s)
{
    /* splitmix64: the same profile on every run */
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

typedef struct call {
    int64_t s, e;
    size_t reg;
} call;

typedef struct gen {
    call *v;
    size_t n, cap;
    uint64_t seed;
    size_t nregions;
    unsigned overlap_pct; /* chance of a call overlapping its sibling partly */
} gen;

static void put(gen *g, int64_t s, int64_t e)
{
    if (g->n == g->cap) {
        g->cap = g->cap ? 2 * g->cap : 1024;
        g->v = realloc(g->v, g->cap * sizeof *g->v);
        assert_non_null(g->v);
    }
    call c = {s, e, (size_t)(rnd(&g->seed) % g->nregions)};
    g->v[g->n++] = c;
}

/* Children of [s, e): nested trees with the cases the cuts must get right. */
static void gen_tree(gen *g, int64_t s, int64_t e, int depth, size_t budget)
{
    int64_t t = s;
    while (t < e && g->n < budget) {
        uint64_t k = rnd(&g->seed) % 100;
        int64_t room = e - t;
        int64_t len = (int64_t)(rnd(&g->seed) % (uint64_t)(room + 1));
        if (k < 8) { /* zero-length, at the current time or at the parent's end */
            put(g, k < 4 ? t : e, k < 4 ? t : e);
        } else if (k < 14) { /* identical twins */
            put(g, t, t + len);
            put(g, t, t + len);
        } else if (k < 14 + g->overlap_pct) { /* past the parent's end: another lane */
            put(g, t, e + 1 + (int64_t)(rnd(&g->seed) % 50));
        } else {
            put(g, t, t + len);
            if (depth < 40 && len > 1 && rnd(&g->seed) % 3)
                gen_tree(g, t + (int64_t)(rnd(&g->seed) % 2), t + len, depth + 1, budget);
        }
        /* The next sibling where this one ends, or after a gap; with
         * overlaps, sometimes inside it (and past its end). */
        if (g->overlap_pct && len > 1 && rnd(&g->seed) % 100 < g->overlap_pct)
            t += (int64_t)(rnd(&g->seed) % (uint64_t)len) + 1;
        else
            t += len + (rnd(&g->seed) % 2 ? (int64_t)(rnd(&g->seed) % 20) : 0);
        t += len == 0;
    }
}

static int call_cmp(const void *a, const void *b)
{
    const call *x = a, *y = b;
    if (x->s != y->s)
        return x->s < y->s ? -1 : 1;
    return (x->e < y->e) - (x->e > y->e);
}

/* One rank of the generated calls, each region's calls in start order. */
static profile *make_profile(gen *g)
{
    qsort(g->v, g->n, sizeof *g->v, call_cmp);
    profile *p = profile_new("split");
    rank_data *rk = profile_add_rank(p, 0);
    int64_t *s = malloc(g->n * sizeof *s), *e = malloc(g->n * sizeof *e);
    assert_true(s && e);
    for (size_t j = 0; j < g->nregions; j++) {
        size_t m = 0;
        for (size_t i = 0; i < g->n; i++)
            if (g->v[i].reg == j) {
                s[m] = g->v[i].s;
                e[m++] = g->v[i].e;
            }
        char name[32];
        snprintf(name, sizeof name, "r%02zu", j);
        mp_region(rk, name, m, s, e);
    }
    free(s);
    free(e);
    mp_finish(p);
    return p;
}

typedef struct result {
    int64_t *tot;
    int32_t *parent;
    int64_t *excl;
    uint32_t lanes;
    size_t nwarn;
    char *warn;
} result;

static result run(profile *p, size_t nparts)
{
    rank_data *rk = &p->ranks[0];
    result r = {calloc(rk->nregions, sizeof *r.tot),
                malloc(rk->ncalls * sizeof *r.parent),
                malloc(rk->ncalls * sizeof *r.excl),
                0,
                0,
                NULL};
    assert_true(r.tot && r.parent && r.excl);
    memset(r.parent, 0x5a, rk->ncalls * sizeof *r.parent);
    memset(r.excl, 0x5a, rk->ncalls * sizeof *r.excl);
    for (size_t j = 0; j < rk->nregions; j++)
        rk->regions[j]->st.exclusive_total_ns = 0;
    size_t w0 = p->nwarnings;
    nest_out out = {false, r.parent, NULL, r.excl, NULL, false, NULL, 0, false, false};
    sv_error err;
    assert_int_equal(nest_infer_rank_parts(rk, &out, nparts, &err), SV_OK);
    for (size_t j = 0; j < rk->nregions; j++)
        r.tot[j] = rk->regions[j]->st.exclusive_total_ns;
    r.lanes = rk->ninferred_lanes;
    r.nwarn = p->nwarnings - w0;
    r.warn = r.nwarn ? strdup(p->warnings[p->nwarnings - 1]) : NULL;
    return r;
}

static void result_free(result *r)
{
    free(r->tot);
    free(r->parent);
    free(r->excl);
    free(r->warn);
}

static void same(const char *what, const profile *p, const result *a, const result *b,
                 size_t nparts)
{
    const rank_data *rk = &p->ranks[0];
    for (size_t j = 0; j < rk->nregions; j++)
        if (a->tot[j] != b->tot[j])
            fail_msg("%s, %zu parts: region %s: exclusive total %lld, the whole sweep's %lld", what,
                     nparts, rk->regions[j]->name, (long long)b->tot[j], (long long)a->tot[j]);
    for (size_t i = 0; i < rk->ncalls; i++)
        if (a->parent[i] != b->parent[i] || a->excl[i] != b->excl[i])
            fail_msg("%s, %zu parts: call %zu: parent %d, exclusive %lld; the whole sweep's "
                     "%d, %lld",
                     what, nparts, i, b->parent[i], (long long)b->excl[i], a->parent[i],
                     (long long)a->excl[i]);
    if (a->lanes != b->lanes)
        fail_msg("%s, %zu parts: %u inferred lanes, the whole sweep's %u", what, nparts, b->lanes,
                 a->lanes);
    if (a->nwarn != b->nwarn || (a->warn && strcmp(a->warn, b->warn)))
        fail_msg("%s, %zu parts: %zu warnings (%s), the whole sweep's %zu (%s)", what, nparts,
                 b->nwarn, b->warn ? b->warn : "-", a->nwarn, a->warn ? a->warn : "-");
}

/* The viewer's per-call pass (nest_rank_calls' sweep) in nparts parts:
 * the parents and the inferred lane of every call, which must be the
 * totals pass's parents and lane count (tot: its result), and nothing of
 * the rank written (the totals pass's figures are left as they were). */
static void check_per_call(const char *what, profile *p, const result *tot, size_t nparts)
{
    rank_data *rk = &p->ranks[0];
    int32_t *parent = malloc(rk->ncalls * sizeof *parent);
    assert_non_null(parent);
    memset(parent, 0x5a, rk->ncalls * sizeof *parent);
    for (size_t j = 0; j < rk->nregions; j++)
        rk->regions[j]->st.exclusive_total_ns = 12345;
    rk->ninferred_lanes = 777;
    size_t w0 = p->nwarnings;
    /* The totals the per-call pass gives the statistics (nest_share.h). */
    int64_t *given = malloc(rk->nregions * sizeof *given);
    assert_non_null(given);
    memset(given, 0x5a, rk->nregions * sizeof *given);
    nest_out out = {true, parent, NULL, NULL, NULL, false, given, 0, false, false};
    sv_error err;
    assert_int_equal(nest_infer_rank_parts(rk, &out, nparts, &err), SV_OK);
    for (size_t j = 0; j < rk->nregions; j++)
        assert_int_equal(rk->regions[j]->st.exclusive_total_ns, 12345);
    assert_true(out.swept);
    for (size_t j = 0; j < rk->nregions; j++)
        if (given[j] != tot->tot[j])
            fail_msg("%s, per call, %zu parts: region %s: exclusive total given %lld, the totals "
                     "pass's %lld",
                     what, nparts, rk->regions[j]->name, (long long)given[j],
                     (long long)tot->tot[j]);
    assert_int_equal(out.nlanes, tot->lanes);
    assert_int_equal(out.capped, tot->nwarn > 0);
    free(given);
    assert_int_equal(rk->ninferred_lanes, 777);
    assert_int_equal(p->nwarnings, w0);
    for (size_t i = 0; i < rk->ncalls; i++)
        if (parent[i] != tot->parent[i])
            fail_msg("%s, per call, %zu parts: call %zu: parent %d, the totals pass's %d", what,
                     nparts, i, parent[i], tot->parent[i]);
    /* A lane column exactly when the rank has inferred lanes; its largest
     * lane is the last of them (capped: every lane from the cap on is the last). */
    if ((out.lane != NULL) != (tot->lanes > 0))
        fail_msg("%s, per call, %zu parts: lane column %s, %u inferred lanes", what, nparts,
                 out.lane ? "present" : "absent", tot->lanes);
    uint32_t top = 0;
    for (size_t i = 0; out.lane && i < rk->ncalls; i++)
        top = out.lane[i] > top ? out.lane[i] : top;
    if (out.lane)
        assert_int_equal(top + 1, tot->lanes);
    /* The lanes themselves: those of the whole per-call sweep. */
    if (nparts > 1 && out.lane) {
        int32_t *p1 = malloc(rk->ncalls * sizeof *p1);
        assert_non_null(p1);
        nest_out one = {true, p1, NULL, NULL, NULL, false, NULL, 0, false, false};
        assert_int_equal(nest_infer_rank_parts(rk, &one, 1, &err), SV_OK);
        assert_non_null(one.lane);
        for (size_t i = 0; i < rk->ncalls; i++)
            if (one.lane[i] != out.lane[i])
                fail_msg("%s, per call, %zu parts: call %zu: lane %u, the whole sweep's %u", what,
                         nparts, i, out.lane[i], one.lane[i]);
        free(one.lane);
        free(p1);
    }
    free(out.lane);
    free(parent);
    for (size_t j = 0; j < rk->nregions; j++)
        rk->regions[j]->st.exclusive_total_ns = tot->tot[j];
    rk->ninferred_lanes = tot->lanes;
}

/* The whole sweep, then 2 .. 9 parts, on threads as SCOPEVIEW_THREADS says. */
static void check_parts(const char *what, profile *p, const char *threads)
{
    setenv("SCOPEVIEW_THREADS", threads, 1);
    result whole = run(p, 1);
    check_per_call(what, p, &whole, 1);
    for (size_t k = 2; k <= 9; k++) {
        result r = run(p, k);
        same(what, p, &whole, &r, k);
        result_free(&r);
        check_per_call(what, p, &whole, k);
    }
    unsetenv("SCOPEVIEW_THREADS");
    result_free(&whole);
}

static void check_gen(const char *what, uint64_t seed, size_t nregions, unsigned overlap_pct,
                      size_t calls, int roots, uint32_t want_lanes_min)
{
    gen g = {NULL, 0, 0, seed, nregions, overlap_pct};
    /* Roots side by side, and one call over all of them (open at every cut). */
    put(&g, 0, (int64_t)roots * 100000 + 1000);
    for (int i = 0; i < roots; i++)
        gen_tree(&g, (int64_t)i * 100000, (int64_t)i * 100000 + 90000 + i, 0,
                 calls * (size_t)(i + 1) / (size_t)roots);
    profile *p = make_profile(&g);
    free(g.v);
    /* The generator made what the test is about. */
    result whole = run(p, 1);
    if (whole.lanes < want_lanes_min)
        fail_msg("%s: %u inferred lanes, the test wants %u at least", what, whole.lanes,
                 want_lanes_min);
    result_free(&whole);
    check_parts(what, p, "1");
    check_parts(what, p, "2");
    check_parts(what, p, "4");
    profile_free(p);
}

static void test_nested(void **state)
{
    (void)state;
    check_gen("deep nesting, no partial overlap", 11, 5, 0, 40000, 6, 0);
    check_gen("deep nesting, many regions (heap merge)", 12, 13, 0, 40000, 3, 0);
}

static void test_lanes(void **state)
{
    (void)state;
    check_gen("partial overlaps: inferred lanes", 21, 5, 3, 40000, 5, 2);
    check_gen("many partial overlaps", 22, 7, 20, 30000, 4, 3);
}

/* More than 256 calls overlapping one another partly: the lanes' cap and
 * its warning, whichever part meets it. */
static void test_lanes_capped(void **state)
{
    (void)state;
    gen g = {NULL, 0, 0, 31, 3, 0};
    for (int64_t i = 0; i < 300; i++)
        put(&g, i * 10, i * 10 + 5000);
    for (int64_t i = 0; i < 2000; i++)
        put(&g, 10000 + i * 7, 10000 + i * 7 + (i % 13));
    for (int64_t i = 0; i < 300; i++)
        put(&g, 30000 + i * 10, 30000 + i * 10 + 5000 - i);
    profile *p = make_profile(&g);
    free(g.v);
    result whole = run(p, 1);
    assert_int_equal(whole.lanes, 256);
    assert_int_equal(whole.nwarn, 1);
    assert_non_null(strstr(whole.warn, "more than 256 inferred lanes"));
    result_free(&whole);
    check_parts("lanes capped", p, "2");
    profile_free(p);
}

/* Every call at one start, or in a few instants: cuts fall on equal
 * starts and parts are empty. */
static void test_equal_starts(void **state)
{
    (void)state;
    gen g = {NULL, 0, 0, 41, 4, 0};
    for (int64_t i = 0; i < 3000; i++)
        put(&g, 100, 100 + (int64_t)(rnd(&g.seed) % 50));
    for (int64_t i = 0; i < 3000; i++)
        put(&g, 100 + (i % 3) * 25, 100 + (i % 3) * 25 + (int64_t)(rnd(&g.seed) % 3));
    profile *p = make_profile(&g);
    free(g.v);
    check_parts("equal starts", p, "2");
    check_parts("equal starts", p, "4");
    profile_free(p);
}

/* A region not in start order: the parts see it and the whole sweep runs
 * (the merge sorts that region first). */
static void test_out_of_order(void **state)
{
    (void)state;
    gen g = {NULL, 0, 0, 51, 4, 0};
    put(&g, 0, 1000000);
    gen_tree(&g, 0, 900000, 0, 20000);
    profile *p = make_profile(&g);
    free(g.v);
    region *r = p->ranks[0].regions[1];
    assert_true(r->n > 100);
    size_t i = r->n / 2;
    int64_t s = r->start_ns[i], e = r->end_ns[i];
    r->start_ns[i] = r->start_ns[i + 1];
    r->end_ns[i] = r->end_ns[i + 1];
    r->start_ns[i + 1] = s;
    r->end_ns[i + 1] = e;
    check_parts("a region out of order", p, "2");
    profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nested),       cmocka_unit_test(test_lanes),
        cmocka_unit_test(test_lanes_capped), cmocka_unit_test(test_equal_starts),
        cmocka_unit_test(test_out_of_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
