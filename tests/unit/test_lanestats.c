/* Lane load: busy intervals (union of a row's calls), busy time in a
 * window, per-lane statistics and the utilisation sparkline.  Every
 * expectation is worked out by hand in the comments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/lanestats.h"
#include "memprof.h"

/* One legacy lane (one rank, no threads):
 *   A [0,100)  with B [50,80) inside it (depth 1)
 *   C [200,300) awaiting 40 ns, D [300,350) touching it
 *   E [500,500] zero length, F [600,1000)
 * Top level: A C D E F; union = 100 + 150 + 400 = 650 of a 1000 ns span. */
static profile *one_lane(void)
{
    profile *p = profile_new("mem");
    rank_data *rk = profile_add_rank(p, 0);
    int64_t s[] = {0, 50, 200, 300, 500, 600}, e[] = {100, 80, 300, 350, 500, 1000};
    const char *names[] = {"A", "B", "C", "D", "E", "F"};
    for (size_t k = 0; k < 6; k++) {
        region *r = mp_region(rk, names[k], 1, &s[k], &e[k]);
        if (k == 2) {
            int64_t aw = 40;
            mp_col(&r->await_ns, &aw, 1);
        }
    }
    mp_finish(p);
    return p;
}

static lanes_index *index_of(profile *p)
{
    lanes_index *ix = NULL;
    sv_error err;
    sv_error_clear(&err);
    if (lanes_build(p, NULL, &ix, &err) != SV_OK)
        fail_msg("lanes_build: %s", err.msg);
    return ix;
}

/* A row of 40 apart calls (call k: [100k, 100k + 10 + k)) keeps no copy of
 * its intervals (resident size): the busy time of any window
 * equals the calls clipped to it, summed here one by one. */
static void test_busy_direct(void **state)
{
    (void)state;
    enum { NC = 40 };
    int64_t s[NC], e[NC];
    for (int k = 0; k < NC; k++) {
        s[k] = 100 * k;
        e[k] = 100 * k + 10 + k;
    }
    profile *p = profile_new("mem");
    mp_region(profile_add_rank(p, 0), "f", NC, s, e);
    mp_finish(p);
    lanes_index *ix = index_of(p);
    const lane *ln = &ix->lanes[0];
    lane_busy b;
    sv_error err;
    assert_int_equal(lane_busy_build(ln, &ln->rows[0], &b, &err), SV_OK);
    assert_null(b.s); /* read through the row */
    assert_int_equal(lane_busy_all(&b), 400 + 780);
    assert_int_equal(lane_busy_between(&b, 0, 1000), 145);           /* 10 + ... + 19 */
    assert_int_equal(lane_busy_between(&b, 105, 2005), 6 + 369 + 5); /* by hand */
    size_t hint = 0;
    for (int64_t t0 = -50; t0 < 4200; t0 += 37)
        for (int64_t t1 = t0; t1 < 4200; t1 += 211) {
            int64_t want = 0;
            for (int k = 0; k < NC; k++) {
                int64_t a = s[k] > t0 ? s[k] : t0, z = e[k] < t1 ? e[k] : t1;
                want += z > a ? z - a : 0;
            }
            assert_int_equal(lane_busy_between(&b, t0, t1), want);
            /* Searches from the last one's end, forwards and back. */
            assert_int_equal(
                lane_busy_before_from(&b, t1, &hint) - lane_busy_before_from(&b, t0, &hint), want);
        }
    lane_busy_free(&b);
    lanes_free(ix);
    profile_free(p);
}

