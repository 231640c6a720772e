/* Out-of-core statistics (stream.h) against the in-memory ones (stats.c,
 * nest.c) on the same calls fed in chunks of every size, and a few values
 * worked out by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/nest.h"
#include "model/profile.h"
#include "model/stats.h"
#include "load/stream.h"

static uint64_t rng_state = 88172645463325252ull;

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Durations of a few shapes: spread, heavy ties, a huge outlier. */
static void fill_calls(int64_t *s, int64_t *e, size_t n, int shape)
{
    int64_t t = 1000;
    for (size_t i = 0; i < n; i++) {
        int64_t d;
        switch (shape) {
        case 0:
            d = (int64_t)(rnd() % 100000);
            break;
        case 1:
            d = 4096 + (int64_t)(rnd() % 3);
            break; /* one heavy bucket */
        case 2:
            d = i % 97 == 0 ? (int64_t)1 << 50 : (int64_t)(rnd() % 5000);
            break;
        case 4:
            d = (int64_t)(i * 10 + rnd() % 10);
            break; /* growing: the first calls say nothing of the percentiles */
        default:
            d = (int64_t)(rnd() % 300);
            break; /* exact buckets */
        }
        t += (int64_t)(rnd() % 1000);
        s[i] = t;
        e[i] = t + d;
    }
}

/* Feeds the accumulator in chunks of len (the last one shorter). */
static void feed(stream_acc *a, const int64_t *s, const int64_t *e, size_t n, size_t len)
{
    for (size_t at = 0; at < n; at += len)
        stream_acc_add(a, s + at, e + at, n - at < len ? n - at : len);
}

typedef struct arr_ctx {
    const int64_t *d;
    size_t n, len;
    int passes;
} arr_ctx;

static int arr_pass(void *vctx, stream_dur_fn fn, void *fctx)
{
    arr_ctx *x = vctx;
    x->passes++;
    for (size_t at = 0; at < x->n; at += x->len)
        fn(fctx, x->d + at, x->n - at < x->len ? x->n - at : x->len);
    return 0;
}

static void collect(void *pc, const int64_t *d, size_t n)
{
    stream_pct_feed(pc, d, n);
}

/* The streamed statistics of n calls equal stats_compute_region's, bit for
 * bit, whatever the chunk length and the percentile buckets' cap. */
static void check_same(size_t n, int shape, size_t len, size_t cap)
{
    region r;
    memset(&r, 0, sizeof r);
    r.has_event_data = true;
    r.n = n;
    r.start_ns = malloc((n ? n : 1) * sizeof *r.start_ns);
    r.end_ns = malloc((n ? n : 1) * sizeof *r.end_ns);
    int64_t *d = malloc((n ? n : 1) * sizeof *d);
    fill_calls(r.start_ns, r.end_ns, n, shape);
    for (size_t i = 0; i < n; i++)
        d[i] = r.end_ns[i] - r.start_ns[i];
    sv_error err;
    assert_int_equal(stats_compute_region(&r, &err), SV_OK);

    stream_acc a;
    assert_true(stream_acc_init(&a));
    feed(&a, r.start_ns, r.end_ns, n, len);
    region_stats st;
    memset(&st, 0, sizeof st);
    if (!stream_acc_finish(&a, &st)) {
        /* n * max >= 2^62 (the outliers of shape 2): stats.c's long double passes */
        stream_ld l = {0, 0, 0, 0};
        stream_ld_sum(&l, d, n);
        l.mean = l.sum / (long double)l.n;
        stream_ld_ss(&l, d, n);
        st.std_ns = stream_ld_std(&l);
    }
    if (n) {
        stream_pct pc;
        stream_pct_plan(&pc, a.hist, n);
        assert_true(stream_pct_alloc(&pc, cap));
        arr_ctx x = {d, n, len, 0};
        arr_pass(&x, collect, &pc);
        stream_pct_resolve(&pc);
        assert_int_equal(stream_pct_refine(&pc, cap, arr_pass, &x), 0);
        stream_pct_result(&pc, &st);
    }
    stream_acc_free(&a);
    assert_int_equal(st.num_calls, r.st.num_calls);
    assert_int_equal(st.total_ns, r.st.total_ns);
    assert_int_equal(st.min_ns, r.st.min_ns);
    assert_int_equal(st.max_ns, r.st.max_ns);
    assert_int_equal(st.first_ns, r.st.first_ns);
    assert_int_equal(st.last_ns, r.st.last_ns);
    assert_int_equal(st.first_start_ns, r.st.first_start_ns);
    assert_int_equal(st.last_end_ns, r.st.last_end_ns);
    assert_memory_equal(&st.mean_ns, &r.st.mean_ns, sizeof(double));
    assert_memory_equal(&st.std_ns, &r.st.std_ns, sizeof(double));
    assert_memory_equal(&st.p50_ns, &r.st.p50_ns, sizeof(double));
    assert_memory_equal(&st.p95_ns, &r.st.p95_ns, sizeof(double));
    assert_memory_equal(&st.p99_ns, &r.st.p99_ns, sizeof(double));
    free(d);
    region_clear(&r);
}

