/* test_ooc_bins: the out-of-core sweep's time bins (src/ooc/ooc_bins.c).
 * Each figure is computed here from the calls fed, by brute force over the
 * grid's edges: counts, min, max, sum, the longest call's start and row
 * position, the first call (ties: the lowest position), calls in any
 * order, the pairwise merge the budget forces, the flattened ranks' hook,
 * the wire round trip and malformed messages rejected. */
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
#include "model/profile.h"
#include "model/tbins.h"
#include "ooc/ooc_bins.h"
#include "ooc/ooc_map.h"
#include "ooc/ooc_scan.h"
#include "testutil.h"

typedef struct call {
    size_t rank;
    uint32_t reg;
    uint64_t pos;
    int64_t s, e;
} call;

/* Every figure of bin b of row (rank, reg) from the calls themselves. */
static void check_bin(const time_bins *t, const call *c, size_t n, size_t rank, uint32_t reg,
                      uint32_t b)
{
    const tbins_row *r = time_bins_row(t, rank, reg);
    assert_non_null(r);
    uint64_t cnt = 0;
    int64_t mn = INT64_MAX, mx = -1, sum = 0, mx_s = 0;
    uint64_t mx_pos = 0;
    for (size_t i = 0; i < n; i++) {
        if (c[i].rank != rank || c[i].reg != reg)
            continue;
        int64_t lo = t->t0 + (int64_t)b * t->width, hi = lo + t->width;
        if (c[i].s < lo || c[i].s >= hi)
            continue;
        int64_t d = c[i].e - c[i].s;
        cnt++;
        sum += d;
        mn = d < mn ? d : mn;
        if (d > mx || (d == mx && (c[i].s < mx_s || (c[i].s == mx_s && c[i].pos < mx_pos)))) {
            mx = d;
            mx_s = c[i].s;
            mx_pos = c[i].pos;
        }
    }
    bool in = b >= r->lo && b < r->lo + r->nb;
    const tbin *x = in ? &r->v[b - r->lo] : NULL;
    assert_int_equal(x ? x->n : 0, cnt);
    if (!cnt)
        return;
    assert_int_equal(x->min, mn);
    assert_int_equal(x->max, mx);
    assert_int_equal(x->sum, sum);
    assert_int_equal(x->max_s, mx_s);
    assert_int_equal(x->max_pos, mx_pos);
}

static void check_all(const time_bins *t, const call *c, size_t n)
{
    uint64_t total = 0;
    for (size_t k = 0; k < t->nrows; k++) {
        total += t->rows[k].n;
        for (uint32_t b = 0; b < t->nbins; b++)
            check_bin(t, c, n, t->rows[k].rank_index, t->rows[k].reg, b);
    }
    assert_int_equal(total, n);             /* no call without its row */
    for (size_t k = 0; k < t->nrows; k++) { /* each row's count and first call */
        const tbins_row *r = &t->rows[k];
        uint64_t cnt = 0;
        int64_t fs = INT64_MAX, fd = 0;
        uint64_t fp = 0;
        for (size_t i = 0; i < n; i++) {
            if (c[i].rank != r->rank_index || c[i].reg != r->reg)
                continue;
            cnt++;
            if (c[i].s < fs || (c[i].s == fs && c[i].pos < fp)) {
                fs = c[i].s;
                fd = c[i].e - c[i].s;
                fp = c[i].pos;
            }
        }
        assert_int_equal(r->n, cnt);
        assert_int_equal(r->first_s, fs);
        assert_int_equal(r->first_d, fd);
        assert_int_equal(r->first_pos, fp);
    }
}

static time_bins *feed(uint64_t budget, int64_t t0, int64_t t1, const call *c, size_t n)
{
    ooc_bins *b = ooc_bins_new(budget, t0, t1);
    assert_non_null(b);
    for (size_t i = 0; i < n; i++)
        assert_true(ooc_bins_call(b, c[i].rank, c[i].reg, c[i].pos, c[i].s, c[i].e));
    time_bins *t = ooc_bins_take(b);
    assert_non_null(t);
    return t;
}

