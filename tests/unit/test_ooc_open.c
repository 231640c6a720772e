/* test_ooc_open: ooc_open (ooc.h step 1) against the in-memory load.
 *
 * On every fixture, every shared profile and generated ones (svgen
 * stream-mix: threads, call ids, rows recorded at their end, schema 2,
 * gzip; deep nesting; a plain schema-3 file), the file opened out of core
 * must give
 * - the overview map of the in-memory lanes index (ooc_map_from_lanes),
 *   cell for cell;
 * - the seek index of the in-memory profile (ooc_seek_from_profile),
 *   row for row, checkpoint for checkpoint, open call for open call;
 * - a skeleton whose regions carry the in-memory statistics bit for bit;
 * isolated and in-process, and with chunks of 1, 3 and 7 calls (every
 * chunk edge inside a row).  A file the in-memory load refuses must fail
 * with a message, never crash. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/budget.h"
#include "model/filter.h"
#include "isolate/isolate.h"
#include "model/lanes.h"
#include "load/loader.h"
#include "memprof.h"
#include "ooc/ooc.h"
#include "ooc/ooc_scan.h"
#include "testutil.h"
#include "isolate/wire_stats.h"

#define N(a) (sizeof(a) / sizeof *(a))

typedef struct plist {
    char **v;
    size_t n;
} plist;

static void list_add(plist *l, const char *path)
{
    l->v = realloc(l->v, (l->n + 1) * sizeof *l->v);
    assert_non_null(l->v);
    l->v[l->n++] = strdup(path);
}

static void list_dir(plist *l, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    for (struct dirent *de; (de = readdir(d));) {
        size_t len = strlen(de->d_name);
        if (len > 3 && strcmp(de->d_name + len - 3, ".h5") == 0) {
            char path[2048];
            snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
            list_add(l, path);
        }
    }
    closedir(d);
}

static void list_free(plist *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

static char gen_dir[1024];

/* A fresh directory for the generated files (gen_cleanup removes it). */
static void gen_dir_new(void)
{
    snprintf(gen_dir, sizeof gen_dir, "/tmp/test_ooc_open.XXXXXX");
    assert_non_null(mkdtemp(gen_dir));
}

static void gen(plist *l, const char *name, const char *cmd_args)
{
    char out[1200], cmd[4096];
    snprintf(out, sizeof out, "%s/%s.h5", gen_dir, name);
    const char *sp = strchr(cmd_args, ' ');
    snprintf(cmd, sizeof cmd, "'%s/svgen' %.*s '%s' %s >/dev/null 2>&1", SV_TOP_BUILDDIR,
             (int)(sp - cmd_args), cmd_args, out, sp + 1);
    if (system(cmd) != 0)
        fail_msg("could not generate %s: %s", name, cmd);
    list_add(l, out);
}

static void generated(plist *l)
{
    gen_dir_new();
    gen(l, "mix", "stream-mix --calls 20000 --ranks 2");
    gen(l, "mix_threads", "stream-mix --calls 20000 --ranks 2 --threads");
    gen(l, "mix_ids", "stream-mix --calls 12000 --ids --threads");
    gen(l, "mix_ids_only", "stream-mix --calls 12000 --ids");
    gen(l, "mix_unsorted", "stream-mix --calls 20000 --unsorted");
    gen(l, "mix_s2", "stream-mix --calls 9000 --schema2 --threads");
    gen(l, "mix_gzip", "stream-mix --calls 15000 --ranks 3 --gzip --chunk 333");
    gen(l, "mix_all", "stream-mix --calls 9000 --ranks 2 --threads --ids --unsorted --gzip");
    gen(l, "deep", "deep 3000");
    gen(l, "s3", "bench-schema3 --calls 30011");
}

static void gen_cleanup(void)
{
    if (!gen_dir[0])
        return;
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", gen_dir);
    (void)!system(cmd);
    gen_dir[0] = 0;
}

/* ------------------------------------------------------------ comparisons */

static void cells_equal(const ooc_cell *a, const ooc_cell *b, size_t n, const char *what,
                        const char *path)
{
    for (size_t i = 0; i < n; i++)
        if (a[i].busy != b[i].busy || a[i].starts != b[i].starts || a[i].overlap != b[i].overlap ||
            a[i].longest != b[i].longest ||
            (a[i].longest >= 0 && a[i].longest_reg != b[i].longest_reg))
            fail_msg("%s: %s cell %zu: out of core busy %llu starts %u overlap %u longest %lld "
                     "(region %u), in memory %llu %u %u %lld (%u)",
                     path, what, i, (unsigned long long)a[i].busy, a[i].starts, a[i].overlap,
                     (long long)a[i].longest, a[i].longest_reg, (unsigned long long)b[i].busy,
                     b[i].starts, b[i].overlap, (long long)b[i].longest, b[i].longest_reg);
}

