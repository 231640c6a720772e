/* The out-of-core overview map (ooc_map.h): the grid, the accumulator and
 * the coarser levels on tiny maps worked out by hand, then on every shared
 * profile the columns of ooc_map_from_lanes against a brute-force pass over
 * the in-memory calls (a different algorithm: per call, the columns it
 * meets). */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/lanes.h"
#include "load/loader.h"
#include "memprof.h"
#include "ooc/ooc_map.h"
#include "testutil.h"

/* A hint that leaves 8 level-0 buckets a row: 2^21 / (16384 * 16). */
#define HINT8 16384

static const ooc_cell *cell(const ooc_map *m, size_t l, uint32_t d, unsigned level, size_t b)
{
    return m->lanes[l].cells + d * ooc_map_row_cells(m) + ooc_map_level_offset(m, level) + b;
}

static void check_cell(const ooc_map *m, unsigned level, size_t b, uint64_t busy, uint32_t starts,
                       uint32_t overlap, int64_t longest, uint32_t reg)
{
    const ooc_cell *c = cell(m, 0, 0, level, b);
    if (c->busy != busy || c->starts != starts || c->overlap != overlap || c->longest != longest ||
        (longest >= 0 && c->longest_reg != reg))
        fail_msg("level %u bucket %zu: busy %llu starts %u overlap %u longest %lld reg %u, "
                 "want %llu %u %u %lld %u",
                 level, b, (unsigned long long)c->busy, c->starts, c->overlap,
                 (long long)c->longest, c->longest_reg, (unsigned long long)busy, starts, overlap,
                 (long long)longest, reg);
}

static void check_col(const ooc_col *c, int i, uint64_t busy, uint64_t calls, int64_t longest,
                      uint32_t reg)
{
    if (c[i].busy != busy || c[i].calls != calls || c[i].longest != longest ||
        (longest >= 0 && c[i].longest_reg != reg))
        fail_msg("column %d: busy %llu calls %llu longest %lld reg %u, want %llu %llu %lld %u", i,
                 (unsigned long long)c[i].busy, (unsigned long long)c[i].calls,
                 (long long)c[i].longest, c[i].longest_reg, (unsigned long long)busy,
                 (unsigned long long)calls, (long long)longest, reg);
}

/* ------------------------------------------------------------ the grid */

static void test_grid(void **state)
{
    (void)state;
    ooc_map m;
    /* 80 ns over 8 buckets: 16 ns (shift 3 would need 10 buckets). */
    assert_true(ooc_map_init(&m, 0, 79, HINT8));
    assert_int_equal(m.shift, 4);
    assert_int_equal(m.nb, 8);
    assert_int_equal(m.nlevels, 4);
    assert_int_equal(m.origin, 0);
    assert_int_equal(ooc_map_row_cells(&m), 15);
    assert_int_equal(ooc_map_level_offset(&m, 1), 8);
    assert_int_equal(ooc_map_level_offset(&m, 3), 14);
    ooc_map_free(&m);
    /* The origin is a multiple of the width: 100 -> 96, (179 - 96) >> 4 = 5. */
    assert_true(ooc_map_init(&m, 100, 179, HINT8));
    assert_int_equal(m.shift, 4);
    assert_int_equal(m.origin, 96);
    assert_int_equal(m.nb, 8);
    ooc_map_free(&m);
    /* t_max itself is inside: [0, 15] fits 8 buckets of 2 ns. */
    assert_true(ooc_map_init(&m, 0, 15, HINT8));
    assert_int_equal(m.shift, 1);
    assert_int_equal(m.nb, 8);
    ooc_map_free(&m);
    /* One lane: up to 65536 buckets; 10^6 ns needs 16 ns buckets (62500). */
    assert_true(ooc_map_init(&m, 0, 999999, 1));
    assert_int_equal(m.shift, 4);
    assert_int_equal(m.nb, 65536);
    ooc_map_free(&m);
    /* Negative times and no calls (t_min > t_max). */
    assert_true(ooc_map_init(&m, -19, 2, HINT8)); /* 2 ns: 11 buckets, 4 ns: 6 */
    assert_int_equal(m.origin, -20);
    assert_int_equal(m.shift, 2);
    ooc_map_free(&m);
    assert_true(ooc_map_init(&m, 10, 0, HINT8));
    assert_int_equal(m.nb, 1);
    assert_int_equal(m.nlevels, 1);
    assert_int_equal(m.origin, 10);
    ooc_map_free(&m);
}

