/* tl_ooc: what a timeline column shows from the out-of-core map, the
 * legend, and rows drawn into a grid from a map of a small profile, all
 * worked out by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/lanes.h"
#include "memprof.h"
#include "ooc/ooc_map.h"
#include "ui/term.h"
#include "testutil.h"
#include "view/timeline/tl_ooc.h"
#include "view/timeline/tl_state.h"

static void check_kind(uint64_t busy, uint64_t calls, int64_t npc, tl_ooc_kind kind, int level)
{
    ooc_col c = {busy, calls, calls ? 7 : -1, 3};
    tl_ooc_cell got = tl_ooc_cell_of(&c, npc);
    if (got.kind != kind || (kind == TL_OOC_LOAD && got.level != level))
        fail_msg("busy %llu calls %llu npc %lld: kind %d level %d, want %d %d",
                 (unsigned long long)busy, (unsigned long long)calls, (long long)npc, got.kind,
                 got.level, kind, level);
    if (kind != TL_OOC_EMPTY && (!got.has_reg || got.reg != 3))
        fail_msg("busy %llu calls %llu: the longest call's region is lost",
                 (unsigned long long)busy, (unsigned long long)calls);
}

static void test_cell_of(void **state)
{
    (void)state;
    check_kind(0, 0, 30, TL_OOC_EMPTY, 0);
    check_kind(30, 1, 30, TL_OOC_FULL, 0);  /* one call over the whole column */
    check_kind(29, 1, 30, TL_OOC_LOAD, 2);  /* one call, not all of it */
    check_kind(30, 2, 30, TL_OOC_LOAD, 2);  /* two calls fill it: not one bar */
    check_kind(0, 3, 30, TL_OOC_LOAD, 0);   /* zero-length calls still show */
    check_kind(9, 2, 30, TL_OOC_LOAD, 0);   /* under a third */
    check_kind(10, 2, 30, TL_OOC_LOAD, 1);  /* a third */
    check_kind(19, 2, 30, TL_OOC_LOAD, 1);  /* under two thirds */
    check_kind(20, 2, 30, TL_OOC_LOAD, 2);  /* two thirds */
    check_kind(200, 5, 30, TL_OOC_LOAD, 2); /* overlapping calls (explicit ids) */
}

static void test_legend(void **state)
{
    (void)state;
    char buf[300];
    const char *e = tl_ooc_legend(buf, sizeof buf, true, true);
    assert_true(strncmp(e, "overview (out of core): zoom in for calls; ", 43) == 0);
    assert_non_null(strstr(e, "exact columns"));
    assert_null(strstr(e, "approx"));
    assert_non_null(strstr(e, ": <1/3 % <2/3 @ more"));
    for (const char *p = e; *p; p++)
        assert_true((unsigned char)*p < 128);
    e = tl_ooc_legend(buf, sizeof buf, false, false);
    assert_non_null(strstr(e, "approx"));
    assert_null(strstr(e, "exact"));
    assert_non_null(strstr(e, "\u2236 <1/3 \u2237 <2/3 \u2593 more"));
    assert_string_equal(tl_ooc_header(buf, sizeof buf, true),
                        "overview (out of core, exact columns): zoom in for calls");
    assert_string_equal(tl_ooc_header(buf, sizeof buf, false),
                        "overview (out of core, approx. columns): zoom in for calls");
}

/* ------------------------------------------------------------ drawing */

typedef struct fixture {
    profile *p;
    lanes_index *ix;
    ooc_map m;
    tl_state *s;
    ui_ctx ctx;
} fixture;

