/* nest_share: the per-call build's exclusive totals handed to the
 * statistics' totals pass.  The totals a rank gets through the share are
 * the hand-worked ones of legacy_small (test_nest.c), and the totals
 * pass's own on ranks with lanes, ids and many ranks; a taker waits for a
 * rank put later on another thread; a rank told none, a closed share, or
 * a rank that is not the one swept leave the totals pass to sweep. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "memprof.h"
#include "model/nest.h"
#include "model/nest_share.h"
#include "model/region.h"

static void spoil_totals(rank_data *rk)
{
    for (size_t j = 0; j < rk->nregions; j++)
        rk->regions[j]->st.exclusive_total_ns = -1;
    rk->ninferred_lanes = 999;
}

/* The build's sweep of p's rank k into sh. */
static void build_rank(profile *p, size_t k, nest_share *sh)
{
    rank_calls *c = NULL;
    sv_error err;
    assert_int_equal(nest_rank_calls_shared(&p->ranks[k], &c, sh, k, &err), SV_OK);
    assert_non_null(c);
    rank_calls_free(c);
}

static void test_by_hand(void **state)
{
    (void)state;
    profile *p = mp_ranks_profile(1), *q = mp_ranks_profile(1);
    nest_share *sh = nest_share_new(1);
    assert_non_null(sh);
    build_rank(p, 0, sh);
    rank_data *rk = &q->ranks[0];
    spoil_totals(rk);
    bool capped = true;
    assert_true(nest_share_take(sh, 0, rk, &capped));
    assert_false(capped);
    /* test_nest.c's legacy_small, worked out by hand */
    assert_int_equal(rank_region(rk, "a")->st.exclusive_total_ns, 860);
    assert_int_equal(rank_region(rk, "b")->st.exclusive_total_ns, 140);
    assert_int_equal(rank_region(rk, "c")->st.exclusive_total_ns, 320);
    assert_int_equal(rk->ninferred_lanes, 2);
    assert_false(rk->explicit_ids);
    /* Through the totals pass of a profile given the share. */
    spoil_totals(rk);
    q->nest_given = sh;
    sv_error err;
    assert_int_equal(nest_rank_totals(rk, &err), SV_OK);
    assert_int_equal(rank_region(rk, "a")->st.exclusive_total_ns, 860);
    assert_int_equal(rank_region(rk, "c")->st.exclusive_total_ns, 320);
    assert_int_equal(rk->ninferred_lanes, 2);
    q->nest_given = NULL;
    nest_share_unref(sh);
    profile_free(p);
    profile_free(q);
}

/* Another rank number, region count or call count: not taken. */
static void test_mismatch(void **state)
{
    (void)state;
    profile *p = mp_ranks_profile(3), *q = mp_ranks_profile(3);
    nest_share *sh = nest_share_new(3);
    for (size_t k = 0; k < 3; k++)
        build_rank(p, k, sh);
    bool capped;
    q->ranks[1].rank = 7;
    spoil_totals(&q->ranks[1]);
    assert_false(nest_share_take(sh, 1, &q->ranks[1], &capped));
    assert_int_equal(q->ranks[1].regions[0]->st.exclusive_total_ns, -1);
    assert_int_equal(q->ranks[1].ninferred_lanes, 999);
    /* rank 2 given as rank index 0 */
    assert_false(nest_share_take(sh, 0, &q->ranks[2], &capped));
    assert_false(nest_share_take(sh, 3, &q->ranks[0], &capped)); /* no such index */
    assert_true(nest_share_take(sh, 2, &q->ranks[2], &capped));
    nest_share_unref(sh);
    profile_free(p);
    profile_free(q);
}

/* A rank with call ids is not given (the totals pass warns its own way);
 * none and close never leave a taker waiting. */
static void test_none_close(void **state)
{
    (void)state;
    profile *p = mp_ranks_profile(2);
    rank_data *rk = &p->ranks[0];
    for (size_t j = 0; j < rk->nregions; j++) {
        region *r = rk->regions[j];
        int64_t ids[8], par[8];
        for (size_t i = 0; i < r->n; i++) {
            ids[i] = (int64_t)(r->gidx0 + i);
            par[i] = -1;
        }
        mp_col(&r->call_ids, ids, r->n);
        mp_col(&r->parent_ids, par, r->n);
    }
    nest_share *sh = nest_share_new(2);
    build_rank(p, 0, sh);
    bool capped;
    assert_false(nest_share_take(sh, 0, rk, &capped));
    nest_share_close(sh);
    assert_false(nest_share_take(sh, 1, &p->ranks[1], &capped));
    build_rank(p, 1, sh); /* put after close: ignored */
    assert_false(nest_share_take(sh, 1, &p->ranks[1], &capped));
    nest_share_unref(sh);
    profile_free(p);
}

typedef struct taker {
    nest_share *sh;
    profile *q;
    bool got[9];
} taker;

static void *take_all(void *arg)
{
    taker *t = arg;
    bool capped;
    for (size_t k = 0; k < t->q->nranks; k++)
        t->got[k] = nest_share_take(t->sh, k, &t->q->ranks[k], &capped);
    return NULL;
}

/* The taker waits for ranks put later on another thread, and gets the
 * totals pass's own figures (profile_finish's on p). */
static void test_wait(void **state)
{
    (void)state;
    enum { NR = 9 };
    profile *p = mp_ranks_profile(NR), *q = mp_ranks_profile(NR);
    taker t = {nest_share_new(NR), q, {false}};
    for (size_t k = 0; k < NR; k++)
        spoil_totals(&q->ranks[k]);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, take_all, &t), 0);
    struct timespec ts = {0, 20 * 1000000L};
    nanosleep(&ts, NULL);
    for (size_t k = NR; k-- > 0;)
        build_rank(p, k, t.sh);
    pthread_join(th, NULL);
    for (size_t k = 0; k < NR; k++) {
        assert_true(t.got[k]);
        const rank_data *x = &p->ranks[k], *y = &q->ranks[k];
        assert_int_equal(x->ninferred_lanes, y->ninferred_lanes);
        for (size_t j = 0; j < x->nregions; j++)
            assert_int_equal(x->regions[j]->st.exclusive_total_ns,
                             y->regions[j]->st.exclusive_total_ns);
    }
    nest_share_unref(t.sh);
    profile_free(p);
    profile_free(q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_by_hand),
        cmocka_unit_test(test_mismatch),
        cmocka_unit_test(test_none_close),
        cmocka_unit_test(test_wait),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
