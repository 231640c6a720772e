/* The lanes view's figures out of core (ooc_lanefig.c), fed hand-made
 * calls as the sweep hands them on (ooc_sink.h).  Every expected figure
 * is worked out by hand in the comments from the calls written here.
 *
 * Rank 0 (regions a = 0, b = 1), in start order:
 *   key 1  task 5    [0, 100]   a  depth 0
 *   key 2  task 5    [50, 150]  a  depth 0   (another thread's stack, the same task lane)
 *   key 1  task 5    [120, 130] a  depth 0   (inside the union so far)
 *   key 0  thread 1  [200, 300] a  depth 0
 *   key 0  thread 1  [210, 240] b  depth 1
 *   key 0  thread 1  [250, 290] b  depth 1
 *   key 0  thread 1  [400, 400] a  depth 0   (zero length)
 *   key 0  thread 1  [500, 600] a  depth 0   filtered out (lane SIZE_MAX)
 *   key 0  thread 1  [510, 520] b  depth 1, lane depth 0 (its parent is not kept)
 * The task lane is made first, the thread lane then sorts before it: the
 * map's indices move under the figures.
 *   task 5:   calls 3, busy |[0, 150]| = 150, first 0, last 150, exclusive a 100 + 100 + 10 = 210,
 *             the longest call [0, 100] (the first of two of 100).
 *   thread 1: calls 5 (the filtered one not), first 200, last 520, busy 100 + 0 + 10 = 110,
 *             union from 200 to 520; exclusive a: 100 - 30 - 40 = 30 and 0, b: 30 + 40 + 10 = 80:
 *             busiest b 80; the longest [200, 300].
 *   rank 0:   busy of every lane's depth-0 calls |[0,150] u [200,300] u [510,520]| = 260,
 *             busiest a 30 + 210 = 240 (b 80).
 * Rank 1 (region a), no lane columns: key 0 [0, 50] on the rank's lane, then key 1
 * [10, 60], the second inferred lane: the first is renamed LANE_INFERRED 0 in the map (as
 * ooc_scan.c does) after its figure was made.  Each lane busy 50; the rank |[0, 60]| = 60.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "isolate/wire.h"
#include "memprof.h"
#include "ooc/ooc_lanefig.h"
#include "ooc/ooc_map.h"
#include "testutil.h"

#define T1 1000

typedef struct fixture {
    ooc_map map;
    ooc_lanefig *lf;
    profile *skel;
} fixture;

static void feed(fixture *fx, size_t rank, size_t key, size_t depth, lane_kind kind, int64_t row,
                 bool kept, uint32_t kdepth, uint32_t reg, int64_t s, int64_t e)
{
    size_t l = SIZE_MAX;
    if (kept) {
        l = ooc_map_lane(&fx->map, rank, kind, row);
        assert_int_not_equal(l, SIZE_MAX);
        ooc_map_add(&fx->map, l, kdepth, s, e, reg);
    }
    ooc_call c = {rank, key, depth, l, kdepth, reg, 0, s, e, -1, -1, false, -1};
    assert_true(ooc_lanefig_call(fx->lf, &c));
}

static profile *skeleton(void)
{
    profile *p = profile_new("mem");
    int64_t s[] = {0}, e[] = {1};
    rank_data *r0 = profile_add_rank(p, 0);
    mp_region(r0, "a", 1, s, e);
    mp_region(r0, "b", 1, s, e);
    mp_region(profile_add_rank(p, 1), "a", 1, s, e);
    mp_finish(p);
    return p;
}

static void sweep(fixture *fx)
{
    memset(fx, 0, sizeof *fx);
    assert_true(ooc_map_init(&fx->map, 0, T1, 4));
    fx->lf = ooc_lanefig_new(&fx->map, 0, T1, 0);
    assert_non_null(fx->lf);
    feed(fx, 0, 1, 0, LANE_TASK, 5, true, 0, 0, 0, 100);
    feed(fx, 0, 2, 0, LANE_TASK, 5, true, 0, 0, 50, 150);
    feed(fx, 0, 1, 0, LANE_TASK, 5, true, 0, 0, 120, 130);
    feed(fx, 0, 0, 0, LANE_THREAD, 1, true, 0, 0, 200, 300);
    feed(fx, 0, 0, 1, LANE_THREAD, 1, true, 1, 1, 210, 240);
    feed(fx, 0, 0, 1, LANE_THREAD, 1, true, 1, 1, 250, 290);
    feed(fx, 0, 0, 0, LANE_THREAD, 1, true, 0, 0, 400, 400);
    feed(fx, 0, 0, 0, LANE_THREAD, 1, false, 0, 0, 500, 600);
    feed(fx, 0, 0, 1, LANE_THREAD, 1, true, 0, 1, 510, 520);
    feed(fx, 1, 0, 0, LANE_RANK, -1, true, 0, 0, 0, 50);
    size_t l = ooc_map_find_lane(&fx->map, 1, LANE_RANK, -1);
    assert_int_not_equal(l, SIZE_MAX);
    fx->map.lanes[l].kind = LANE_INFERRED; /* ooc_scan.c's second_lane */
    fx->map.lanes[l].row = 0;
    feed(fx, 1, 1, 0, LANE_INFERRED, 1, true, 0, 0, 10, 60);
    ooc_map_finish(&fx->map);
    fx->skel = skeleton();
}