/* The grid's edges: [1000, 11239] in 1024 bins of 10 ns; a start on an
 * edge opens the next bin; the last start lands in the last bin. */
static void test_edges(void **state)
{
    (void)state;
    const call c[] = {
        {0, 0, 0, 1000, 1005}, {0, 0, 1, 1009, 1010},   {0, 0, 2, 1010, 1030},
        {0, 0, 3, 1019, 1039}, {0, 0, 4, 11239, 11240}, {0, 1, 0, 1500, 1600},
    };
    size_t n = sizeof c / sizeof *c;
    time_bins *t = feed(0, 1000, 11239, c, n);
    assert_true(t->available);
    assert_int_equal(t->t0, 1000);
    assert_int_equal(t->width, 10);
    assert_int_equal(t->nbins, 1024);
    assert_int_equal(t->nrows, 2);
    const tbins_row *r = time_bins_row(t, 0, 0);
    assert_int_equal(r->lo, 0);
    assert_int_equal(r->nb, 1024);
    assert_int_equal(r->v[0].n, 2);
    assert_int_equal(r->v[1].n, 2);
    assert_int_equal(r->v[1].max, 20); /* the tie: the earlier start */
    assert_int_equal(r->v[1].max_s, 1010);
    assert_int_equal(r->v[1023].n, 1);
    assert_int_equal(time_bins_row(t, 0, 1)->lo, 50);
    assert_null(time_bins_row(t, 0, 2));
    assert_null(time_bins_row(t, 1, 0));
    check_all(t, c, n);
    time_bins_free(t);
}

/* Calls in any order (a flattened rank's rows), ties on the start, several
 * ranks, and a rank fed twice. */
static void test_any_order(void **state)
{
    (void)state;
    call c[400];
    size_t n = 0;
    uint64_t x = 12345;
    for (size_t k = 0; k < 3; k++)
        for (uint32_t g = 0; g < 2; g++)
            for (uint64_t i = 0; i < 60; i++) {
                x = x * 6364136223846793005ULL + 1442695040888963407ULL;
                int64_t s = (int64_t)((x >> 33) % 100000), d = (int64_t)((x >> 13) % 500);
                c[n++] = (call){k, g, i, i % 7 == 0 ? 5000 : s, (i % 7 == 0 ? 5000 : s) + d};
            }
    c[n++] = (call){0, 0, 60, 3, 9}; /* rank 0 again, after the others */
    time_bins *t = feed(0, 0, 100500, c, n);
    assert_int_equal(t->nrows, 6);
    check_all(t, c, n);
    time_bins_free(t);
}

/* Over the cap the bins merge in pairs until they fit: the same figures on
 * the coarser grid. */
static void test_budget(void **state)
{
    (void)state;
    size_t n = 40 * 1024;
    call *c = malloc(n * sizeof *c);
    assert_non_null(c);
    for (size_t i = 0; i < n; i++)
        c[i] = (call){0, (uint32_t)(i / 1024), i % 1024, (int64_t)(i % 1024) * 7,
                      (int64_t)(i % 1024) * 7 + (int64_t)(i % 13)};
    /* 40 rows over every bin, 16384 bins allowed: 256 bins each */
    time_bins *t = feed(1, 0, 1023 * 7, c, n);
    assert_true(t->available);
    assert_int_equal(t->nbins, 256);
    assert_int_equal(t->width, 28);
    check_all(t, c, n);
    time_bins_free(t);
    /* 2000 rows cannot hold 16 bins each: lost, and said why */
    ooc_bins *b = ooc_bins_new(1, 0, 1023 * 7);
    for (uint32_t g = 0; g < 2000; g++)
        for (int64_t s = 0; s < 1024 * 7; s += 7)
            assert_true(ooc_bins_call(b, 0, g, (uint64_t)s, s, s + 1));
    t = ooc_bins_take(b);
    assert_false(t->available);
    assert_non_null(strstr(t->why, "--memory"));
    assert_int_equal(t->nrows, 0);
    time_bins_free(t);
    free(c);
}

/* The scan: a lost rank loses the call paths but not the bins, which take
 * the flattened rank's calls through the hook. */
