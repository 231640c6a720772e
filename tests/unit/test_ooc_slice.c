/* The out-of-core reference slice (ooc.h): a window cut from the whole
 * in-memory profile, checked against that profile (ooc_check.h). */
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

/* ------------------------------------------------------------ the slice */

static void test_slice_hand(void **state)
{
    (void)state;
    char path[1024];
    profile *p = ow_load_path(sv_fixture_path(path, sizeof path, "legacy_small.h5"));
    assert_non_null(p);
    profile *w = NULL;
    sv_error err;
    /* [1000, 1200): only c[1] = [900, 1200), top-level on inferred lane 1
     * (FIXTURES.md); alone it would be the rank's only lane. */
    assert_int_equal(ooc_window_slice(p, 1000, 1200, &w, &err), SV_OK);
    region *c = rank_region(&w->ranks[0], "c");
    assert_int_equal(c->n, 1);
    assert_int_equal(c->start_ns[0], 900);
    assert_int_equal(w->ranks[0].ncalls, 1);
    lanes_index *ix = ow_index_of(w);
    size_t ln, pos;
    uint32_t depth;
    assert_true(lanes_locate(ix, 0, (int64_t)c->gidx0, &ln, &depth, &pos));
    assert_int_equal(ix->lanes[ln].kind, LANE_INFERRED);
    assert_int_equal(ix->lanes[ln].row, 1);
    assert_int_equal(depth, 0);
    lanes_free(ix);
    profile_free(w);
    /* [350, 360): b[2] = [300, 400) in b[1] in a[0]: the ancestors come along */
    assert_int_equal(ooc_window_slice(p, 350, 360, &w, &err), SV_OK);
    assert_int_equal(rank_region(&w->ranks[0], "a")->n, 1);
    assert_int_equal(rank_region(&w->ranks[0], "b")->n, 2);
    assert_int_equal(rank_region(&w->ranks[0], "c")->n, 0);
    assert_int_equal(w->ranks[0].nregions, 3);
    profile_free(w);
    /* bad windows: every region, no call */
    assert_int_equal(ooc_window_slice(p, 500, 500, &w, &err), SV_OK);
    assert_int_equal(w->ranks[0].ncalls, 0);
    assert_int_equal(w->ranks[0].nregions, 3);
    profile_free(w);
    assert_int_equal(ooc_window_slice(p, 600, 100, &w, &err), SV_OK);
    assert_int_equal(w->ranks[0].ncalls, 0);
    profile_free(w);
    profile_free(p);
}

static void test_slice_all(void **state)
{
    (void)state;
    const ow_prof_list *l = &((const ow_profiles *)*state)->l;
    size_t nprof = 0, nwin = 0, ncalls = 0;
    for (size_t k = 0; k < l->n; k++) {
        profile *full = ow_load_path(l->v[k]);
        if (!full)
            continue;
        lanes_index *fix = ow_index_of(full);
        ow_windows ws = {0};
        ow_make_windows(full, 12, &ws);
        for (size_t w = 0; w < ws.n; w++) {
            profile *win = NULL;
            sv_error err;
            char what[1300];
            snprintf(what, sizeof what, "%s slice [%lld, %lld)", l->v[k], (long long)ws.v[w][0],
                     (long long)ws.v[w][1]);
            if (ooc_window_slice(full, ws.v[w][0], ws.v[w][1], &win, &err) != SV_OK)
                fail_msg("%s: %s", what, err.msg);
            ncalls += ow_check_window(full, fix, win, ws.v[w][0], ws.v[w][1], NULL, what);
            if (ws.v[w][0] >= ws.v[w][1])
                for (size_t i = 0; i < win->nranks; i++)
                    assert_int_equal(win->ranks[i].ncalls, 0);
            profile_free(win);
            nwin++;
        }
        free(ws.v);
        lanes_free(fix);
        profile_free(full);
        nprof++;
    }
    if (nprof < 20 || ncalls < 10000)
        fail_msg("too little checked: %zu profiles, %zu windows, %zu calls", nprof, nwin, ncalls);
    printf("# slice: %zu profiles, %zu windows, %zu overlapping calls checked\n", nprof, nwin,
           ncalls);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slice_hand),
        cmocka_unit_test(test_slice_all),
    };
    int failed = cmocka_run_group_tests(tests, ow_group_setup, ow_group_teardown);
    return sv_shared_exit(failed);
}
