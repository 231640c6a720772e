/* Timeline layout without a terminal: which call lands in which cell at a
 * given zoom, density, depth rows, the awaited share, ruler steps and
 * labels, and the zoom/pan arithmetic.  Every expectation is computed by
 * hand in the comments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "memprof.h"
#include "view/timeline/ruler.h"
#include "view/timeline/tl_layout.h"

/* ------------------------------------------------------------ helpers */

static lanes_index *index_of(profile *p)
{
    lanes_index *ix = NULL;
    sv_error err;
    sv_error_clear(&err);
    if (lanes_build(p, NULL, &ix, &err) != SV_OK)
        fail_msg("lanes_build: %s", err.msg);
    return ix;
}

static int64_t gidx(profile *p, const char *name, size_t i)
{
    return (int64_t)(rank_region(&p->ranks[0], name)->gidx0 + i);
}

/* One legacy lane, all calls top level (disjoint):
 *   A [0,100)  B [100,130)  C [135,136)  D [137,139)  E [300,300] (zero length)
 *   F [400,457)  G [457,520) */
static profile *flat_row(void)
{
    profile *p = profile_new("mem");
    rank_data *rk = profile_add_rank(p, 0);
    struct {
        const char *name;
        int64_t s, e;
    } calls[] = {{"A", 0, 100},   {"B", 100, 130}, {"C", 135, 136}, {"D", 137, 139},
                 {"E", 300, 300}, {"F", 400, 457}, {"G", 457, 520}};
    for (size_t k = 0; k < sizeof calls / sizeof calls[0]; k++)
        mp_region(rk, calls[k].name, 1, &calls[k].s, &calls[k].e);
    mp_finish(p);
    return p;
}

static size_t layout(const lanes_index *ix, size_t li, uint32_t depth, tl_view v, tl_seg *out)
{
    const lane *ln = &ix->lanes[li];
    return tl_layout_row(ln, &ln->rows[depth], &v, out, (size_t)v.width);
}

static void expect_bar(const tl_seg *sg, int x0, int x1, int64_t call, bool left, bool right)
{
    assert_int_equal(sg->kind, TL_BAR);
    assert_int_equal(sg->x0, x0);
    assert_int_equal(sg->x1, x1);
    assert_int_equal(sg->call, call);
    assert_int_equal(sg->edge_left, left);
    assert_int_equal(sg->edge_right, right);
}

static void expect_dense(const tl_seg *sg, int x, size_t count)
{
    assert_int_equal(sg->kind, TL_DENSE);
    assert_int_equal(sg->x0, x);
    assert_int_equal(sg->x1, x + 1);
    assert_int_equal(sg->count, count);
}

/* ---------------------------------------------------------- columns */

static void test_columns(void **state)
{
    (void)state;
    tl_view v = {1000, 10, 80};
    assert_int_equal(tl_time_col(&v, 1000), 0);
    assert_int_equal(tl_time_col(&v, 1009), 0);
    assert_int_equal(tl_time_col(&v, 1010), 1);
    assert_int_equal(tl_time_col(&v, 999), -1); /* floor, not truncation */
    assert_int_equal(tl_time_col(&v, 990), -1);
    assert_int_equal(tl_time_col(&v, 989), -2);
    assert_int_equal(tl_col_time(&v, 3), 1030);
    assert_int_equal(tl_col_time(&v, -2), 980);
    /* Saturation instead of overflow. */
    tl_view big = {INT64_MAX - 5, INT64_MAX / 4, 80};
    assert_int_equal(tl_col_time(&big, 10), INT64_MAX);
    assert_true(tl_time_col(&big, INT64_MIN) < 0);
}

/* npc 10, t0 0, 60 columns.  A covers columns 0..9 (99 is in column 9), B
 * 10..12 (129 -> 12), C and D both lie inside column 13 -> density 2; E
 * (zero length, at 300) column 30; F [400,457) columns 40..45 and G
 * [457,520) 45..51: in column 45 F covers 7 ns and G 3 ns, so F takes it. */
