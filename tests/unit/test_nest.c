/* Nesting and exclusive time, against values worked out by hand
 * (doc/FORMAT.md rules; tests/gen/FIXTURES.md for legacy_small). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "memprof.h"
#include "model/nest.h"
#include "model/region.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static profile *legacy_small(void)
{
    profile *p = profile_new("mem");
    rank_data *rk = profile_add_rank(p, 0);
    int64_t as[] = {0, 100}, ae[] = {1000, 200};
    int64_t bs[] = {10, 300, 300}, be[] = {50, 400, 400};
    int64_t cs[] = {40, 900}, ce[] = {60, 1200};
    mp_region(rk, "a", 2, as, ae);
    mp_region(rk, "b", 3, bs, be);
    mp_region(rk, "c", 2, cs, ce);
    mp_finish(p);
    return p;
}

static int64_t excl_total(profile *p, const char *name)
{
    return rank_region(&p->ranks[0], name)->st.exclusive_total_ns;
}

/* gidx of call i of region name on rank 0 */
static int64_t g(profile *p, const char *name, size_t i)
{
    return (int64_t)(rank_region(&p->ranks[0], name)->gidx0 + i);
}

static void test_legacy_totals(void **state)
{
    (void)state;
    profile *p = legacy_small();
    /* c[0] = [40,60] overlaps b[0] = [10,50] partly: it ran on another
     * thread, so it opens inferred lane 1 (c[1] follows it there).
     * a[0] = 1000 - |[10,50] ∪ [100,200] ∪ [300,400]| = 760, a[1] = 100 */
    assert_int_equal(excl_total(p, "a"), 860);
    assert_int_equal(excl_total(p, "b"), 140); /* 40 + 0 + 100 */
    assert_int_equal(excl_total(p, "c"), 320); /* 20 + 300 */
    assert_false(p->ranks[0].explicit_ids);
    assert_int_equal(p->ranks[0].ninferred_lanes, 2);
    profile_free(p);
}

static void test_legacy_parents(void **state)
{
    (void)state;
    profile *p = legacy_small();
    assert_int_equal(profile_ensure_calls(p, NULL), SV_OK);
    rank_calls *c = p->ranks[0].calls;
    assert_int_equal(c->parent[g(p, "a", 0)], -1);
    assert_int_equal(c->parent[g(p, "b", 0)], g(p, "a", 0));
    assert_int_equal(c->parent[g(p, "c", 0)], -1);           /* partial overlap: inferred lane 1 */
    assert_int_equal(c->parent[g(p, "a", 1)], g(p, "a", 0)); /* recursion */
    assert_int_equal(c->parent[g(p, "b", 1)], g(p, "a", 0));
    assert_int_equal(c->parent[g(p, "b", 2)], g(p, "b", 1)); /* identical: listed first is outer */
    assert_int_equal(c->parent[g(p, "c", 1)], -1);
    assert_int_equal(rank_call_depth(&p->ranks[0], (size_t)g(p, "b", 2)), 2);
    assert_int_equal(rank_call_excl(&p->ranks[0], (size_t)g(p, "a", 0)), 760);
    assert_int_equal(rank_call_excl(&p->ranks[0], (size_t)g(p, "b", 1)), 0);
    assert_int_equal(rank_call_excl(&p->ranks[0], (size_t)g(p, "c", 0)), 20);
    /* children of a[0] in start order: b0 a1 b1 */
    const uint32_t *kid;
    assert_int_equal(rank_call_children(&p->ranks[0], (size_t)g(p, "a", 0), &kid), 3);
    assert_int_equal(kid[0], g(p, "b", 0));
    assert_int_equal(kid[1], g(p, "a", 1));
    assert_int_equal(kid[2], g(p, "b", 1));
    /* lanes: everything on 0 but c[0] and c[1] */
    assert_non_null(c->lane);
    assert_int_equal(c->lane[g(p, "a", 0)], 0);
    assert_int_equal(c->lane[g(p, "b", 2)], 0);
    assert_int_equal(c->lane[g(p, "c", 0)], 1);
    assert_int_equal(c->lane[g(p, "c", 1)], 1);
    /* totals are unchanged by building the per-call arrays */
    assert_int_equal(excl_total(p, "a"), 860);
    profile_free(p);
}