static void test_same_as_stats(void **state)
{
    (void)state;
    size_t ns[] = {1, 2, 3, 17, 1000, 70000, 200000};
    size_t lens[] = {1, 7, 4096};
    for (size_t a = 0; a < sizeof ns / sizeof *ns; a++)
        for (int shape = 0; shape < 4; shape++)
            for (size_t b = 0; b < sizeof lens / sizeof *lens; b++) {
                if (ns[a] > 5000 && lens[b] == 1)
                    continue;
                check_same(ns[a], shape, lens[b], 1u << 20);
                /* a cap of 16 values: every bucket is split by more passes */
                check_same(ns[a], shape, lens[b], 16);
            }
}

/* Percentiles in pass 1 (stream_early): held or kept in windows, they are
 * stats.c's, with no pass over the calls; when the windows miss (durations
 * that grow along the row) or overflow their cap, apply says so and leaves
 * the plan to the passes, which still give stats.c's values. */
static void check_early(size_t n, int shape, size_t len, size_t prefix, size_t cap, bool hit)
{
    region r;
    memset(&r, 0, sizeof r);
    r.has_event_data = true;
    r.n = n;
    r.start_ns = malloc(n * sizeof *r.start_ns);
    r.end_ns = malloc(n * sizeof *r.end_ns);
    int64_t *d = malloc(n * sizeof *d);
    fill_calls(r.start_ns, r.end_ns, n, shape);
    for (size_t i = 0; i < n; i++)
        d[i] = r.end_ns[i] - r.start_ns[i];
    sv_error err;
    assert_int_equal(stats_compute_region(&r, &err), SV_OK);
    stream_acc a;
    assert_true(stream_acc_init(&a));
    stream_early ea;
    stream_early_init(&ea, prefix, cap);
    for (size_t at = 0; at < n; at += len) {
        size_t k = n - at < len ? n - at : len;
        stream_acc_add(&a, r.start_ns + at, r.end_ns + at, k);
        stream_early_feed(&ea, r.start_ns + at, r.end_ns + at, k, a.hist, a.n);
    }
    stream_pct pc;
    stream_pct_plan(&pc, a.hist, n);
    bool got = stream_early_apply(&ea, &pc);
    assert_int_equal(got, hit);
    arr_ctx x = {d, n, len, 0};
    if (!got) { /* pass 2 as without the early values */
        assert_int_equal(pc.nb, 0);
        assert_true(stream_pct_alloc(&pc, 1u << 20));
        arr_pass(&x, collect, &pc);
    }
    stream_pct_resolve(&pc);
    assert_int_equal(stream_pct_refine(&pc, 1u << 20, arr_pass, &x), 0);
    assert_int_equal(x.passes, got ? 0 : 1);
    region_stats st;
    memset(&st, 0, sizeof st);
    stream_pct_result(&pc, &st);
    assert_memory_equal(&st.p50_ns, &r.st.p50_ns, sizeof(double));
    assert_memory_equal(&st.p95_ns, &r.st.p95_ns, sizeof(double));
    assert_memory_equal(&st.p99_ns, &r.st.p99_ns, sizeof(double));
    stream_early_free(&ea);
    stream_acc_free(&a);
    free(d);
    region_clear(&r);
}

static void test_early_percentiles(void **state)
{
    (void)state;
    /* held whole (n within the prefix), then windows from 1000 and 5000 calls on */
    for (int shape = 0; shape < 4; shape++) {
        check_early(3000, shape, 7, 4096, 1u << 20, true);
        check_early(70000, shape, 333, 1000, 1u << 20, true);
        check_early(200000, shape, 4096, 5000, 1u << 20, true);
    }
    check_early(1, 0, 1, 1, 16, true);
    check_early(70000, 4, 333, 1000, 1u << 20, false); /* growing: every window missed */
    check_early(70000, 0, 333, 1000, 2000, false);     /* the windows' values exceed the cap */
    check_early(70000, 1, 333, 1000, 1u << 20, true);  /* one heavy bucket, held whole */
}

/* 1 2 3 4 by hand: p50 2.5, p95 3.85 (idx 2.85), p99 3.97; mean 2.5,
 * std sqrt(1.25). */
