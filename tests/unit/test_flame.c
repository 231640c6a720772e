/* Flame graph frames, inverted merging, bands, order, layout and matches,
 * against values worked out by hand for small in-memory profiles. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "memprof.h"
#include "model/flame.h"

/* main [0,1000) > a [0,600) > c [100,400); main > b [600,1000) > c [700,800).
 * Top-down: main 1000 (excl 0), a 600 (300), a>c 300, b 400 (300), b>c 100.
 * Inverted (exclusive time, 1000 in all): c 400 < {a 300 < main, b 100 <
 * main}, a 300 < main, b 300 < main; main has no exclusive time. */
static profile *abc(void)
{
    profile *p = profile_new("mem");
    rank_data *rk = profile_add_rank(p, 0);
    int64_t ms[] = {0}, me[] = {1000};
    int64_t as[] = {0}, ae[] = {600};
    int64_t bs[] = {600}, be[] = {1000};
    int64_t cs[] = {100, 700}, ce[] = {400, 800};
    mp_region(rk, "main", 1, ms, me);
    mp_region(rk, "a", 1, as, ae);
    mp_region(rk, "b", 1, bs, be);
    mp_region(rk, "c", 2, cs, ce);
    mp_finish(p);
    return p;
}

static flame *build(profile *p, calltree_scope sc, flame_mode mode)
{
    flame *f = NULL;
    sv_error err;
    sv_error_clear(&err);
    if (flame_build(p, sc, mode, NULL, &f, &err))
        fail_msg("flame_build: %s", err.msg);
    return f;
}

static uint32_t child(const flame *f, uint32_t node, const char *name)
{
    for (uint32_t k = f->child_off[node]; k < f->child_off[node + 1]; k++)
        if (strcmp(flame_name(f, f->child[k]), name) == 0)
            return f->child[k];
    return FLAME_NONE;
}

static uint32_t path(const flame *f, const char *const *names)
{
    uint32_t n = 0;
    for (size_t i = 0; names[i] && n != FLAME_NONE; i++)
        n = child(f, n, names[i]);
    if (n == FLAME_NONE)
        fail_msg("no frame %s...", names[0]);
    return n;
}
#define PATH(f, ...) path((f), (const char *const[]){__VA_ARGS__, NULL})

static size_t kids(const flame *f, uint32_t node)
{
    return f->child_off[node + 1] - f->child_off[node];
}

static void test_top_down(void **state)
{
    (void)state;
    profile *p = abc();
    flame *f = build(p, (calltree_scope){-1, -1, 0, 0, LANE_RANK, 0}, FLAME_TOP_DOWN);
    assert_int_equal(f->nodes[0].weight, 1000);
    assert_int_equal(kids(f, 0), 1);
    uint32_t m = PATH(f, "main"), a = PATH(f, "main", "a"), b = PATH(f, "main", "b");
    assert_int_equal(f->nodes[m].weight, 1000);
    assert_int_equal(f->nodes[m].self, 0);
    assert_int_equal(f->nodes[a].weight, 600);
    assert_int_equal(f->nodes[a].self, 300);
    assert_int_equal(f->nodes[b].weight, 400);
    assert_int_equal(f->nodes[b].self, 300);
    assert_int_equal(f->nodes[PATH(f, "main", "a", "c")].weight, 300);
    assert_int_equal(f->nodes[PATH(f, "main", "b", "c")].weight, 100);
    assert_int_equal(f->nodes[PATH(f, "main", "b", "c")].calls, 1);
    assert_int_equal(f->nodes[PATH(f, "main", "b", "c")].first, 700);
    assert_int_equal(f->nodes[PATH(f, "main", "b", "c")].depth, 3);
    assert_float_equal(flame_share_parent(f, b), 0.4, 1e-12);
    assert_float_equal(flame_share_scope(f, PATH(f, "main", "a", "c")), 0.3, 1e-12);
    assert_true(flame_is_under(f, PATH(f, "main", "a", "c"), a));
    assert_false(flame_is_under(f, PATH(f, "main", "a", "c"), b));
    flame_free(f);
    profile_free(p);
}

static void test_inverted(void **state)
{
    (void)state;
    profile *p = abc();
    flame *f = build(p, (calltree_scope){-1, -1, 0, 0, LANE_RANK, 0}, FLAME_INVERTED);
    assert_int_equal(f->nodes[0].weight, 1000);
    uint32_t c = PATH(f, "c");
    assert_int_equal(f->nodes[c].weight, 400);
    assert_int_equal(f->nodes[c].calls, 2);
    assert_int_equal(f->nodes[PATH(f, "c", "a")].weight, 300);
    assert_int_equal(f->nodes[PATH(f, "c", "b")].weight, 100);
    assert_int_equal(f->nodes[PATH(f, "c", "a", "main")].weight, 300);
    assert_int_equal(f->nodes[PATH(f, "c", "b", "main")].weight, 100);
    assert_int_equal(f->nodes[PATH(f, "a")].weight, 300);
    assert_int_equal(f->nodes[PATH(f, "a", "main")].weight, 300);
    assert_int_equal(f->nodes[PATH(f, "b", "main")].weight, 300);
    assert_int_equal(f->nodes[PATH(f, "main")].weight, 0);
    assert_int_equal(kids(f, PATH(f, "c", "a", "main")), 0);
    /* the top row adds up to the scope's exclusive total */
    int64_t top = 0;
    for (uint32_t k = f->child_off[0]; k < f->child_off[1]; k++)
        top += f->nodes[f->child[k]].weight;
    assert_int_equal(top, 1000);
    flame_free(f);
    profile_free(p);
}

