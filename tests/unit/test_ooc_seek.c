/* The out-of-core seek index of a whole profile (ooc.h) and the window's
 * call cap.  Checkpoints' open calls are checked against a brute-force
 * walk of every call's ancestors (not the reach propagation ooc_seek.c
 * uses), on every profile of ooc_check.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "model/footprint.h"
#include "model/lanes.h"
#include "load/loader.h"
#include "ooc/ooc.h"
#include "ooc_check.h"
#include "testutil.h"

/* ------------------------------------------------------------ the seek index */

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Checkpoint times of a rank by the definition in ooc.h. */
static void check_cp_times(const rank_data *rk, const ooc_seek_rank *sr, const char *what)
{
    int64_t *s = malloc(rk->ncalls * sizeof *s);
    assert_non_null(s);
    size_t k = 0;
    for (size_t j = 0; j < rk->nregions; j++)
        for (size_t i = 0; i < rk->regions[j]->n; i++)
            s[k++] = rk->regions[j]->start_ns[i];
    qsort(s, k, sizeof *s, cmp_i64);
    size_t c = 0;
    int64_t last = 0;
    for (size_t j = 0; j < k; j += OOC_SEEK_STRIDE) {
        if (j > 0 && s[j] == last)
            continue;
        if (c >= sr->ncp || sr->cp[c].t != s[j])
            fail_msg("%s: rank %d: checkpoint %zu should be at %lld (call %zu in start order), "
                     "is %lld (%zu checkpoints)",
                     what, rk->rank, c, (long long)s[j], j,
                     c < sr->ncp ? (long long)sr->cp[c].t : -1LL, sr->ncp);
        last = s[j];
        c++;
    }
    if (c != sr->ncp)
        fail_msg("%s: rank %d: %zu checkpoints, expected %zu", what, rk->rank, sr->ncp, c);
    free(s);
}

/* The open calls of checkpoint t by brute force: calls starting before t
 * that end at or after it, and every ancestor starting before t of a call
 * starting at or after it. */
static void check_cp_open(const rank_data *rk, const ooc_seek_rank *sr, const ooc_checkpoint *cp,
                          const char *what)
{
    int64_t t = cp->t;
    uint8_t *want = calloc(rk->ncalls, 1);
    assert_non_null(want);
    for (size_t j = 0; j < rk->nregions; j++) {
        const region *r = rk->regions[j];
        for (size_t i = 0; i < r->n; i++) {
            size_t g = r->gidx0 + i;
            if (r->start_ns[i] < t && r->end_ns[i] >= t)
                want[g] = 1;
            if (r->start_ns[i] < t)
                continue;
            for (int32_t a = rk->calls->parent[g]; a >= 0; a = rk->calls->parent[a]) {
                size_t ai;
                const region *ar = rank_call_region(rk, a, &ai);
                if (ar->start_ns[ai] < t)
                    want[a] = 1;
            }
        }
    }
    size_t nwant = 0;
    for (size_t g = 0; g < rk->ncalls; g++)
        nwant += want[g];
    if (nwant != cp->count)
        fail_msg("%s: rank %d: checkpoint at %lld has %zu open calls, expected %zu", what, rk->rank,
                 (long long)t, cp->count, nwant);
    for (size_t k = 0; k < cp->count; k++) {
        const ooc_open_call *o = &sr->open[cp->first + k];
        assert_true(o->region_index < rk->nregions);
        const region *r = rk->regions[o->region_index];
        assert_true(o->pos < r->n);
        size_t g = r->gidx0 + o->pos;
        if (!want[g])
            fail_msg("%s: rank %d: checkpoint at %lld lists %s call %llu, which is not open", what,
                     rk->rank, (long long)t, r->name, (unsigned long long)o->pos);
        want[g] = 0; /* listed twice: counted short above */
        assert_int_equal(o->start, r->start_ns[o->pos]);
        assert_int_equal(o->end, r->end_ns[o->pos]);
        assert_int_equal(o->lane, rk->calls->lane ? rk->calls->lane[g] : 0);
        if (k > 0) {
            const ooc_open_call *q = o - 1;
            bool ordered =
                q->start < o->start ||
                (q->start == o->start &&
                 (q->end > o->end ||
                  (q->end == o->end && (q->region_index < o->region_index ||
                                        (q->region_index == o->region_index && q->pos < o->pos)))));
            if (!ordered)
                fail_msg("%s: rank %d: checkpoint at %lld: open calls %zu and %zu out of the "
                         "sweep's order",
                         what, rk->rank, (long long)t, k - 1, k);
        }
    }
    free(want);
}