static int rows_refill(void *ctx, ooc_src *src)
{
    int *done = ctx;
    if (*done)
        return 0;
    *done = 1;
    src->base = 0;
    src->len = src->n;
    return 1;
}

static void test_flat_hook(void **state)
{
    (void)state;
    ooc_scan sc;
    assert_true(ooc_scan_init(&sc, 0, 1000, 1, 0));
    assert_true(ooc_sinks_attach(&sc, 0));
    const int64_t s[] = {500, 100, 300}, e[] = {600, 150, 900};
    int done = 0;
    ooc_src src = {.s = s, .e = e, .len = 0, .reg = 0, .n = 3, .refill = rows_refill, .ctx = &done};
    assert_int_equal(ooc_scan_flat(&sc, 0, &src, 1), 0);
    time_bins *t = ooc_bins_take(ooc_scan_take_sink(&sc, &ooc_bins_sink));
    assert_non_null(t);
    assert_true(t->available);
    const call c[] = {{0, 0, 0, 500, 600}, {0, 0, 1, 100, 150}, {0, 0, 2, 300, 900}};
    check_all(t, c, 3);
    assert_int_equal(time_bins_row(t, 0, 0)->first_s, 100);
    time_bins_free(t);
    ooc_scan_free(&sc);
}

/* ------------------------------------------------------------ the wire */

typedef struct sec_ctx {
    const time_bins *out;
    time_bins *in;
} sec_ctx;

static void sec_put(wire_w *w, void *ctx)
{
    ooc_bins_put(w, ((sec_ctx *)ctx)->out);
}

static bool sec_get(wire_r *r, void *ctx)
{
    sec_ctx *x = ctx;
    return (x->in = ooc_bins_get(r)) != NULL;
}

static unsigned char *stream_of(const time_bins *t, size_t *len, size_t *sec_at)
{
    profile *p = profile_new("x");
    sv_error err;
    assert_int_equal(profile_finish(p, &err), SV_OK);
    sec_ctx x = {t, NULL};
    wire_section sec = {sec_put, sec_get, &x};
    int fd = memfd_create("wire", 0), fd0 = memfd_create("wire0", 0);
    assert_true(fd >= 0 && fd0 >= 0);
    assert_int_equal(wire_send_profile_section(fd, p, false, &sec), 0);
    assert_int_equal(wire_send_profile(fd0, p), 0);
    off_t end = lseek(fd, 0, SEEK_END), end0 = lseek(fd0, 0, SEEK_END);
    *sec_at = (size_t)end0; /* past the model: the section's own bytes start about here */
    unsigned char *b = malloc((size_t)end);
    assert_non_null(b);
    assert_int_equal(pread(fd, b, (size_t)end, 0), end);
    close(fd);
    close(fd0);
    profile_free(p);
    *len = (size_t)end;
    return b;
}

static time_bins *recv_of(const unsigned char *b, size_t len, wire_status *st)
{
    sec_ctx x = {NULL, NULL};
    wire_section sec = {sec_put, sec_get, &x};
    sv_mem_src m = {b, len, 0, 0};
    wire_src src = {sv_mem_read, &m, NULL};
    profile *q = NULL;
    sv_error err;
    *st = wire_recv_section(&src, (uint64_t)1 << 30, &sec, &q, &err);
    profile_free(q);
    if (*st != WIRE_PROFILE) {
        time_bins_free(x.in);
        return NULL;
    }
    return x.in;
}