/* The band [300, 750): main 450; a [300,600) 300, its c [300,400) 100, a's
 * exclusive 200; b [600,750) 150, its c [700,750) 50, b's exclusive 100. */
static void test_band(void **state)
{
    (void)state;
    profile *p = abc();
    flame *f = build(p, (calltree_scope){-1, -1, 300, 750, LANE_RANK, 0}, FLAME_TOP_DOWN);
    assert_int_equal(f->nodes[0].weight, 450);
    assert_int_equal(f->nodes[PATH(f, "main")].self, 0);
    assert_int_equal(f->nodes[PATH(f, "main", "a")].weight, 300);
    assert_int_equal(f->nodes[PATH(f, "main", "a")].self, 200);
    assert_int_equal(f->nodes[PATH(f, "main", "a", "c")].weight, 100);
    assert_int_equal(f->nodes[PATH(f, "main", "b")].weight, 150);
    assert_int_equal(f->nodes[PATH(f, "main", "b")].self, 100);
    assert_int_equal(f->nodes[PATH(f, "main", "b", "c")].weight, 50);
    flame_free(f);
    /* a band past every call: an empty graph */
    f = build(p, (calltree_scope){-1, -1, 5000, 6000, LANE_RANK, 0}, FLAME_TOP_DOWN);
    assert_int_equal(f->n, 1);
    assert_int_equal(f->nodes[0].weight, 0);
    flame_free(f);
    /* inverted in a band: exclusive times inside it, 450 in all */
    f = build(p, (calltree_scope){-1, -1, 300, 750, LANE_RANK, 0}, FLAME_INVERTED);
    assert_int_equal(f->nodes[0].weight, 450);
    assert_int_equal(f->nodes[PATH(f, "c")].weight, 150);
    assert_int_equal(f->nodes[PATH(f, "a")].weight, 200);
    flame_free(f);
    profile_free(p);
}

/* main [0,1000) > early [0,100), late [100,1000): by first call early
 * comes first, heaviest first late does. */
static void test_order(void **state)
{
    (void)state;
    profile *p = profile_new("mem");
    rank_data *rk = profile_add_rank(p, 0);
    int64_t ms[] = {0}, me[] = {1000}, es[] = {0}, ee[] = {100}, ls[] = {100}, le[] = {1000};
    mp_region(rk, "main", 1, ms, me);
    mp_region(rk, "late", 1, ls, le);
    mp_region(rk, "early", 1, es, ee);
    mp_finish(p);
    flame *f = build(p, (calltree_scope){-1, -1, 0, 0, LANE_RANK, 0}, FLAME_TOP_DOWN);
    uint32_t m = PATH(f, "main");
    assert_string_equal(flame_name(f, f->child[f->child_off[m]]), "early");
    flame_sort(f, FLAME_ORDER_HEAVY);
    assert_string_equal(flame_name(f, f->child[f->child_off[m]]), "late");
    flame_sort(f, FLAME_ORDER_FIRST);
    assert_string_equal(flame_name(f, f->child[f->child_off[m]]), "early");
    flame_free(f);
    profile_free(p);
}

static const flame_box *box_of(const flame_box *v, size_t n, uint32_t node)
{
    for (size_t i = 0; i < n; i++)
        if (v[i].node == node)
            return &v[i];
    return NULL;
}

/* 80 cells for 1000 ns: 12.5 ns a cell.  a [0,600) -> [0,48), b -> [48,80),
 * a>c [0,300) -> [0,24), b>c [600,700) -> [48,56). */