static void test_by_hand(void **state)
{
    (void)state;
    int64_t s[] = {0, 10, 20, 30}, e[] = {4, 11, 23, 32};
    int64_t d[] = {4, 1, 3, 2};
    stream_acc a;
    assert_true(stream_acc_init(&a));
    stream_acc_add(&a, s, e, 2);
    stream_acc_add(&a, s + 2, e + 2, 2);
    region_stats st;
    memset(&st, 0, sizeof st);
    assert_true(stream_acc_finish(&a, &st));
    stream_pct pc;
    stream_pct_plan(&pc, a.hist, 4);
    assert_true(stream_pct_alloc(&pc, 100));
    stream_pct_feed(&pc, d, 4);
    stream_pct_resolve(&pc);
    stream_pct_result(&pc, &st);
    stream_acc_free(&a);
    assert_int_equal(st.total_ns, 10);
    assert_int_equal(st.first_ns, 4);
    assert_int_equal(st.last_ns, 2);
    assert_int_equal(st.first_start_ns, 0);
    assert_int_equal(st.last_end_ns, 32);
    assert_float_equal(st.mean_ns, 2.5, 0);
    assert_float_equal(st.std_ns, 1.118033988749895, 1e-15);
    assert_float_equal(st.p50_ns, 2.5, 1e-12);
    assert_float_equal(st.p95_ns, 3.85, 1e-12);
    assert_float_equal(st.p99_ns, 3.97, 1e-12);
}

/* ------------------------------------------------------------ the sweep */

typedef struct chunk_src {
    const region *r;
    size_t at, len;
} chunk_src;

static int chunk_refill(void *vctx, stream_src *src)
{
    chunk_src *c = vctx;
    if (c->at >= c->r->n)
        return 0;
    size_t k = c->r->n - c->at < c->len ? c->r->n - c->at : c->len;
    src->s = c->r->start_ns + c->at;
    src->e = c->r->end_ns + c->at;
    src->len = k;
    c->at += k;
    return 1;
}

/* Nested calls of a few regions, sorted per region: recursion (a region
 * inside itself), ties, zero-length calls, partial overlaps (inferred
 * lanes). */
static void make_rank(profile *p, size_t nreg, size_t per)
{
    rank_data *rk = profile_add_rank(p, 0);
    for (size_t j = 0; j < nreg; j++) {
        char name[16];
        snprintf(name, sizeof name, "r%zu", j);
        region *r = rank_add_region(rk, name);
        r->has_event_data = true;
        r->n = per;
        r->start_ns = malloc(per * sizeof *r->start_ns);
        r->end_ns = malloc(per * sizeof *r->end_ns);
        int64_t t = 0;
        for (size_t i = 0; i < per; i++) {
            t += (int64_t)(rnd() % 50);
            r->start_ns[i] = t;
            r->end_ns[i] = t + (int64_t)(rnd() % (j == 0 ? 400 : 60));
            /* equal starts: the longer first, the order the sweep needs */
            for (size_t k = i;
                 k > 0 && r->start_ns[k - 1] == r->start_ns[k] && r->end_ns[k - 1] < r->end_ns[k];
                 k--) {
                int64_t x = r->end_ns[k];
                r->end_ns[k] = r->end_ns[k - 1];
                r->end_ns[k - 1] = x;
            }
        }
    }
}

static void check_sweep(size_t nreg, size_t per, size_t len)
{
    profile *p = profile_new("mem.h5");
    make_rank(p, nreg, per);
    sv_error err;
    assert_int_equal(profile_finish(p, &err), SV_OK);
    rank_data *rk = &p->ranks[0];
    stream_src *srcs = calloc(nreg, sizeof *srcs);
    chunk_src *cs = calloc(nreg, sizeof *cs);
    int64_t *excl = calloc(nreg, sizeof *excl);
    for (size_t j = 0; j < nreg; j++) {
        cs[j] = (chunk_src){rk->regions[j], 0, len};
        srcs[j] = (stream_src){.reg = (uint32_t)j, .refill = chunk_refill, .ctx = &cs[j]};
    }
    stream_sweep_out out = {excl, 0, false, false};
    assert_int_equal(stream_sweep(srcs, nreg, &out), 0);
    for (size_t j = 0; j < nreg; j++)
        assert_int_equal(excl[j], rk->regions[j]->st.exclusive_total_ns);
    assert_int_equal(out.nlanes, rk->ninferred_lanes);
    free(srcs);
    free(cs);
    free(excl);
    profile_free(p);
}

static void test_sweep_same_as_nest(void **state)
{
    (void)state;
    check_sweep(1, 1000, 1);
    check_sweep(3, 2000, 7);
    check_sweep(5, 3000, 64);
    check_sweep(12, 500, 3); /* more regions than the scan: the heap */
}