/* The budget's share of cells: an eighth of it at 64 bytes a level-0 cell
 * (all levels), between 2^15 and 2^21; the grid follows. */
static void test_cells_cap(void **state)
{
    (void)state;
    assert_int_equal(ooc_map_cells_cap(0), 2097152);
    assert_int_equal(ooc_map_cells_cap((uint64_t)1 << 20), 32768);  /* floor */
    assert_int_equal(ooc_map_cells_cap((uint64_t)16 << 20), 32768); /* 2 MiB / 64 */
    assert_int_equal(ooc_map_cells_cap((uint64_t)64 << 20), 131072);
    assert_int_equal(ooc_map_cells_cap((uint64_t)1 << 30), 2097152);
    assert_int_equal(ooc_map_cells_cap((uint64_t)64 << 30), 2097152); /* ceiling */
    ooc_map m;
    /* One lane, 32768 cells: 2048 buckets a row; 10^6 ns: 256 ns needs
     * 3907, 512 ns 1954 buckets. */
    assert_true(ooc_map_init_cap(&m, 0, 999999, 1, 32768));
    assert_int_equal(m.shift, 9);
    assert_int_equal(m.nb, 2048);
    ooc_map_free(&m);
    /* 0: today's cap, as ooc_map_init (65536 buckets, 16 ns). */
    assert_true(ooc_map_init_cap(&m, 0, 999999, 1, 0));
    assert_int_equal(m.shift, 4);
    assert_int_equal(m.nb, 65536);
    ooc_map_free(&m);
}

static void test_lane_order(void **state)
{
    (void)state;
    ooc_map m;
    assert_true(ooc_map_init(&m, 0, 79, HINT8));
    assert_int_equal(ooc_map_lane(&m, 1, LANE_THREAD, 5), 0);
    assert_int_equal(ooc_map_lane(&m, 0, LANE_RANK, -1), 0);
    assert_int_equal(ooc_map_find_lane(&m, 1, LANE_THREAD, 5), 1);
    assert_int_equal(ooc_map_lane(&m, 1, LANE_TASK, 0), 2);
    assert_int_equal(ooc_map_lane(&m, 1, LANE_THREAD, 2), 1);
    assert_int_equal(ooc_map_find_lane(&m, 1, LANE_THREAD, 5), 2);
    assert_int_equal(ooc_map_find_lane(&m, 1, LANE_TASK, 0), 3);
    assert_int_equal(ooc_map_lane(&m, 1, LANE_THREAD, 5), 2); /* no duplicate */
    assert_int_equal(m.nlanes, 4);
    assert_int_equal(ooc_map_find_lane(&m, 2, LANE_RANK, -1), SIZE_MAX);
    ooc_map_free(&m);
}

/* ------------------------------------------------------------ by hand */

/* Grid [0, 128), 16 ns buckets; row (lane 0, depth 0):
 *   A [5, 40) reg 2    buckets 0..2, busy 11 + 16 + 8
 *   B [48, 48) reg 1   zero-length: visible [48, 49), bucket 3, busy 0
 *   C [63, 64) reg 0   bucket 3 (its last ns)
 *   D [64, 80) reg 3   bucket 4 exactly (the end is exclusive)
 *   E [80, 96) reg 1   bucket 5 exactly, the same length as D */
static void small_map(ooc_map *m)
{
    assert_true(ooc_map_init(m, 0, 100, HINT8));
    assert_int_equal(m->nb, 8);
    assert_int_equal(m->shift, 4);
    size_t l = ooc_map_lane(m, 0, LANE_RANK, -1);
    assert_int_equal(l, 0);
    ooc_map_add(m, l, 0, 5, 40, 2);
    ooc_map_add(m, l, 0, 48, 48, 1);
    ooc_map_add(m, l, 0, 63, 64, 0);
    ooc_map_add(m, l, 0, 64, 80, 3);
    ooc_map_add(m, l, 0, 80, 96, 1);
}