static void done(fixture *fx)
{
    ooc_map_free(&fx->map);
    profile_free(fx->skel);
}

static const lanefig *fig(const lane_figs *f, const ooc_map *m, size_t rank, lane_kind kind,
                          int64_t row)
{
    size_t l = ooc_map_find_lane(m, rank, kind, row);
    assert_int_not_equal(l, SIZE_MAX);
    assert_true(l < f->n);
    assert_int_equal(f->v[l].kind, kind);
    assert_int_equal(f->v[l].row, row);
    return &f->v[l];
}

static void check_figs(const lane_figs *f, const ooc_map *m)
{
    assert_int_equal(f->n, 4);
    const lanefig *t = fig(f, m, 0, LANE_TASK, 5);
    assert_true(t->has);
    assert_int_equal(t->calls, 3);
    assert_int_equal(t->busy, 150);
    assert_int_equal(t->first, 0);
    assert_int_equal(t->last, 150);
    assert_int_equal(t->busiest, 0);
    assert_int_equal(t->busiest_excl, 210);
    assert_int_equal(t->long_s, 0);
    assert_int_equal(t->long_e, 100);
    const lanefig *h = fig(f, m, 0, LANE_THREAD, 1);
    assert_int_equal(h->calls, 5);
    assert_int_equal(h->first, 200);
    assert_int_equal(h->last, 520);
    assert_int_equal(h->busy, 110);
    assert_int_equal(h->u_first, 200);
    assert_int_equal(h->u_last, 520);
    assert_int_equal(h->busiest, 1);
    assert_int_equal(h->busiest_excl, 80);
    assert_int_equal(h->long_s, 200);
    assert_int_equal(h->long_e, 300);
    assert_int_equal(fig(f, m, 1, LANE_INFERRED, 0)->busy, 50);
    assert_int_equal(fig(f, m, 1, LANE_INFERRED, 1)->busy, 50);
    assert_int_equal(fig(f, m, 1, LANE_INFERRED, 0)->calls, 1);
    assert_int_equal(f->nranks, 2);
    assert_int_equal(f->ranks[0].rank_index, 0);
    assert_int_equal(f->ranks[0].busy_any, 260);
    assert_int_equal(f->ranks[0].busiest, 0);
    assert_int_equal(f->ranks[0].busiest_excl, 240);
    assert_int_equal(f->ranks[1].busy_any, 60);
    assert_string_equal(f->lost_why, "");
    assert_true(f->busiest_ok);
}

static void test_figures(void **state)
{
    (void)state;
    fixture fx;
    sweep(&fx);
    lane_figs *f = ooc_lanefig_take(fx.lf, &fx.map);
    assert_non_null(f);
    check_figs(f, &fx.map);
    assert_true(lane_figs_valid(f, &fx.map, fx.skel));
    lane_figs_free(f);
    done(&fx);
}

/* 240 slices of [0, 1000): slice b is [floor(1000 b / 240), floor(1000 (b + 1) / 240)).  In
 * 24 columns of 10 slices, column c is [floor(1000 c / 24), ...): 0, 41, 83, 125, 166.  The
 * task lane is busy over [0, 150): columns 0 to 2 whole, column 3 25 ns of 41, then none. */
