/* The out-of-core file-backed window (ooc.h): read in process, in the
 * loading child, from ooc_open's skeleton and over a file set, checked
 * against the whole in-memory profile (ooc_check.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <hdf5.h>

#include "model/footprint.h"
#include "model/lanes.h"
#include "load/loader.h"
#include "ooc/ooc.h"
#include "ooc_check.h"
#include "testutil.h"

/* ------------------------------------------------------------ the file's window */

/* An ooc_file made by hand until ooc_open lands: the whole profile as the
 * skeleton, the reference seek index. */
static ooc_file *file_of(profile *full, const char *path, bool *skip)
{
    ooc_file *f = calloc(1, sizeof *f);
    assert_non_null(f);
    f->path = strdup(path);
    f->skel = full;
    /* what ooc_open records: the window reads check it */
    assert_true(ooc_file_id_now(path, &f->id));
    f->id.digest = ooc_index_digest(full);
    f->budget = (uint64_t)1 << 30;
    /* The identity ooc_open records: a window checks it before it reads. */
    assert_true(ooc_file_id_now(path, &f->id));
    f->id.digest = ooc_index_digest(full);
    if (!ooc_seek_from_profile(full, &f->seek))
        fail_msg("%s: ooc_seek_from_profile failed", path);
    for (size_t i = 0; i < full->nranks; i++)
        skip[i] = !f->seek.ranks[i].windowable;
    return f;
}

static void file_free(ooc_file *f)
{
    ooc_seek_free(&f->seek);
    free(f->path);
    free(f);
}

/* ooc_window_cap's bytes a call cover what a window holds in the viewer
 * (its columns, nesting and lanes index, footprint.h), past a fixed part
 * per lane and region. */
static void check_footprint(profile *w, const char *what)
{
    lanes_index *ix = ow_index_of(w);
    footprint fp = {0};
    footprint_model(w, &fp);
    footprint_index(ix, &fp);
    uint64_t budget = (uint64_t)1 << 30;
    uint64_t per_call = budget / 3 / ooc_window_cap(budget);
    uint64_t fixed = 4096 + 512 * (uint64_t)(ix->nlanes + w->nregions);
    if (footprint_total(&fp) > per_call * fp.calls + fixed)
        fail_msg("%s: the window holds %zu bytes for %zu calls, ooc_window_cap counts %llu a call",
                 what, footprint_total(&fp), fp.calls, (unsigned long long)per_call);
    lanes_free(ix);
}

/* The window reads only what ooc.h says: per region, the calls starting
 * in [checkpoint, t1) and the checkpoint's open calls, the checkpoint being
 * the rank's last at or before t0 (its first when t0 is earlier). */
static void check_reads(const profile *full, const ooc_seek *sk, const profile *w, int64_t t0,
                        int64_t t1, const char *what)
{
    for (size_t i = 0; i < full->nranks; i++) {
        const rank_data *rk = &full->ranks[i];
        const ooc_seek_rank *sr = &sk->ranks[i];
        const ooc_checkpoint *cp = sr->ncp ? &sr->cp[0] : NULL;
        for (size_t c = 1; c < sr->ncp; c++)
            if (sr->cp[c].t <= t0)
                cp = &sr->cp[c];
        for (size_t j = 0; j < rk->nregions; j++) {
            const region *r = rk->regions[j];
            size_t want = 0;
            for (size_t k = 0; cp && t0 < t1 && k < r->n; k++)
                want += r->start_ns[k] >= cp->t && r->start_ns[k] < t1;
            for (size_t k = 0; cp && t0 < t1 && k < cp->count; k++)
                want += sr->open[cp->first + k].region_index == j;
            if (w->ranks[i].regions[j]->n != want)
                fail_msg("%s: rank %d region %s: %zu calls in the window, ooc.h says %zu", what,
                         rk->rank, r->name, w->ranks[i].regions[j]->n, want);
        }
    }
}

/* Every profile, nrand random windows and the fixed ones each; returns
 * the overlapping calls checked. */