static void check_seek(const profile *p, const ooc_seek *sk, const char *what)
{
    assert_int_equal(sk->nranks, p->nranks);
    size_t row = 0;
    for (size_t i = 0; i < p->nranks; i++) {
        const rank_data *rk = &p->ranks[i];
        for (size_t j = 0; j < rk->nregions; j++) {
            const region *r = rk->regions[j];
            if (!r->has_event_data)
                continue;
            assert_true(row < sk->nrows);
            const ooc_seek_row *sr = &sk->rows[row++];
            assert_int_equal(sr->rank_index, i);
            assert_int_equal(sr->region_index, j);
            assert_int_equal(sr->n, r->n);
            assert_int_equal(sr->npts, (r->n + OOC_SEEK_STRIDE - 1) / OOC_SEEK_STRIDE);
            for (size_t k = 0; k < r->n; k++) {
                size_t seg = k / OOC_SEEK_STRIDE;
                if (k % OOC_SEEK_STRIDE == 0)
                    assert_int_equal(sr->start[seg], r->start_ns[k]);
                assert_true(sr->smin[seg] <= r->start_ns[k] && r->start_ns[k] <= sr->smax[seg]);
            }
        }
        const ooc_seek_rank *sr = &sk->ranks[i];
        assert_int_equal(sr->rank_index, i);
        assert_int_equal(sr->ninferred, rk->ninferred_lanes);
        if (rk->ncalls == 0) {
            assert_int_equal(sr->ncp, 0);
            continue;
        }
        check_cp_times(rk, sr, what);
        for (size_t c = 0; c < sr->ncp; c++)
            check_cp_open(rk, sr, &sr->cp[c], what);
    }
    assert_int_equal(row, sk->nrows);
}

static void test_seek_all(void **state)
{
    (void)state;
    const ow_prof_list *l = &((const ow_profiles *)*state)->l;
    size_t n = 0, ncp = 0;
    for (size_t k = 0; k < l->n; k++) {
        profile *p = ow_load_path(l->v[k]);
        if (!p)
            continue;
        ooc_seek sk;
        if (!ooc_seek_from_profile(p, &sk))
            fail_msg("%s: ooc_seek_from_profile failed", l->v[k]);
        check_seek(p, &sk, l->v[k]);
        for (size_t i = 0; i < sk.nranks; i++)
            ncp += sk.ranks[i].ncp;
        ooc_seek_free(&sk);
        profile_free(p);
        n++;
    }
    if (n < 20)
        fail_msg("only %zu profiles loaded", n);
    /* The generated profiles hold more than one stride per rank. */
    if (ncp < n + 20)
        fail_msg("only %zu checkpoints over %zu profiles: no rank past one stride", ncp, n);
}

/* A hand-made rank: with explicit ids a parent that starts after its child
 * makes the rank not windowable; a descendant that starts after the
 * checkpoint keeps its ancestor open though the ancestor has ended. */
static void test_seek_explicit(void **state)
{
    (void)state;
    char path[1024];
    profile *p = ow_load_path(sv_fixture_path(path, sizeof path, "small.h5"));
    assert_non_null(p);
    ooc_seek sk;
    assert_true(ooc_seek_from_profile(p, &sk));
    /* small.h5 (FIXTURES.md): 6 calls on rank 0, one checkpoint at 1000 */
    assert_int_equal(sk.nranks, 1);
    assert_int_equal(sk.ranks[0].ncp, 1);
    assert_int_equal(sk.ranks[0].cp[0].t, 1000);
    assert_int_equal(sk.ranks[0].cp[0].count, 0);
    assert_true(sk.ranks[0].windowable);
    ooc_seek_free(&sk);
    /* inner[0] (1100) made the child of outer[1] (2000): its parent starts after it */
    rank_data *rk = &p->ranks[0];
    region *inner = rank_region(rk, "inner");
    region *outer = rank_region(rk, "outer");
    rk->calls->parent[inner->gidx0] = (int32_t)(outer->gidx0 + 1);
    assert_true(ooc_seek_from_profile(p, &sk));
    assert_false(sk.ranks[0].windowable);
    ooc_seek_free(&sk);
    profile_free(p);
}

/* A third of the budget at 136 bytes a call (ooc.h), by hand. */
static void test_window_cap(void **state)
{
    (void)state;
    /* 2^30 / 3 = 357913941; / 136 = 2631720 */
    assert_int_equal(ooc_window_cap((uint64_t)1 << 30), 2631720);
    assert_int_equal(ooc_window_cap(408), 1);
    assert_int_equal(ooc_window_cap(407), 0);
    assert_int_equal(ooc_window_cap(0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_window_cap),
        cmocka_unit_test(test_seek_explicit),
        cmocka_unit_test(test_seek_all),
    };
    int failed = cmocka_run_group_tests(tests, ow_group_setup, ow_group_teardown);
    return sv_shared_exit(failed);
}