static void test_wire(void **state)
{
    (void)state;
    const call c[] = {{0, 0, 0, 10, 50},
                      {0, 0, 1, 900, 905},
                      {0, 2, 0, 400, 700},
                      {1, 1, 0, 0, 2},
                      {1, 1, 1, 1000, 1000}};
    time_bins *t = feed(0, 0, 1000, c, 5);
    size_t len, at;
    unsigned char *b = stream_of(t, &len, &at);
    wire_status st;
    time_bins *u = recv_of(b, len, &st);
    assert_int_equal(st, WIRE_PROFILE);
    assert_non_null(u);
    assert_true(u->available);
    assert_int_equal(u->t0, t->t0);
    assert_int_equal(u->width, t->width);
    assert_int_equal(u->nbins, t->nbins);
    assert_int_equal(u->nrows, 3);
    check_all(u, c, 5);
    time_bins_free(u);
    /* every byte of the section changed in turn: rejected, or a message
     * whose every row still passes the checks (no crash, no leak) */
    size_t rejected = 0;
    for (size_t i = at; i < len; i++) {
        unsigned char *v = malloc(len);
        memcpy(v, b, len);
        v[i] ^= 0x5a;
        u = recv_of(v, len, &st);
        rejected += u == NULL;
        for (size_t k = 0; u && k < u->nrows; k++) {
            const tbins_row *r = &u->rows[k];
            assert_true(r->nb >= 1 && r->lo + r->nb <= u->nbins && u->nbins <= TB_BINS_MAX);
        }
        time_bins_free(u);
        free(v);
    }
    assert_true(rejected > (len - at) / 2);
    for (size_t cut = at; cut < len; cut += 7) { /* cut short */
        u = recv_of(b, cut, &st);
        assert_null(u);
        assert_int_not_equal(st, WIRE_PROFILE);
    }
    free(b);
    /* a product that was lost travels as such */
    ooc_bins *bb = ooc_bins_new(0, 0, 10);
    ooc_bins_lose(bb, "a reason");
    time_bins *l = ooc_bins_take(bb);
    b = stream_of(l, &len, &at);
    u = recv_of(b, len, &st);
    assert_non_null(u);
    assert_false(u->available);
    assert_string_equal(u->why, "a reason");
    time_bins_free(u);
    time_bins_free(l);
    free(b);
    time_bins_free(t);
}

/* A skeleton: the rows must name its ranks and regions with their counts. */
/* The longest call's lane and depth: from the sweep's calls, kept through
 * a bin's merges (pairs merged under a small budget) and the wire; a call
 * fed unnested has none (TB_ANY_LANE). */
static const tbin *bin_at(const time_bins *t, size_t rank, uint32_t reg, int64_t s)
{
    const tbins_row *r = time_bins_row(t, rank, reg);
    assert_non_null(r);
    uint32_t k = time_bins_of(t, s);
    assert_true(k >= r->lo && k < r->lo + r->nb);
    return &r->v[k - r->lo];
}

static void test_lanes(void **state)
{
    (void)state;
    ooc_bins *b = ooc_bins_new(0, 0, 1023);
    /* bin 0 (width 1): one call; bin 5: the longer of two, lane 7 depth 2 */
    ooc_call c[] = {{0, 0, 0, 4, 1, 0, 0, 0, 1, -1, -1, false, -1},
                    {0, 0, 0, 3, 0, 0, 1, 5, 6, -1, -1, false, -1},
                    {0, 0, 1, 7, 2, 0, 2, 5, 9, -1, -1, false, -1},
                    {0, 1, 0, 2, 0, 1, 0, 5, 8, -1, -1, false, -1}};
    for (size_t i = 0; i < 4; i++)
        assert_true(ooc_bins_sink.call(b, &c[i]));
    ooc_call f = {1, 0, 0, 0, 0, 0, 0, 5, 7, -1, -1, false, -1};
    assert_true(ooc_bins_flat.call(b, &f));
    time_bins *t = ooc_bins_take(b);
    assert_non_null(t);
    const tbin *x = bin_at(t, 0, 0, 0);
    assert_int_equal(x->max_lane, 4);
    assert_int_equal(x->max_depth, 1);
    x = bin_at(t, 0, 0, 5);
    assert_int_equal(x->max, 4);
    assert_int_equal(x->max_lane, 7);
    assert_int_equal(x->max_depth, 2);
    assert_int_equal(bin_at(t, 1, 0, 5)->max_lane, TB_ANY_LANE);
    /* over the wire */
    size_t len, at;
    unsigned char *w = stream_of(t, &len, &at);
    wire_status st;
    time_bins *u = recv_of(w, len, &st);
    assert_non_null(u);
    assert_int_equal(bin_at(u, 0, 0, 5)->max_lane, 7);
    assert_int_equal(bin_at(u, 0, 0, 5)->max_depth, 2);
    assert_int_equal(bin_at(u, 0, 1, 5)->max_lane, 2);
    assert_int_equal(bin_at(u, 1, 0, 5)->max_lane, TB_ANY_LANE);
    time_bins_free(u);
    free(w);
    time_bins_free(t);
    /* many rows under a small budget: bins merged in pairs, the longest's lane kept */
    b = ooc_bins_new(1, 0, 1023);
    for (uint32_t g = 0; g < 40; g++)
        for (int64_t s = 0; s < 1024; s += 2) {
            bool slow = s == 600;
            ooc_call k = {0,  0,           0, slow ? 9u : 1u,      slow ? 5u : 1u,
                          g,  (uint64_t)s, s, s + (slow ? 50 : 1), -1,
                          -1, false,       -1};
            assert_true(ooc_bins_sink.call(b, &k));
        }
    t = ooc_bins_take(b);
    assert_non_null(t);
    assert_true(t->available);
    assert_true(t->width > 1);
    x = bin_at(t, 0, 39, 600);
    assert_int_equal(x->max, 50);
    assert_int_equal(x->max_lane, 9);
    assert_int_equal(x->max_depth, 5);
    time_bins_free(t);
}