static size_t window_profiles(const ow_prof_list *l, size_t nrand, size_t *nprof, size_t *nwin,
                              size_t *nskip)
{
    size_t ncalls = 0;
    for (size_t k = 0; k < l->n; k++) {
        profile *full = ow_load_path(l->v[k]);
        if (!full)
            continue;
        lanes_index *fix = ow_index_of(full);
        bool *skip = calloc(full->nranks + 1, sizeof *skip);
        assert_non_null(skip);
        ooc_file *f = file_of(full, l->v[k], skip);
        for (size_t i = 0; i < full->nranks; i++)
            *nskip += skip[i];
        ow_windows ws = {0};
        ow_make_windows(full, nrand, &ws);
        for (size_t w = 0; w < ws.n; w++) {
            profile *win = NULL;
            sv_error err;
            char what[1300];
            snprintf(what, sizeof what, "%s window [%lld, %lld)", l->v[k], (long long)ws.v[w][0],
                     (long long)ws.v[w][1]);
            if (ooc_window(f, ws.v[w][0], ws.v[w][1], &win, &err) != SV_OK)
                fail_msg("%s: %s", what, err.msg);
            ncalls += ow_check_window(full, fix, win, ws.v[w][0], ws.v[w][1], skip, what);
            check_reads(full, &f->seek, win, ws.v[w][0], ws.v[w][1], what);
            check_footprint(win, what);
            profile_free(win);
            (*nwin)++;
        }
        free(ws.v);
        file_free(f);
        free(skip);
        lanes_free(fix);
        profile_free(full);
        (*nprof)++;
    }
    return ncalls;
}

/* In process (the same code the child runs), many windows. */
static void test_window_all(void **state)
{
    (void)state;
    setenv("SCOPEVIEW_IN_PROCESS", "1", 1);
    const ow_prof_list *l = &((const ow_profiles *)*state)->l;
    size_t nprof = 0, nwin = 0, nskip = 0;
    size_t ncalls = window_profiles(l, 8, &nprof, &nwin, &nskip);
    unsetenv("SCOPEVIEW_IN_PROCESS");
    if (nprof < 20 || ncalls < 10000)
        fail_msg("too little checked: %zu profiles, %zu windows, %zu calls", nprof, nwin, ncalls);
    printf("# window in process: %zu profiles, %zu windows, %zu overlapping calls checked, %zu "
           "ranks not windowable\n",
           nprof, nwin, ncalls, nskip);
}

/* Through the loading child, fewer windows. */
static void test_window_isolated(void **state)
{
    (void)state;
    unsetenv("SCOPEVIEW_IN_PROCESS");
    unsetenv("SCOPEVIEW_NO_PROBE");
    const ow_profiles *ps = *state;
    const ow_prof_list *l = &ps->l;
    ow_prof_list some = {0};
    for (size_t k = 0; k < l->n; k++)
        if (strstr(l->v[k], "legacy_small") || strstr(l->v[k], "small.h5") ||
            strstr(l->v[k], "col3_full") || strstr(l->v[k], "data/") ||
            strstr(l->v[k], ps->gen_dir))
            ow_list_add(&some, l->v[k]);
    size_t nprof = 0, nwin = 0, nskip = 0;
    size_t ncalls = window_profiles(&some, 2, &nprof, &nwin, &nskip);
    ow_list_free(&some);
    if (nprof < 10 || ncalls < 1000)
        fail_msg("too little checked: %zu profiles, %zu windows, %zu calls", nprof, nwin, ncalls);
    printf("# window isolated: %zu profiles, %zu windows, %zu overlapping calls checked\n", nprof,
           nwin, ncalls);
}

/* The whole path: ooc_open's skeleton, map and seek index (its streaming
 * scan), then windows of it, against the in-memory profile. */