static void test_level0(void **state)
{
    (void)state;
    ooc_map m;
    small_map(&m);
    check_cell(&m, 0, 0, 11, 1, 1, 35, 2);
    check_cell(&m, 0, 1, 16, 0, 1, 35, 2);
    check_cell(&m, 0, 2, 8, 0, 1, 35, 2);
    check_cell(&m, 0, 3, 1, 2, 2, 1, 0);
    check_cell(&m, 0, 4, 16, 1, 1, 16, 3);
    check_cell(&m, 0, 5, 16, 1, 1, 16, 1);
    check_cell(&m, 0, 6, 0, 0, 0, -1, 0);
    assert_int_equal(m.ncalls, 5);
    assert_int_equal(m.lanes[0].ncalls, 5);
    assert_int_equal(m.lanes[0].ndepth, 1);
    assert_int_equal(m.t_min, 5);
    assert_int_equal(m.t_max, 96);
    /* A's start is in bucket 0: only the call starting in a bucket counts. */
    assert_int_equal(cell(&m, 0, 0, 0, 0)->starts, 1);
    ooc_map_free(&m);
}

static void test_levels(void **state)
{
    (void)state;
    ooc_map m;
    small_map(&m);
    ooc_map_finish(&m);
    /* overlap(L + R) = overlap(L) + starts(R); longest ties: smaller reg. */
    check_cell(&m, 0, 0, 11, 1, 1, 35, 2);
    check_cell(&m, 1, 0, 27, 1, 1, 35, 2);
    check_cell(&m, 1, 1, 9, 2, 3, 35, 2);
    check_cell(&m, 1, 2, 32, 2, 2, 16, 1);
    check_cell(&m, 1, 3, 0, 0, 0, -1, 0);
    check_cell(&m, 2, 0, 36, 3, 3, 35, 2);
    check_cell(&m, 2, 1, 32, 2, 2, 16, 1);
    check_cell(&m, 3, 0, 68, 5, 5, 35, 2);
    ooc_map_free(&m);
}

/* A sweep that learns its lanes late widens the buckets: regridding the
 * small map for twice the lanes leaves 4 buckets of 32 ns, which are
 * test_levels' level 1 (worked there by hand). */
static void test_regrid(void **state)
{
    (void)state;
    ooc_map m;
    small_map(&m);
    assert_true(ooc_map_regrid(&m, 0, 100, 2 * HINT8, OOC_MAP_CELLS_MAX));
    assert_int_equal(m.nb, 4);
    assert_int_equal(m.shift, 5);
    assert_int_equal(m.origin, 0);
    check_cell(&m, 0, 0, 27, 1, 1, 35, 2);
    check_cell(&m, 0, 1, 9, 2, 3, 35, 2);
    check_cell(&m, 0, 2, 32, 2, 2, 16, 1);
    check_cell(&m, 0, 3, 0, 0, 0, -1, 0);
    assert_int_equal(m.ncalls, 5);
    ooc_map_finish(&m);
    check_cell(&m, 1, 0, 36, 3, 3, 35, 2);
    check_cell(&m, 2, 0, 68, 5, 5, 35, 2);
    /* never finer, never after the finish */
    assert_false(ooc_map_regrid(&m, 0, 100, 2 * HINT8, OOC_MAP_CELLS_MAX));
    ooc_map_free(&m);
}

/* An origin that moves down (t_min = 20: 16 at 16 ns, 0 at 32 ns), two
 * lanes, depths and calls across buckets: regridded, the map equals one
 * built on the wide grid from the start, every cell of every level. */