static void test_cells_fine(void **state)
{
    (void)state;
    profile *p = flat_row();
    lanes_index *ix = index_of(p);
    tl_seg seg[60];
    size_t n = layout(ix, 0, 0, (tl_view){0, 10, 60}, seg);
    assert_int_equal(n, 6);
    expect_bar(&seg[0], 0, 10, gidx(p, "A", 0), true, true);
    expect_bar(&seg[1], 10, 13, gidx(p, "B", 0), true, true);
    expect_dense(&seg[2], 13, 2);
    expect_bar(&seg[3], 30, 31, gidx(p, "E", 0), true, true);
    expect_bar(&seg[4], 40, 46, gidx(p, "F", 0), true, true);
    /* G starts in column 45 (lost to F) and still shows its left edge. */
    expect_bar(&seg[5], 46, 52, gidx(p, "G", 0), true, true);
    assert_int_equal(seg[0].await_k, 0); /* no await column: no hatching */
    lanes_free(ix);
    profile_free(p);
}

/* npc 100: column 0 [0,100) holds A alone; column 1 [100,200) holds B, C
 * and D -> density 3; column 3 E; column 4 [400,500) holds F (wholly inside)
 * and G -> density 2; column 5 [500,600) holds G alone, whose start (column
 * 4) is just before the bar, so it keeps its left edge. */
static void test_cells_coarse(void **state)
{
    (void)state;
    profile *p = flat_row();
    lanes_index *ix = index_of(p);
    tl_seg seg[10];
    size_t n = layout(ix, 0, 0, (tl_view){0, 100, 10}, seg);
    assert_int_equal(n, 5);
    expect_bar(&seg[0], 0, 1, gidx(p, "A", 0), true, true);
    expect_dense(&seg[1], 1, 3);
    expect_bar(&seg[2], 3, 4, gidx(p, "E", 0), true, true);
    expect_dense(&seg[3], 4, 2);
    expect_bar(&seg[4], 5, 6, gidx(p, "G", 0), true, true);
    /* Panned so that A starts off screen: t0 = 50, npc 10 -> A holds
     * columns 0..4 without a left edge, B 5..7. */
    n = layout(ix, 0, 0, (tl_view){50, 10, 10}, seg);
    expect_bar(&seg[0], 0, 5, gidx(p, "A", 0), false, true);
    expect_bar(&seg[1], 5, 8, gidx(p, "B", 0), true, true);
    assert_int_equal(seg[2].x0, 8); /* C and D in column 8 [130,140) */
    assert_int_equal(seg[2].kind, TL_DENSE);
    lanes_free(ix);
    profile_free(p);
}

/* 10 000 calls of 10 ns back to back: at 1000 ns per column every column
 * holds 100 of them (plus none straddling: boundaries fall on columns). */
static void test_density(void **state)
{
    (void)state;
    enum { NC = 10000 };
    profile *p = profile_new("mem");
    rank_data *rk = profile_add_rank(p, 0);
    int64_t *s = malloc(NC * sizeof *s), *e = malloc(NC * sizeof *e);
    assert_true(s && e);
    for (int i = 0; i < NC; i++) {
        s[i] = 10 * (int64_t)i;
        e[i] = s[i] + 10;
    }
    mp_region(rk, "tick", NC, s, e);
    free(s);
    free(e);
    mp_finish(p);
    lanes_index *ix = index_of(p);
    tl_seg seg[100];
    size_t n = layout(ix, 0, 0, (tl_view){0, 1000, 100}, seg);
    assert_int_equal(n, 100);
    /* Counts from 10 on are lower bounds read from the block starts alone
     * (16 calls per block): 100 calls per cell always prove 10. */
    for (int x = 0; x < 100; x++) {
        assert_int_equal(seg[x].kind, TL_DENSE);
        assert_int_equal(seg[x].x0, x);
        assert_true(seg[x].count >= 10 && seg[x].count <= 100);
        assert_int_equal(tl_dense_level(seg[x].count), 2);
    }
    /* At 40 ns per column: 4 calls per cell, counted exactly. */
    n = layout(ix, 0, 0, (tl_view){0, 40, 100}, seg);
    assert_int_equal(n, 100);
    expect_dense(&seg[9], 9, 4);
    assert_int_equal(tl_dense_level(2), 0);
    assert_int_equal(tl_dense_level(3), 0);
    assert_int_equal(tl_dense_level(4), 1);
    assert_int_equal(tl_dense_level(9), 1);
    assert_int_equal(tl_dense_level(10), 2);
    assert_int_equal(tl_dense_level(100), 2);
    /* At 10 ns per column each call has its own column. */
    n = layout(ix, 0, 0, (tl_view){0, 10, 100}, seg);
    assert_int_equal(n, 100);
    expect_bar(&seg[7], 7, 8, 7, true, true);
    lanes_free(ix);
    profile_free(p);
}

