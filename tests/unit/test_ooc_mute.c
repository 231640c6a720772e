/* ooc_scan_mute_others: an export's open keeps its own sink fed and the overview's
 * accumulators quiet: each muted sink is told once why its product is empty and gets no
 * call, swept or flattened, after it.  ooc_scan_sinks_only: the sinks get the same calls and
 * the map the same lanes and counts as in a whole sweep, and no cell is filled. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "ooc/ooc_scan.h"

typedef struct tsink {
    size_t calls, flat, lost;
    char why[64];
} tsink;

static bool t_call(void *self, const ooc_call *c)
{
    (void)c;
    ((tsink *)self)->calls++;
    return true;
}

static void t_lose(void *self, const char *why)
{
    tsink *t = self;
    t->lost++;
    snprintf(t->why, sizeof t->why, "%s", why);
}

static bool t_flat(void *self, const ooc_call *c)
{
    (void)c;
    ((tsink *)self)->flat++;
    return true;
}

static void t_free(void *self)
{
    (void)self; /* the test's own */
}

static const ooc_sink_ops kept_ops = {"kept", t_call, t_lose, t_free};
static const ooc_sink_ops muted_ops = {"muted", t_call, t_lose, t_free};
static const ooc_flat_ops flat_ops = {t_flat};

/* One row: (0, 10) holding (2, 5) and (6, 8). */
static const int64_t starts[] = {0, 2, 6}, ends[] = {10, 5, 8};

static int one_refill(void *ctx, ooc_src *src)
{
    bool *done = ctx;
    src->base = *done ? 3 : 0;
    if (*done)
        return 0;
    *done = true;
    src->s = starts;
    src->e = ends;
    src->len = 3;
    return 1;
}

static void sweep(ooc_scan *sc, size_t rank, bool flat)
{
    bool done = false;
    ooc_src src = {.reg = 0, .n = 3, .refill = one_refill, .ctx = &done};
    if (flat)
        assert_int_equal(ooc_scan_flat(sc, rank, &src, 1), 0);
    else
        assert_int_equal(ooc_scan_rank(sc, rank, &src, 1, false, OOC_SCAN_LANES_UNKNOWN), 0);
}

static void test_mute(void **state)
{
    (void)state;
    ooc_scan sc;
    assert_true(ooc_scan_init(&sc, 0, 10, 2, OOC_MAP_CELLS_MAX));
    tsink kept = {0}, muted = {0};
    assert_true(ooc_scan_add_sink(&sc, &muted_ops, &muted));
    assert_true(ooc_scan_add_flat(&sc, &flat_ops, &muted));
    assert_true(ooc_scan_add_sink(&sc, &kept_ops, &kept));
    assert_true(ooc_scan_add_flat(&sc, &flat_ops, &kept));
    tsink stranger = {0}; /* a lanes hook only for a registered sink */
    assert_false(ooc_scan_add_lanes(&sc, NULL, &stranger));
    ooc_scan_mute_others(&sc, &kept, "an export makes no overview");
    assert_int_equal(muted.lost, 1);
    assert_string_equal(muted.why, "an export makes no overview");
    assert_int_equal(kept.lost, 0);
    sweep(&sc, 0, false);
    assert_int_equal(kept.calls, 3);
    assert_int_equal(muted.calls, 0);
    sweep(&sc, 1, true); /* flattened: the kept sink's flat hook, and its lose only */
    assert_int_equal(kept.flat, 3);
    assert_int_equal(muted.flat, 0);
    assert_int_equal(muted.lost, 1);
    /* still registered: its product can still be taken */
    assert_ptr_equal(ooc_scan_take_sink(&sc, &muted_ops), &muted);
    assert_ptr_equal(ooc_scan_take_sink(&sc, &kept_ops), &kept);
    ooc_scan_free(&sc);
}

/* ------------------------------------------------------------ sinks only */

/* Two rows of a rank without lane columns: region 0 holds (0, 100) around (10, 40) and
 * (50, 60); region 1's (30, 120) overlaps (0, 100) partly, so it opens a second inferred lane,
 * and (130, 140) pops both lanes. */
static const int64_t r0_s[] = {0, 10, 50}, r0_e[] = {100, 40, 60};
static const int64_t r1_s[] = {30, 130}, r1_e[] = {120, 140};

typedef struct rows_src {
    const int64_t *s, *e;
    size_t n;
    bool done;
} rows_src;

