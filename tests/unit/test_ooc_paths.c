/* test_ooc_paths: the call-path totals of the sweep (ooc_paths.h) on
 * calls made here: each path's calls, inclusive, exclusive, longest, first
 * start, await and GPU figures worked out by hand (await over the calls
 * with the column, GPU over the calls with a timing, 0 included); many paths
 * met in turn, in two ranks that number them differently; the wire round
 * trip field for field, cut streams and damaged counts refused. */
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
#include "model/callpaths.h"
#include "model/profile.h"
#include "ooc/ooc_paths.h"
#include "testutil.h"

/* A call of region reg on stack 0 of rank, depth calls below it. */
static void feed(ooc_paths *pa, size_t rank, size_t depth, uint32_t reg, int64_t s, int64_t e,
                 int64_t await, int64_t gpu)
{
    ooc_call c = {rank, 0, depth, 0, 0, reg, 0, s, e, await, gpu, false, -1};
    assert_true(ooc_paths_call(pa, &c));
}

/* Rank 0: A [0, 100] (await 30, no GPU) holding B [10, 40] (await 5, GPU
 * 7) and C [50, 60] (no await column, no GPU), then D [200, 300] of A's
 * region (await 20, GPU 0); rank 1: one zero-length call (await 0). */
static call_paths *sample(void)
{
    ooc_paths *pa = ooc_paths_new(0);
    assert_non_null(pa);
    feed(pa, 0, 0, 0, 0, 100, 30, -1);
    feed(pa, 0, 1, 1, 10, 40, 5, 7);
    feed(pa, 0, 1, 1, 50, 60, -1, -1);
    feed(pa, 0, 0, 0, 200, 300, 20, 0);
    feed(pa, 1, 0, 2, 5, 5, 0, -1);
    call_paths *c = ooc_paths_take(pa);
    assert_non_null(c);
    return c;
}

static void check_path(const cpath *p, int64_t calls, int64_t incl, int64_t excl, int64_t max,
                       int64_t first, int64_t await, int64_t await_n, int64_t gpu, int64_t gpu_n)
{
    assert_int_equal(p->calls, calls);
    assert_int_equal(p->incl_ns, incl);
    assert_int_equal(p->excl_ns, excl);
    assert_int_equal(p->max_ns, max);
    assert_int_equal(p->first_ns, first);
    assert_int_equal(p->await_ns, await);
    assert_int_equal(p->await_n, await_n);
    assert_int_equal(p->gpu_ns, gpu);
    assert_int_equal(p->gpu_n, gpu_n);
}

static void check_sample(const call_paths *c)
{
    assert_true(c->available);
    assert_int_equal(c->nranks, 2);
    const cpath_rank *r0 = &c->ranks[0], *r1 = &c->ranks[1];
    assert_int_equal(r0->rank_index, 0);
    assert_int_equal(r0->n, 2);
    assert_int_equal(r0->v[0].parent, CP_ROOT);
    assert_int_equal(r0->v[0].region, 0);
    /* A and D: 100 + 100 inclusive, A's own 100 - (30 + 10), D's 100 */
    check_path(&r0->v[0], 2, 200, 160, 100, 0, 50, 2, 0, 1);
    assert_int_equal(r0->v[1].parent, 0);
    assert_int_equal(r0->v[1].region, 1);
    check_path(&r0->v[1], 2, 40, 40, 30, 10, 5, 1, 7, 1);
    assert_int_equal(r1->rank_index, 1);
    assert_int_equal(r1->n, 1);
    check_path(&r1->v[0], 1, 0, 0, 0, 5, 0, 1, 0, 0);
}

static void test_sums(void **state)
{
    (void)state;
    call_paths *c = sample();
    check_sample(c);
    call_paths_free(c);
}

/* ------------------------------------------------------------ the wire */

static void put_sec(wire_w *w, void *ctx)
{
    ooc_paths_put(w, ctx);
}

static bool get_sec(wire_r *r, void *ctx)
{
    call_paths **out = ctx;
    call_paths_free(*out);
    *out = ooc_paths_get(r);
    return *out != NULL;
}

/* c on the wire after an empty profile; *len its bytes. */
static unsigned char *stream_of(const call_paths *c, size_t *len)
{
    profile *p = profile_new("x.h5");
    wire_section sec = {put_sec, get_sec, (void *)c};
    int fd = memfd_create("wire", 0);
    assert_true(fd >= 0);
    assert_int_equal(wire_send_profile_section(fd, p, false, &sec), 0);
    off_t end = lseek(fd, 0, SEEK_END);
    unsigned char *b = malloc((size_t)end);
    assert_int_equal(pread(fd, b, (size_t)end, 0), end);
    close(fd);
    profile_free(p);
    *len = (size_t)end;
    return b;
}