/* Nesting (inferred): P [0,1000] > Q [100,200], R [300,400] > S [310,320].
 * Rows: depth 0 P, depth 1 Q R, depth 2 S.  npc 10: S is column 31. */
static void test_depth_rows(void **state)
{
    (void)state;
    profile *p = profile_new("mem");
    rank_data *rk = profile_add_rank(p, 0);
    int64_t ps[] = {0}, pe[] = {1000}, qs[] = {100, 300}, qe[] = {200, 400}, ss[] = {310},
            se[] = {320};
    mp_region(rk, "P", 1, ps, pe);
    mp_region(rk, "Q", 2, qs, qe);
    mp_region(rk, "S", 1, ss, se);
    mp_finish(p);
    lanes_index *ix = index_of(p);
    assert_int_equal(ix->lanes[0].ndepth, 3);
    tl_seg seg[100];
    tl_view v = {0, 10, 100};
    size_t n = layout(ix, 0, 0, v, seg);
    assert_int_equal(n, 1);
    expect_bar(&seg[0], 0, 100, gidx(p, "P", 0), true, true);
    n = layout(ix, 0, 1, v, seg);
    assert_int_equal(n, 2);
    expect_bar(&seg[0], 10, 20, gidx(p, "Q", 0), true, true);
    expect_bar(&seg[1], 30, 40, gidx(p, "Q", 1), true, true);
    n = layout(ix, 0, 2, v, seg);
    assert_int_equal(n, 1);
    expect_bar(&seg[0], 31, 32, gidx(p, "S", 0), true, true);
    lanes_free(ix);
    profile_free(p);
}

/* A call of 100 ns with 40 ns awaited over 10 columns: 10 * 40/100 = 4
 * hatched columns.  The file does not say when the call waited, so they are
 * spread evenly: column x is hatched when floor((x+1)*4/10) > floor(x*4/10),
 * i.e. x = 2, 4, 7, 9. */
static void set_ids(region *r, const int64_t *ids, const int64_t *par, const int64_t *thr,
                    const int64_t *task)
{
    mp_col(&r->call_ids, ids, r->n);
    mp_col(&r->parent_ids, par, r->n);
    mp_col(&r->thread_ids, thr, r->n);
    mp_col(&r->task_ids, task, r->n);
}

static char **names_of(const char *a, const char *b)
{
    char **v = calloc(2, sizeof *v);
    assert_non_null(v);
    v[0] = strdup(a);
    v[1] = strdup(b);
    return v;
}

/* Where the waiting is drawn.  Rank 0, threads Main (0) and Worker (1),
 * tasks 0 and 1:
 *   req  [100,400] task 0, awaited 150; its children:
 *     db   [150,300] task 0, awaited 100 of 150
 *     work [310,360] Worker, no task (executor work the task awaited)
 *   req  [500,600] task 1, awaited 30, no children.
 * req[0]'s 150 ns are explained: 100 (db's awaited) + 50 (work) = 150, so
 * its hatch goes where they are.  At 10 ns per column from 100 (req[0] on
 * columns 0..29): columns 5..19 are db's (15 cells, 10 hatched, spread:
 * offsets 1 2 4 5 7 8 10 11 13 14), 21..25 work's whole span (column
 * centres 315..355); none before db, at 20 (centre 305, between) or
 * after 25: 10 + 5 = 15 = 30 * 150 / 300.  req[1] is spread evenly. */
