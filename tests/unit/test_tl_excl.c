/* The timeline details' exclusive-time cache (tl_selection_excl): a root
 * with many children, worked out once, stays while the selection moves
 * between its children, so a key does not walk the root's children again
 * (a key's cost must not grow with the number of calls). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "memprof.h"
#include "view/timeline/tl_state.h"

#define NKIDS 1000

/* One rank: root [0, 100000) and NKIDS kids [100 i, 100 i + 60), each
 * inside the root.  Root exclusive: 100000 - 1000 * 60 = 40000 ns; a
 * kid's: 60 ns (no children). */
static profile *root_and_kids(rank_data **rk_out, region **root, region **kid)
{
    profile *p = profile_new("mem");
    rank_data *rk = profile_add_rank(p, 0);
    int64_t rs[] = {0}, re[] = {100000};
    int64_t *ks = malloc(NKIDS * sizeof *ks), *ke = malloc(NKIDS * sizeof *ke);
    assert_non_null(ks);
    assert_non_null(ke);
    for (int i = 0; i < NKIDS; i++) {
        ks[i] = 100 * i;
        ke[i] = 100 * i + 60;
    }
    *root = mp_region(rk, "root", 1, rs, re);
    *kid = mp_region(rk, "kid", NKIDS, ks, ke);
    free(ks);
    free(ke);
    mp_finish(p);
    sv_error err = {0};
    assert_int_equal(profile_ensure_calls(p, &err), SV_OK);
    *rk_out = rk;
    return p;
}

/* Marks the cached entry of call g, so a later answer of mark proves the
 * cache answered (a recomputation gives the true value). */
static bool mark_cached(tl_state *s, int64_t g, int64_t mark)
{
    for (unsigned k = 0; k < TL_EXCL_CACHE; k++)
        if (s->excl[k].calls && s->excl[k].call == g) {
            s->excl[k].ns = mark;
            return true;
        }
    return false;
}

static void test_root_stays(void **state)
{
    (void)state;
    rank_data *rk;
    region *root, *kid;
    profile *p = root_and_kids(&rk, &root, &kid);
    tl_state *s = calloc(1, sizeof *s);
    assert_non_null(s);
    int64_t g_root = (int64_t)root->gidx0;
    assert_int_equal(tl_selection_excl(s, rk, g_root), 40000);
    /* Many more distinct kids than cache entries: each is worked out
     * (60 ns), none evicts the root. */
    for (int i = 0; i < 10 * TL_EXCL_CACHE; i++)
        assert_int_equal(tl_selection_excl(s, rk, (int64_t)kid->gidx0 + i), 60);
    if (!mark_cached(s, g_root, -7))
        fail_msg("the root (%d children) was evicted by calls without children", NKIDS);
    assert_int_equal(tl_selection_excl(s, rk, g_root), -7);
    /* The last kid asked is cached too (the cache still turns over). */
    int64_t g_last = (int64_t)kid->gidx0 + 10 * TL_EXCL_CACHE - 1;
    assert_true(mark_cached(s, g_last, -9));
    assert_int_equal(tl_selection_excl(s, rk, g_last), -9);
    free(s);
    profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_root_stays),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