static call_paths *recv_of(const unsigned char *b, size_t len, wire_status *st)
{
    call_paths *got = NULL;
    wire_section sec = {put_sec, get_sec, &got};
    sv_mem_src m = {b, len, 0, 0};
    wire_src src = {sv_mem_read, &m, NULL};
    profile *q = NULL;
    sv_error err;
    *st = wire_recv_section(&src, 1u << 26, &sec, &q, &err);
    profile_free(q);
    if (*st != WIRE_PROFILE) {
        call_paths_free(got);
        return NULL;
    }
    return got;
}

/* Rank `rank`: one call of region 0 around two rounds of calls of regions 1 .. n, each
 * [t, t + 10]; the first round in the order given by up (rank 0 up, rank 1 down, so the two
 * ranks number the same paths differently), the second in the other. */
static void feed_many(ooc_paths *pa, size_t rank, bool up, unsigned n)
{
    feed(pa, rank, 0, 0, 0, 100000, -1, -1);
    int64_t t = 1;
    for (unsigned round = 0; round < 2; round++)
        for (unsigned i = 0; i < n; i++, t += 20) {
            bool asc = (round == 0) == up;
            feed(pa, rank, 1, asc ? 1 + i : n - i, t, t + 10, -1, -1);
        }
}

/* n paths under one root in two ranks: few (the second rank's first calls are the pairs the
 * first rank met last), or more than the recent paths' memo holds. */
static void check_many(unsigned n)
{
    ooc_paths *pa = ooc_paths_new(0);
    assert_non_null(pa);
    feed_many(pa, 0, true, n);
    feed_many(pa, 1, false, n);
    call_paths *c = ooc_paths_take(pa);
    assert_non_null(c);
    assert_int_equal(c->nranks, 2);
    for (size_t k = 0; k < 2; k++) {
        const cpath_rank *r = &c->ranks[k];
        assert_int_equal(r->n, n + 1);
        check_path(&r->v[0], 1, 100000, 100000 - 2 * (int64_t)n * 10, 100000, 0, 0, 0, 0, 0);
        for (size_t j = 1; j <= n; j++) {
            /* path j is the j-th region met: rank 0 met 1 .. n, rank 1 n .. 1 */
            uint32_t reg = k == 0 ? (uint32_t)j : n + 1 - (uint32_t)j;
            assert_int_equal(r->v[j].parent, 0);
            assert_int_equal(r->v[j].region, reg);
            assert_int_equal(r->v[j].calls, 2);
            assert_int_equal(r->v[j].incl_ns, 20);
        }
    }
    call_paths_free(c);
}

static void test_many_paths(void **state)
{
    (void)state;
    check_many(5);
    check_many(300);
}

static void test_round_trip(void **state)
{
    (void)state;
    call_paths *c = sample();
    size_t len;
    unsigned char *b = stream_of(c, &len);
    wire_status st;
    call_paths *d = recv_of(b, len, &st);
    assert_int_equal(st, WIRE_PROFILE);
    assert_non_null(d);
    check_sample(d);
    for (size_t cut = 0; cut + 1 < len; cut++) { /* broken, never a crash */
        call_paths *e = recv_of(b, cut, &st);
        assert_null(e);
        assert_int_not_equal(st, WIRE_PROFILE);
    }
    free(b);
    call_paths_free(d);
    call_paths_free(c);
}

/* One damage to a good product, put as it is, must be refused. */
static void refused(void (*damage)(cpath *p))
{
    call_paths *c = sample();
    damage(&c->ranks[0].v[1]);
    size_t len;
    unsigned char *b = stream_of(c, &len);
    wire_status st;
    call_paths *d = recv_of(b, len, &st);
    assert_null(d);
    assert_int_equal(st, WIRE_BROKEN);
    free(b);
    call_paths_free(c);
}

static void await_n_over(cpath *p)
{
    p->await_n = p->calls + 1;
}
static void gpu_n_over(cpath *p)
{
    p->gpu_n = p->calls + 1;
}
static void await_n_negative(cpath *p)
{
    p->await_n = -1;
}
static void gpu_negative(cpath *p)
{
    p->gpu_ns = -7;
}
static void await_negative(cpath *p)
{
    p->await_ns = -5;
}
static void await_without_calls(cpath *p)
{
    p->await_n = 0; /* 5 ns of await over no call */
}
static void gpu_without_calls(cpath *p)
{
    p->gpu_n = 0;
}
static void calls_negative(cpath *p)
{
    p->calls = -1;
}
static void parent_later(cpath *p)
{
    p->parent = 1; /* itself */
}

static void test_refused(void **state)
{
    (void)state;
    refused(await_n_over);
    refused(gpu_n_over);
    refused(await_n_negative);
    refused(gpu_negative);
    refused(await_negative);
    refused(await_without_calls);
    refused(gpu_without_calls);
    refused(calls_negative);
    refused(parent_later);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sums),
        cmocka_unit_test(test_many_paths),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