/* Recorded order need not be start order (recursion: inner ends first). */
static void test_unsorted_region(void **state)
{
    (void)state;
    profile *p = profile_new("mem");
    rank_data *rk = profile_add_rank(p, 0);
    int64_t s[] = {50, 0, 60}, e[] = {70, 100, 65};
    mp_region(rk, "f", 3, s, e);
    mp_finish(p);
    /* [0,100] > [50,70] > [60,65]: 100-20 + 20-5 + 5 = 100 */
    assert_int_equal(excl_total(p, "f"), 100);
    profile_free(p);
}

/* Lanes: calls on different threads never nest by inference. */
static void test_inferred_lanes(void **state)
{
    (void)state;
    profile *p = profile_new("mem");
    rank_data *rk = profile_add_rank(p, 0);
    int64_t s[] = {0, 10}, e[] = {100, 20}, t[] = {0, 1};
    region *r = mp_region(rk, "x", 2, s, e);
    mp_col(&r->thread_ids, t, 2);
    mp_finish(p);
    assert_int_equal(excl_total(p, "x"), 110);
    assert_int_equal(p->ranks[0].ninferred_lanes, 0); /* real thread ids */
    assert_int_equal(profile_ensure_calls(p, NULL), SV_OK);
    assert_null(p->ranks[0].calls->lane);
    profile_free(p);
}

/* Inferred lanes, first fit (doc/FORMAT.md), three threads without
 * thread ids: m [0,100] on the main thread, workers w [10,110] and
 * [20,120], each running r inside it: r [15,105] fits only in w[0]'s lane
 * (m ends inside it), r [25,115] only in w[1]'s; r [112,118] starts after
 * m ended, so it joins lane 0 (first fit) as a top-level call. */
static void test_inferred_three_threads(void **state)
{
    (void)state;
    profile *p = profile_new("mem");
    rank_data *rk = profile_add_rank(p, 0);
    int64_t ms[] = {0}, me[] = {100};
    int64_t ws[] = {10, 20}, we[] = {110, 120};
    int64_t rs[] = {15, 25, 112}, re[] = {105, 115, 118};
    mp_region(rk, "m", 1, ms, me);
    mp_region(rk, "w", 2, ws, we);
    mp_region(rk, "r", 3, rs, re);
    mp_finish(p);
    assert_int_equal(p->ranks[0].ninferred_lanes, 3);
    assert_int_equal(excl_total(p, "m"), 100);     /* nothing nests in it */
    assert_int_equal(excl_total(p, "w"), 10 + 10); /* 100 - 90 each */
    assert_int_equal(excl_total(p, "r"), 90 + 90 + 6);
    assert_int_equal(profile_ensure_calls(p, NULL), SV_OK);
    rank_calls *c = p->ranks[0].calls;
    assert_non_null(c->lane);
    assert_int_equal(c->lane[g(p, "m", 0)], 0);
    assert_int_equal(c->lane[g(p, "w", 0)], 1);
    assert_int_equal(c->lane[g(p, "w", 1)], 2);
    assert_int_equal(c->lane[g(p, "r", 0)], 1);
    assert_int_equal(c->lane[g(p, "r", 1)], 2);
    assert_int_equal(c->lane[g(p, "r", 2)], 0);
    assert_int_equal(c->parent[g(p, "r", 0)], g(p, "w", 0));
    assert_int_equal(c->parent[g(p, "r", 1)], g(p, "w", 1));
    assert_int_equal(c->parent[g(p, "r", 2)], -1);
    assert_int_equal(c->parent[g(p, "w", 1)], -1);
    assert_int_equal(rank_call_depth(&p->ranks[0], (size_t)g(p, "r", 1)), 1);
    assert_int_equal(rank_call_excl(&p->ranks[0], (size_t)g(p, "w", 1)), 10);
    profile_free(p);
}