static void test_await_placed(void **state)
{
    (void)state;
    profile *p = profile_new("mem");
    rank_data *rk = profile_add_rank(p, 0);
    rk->has_threads = true;
    rk->threads.n = 2;
    rk->threads.name = names_of("Main", "Worker");
    rk->has_tasks = true;
    rk->tasks.n = 2;
    rk->tasks.name = names_of("Task-1", "Task-2");
    int64_t rs[] = {100, 500}, re[] = {400, 600}, ri[] = {10, 20}, rp[] = {-1, -1}, rt[] = {0, 0},
            rkk[] = {0, 1}, raw[] = {150, 30};
    region *req = mp_region(rk, "req", 2, rs, re);
    set_ids(req, ri, rp, rt, rkk);
    mp_col(&req->await_ns, raw, 2);
    int64_t ds[] = {150}, de[] = {300}, di[] = {11}, dp[] = {10}, dt[] = {0}, dk[] = {0},
            daw[] = {100};
    region *db = mp_region(rk, "db", 1, ds, de);
    set_ids(db, di, dp, dt, dk);
    mp_col(&db->await_ns, daw, 1);
    int64_t ws[] = {310}, we[] = {360}, wi[] = {12}, wp[] = {10}, wt[] = {1}, wk[] = {-1};
    set_ids(mp_region(rk, "work", 1, ws, we), wi, wp, wt, wk);
    mp_finish(p);
    lanes_index *ix = index_of(p);
    uint32_t req0 = (uint32_t)rank_region(rk, "req")->gidx0;
    assert_true(tl_await_in_children(rk, req0));
    assert_false(tl_await_in_children(rk, req0 + 1)); /* no children */
    tl_view v = {100, 10, 30};
    tl_seg sg = {0, 30, TL_BAR, req0, 1, true, true, 0, 30, 15, true};
    const int want[] = {6, 7, 9, 10, 12, 13, 15, 16, 18, 19, 21, 22, 23, 24, 25};
    size_t at = 0, n = 0;
    for (int x = 0; x < 30; x++) {
        bool h = tl_col_awaited(rk, &v, &sg, x);
        n += h;
        if (h) {
            assert_true(at < sizeof want / sizeof want[0]);
            assert_int_equal(x, want[at++]);
        }
    }
    assert_int_equal(n, 15);
    lanes_free(ix);
    profile_free(p);
}

/* Load glyphs: a third and two thirds of the cell. */
static void test_load_level(void **state)
{
    (void)state;
    assert_int_equal(tl_load_level(0, 30), 0);
    assert_int_equal(tl_load_level(9, 30), 0);
    assert_int_equal(tl_load_level(10, 30), 1);
    assert_int_equal(tl_load_level(19, 30), 1);
    assert_int_equal(tl_load_level(20, 30), 2);
    assert_int_equal(tl_load_level(30, 30), 2);
    assert_int_equal(tl_load_level(5, 0), 0);
}

static void test_await_cells(void **state)
{
    (void)state;
    assert_int_equal(tl_await_cells(10, 100, 40), 4);
    assert_int_equal(tl_await_cells(3, 100, 50), 2); /* 1.5 rounds up */
    assert_int_equal(tl_await_cells(3, 100, 49), 1); /* 1.47 */
    assert_int_equal(tl_await_cells(10, 100, 0), 0);
    assert_int_equal(tl_await_cells(10, 100, 100), 10);
    assert_int_equal(tl_await_cells(1, 0, 0), 0); /* zero-length call */

    profile *p = profile_new("mem");
    rank_data *rk = profile_add_rank(p, 0);
    int64_t s[] = {1000}, e[] = {1100}, aw[] = {40};
    region *r = mp_region(rk, "wait", 1, s, e);
    mp_col(&r->await_ns, aw, 1);
    mp_finish(p);
    lanes_index *ix = index_of(p);
    tl_seg seg[20];
    size_t n = layout(ix, 0, 0, (tl_view){1000, 10, 20}, seg);
    assert_int_equal(n, 1);
    expect_bar(&seg[0], 0, 10, 0, true, true);
    assert_int_equal(seg[0].await_c0, 0);
    assert_int_equal(seg[0].await_n, 10);
    assert_int_equal(seg[0].await_k, 4);
    const bool want[10] = {false, false, true, false, true, false, false, true, false, true};
    for (int x = 0; x < 10; x++)
        assert_int_equal(tl_await_hatched(x, 10, 4), want[x]);
    /* Half of the call off screen on the left (t0 = 1050): the call still
     * spans columns -5..4, so the same columns are hatched (-3, -1, 2, 4). */
    n = layout(ix, 0, 0, (tl_view){1050, 10, 20}, seg);
    expect_bar(&seg[0], 0, 5, 0, false, true);
    assert_int_equal(seg[0].await_c0, -5);
    assert_int_equal(seg[0].await_n, 10);
    assert_true(tl_await_hatched(2 - seg[0].await_c0, 10, 4));
    assert_false(tl_await_hatched(3 - seg[0].await_c0, 10, 4));
    /* Exactly k of n, whatever k; none outside the call. */
    for (int64_t k = 0; k <= 13; k++) {
        int64_t c = 0;
        for (int64_t x = -2; x < 15; x++)
            c += tl_await_hatched(x, 13, k);
        assert_int_equal(c, k);
    }
    /* Deep zoom: a 1000 s call at 1 ns per column, half awaited. */
    assert_true(tl_await_hatched(999999999999, 1000000000000, 500000000000));
    assert_false(tl_await_hatched(999999999998, 1000000000000, 500000000000));
    lanes_free(ix);
    profile_free(p);
}

