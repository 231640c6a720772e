/* ooc_check: the out-of-core tests' oracle (ooc_check.h). */
#include "ooc_check.h"

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "load/loader.h"
#include "testutil.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

profile *ow_load_path(const char *path)
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

lanes_index *ow_index_of(profile *p)
{
    lanes_index *ix = NULL;
    sv_error err;
    sv_error_clear(&err);
    if (lanes_build(p, NULL, &ix, &err) != SV_OK)
        fail_msg("lanes_build: %s", err.msg);
    return ix;
}

ow_where ow_locate(const lanes_index *ix, const rank_data *rk, size_t g, const char *what)
{
    size_t ln, pos;
    uint32_t depth;
    if (!lanes_locate(ix, rk->rank, (int64_t)g, &ln, &depth, &pos))
        fail_msg("%s: rank %d call %zu is not in the lanes index", what, rk->rank, g);
    return (ow_where){ix->lanes[ln].kind, ix->lanes[ln].row, depth};
}

/* A call's parent as (region, start, end), or an empty name for a root. */
static void ow_parent_of(const rank_data *rk, size_t g, const char **name, int64_t *s, int64_t *e)
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

bool ow_overlaps(int64_t s, int64_t e, int64_t t0, int64_t t1)
{
    return t0 < t1 && s < t1 && lanes_visible_end(s, e) > t0;
}

/* One region of a window against the whole profile's: the window's calls
 * are a subsequence of the whole row holding every call overlapping
 * [t0, t1), and each overlapping one sits where the whole profile has it. */
static size_t ow_check_region(const lanes_index *fix, const rank_data *fr, const region *f,
                              const lanes_index *wix, const rank_data *wr, const region *w,
                              int64_t t0, int64_t t1, const char *what)
{
    size_t i = 0, checked = 0;
    for (size_t k = 0; k < w->n; k++, i++) {
        for (; i < f->n; i++) {
            if (f->start_ns[i] == w->start_ns[k] && f->end_ns[i] == w->end_ns[k])
                break;
            if (ow_overlaps(f->start_ns[i], f->end_ns[i], t0, t1))
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
        if (!ow_overlaps(f->start_ns[i], f->end_ns[i], t0, t1))
            continue;
        size_t fg = f->gidx0 + i, wg = w->gidx0 + k;
        ow_where a = ow_locate(fix, fr, fg, what), b = ow_locate(wix, wr, wg, what);
        if (a.kind != b.kind || a.row != b.row || a.depth != b.depth)
            fail_msg("%s: rank %d region %s call %zu [%lld, %lld): whole profile lane (kind %d, "
                     "row %lld) depth %u, window lane (kind %d, row %lld) depth %u",
                     what, fr->rank, f->name, i, (long long)f->start_ns[i], (long long)f->end_ns[i],
                     a.kind, (long long)a.row, a.depth, b.kind, (long long)b.row, b.depth);
        const char *pa, *pb;
        int64_t sa, ea, sb, eb;
        ow_parent_of(fr, fg, &pa, &sa, &ea);
        ow_parent_of(wr, wg, &pb, &sb, &eb);
        if (strcmp(pa, pb) != 0 || sa != sb || ea != eb)
            fail_msg("%s: rank %d region %s call %zu: parent %s [%lld, %lld) in the whole "
                     "profile, %s [%lld, %lld) in the window",
                     what, fr->rank, f->name, i, pa, (long long)sa, (long long)ea, pb,
                     (long long)sb, (long long)eb);
        checked++;
    }
    for (; i < f->n; i++)
        if (ow_overlaps(f->start_ns[i], f->end_ns[i], t0, t1))
            fail_msg("%s: rank %d region %s call %zu [%lld, %lld) overlaps the window but is "
                     "missing from it",
                     what, fr->rank, f->name, i, (long long)f->start_ns[i],
                     (long long)f->end_ns[i]);
    return checked;
}

/* The window's children lists (rank_call_children, what the details and
 * exclusive times read) agree with its parents: every call's children
 * have it as parent, ordered by (start, -end, index), all counted once. */
static void ow_check_children(const profile *w, const char *what)
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
size_t ow_check_window(profile *full, const lanes_index *fix, profile *w, int64_t t0, int64_t t1,
                       const bool *skip, const char *what)
{
    if (w->nranks != full->nranks)
        fail_msg("%s: %zu ranks in the window, %zu in the whole profile", what, w->nranks,
                 full->nranks);
    if (w->has_min_start != full->has_min_start ||
        (full->has_min_start && w->min_start_ns != full->min_start_ns))
        fail_msg("%s: the window's time zero is %lld, the whole profile's %lld", what,
                 (long long)w->min_start_ns, (long long)full->min_start_ns);
    lanes_index *wix = ow_index_of(w);
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
            checked +=
                ow_check_region(fix, fr, fr->regions[j], wix, wr, wr->regions[j], t0, t1, what);
        }
    }
    lanes_free(wix);
    ow_check_children(w, what);
    return checked;
}

