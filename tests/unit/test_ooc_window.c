/* The out-of-core window (ooc.h): the seek index of a whole profile, the
 * reference slice, and the file-backed window.  The oracle is the whole
 * in-memory profile: every call overlapping a window must be in the
 * window's profile with the same start, end, region, parent, lane identity
 * (rank, kind, row) and lane depth as lanes_build gives it in the whole
 * profile.  Checkpoints' open calls are checked against a brute-force walk
 * of every call's ancestors (not the reach propagation ooc_seek.c uses). */
#include <dirent.h>
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
#include "testutil.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------ helpers */

static profile *load_path(const char *path)
{
    profile *p = NULL;
    sv_error err;
    sv_error_clear(&err);
    if (profile_load(path, NULL, &p, &err) != SV_OK)
        return NULL;
    if (profile_ensure_calls(p, &err) != SV_OK)
        fail_msg("%s: nesting: %s", path, err.msg);
    return p;
}

static lanes_index *index_of(profile *p)
{
    lanes_index *ix = NULL;
    sv_error err;
    sv_error_clear(&err);
    if (lanes_build(p, NULL, &ix, &err) != SV_OK)
        fail_msg("lanes_build: %s", err.msg);
    return ix;
}

/* Where a call is in a lanes index: lane identity and depth. */
typedef struct where {
    lane_kind kind;
    int64_t row;
    uint32_t depth;
} where;

static where locate(const lanes_index *ix, const rank_data *rk, size_t g, const char *what)
{
    size_t ln, pos;
    uint32_t depth;
    if (!lanes_locate(ix, rk->rank, (int64_t)g, &ln, &depth, &pos))
        fail_msg("%s: rank %d call %zu is not in the lanes index", what, rk->rank, g);
    return (where){ix->lanes[ln].kind, ix->lanes[ln].row, depth};
}

/* A call's parent as (region, start, end), or an empty name for a root. */
static void parent_of(const rank_data *rk, size_t g, const char **name, int64_t *s, int64_t *e)
{
    int32_t p = rk->calls->parent[g];
    *name = "";
    *s = *e = 0;
    if (p < 0)
        return;
    size_t i;
    const region *r = rank_call_region(rk, p, &i);
    *name = r->name;
    *s = r->start_ns[i];
    *e = r->end_ns[i];
}

static bool overlaps(int64_t s, int64_t e, int64_t t0, int64_t t1)
{
    return t0 < t1 && s < t1 && lanes_visible_end(s, e) > t0;
}

/* One region of a window against the whole profile's: the window's calls
 * are a subsequence of the whole row holding every call overlapping
 * [t0, t1), and each overlapping one sits where the whole profile has it. */
static size_t check_region(const lanes_index *fix, const rank_data *fr, const region *f,
                           const lanes_index *wix, const rank_data *wr, const region *w, int64_t t0,
                           int64_t t1, const char *what)
{
    size_t i = 0, checked = 0;
    for (size_t k = 0; k < w->n; k++, i++) {
        for (; i < f->n; i++) {
            if (f->start_ns[i] == w->start_ns[k] && f->end_ns[i] == w->end_ns[k])
                break;
            if (overlaps(f->start_ns[i], f->end_ns[i], t0, t1))
                fail_msg("%s: rank %d region %s call %zu [%lld, %lld) overlaps the window but is "
                         "missing from it",
                         what, fr->rank, f->name, i, (long long)f->start_ns[i],
                         (long long)f->end_ns[i]);
        }
        if (i == f->n)
            fail_msg("%s: rank %d region %s: window call %zu [%lld, %lld) is not a call of the "
                     "whole profile (or out of recorded order)",
                     what, fr->rank, f->name, k, (long long)w->start_ns[k],
                     (long long)w->end_ns[k]);
        if (!overlaps(f->start_ns[i], f->end_ns[i], t0, t1))
            continue;
        size_t fg = f->gidx0 + i, wg = w->gidx0 + k;
        where a = locate(fix, fr, fg, what), b = locate(wix, wr, wg, what);
        if (a.kind != b.kind || a.row != b.row || a.depth != b.depth)
            fail_msg("%s: rank %d region %s call %zu [%lld, %lld): whole profile lane (kind %d, "
                     "row %lld) depth %u, window lane (kind %d, row %lld) depth %u",
                     what, fr->rank, f->name, i, (long long)f->start_ns[i], (long long)f->end_ns[i],
                     a.kind, (long long)a.row, a.depth, b.kind, (long long)b.row, b.depth);
        const char *pa, *pb;
        int64_t sa, ea, sb, eb;
        parent_of(fr, fg, &pa, &sa, &ea);
        parent_of(wr, wg, &pb, &sb, &eb);
        if (strcmp(pa, pb) != 0 || sa != sb || ea != eb)
            fail_msg("%s: rank %d region %s call %zu: parent %s [%lld, %lld) in the whole "
                     "profile, %s [%lld, %lld) in the window",
                     what, fr->rank, f->name, i, pa, (long long)sa, (long long)ea, pb,
                     (long long)sb, (long long)eb);
        checked++;
    }
    for (; i < f->n; i++)
        if (overlaps(f->start_ns[i], f->end_ns[i], t0, t1))
            fail_msg("%s: rank %d region %s call %zu [%lld, %lld) overlaps the window but is "
                     "missing from it",
                     what, fr->rank, f->name, i, (long long)f->start_ns[i],
                     (long long)f->end_ns[i]);
    return checked;
}