static void test_window_from_open(void **state)
{
    (void)state;
    setenv("SCOPEVIEW_IN_PROCESS", "1", 1);
    const ow_prof_list *l = &((const ow_profiles *)*state)->l;
    size_t nprof = 0, nwin = 0, ncalls = 0, nskip = 0;
    for (size_t k = 0; k < l->n; k++) {
        profile *full = ow_load_path(l->v[k]);
        if (!full)
            continue;
        isolate_options io = {.budget = (uint64_t)1 << 30};
        ooc_file *f = NULL;
        sv_error err;
        if (ooc_open(l->v[k], &io, &f, &err) != SV_OK)
            fail_msg("%s: ooc_open: %s", l->v[k], err.msg);
        lanes_index *fix = ow_index_of(full);
        bool *skip = calloc(full->nranks + 1, sizeof *skip);
        assert_non_null(skip);
        assert_int_equal(f->seek.nranks, full->nranks);
        for (size_t i = 0; i < full->nranks; i++)
            nskip += skip[i] = !f->seek.ranks[i].windowable;
        ow_windows ws = {0};
        ow_make_windows(full, 3, &ws);
        for (size_t w = 0; w < ws.n; w++) {
            profile *win = NULL;
            char what[1300];
            snprintf(what, sizeof what, "%s window of ooc_open [%lld, %lld)", l->v[k],
                     (long long)ws.v[w][0], (long long)ws.v[w][1]);
            if (ooc_window(f, ws.v[w][0], ws.v[w][1], &win, &err) != SV_OK)
                fail_msg("%s: %s", what, err.msg);
            ncalls += ow_check_window(full, fix, win, ws.v[w][0], ws.v[w][1], skip, what);
            check_reads(full, &f->seek, win, ws.v[w][0], ws.v[w][1], what);
            profile_free(win);
            nwin++;
        }
        free(ws.v);
        free(skip);
        lanes_free(fix);
        ooc_file_free(f);
        profile_free(full);
        nprof++;
    }
    unsetenv("SCOPEVIEW_IN_PROCESS");
    if (nprof < 20 || ncalls < 10000)
        fail_msg("too little checked: %zu profiles, %zu windows, %zu calls", nprof, nwin, ncalls);
    printf("# window of ooc_open: %zu profiles, %zu windows, %zu overlapping calls checked, %zu "
           "ranks not windowable\n",
           nprof, nwin, ncalls, nskip);
}

/* A C-API file set (one file per rank): the window reads every file. */
static void test_window_file_set(void **state)
{
    (void)state;
    static const char *const names[] = {"capi_rank00000.h5", "capi_rank00001.h5",
                                        "capi_rank00003.h5"};
    char bufs[3][1024];
    const char *paths[3];
    for (size_t i = 0; i < 3; i++)
        paths[i] = sv_fixture_path(bufs[i], sizeof bufs[i], names[i]);
    profile *full = NULL;
    sv_error err;
    assert_int_equal(profile_load_set(paths, 3, NULL, &full, &err), SV_OK);
    assert_int_equal(profile_ensure_calls(full, &err), SV_OK);
    assert_int_equal(full->npaths, 3);
    lanes_index *fix = ow_index_of(full);
    bool *skip = calloc(full->nranks + 1, sizeof *skip);
    assert_non_null(skip);
    ooc_file *f = file_of(full, paths[0], skip);
    ow_windows ws = {0};
    ow_make_windows(full, 4, &ws);
    size_t ncalls = 0, ranks_with_calls = 0;
    for (int iso = 0; iso < 2; iso++) {
        if (iso)
            unsetenv("SCOPEVIEW_IN_PROCESS");
        else
            setenv("SCOPEVIEW_IN_PROCESS", "1", 1);
        for (size_t w = 0; w < ws.n; w++) {
            profile *win = NULL;
            char what[200];
            snprintf(what, sizeof what, "C-API set window [%lld, %lld)%s", (long long)ws.v[w][0],
                     (long long)ws.v[w][1], iso ? " isolated" : "");
            if (ooc_window(f, ws.v[w][0], ws.v[w][1], &win, &err) != SV_OK)
                fail_msg("%s: %s", what, err.msg);
            ncalls += ow_check_window(full, fix, win, ws.v[w][0], ws.v[w][1], skip, what);
            check_reads(full, &f->seek, win, ws.v[w][0], ws.v[w][1], what);
            if (w == 0)
                for (size_t i = 0; i < win->nranks; i++)
                    ranks_with_calls += win->ranks[i].ncalls > 0;
            profile_free(win);
        }
    }
    /* the whole span: calls from the files of ranks 0, 1 and 3, both ways */
    assert_int_equal(ranks_with_calls, 6);
    assert_true(ncalls > 0);
    free(ws.v);
    free(skip);
    file_free(f);
    lanes_free(fix);
    profile_free(full);
}

/* A legacy file of one rank: region `a` [0, 50); `b` [40, 10^7) overlaps
 * it partly, so it runs on inferred lane 1 (doc/FORMAT.md); then
 * 10000 calls `c` [100 + 10k, 105 + 10k), each inside b but on lane 0 (the
 * first lane that fits: empty once a ended), at depth 0.  At every later
 * checkpoint b is open on lane 1 while lane 0 is empty: a window's sweep
 * that did not start b in its lane would put b on lane 0 and the c calls
 * under it. */