static void test_layout(void **state)
{
    (void)state;
    profile *p = abc();
    flame *f = build(p, (calltree_scope){-1, -1, 0, 0, LANE_RANK, 0}, FLAME_TOP_DOWN);
    flame_box *v;
    size_t n;
    assert_true(flame_layout(f, 0, 80, 10, &v, &n));
    assert_int_equal(n, 6);
    const flame_box *x = box_of(v, n, PATH(f, "main", "a"));
    assert_non_null(x);
    assert_int_equal(x->row, 2);
    assert_int_equal(x->x0, 0);
    assert_int_equal(x->x1, 48);
    x = box_of(v, n, PATH(f, "main", "b"));
    assert_int_equal(x->x0, 48);
    assert_int_equal(x->x1, 80);
    x = box_of(v, n, PATH(f, "main", "b", "c"));
    assert_int_equal(x->row, 3);
    assert_int_equal(x->x0, 48);
    assert_int_equal(x->x1, 56);
    for (size_t i = 1; i < n; i++) /* row by row, left to right */
        assert_true(v[i - 1].row < v[i].row ||
                    (v[i - 1].row == v[i].row && v[i - 1].x1 <= v[i].x0));
    free(v);
    /* 7 cells: b>c is 0.7 of a cell wide and left out */
    assert_true(flame_layout(f, 0, 7, 10, &v, &n));
    assert_null(box_of(v, n, PATH(f, "main", "b", "c")));
    assert_int_equal(box_of(v, n, PATH(f, "main", "a", "c"))->x1, 2); /* floor(2.1) */
    free(v);
    /* two rows only */
    assert_true(flame_layout(f, 0, 80, 2, &v, &n));
    assert_int_equal(n, 2);
    free(v);
    /* zoomed into b: b fills the row, its c [600,700) of 400 ns -> [0,20) */
    assert_true(flame_layout(f, PATH(f, "main", "b"), 80, 10, &v, &n));
    assert_int_equal(n, 2);
    assert_int_equal(v[0].x1, 80);
    assert_int_equal(v[1].x0, 0);
    assert_int_equal(v[1].x1, 20);
    free(v);
    flame_free(f);
    profile_free(p);
}

static void test_matches(void **state)
{
    (void)state;
    profile *p = abc();
    flame *f = build(p, (calltree_scope){-1, -1, 0, 0, LANE_RANK, 0}, FLAME_TOP_DOWN);
    uint8_t *m = calloc(f->nnames, 1);
    for (size_t i = 0; i < f->nnames; i++)
        m[i] = strcmp(f->names[i], "c") == 0;
    assert_int_equal(flame_match_time(f, 0, m), 400);
    assert_int_equal(flame_match_time(f, PATH(f, "main", "b"), m), 100);
    for (size_t i = 0; i < f->nnames; i++)
        m[i] = strcmp(f->names[i], "c") == 0 || strcmp(f->names[i], "a") == 0;
    assert_int_equal(flame_match_time(f, 0, m), 700); /* a's c inside a counts once */
    for (size_t i = 0; i < f->nnames; i++)
        m[i] = strcmp(f->names[i], "main") == 0 || strcmp(f->names[i], "c") == 0;
    assert_int_equal(flame_match_time(f, 0, m), 1000);
    free(m);
    flame_free(f);
    profile_free(p);
}

/* base: abc(); new: main [0,1000) > a [0,600) > c [100,400), main > d
 * [600,1000).  The differential graph: widths from the new run, main>d new
 * (base 0), main>b and main>b>c the base's only (not drawn, counted). */
static void test_from_diff(void **state)
{
    (void)state;
    profile *base = abc();
    profile *newp = profile_new("mem2");
    rank_data *rk = profile_add_rank(newp, 0);
    int64_t ms[] = {0}, me[] = {1000}, as[] = {0}, ae[] = {600};
    int64_t cs[] = {100}, ce[] = {400}, ds[] = {600}, de[] = {1000};
    mp_region(rk, "main", 1, ms, me);
    mp_region(rk, "a", 1, as, ae);
    mp_region(rk, "c", 1, cs, ce);
    mp_region(rk, "d", 1, ds, de);
    mp_finish(newp);
    diff_options o;
    diff_options_init(&o);
    diff_result *d = NULL;
    sv_error err;
    sv_error_clear(&err);
    if (diff_profiles(base, newp, &o, NULL, &d, &err))
        fail_msg("diff_profiles: %s", err.msg);
    flame *f = NULL;
    assert_int_equal(flame_from_diff(d, &f, &err), SV_OK);
    assert_int_equal(f->mode, FLAME_DIFF);
    assert_int_equal(f->nodes[0].weight, 1000);
    assert_int_equal(f->gone, 2);
    uint32_t m = PATH(f, "main");
    assert_int_equal(f->nodes[m].weight, 1000);
    assert_int_equal(f->nodes[m].base, 1000);
    uint32_t x = PATH(f, "main", "d");
    assert_int_equal(f->nodes[x].weight, 400);
    assert_int_equal(f->nodes[x].base, 0);
    assert_int_equal(f->nodes[x].state, DS_NEW);
    assert_int_equal(f->nodes[PATH(f, "main", "a", "c")].weight, 300);
    assert_int_equal(child(f, m, "b"), FLAME_NONE);
    assert_int_equal(kids(f, m), 2);
    flame_free(f);
    diff_free(d);
    profile_free(base);
    profile_free(newp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_top_down),  cmocka_unit_test(test_inverted),
        cmocka_unit_test(test_band),      cmocka_unit_test(test_order),
        cmocka_unit_test(test_layout),    cmocka_unit_test(test_matches),
        cmocka_unit_test(test_from_diff),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