/* The sweep used for rows without overlaps and the cell-by-cell layout
 * used for the others agree wherever both apply. */
static uint64_t rng = 0x9E3779B97F4A7C15ull;

static int64_t rnd_in(int64_t lo, int64_t hi)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return lo + (int64_t)(rng % (uint64_t)(hi - lo + 1));
}

static void test_sweep_matches_general(void **state)
{
    (void)state;
    enum { NC = 20000 };
    profile *p = profile_new("mem");
    rank_data *rk = profile_add_rank(p, 0);
    int64_t *s = malloc(NC * sizeof *s), *e = malloc(NC * sizeof *e);
    assert_true(s && e);
    int64_t t = 0;
    for (int i = 0; i < NC; i++) { /* back to back, gaps, zero lengths */
        t += rnd_in(0, 3) == 0 ? rnd_in(1, 500) : 0;
        s[i] = t;
        e[i] = t + (rnd_in(0, 9) == 0 ? 0 : rnd_in(1, 300));
        t = e[i] + (e[i] == s[i]); /* a zero-length call occupies [s, s+1) */
    }
    mp_region(rk, "r", NC, s, e);
    free(s);
    free(e);
    mp_finish(p);
    lanes_index *ix = index_of(p);
    const lane *ln = &ix->lanes[0];
    assert_true(ln->rows[0].disjoint);
    lane_row general = ln->rows[0];
    general.disjoint = false;
    tl_seg a[120], b[120];
    for (int trial = 0; trial < 400; trial++) {
        tl_view v = {rnd_in(-1000, t), rnd_in(1, trial % 3 ? 200 : 20000), 120};
        size_t na = tl_layout_row(ln, &ln->rows[0], &v, a, 120);
        size_t nb = tl_layout_row(ln, &general, &v, b, 120);
        assert_int_equal(na, nb);
        for (size_t k = 0; k < na; k++) {
            assert_int_equal(a[k].x0, b[k].x0);
            assert_int_equal(a[k].x1, b[k].x1);
            assert_int_equal(a[k].kind, b[k].kind);
            if (a[k].kind == TL_BAR)
                assert_int_equal(a[k].call, b[k].call);
            else if (a[k].count < 10 || b[k].count < 10)
                assert_int_equal(a[k].count, b[k].count);
            assert_int_equal(tl_dense_level(a[k].count), tl_dense_level(b[k].count));
        }
    }
    lanes_free(ix);
    profile_free(p);
}

/* ------------------------------------------------------------- ruler */

static void expect_ticks(const ruler_plan *rp, const int *xs, const char *const *labels, size_t n)
{
    assert_int_equal(rp->nticks, n);
    for (size_t k = 0; k < n; k++) {
        assert_int_equal(rp->ticks[k].x, xs[k]);
        assert_string_equal(rp->ticks[k].label, labels[k]);
    }
}