static int rows_refill(void *ctx, ooc_src *src)
{
    rows_src *r = ctx;
    src->base = r->done ? r->n : 0;
    if (r->done)
        return 0;
    r->done = true;
    src->s = r->s;
    src->e = r->e;
    src->len = r->n;
    return 1;
}

#define REC_MAX 16
typedef struct rec_sink {
    ooc_call v[REC_MAX];
    size_t n;
} rec_sink;

static bool rec_call(void *self, const ooc_call *c)
{
    rec_sink *r = self;
    if (r->n < REC_MAX)
        r->v[r->n] = *c;
    r->n++;
    return true;
}

static const ooc_sink_ops rec_ops = {"rec", rec_call, t_lose, t_free};

static void sweep_rows(ooc_scan *sc, rec_sink *rec, bool sinks_only)
{
    assert_true(ooc_scan_init(sc, 0, 140, 1, OOC_MAP_CELLS_MAX));
    assert_true(ooc_scan_add_sink(sc, &rec_ops, rec));
    if (sinks_only)
        ooc_scan_sinks_only(sc);
    rows_src a = {r0_s, r0_e, 3, false}, b = {r1_s, r1_e, 2, false};
    ooc_src src[2] = {{.reg = 0, .n = 3, .refill = rows_refill, .ctx = &a},
                      {.reg = 1, .n = 2, .refill = rows_refill, .ctx = &b}};
    assert_int_equal(ooc_scan_rank(sc, 0, src, 2, false, OOC_SCAN_LANES_UNKNOWN), 0);
    assert_ptr_equal(ooc_scan_take_sink(sc, &rec_ops), rec);
}

/* Calls started in the map's level-0 cells of lane l, over its depth rows. */
static uint64_t lane_starts(const ooc_map *m, size_t l)
{
    const ooc_lane *ln = &m->lanes[l];
    uint32_t rows = ln->ndepth < OOC_MAP_DEPTHS ? ln->ndepth : OOC_MAP_DEPTHS;
    uint64_t n = 0;
    for (uint32_t d = 0; d < rows; d++)
        for (size_t i = 0; i < m->nb; i++)
            n += ln->cells[(size_t)d * ooc_map_row_cells(m) + i].starts;
    return n;
}

static void test_sinks_only(void **state)
{
    (void)state;
    ooc_scan whole, only;
    rec_sink rw = {{{0}}, 0}, ro = {{{0}}, 0};
    sweep_rows(&whole, &rw, false);
    sweep_rows(&only, &ro, true);
    /* the sinks: the same five calls, each with its stack, depth, lane and position */
    assert_int_equal(rw.n, 5);
    assert_int_equal(ro.n, rw.n);
    for (size_t i = 0; i < rw.n; i++) {
        assert_int_equal(ro.v[i].s, rw.v[i].s);
        assert_int_equal(ro.v[i].e, rw.v[i].e);
        assert_int_equal(ro.v[i].reg, rw.v[i].reg);
        assert_int_equal(ro.v[i].pos, rw.v[i].pos);
        assert_int_equal(ro.v[i].key, rw.v[i].key);
        assert_int_equal(ro.v[i].depth, rw.v[i].depth);
        assert_int_equal(ro.v[i].lane, rw.v[i].lane);
        assert_int_equal(ro.v[i].kdepth, rw.v[i].kdepth);
    }
    /* (30, 120) is on a lane of its own, one deep; (10, 40) one call deep in the first */
    assert_int_equal(rw.v[2].s, 30);
    assert_int_not_equal(rw.v[2].lane, rw.v[0].lane);
    assert_int_equal(rw.v[1].depth, 1);
    /* the map: the same lanes, counts and span; cells only in the whole sweep */
    assert_int_equal(whole.map.nlanes, 2);
    assert_int_equal(only.map.nlanes, whole.map.nlanes);
    assert_int_equal(only.map.ncalls, 5);
    assert_int_equal(only.map.t_min, whole.map.t_min);
    assert_int_equal(only.map.t_max, whole.map.t_max);
    uint64_t started = 0;
    for (size_t l = 0; l < whole.map.nlanes; l++) {
        assert_int_equal(only.map.lanes[l].ncalls, whole.map.lanes[l].ncalls);
        assert_int_equal(lane_starts(&only.map, l), 0);
        started += lane_starts(&whole.map, l);
    }
    assert_int_equal(started, 5);
    ooc_scan_free(&whole);
    ooc_scan_free(&only);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mute),
        cmocka_unit_test(test_sinks_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