/* The window's children lists (rank_call_children, what the details and
 * exclusive times read) agree with its parents: every call's children
 * have it as parent, ordered by (start, -end, index), all counted once. */
static void check_children(const profile *w, const char *what)
{
    for (size_t i = 0; i < w->nranks; i++) {
        const rank_data *rk = &w->ranks[i];
        if (!rk->calls)
            continue;
        size_t total = 0;
        for (size_t g = 0; g < rk->ncalls; g++) {
            const uint32_t *kids;
            size_t nk = rank_call_children(rk, g, &kids);
            total += nk;
            for (size_t k = 0; k < nk; k++) {
                if (rk->calls->parent[kids[k]] != (int32_t)g)
                    fail_msg("%s: rank %d: call %u listed as a child of %zu, its parent is %d",
                             what, rk->rank, kids[k], g, rk->calls->parent[kids[k]]);
                if (k == 0)
                    continue;
                int64_t s0, e0, s1, e1;
                lanes_call_span(rk, kids[k - 1], &s0, &e0);
                lanes_call_span(rk, kids[k], &s1, &e1);
                if (s0 > s1 || (s0 == s1 && (e0 < e1 || (e0 == e1 && kids[k - 1] > kids[k]))))
                    fail_msg("%s: rank %d: children %u and %u of call %zu out of order", what,
                             rk->rank, kids[k - 1], kids[k], g);
            }
        }
        if (total != rk->calls->nchild)
            fail_msg("%s: rank %d: %zu children listed, %zu calls have a parent", what, rk->rank,
                     total, rk->calls->nchild);
    }
}

/* The window profile w of [t0, t1) against the whole profile full (fix:
 * its lanes).  skip: rank indices not to check (not windowable), or NULL.
 * Returns the overlapping calls checked. */
static size_t check_window(profile *full, const lanes_index *fix, profile *w, int64_t t0,
                           int64_t t1, const bool *skip, const char *what)
{
    if (w->nranks != full->nranks)
        fail_msg("%s: %zu ranks in the window, %zu in the whole profile", what, w->nranks,
                 full->nranks);
    if (w->has_min_start != full->has_min_start ||
        (full->has_min_start && w->min_start_ns != full->min_start_ns))
        fail_msg("%s: the window's time zero is %lld, the whole profile's %lld", what,
                 (long long)w->min_start_ns, (long long)full->min_start_ns);
    lanes_index *wix = index_of(w);
    size_t checked = 0;
    for (size_t i = 0; i < full->nranks; i++) {
        const rank_data *fr = &full->ranks[i], *wr = &w->ranks[i];
        if (fr->rank != wr->rank || fr->nregions != wr->nregions)
            fail_msg("%s: rank index %zu: rank %d with %zu regions in the whole profile, rank %d "
                     "with %zu in the window",
                     what, i, fr->rank, fr->nregions, wr->rank, wr->nregions);
        for (size_t j = 0; j < fr->nregions; j++) {
            if (strcmp(fr->regions[j]->name, wr->regions[j]->name) != 0)
                fail_msg("%s: rank %d region %zu: %s in the whole profile, %s in the window", what,
                         fr->rank, j, fr->regions[j]->name, wr->regions[j]->name);
            if (skip && skip[i])
                continue;
            checked += check_region(fix, fr, fr->regions[j], wix, wr, wr->regions[j], t0, t1, what);
        }
    }
    lanes_free(wix);
    check_children(w, what);
    return checked;
}