/* 0..1 ms over 80 columns: 12 500 ns per column.  The 1-2-5 steps from two
 * columns up: 50 us is 4 columns, 100 us 8 columns (labels "900 us" need 6 +
 * 3 = 9), 200 us 16 columns: ticks at 0, 16, 32, 48, 64. */
static void test_ruler_ms(void **state)
{
    (void)state;
    ruler_plan rp;
    ruler_plan_make(&rp, 0, 12500, 80);
    assert_int_equal(rp.step, 200000);
    assert_int_equal(rp.unit_exp, 3);
    assert_int_equal(rp.decimals, 0);
    const int xs[] = {0, 16, 32, 48, 64};
    const char *const labels[] = {"0 us", "200 us", "400 us", "600 us", "800 us"};
    expect_ticks(&rp, xs, labels, 5);
}

/* 1 ns per column over 80: step 2 and 5 are too tight for "78 ns" (5 + 3
 * columns), 10 ns fits: ticks 0, 10, .., 70. */
static void test_ruler_ns(void **state)
{
    (void)state;
    ruler_plan rp;
    ruler_plan_make(&rp, 0, 1, 80);
    assert_int_equal(rp.step, 10);
    assert_int_equal(rp.unit_exp, 0);
    assert_int_equal(rp.nticks, 8);
    assert_string_equal(rp.ticks[7].label, "70 ns");
    assert_int_equal(rp.ticks[7].x, 70);
}

/* [1 ms, 1.1 ms) at 1 us per column over 100 columns: labels are in ms;
 * 2 us and 5 us steps need 3 decimals ("1.000 ms", 8 + 3 columns) and are
 * too tight; 10 us needs 2 decimals ("1.00 ms", 7 + 3 = 10) and is 10
 * columns: ticks every 10 columns. */
static void test_ruler_decimals(void **state)
{
    (void)state;
    ruler_plan rp;
    ruler_plan_make(&rp, 1000000, 1000, 100);
    assert_int_equal(rp.step, 10000);
    assert_int_equal(rp.unit_exp, 6);
    assert_int_equal(rp.decimals, 2);
    assert_int_equal(rp.nticks, 10);
    assert_string_equal(rp.ticks[0].label, "1.00 ms");
    assert_string_equal(rp.ticks[1].label, "1.01 ms");
    assert_string_equal(rp.ticks[9].label, "1.09 ms");
    assert_int_equal(rp.ticks[9].x, 90);
}

/* [-5 us, 5 us) at 100 ns per column: largest |t| 5000 -> us; 200 ns and
 * 500 ns steps too tight, 1 us (10 columns) fits "-5 us" (5 + 3). */
static void test_ruler_negative(void **state)
{
    (void)state;
    ruler_plan rp;
    ruler_plan_make(&rp, -5000, 100, 100);
    assert_int_equal(rp.step, 1000);
    assert_int_equal(rp.nticks, 10);
    assert_string_equal(rp.ticks[0].label, "-5 us");
    assert_int_equal(rp.ticks[0].x, 0);
    assert_string_equal(rp.ticks[5].label, "0 us");
    assert_int_equal(rp.ticks[5].x, 50);
    assert_string_equal(rp.ticks[9].label, "4 us");
}

static void test_ruler_labels(void **state)
{
    (void)state;
    char b[32];
    assert_string_equal(ruler_label(b, sizeof b, 1500, 3, 1), "1.5 us");
    assert_string_equal(ruler_label(b, sizeof b, -20, 0, 0), "-20 ns");
    assert_string_equal(ruler_label(b, sizeof b, 2500000000, 9, 1), "2.5 s");
    assert_string_equal(ruler_label(b, sizeof b, 60000000000, 9, 0), "60 s");
    assert_string_equal(ruler_label(b, sizeof b, 1050000, 6, 2), "1.05 ms");
    /* Rounded half up as timefmt rounds (740.4 ms in every view). */
    assert_string_equal(ruler_label(b, sizeof b, 740449999, 6, 1), "740.4 ms");
    assert_string_equal(ruler_label(b, sizeof b, 740450000, 6, 1), "740.5 ms");
    assert_string_equal(ruler_label(b, sizeof b, 999960000, 6, 1), "1000.0 ms");
    assert_string_equal(ruler_label(b, sizeof b, -1549, 3, 1), "-1.5 us");
    assert_string_equal(ruler_label(b, sizeof b, -40, 3, 1), "0.0 us");
    assert_int_equal(ruler_nice_step(1), 1);
    assert_int_equal(ruler_nice_step(3), 5);
    assert_int_equal(ruler_nice_step(12500), 20000);
    assert_int_equal(ruler_nice_step(100), 100);
    assert_int_equal(ruler_nice_step(INT64_MAX), INT64_MAX);
    /* Huge windows end without overflow. */
    ruler_plan rp;
    ruler_plan_make(&rp, INT64_MAX - 1000, INT64_MAX / 400, 100);
    assert_true(rp.nticks <= RULER_MAX_TICKS);
}