/* By hand: A [0,10) holds B [2,5) and C [4,8) (C overlaps B partly: its
 * own lane).  Lane 0: A, B; lane 1: C.  excl A = 10 - 3 = 7, B 3, C 4. */
static void test_sweep_by_hand(void **state)
{
    (void)state;
    int64_t as[] = {0}, ae[] = {10}, bs[] = {2}, be[] = {5}, cs[] = {4}, ce[] = {8};
    region ra = {.n = 1, .start_ns = as, .end_ns = ae}, rb = {.n = 1, .start_ns = bs, .end_ns = be},
           rc = {.n = 1, .start_ns = cs, .end_ns = ce};
    chunk_src c[3] = {{&ra, 0, 1}, {&rb, 0, 1}, {&rc, 0, 1}};
    stream_src s[3];
    for (uint32_t j = 0; j < 3; j++)
        s[j] = (stream_src){.reg = j, .refill = chunk_refill, .ctx = &c[j]};
    int64_t excl[3] = {0};
    stream_sweep_out out = {excl, 0, false, false};
    assert_int_equal(stream_sweep(s, 3, &out), 0);
    assert_int_equal(excl[0], 7);
    assert_int_equal(excl[1], 3);
    assert_int_equal(excl[2], 4);
    assert_int_equal(out.nlanes, 2);
}

/* A row out of (start, -end) order is refused (-2), never swept into wrong totals; with
 * out.lanes (one thread's calls) a partial overlap opens no lane: B [2,5) in A [0,10); C [4,8)
 * pops B (which does not contain it) and nests in A: A's children cover [2,8), excl A =
 * 10 - 6 = 4, B = 3, C = 4. */
static void test_sweep_order_and_lanes(void **state)
{
    (void)state;
    int64_t s1[] = {5, 1}, e1[] = {6, 2};
    region r = {.n = 2, .start_ns = s1, .end_ns = e1};
    chunk_src c = {&r, 0, 1};
    stream_src src = {.reg = 0, .refill = chunk_refill, .ctx = &c};
    int64_t excl[3] = {0};
    stream_sweep_out out = {excl, 0, false, false};
    assert_int_equal(stream_sweep(&src, 1, &out), -2);

    int64_t as[] = {0}, ae[] = {10}, bs[] = {2}, be[] = {5}, cs[] = {4}, ce[] = {8};
    region ra = {.n = 1, .start_ns = as, .end_ns = ae}, rb = {.n = 1, .start_ns = bs, .end_ns = be},
           rc = {.n = 1, .start_ns = cs, .end_ns = ce};
    chunk_src ch[3] = {{&ra, 0, 1}, {&rb, 0, 1}, {&rc, 0, 1}};
    stream_src s[3];
    for (uint32_t j = 0; j < 3; j++)
        s[j] = (stream_src){.reg = j, .refill = chunk_refill, .ctx = &ch[j]};
    memset(excl, 0, sizeof excl);
    stream_sweep_out lanes = {excl, 0, false, true};
    assert_int_equal(stream_sweep(s, 3, &lanes), 0);
    assert_int_equal(excl[0], 4);
    assert_int_equal(excl[1], 3);
    assert_int_equal(excl[2], 4);
    assert_int_equal(lanes.nlanes, 0);
}

static void test_chunk_len(void **state)
{
    (void)state;
    unsetenv("SCOPEVIEW_STREAM_CHUNK");
    /* 1 GiB / 4 over 5 readers of 3 columns: capped at 2^20 */
    assert_int_equal(stream_chunk_len((uint64_t)1 << 30, 5, 3), (size_t)1 << 20);
    /* 8 MiB / 4 = 2 MiB over 8 readers of 8 columns (512 B a call): 4096 */
    assert_int_equal(stream_chunk_len((uint64_t)8 << 20, 8, 8), 4096);
    assert_int_equal(stream_chunk_len(1000, 1, 1), 1024); /* the floor */
    setenv("SCOPEVIEW_STREAM_CHUNK", "3", 1);
    assert_int_equal(stream_chunk_len((uint64_t)1 << 30, 1, 1), 3);
    unsetenv("SCOPEVIEW_STREAM_CHUNK");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_as_stats),         cmocka_unit_test(test_by_hand),
        cmocka_unit_test(test_sweep_same_as_nest),    cmocka_unit_test(test_sweep_by_hand),
        cmocka_unit_test(test_sweep_order_and_lanes), cmocka_unit_test(test_chunk_len),
        cmocka_unit_test(test_early_percentiles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