static void test_busy_intervals(void **state)
{
    (void)state;
    profile *p = one_lane();
    lanes_index *ix = index_of(p);
    assert_int_equal(ix->nlanes, 1);
    const lane *ln = &ix->lanes[0];
    assert_int_equal(ln->ndepth, 2);
    lane_busy b;
    sv_error err;
    assert_int_equal(lane_busy_build(ln, &ln->rows[0], &b, &err), SV_OK);
    /* A; C and D merged (they touch); E covers nothing; F. */
    assert_int_equal(b.n, 3);
    assert_int_equal(b.s[1], 200);
    assert_int_equal(b.e[1], 350);
    assert_int_equal(b.cum[3], 650);
    assert_int_equal(lane_busy_between(&b, 0, 1000), 650);
    assert_int_equal(lane_busy_between(&b, 90, 250), 10 + 50);
    assert_int_equal(lane_busy_between(&b, 350, 600), 0);
    assert_int_equal(lane_busy_between(&b, -5, 5), 5);
    assert_int_equal(lane_busy_between(&b, 250, 250), 0);
    assert_int_equal(lane_busy_between(&b, 999, 5000), 1);
    assert_int_equal(lane_busy_between(&b, 210, 220), 10); /* inside one interval */
    lane_busy_free(&b);
    /* Depth 1: B alone. */
    assert_int_equal(lane_busy_build(ln, &ln->rows[1], &b, &err), SV_OK);
    assert_int_equal(lane_busy_between(&b, 0, 1000), 30);
    assert_int_equal(lane_busy_between(&b, 60, 70), 10);
    lane_busy_free(&b);
    lanes_free(ix);
    profile_free(p);
}

/* Every window of a small random union against a count of covered ns. */
/* A query's cost must not grow with the row (a density cell is drawn per
 * column, on 10M-call files too): on a row of 2^20 apart calls, call k
 * [100k, 100k + 50), every busy-time query reads at most LANES_BLOCK + 6
 * calls (a binary search over every call would read 20 for its search
 * alone, plus up to 15 for the running total).  Values by hand: the calls
 * wholly before t (50 ns each) and the part of the one t falls in. */
static void test_busy_reads_bounded(void **state)
{
    (void)state;
    enum { NC = 1 << 20 };
    int64_t *s = malloc(NC * sizeof *s), *e = malloc(NC * sizeof *e);
    assert_non_null(s);
    assert_non_null(e);
    for (int64_t k = 0; k < NC; k++) {
        s[k] = 100 * k;
        e[k] = 100 * k + 50;
    }
    profile *p = profile_new("mem");
    mp_region(profile_add_rank(p, 0), "f", NC, s, e);
    mp_finish(p);
    free(s);
    free(e);
    lanes_index *ix = index_of(p);
    const lane *ln = &ix->lanes[0];
    lane_busy b;
    sv_error err;
    assert_int_equal(lane_busy_build(ln, &ln->rows[0], &b, &err), SV_OK);
    assert_null(b.s);
    size_t worst = 0;
    for (int64_t t = -7; t < 100 * (int64_t)NC + 300; t += 99991) {
        size_t reads = 0;
        int64_t k = t < 0 ? 0 : t / 100, in = t < 0 ? 0 : t - 100 * k;
        k = k < NC ? k : NC;
        int64_t want = 50 * k + (k < NC ? (in < 50 ? in : 50) : 0);
        assert_int_equal(lane_busy_before_counted(&b, t, &reads), want);
        worst = reads > worst ? reads : worst;
    }
    if (worst > LANES_BLOCK + 6)
        fail_msg("a busy-time query read %zu calls of a 2^20-call row (at most %d)", worst,
                 LANES_BLOCK + 6);
    /* Searches that start where the last ended (a row's cells, left to
     * right): the same values, steps short and long, then steps back. */
    size_t hint = 0;
    const int64_t end = 100 * (int64_t)NC;
    int64_t ts[] = {-5,    0,      49,      50,      51,      1599,     1600, 1650, 1651,
                    99999, 100000, 5000025, 5000075, end - 1, end + 10, 777,  3,    250};
    for (size_t j = 0; j < sizeof ts / sizeof ts[0]; j++) {
        int64_t t = ts[j], k = t < 0 ? 0 : t / 100, in = t < 0 ? 0 : t - 100 * k;
        k = k < NC ? k : NC;
        int64_t want = 50 * k + (k < NC ? (in < 50 ? in : 50) : 0);
        assert_int_equal(lane_busy_before_from(&b, t, &hint), want);
    }
    lane_busy_free(&b);
    lanes_free(ix);
    profile_free(p);
}