static void map_equal(const ooc_map *a, const ooc_map *b, const char *path)
{
    if (a->origin != b->origin || a->shift != b->shift || a->nb != b->nb ||
        a->nlevels != b->nlevels)
        fail_msg("%s: grid: out of core origin %lld shift %u nb %zu, in memory %lld %u %zu", path,
                 (long long)a->origin, a->shift, a->nb, (long long)b->origin, b->shift, b->nb);
    if (a->ncalls != b->ncalls || a->nlanes != b->nlanes || a->t_min != b->t_min ||
        a->t_max != b->t_max)
        fail_msg("%s: out of core %llu calls on %zu lanes over [%lld, %lld], in memory %llu on "
                 "%zu over [%lld, %lld]",
                 path, (unsigned long long)a->ncalls, a->nlanes, (long long)a->t_min,
                 (long long)a->t_max, (unsigned long long)b->ncalls, b->nlanes, (long long)b->t_min,
                 (long long)b->t_max);
    assert_true(a->finished && !a->nomem);
    size_t rc = ooc_map_row_cells(a);
    for (size_t l = 0; l < a->nlanes; l++) {
        const ooc_lane *x = &a->lanes[l], *y = &b->lanes[l];
        if (x->rank_index != y->rank_index || x->kind != y->kind || x->row != y->row ||
            x->ndepth != y->ndepth || x->ncalls != y->ncalls)
            fail_msg("%s: lane %zu: out of core rank %zu kind %d row %lld depth %u calls %llu, "
                     "in memory %zu %d %lld %u %llu",
                     path, l, x->rank_index, (int)x->kind, (long long)x->row, x->ndepth,
                     (unsigned long long)x->ncalls, y->rank_index, (int)y->kind, (long long)y->row,
                     y->ndepth, (unsigned long long)y->ncalls);
        uint32_t rows = x->ndepth < OOC_MAP_DEPTHS ? x->ndepth : OOC_MAP_DEPTHS;
        char what[64];
        snprintf(what, sizeof what, "lane %zu", l);
        cells_equal(x->cells, y->cells, rows * rc, what, path);
    }
    assert_true((a->deep == NULL) == (b->deep == NULL));
    if (a->deep)
        cells_equal(a->deep, b->deep, rc, "deep row", path);
}

static void i64s_equal(const int64_t *a, const int64_t *b, size_t n, const char *what,
                       const char *path, size_t row)
{
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            fail_msg("%s: seek row %zu: %s[%zu] out of core %lld, in memory %lld", path, row, what,
                     i, (long long)a[i], (long long)b[i]);
}

static void seek_equal(const ooc_seek *a, const ooc_seek *b, const char *path)
{
    if (a->nrows != b->nrows || a->nranks != b->nranks)
        fail_msg("%s: out of core %zu seek rows, %zu ranks; in memory %zu, %zu", path, a->nrows,
                 a->nranks, b->nrows, b->nranks);
    for (size_t i = 0; i < a->nrows; i++) {
        const ooc_seek_row *x = &a->rows[i], *y = &b->rows[i];
        if (x->rank_index != y->rank_index || x->region_index != y->region_index || x->n != y->n ||
            x->npts != y->npts)
            fail_msg("%s: seek row %zu: out of core (%zu, %zu) %llu calls, in memory (%zu, %zu) "
                     "%llu",
                     path, i, x->rank_index, x->region_index, (unsigned long long)x->n,
                     y->rank_index, y->region_index, (unsigned long long)y->n);
        i64s_equal(x->start, y->start, x->npts, "start", path, i);
        i64s_equal(x->smin, y->smin, x->npts, "smin", path, i);
        i64s_equal(x->smax, y->smax, x->npts, "smax", path, i);
    }
    for (size_t k = 0; k < a->nranks; k++) {
        const ooc_seek_rank *x = &a->ranks[k], *y = &b->ranks[k];
        if (x->rank_index != y->rank_index || x->ncp != y->ncp || x->nopen != y->nopen ||
            x->windowable != y->windowable || x->ninferred != y->ninferred)
            fail_msg("%s: rank %zu: out of core %zu checkpoints, %zu open, windowable %d, %u "
                     "lanes; in memory %zu, %zu, %d, %u",
                     path, k, x->ncp, x->nopen, x->windowable, x->ninferred, y->ncp, y->nopen,
                     y->windowable, y->ninferred);
        for (size_t c = 0; c < x->ncp; c++)
            if (x->cp[c].t != y->cp[c].t || x->cp[c].first != y->cp[c].first ||
                x->cp[c].count != y->cp[c].count)
                fail_msg("%s: rank %zu checkpoint %zu: out of core t %lld (%zu open), in memory "
                         "%lld (%zu)",
                         path, k, c, (long long)x->cp[c].t, x->cp[c].count, (long long)y->cp[c].t,
                         y->cp[c].count);
        for (size_t o = 0; o < x->nopen; o++) {
            const ooc_open_call *p = &x->open[o], *q = &y->open[o];
            if (p->region_index != q->region_index || p->lane != q->lane || p->pos != q->pos ||
                p->start != q->start || p->end != q->end)
                fail_msg("%s: rank %zu open call %zu: out of core region %u lane %u pos %llu "
                         "[%lld, %lld], in memory %u %u %llu [%lld, %lld]",
                         path, k, o, p->region_index, p->lane, (unsigned long long)p->pos,
                         (long long)p->start, (long long)p->end, q->region_index, q->lane,
                         (unsigned long long)q->pos, (long long)q->start, (long long)q->end);
        }
    }
}