/* ------------------------------------------------------------ windows */

typedef struct windows {
    int64_t (*v)[2];
    size_t n, cap;
} windows;

static void win_add(windows *ws, int64_t t0, int64_t t1)
{
    if (ws->n == ws->cap) {
        ws->cap = ws->cap ? ws->cap * 2 : 64;
        ws->v = realloc(ws->v, ws->cap * sizeof *ws->v);
        assert_non_null(ws->v);
    }
    ws->v[ws->n][0] = t0;
    ws->v[ws->n][1] = t1;
    ws->n++;
}

static uint64_t lcg(uint64_t *x)
{
    *x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
    return *x >> 33;
}

/* The whole span, random windows, windows at call edges, one-ns windows,
 * empty and outside ones. */
static void make_windows(const profile *p, size_t nrand, windows *ws)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    size_t ncalls = 0;
    for (size_t i = 0; i < p->nregions; i++) {
        const region *r = p->regions[i];
        for (size_t k = 0; k < r->n; k++) {
            lo = r->start_ns[k] < lo ? r->start_ns[k] : lo;
            int64_t e = lanes_visible_end(r->start_ns[k], r->end_ns[k]);
            hi = e > hi ? e : hi;
        }
        ncalls += r->n;
    }
    if (ncalls == 0)
        return;
    win_add(ws, lo, hi);
    win_add(ws, lo - 1000, hi + 1000);
    win_add(ws, hi, hi + 10);    /* after the span */
    win_add(ws, lo - 10, lo);    /* before it */
    win_add(ws, lo + 5, lo + 5); /* empty */
    win_add(ws, hi, lo);         /* reversed */
    uint64_t x = 12345 + ncalls;
    uint64_t span = (uint64_t)(hi - lo) + 1;
    for (size_t k = 0; k < nrand; k++) {
        int64_t a = lo + (int64_t)(lcg(&x) % span), b = lo + (int64_t)(lcg(&x) % span);
        win_add(ws, a < b ? a : b, a < b ? b : a + 1);
        /* narrow ones, where checkpoints matter */
        win_add(ws, a, a + 1 + (int64_t)(lcg(&x) % (span / 64 + 1)));
        /* at call edges */
        const region *r = p->regions[lcg(&x) % p->nregions];
        if (r->n) {
            size_t i = lcg(&x) % r->n;
            int64_t s = r->start_ns[i], e = r->end_ns[i];
            win_add(ws, s, s + 1);
            win_add(ws, e, e + 1 + (int64_t)(lcg(&x) % 1000));
            win_add(ws, s, lanes_visible_end(s, e));
            win_add(ws, e - 1, e);
        }
    }
}

/* ------------------------------------------------------------ the profiles */

typedef struct prof_list {
    char **v;
    size_t n, cap;
} prof_list;

static void list_add(prof_list *l, const char *path)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 32;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        assert_non_null(l->v);
    }
    l->v[l->n++] = strdup(path);
}

static void list_dir(prof_list *l, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d))) {
        size_t len = strlen(de->d_name);
        if (len > 3 && strcmp(de->d_name + len - 3, ".h5") == 0) {
            char path[2048];
            snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
            list_add(l, path);
        }
    }
    closedir(d);
}

static void list_free(prof_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
}

/* Every profile the tests run on, and the scratch directory of the
 * generated ones (removed at the end): the group's state. */
typedef struct profiles {
    prof_list l;
    char gen_dir[1024];
} profiles;

static void gen_run(prof_list *l, const char *gen_dir, const char *name, const char *args)
{
    char out[1200], cmd[4096];
    snprintf(out, sizeof out, "%s/%s.h5", gen_dir, name);
    snprintf(cmd, sizeof cmd, "'%s/svgen' %s '%s' %s >/dev/null 2>&1", SV_TOP_BUILDDIR,
             strncmp(args, "deep", 4) == 0 ? "deep" : "stream-mix", out,
             strncmp(args, "deep", 4) == 0 ? args + 4 : args);
    if (strncmp(args, "bench", 5) == 0)
        snprintf(cmd, sizeof cmd, "'%s/svgen' bench-schema3 '%s' %s >/dev/null 2>&1",
                 SV_TOP_BUILDDIR, out, args + 5);
    if (system(cmd) != 0)
        fail_msg("could not generate %s: %s", name, cmd);
    list_add(l, out);
}