/* A zero-length call at a call's end is inside it (not popped); one at the
 * end of a call of another lane goes by first fit. */
static void test_inferred_zero_length_at_end(void **state)
{
    (void)state;
    profile *p = profile_new("mem");
    rank_data *rk = profile_add_rank(p, 0);
    /* a [0,100]; b [50,150] overlaps it partly (lane 1); z [100,100] at
     * a's end nests in a; z [150,150] at b's end: lane 0 pops a (and z[0])
     * first, so it is top-level on lane 0. */
    int64_t as[] = {0}, ae[] = {100}, bs[] = {50}, be[] = {150};
    int64_t zs[] = {100, 150}, ze[] = {100, 150};
    mp_region(rk, "a", 1, as, ae);
    mp_region(rk, "b", 1, bs, be);
    mp_region(rk, "z", 2, zs, ze);
    mp_finish(p);
    assert_int_equal(p->ranks[0].ninferred_lanes, 2);
    assert_int_equal(excl_total(p, "a"), 100);
    assert_int_equal(excl_total(p, "b"), 100);
    assert_int_equal(excl_total(p, "z"), 0);
    assert_int_equal(profile_ensure_calls(p, NULL), SV_OK);
    rank_calls *c = p->ranks[0].calls;
    assert_int_equal(c->lane[g(p, "b", 0)], 1);
    assert_int_equal(c->parent[g(p, "z", 0)], g(p, "a", 0));
    assert_int_equal(c->lane[g(p, "z", 0)], 0);
    assert_int_equal(c->parent[g(p, "z", 1)], -1);
    assert_int_equal(c->lane[g(p, "z", 1)], 0);
    profile_free(p);
}

/* A staircase of calls that all overlap partly ([i, 1000 + i]) would need
 * one lane each: the first fit stops at 256 lanes (a hostile file cannot
 * make it quadratic), says so, and the rest share the last lane without
 * nesting. */
static void test_inferred_lanes_capped(void **state)
{
    (void)state;
    enum { N = 400 };
    int64_t s[N], e[N];
    for (int i = 0; i < N; i++) {
        s[i] = i;
        e[i] = 1000 + i;
    }
    profile *p = profile_new("mem");
    rank_data *rk = profile_add_rank(p, 0);
    mp_region(rk, "x", N, s, e);
    mp_finish(p);
    assert_int_equal(p->ranks[0].ninferred_lanes, 256);
    assert_int_equal(excl_total(p, "x"), (int64_t)N * 1000); /* nothing nests */
    assert_true(p->nwarnings >= 1);
    assert_non_null(strstr(p->warnings[p->nwarnings - 1], "more than 256 inferred lanes"));
    assert_int_equal(profile_ensure_calls(p, NULL), SV_OK);
    rank_calls *c = p->ranks[0].calls;
    assert_int_equal(c->lane[g(p, "x", 255)], 255);
    assert_int_equal(c->lane[g(p, "x", N - 1)], 255);
    for (int i = 0; i < N; i++)
        assert_int_equal(c->parent[g(p, "x", (size_t)i)], -1);
    profile_free(p);
}

/* Identical intervals and calls that only touch stay on one lane: the
 * first listed is outer (regions by name), touching calls are disjoint. */