static void stats_equal(const profile *skel, const profile *mem, const char *path)
{
    assert_int_equal(skel->nranks, mem->nranks);
    for (size_t k = 0; k < mem->nranks; k++) {
        const rank_data *a = &skel->ranks[k], *b = &mem->ranks[k];
        assert_int_equal(a->rank, b->rank);
        assert_int_equal(a->nregions, b->nregions);
        assert_int_equal(a->ninferred_lanes, b->ninferred_lanes);
        for (size_t j = 0; j < b->nregions; j++) {
            const region *x = a->regions[j], *y = b->regions[j];
            assert_string_equal(x->name, y->name);
            assert_int_equal(x->has_event_data, y->has_event_data);
            assert_int_equal(x->n, 0);
            if (y->has_event_data && !x->streamed)
                fail_msg("%s: rank %d region %s: not streamed", path, b->rank, y->name);
            if (memcmp(&x->st, &y->st, sizeof x->st) != 0)
                fail_msg("%s: rank %d region %s: statistics differ (calls %lld/%lld, total "
                         "%lld/%lld, exclusive %lld/%lld, p50 %g/%g, std %g/%g)",
                         path, b->rank, y->name, (long long)x->st.num_calls,
                         (long long)y->st.num_calls, (long long)x->st.total_ns,
                         (long long)y->st.total_ns, (long long)x->st.exclusive_total_ns,
                         (long long)y->st.exclusive_total_ns, x->st.p50_ns, y->st.p50_ns,
                         x->st.std_ns, y->st.std_ns);
        }
    }
}

/* ------------------------------------------------------------ one profile */

typedef struct ref {
    profile *p;
    ooc_map map;
    ooc_seek seek;
} ref;

static bool ref_load(const char *path, ref *r, sv_error *err)
{
    memset(r, 0, sizeof *r);
    if (profile_load(path, NULL, &r->p, err) != SV_OK)
        return false;
    lanes_index *ix = NULL;
    assert_int_equal(lanes_build(r->p, NULL, &ix, err), SV_OK);
    assert_true(ooc_map_from_lanes(ix, &r->map));
    assert_true(ooc_seek_from_profile(r->p, &r->seek));
    lanes_free(ix);
    return true;
}

static void ref_free(ref *r)
{
    profile_free(r->p);
    ooc_map_free(&r->map);
    ooc_seek_free(&r->seek);
}

static size_t nchecked;

static void check_one(const char *path, const ref *r, bool loads, const char *how)
{
    isolate_options io = {.budget = (uint64_t)1 << 30};
    ooc_file *f = NULL;
    sv_error err;
    sv_err e = ooc_open(path, &io, &f, &err);
    if (!loads) {
        if (e == SV_OK)
            fail_msg("%s (%s): the in-memory load fails but ooc_open succeeds", path, how);
        assert_null(f);
        assert_true(err.msg[0] != '\0');
        return;
    }
    if (e != SV_OK)
        fail_msg("%s (%s): ooc_open: %s", path, how, err.msg);
    char what[2300];
    snprintf(what, sizeof what, "%s (%s)", path, how);
    map_equal(&f->map, &r->map, what);
    seek_equal(&f->seek, &r->seek, what);
    stats_equal(f->skel, r->p, what);
    assert_string_equal(f->path, path);
    nchecked++;
    ooc_file_free(f);
}

static void check_all(const plist *l, const char *const *chunks, size_t nchunks)
{
    for (size_t i = 0; i < l->n; i++) {
        ref r;
        sv_error err;
        bool loads = ref_load(l->v[i], &r, &err);
        for (int iso = 0; iso < 2; iso++) {
            setenv("SCOPEVIEW_IN_PROCESS", iso ? "0" : "1", 1);
            for (size_t c = 0; c < nchunks; c++) {
                if (chunks[c])
                    setenv("SCOPEVIEW_STREAM_CHUNK", chunks[c], 1);
                else
                    unsetenv("SCOPEVIEW_STREAM_CHUNK");
                char how[64];
                snprintf(how, sizeof how, "%s, chunk %s", iso ? "isolated" : "in-process",
                         chunks[c] ? chunks[c] : "budget");
                check_one(l->v[i], &r, loads, how);
            }
        }
        unsetenv("SCOPEVIEW_STREAM_CHUNK");
        unsetenv("SCOPEVIEW_IN_PROCESS");
        if (loads)
            ref_free(&r);
    }
}