static void test_slices(void **state)
{
    (void)state;
    fixture fx;
    sweep(&fx);
    lane_figs *f = ooc_lanefig_take(fx.lf, &fx.map);
    assert_non_null(f);
    size_t l = ooc_map_find_lane(&fx.map, 0, LANE_TASK, 5);
    double u[LANEFIG_BINS];
    assert_int_equal(lane_figs_slices(f, l, 24, u), 24);
    assert_float_equal(u[0], 1.0, 1e-12);
    assert_float_equal(u[2], 1.0, 1e-12);
    assert_float_equal(u[3], 25.0 / 41.0, 1e-12);
    assert_float_equal(u[4], 0.0, 1e-12);
    /* 25 columns: the largest divisor of 240 at most 25 */
    assert_int_equal(lane_figs_slices(f, l, 25, u), 24);
    assert_int_equal(lane_figs_slices(f, l, 7, u), 6);
    int64_t sum = 0;
    for (size_t b = 0; b < LANEFIG_BINS; b++)
        sum += f->bins[l * LANEFIG_BINS + b];
    assert_int_equal(sum, 150);
    lane_figs_free(f);
    done(&fx);
}

/* A lost rank: its lanes have no figures, and say why. */
static void test_lose(void **state)
{
    (void)state;
    ooc_map m;
    assert_true(ooc_map_init(&m, 0, T1, 2));
    ooc_lanefig *lf = ooc_lanefig_new(&m, 0, T1, 0);
    assert_non_null(lf);
    size_t l = ooc_map_lane(&m, 0, LANE_RANK, -1);
    ooc_call c = {0, 0, 0, l, 0, 0, 0, 10, 20, -1, -1, false, -1};
    ooc_map_add(&m, l, 0, 10, 20, 0);
    assert_true(ooc_lanefig_call(lf, &c));
    ooc_lanefig_lose(lf, "rank 1 nested from ids");
    l = ooc_map_lane(&m, 1, LANE_THREAD, 0); /* what the flat route maps */
    ooc_map_add(&m, l, 0, 30, 40, 0);
    ooc_map_finish(&m);
    lane_figs *f = ooc_lanefig_take(lf, &m);
    assert_non_null(f);
    assert_true(f->v[0].has);
    assert_int_equal(f->v[0].busy, 10);
    assert_false(f->v[1].has);
    assert_string_equal(f->lost_why, "rank 1 nested from ids");
    profile *p = skeleton();
    assert_true(lane_figs_valid(f, &m, p));
    lane_figs_free(f);
    profile_free(p);
    ooc_map_free(&m);
}

/* Over the budget's caps (at their least: 256 lanes of slices, 4096 (lane,
 * region) pairs of a rank): 300 thread lanes of 20 regions each, one call
 * of each region a lane (6000 pairs).  The slices and the busiest regions
 * are left out, each saying why; busy and calls stay. */
static void test_caps(void **state)
{
    (void)state;
    ooc_map m;
    assert_true(ooc_map_init(&m, 0, 1u << 20, 300));
    ooc_lanefig *lf = ooc_lanefig_new(&m, 0, 1u << 20, 1);
    assert_non_null(lf);
    for (int64_t t = 0; t < 20 * 100; t += 100)
        for (size_t th = 0; th < 300; th++) {
            size_t l = ooc_map_lane(&m, 0, LANE_THREAD, (int64_t)th);
            ooc_map_add(&m, l, 0, t, t + 50, (uint32_t)(t / 100));
            ooc_call c = {0, th, 0, l, 0, (uint32_t)(t / 100), 0, t, t + 50, -1, -1, false, -1};
            assert_true(ooc_lanefig_call(lf, &c));
        }
    ooc_map_finish(&m);
    lane_figs *f = ooc_lanefig_take(lf, &m);
    assert_non_null(f);
    assert_int_equal(f->n, 300);
    assert_null(f->bins);
    assert_non_null(strstr(f->spark_why, "more than 256 lanes"));
    assert_false(f->busiest_ok);
    assert_non_null(strstr(f->busiest_why, "more than 4096 (lane, region) pairs"));
    assert_int_equal(f->v[299].busy, 20 * 50);
    assert_int_equal(f->v[299].calls, 20);
    assert_int_equal(f->v[299].busiest, UINT32_MAX);
    lane_figs_free(f);
    ooc_map_free(&m);
}

/* ------------------------------------------------------------ the wire */

static lane_figs *sent_figs;
static lane_figs *got_figs;