static void test_inferred_identical_one_lane(void **state)
{
    (void)state;
    profile *p = profile_new("mem");
    rank_data *rk = profile_add_rank(p, 0);
    int64_t as[] = {0, 10}, ae[] = {10, 20}, bs[] = {0, 10}, be[] = {10, 20};
    mp_region(rk, "b", 2, bs, be);
    mp_region(rk, "a", 2, as, ae);
    mp_finish(p);
    assert_int_equal(p->ranks[0].ninferred_lanes, 0);
    assert_int_equal(excl_total(p, "a"), 0);  /* outer: b covers it all */
    assert_int_equal(excl_total(p, "b"), 20); /* inner */
    assert_int_equal(profile_ensure_calls(p, NULL), SV_OK);
    rank_calls *c = p->ranks[0].calls;
    assert_null(c->lane);
    assert_int_equal(c->parent[g(p, "b", 1)], g(p, "a", 1));
    assert_int_equal(c->parent[g(p, "a", 1)], -1);
    profile_free(p);
}

/* Explicit ids: concurrent children on other threads are unioned, clipped. */
static void test_explicit_concurrent_children(void **state)
{
    (void)state;
    profile *p = profile_new("mem");
    rank_data *rk = profile_add_rank(p, 0);
    int64_t ps[] = {0}, pe[] = {100}, pid[] = {1}, ppar[] = {-1};
    int64_t ks[] = {10, 40, 90}, ke[] = {60, 90, 150}, kid[] = {2, 3, 4}, kpar[] = {1, 1, 1};
    int64_t kt[] = {1, 2, 1};
    region *par = mp_region(rk, "parent", 1, ps, pe);
    mp_col(&par->call_ids, pid, 1);
    mp_col(&par->parent_ids, ppar, 1);
    region *kid_r = mp_region(rk, "kid", 3, ks, ke);
    mp_col(&kid_r->call_ids, kid, 3);
    mp_col(&kid_r->parent_ids, kpar, 3);
    mp_col(&kid_r->thread_ids, kt, 3);
    mp_finish(p);
    /* union of [10,60] [40,90] [90,100(clipped)] = 90 → exclusive 10 */
    assert_true(p->ranks[0].explicit_ids);
    assert_int_equal(excl_total(p, "parent"), 10);
    assert_int_equal(excl_total(p, "kid"), 50 + 50 + 60);
    profile_free(p);
}

static void test_orphan_parent(void **state)
{
    (void)state;
    profile *p = profile_new("mem");
    rank_data *rk = profile_add_rank(p, 0);
    int64_t s[] = {0, 10}, e[] = {100, 20}, id[] = {1, 2}, par[] = {-1, 99};
    region *r = mp_region(rk, "x", 2, s, e);
    mp_col(&r->call_ids, id, 2);
    mp_col(&r->parent_ids, par, 2);
    mp_finish(p);
    /* call 2 is top-level even though it lies inside call 1 */
    assert_int_equal(excl_total(p, "x"), 110);
    assert_int_equal(p->nwarnings, 1);
    assert_non_null(strstr(p->warnings[0], "region x"));
    profile_free(p);
}

static void test_cycle_falls_back(void **state)
{
    (void)state;
    profile *p = profile_new("mem");
    rank_data *rk = profile_add_rank(p, 0);
    int64_t s[] = {0, 10}, e[] = {100, 50}, id[] = {1, 2}, par[] = {2, 1};
    region *r = mp_region(rk, "x", 2, s, e);
    mp_col(&r->call_ids, id, 2);
    mp_col(&r->parent_ids, par, 2);
    mp_finish(p);
    assert_false(p->ranks[0].explicit_ids);
    assert_int_equal(excl_total(p, "x"), 60 + 40); /* inferred: [10,50] inside [0,100] */
    assert_int_equal(p->nwarnings, 1);
    assert_non_null(strstr(p->warnings[0], "cycle"));
    profile_free(p);
}

/* Explicit parents whose children are recorded out of start order: the
 * children lists are in start order all the same (k1 at 10, k2 at 30, k0
 * at 50), and the parent's exclusive time is 100 - 30 = 70. */