static void test_shared_and_fixtures(void **state)
{
    (void)state;
    plist l = {0};
    char buf[1024];
    sv_fixture_path(buf, sizeof buf, "");
    list_dir(&l, buf);
    size_t nfix = l.n;
    static const char *const shared[] = {"data/real", "data/upstream", "data/extended"};
    for (size_t k = 0; sv_shared_available() && k < N(shared); k++)
        list_dir(&l, sv_shared_path(buf, sizeof buf, shared[k]));
    assert_true(nfix >= 20);
    static const char *const chunks[] = {NULL, "3"};
    nchecked = 0;
    check_all(&l, chunks, N(chunks));
    print_message("%zu files (%zu fixtures), %zu opens equal to the in-memory load\n", l.n, nfix,
                  nchecked);
    list_free(&l);
}

static void test_generated(void **state)
{
    (void)state;
    plist l = {0};
    generated(&l);
    static const char *const chunks[] = {NULL, "1", "7"};
    nchecked = 0;
    check_all(&l, chunks, N(chunks));
    assert_int_equal(nchecked, l.n * 2 * N(chunks));
    list_free(&l);
    gen_cleanup();
}

/* A rank nested by call ids whose calls exceed half the budget: no exact
 * nesting out of core, so every call at depth 0 of its lane, one
 * checkpoint, not windowable, said in a warning; the seek rows still
 * exact.  Both ways. */
static void test_flat_fallback(void **state)
{
    (void)state;
    plist l = {0};
    gen_dir_new();
    /* 100003 calls with ids: 9.6 MB of columns and keys > 8 MiB, half of 16 MiB */
    gen(&l, "ids100k", "stream-mix --calls 100000 --ids");
    ref r;
    sv_error err;
    assert_true(ref_load(l.v[0], &r, &err));
    for (int iso = 0; iso < 2; iso++) {
        setenv("SCOPEVIEW_IN_PROCESS", iso ? "0" : "1", 1);
        isolate_options io = {.budget = (uint64_t)16 << 20};
        ooc_file *f = NULL;
        if (ooc_open(l.v[0], &io, &f, &err) != SV_OK)
            fail_msg("%s: %s", l.v[0], err.msg);
        assert_int_equal(f->map.ncalls, 100003);
        assert_int_equal(f->map.nlanes, 1);
        assert_int_equal(f->map.lanes[0].ndepth, 1);
        uint64_t starts = 0;
        for (size_t b = 0; b < f->map.nb; b++)
            starts += f->map.lanes[0].cells[b].starts;
        assert_int_equal(starts, 100003);
        assert_int_equal(f->seek.nranks, 1);
        assert_false(f->seek.ranks[0].windowable);
        assert_int_equal(f->seek.ranks[0].ncp, 1);
        assert_int_equal(f->seek.ranks[0].cp[0].t, r.seek.ranks[0].cp[0].t);
        ooc_seek rows = {f->seek.rows, f->seek.nrows, NULL, 0};
        ooc_seek want = {r.seek.rows, r.seek.nrows, NULL, 0};
        seek_equal(&rows, &want, l.v[0]);
        bool said = false;
        for (size_t w = 0; w < f->skel->nwarnings; w++)
            said |= strstr(f->skel->warnings[w], "every call at depth 0") != NULL;
        assert_true(said);
        ooc_file_free(f);
    }
    unsetenv("SCOPEVIEW_IN_PROCESS");
    ref_free(&r);
    list_free(&l);
    gen_cleanup();
}

/* The map's cells come from the budget (ooc_map_cells_cap): under 16 MiB
 * an eighth, 2 MiB of cells (32768 level-0 cells over 4 lanes * 16 depth
 * rows: at most 512 buckets a row, where 1 GiB allows 32768), and the
 * streamed map equals the reference on that grid cell for cell. */
static void test_map_budget(void **state)
{
    (void)state;
    plist l = {0};
    gen_dir_new();
    gen(&l, "lanes4", "stream-mix --calls 20000 --ranks 2 --threads");
    profile *p = NULL;
    sv_error err;
    assert_int_equal(profile_load(l.v[0], NULL, &p, &err), SV_OK);
    lanes_index *ix = NULL;
    assert_int_equal(lanes_build(p, NULL, &ix, &err), SV_OK);
    assert_int_equal(ix->nlanes, 4);
    ooc_map small, big;
    assert_true(ooc_map_from_lanes_cap(ix, ooc_map_cells_cap((uint64_t)16 << 20), &small));
    assert_true(ooc_map_from_lanes(ix, &big));
    if (small.nb > 512 || big.nb <= small.nb)
        fail_msg("16 MiB: %zu buckets a row (want <= 512), 1 GiB: %zu (want more)", small.nb,
                 big.nb);
    for (int iso = 0; iso < 2; iso++) {
        setenv("SCOPEVIEW_IN_PROCESS", iso ? "0" : "1", 1);
        isolate_options io = {.budget = (uint64_t)16 << 20};
        ooc_file *f = NULL;
        if (ooc_open(l.v[0], &io, &f, &err) != SV_OK)
            fail_msg("%s under 16 MiB: %s", l.v[0], err.msg);
        map_equal(&f->map, &small, iso ? "16 MiB, isolated" : "16 MiB, in process");
        size_t cells = 0;
        for (size_t k = 0; k < f->map.nlanes; k++) {
            uint32_t nd = f->map.lanes[k].ndepth;
            cells += (nd < OOC_MAP_DEPTHS ? nd : OOC_MAP_DEPTHS) * ooc_map_row_cells(&f->map);
        }
        if (cells * sizeof(ooc_cell) > ((size_t)2 << 20))
            fail_msg("16 MiB: the map holds %zu cells, over an eighth of the budget", cells);
        ooc_file_free(f);
    }
    unsetenv("SCOPEVIEW_IN_PROCESS");
    ooc_map_free(&small);
    ooc_map_free(&big);
    lanes_free(ix);
    profile_free(p);
    list_free(&l);
    gen_cleanup();
}