static void put(wire_w *w, void *ctx)
{
    (void)ctx;
    lane_figs_put(w, sent_figs);
}

static bool get(wire_r *r, void *ctx)
{
    (void)ctx;
    lane_figs_free(got_figs);
    return (got_figs = lane_figs_get(r)) != NULL;
}

static wire_status recv_mem(const unsigned char *b, size_t len)
{
    sv_mem_src m = {b, len, 0, 0};
    wire_src src = {sv_mem_read, &m, NULL};
    wire_section sec = {put, get, NULL};
    profile *q = NULL;
    sv_error err;
    wire_status st = wire_recv_section(&src, (uint64_t)1 << 30, &sec, &q, &err);
    profile_free(q);
    return st;
}

static unsigned char *stream(const profile *p, size_t *len)
{
    wire_section sec = {put, get, NULL};
    int fd = memfd_create("wire", 0);
    assert_true(fd >= 0);
    assert_int_equal(wire_send_profile_section(fd, p, false, &sec), 0);
    off_t end = lseek(fd, 0, SEEK_END);
    unsigned char *b = malloc((size_t)end);
    assert_non_null(b);
    assert_int_equal(pread(fd, b, (size_t)end, 0), end);
    close(fd);
    *len = (size_t)end;
    return b;
}

static void test_wire(void **state)
{
    (void)state;
    fixture fx;
    sweep(&fx);
    sent_figs = ooc_lanefig_take(fx.lf, &fx.map);
    assert_non_null(sent_figs);
    size_t len;
    unsigned char *b = stream(fx.skel, &len);
    assert_int_equal(recv_mem(b, len), WIRE_PROFILE);
    assert_non_null(got_figs);
    check_figs(got_figs, &fx.map);
    assert_memory_equal(got_figs->bins, sent_figs->bins,
                        sent_figs->n * LANEFIG_BINS * sizeof *sent_figs->bins);
    assert_true(lane_figs_valid(got_figs, &fx.map, fx.skel));
    /* every cut of the stream is refused, never a crash */
    for (size_t k = 0; k < len; k += 1 + k / 64)
        assert_int_not_equal(recv_mem(b, k), WIRE_PROFILE);
    free(b);
    lane_figs_free(got_figs);
    got_figs = NULL;
    lane_figs_free(sent_figs);
    sent_figs = NULL;
    done(&fx);
}

/* Figures that do not fit the map or the skeleton are refused. */
static void test_valid(void **state)
{
    (void)state;
    fixture fx;
    sweep(&fx);
    lane_figs *f = ooc_lanefig_take(fx.lf, &fx.map);
    assert_non_null(f);
    size_t l = ooc_map_find_lane(&fx.map, 0, LANE_THREAD, 1);
    lanefig keep = f->v[l];
    f->v[l].calls++; /* the map counts 5 */
    assert_false(lane_figs_valid(f, &fx.map, fx.skel));
    f->v[l] = keep;
    f->v[l].row = 2; /* another lane */
    assert_false(lane_figs_valid(f, &fx.map, fx.skel));
    f->v[l] = keep;
    f->v[l].busiest = 2; /* rank 0 has two regions */
    assert_false(lane_figs_valid(f, &fx.map, fx.skel));
    f->v[l] = keep;
    f->v[l].busy = 400; /* more than its union's extent, 320 */
    assert_false(lane_figs_valid(f, &fx.map, fx.skel));
    f->v[l] = keep;
    f->bins[l * LANEFIG_BINS + 50]++; /* the slices no longer add up to busy */
    assert_false(lane_figs_valid(f, &fx.map, fx.skel));
    f->bins[l * LANEFIG_BINS + 50]--;
    f->v[l].has = false; /* no figures, and no reason */
    assert_false(lane_figs_valid(f, &fx.map, fx.skel));
    f->v[l] = keep;
    f->ranks[0].rank_index = 7;
    assert_false(lane_figs_valid(f, &fx.map, fx.skel));
    f->ranks[0].rank_index = 0;
    f->n--;
    assert_false(lane_figs_valid(f, &fx.map, fx.skel));
    f->n++;
    assert_true(lane_figs_valid(f, &fx.map, fx.skel));
    lane_figs_free(f);
    done(&fx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_figures), cmocka_unit_test(test_slices), cmocka_unit_test(test_lose),
        cmocka_unit_test(test_wire),    cmocka_unit_test(test_valid),  cmocka_unit_test(test_caps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