static void test_explicit_children_order(void **state)
{
    (void)state;
    profile *p = profile_new("mem");
    rank_data *rk = profile_add_rank(p, 0);
    int64_t ks[] = {50, 10, 30}, ke[] = {60, 20, 40}, kid[] = {2, 3, 4}, kpar[] = {1, 1, 1};
    int64_t ps[] = {0}, pe[] = {100}, pid[] = {1}, ppar[] = {-1};
    region *k = mp_region(rk, "k", 3, ks, ke);
    mp_col(&k->call_ids, kid, 3);
    mp_col(&k->parent_ids, kpar, 3);
    region *r = mp_region(rk, "p", 1, ps, pe);
    mp_col(&r->call_ids, pid, 1);
    mp_col(&r->parent_ids, ppar, 1);
    mp_finish(p);
    assert_true(p->ranks[0].explicit_ids);
    assert_int_equal(profile_ensure_calls(p, NULL), SV_OK);
    const rank_calls *c = p->ranks[0].calls;
    size_t pg = (size_t)g(p, "p", 0);
    const uint32_t *kids;
    assert_non_null(c);
    assert_int_equal(rank_call_children(&p->ranks[0], pg, &kids), 3);
    assert_int_equal(kids[0], g(p, "k", 1));
    assert_int_equal(kids[1], g(p, "k", 2));
    assert_int_equal(kids[2], g(p, "k", 0));
    assert_int_equal(rank_call_excl(&p->ranks[0], pg), 70);
    assert_int_equal(rank_call_depth(&p->ranks[0], (size_t)g(p, "k", 0)), 1);
    profile_free(p);
}

/* One rank of one region whose nesting comes from call and parent ids. */
static profile *ids_profile(const char *name, size_t n, int64_t *s, int64_t *e, int64_t *id,
                            int64_t *par)
{
    profile *p = profile_new("mem");
    region *r = mp_region(profile_add_rank(p, 0), name, n, s, e);
    mp_col(&r->call_ids, id, n);
    mp_col(&r->parent_ids, par, n);
    mp_finish(p);
    return p;
}

/* 100 000 levels of explicit parents: no recursion, no stack overflow. */
static void test_deep_chain(void **state)
{
    (void)state;
    size_t n = 100000;
    int64_t *s = malloc(n * 8), *e = malloc(n * 8), *id = malloc(n * 8), *par = malloc(n * 8);
    for (size_t i = 0; i < n; i++) {
        s[i] = (int64_t)i;
        e[i] = (int64_t)(2 * n - i);
        id[i] = (int64_t)i + 1;
        par[i] = (int64_t)i; /* 0 = no such call for the first → orphan */
    }
    par[0] = -1;
    profile *p = ids_profile("rec", n, s, e, id, par);
    assert_true(p->ranks[0].explicit_ids);
    /* each call's exclusive = 2 (one ns each side), the innermost has 2 too */
    assert_int_equal(excl_total(p, "rec"), (int64_t)(2 * (n - 1) + 2));
    assert_int_equal(profile_ensure_calls(p, NULL), SV_OK);
    assert_int_equal(rank_call_depth(&p->ranks[0], n - 1), n - 1);
    /* the same chain inferred (legacy) */
    profile *q = profile_new("mem");
    mp_region(profile_add_rank(q, 0), "rec", n, s, e);
    mp_finish(q);
    assert_int_equal(rank_region(&q->ranks[0], "rec")->st.exclusive_total_ns,
                     (int64_t)(2 * (n - 1) + 2));
    profile_free(q);
    profile_free(p);
    free(s);
    free(e);
    free(id);
    free(par);
}

static void test_zero_length_and_identical(void **state)
{
    (void)state;
    profile *p = profile_new("mem");
    rank_data *rk = profile_add_rank(p, 0);
    int64_t s[] = {5, 5, 5}, e[] = {5, 5, 5};
    mp_region(rk, "z", 3, s, e);
    mp_finish(p);
    assert_int_equal(excl_total(p, "z"), 0);
    assert_int_equal(profile_ensure_calls(p, NULL), SV_OK);
    assert_int_equal(rank_call_depth(&p->ranks[0], 2), 2);
    profile_free(p);
}