static void check_filtered(const char *path, const char *inc, const char *exc, const char *ranks);

/* Inferred lanes under a small budget: the loading child's first load
 * leaves the lane count to pass 2 (isolate.h light_first), so its sweep
 * starts on the grid for one lane a rank and regrids as lanes appear
 * (ooc_map_regrid); the map must still equal the reference built on the
 * grid for every lane, cell for cell (16 MiB: 2048 buckets a row for one
 * lane, 1024 for two, ...). */
static void test_inferred_regrid(void **state)
{
    (void)state;
    plist l = {0};
    gen_dir_new();
    gen(&l, "inferred", "stream-mix --calls 20000 --ranks 2");
    profile *p = NULL;
    sv_error err;
    assert_int_equal(profile_load(l.v[0], NULL, &p, &err), SV_OK);
    uint32_t most = 0;
    for (size_t k = 0; k < p->nranks; k++)
        most = p->ranks[k].ninferred_lanes > most ? p->ranks[k].ninferred_lanes : most;
    if (most < 2)
        fail_msg("%s: no rank with inferred lanes (%u): the test needs some", l.v[0], most);
    lanes_index *ix = NULL;
    assert_int_equal(lanes_build(p, NULL, &ix, &err), SV_OK);
    ooc_map want, one;
    size_t cap = ooc_map_cells_cap((uint64_t)16 << 20);
    assert_true(ooc_map_from_lanes_cap(ix, cap, &want));
    assert_true(ooc_map_init_cap(&one, ix->t_min, ix->t_max, p->nranks, cap));
    if (one.nb <= want.nb)
        fail_msg("one lane a rank: %zu buckets, every lane: %zu: the grids must differ", one.nb,
                 want.nb);
    ooc_map_free(&want);
    ooc_map_free(&one);
    lanes_free(ix);
    profile_free(p);
    /* the map equal to the reference, the seek index's lane counts to the load's */
    check_filtered(l.v[0], NULL, NULL, NULL);
    list_free(&l);
    gen_cleanup();
}

/* The command line's filter (-i, -x, --ranks): the map equals the
 * reference built from the filtered in-memory index, lanes_build(p, f)
 * (the timeline's), cell for cell: the lanes without kept calls gone,
 * lane depths counting kept calls only, the grid on their span.  Files
 * with inferred lanes (stream-mix without threads: regrid as lanes come),
 * thread lanes and the shared profiles; isolated and in process; the seek
 * index is every call's, unfiltered. */
static void check_filtered(const char *path, const char *inc, const char *exc, const char *ranks)
{
    region_filter f;
    filter_init(&f);
    sv_error err;
    assert_true((!inc || filter_add_include(&f, inc, &err) == SV_OK) &&
                (!exc || filter_add_exclude(&f, exc, &err) == SV_OK) &&
                (!ranks || filter_set_ranks(&f, ranks, &err) == SV_OK));
    const region_filter *fp = inc || exc || ranks ? &f : NULL;
    ref r;
    if (!ref_load(path, &r, &err)) {
        filter_free(&f);
        return;
    }
    lanes_index *ix = NULL;
    assert_int_equal(lanes_build(r.p, fp, &ix, &err), SV_OK);
    ooc_map want;
    assert_true(ooc_map_from_lanes_cap(ix, ooc_map_cells_cap((uint64_t)16 << 20), &want));
    char what[1200];
    for (int iso = 0; iso < 2; iso++) {
        setenv("SCOPEVIEW_IN_PROCESS", iso ? "0" : "1", 1);
        snprintf(what, sizeof what, "%s -i %s -x %s --ranks %s (%s)", path, inc ? inc : "-",
                 exc ? exc : "-", ranks ? ranks : "-", iso ? "isolated" : "in process");
        isolate_options io = {.budget = (uint64_t)16 << 20};
        ooc_file *o = NULL;
        if (ooc_open_where(path, &io, fp, &o, &err) != SV_OK)
            fail_msg("%s: %s", what, err.msg);
        map_equal(&o->map, &want, what);
        seek_equal(&o->seek, &r.seek, what);
        nchecked++;
        ooc_file_free(o);
    }
    unsetenv("SCOPEVIEW_IN_PROCESS");
    ooc_map_free(&want);
    lanes_free(ix);
    ref_free(&r);
    filter_free(&f);
}