/* ------------------------------------------------------------ windows */

static void ow_win_add(ow_windows *ws, int64_t t0, int64_t t1)
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

static uint64_t ow_lcg(uint64_t *x)
{
    *x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
    return *x >> 33;
}

/* The whole span, random windows, windows at call edges, one-ns windows,
 * empty and outside ones. */
void ow_make_windows(const profile *p, size_t nrand, ow_windows *ws)
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
    ow_win_add(ws, lo, hi);
    ow_win_add(ws, lo - 1000, hi + 1000);
    ow_win_add(ws, hi, hi + 10);    /* after the span */
    ow_win_add(ws, lo - 10, lo);    /* before it */
    ow_win_add(ws, lo + 5, lo + 5); /* empty */
    ow_win_add(ws, hi, lo);         /* reversed */
    uint64_t x = 12345 + ncalls;
    uint64_t span = (uint64_t)(hi - lo) + 1;
    for (size_t k = 0; k < nrand; k++) {
        int64_t a = lo + (int64_t)(ow_lcg(&x) % span), b = lo + (int64_t)(ow_lcg(&x) % span);
        ow_win_add(ws, a < b ? a : b, a < b ? b : a + 1);
        /* narrow ones, where checkpoints matter */
        ow_win_add(ws, a, a + 1 + (int64_t)(ow_lcg(&x) % (span / 64 + 1)));
        /* at call edges */
        const region *r = p->regions[ow_lcg(&x) % p->nregions];
        if (r->n) {
            size_t i = ow_lcg(&x) % r->n;
            int64_t s = r->start_ns[i], e = r->end_ns[i];
            ow_win_add(ws, s, s + 1);
            ow_win_add(ws, e, e + 1 + (int64_t)(ow_lcg(&x) % 1000));
            ow_win_add(ws, s, lanes_visible_end(s, e));
            ow_win_add(ws, e - 1, e);
        }
    }
}

/* ------------------------------------------------------------ the profiles */

void ow_list_add(ow_prof_list *l, const char *path)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 32;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        assert_non_null(l->v);
    }
    l->v[l->n++] = strdup(path);
}

static void ow_list_dir(ow_prof_list *l, const char *dir)
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
            ow_list_add(l, path);
        }
    }
    closedir(d);
}

void ow_list_free(ow_prof_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
}

static void ow_gen_run(ow_prof_list *l, const char *gen_dir, const char *name, const char *args)
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
    ow_list_add(l, out);
}

static void ow_generated(ow_prof_list *l, char *gen_dir, size_t len)
{
    snprintf(gen_dir, len, "/tmp/test_ooc_window.XXXXXX");
    assert_non_null(mkdtemp(gen_dir));
    ow_gen_run(l, gen_dir, "mix", "--calls 20000 --ranks 2");
    ow_gen_run(l, gen_dir, "mix_threads", "--calls 20000 --threads");
    ow_gen_run(l, gen_dir, "mix_ids", "--calls 20000 --ids --threads");
    ow_gen_run(l, gen_dir, "mix_ids_only", "--calls 12000 --ids");
    ow_gen_run(l, gen_dir, "mix_unsorted", "--calls 20000 --unsorted");
    ow_gen_run(l, gen_dir, "mix_s2", "--calls 9000 --schema2 --threads");
    ow_gen_run(l, gen_dir, "deep", "deep 3000");
    ow_gen_run(l, gen_dir, "s3", "bench --calls 30011");
}

static void ow_gen_cleanup(char *gen_dir)
{
    if (!gen_dir[0])
        return;
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", gen_dir);
    (void)!system(cmd);
    gen_dir[0] = 0;
}

static void ow_all_profiles(ow_prof_list *l, char *gen_dir, size_t len)
{
    char buf[1024];
    sv_fixture_path(buf, sizeof buf, "");
    ow_list_dir(l, buf);
    static const char *const shared[] = {"data/real", "data/upstream", "data/extended"};
    for (size_t k = 0; k < N(shared); k++)
        ow_list_dir(l, sv_shared_path(buf, sizeof buf, shared[k]));
    /* the demo: MPI ranks, threads, asyncio tasks, GPU */
    snprintf(buf, sizeof buf, "%s/data/demo.h5", SV_TOP_SRCDIR);
    if (sv_file_exists(buf))
        ow_list_add(l, buf);
    ow_generated(l, gen_dir, len);
}

int ow_group_setup(void **state)
{
    ow_profiles *ps = calloc(1, sizeof *ps);
    if (!ps)
        return -1;
    ow_all_profiles(&ps->l, ps->gen_dir, sizeof ps->gen_dir);
    *state = ps;
    return 0;
}

int ow_group_teardown(void **state)
{
    ow_profiles *ps = *state;
    if (ps) {
        ow_gen_cleanup(ps->gen_dir);
        ow_list_free(&ps->l);
        free(ps);
    }
    return 0;
}