static void test_regrid_moved_origin(void **state)
{
    (void)state;
    static const int64_t calls[][4] = {/* lane, depth, start, end */
                                       {0, 0, 20, 100}, {0, 1, 21, 40}, {0, 1, 44, 44},
                                       {0, 1, 47, 81},  {1, 0, 30, 31}, {1, 0, 31, 64},
                                       {1, 1, 33, 34},  {1, 0, 95, 100}};
    ooc_map a, b;
    assert_true(ooc_map_init(&a, 20, 100, HINT8));
    assert_true(ooc_map_init(&b, 20, 100, 2 * HINT8));
    assert_int_equal(a.origin, 16);
    assert_int_equal(b.origin, 0);
    for (size_t i = 0; i < sizeof calls / sizeof *calls; i++) {
        ooc_map *mm[] = {&a, &b};
        for (int k = 0; k < 2; k++) {
            size_t l = ooc_map_lane(mm[k], 0, LANE_INFERRED, calls[i][0]);
            ooc_map_add(mm[k], l, (uint32_t)calls[i][1], calls[i][2], calls[i][3], (uint32_t)i);
        }
    }
    assert_true(ooc_map_regrid(&a, 20, 100, 2 * HINT8, OOC_MAP_CELLS_MAX));
    ooc_map_finish(&a);
    ooc_map_finish(&b);
    assert_int_equal(a.origin, b.origin);
    assert_int_equal(a.shift, b.shift);
    assert_int_equal(a.nb, b.nb);
    assert_int_equal(a.nlanes, 2);
    for (size_t l = 0; l < 2; l++) {
        assert_int_equal(a.lanes[l].ndepth, b.lanes[l].ndepth);
        for (uint32_t d = 0; d < a.lanes[l].ndepth; d++)
            for (size_t c = 0; c < ooc_map_row_cells(&a); c++) {
                const ooc_cell *x = cell(&a, l, d, 0, c), *y = cell(&b, l, d, 0, c);
                if (memcmp(x, y, sizeof *x) != 0)
                    fail_msg("lane %zu depth %u cell %zu: busy %llu/%llu starts %u/%u overlap "
                             "%u/%u longest %lld/%lld",
                             l, d, c, (unsigned long long)x->busy, (unsigned long long)y->busy,
                             x->starts, y->starts, x->overlap, y->overlap, (long long)x->longest,
                             (long long)y->longest);
            }
    }
    ooc_map_free(&a);
    ooc_map_free(&b);
}

static void test_columns_exact(void **state)
{
    (void)state;
    ooc_map m;
    small_map(&m);
    ooc_map_finish(&m);
    ooc_col c[4];
    /* Level 1, aligned: [0,32) [32,64) [64,96) [96,128). */
    assert_true(ooc_map_columns(&m, 0, 0, 0, 32, 4, c));
    check_col(c, 0, 27, 1, 35, 2);
    check_col(c, 1, 9, 3, 35, 2);
    check_col(c, 2, 32, 2, 16, 1);
    check_col(c, 3, 0, 0, -1, 0);
    /* t0 = 16 is not a multiple of 32: level 0 makes whole columns. */
    assert_true(ooc_map_columns(&m, 0, 0, 16, 32, 3, c));
    check_col(c, 0, 24, 1, 35, 2);
    check_col(c, 1, 17, 3, 16, 3);
    check_col(c, 2, 16, 1, 16, 1);
    /* Before the origin and after the end: empty, still exact. */
    assert_true(ooc_map_columns(&m, 0, 0, -32, 16, 3, c));
    check_col(c, 0, 0, 0, -1, 0);
    check_col(c, 1, 0, 0, -1, 0);
    check_col(c, 2, 11, 1, 35, 2);
    assert_true(ooc_map_columns(&m, 0, 0, 128, 16, 2, c));
    check_col(c, 0, 0, 0, -1, 0);
    check_col(c, 1, 0, 0, -1, 0);
    assert_true(ooc_map_view_exact(&m, 16, 32));
    assert_false(ooc_map_view_exact(&m, 8, 24));
    /* The whole map in one column: the top level. */
    assert_true(ooc_map_columns(&m, 0, 0, 0, 1024, 1, c));
    check_col(c, 0, 68, 5, 35, 2);
    ooc_map_free(&m);
}

static void test_columns_approx(void **state)
{
    (void)state;
    ooc_map m;
    small_map(&m);
    ooc_map_finish(&m);
    ooc_col c[3];
    /* 24 ns columns from 8: [8,32) [32,56) [56,80) hold the buckets that
     * start in them: 1, 2..3, 4, their busy scaled to the column's 24 ns:
     * 16 of 16 -> 24 (A's true busy in column 0 is 24), 9 of 32 -> 6.75
     * -> 6, 16 of 16 -> 24. */
    assert_false(ooc_map_columns(&m, 0, 0, 8, 24, 3, c));
    check_col(c, 0, 24, 1, 35, 2);
    check_col(c, 1, 6, 3, 35, 2);
    check_col(c, 2, 24, 1, 16, 3);
    /* 4 ns columns, narrower than a bucket: each shows the bucket holding
     * its start, busy scaled: bucket 1 is A's whole (16 of 16 -> 4 of 4),
     * bucket 2 half of it (8 of 16 -> 2 of 4). */
    assert_false(ooc_map_columns(&m, 0, 0, 20, 4, 3, c));
    for (int i = 0; i < 3; i++)
        check_col(c, i, 4, 1, 35, 2);
    assert_false(ooc_map_view_exact(&m, 20, 4));
    assert_false(ooc_map_columns(&m, 0, 0, 32, 4, 1, c));
    check_col(c, 0, 2, 1, 35, 2);
    /* No such lane: empty and not exact. */
    assert_false(ooc_map_columns(&m, 7, 0, 0, 32, 3, c));
    check_col(c, 0, 0, 0, -1, 0);
    /* A depth the lane does not have: exactly empty. */
    assert_true(ooc_map_columns(&m, 0, 3, 0, 32, 3, c));
    check_col(c, 2, 0, 0, -1, 0);
    ooc_map_free(&m);
}