static void test_filtered(void **state)
{
    (void)state;
    plist l = {0};
    gen_dir_new();
    gen(&l, "inferred", "stream-mix --calls 20000 --ranks 2");
    gen(&l, "threads", "stream-mix --calls 20000 --ranks 2 --threads");
    nchecked = 0;
    for (size_t i = 0; i < l.n; i++) {
        check_filtered(l.v[i], "overlap", NULL, NULL); /* the partial overlaps alone */
        check_filtered(l.v[i], NULL, "rec", NULL);
        check_filtered(l.v[i], NULL, "main", "1");
        check_filtered(l.v[i], "nothing-matches", NULL, NULL); /* no lane at all */
    }
    char buf[1024];
    if (sv_shared_available()) {
        check_filtered(sv_shared_path(buf, sizeof buf, "data/real/solver_mpi4.h5"), NULL, "solve",
                       "1-2");
        check_filtered(sv_shared_path(buf, sizeof buf, "data/real/solver_threads_small.h5"), "step",
                       NULL, NULL);
    }
    print_message("%zu filtered opens equal to the filtered in-memory index\n", nchecked);
    assert_true(nchecked >= 16);
    list_free(&l);
    gen_cleanup();
}

/* The viewer's in-memory attempt at a compressed file whose stored bytes
 * fit the budget but whose columns do not (the viewer opens such a file
 * out of core after it): the load fails before it reads an event column
 * (none charged, none allocated), with the budget's message naming the
 * columns.  With a budget one byte short of its columns, reading them one
 * by one would first read and inflate every column but the last. */
static void test_refused_before_read(void **state)
{
    (void)state;
    plist l = {0};
    gen_dir_new();
    gen(&l, "gz", "bench-schema3 --calls 200000 --gzip");
    profile *p = NULL;
    sv_error err;
    assert_int_equal(profile_load(l.v[0], NULL, &p, &err), SV_OK);
    uint64_t calls = 0;
    for (size_t i = 0; i < p->nregions; i++)
        calls += p->regions[i]->n;
    profile_free(p);
    p = NULL;
    /* start and end (or duration) columns at least: 16 bytes a call */
    load_budget b = {.limit = calls * 16 - 1};
    load_options lo = {.budget = &b};
    sv_err e = profile_load(l.v[0], &lo, &p, &err);
    if (e != SV_ERR_NOMEM || !b.exceeded || b.used >= calls * 8)
        fail_msg("%s under %llu bytes: error %d, exceeded %d, %llu bytes charged (want no "
                 "event column's)",
                 l.v[0], (unsigned long long)b.limit, (int)e, (int)b.exceeded,
                 (unsigned long long)b.used);
    char msg[600];
    budget_message(&b, "gz.h5", msg, sizeof msg);
    if (!strstr(msg, "/events/"))
        fail_msg("the budget's message names no column: %s", msg);
    budget_free(&b);
    profile_free(p);
    list_free(&l);
    gen_cleanup();
}

/* The viewer's open (opt->tail): the skeleton and map come first, with
 * pass 2's numbers missing (exclusive totals, percentiles) and the
 * sweep's lane counts; the tail then brings exactly the in-memory
 * statistics.  Shared profiles and a generated file. */
static size_t regions_differing(const profile *a, const profile *b)
{
    size_t n = 0;
    for (size_t i = 0; i < a->nregions && i < b->nregions; i++)
        n += memcmp(&a->regions[i]->st, &b->regions[i]->st, sizeof a->regions[i]->st) != 0;
    return n;
}

/* Returns the regions whose statistics were still to come. */
static size_t check_tail(const char *path)
{
    ref r;
    sv_error err;
    if (!ref_load(path, &r, &err))
        return 0; /* refused in memory: check_all covers it */
    isolate_tail *tail = NULL;
    isolate_options io = {.budget = (uint64_t)1 << 30, .tail = &tail};
    ooc_file *f = NULL;
    if (ooc_open(path, &io, &f, &err) != SV_OK)
        fail_msg("%s: ooc_open with a tail: %s", path, err.msg);
    assert_non_null(tail);
    map_equal(&f->map, &r.map, path);
    seek_equal(&f->seek, &r.seek, path);
    for (size_t k = 0; k < r.p->nranks; k++)
        if (f->skel->ranks[k].ninferred_lanes != r.p->ranks[k].ninferred_lanes)
            fail_msg("%s: rank %zu: %u inferred lanes before the statistics, %u in memory", path, k,
                     f->skel->ranks[k].ninferred_lanes, r.p->ranks[k].ninferred_lanes);
    size_t later = regions_differing(f->skel, r.p);
    wire_stats *st = NULL;
    if (isolate_tail_recv(tail, &st, &err) != SV_OK)
        fail_msg("%s: the statistics: %s", path, err.msg);
    assert_true(wire_stats_install(f->skel, st));
    stats_equal(f->skel, r.p, path);
    wire_stats_free(st);
    isolate_tail_free(tail);
    ooc_file_free(f);
    ref_free(&r);
    return later;
}