static void test_union_clipped(void **state)
{
    (void)state;
    int64_t s[] = {-10, 5, 20, 25}, e[] = {3, 12, 30, 40};
    /* clipped to [0,35]: [0,3] [5,12] [20,35] → 3 + 7 + 15 */
    assert_int_equal(nest_union_clipped(s, e, N(s), 0, 35), 25);
    assert_int_equal(nest_union_clipped(s, e, 0, 0, 35), 0);
}

/* The families found from a hint, whatever order the calls are asked in,
 * against the children counted from the parents given. */
static void check_near_order(const rank_data *rk, const size_t *order, size_t n, const int *par)
{
    size_t pos = SIZE_MAX;
    for (size_t k = 0; k < n; k++) {
        size_t gi = order[k], want = 0;
        const uint32_t *kids;
        size_t nk = rank_call_children_near(rk, gi, &pos, &kids);
        for (size_t c = 0; c < n; c++) {
            if (par[c] != (int)gi)
                continue;
            assert_true(want < nk);
            assert_int_equal(kids[want], c); /* starts ascend with the index */
            want++;
        }
        assert_int_equal(nk, want);
    }
}

static void test_children_near(void **state)
{
    (void)state;
    enum { CALLS = 3000 };
    int64_t *s = malloc(CALLS * 8), *e = malloc(CALLS * 8), *id = malloc(CALLS * 8);
    int64_t *pid = malloc(CALLS * 8);
    int *par = malloc(CALLS * sizeof *par);
    size_t *order = malloc(CALLS * sizeof *order);
    for (size_t i = 0; i < CALLS; i++) {
        s[i] = (int64_t)i;
        e[i] = (int64_t)i + 1;
        id[i] = (int64_t)i + 1;
        /* roots, a few families of hundreds, many small ones, childless calls */
        par[i] = i < 3 || i % 11 == 0 ? -1 : i < 600 ? (int)(i % 3) : (int)((i * 7) % (i / 2));
        pid[i] = par[i] < 0 ? -1 : par[i] + 1;
    }
    profile *p = ids_profile("f", CALLS, s, e, id, pid);
    const rank_data *rk = &p->ranks[0];
    assert_true(rk->explicit_ids);
    assert_int_equal(profile_ensure_calls(p, NULL), SV_OK);
    for (size_t i = 0; i < CALLS; i++)
        order[i] = i;
    check_near_order(rk, order, CALLS, par);
    for (size_t i = 0; i < CALLS; i++)
        order[i] = CALLS - 1 - i;
    check_near_order(rk, order, CALLS, par);
    for (size_t i = 0; i < CALLS; i++)
        order[i] = (i * 1237) % CALLS; /* 1237 is prime to 3000: each call once */
    check_near_order(rk, order, CALLS, par);
    const uint32_t *kids;
    /* 3, 6 .. 597 but not 11k (181), and 7i mod i/2 == 0 past 600: every even i (1091) */
    assert_int_equal(rank_call_children(rk, 0, &kids), 1272);
    profile_free(p);
    free(s);
    free(e);
    free(id);
    free(pid);
    free(par);
    free(order);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_legacy_totals),
        cmocka_unit_test(test_legacy_parents),
        cmocka_unit_test(test_unsorted_region),
        cmocka_unit_test(test_inferred_lanes),
        cmocka_unit_test(test_inferred_three_threads),
        cmocka_unit_test(test_inferred_zero_length_at_end),
        cmocka_unit_test(test_inferred_identical_one_lane),
        cmocka_unit_test(test_inferred_lanes_capped),
        cmocka_unit_test(test_explicit_concurrent_children),
        cmocka_unit_test(test_orphan_parent),
        cmocka_unit_test(test_cycle_falls_back),
        cmocka_unit_test(test_deep_chain),
        cmocka_unit_test(test_explicit_children_order),
        cmocka_unit_test(test_zero_length_and_identical),
        cmocka_unit_test(test_union_clipped),
        cmocka_unit_test(test_children_near),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