/* ----------------------------------------------------- zoom and pan */

/* Data [0, 8000] over 80 columns: fit is 100 ns per column.  The view
 * never reaches past the end nor before 0, so the widest view is the fit,
 * ceil(8000 / 80) = 100 ns per column: zooming out from it changes
 * nothing. */
static void test_zoom_pan(void **state)
{
    (void)state;
    tl_view v = {0, 0, 80};
    tl_fit(&v, 0, 8000);
    assert_int_equal(v.npc, 100);
    assert_int_equal(v.t0, 0);
    assert_int_equal(tl_npc_max(0, 8000, 80), 100);
    assert_false(tl_zoom(&v, 40, -1, 0, 8000));
    assert_int_equal(v.npc, 100);
    assert_int_equal(v.t0, 0);
    /* Zoom in at column 40: its start time, 4000, stays:
     * npc 50, t0 = 4000 - 40*50 = 2000. */
    assert_true(tl_zoom(&v, 40, 1, 0, 8000));
    assert_int_equal(v.npc, 50);
    assert_int_equal(v.t0, 2000);
    assert_int_equal(tl_col_time(&v, 40), 4000);
    /* Five more steps in at column 13 (npc 25, 12, 6, 3, 1): the time of
     * column 13 (2000 + 13*50 = 2650) never drifts. */
    for (int k = 0; k < 5; k++) {
        assert_true(tl_zoom(&v, 13, 1, 0, 8000));
        assert_int_equal(tl_col_time(&v, 13), 2650);
    }
    assert_int_equal(v.npc, 1);
    assert_false(tl_zoom(&v, 13, 1, 0, 8000));
    /* And out again: still 2650 under column 13 up to npc 64. */
    for (int k = 0; k < 6; k++) {
        assert_true(tl_zoom(&v, 13, -1, 0, 8000));
        assert_int_equal(tl_col_time(&v, 13), 2650);
    }
    assert_int_equal(v.npc, 64);
    /* Then 100 (the limit, the fit): t0 = 2650 - 13*100 = 1350 would end
     * at 9350 > 8000, so t0 = 8000 - 8000 = 0. */
    assert_true(tl_zoom(&v, 13, -1, 0, 8000));
    assert_int_equal(v.npc, 100);
    assert_int_equal(v.t0, 0);
    assert_false(tl_zoom(&v, 13, -1, 0, 8000));
    /* Zooming out at the right end stops at the end: from [8000, 8800)
     * at column 70 (8700): npc 20, t0 = 8700 - 1400 = 7300 would end at
     * 8900 > 8000, so t0 = 8000 - 1600 = 6400; then column 70 is 7800,
     * npc 40, t0 = 7800 - 2800 = 5000 would end at 8200, so 8000 - 3200. */
    v = (tl_view){8000, 10, 80};
    assert_true(tl_zoom(&v, 70, -1, 0, 8000));
    assert_int_equal(v.npc, 20);
    assert_int_equal(v.t0, 6400);
    assert_true(tl_zoom(&v, 70, -1, 0, 8000));
    assert_int_equal(v.npc, 40);
    assert_int_equal(v.t0, 4800);
    /* At npc 100 the view is the whole profile: a pan either way stays. */
    v = (tl_view){0, 100, 80};
    tl_pan(&v, 10, 0, 8000);
    assert_int_equal(v.t0, 0);
    tl_pan(&v, -1000000000000, 0, 8000);
    assert_int_equal(v.t0, 0);
    tl_pan(&v, INT64_MAX, 0, 8000);
    assert_int_equal(v.t0, 0);
    /* At npc 50 (half of it) far right stops at 8000 - 4000. */
    v = (tl_view){0, 50, 80};
    tl_pan(&v, INT64_MAX, 0, 8000);
    assert_int_equal(v.t0, 4000);
    /* A call [1000, 1300]: span 300, room for 400 -> npc 5, centred:
     * t0 = 1150 - 40*5 = 950. */
    tl_show_span(&v, 1000, 1300, 0, 8000);
    assert_int_equal(v.npc, 5);
    assert_int_equal(v.t0, 950);
}

