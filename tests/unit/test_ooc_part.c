/* test_ooc_part: the overview's parts while the pass goes
 * (src/ooc/ooc_part.c, wire.h wire_send_part / wire_recv_parts): a part
 * holds the lanes of the ranks swept so far and only those, cell for cell
 * the map's (busy over a row adds up to the calls' durations, computed
 * here), several parts on one stream each arrive whole, a part of the
 * rank being swept keeps the buckets before its frontier and empties the
 * rest, and every
 * malformed part is refused without a crash: counts out of range, a grid
 * that is not one, lanes of ranks not swept or out of order, cells
 * inconsistent, a stream cut short, any byte changed; the skeleton check
 * refuses a part of another profile. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "isolate/wire.h"
#include "model/profile.h"
#include "ooc/ooc_part.h"
#include "ooc/ooc_scan.h"
#include "testutil.h"

typedef struct call {
    size_t rank;
    uint32_t reg, depth;
    int64_t s, e;
} call;

/* Three ranks on [0, 1000]: rank 0 two lanes, rank 1 one, rank 2 one. */
static const call calls[] = {
    {0, 0, 0, 0, 400}, {0, 1, 1, 100, 300}, {0, 0, 0, 500, 1000},
    {1, 0, 0, 10, 20}, {1, 1, 0, 30, 990},  {2, 0, 0, 0, 1000},
};
#define NCALLS (sizeof calls / sizeof *calls)

static void make_scan(ooc_scan *sc)
{
    assert_true(ooc_scan_init(sc, 0, 1000, 4, 0));
    for (size_t i = 0; i < NCALLS; i++) {
        const call *c = &calls[i];
        /* rank 0's calls of region 1 in a thread lane of their own */
        lane_kind k = c->rank == 0 && c->reg == 1 ? LANE_THREAD : LANE_RANK;
        size_t l = ooc_map_lane(&sc->map, c->rank, k, k == LANE_THREAD ? 3 : -1);
        assert_int_not_equal(l, SIZE_MAX);
        ooc_map_add(&sc->map, l, k == LANE_THREAD ? 0 : c->depth, c->s, c->e, c->reg);
    }
}

/* The stream of the parts of ranks [0, d) for each d in done[0..n), with
 * rank d up to frontier too when frontier > INT64_MIN. */
static unsigned char *stream_cut(const ooc_scan *sc, const size_t *done, size_t n, int64_t frontier,
                                 size_t *len)
{
    int fd = memfd_create("parts", 0);
    assert_true(fd >= 0);
    for (size_t i = 0; i < n; i++) {
        bool partial = frontier > INT64_MIN;
        uint64_t swept = 0; /* the calls of ranks [0, done[i]), and the partial rank's */
        for (size_t c = 0; c < NCALLS; c++)
            swept += calls[c].rank < done[i] + partial;
        ooc_part_src src = {sc, done[i], 3, partial, frontier, swept, NCALLS};
        wire_section sec = {ooc_part_put, NULL, &src};
        assert_int_equal(wire_send_part(fd, &sec), 0);
    }
    off_t end = lseek(fd, 0, SEEK_END);
    unsigned char *b = malloc((size_t)end + 1);
    assert_non_null(b);
    assert_int_equal(pread(fd, b, (size_t)end, 0), end);
    close(fd);
    *len = (size_t)end;
    return b;
}

static unsigned char *stream_of(const ooc_scan *sc, const size_t *done, size_t n, size_t *len)
{
    return stream_cut(sc, done, n, INT64_MIN, len);
}

typedef struct got {
    ooc_part *cur, *v[8];
    size_t n;
} got;

static bool g_get(wire_r *r, void *ctx)
{
    got *g = ctx;
    g->cur = calloc(1, sizeof *g->cur);
    if (g->cur && ooc_part_get(r, g->cur))
        return true;
    free(g->cur);
    g->cur = NULL;
    return false;
}

static bool g_each(void *ctx)
{
    got *g = ctx;
    if (g->n < 8)
        g->v[g->n++] = g->cur;
    else
        ooc_part_free(g->cur);
    g->cur = NULL;
    return true;
}

static wire_status recv_all(const unsigned char *b, size_t len, size_t piece, got *g)
{
    memset(g, 0, sizeof *g);
    wire_section sec = {NULL, g_get, g};
    sv_mem_src m = {b, len, 0, piece};
    wire_src src = {sv_mem_read, &m, NULL};
    sv_error err;
    sv_error_clear(&err);
    wire_status st = wire_recv_parts(&src, (uint64_t)1 << 28, &sec, g_each, g, &err);
    ooc_part_free(g->cur);
    g->cur = NULL;
    return st;
}

static void got_free(got *g)
{
    for (size_t i = 0; i < g->n; i++)
        ooc_part_free(g->v[i]);
    g->n = 0;
}

/* Busy of a row over the whole grid, from the map's top level. */
static uint64_t row_busy(const ooc_map *m, size_t l, uint32_t d)
{
    const ooc_cell *row = m->lanes[l].cells + (size_t)d * ooc_map_row_cells(m);
    return row[ooc_map_level_offset(m, m->nlevels - 1)].busy;
}