static void test_busy_brute(void **state)
{
    (void)state;
    profile *p = profile_new("mem");
    rank_data *rk = profile_add_rank(p, 0);
    srand(7);
    int64_t t = 0;
    char name[8];
    for (int k = 0; k < 40; k++) {
        int64_t s = t + rand() % 7, e = s + rand() % 9;
        snprintf(name, sizeof name, "r%d", k);
        mp_region(rk, name, 1, &s, &e);
        t = e;
    }
    mp_finish(p);
    lanes_index *ix = index_of(p);
    const lane *ln = &ix->lanes[0];
    lane_busy b;
    sv_error err;
    assert_int_equal(lane_busy_build(ln, &ln->rows[0], &b, &err), SV_OK);
    const region *const *rs = (const region *const *)rk->regions;
    for (int64_t a = -2; a < t + 2; a += 3)
        for (int64_t z = a; z < t + 3; z += 5) {
            int64_t want = 0;
            for (int64_t x = a; x < z; x++) {
                bool covered = false;
                for (size_t j = 0; j < rk->nregions && !covered; j++)
                    covered = rs[j]->start_ns[0] <= x && x < rs[j]->end_ns[0];
                want += covered;
            }
            assert_int_equal(lane_busy_between(&b, a, z), want);
        }
    lane_busy_free(&b);
    lanes_free(ix);
    profile_free(p);
}

static void test_lane_stats(void **state)
{
    (void)state;
    profile *p = one_lane();
    lanes_index *ix = index_of(p);
    lanestats *ls = NULL;
    sv_error err;
    assert_int_equal(lanestats_build(ix, &ls, &err), SV_OK);
    assert_int_equal(ls->n, 1);
    const lane_stat *st = &ls->st[0];
    assert_int_equal(st->busy, 650);
    assert_int_equal(st->awaited, 40);
    assert_int_equal(st->idle, 1000 - 650);
    assert_int_equal(st->calls, 6);
    assert_int_equal(st->first, 0);
    assert_int_equal(st->last, 1000);
    /* Exclusive: A 100-30 = 70, B 30, C 100, D 50, E 0, F 400. */
    assert_non_null(st->busiest);
    assert_string_equal(st->busiest->name, "F");
    assert_int_equal(st->busiest_excl, 400);
    /* Four slices of 250 ns: 150, 100, 150, 250 busy. */
    double u[4];
    lanestats_spark(ls, 0, 0, 1000, 4, u);
    assert_true(u[0] > 0.599 && u[0] < 0.601);
    assert_true(u[1] > 0.399 && u[1] < 0.401);
    assert_true(u[2] > 0.599 && u[2] < 0.601);
    assert_true(u[3] > 0.999 && u[3] <= 1.0);
    /* Three uneven slices of [0, 1000): 333, 333, 334 ns. */
    double v[3];
    lanestats_spark(ls, 0, 0, 1000, 3, v);
    /* [0,333): 100 + 133 = 233; [333,666): 17 + 66 = 83; [666,1000): 334. */
    assert_true(v[0] > 233.0 / 333 - 1e-9 && v[0] < 233.0 / 333 + 1e-9);
    assert_true(v[1] > 83.0 / 333 - 1e-9 && v[1] < 83.0 / 333 + 1e-9);
    assert_true(v[2] > 1.0 - 1e-9);
    lanestats_free(ls);
    lanes_free(ix);
    profile_free(p);
}

/* Tasks idle only between their creation and their end:
 *   main [0, 1000) outside any task (the span is [0, 1000));
 *   task 0 created 100, done 400: work [150, 250) and [320, 360): busy
 *     140, idle (400 - 100) - 140 = 160 (was 1000 - 140 = 860);
 *   task 1 created 300, unfinished (-1): work [500, 700): busy 200, idle
 *     (1000 - 300) - 200 = 500;
 *   the main lane keeps the whole span: busy 1000, idle 0. */