static void fixture_open(fixture *f, profile *p, int64_t t0, int64_t npc, int tw)
{
    memset(f, 0, sizeof *f);
    f->p = p;
    sv_error err;
    assert_int_equal(lanes_build(p, NULL, &f->ix, &err), SV_OK);
    assert_true(ooc_map_from_lanes(f->ix, &f->m));
    f->s = calloc(1, sizeof *f->s);
    assert_non_null(f->s);
    f->s->ix = f->ix;
    f->s->ooc_map = &f->m;
    f->s->v = (tl_view){t0, npc, tw};
    f->s->geo.tx = 2;
    f->s->geo.tw = tw;
    f->ctx.prof = p;
    assert_true(grid_resize(&f->ctx.grid, tw + 4, 3));
    f->ctx.grid.ascii = true;
    grid_clear(&f->ctx.grid);
}

static void fixture_close(fixture *f)
{
    grid_free(&f->ctx.grid);
    free(f->s);
    ooc_map_free(&f->m);
    lanes_free(f->ix);
    profile_free(f->p);
}

static const cell *at(const fixture *f, int x, int y)
{
    return &f->ctx.grid.cells[(size_t)y * (size_t)f->ctx.grid.cols + (size_t)(f->s->geo.tx + x)];
}

static void check_at(const fixture *f, int x, uint32_t ch, int role)
{
    const cell *c = at(f, x, 1);
    if (c->ch != ch || c->role != role)
        fail_msg("column %d: '%c' role %d, want '%c' role %d", x, (int)c->ch, c->role, (int)ch,
                 role);
}

/* Rank 0, one depth row: a [0, 100) and [150, 160), b [120, 125), c a
 * zero-length call at 140.  10 ns columns from 0. */
static void test_draw_row(void **state)
{
    (void)state;
    profile *p = profile_new("mem");
    rank_data *rk = profile_add_rank(p, 0);
    mp_region(rk, "a", 2, (int64_t[]){0, 150}, (int64_t[]){100, 160});
    mp_region(rk, "b", 1, (int64_t[]){120}, (int64_t[]){125});
    mp_region(rk, "c", 1, (int64_t[]){140}, (int64_t[]){140});
    mp_finish(p);
    fixture f;
    fixture_open(&f, p, 0, 10, 20);
    assert_int_equal(f.ix->nlanes, 1);
    assert_true(tl_ooc_view_exact(f.s));
    tl_ooc_draw_row(f.s, &f.ctx, 0, 0, 1);
    int ra = theme_region_role("a");
    check_at(&f, 0, 'a', ra); /* a bar run's region named at its start */
    for (int x = 1; x < 10; x++)
        check_at(&f, x, ' ', ra);
    check_at(&f, 10, ' ', ROLE_NORMAL); /* empty: left as it was */
    check_at(&f, 11, ' ', ROLE_NORMAL);
    check_at(&f, 12, '%', ROLE_DENSE); /* b: half the column */
    check_at(&f, 13, ' ', ROLE_NORMAL);
    check_at(&f, 14, ':', ROLE_DENSE); /* c: zero-length, still there */
    check_at(&f, 15, 'a', ra);         /* one column, the name fits */
    check_at(&f, 16, ' ', ROLE_NORMAL);
    /* Not a single cell outside the time axis, nor on other lines. */
    for (int y = 0; y < 3; y += 2)
        for (int x = -2; x < 22; x++)
            assert_int_equal(at(&f, x, y)->role, ROLE_NORMAL);
    /* A depth the lane does not have: nothing. */
    grid_clear(&f.ctx.grid);
    tl_ooc_draw_row(f.s, &f.ctx, 0, 1, 1);
    for (int x = 0; x < 20; x++)
        check_at(&f, x, ' ', ROLE_NORMAL);
    /* 1 ns buckets here: any view is whole buckets of level 0. */
    f.s->v = (tl_view){3, 7, 20};
    assert_true(tl_ooc_view_exact(f.s));
    fixture_close(&f);
}

/* A chain 20 deep: row 3 is one call [30, 970); rows 16.. are not in the
 * map and say so. */