/* Header and cursor times: the unit of the largest value, one digit more
 * than the column width needs. */
static void test_precision(void **state)
{
    (void)state;
    int ue, d;
    char buf[32];
    /* 1.538 s at 100 ns per column: 10^(9-7) = 100 <= 100, so 7 + 1. */
    ruler_precision(1538123456, 100, &ue, &d);
    assert_int_equal(ue, 9);
    assert_int_equal(d, 8);
    /* rounded half up at the last digit shown: ...3456 -> ...346 */
    assert_string_equal(ruler_label(buf, sizeof buf, 1538123456, ue, d), "1.53812346 s");
    /* 2048 ns at 32 ns per column: us, 10 <= 32 at 2 decimals, so 3. */
    ruler_precision(2048, 32, &ue, &d);
    assert_int_equal(ue, 3);
    assert_int_equal(d, 3);
    /* 1 ns per column: every digit, no more. */
    ruler_precision(1538123456, 1, &ue, &d);
    assert_int_equal(d, 9);
    /* 10 s at 156 ms per column: 10^8 <= 1.56e8 at 1, so 2. */
    ruler_precision(10000000000, 156250000, &ue, &d);
    assert_int_equal(ue, 9);
    assert_int_equal(d, 2);
    /* Below 1 us: ns, no decimals. */
    ruler_precision(999, 5, &ue, &d);
    assert_int_equal(ue, 0);
    assert_int_equal(d, 0);
}

static void test_extremes(void **state)
{
    (void)state;
    /* Times near both ends of int64: nothing overflows, columns stay ordered. */
    int64_t lo = INT64_MIN + 10, hi = INT64_MAX - 10;
    tl_view v = {0, 1, 80};
    tl_fit(&v, lo, hi);
    assert_true(v.npc >= 1);
    assert_true(v.npc <= INT64_MAX / (4 * 81));
    assert_true(tl_col_time(&v, 80) > tl_col_time(&v, 0));
    tl_pan(&v, INT64_MAX, lo, hi);
    assert_true(tl_col_time(&v, 40) <= hi);
    tl_zoom(&v, 0, -1, lo, hi);
    tl_zoom(&v, 79, 1, lo, hi);
    assert_true(v.npc >= 1);
    v = (tl_view){0, 1, 80};
    tl_fit(&v, INT64_MAX - 1000, INT64_MAX - 10);
    assert_int_equal(v.npc, 13); /* ceil(990 / 80) */
    tl_zoom(&v, 79, -1, INT64_MAX - 1000, INT64_MAX - 10);
    assert_true(tl_col_time(&v, 80) >= tl_col_time(&v, 79));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_columns),
        cmocka_unit_test(test_cells_fine),
        cmocka_unit_test(test_cells_coarse),
        cmocka_unit_test(test_density),
        cmocka_unit_test(test_depth_rows),
        cmocka_unit_test(test_await_cells),
        cmocka_unit_test(test_load_level),
        cmocka_unit_test(test_await_placed),
        cmocka_unit_test(test_sweep_matches_general),
        cmocka_unit_test(test_ruler_ms),
        cmocka_unit_test(test_ruler_ns),
        cmocka_unit_test(test_ruler_decimals),
        cmocka_unit_test(test_ruler_negative),
        cmocka_unit_test(test_ruler_labels),
        cmocka_unit_test(test_zoom_pan),
        cmocka_unit_test(test_precision),
        cmocka_unit_test(test_extremes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