static void test_task_idle(void **state)
{
    (void)state;
    profile *p = profile_new("mem");
    rank_data *rk = profile_add_rank(p, 0);
    int64_t ms = 0, me = 1000;
    region *m = mp_region(rk, "main", 1, &ms, &me);
    int64_t none = -1;
    mp_col(&m->task_ids, &none, 1);
    int64_t ws[] = {150, 320, 500}, we[] = {250, 360, 700}, wt[] = {0, 0, 1};
    region *w = mp_region(rk, "work", 3, ws, we);
    mp_col(&w->task_ids, wt, 3);
    int64_t created[] = {100, 300}, done[] = {400, -1};
    rk->has_tasks = true;
    rk->tasks.n = 2;
    mp_col(&rk->tasks.created_ns, created, 2);
    mp_col(&rk->tasks.done_ns, done, 2);
    mp_finish(p);
    lanes_index *ix = index_of(p);
    lanestats *ls = NULL;
    sv_error err;
    assert_int_equal(lanestats_build(ix, &ls, &err), SV_OK);
    assert_int_equal(ls->n, 3);
    int seen = 0;
    for (size_t l = 0; l < ls->n; l++) {
        const lane *ln = &ix->lanes[l];
        const lane_stat *st = &ls->st[l];
        if (ln->kind == LANE_TASK && ln->row == 0) {
            assert_int_equal(st->busy, 140);
            assert_int_equal(st->idle, 160);
            seen |= 1;
        } else if (ln->kind == LANE_TASK && ln->row == 1) {
            assert_int_equal(st->busy, 200);
            assert_int_equal(st->idle, 500);
            seen |= 2;
        } else {
            assert_int_equal(st->busy, 1000);
            assert_int_equal(st->idle, 0);
            seen |= 4;
        }
    }
    assert_int_equal(seen, 7);
    lanestats_free(ls);
    lanes_free(ix);
    profile_free(p);
}

static bool not_inner(const region *r, void *user)
{
    (void)user;
    return strcmp(r->name, "inner") != 0;
}

/* One lane holding every call of its rank (exclusive times met family by
 * family) and the same lane with a region left out of the index (each
 * call's own exclusive time):
 *   outer [0,100) holding inner [10,40) and [50,60);
 *   outer [200,400) holding inner [250,390).
 * Exclusive: outer 100 - 40 + 200 - 140 = 120, inner 30 + 10 + 140 = 180.
 * Left out, the outer calls still lose their children's time: 120, and
 * the rank's row (one lane) says what the lane says. */
static void test_busiest_whole_and_filtered(void **state)
{
    (void)state;
    profile *p = profile_new("mem");
    rank_data *rk = profile_add_rank(p, 0);
    int64_t os[] = {0, 200}, oe[] = {100, 400};
    int64_t is[] = {10, 50, 250}, ie[] = {40, 60, 390};
    mp_region(rk, "outer", 2, os, oe);
    mp_region(rk, "inner", 3, is, ie);
    mp_finish(p);
    for (int filtered = 0; filtered < 2; filtered++) {
        lanes_index *ix = NULL;
        sv_error err;
        sv_error_clear(&err);
        assert_int_equal(lanes_build_where(p, NULL, filtered ? not_inner : NULL, NULL, &ix, &err),
                         SV_OK);
        lanestats *ls = NULL;
        assert_int_equal(lanestats_build(ix, &ls, &err), SV_OK);
        assert_int_equal(ls->n, 1);
        const lane_stat *st = &ls->st[0];
        assert_int_equal(st->calls, filtered ? 2 : 5);
        assert_non_null(st->busiest);
        assert_string_equal(st->busiest->name, filtered ? "outer" : "inner");
        assert_int_equal(st->busiest_excl, filtered ? 120 : 180);
        assert_int_equal(st->first, 0);
        assert_int_equal(st->last, 400);
        lane_stat t;
        assert_int_equal(lanestats_rank(ls, 0, &t, &err), SV_OK);
        assert_string_equal(t.busiest->name, st->busiest->name);
        assert_int_equal(t.busiest_excl, st->busiest_excl);
        assert_int_equal(t.busy, 300);
        assert_int_equal(t.idle, 400 - 300);
        lanestats_free(ls);
        /* A second holder (the lanes view borrowing the timeline's): the
         * first free leaves the index to it (ASan sees a use after free). */
        assert_ptr_equal(lanes_share(ix), ix);
        lanes_free(ix);
        assert_int_equal(ix->nlanes, 1);
        lanes_free(ix);
    }
    profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_busy_intervals),
        cmocka_unit_test(test_busy_direct),
        cmocka_unit_test(test_busy_brute),
        cmocka_unit_test(test_busy_reads_bounded),
        cmocka_unit_test(test_lane_stats),
        cmocka_unit_test(test_task_idle),
        cmocka_unit_test(test_busiest_whole_and_filtered),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