static void test_round_trip(void **state)
{
    (void)state;
    ooc_scan sc;
    make_scan(&sc);
    size_t done[2] = {1, 2};
    size_t len;
    unsigned char *b = stream_of(&sc, done, 2, &len);
    ooc_map_finish(&sc.map); /* the reference: what the final overview holds */
    got g;
    for (size_t piece = 0; piece <= 7; piece += 7) { /* whole, and 7 bytes a read */
        assert_int_equal(recv_all(b, len, piece, &g), WIRE_PROFILE);
        assert_int_equal(g.n, 2);
        assert_int_equal(g.v[0]->ranks_done, 1);
        assert_int_equal(g.v[1]->ranks_done, 2);
        assert_int_equal(g.v[0]->nranks, 3);
        assert_int_equal(g.v[1]->calls_done, 5);
        assert_int_equal(g.v[0]->map.nlanes, 2); /* rank 0's two lanes only */
        assert_int_equal(g.v[1]->map.nlanes, 3);
        const ooc_map *m = &g.v[1]->map;
        assert_true(m->finished);
        for (size_t l = 0; l < m->nlanes; l++) {
            assert_true(m->lanes[l].rank_index < 2);
            size_t cells = (size_t)m->lanes[l].ndepth * ooc_map_row_cells(m);
            assert_int_equal(
                memcmp(m->lanes[l].cells, sc.map.lanes[l].cells, cells * sizeof(ooc_cell)), 0);
        }
        /* the rows' busy, from the calls: rank 0's lane: 400 + 500; its
         * thread lane: 200; rank 1: 10 + 960 */
        size_t l0 = ooc_map_find_lane(m, 0, LANE_RANK, -1);
        size_t lt = ooc_map_find_lane(m, 0, LANE_THREAD, 3);
        size_t l1 = ooc_map_find_lane(m, 1, LANE_RANK, -1);
        assert_int_equal(row_busy(m, l0, 0), 900);
        assert_int_equal(row_busy(m, lt, 0), 200);
        assert_int_equal(row_busy(m, l1, 0), 970);
        assert_int_equal(ooc_map_find_lane(m, 2, LANE_RANK, -1), SIZE_MAX);
        got_free(&g);
    }
    /* an empty stream: no part, a clean end */
    assert_int_equal(recv_all(b, 0, 0, &g), WIRE_PROFILE);
    assert_int_equal(g.n, 0);
    free(b);
    ooc_scan_free(&sc);
}

/* Word i of the part's header (after "SVW1" 'Q' and "SEC1"), or of the
 * first lane's record (i >= 12). */
#define WORD_AT(i) (9 + 8 * (size_t)(i))

static wire_status recv_patched(const unsigned char *b, size_t len, size_t word, uint64_t v,
                                size_t *nparts)
{
    unsigned char *c = malloc(len);
    memcpy(c, b, len);
    memcpy(c + WORD_AT(word), &v, sizeof v);
    got g;
    wire_status st = recv_all(c, len, 0, &g);
    *nparts = g.n;
    got_free(&g);
    free(c);
    return st;
}