static void test_draw_deep(void **state)
{
    (void)state;
    int64_t s[20], e[20];
    for (int i = 0; i < 20; i++) {
        s[i] = 10 * i;
        e[i] = 1000 - 10 * i;
    }
    profile *p = profile_new("mem");
    mp_region(profile_add_rank(p, 0), "f", 20, s, e);
    mp_finish(p);
    fixture f;
    fixture_open(&f, p, 0, 100, 10);
    tl_ooc_draw_row(f.s, &f.ctx, 0, 3, 1);
    check_at(&f, 0, '@', ROLE_DENSE); /* 70 of 100 */
    check_at(&f, 1, 'f', theme_region_role("f"));
    for (int x = 2; x < 9; x++)
        check_at(&f, x, ' ', theme_region_role("f"));
    check_at(&f, 9, '@', ROLE_DENSE);
    grid_clear(&f.ctx.grid);
    tl_ooc_draw_row(f.s, &f.ctx, 0, 17, 1);
    char line[16] = "";
    for (int x = 1; x < 10; x++) /* 9 columns: cut, '~' in ASCII */
        line[x - 1] = (char)at(&f, x, 1)->ch;
    assert_string_equal(line, "calls th~");
    assert_int_equal(at(&f, 1, 1)->role, ROLE_DIM);
    fixture_close(&f);
}

/* The map's grid is coarser than the view: 4096 lanes leave 32 buckets of
 * 64 ns for [0, 2000); 10 ns columns are narrower than a bucket and say
 * "approx." (tl_ooc_view_exact false), 64 ns columns from 0 are exact. */
static void test_view_exact(void **state)
{
    (void)state;
    ooc_map m;
    assert_true(ooc_map_init(&m, 0, 1999, 4096));
    assert_int_equal(m.shift, 6);
    tl_state *s = calloc(1, sizeof *s);
    assert_non_null(s);
    s->ooc_map = &m;
    s->v = (tl_view){0, 10, 80};
    assert_false(tl_ooc_view_exact(s));
    s->v = (tl_view){0, 64, 80};
    assert_true(tl_ooc_view_exact(s));
    s->v = (tl_view){32, 64, 80};
    assert_false(tl_ooc_view_exact(s));
    s->ooc_map = NULL;
    assert_false(tl_ooc_view_exact(s));
    free(s);
    ooc_map_free(&m);
}

/* The open's progress line: percent while the first read goes, then what
 * the out-of-core open is doing, never a 100% that sits for seconds. */
static void test_progress_line(void **state)
{
    (void)state;
    char buf[160];
    term_progress_state ps = {.label = "big.h5"};
    term_progress_line(buf, sizeof buf, &ps, 500000, 2000000);
    assert_string_equal(buf, "scopeview: loading big.h5:  25% (0.5 of 2.0 MB)  ");
    term_progress_line(buf, sizeof buf, &ps, 2000000, 2000000);
    assert_string_equal(buf, "scopeview: loading big.h5: 100% (2.0 of 2.0 MB)  ");
    ps.full_note = "out of core, passes over the calls\u2026";
    term_progress_line(buf, sizeof buf, &ps, 1000000, 2000000);
    assert_string_equal(buf, "scopeview: loading big.h5:  50% (1.0 of 2.0 MB)  ");
    term_progress_line(buf, sizeof buf, &ps, 1980000, 2000000);
    assert_string_equal(buf, "scopeview: loading big.h5:  99% (2.0 of 2.0 MB)  ");
    /* The file's metadata is never counted: 99.95% is the end of the first read. */
    term_progress_line(buf, sizeof buf, &ps, 1999000, 2000000);
    assert_string_equal(buf,
                        "scopeview: loading big.h5: out of core, passes over the calls\u2026  ");
    ps.label = "a\x1b[2Jb.h5"; /* a file's name never reaches the terminal raw */
    term_progress_line(buf, sizeof buf, &ps, 0, 10);
    assert_null(strchr(buf, 0x1b));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cell_of),    cmocka_unit_test(test_legend),
        cmocka_unit_test(test_draw_row),   cmocka_unit_test(test_draw_deep),
        cmocka_unit_test(test_view_exact), cmocka_unit_test(test_progress_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