/* One call over the whole grid seen through unaligned columns of 24 ns
 * (buckets of 16): each column holds one or two buckets, all busy, so each
 * must read as the column wholly covered by one call (a bar), not as
 * alternating loads. */
static void test_columns_approx_bar(void **state)
{
    (void)state;
    ooc_map m;
    assert_true(ooc_map_init(&m, 0, 100, HINT8));
    size_t l = ooc_map_lane(&m, 0, LANE_RANK, -1);
    ooc_map_add(&m, l, 0, 0, 128, 5);
    ooc_map_finish(&m);
    ooc_col c[4];
    assert_false(ooc_map_columns(&m, 0, 0, 3, 24, 4, c));
    for (int i = 0; i < 4; i++)
        check_col(c, i, 24, 1, 128, 5);
    ooc_map_free(&m);
}

static void test_deep_and_calls_in(void **state)
{
    (void)state;
    ooc_map m;
    small_map(&m);
    /* A call at depth 20 (its ancestors elsewhere): counted in ndepth and
     * in calls_in, shown by no row; rows 1..15 exist and are empty. */
    ooc_map_add(&m, 0, 20, 100, 110, 4);
    ooc_map_finish(&m);
    assert_int_equal(m.lanes[0].ndepth, 21);
    assert_non_null(m.deep);
    check_cell(&m, 0, 6, 0, 0, 0, -1, 0);
    assert_int_equal(cell(&m, 0, 15, 0, 6)->overlap, 0);
    ooc_col c[2];
    assert_false(ooc_map_columns(&m, 0, 20, 96, 16, 2, c));
    check_col(c, 0, 0, 0, -1, 0);
    /* Everything: 5 calls of row 0 + the deep one. */
    assert_int_equal(ooc_map_calls_in(&m, 0, 128), 6);
    assert_int_equal(ooc_map_calls_in(&m, -100, 1000), 6);
    /* [40, 50) truly holds B only; buckets 2..3 give A, B, C: a bound. */
    assert_int_equal(ooc_map_calls_in(&m, 40, 50), 3);
    /* Whole buckets are exact: [64, 80) holds D; [96, 112) the deep call. */
    assert_int_equal(ooc_map_calls_in(&m, 64, 80), 1);
    assert_int_equal(ooc_map_calls_in(&m, 96, 112), 1);
    assert_int_equal(ooc_map_calls_in(&m, 32, 96), 5);
    assert_int_equal(ooc_map_calls_in(&m, 200, 300), 0);
    assert_int_equal(ooc_map_calls_in(&m, 50, 50), 0);
    ooc_map_free(&m);
}

/* Calls outside the grid [0, 128) are clipped to it: one from before the
 * origin counts in no bucket's starts, one past the end in nothing. */
static void test_clipping(void **state)
{
    (void)state;
    ooc_map m;
    assert_true(ooc_map_init(&m, 0, 100, HINT8));
    size_t l = ooc_map_lane(&m, 0, LANE_RANK, -1);
    ooc_map_add(&m, l, 0, -10, 20, 1);  /* buckets 0 (16 ns) and 1 (4 ns) */
    ooc_map_add(&m, l, 0, 120, 200, 2); /* bucket 7: 8 ns */
    ooc_map_add(&m, l, 0, 300, 310, 3); /* nowhere */
    ooc_map_add(&m, l, 0, -50, -40, 4); /* nowhere */
    ooc_map_finish(&m);
    check_cell(&m, 0, 0, 16, 0, 1, 30, 1);
    check_cell(&m, 0, 1, 4, 0, 1, 30, 1);
    check_cell(&m, 0, 7, 8, 1, 1, 80, 2);
    check_cell(&m, 3, 0, 28, 1, 2, 80, 2);
    assert_int_equal(m.ncalls, 4);
    assert_int_equal(m.t_min, -50);
    assert_int_equal(m.t_max, 310);
    ooc_map_free(&m);
}