static void write_i64(hid_t g, const char *name, const int64_t *v, hsize_t n)
{
    hid_t sp = H5Screate_simple(1, &n, NULL);
    hid_t ds = H5Dcreate2(g, name, H5T_STD_I64LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(ds >= 0);
    assert_true(H5Dwrite(ds, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
    H5Dclose(ds);
    H5Sclose(sp);
}

static void write_region(hid_t rg, const char *name, const int64_t *s, const int64_t *e, size_t n)
{
    hid_t g = H5Gcreate2(rg, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(g >= 0);
    write_i64(g, "start_times", s, n);
    write_i64(g, "end_times", e, n);
    H5Gclose(g);
}

#define SEED_NC 10000

static void test_window_seeded_lanes(void **state)
{
    (void)state;
    setenv("SCOPEVIEW_IN_PROCESS", "1", 1);
    char path[] = "/tmp/test_ooc_seed.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t r0 = H5Gcreate2(f, "rank0", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t rg = H5Gcreate2(r0, "regions", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int64_t as[] = {0}, ae[] = {50}, bs[] = {40}, be[] = {10000000};
    int64_t *cs = malloc(SEED_NC * sizeof *cs), *ce = malloc(SEED_NC * sizeof *ce);
    assert_non_null(cs);
    assert_non_null(ce);
    for (size_t k = 0; k < SEED_NC; k++) {
        cs[k] = 100 + 10 * (int64_t)k;
        ce[k] = cs[k] + 5;
    }
    write_region(rg, "a", as, ae, 1);
    write_region(rg, "b", bs, be, 1);
    write_region(rg, "c", cs, ce, SEED_NC);
    H5Gclose(rg);
    H5Gclose(r0);
    H5Fclose(f);
    profile *full = ow_load_path(path);
    assert_non_null(full);
    assert_int_equal(full->ranks[0].ninferred_lanes, 2);
    lanes_index *fix = ow_index_of(full);
    bool skip[1];
    ooc_file *of = file_of(full, path, skip);
    /* checkpoints at c[4094] and c[8190] (calls 4096 and 8192 in start order), b open in both */
    assert_int_equal(of->seek.ranks[0].ncp, 3);
    assert_int_equal(of->seek.ranks[0].cp[1].t, cs[4094]);
    assert_int_equal(of->seek.ranks[0].cp[1].count, 1);
    assert_int_equal(of->seek.ranks[0].open[of->seek.ranks[0].cp[1].first].lane, 1);
    int64_t t0 = cs[5000], t1 = cs[5002] + 1;
    profile *w = NULL;
    sv_error err;
    assert_int_equal(ooc_window(of, t0, t1, &w, &err), SV_OK);
    /* b, and c[4094 ..] from the checkpoint to the window's end */
    assert_int_equal(rank_region(&w->ranks[0], "a")->n, 0);
    assert_int_equal(rank_region(&w->ranks[0], "b")->n, 1);
    assert_int_equal(rank_region(&w->ranks[0], "c")->n, 5003 - 4094);
    lanes_index *wix = ow_index_of(w);
    size_t ln, pos;
    uint32_t depth;
    const region *c = rank_region(&w->ranks[0], "c");
    assert_true(lanes_locate(wix, 0, (int64_t)c->gidx0 + 906, &ln, &depth, &pos));
    assert_int_equal(c->start_ns[906], cs[5000]);
    assert_int_equal(wix->lanes[ln].kind, LANE_INFERRED);
    assert_int_equal(wix->lanes[ln].row, 0);
    assert_int_equal(depth, 0);
    const region *b = rank_region(&w->ranks[0], "b");
    assert_true(lanes_locate(wix, 0, (int64_t)b->gidx0, &ln, &depth, &pos));
    assert_int_equal(wix->lanes[ln].kind, LANE_INFERRED);
    assert_int_equal(wix->lanes[ln].row, 1);
    lanes_free(wix);
    ow_check_window(full, fix, w, t0, t1, NULL, "seeded lanes");
    profile_free(w);
    file_free(of);
    lanes_free(fix);
    profile_free(full);
    free(cs);
    free(ce);
    unlink(path);
    unsetenv("SCOPEVIEW_IN_PROCESS");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_window_seeded_lanes), cmocka_unit_test(test_window_file_set),
        cmocka_unit_test(test_window_all),          cmocka_unit_test(test_window_isolated),
        cmocka_unit_test(test_window_from_open),
    };
    int failed = cmocka_run_group_tests(tests, ow_group_setup, ow_group_teardown);
    return sv_shared_exit(failed);
}