static void generated(prof_list *l, char *gen_dir, size_t len)
{
    snprintf(gen_dir, len, "/tmp/test_ooc_window.XXXXXX");
    assert_non_null(mkdtemp(gen_dir));
    gen_run(l, gen_dir, "mix", "--calls 20000 --ranks 2");
    gen_run(l, gen_dir, "mix_threads", "--calls 20000 --threads");
    gen_run(l, gen_dir, "mix_ids", "--calls 20000 --ids --threads");
    gen_run(l, gen_dir, "mix_ids_only", "--calls 12000 --ids");
    gen_run(l, gen_dir, "mix_unsorted", "--calls 20000 --unsorted");
    gen_run(l, gen_dir, "mix_s2", "--calls 9000 --schema2 --threads");
    gen_run(l, gen_dir, "deep", "deep 3000");
    gen_run(l, gen_dir, "s3", "bench --calls 30011");
}

static void gen_cleanup(char *gen_dir)
{
    if (!gen_dir[0])
        return;
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", gen_dir);
    (void)!system(cmd);
    gen_dir[0] = 0;
}

static void all_profiles(prof_list *l, char *gen_dir, size_t len)
{
    char buf[1024];
    sv_fixture_path(buf, sizeof buf, "");
    list_dir(l, buf);
    static const char *const shared[] = {"data/real", "data/upstream", "data/extended"};
    for (size_t k = 0; k < N(shared); k++)
        list_dir(l, sv_shared_path(buf, sizeof buf, shared[k]));
    /* the demo: MPI ranks, threads, asyncio tasks, GPU */
    snprintf(buf, sizeof buf, "%s/data/demo.h5", SV_TOP_SRCDIR);
    if (sv_file_exists(buf))
        list_add(l, buf);
    generated(l, gen_dir, len);
}

static int group_setup(void **state)
{
    profiles *ps = calloc(1, sizeof *ps);
    if (!ps)
        return -1;
    all_profiles(&ps->l, ps->gen_dir, sizeof ps->gen_dir);
    *state = ps;
    return 0;
}