/* ------------------------------------------------------------ from lanes */

static int64_t floor_div(int64_t a, int64_t b)
{
    return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

/* The columns of one row worked out from the calls: each call adds its
 * busy intersection to every column it meets, +1 to calls where its
 * visible interval meets the column, and its duration to longest. */
static void brute_columns(const lane *ln, const lane_row *row, int64_t t0, int64_t npc, int width,
                          ooc_col *out)
{
    for (int c = 0; c < width; c++)
        out[c] = (ooc_col){.longest = -1};
    for (size_t k = 0; k < row->n; k++) {
        uint32_t g = lane_row_call(row, k);
        int64_t s, e;
        lanes_call_span(ln->rk, g, &s, &e);
        size_t i;
        const region *r = rank_call_region(ln->rk, g, &i);
        uint32_t reg = 0;
        while (ln->rk->regions[reg] != r)
            reg++;
        int64_t ve = lanes_visible_end(s, e);
        int64_t c0 = floor_div(s - t0, npc), c1 = floor_div(ve - 1 - t0, npc);
        for (int64_t c = c0 < 0 ? 0 : c0; c <= c1 && c < width; c++) {
            int64_t cs = t0 + c * npc, ce = cs + npc;
            int64_t lo = s > cs ? s : cs, hi = e < ce ? e : ce;
            out[c].busy += hi > lo ? (uint64_t)(hi - lo) : 0;
            out[c].calls++;
            int64_t dur = e > s ? e - s : 0;
            if (dur > out[c].longest || (dur == out[c].longest && reg < out[c].longest_reg)) {
                out[c].longest = dur;
                out[c].longest_reg = reg;
            }
        }
    }
}

static bool col_equal(const ooc_col *a, const ooc_col *b)
{
    return a->busy == b->busy && a->calls == b->calls && a->longest == b->longest &&
           (a->longest < 0 || a->longest_reg == b->longest_reg);
}

static void compare_view(const ooc_map *m, const lanes_index *ix, const char *path, int64_t t0,
                         int64_t npc, int width)
{
    ooc_col *got = calloc((size_t)width, sizeof *got), *want = calloc((size_t)width, sizeof *want);
    assert_true(got && want);
    for (size_t l = 0; l < ix->nlanes; l++) {
        const lane *ln = &ix->lanes[l];
        uint32_t rows = ln->ndepth < OOC_MAP_DEPTHS ? ln->ndepth : OOC_MAP_DEPTHS;
        for (uint32_t d = 0; d < rows; d++) {
            if (!ooc_map_columns(m, l, d, t0, npc, width, got))
                fail_msg("%s lane %zu depth %u t0 %lld npc %lld: not exact", path, l, d,
                         (long long)t0, (long long)npc);
            brute_columns(ln, &ln->rows[d], t0, npc, width, want);
            for (int c = 0; c < width; c++)
                if (!col_equal(&got[c], &want[c]))
                    fail_msg("%s lane %zu depth %u t0 %lld npc %lld column %d: map busy %llu "
                             "calls %llu longest %lld reg %u, calls give %llu %llu %lld %u",
                             path, l, d, (long long)t0, (long long)npc, c,
                             (unsigned long long)got[c].busy, (unsigned long long)got[c].calls,
                             (long long)got[c].longest, got[c].longest_reg,
                             (unsigned long long)want[c].busy, (unsigned long long)want[c].calls,
                             (long long)want[c].longest, want[c].longest_reg);
        }
    }
    free(got);
    free(want);
}

/* Calls of every lane and depth overlapping [t0, t1), one by one. */
static uint64_t brute_calls_in(const lanes_index *ix, int64_t t0, int64_t t1)
{
    uint64_t n = 0;
    for (size_t l = 0; l < ix->nlanes; l++) {
        const lane *ln = &ix->lanes[l];
        for (uint32_t d = 0; d < ln->ndepth; d++)
            for (size_t k = 0; k < ln->rows[d].n; k++) {
                int64_t s, e;
                lanes_call_span(ln->rk, lane_row_call(&ln->rows[d], k), &s, &e);
                n += s < t1 && lanes_visible_end(s, e) > t0;
            }
    }
    return n;
}

static void check_lanes(const ooc_map *m, const lanes_index *ix, const char *path)
{
    assert_int_equal(m->nlanes, ix->nlanes);
    assert_int_equal(m->ncalls, ix->ncalls);
    for (size_t l = 0; l < ix->nlanes; l++) {
        const lane *ln = &ix->lanes[l];
        if (m->lanes[l].ndepth != ln->ndepth || m->lanes[l].ncalls != ln->ncalls ||
            m->lanes[l].kind != ln->kind || m->lanes[l].row != ln->row ||
            m->lanes[l].rank_index != (size_t)(ln->rk - ix->prof->ranks))
            fail_msg("%s lane %zu: identity or counts differ from the index", path, l);
    }
}

static void check_calls_in(const ooc_map *m, const lanes_index *ix, const char *path)
{
    int64_t w = (int64_t)1 << m->shift;
    for (int i = 0; i < 40; i++) {
        int64_t a = m->origin + (int64_t)(rand() % (int)m->nb) * w;
        int64_t b = a + (int64_t)(1 + rand() % 64) * w;
        uint64_t want = brute_calls_in(ix, a, b), got = ooc_map_calls_in(m, a, b);
        if (got != want)
            fail_msg("%s calls_in [%lld, %lld) whole buckets: %llu, the calls give %llu", path,
                     (long long)a, (long long)b, (unsigned long long)got, (unsigned long long)want);
        int64_t a2 = a + rand() % w, b2 = b - rand() % w;
        if (b2 > a2 && ooc_map_calls_in(m, a2, b2) < brute_calls_in(ix, a2, b2))
            fail_msg("%s calls_in [%lld, %lld) is not an upper bound", path, (long long)a2,
                     (long long)b2);
    }
}

/* The same map with the lanes met last first and each row's calls in
 * reverse: the cells do not depend on the order of ooc_map_lane and
 * ooc_map_add (the streamed scan meets them in its own order). */
static void check_order(const ooc_map *ref, const lanes_index *ix, const char *path)
{
    ooc_map m;
    bool none = ix->t_min > ix->t_max;
    assert_true(ooc_map_init(&m, none ? 0 : ix->t_min, none ? 0 : ix->t_max, ix->nlanes));
    for (size_t k = ix->nlanes; k-- > 0;) {
        const lane *ln = &ix->lanes[k];
        for (uint32_t d = ln->ndepth; d-- > 0;)
            for (size_t q = ln->rows[d].n; q-- > 0;) {
                uint32_t g = lane_row_call(&ln->rows[d], q);
                size_t i;
                const region *r = rank_call_region(ln->rk, g, &i);
                uint32_t reg = 0;
                while (ln->rk->regions[reg] != r)
                    reg++;
                size_t l = ooc_map_lane(&m, (size_t)(ln->rk - ix->prof->ranks), ln->kind, ln->row);
                ooc_map_add(&m, l, d, r->start_ns[i], r->end_ns[i], reg);
            }
    }
    ooc_map_finish(&m);
    assert_int_equal(m.nlanes, ref->nlanes);
    size_t rc = ooc_map_row_cells(ref);
    for (size_t l = 0; l < m.nlanes; l++) {
        assert_int_equal(m.lanes[l].ndepth, ref->lanes[l].ndepth);
        uint32_t rows =
            ref->lanes[l].ndepth < OOC_MAP_DEPTHS ? ref->lanes[l].ndepth : OOC_MAP_DEPTHS;
        for (size_t c = 0; c < rows * rc; c++) {
            const ooc_cell *a = &m.lanes[l].cells[c], *b = &ref->lanes[l].cells[c];
            if (a->busy != b->busy || a->starts != b->starts || a->overlap != b->overlap ||
                a->longest != b->longest || a->longest_reg != b->longest_reg)
                fail_msg("%s lane %zu cell %zu differs when the calls come in reverse", path, l, c);
        }
    }
    ooc_map_free(&m);
}

static void check_profile(const char *path, size_t *count, uint32_t *max_depth)
{
    profile *p = NULL;
    sv_error err;
    sv_error_clear(&err);
    if (profile_load(path, NULL, &p, &err) != SV_OK)
        fail_msg("load %s: %s", path, err.msg);
    lanes_index *ix = NULL;
    if (lanes_build(p, NULL, &ix, &err) != SV_OK)
        fail_msg("lanes_build %s: %s", path, err.msg);
    ooc_map m;
    assert_true(ooc_map_from_lanes(ix, &m));
    check_lanes(&m, ix, path);
    check_order(&m, ix, path);
    for (size_t l = 0; l < ix->nlanes; l++)
        *max_depth = ix->lanes[l].ndepth > *max_depth ? ix->lanes[l].ndepth : *max_depth;
    int64_t w = (int64_t)1 << m.shift;
    const unsigned levels[] = {0, 1, 3, m.nlevels - 1};
    for (size_t i = 0; i < 4; i++) {
        unsigned L = levels[i] < m.nlevels ? levels[i] : m.nlevels - 1;
        int64_t npc = w << L;
        int width = (int)(m.nb >> L) + 1;
        compare_view(&m, ix, path, m.origin, npc, width);
        compare_view(&m, ix, path, m.origin - 2 * npc, npc, width < 40 ? width : 40);
    }
    /* Columns of 3 buckets from bucket 5: whole level-0 buckets. */
    compare_view(&m, ix, path, m.origin + 5 * w, 3 * w, (int)(m.nb / 3) + 1);
    check_calls_in(&m, ix, path);
    ooc_map_free(&m);
    lanes_free(ix);
    profile_free(p);
    (*count)++;
}

static void test_shared_profiles(void **state)
{
    (void)state;
    if (!sv_shared_available())
        skip();
    const char *sub[] = {"data/real", "data/extended", "data/upstream"};
    size_t count = 0;
    uint32_t max_depth = 0;
    srand(12);
    for (size_t i = 0; i < 3; i++) {
        char dir[4096];
        sv_shared_path(dir, sizeof dir, sub[i]);
        DIR *dp = opendir(dir);
        assert_non_null(dp);
        for (struct dirent *de; (de = readdir(dp));) {
            size_t n = strlen(de->d_name);
            if (n < 3 || strcmp(de->d_name + n - 3, ".h5") != 0)
                continue;
            char path[8192];
            snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
            check_profile(path, &count, &max_depth);
        }
        closedir(dp);
    }
    assert_true(count >= 10);
    print_message("%zu shared profiles, deepest lane %u rows\n", count, max_depth);
}

/* A chain 20 deep: rows below OOC_MAP_DEPTHS only in ndepth and calls_in. */
static void test_from_lanes_deep(void **state)
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
    lanes_index *ix = NULL;
    sv_error err;
    assert_int_equal(lanes_build(p, NULL, &ix, &err), SV_OK);
    ooc_map m;
    assert_true(ooc_map_from_lanes(ix, &m));
    assert_int_equal(m.nlanes, 1);
    assert_int_equal(m.lanes[0].ndepth, 20);
    assert_int_equal(ooc_map_calls_in(&m, 0, 1000), 20);
    assert_int_equal(ooc_map_calls_in(&m, 995, 1000), 1);
    ooc_col c[1];
    assert_true(ooc_map_columns(&m, 0, 15, m.origin, (int64_t)m.nb << m.shift, 1, c));
    check_col(c, 0, 700, 1, 700, 0);
    assert_false(ooc_map_columns(&m, 0, 16, m.origin, (int64_t)m.nb << m.shift, 1, c));
    ooc_map_free(&m);
    lanes_free(ix);
    profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grid),
        cmocka_unit_test(test_cells_cap),
        cmocka_unit_test(test_lane_order),
        cmocka_unit_test(test_level0),
        cmocka_unit_test(test_levels),
        cmocka_unit_test(test_regrid),
        cmocka_unit_test(test_regrid_moved_origin),
        cmocka_unit_test(test_columns_exact),
        cmocka_unit_test(test_columns_approx),
        cmocka_unit_test(test_columns_approx_bar),
        cmocka_unit_test(test_deep_and_calls_in),
        cmocka_unit_test(test_clipping),
        cmocka_unit_test(test_from_lanes_deep),
        cmocka_unit_test(test_shared_profiles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