static void test_valid(void **state)
{
    (void)state;
    profile p = {0};
    region r0 = {.has_event_data = true}, *regs[1] = {&r0};
    r0.st.num_calls = 2;
    rank_data rk = {0};
    rk.regions = regs;
    rk.nregions = 1;
    p.ranks = &rk;
    p.nranks = 1;
    const call c[] = {{0, 0, 0, 10, 50}, {0, 0, 1, 900, 905}};
    time_bins *t = feed(0, 0, 1000, c, 2);
    assert_true(ooc_bins_valid(t, &p));
    r0.st.num_calls = 3;
    assert_false(ooc_bins_valid(t, &p));
    time_bins_free(t);
    const call d[] = {{0, 1, 0, 10, 50}};
    t = feed(0, 0, 1000, d, 1);
    assert_false(ooc_bins_valid(t, &p)); /* no region 1 */
    time_bins_free(t);
}

/* A bin keeps its longest call's lane while a lane added later sorts
 * before it and moves its index (ooc_map_lane). */
static void test_lane_moved(void **state)
{
    (void)state;
    ooc_map m;
    assert_true(ooc_map_init(&m, 0, 1023, 2));
    assert_int_equal(ooc_map_lane(&m, 0, LANE_THREAD, 9), 0);
    size_t l5 = ooc_map_lane(&m, 0, LANE_THREAD, 5); /* row 9 moves to 1 */
    assert_int_equal(l5, 0);
    ooc_bins *b = ooc_bins_new(0, 0, 1023);
    ooc_bins_use_map(b, &m);
    ooc_call slow = {0, 0, 0, l5, 1, 0, 0, 5, 40, -1, -1, false, -1};
    assert_true(ooc_bins_sink.call(b, &slow));
    size_t l1 = ooc_map_lane(&m, 0, LANE_THREAD, 1); /* sorts first: rows 5 and 9 move to 1 and 2 */
    ooc_call fast = {0, 1, 0, l1, 0, 0, 1, 5, 9, -1, -1, false, -1};
    assert_true(ooc_bins_sink.call(b, &fast));
    time_bins *t = ooc_bins_take(b);
    assert_non_null(t);
    const tbin *x = bin_at(t, 0, 0, 5);
    assert_int_equal(x->max, 35);
    assert_int_equal(x->max_lane, ooc_map_find_lane(&m, 0, LANE_THREAD, 5));
    assert_int_equal(x->max_depth, 1);
    time_bins_free(t);
    ooc_map_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_edges),  cmocka_unit_test(test_any_order),
        cmocka_unit_test(test_budget), cmocka_unit_test(test_flat_hook),
        cmocka_unit_test(test_wire),   cmocka_unit_test(test_valid),
        cmocka_unit_test(test_lanes),  cmocka_unit_test(test_lane_moved),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