static int group_teardown(void **state)
{
    profiles *ps = *state;
    if (ps) {
        gen_cleanup(ps->gen_dir);
        list_free(&ps->l);
        free(ps);
    }
    return 0;
}

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
    const prof_list *l = &((const profiles *)*state)->l;
    size_t n = 0, ncp = 0;
    for (size_t k = 0; k < l->n; k++) {
        profile *p = load_path(l->v[k]);
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
    profile *p = load_path(sv_fixture_path(path, sizeof path, "small.h5"));
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

/* ------------------------------------------------------------ the slice */

static void test_slice_hand(void **state)
{
    (void)state;
    char path[1024];
    profile *p = load_path(sv_fixture_path(path, sizeof path, "legacy_small.h5"));
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
    lanes_index *ix = index_of(w);
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
    const prof_list *l = &((const profiles *)*state)->l;
    size_t nprof = 0, nwin = 0, ncalls = 0;
    for (size_t k = 0; k < l->n; k++) {
        profile *full = load_path(l->v[k]);
        if (!full)
            continue;
        lanes_index *fix = index_of(full);
        windows ws = {0};
        make_windows(full, 12, &ws);
        for (size_t w = 0; w < ws.n; w++) {
            profile *win = NULL;
            sv_error err;
            char what[1300];
            snprintf(what, sizeof what, "%s slice [%lld, %lld)", l->v[k], (long long)ws.v[w][0],
                     (long long)ws.v[w][1]);
            if (ooc_window_slice(full, ws.v[w][0], ws.v[w][1], &win, &err) != SV_OK)
                fail_msg("%s: %s", what, err.msg);
            ncalls += check_window(full, fix, win, ws.v[w][0], ws.v[w][1], NULL, what);
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
    lanes_index *ix = index_of(w);
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
static size_t window_profiles(const prof_list *l, size_t nrand, size_t *nprof, size_t *nwin,
                              size_t *nskip)
{
    size_t ncalls = 0;
    for (size_t k = 0; k < l->n; k++) {
        profile *full = load_path(l->v[k]);
        if (!full)
            continue;
        lanes_index *fix = index_of(full);
        bool *skip = calloc(full->nranks + 1, sizeof *skip);
        assert_non_null(skip);
        ooc_file *f = file_of(full, l->v[k], skip);
        for (size_t i = 0; i < full->nranks; i++)
            *nskip += skip[i];
        windows ws = {0};
        make_windows(full, nrand, &ws);
        for (size_t w = 0; w < ws.n; w++) {
            profile *win = NULL;
            sv_error err;
            char what[1300];
            snprintf(what, sizeof what, "%s window [%lld, %lld)", l->v[k], (long long)ws.v[w][0],
                     (long long)ws.v[w][1]);
            if (ooc_window(f, ws.v[w][0], ws.v[w][1], &win, &err) != SV_OK)
                fail_msg("%s: %s", what, err.msg);
            ncalls += check_window(full, fix, win, ws.v[w][0], ws.v[w][1], skip, what);
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
    const prof_list *l = &((const profiles *)*state)->l;
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
    const profiles *ps = *state;
    const prof_list *l = &ps->l;
    prof_list some = {0};
    for (size_t k = 0; k < l->n; k++)
        if (strstr(l->v[k], "legacy_small") || strstr(l->v[k], "small.h5") ||
            strstr(l->v[k], "col3_full") || strstr(l->v[k], "data/") ||
            strstr(l->v[k], ps->gen_dir))
            list_add(&some, l->v[k]);
    size_t nprof = 0, nwin = 0, nskip = 0;
    size_t ncalls = window_profiles(&some, 2, &nprof, &nwin, &nskip);
    list_free(&some);
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
    const prof_list *l = &((const profiles *)*state)->l;
    size_t nprof = 0, nwin = 0, ncalls = 0, nskip = 0;
    for (size_t k = 0; k < l->n; k++) {
        profile *full = load_path(l->v[k]);
        if (!full)
            continue;
        isolate_options io = {.budget = (uint64_t)1 << 30};
        ooc_file *f = NULL;
        sv_error err;
        if (ooc_open(l->v[k], &io, &f, &err) != SV_OK)
            fail_msg("%s: ooc_open: %s", l->v[k], err.msg);
        lanes_index *fix = index_of(full);
        bool *skip = calloc(full->nranks + 1, sizeof *skip);
        assert_non_null(skip);
        assert_int_equal(f->seek.nranks, full->nranks);
        for (size_t i = 0; i < full->nranks; i++)
            nskip += skip[i] = !f->seek.ranks[i].windowable;
        windows ws = {0};
        make_windows(full, 3, &ws);
        for (size_t w = 0; w < ws.n; w++) {
            profile *win = NULL;
            char what[1300];
            snprintf(what, sizeof what, "%s window of ooc_open [%lld, %lld)", l->v[k],
                     (long long)ws.v[w][0], (long long)ws.v[w][1]);
            if (ooc_window(f, ws.v[w][0], ws.v[w][1], &win, &err) != SV_OK)
                fail_msg("%s: %s", what, err.msg);
            ncalls += check_window(full, fix, win, ws.v[w][0], ws.v[w][1], skip, what);
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
    lanes_index *fix = index_of(full);
    bool *skip = calloc(full->nranks + 1, sizeof *skip);
    assert_non_null(skip);
    ooc_file *f = file_of(full, paths[0], skip);
    windows ws = {0};
    make_windows(full, 4, &ws);
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
            ncalls += check_window(full, fix, win, ws.v[w][0], ws.v[w][1], skip, what);
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
    profile *full = load_path(path);
    assert_non_null(full);
    assert_int_equal(full->ranks[0].ninferred_lanes, 2);
    lanes_index *fix = index_of(full);
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
    lanes_index *wix = index_of(w);
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
    check_window(full, fix, w, t0, t1, NULL, "seeded lanes");
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
        cmocka_unit_test(test_window_cap),      cmocka_unit_test(test_seek_explicit),
        cmocka_unit_test(test_slice_hand),      cmocka_unit_test(test_seek_all),
        cmocka_unit_test(test_slice_all),       cmocka_unit_test(test_window_seeded_lanes),
        cmocka_unit_test(test_window_file_set), cmocka_unit_test(test_window_all),
        cmocka_unit_test(test_window_isolated), cmocka_unit_test(test_window_from_open),
    };
    int failed = cmocka_run_group_tests(tests, group_setup, group_teardown);
    return sv_shared_exit(failed);
}