static void test_tail(void **state)
{
    (void)state;
    plist l = {0};
    char buf[1024];
    static const char *const shared[] = {"data/real", "data/upstream", "data/extended"};
    for (size_t k = 0; sv_shared_available() && k < N(shared); k++)
        list_dir(&l, sv_shared_path(buf, sizeof buf, shared[k]));
    gen_dir_new();
    gen(&l, "tail", "stream-mix --calls 20000 --ranks 2");
    unsetenv("SCOPEVIEW_IN_PROCESS");
    size_t later = 0;
    for (size_t i = 0; i < l.n; i++)
        later = check_tail(l.v[i]); /* the generated file's, last */
    if (later == 0)
        fail_msg("%s: every statistic came with the map: nothing was left for the tail",
                 l.v[l.n - 1]);
    list_free(&l);
    gen_cleanup();
}

/* A file cut short while the loading child reads it (isolate.c's test
 * hook cuts it at the child's first progress report): an error
 * or a profile that says the file changed, never a crash. */
static void test_changed_during_open(void **state)
{
    (void)state;
    plist l = {0};
    gen_dir_new();
    gen(&l, "cut", "stream-mix --calls 200000 --ranks 2");
    setenv("SCOPEVIEW_TEST_DURING_LOAD", "truncate=300000", 1);
    unsetenv("SCOPEVIEW_IN_PROCESS");
    setenv("SCOPEVIEW_STREAM_CHUNK", "1000", 1);
    ooc_file *f = NULL;
    sv_error err;
    sv_err e = ooc_open(l.v[0], NULL, &f, &err);
    unsetenv("SCOPEVIEW_TEST_DURING_LOAD");
    unsetenv("SCOPEVIEW_STREAM_CHUNK");
    if (e == SV_OK) {
        bool said = false;
        for (size_t w = 0; w < f->skel->nwarnings; w++)
            said |= strstr(f->skel->warnings[w], "changed") != NULL;
        assert_true(said);
    } else {
        assert_null(f);
        if (!strstr(err.msg, l.v[0]))
            fail_msg("the message does not name the file: %s", err.msg);
        print_message("cut during the open: %s\n", err.msg);
    }
    ooc_file_free(f);
    list_free(&l);
    gen_cleanup();
}

/* Files that are no profile: an error naming the file, no crash, both ways. */
static void test_bad_input(void **state)
{
    (void)state;
    const char *paths[] = {"/nonexistent/x.h5", "/dev/null", "/etc/hostname"};
    for (int iso = 0; iso < 2; iso++) {
        setenv("SCOPEVIEW_IN_PROCESS", iso ? "0" : "1", 1);
        for (size_t i = 0; i < N(paths); i++) {
            ooc_file *f = (ooc_file *)1;
            sv_error err;
            assert_int_not_equal(ooc_open(paths[i], NULL, &f, &err), SV_OK);
            assert_null(f);
            if (!strstr(err.msg, paths[i]))
                fail_msg("%s: the message does not name the file: %s", paths[i], err.msg);
        }
    }
    unsetenv("SCOPEVIEW_IN_PROCESS");
    ooc_file *f = NULL;
    sv_error err;
    assert_int_equal(ooc_open(NULL, NULL, &f, &err), SV_ERR_USAGE);
    ooc_file_free(NULL);
}

/* ------------------------------------------------------------ the sweep alone */

typedef struct tsrc {
    const region *r;
    bool done;
} tsrc;

static int tsrc_refill(void *ctx, ooc_src *src)
{
    tsrc *x = ctx;
    src->base = x->done ? x->r->n : 0;
    if (x->done)
        return 0;
    x->done = true;
    src->s = x->r->start_ns;
    src->e = x->r->end_ns;
    src->thr = x->r->thread_ids;
    src->task = x->r->task_ids;
    src->len = x->r->n;
    return 1;
}

/* Sweeps rank 0 of p from its columns and checks the checkpoint at the
 * merge's call 4096 against the hand-listed open calls (region, position),
 * then everything against ooc_seek_from_profile and ooc_map_from_lanes. */