static void test_bad_counts(void **state)
{
    (void)state;
    ooc_scan sc;
    make_scan(&sc);
    size_t done[1] = {2}, len, n;
    unsigned char *b = stream_of(&sc, done, 1, &len);
    const struct {
        size_t word;
        uint64_t v;
        const char *what;
    } bad[] = {
        {0, 4, "ranks_done above nranks"},
        {1, 0, "no rank"},
        {1, (uint64_t)1 << 40, "nranks out of range"},
        {2, 7, "calls_done above calls_total"},
        {4, 2000, "t_min after t_max"},
        {6, (uint64_t)INT64_MAX - 10, "the grid's end past int64"},
        {7, 63, "shift out of range"},
        {8, 3, "buckets not a power of two"},
        {8, 1, "one bucket"},
        {8, (uint64_t)OOC_MAP_BUCKETS_MAX * 2, "too many buckets"},
        {9, (uint64_t)1 << 40, "lanes out of range"},
        {9, 4, "more lanes than sent"},
        {10, 2, "partial not a flag"},
        {12, 2, "a lane of a rank not swept"},
        {12, 1, "lanes out of order (rank 1 before rank 0's thread lane)"},
        {13, 9, "a lane kind out of range"},
        {15, (uint64_t)1 << 33, "ndepth out of range"},
        {16, 5, "a lane's calls above calls_done"},
        {17, 3, "a row's cells not whole"},
        {19, (uint64_t)9 << 32 | 1, "starts above overlap"},
        {20, (uint64_t)-5, "longest below -1"},
        {21, (uint64_t)1 << 33, "region out of range"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        wire_status st = recv_patched(b, len, bad[i].word, bad[i].v, &n);
        if (st != WIRE_BROKEN || n != 0)
            fail_msg("%s: status %d, %zu parts", bad[i].what, (int)st, n);
    }
    /* the stream unchanged passes */
    got g;
    assert_int_equal(recv_all(b, len, 0, &g), WIRE_PROFILE);
    assert_int_equal(g.n, 1);
    got_free(&g);
    /* cut short anywhere: broken, no part delivered */
    for (size_t cut = 1; cut < len; cut += 5) {
        assert_int_equal(recv_all(b, cut, 0, &g), WIRE_BROKEN);
        assert_int_equal(g.n, 0);
    }
    /* any byte changed: refused, or a part whose lanes stay in range */
    for (size_t i = 0; i < len; i++) {
        unsigned char *c = malloc(len);
        memcpy(c, b, len);
        c[i] ^= 0x5a;
        wire_status st = recv_all(c, len, 0, &g);
        for (size_t k = 0; k < g.n; k++) {
            assert_int_equal(st, WIRE_PROFILE);
            const ooc_part *p = g.v[k];
            assert_true(p->ranks_done <= p->nranks && p->calls_done <= p->calls_total);
            for (size_t l = 0; l < p->map.nlanes; l++)
                assert_true(p->map.lanes[l].rank_index < p->ranks_done);
        }
        got_free(&g);
        free(c);
    }
    free(b);
    ooc_scan_free(&sc);
}

/* A part of ranks 0 and 1 and of rank 2 up to 450: rank 2's cells before
 * the bucket holding 450 are the map's, the others empty; a partial part
 * of the last rank too many, or of a rank past the last, is refused. */
static void test_partial(void **state)
{
    (void)state;
    ooc_scan sc;
    make_scan(&sc);
    size_t done[1] = {2}, len, n;
    unsigned char *b = stream_cut(&sc, done, 1, 450, &len);
    got g;
    assert_int_equal(recv_all(b, len, 0, &g), WIRE_PROFILE);
    assert_int_equal(g.n, 1);
    const ooc_part *p = g.v[0];
    assert_true(p->partial);
    assert_int_equal(p->ranks_done, 2);
    const ooc_map *m = &p->map;
    int64_t w = (int64_t)1 << m->shift;
    /* the bucket holding 450 starts at or before it, less than a bucket before */
    assert_true(p->upto <= 450 && 450 - p->upto < w && (p->upto - m->origin) % w == 0);
    size_t l2 = ooc_map_find_lane(m, 2, LANE_RANK, -1),
           s2 = ooc_map_find_lane(&sc.map, 2, LANE_RANK, -1);
    assert_int_not_equal(l2, SIZE_MAX);
    size_t fb = (size_t)((p->upto - m->origin) / w);
    for (size_t i = 0; i < m->nb; i++) {
        const ooc_cell *c = &m->lanes[l2].cells[i], *r = &sc.map.lanes[s2].cells[i];
        if (i < fb) { /* the call over [0, 1000] covers each of them whole */
            assert_int_equal(c->busy, r->busy);
            assert_int_equal(c->busy, (uint64_t)w);
            assert_int_equal(c->overlap, r->overlap);
        } else {
            assert_int_equal(c->busy, 0);
            assert_int_equal(c->longest, -1);
        }
    }
    /* coarser levels rebuilt from the cut row: the top holds fb buckets' busy */
    assert_int_equal(row_busy(m, l2, 0), (uint64_t)fb * (uint64_t)w);
    got_free(&g);
    assert_int_equal(recv_patched(b, len, 0, 3, &n), WIRE_BROKEN); /* partial rank 3 of 3 */
    assert_int_equal(n, 0);
    free(b);
    ooc_scan_free(&sc);
}

/* A skeleton of nranks ranks of nreg regions each. */
typedef struct skel {
    profile p;
    rank_data rk[4];
    region r[2], *regs[2];
} skel;

static void skel_make(skel *s, size_t nranks, size_t nreg)
{
    memset(s, 0, sizeof *s);
    for (size_t j = 0; j < 2; j++)
        s->regs[j] = &s->r[j];
    for (size_t k = 0; k < nranks; k++) {
        s->rk[k].rank = (int)k;
        s->rk[k].regions = s->regs;
        s->rk[k].nregions = nreg;
    }
    s->p.ranks = s->rk;
    s->p.nranks = nranks;
}

static void test_valid(void **state)
{
    (void)state;
    ooc_scan sc;
    make_scan(&sc);
    size_t done[1] = {2}, len;
    unsigned char *b = stream_of(&sc, done, 1, &len);
    got g;
    assert_int_equal(recv_all(b, len, 0, &g), WIRE_PROFILE);
    assert_int_equal(g.n, 1);
    skel s;
    skel_make(&s, 3, 2);
    assert_true(ooc_part_valid(g.v[0], &s.p));
    skel_make(&s, 4, 2);
    assert_false(ooc_part_valid(g.v[0], &s.p)); /* another rank count */
    skel_make(&s, 3, 1);
    assert_false(ooc_part_valid(g.v[0], &s.p)); /* a cell names region 1 */
    assert_false(ooc_part_valid(NULL, &s.p));
    got_free(&g);
    free(b);
    ooc_scan_free(&sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_bad_counts),
        cmocka_unit_test(test_partial),
        cmocka_unit_test(test_valid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