static void sweep_check(profile *p, bool lanes, int64_t t, const uint32_t (*want)[2], size_t nwant)
{
    sv_error err;
    lanes_index *ix = NULL;
    assert_int_equal(lanes_build(p, NULL, &ix, &err), SV_OK);
    ref r = {p, {0}, {0}}; /* p stays the caller's */
    assert_true(ooc_map_from_lanes(ix, &r.map));
    assert_true(ooc_seek_from_profile(p, &r.seek));
    const rank_data *rk = &p->ranks[0];
    ooc_scan sc;
    assert_true(ooc_scan_init(&sc, ix->t_min, ix->t_max, ix->nlanes, OOC_MAP_CELLS_MAX));
    ooc_src src[8];
    tsrc x[8];
    assert_true(rk->nregions <= 8);
    for (size_t j = 0; j < rk->nregions; j++) {
        x[j] = (tsrc){rk->regions[j], false};
        src[j] = (ooc_src){
            .reg = (uint32_t)j, .n = rk->regions[j]->n, .refill = tsrc_refill, .ctx = &x[j]};
    }
    assert_int_equal(ooc_scan_rank(&sc, 0, src, rk->nregions, lanes, rk->ninferred_lanes), 0);
    ooc_map_finish(&sc.map);
    const ooc_seek_rank *k = &sc.seek.ranks[0];
    assert_int_equal(k->ncp, 2);
    assert_int_equal(k->cp[1].t, t);
    assert_int_equal(k->cp[1].count, nwant);
    for (size_t i = 0; i < nwant; i++) {
        const ooc_open_call *o = &k->open[k->cp[1].first + i];
        if (o->region_index != want[i][0] || o->pos != want[i][1])
            fail_msg("open call %zu: region %u position %llu, by hand region %u position %u", i,
                     o->region_index, (unsigned long long)o->pos, want[i][0], want[i][1]);
    }
    assert_int_equal(r.seek.ranks[0].ncp, k->ncp);
    ooc_seek mine = {sc.seek.rows, sc.seek.nrows, sc.seek.ranks, 1};
    ooc_seek theirs = {r.seek.rows, r.seek.nrows, r.seek.ranks, 1};
    seek_equal(&mine, &theirs, "hand-built rank");
    map_equal(&sc.map, &r.map, "hand-built rank");
    ooc_scan_free(&sc);
    ooc_map_free(&r.map);
    ooc_seek_free(&r.seek);
    lanes_free(ix);
}

/* Calls still running at a checkpoint but no longer on the sweep's stacks:
 * Y ends where Z1 starts, and Z1 pops it before the checkpoint at Z2 (the
 * same start); B overlaps A partly on one thread and pops it. */
static void test_open_calls_aside(void **state)
{
    (void)state;
    enum { NB = 4093 };
    int64_t bs[NB], be[NB];
    for (int i = 0; i < NB; i++) {
        bs[i] = 10 + 20 * (int64_t)i;
        be[i] = bs[i] + 5;
    }
    profile *p = profile_new("aside");
    rank_data *rk = profile_add_rank(p, 0);
    mp_region(rk, "a", 1, (int64_t[]){0}, (int64_t[]){100000});
    mp_region(rk, "b", NB, bs, be);
    mp_region(rk, "c", 1, (int64_t[]){90000}, (int64_t[]){90010});
    mp_region(rk, "d", 2, (int64_t[]){90010, 90010}, (int64_t[]){90020, 90015});
    mp_finish(p);
    assert_int_equal(p->ranks[0].ncalls, 4097);
    /* merge order: X, the b calls, Y, Z1 (call 4095), Z2 (call 4096) */
    sweep_check(p, false, 90010, (const uint32_t[][2]){{0, 0}, {2, 0}}, 2);
    profile_free(p);

    enum { NC = 4095 };
    int64_t cs[NC], ce[NC], ct[NC];
    for (int i = 0; i < NC; i++) {
        cs[i] = 100 + 10 * (int64_t)i;
        ce[i] = cs[i] + 5;
        ct[i] = 0;
    }
    p = profile_new("aside-thread");
    rk = profile_add_rank(p, 0);
    region *a = mp_region(rk, "a", 1, (int64_t[]){0}, (int64_t[]){1000000});
    mp_col(&a->thread_ids, (int64_t[]){0}, 1);
    region *b = mp_region(rk, "b", 1, (int64_t[]){10}, (int64_t[]){2000000});
    mp_col(&b->thread_ids, (int64_t[]){0}, 1);
    region *c = mp_region(rk, "c", NC, cs, ce);
    mp_col(&c->thread_ids, ct, NC);
    mp_finish(p);
    /* call 4096 is c's 4094th (position 4094): A and B are open there */
    sweep_check(p, true, 100 + 10 * 4094, (const uint32_t[][2]){{0, 0}, {1, 0}}, 2);
    profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_open_calls_aside),
        cmocka_unit_test(test_flat_fallback),
        cmocka_unit_test(test_changed_during_open),
        cmocka_unit_test(test_map_budget),
        cmocka_unit_test(test_shared_and_fixtures),
        cmocka_unit_test(test_generated),
        cmocka_unit_test(test_inferred_regrid),
        cmocka_unit_test(test_tail),
        cmocka_unit_test(test_filtered),
        cmocka_unit_test(test_refused_before_read),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    gen_cleanup();
    return sv_shared_exit(failed);
}
