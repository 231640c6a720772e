/* The loader against every shared reference profile (structure compared
 * with ../shared/data/expected, table sizes and names as h5dump shows them)
 * and against the non-fault fixtures, whose contents are spelled out by hand
 * in tests/gen/FIXTURES.md.  Statistics are test_expected.c's job: here only
 * structure, flags and raw column values. */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "json_min.h"
#include "load/loader.h"
#include "model/region.h"
#include "testutil.h"

/* ------------------------------------------------------------ helpers */

static profile *load_ok(const char *path)
{
    profile *p = NULL;
    sv_error err;
    sv_err e = profile_load(path, NULL, &p, &err);
    if (e != SV_OK)
        fail_msg("cannot load %s: %s", path, err.msg);
    assert_non_null(p);
    return p;
}

static profile *load_fixture(const char *name)
{
    char path[4096];
    sv_fixture_path(path, sizeof path, name);
    if (!sv_file_exists(path))
        fail_msg("fixture %s is missing: run 'make check' so svgen writes tests/fixtures", path);
    return load_ok(path);
}

static void print_warnings(const profile *p)
{
    for (size_t i = 0; i < p->nwarnings; i++)
        print_message("warning: %s\n", p->warnings[i]);
}

static region *get_region(const profile *p, int rank, const char *name)
{
    rank_data *rk = profile_rank(p, rank);
    if (!rk)
        fail_msg("no rank %d", rank);
    region *r = rank_region(rk, name);
    if (!r)
        fail_msg("no region %s on rank %d", name, rank);
    return r;
}

static void assert_col(const int64_t *col, size_t n, const int64_t *want, size_t nwant)
{
    assert_non_null(col);
    assert_int_equal(n, nwant);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(col[i], want[i]);
}

#define COL(col, n, ...)                                                                           \
    do {                                                                                           \
        const int64_t want_[] = {__VA_ARGS__};                                                     \
        assert_col(col, n, want_, sizeof want_ / sizeof want_[0]);                                 \
    } while (0)

static void assert_strs(char *const *v, size_t n, const char *const *want, size_t nwant)
{
    assert_int_equal(n, nwant);
    assert_non_null(v);
    for (size_t i = 0; i < n; i++)
        assert_string_equal(v[i], want[i]);
}

#define STRS(v, n, ...)                                                                            \
    do {                                                                                           \
        const char *const want_[] = {__VA_ARGS__};                                                 \
        assert_strs(v, n, want_, sizeof want_ / sizeof want_[0]);                                  \
    } while (0)

static const meta_entry *get_meta(const profile *p, const char *key)
{
    for (size_t i = 0; i < p->nmeta; i++)
        if (strcmp(p->meta[i].key, key) == 0)
            return &p->meta[i];
    fail_msg("no metadata key %s", key);
    return NULL;
}

static bool has_warning(const profile *p, const char *a, const char *b)
{
    for (size_t i = 0; i < p->nwarnings; i++)
        if (strstr(p->warnings[i], a) && (!b || strstr(p->warnings[i], b)))
            return true;
    return false;
}

/* ------------------------------------------------------------ shared data */

static bool skip_without_shared(void)
{
    if (sv_shared_available())
        return false;
    char dir[4096];
    print_message("SKIP: shared data not found (%s)\n",
                  sv_shared_path(dir, sizeof dir, "data/real"));
    return true;
}

static const jm_node *find_expected(const jm_node *list, const char *name, int rank)
{
    for (size_t i = 0; i < list->count; i++) {
        const jm_node *o = list->items[i];
        double rk;
        const char *nm = jm_string(jm_get(o, "name"));
        if (nm && strcmp(nm, name) == 0 && jm_number(jm_get(o, "rank"), &rk) && (int)rk == rank)
            return o;
    }
    return NULL;
}

static void check_tags(const region *r, const jm_node *tags)
{
    assert_non_null(tags);
    assert_int_equal(r->ntags, tags->count);
    for (size_t i = 0; i < r->ntags; i++)
        assert_string_equal(r->tags[i], jm_string(tags->items[i]));
}

/* An optional column is present exactly when the expected statistic that
 * needs it is not null. */
static void check_presence(const region *r, const jm_node *o)
{
    const jm_node *gpu = jm_get(o, "gpu_total_duration");
    const jm_node *aw = jm_get(o, "total_await_duration");
    if (gpu)
        assert_int_equal(r->gpu_ns != NULL, !jm_is_null(gpu));
    if (aw)
        assert_int_equal(r->await_ns != NULL, !jm_is_null(aw));
    const jm_node *thr = jm_get(o, "threads");
    if (thr && thr->type == JM_ARRAY && thr->count > 0) {
        assert_non_null(r->thread_ids);
        for (size_t i = 0; i < thr->count; i++) {
            double row;
            assert_true(jm_number(thr->items[i], &row));
            if (r->owner->has_threads)
                assert_true(row >= 0 && row < (double)r->owner->threads.n);
        }
    }
}

static void check_region_vs_expected(const region *r, const jm_node *o)
{
    bool ev = jm_get(o, "has_event_data")->boolean;
    assert_int_equal(r->has_event_data, ev);
    double n;
    assert_true(jm_number(jm_get(o, "num_calls"), &n));
    if (ev) {
        assert_int_equal(r->n, (size_t)n);
        double fst;
        if (r->n > 0 && jm_number(jm_get(o, "first_start_time"), &fst)) {
            int64_t mn = r->start_ns[0];
            for (size_t i = 1; i < r->n; i++)
                mn = r->start_ns[i] < mn ? r->start_ns[i] : mn;
            assert_true(fabs(mn / 1e9 - fst) <= 1e-9 * fabs(fst));
        }
    } else {
        assert_true(r->has_stored_summary);
        assert_true(r->stored.known & (1u << SUM_NUM_CALLS));
        assert_true(r->stored.v[SUM_NUM_CALLS] == n);
    }
    check_tags(r, jm_get(o, "tags"));
    const char *sf = jm_string(jm_get(o, "source_file"));
    if (sf)
        assert_string_equal(r->source_file, sf);
    else
        assert_null(r->source_file);
    double ln;
    if (jm_number(jm_get(o, "source_lineno"), &ln)) {
        assert_true(r->has_lineno);
        assert_int_equal(r->source_lineno, (int64_t)ln);
    } else {
        assert_false(r->has_lineno);
    }
    const jm_node *hs = jm_get(o, "has_source");
    if (hs)
        assert_int_equal(r->source_text != NULL, hs->boolean);
    check_presence(r, o);
}

/* Same (region, rank) pairs as the expected list, each matching it. */
static void check_against_expected(const profile *p, const char *stem)
{
    char rel[512], path[4096];
    snprintf(rel, sizeof rel, "data/expected/%s.json", stem);
    sv_shared_path(path, sizeof path, rel);
    size_t len;
    char *text = sv_slurp(path, &len);
    if (!text) {
        print_message("note: no expected file %s\n", path);
        return;
    }
    char jerr[128];
    jm_node *list = jm_parse(text, len, jerr, sizeof jerr);
    free(text);
    if (!list)
        fail_msg("%s: %s", path, jerr);
    assert_int_equal(p->nregions, list->count);
    for (size_t i = 0; i < p->nregions; i++) {
        const region *r = p->regions[i];
        const jm_node *o = find_expected(list, r->name, r->rank);
        if (!o)
            fail_msg("%s: region %s rank %d not expected", stem, r->name, r->rank);
        check_region_vs_expected(r, o);
    }
    jm_free(list);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every .h5 of shared/data/SUB loads without a warning and matches. */
static size_t load_shared_dir(const char *sub)
{
    char dir[4096];
    sv_shared_path(dir, sizeof dir, sub);
    DIR *d = opendir(dir);
    if (!d)
        fail_msg("cannot list %s", dir);
    char *names[64];
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(d)) && n < 64) {
        size_t l = strlen(de->d_name);
        if (l > 3 && strcmp(de->d_name + l - 3, ".h5") == 0)
            names[n++] = strdup(de->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp_str);
    for (size_t i = 0; i < n; i++) {
        char path[4096 + 256];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        profile *p = load_ok(path);
        print_warnings(p);
        assert_int_equal(p->nwarnings, 0);
        assert_true(p->nranks > 0);
        names[i][strlen(names[i]) - 3] = '\0';
        check_against_expected(p, names[i]);
        profile_free(p);
        free(names[i]);
    }
    return n;
}

static void test_shared_real(void **state)
{
    (void)state;
    if (skip_without_shared())
        return;
    assert_true(load_shared_dir("data/real") >= 3);
}

static void test_shared_extended(void **state)
{
    (void)state;
    if (skip_without_shared())
        return;
    assert_true(load_shared_dir("data/extended") >= 3);
}

static profile *load_shared(const char *rel)
{
    char path[4096];
    return load_ok(sv_shared_path(path, sizeof path, rel));
}

static void test_shared_solver(void **state)
{
    (void)state;
    if (skip_without_shared())
        return;
    profile *p = load_shared("data/real/solver.h5");
    assert_true(p->legacy);
    assert_int_equal(p->nranks, 1);
    assert_int_equal(p->nregions, 7);
    region *r = get_region(p, 0, "io/checkpoint");
    assert_true(r->has_event_data);
    assert_null(rank_region(profile_rank(p, 0), "io")); /* only a folder */
    assert_null(r->call_ids);
    assert_null(r->thread_ids);
    profile_free(p);

    p = load_shared("data/real/solver_mpi4.h5");
    assert_int_equal(p->nranks, 4);
    for (int k = 0; k < 4; k++) {
        assert_int_equal(p->ranks[k].rank, k);
        assert_int_equal(p->ranks[k].nregions, 7);
        assert_non_null(rank_region(&p->ranks[k], "io/checkpoint"));
        assert_false(p->ranks[k].has_threads);
    }
    const meta_entry *m = get_meta(p, "mpi_size");
    assert_int_equal(m->kind, META_INT);
    assert_string_equal(m->text, "4");
    assert_string_equal(get_meta(p, "hostname")->text, "vm");
    assert_int_equal(get_meta(p, "hostname")->kind, META_STRING);
    assert_non_null(get_meta(p, "timestamp"));
    profile_free(p);
}

static void test_shared_gpu_train(void **state)
{
    (void)state;
    if (skip_without_shared())
        return;
    profile *p = load_shared("data/extended/gpu_train.h5");
    assert_false(p->legacy);
    assert_int_equal(p->nranks, 2);
    for (int k = 0; k < 2; k++) {
        rank_data *rk = profile_rank(p, k);
        assert_true(rk->has_threads);
        STRS(rk->threads.name, rk->threads.n, "MainThread", "DataLoader-0");
        assert_non_null(rk->threads.ident);
        assert_non_null(rk->threads.native_id);
        assert_false(rk->has_tasks);
        region *ar = get_region(p, k, "allreduce");
        assert_false(ar->has_event_data);
        assert_int_equal(ar->n, 0);
        assert_null(ar->start_ns);
        assert_true(ar->has_stored_summary);
        assert_true(ar->stored.v[SUM_NUM_CALLS] == 50);
        STRS(ar->tags, ar->ntags, "mpi");
        region *bw = get_region(p, k, "backward");
        assert_non_null(bw->gpu_ns);
        assert_non_null(bw->call_ids);
        assert_non_null(bw->parent_ids);
        assert_null(bw->task_ids);
        assert_non_null(get_region(p, k, "epoch")->event_meta);
    }
    assert_true(get_region(p, 1, "allreduce")->stored.v[SUM_TOTAL] == 68000000);
    profile_free(p);
}

static void test_shared_async_server(void **state)
{
    (void)state;
    if (skip_without_shared())
        return;
    profile *p = load_shared("data/extended/async_server.h5");
    rank_data *rk = profile_rank(p, 0);
    assert_true(rk->has_threads);
    STRS(rk->threads.name, rk->threads.n, "MainThread", "ThreadPoolExecutor-0_0",
         "ThreadPoolExecutor-0_1");
    assert_true(rk->has_tasks);
    assert_int_equal(rk->tasks.n, 41);
    assert_non_null(rk->tasks.name);
    assert_non_null(rk->tasks.thread);
    region *c = get_region(p, 0, "compress");
    assert_int_equal(c->n, 14);
    assert_non_null(c->task_ids);
    assert_non_null(c->await_ns);
    assert_non_null(c->thread_ids);
    assert_null(c->gpu_ns);
    assert_null(c->event_meta);
    assert_non_null(c->source_text);
    profile_free(p);
}

/* ------------------------------------------------------------ fixtures */

static void test_small(void **state)
{
    (void)state;
    profile *p = load_fixture("small.h5");
    print_warnings(p);
    assert_int_equal(p->nwarnings, 0);
    assert_false(p->legacy);
    assert_int_equal(p->nmeta, 5);
    const meta_entry *m = get_meta(p, "hostname");
    assert_int_equal(m->kind, META_STRING);
    assert_string_equal(m->text, "testhost");
    m = get_meta(p, "mpi_size");
    assert_int_equal(m->kind, META_INT);
    assert_string_equal(m->text, "1");
    m = get_meta(p, "python_version");
    assert_int_equal(m->kind, META_STRING);
    assert_string_equal(m->text, "3.11.7");
    m = get_meta(p, "gpu");
    assert_int_equal(m->kind, META_BOOL);
    assert_string_equal(m->text, "True");
    m = get_meta(p, "load");
    assert_int_equal(m->kind, META_FLOAT);
    assert_string_equal(m->text, "0.5");

    assert_int_equal(p->nranks, 1);
    rank_data *rk = profile_rank(p, 0);
    assert_true(rk->has_threads);
    STRS(rk->threads.name, rk->threads.n, "MainThread", "Worker-1");
    COL(rk->threads.ident, rk->threads.n, 11, 12);
    COL(rk->threads.native_id, rk->threads.n, 101, 102);
    assert_false(rk->has_tasks);
    assert_int_equal(rk->nregions, 4);

    region *r = get_region(p, 0, "outer");
    assert_true(r->has_event_data);
    COL(r->start_ns, r->n, 1000, 2000);
    COL(r->end_ns, r->n, 1500, 3000);
    COL(r->call_ids, r->n, 1, 4);
    COL(r->parent_ids, r->n, -1, -1);
    COL(r->thread_ids, r->n, 0, 0);
    assert_null(r->task_ids);
    assert_null(r->await_ns);
    assert_null(r->gpu_ns);
    assert_null(r->event_meta);
    assert_string_equal(r->source_file, "app.py");
    assert_true(r->has_lineno);
    assert_int_equal(r->source_lineno, 10);
    assert_string_equal(r->source_text, "with Region(\"outer\"):\n    inner()\n");
    STRS(r->tags, r->ntags, "demo", "io");
    assert_false(r->has_stored_summary);

    r = get_region(p, 0, "inner");
    COL(r->start_ns, r->n, 1100, 2100, 2500);
    COL(r->end_ns, r->n, 1200, 2600, 2900);
    COL(r->call_ids, r->n, 2, 5, 6);
    COL(r->parent_ids, r->n, 1, 4, 4);
    COL(r->thread_ids, r->n, 0, 0, 0);
    COL(r->gpu_ns, r->n, 50, -1, 70);
    STRS(r->event_meta, r->n, "{\"i\": 1}", "", "{}");
    assert_null(r->source_file);
    assert_false(r->has_lineno);
    assert_int_equal(r->ntags, 0);

    r = get_region(p, 0, "io/write");
    COL(r->start_ns, r->n, 1300);
    COL(r->end_ns, r->n, 1300);
    COL(r->call_ids, r->n, 3);
    COL(r->parent_ids, r->n, 1);
    COL(r->thread_ids, r->n, 1);
    COL(r->await_ns, r->n, 0);
    assert_null(rank_region(rk, "io"));

    r = get_region(p, 0, "reduce");
    assert_false(r->has_event_data);
    assert_int_equal(r->n, 0);
    assert_true(r->has_stored_summary);
    uint32_t want =
        1u << SUM_NUM_CALLS | 1u << SUM_TOTAL | 1u << SUM_MIN | 1u << SUM_MAX | 1u << SUM_MEAN;
    assert_int_equal(r->stored.known, want);
    assert_true(r->stored.v[SUM_NUM_CALLS] == 4);
    assert_true(r->stored.v[SUM_TOTAL] == 4000);
    assert_true(r->stored.v[SUM_MIN] == 500);
    assert_true(r->stored.v[SUM_MAX] == 1500);
    assert_true(r->stored.v[SUM_MEAN] == 1000.0);
    STRS(r->tags, r->ntags, "mpi");
    profile_free(p);
}

static void test_nested_names(void **state)
{
    (void)state;
    profile *p = load_fixture("nested_names.h5");
    assert_int_equal(p->nranks, 3);
    assert_int_equal(p->ranks[0].rank, 0);
    assert_int_equal(p->ranks[1].rank, 2);
    assert_int_equal(p->ranks[2].rank, 5);
    assert_int_equal(p->ranks[2].nregions, 0);

    rank_data *rk = profile_rank(p, 0);
    assert_int_equal(rk->nregions, 5);
    region *r = get_region(p, 0, "io");
    COL(r->start_ns, r->n, 0);
    COL(r->end_ns, r->n, 10);
    r = get_region(p, 0, "io/checkpoint");
    COL(r->start_ns, r->n, 1);
    COL(r->end_ns, r->n, 2);
    r = get_region(p, 0, "io/summary");
    assert_true(r->has_event_data);
    COL(r->start_ns, r->n, 3);
    COL(r->end_ns, r->n, 4);
    assert_false(r->has_stored_summary);
    r = get_region(p, 0, "deep/a/b/c");
    COL(r->start_ns, r->n, 20);
    COL(r->end_ns, r->n, 30);
    assert_null(rank_region(rk, "deep"));
    assert_null(rank_region(rk, "deep/a"));
    r = get_region(p, 0, "agg");
    assert_false(r->has_event_data);
    assert_true(r->has_stored_summary);
    assert_int_equal(r->stored.known, 1u << SUM_NUM_CALLS | 1u << SUM_TOTAL);
    assert_true(r->stored.v[SUM_NUM_CALLS] == 2);
    assert_true(r->stored.v[SUM_TOTAL] == 30);

    assert_int_equal(profile_rank(p, 2)->nregions, 1);
    r = get_region(p, 2, "deep/a/b/c");
    COL(r->start_ns, r->n, 5);
    COL(r->end_ns, r->n, 7);

    assert_int_equal(p->nmeta, 1);
    assert_string_equal(get_meta(p, "k")->text, "v");
    assert_int_equal(p->nwarnings, 1);
    assert_true(has_warning(p, "junk", "ignored"));
    assert_true(has_warning(p, "nested_names.h5", NULL));
    profile_free(p);
}

static void test_int_types(void **state)
{
    (void)state;
    profile *p = load_fixture("int_types.h5");
    print_warnings(p);
    assert_int_equal(p->nwarnings, 0);
    static const char *const names[] = {"i32", "u16", "u8", "i16be"};
    for (size_t i = 0; i < 4; i++) {
        region *r = get_region(p, 0, names[i]);
        COL(r->start_ns, r->n, 1, 2, 3);
        COL(r->end_ns, r->n, 4, 5, 6);
    }
    region *r = get_region(p, 0, "boolthr");
    COL(r->start_ns, r->n, 1);
    COL(r->end_ns, r->n, 2);
    COL(r->thread_ids, r->n, 0);
    assert_false(profile_rank(p, 0)->has_threads);
    profile_free(p);
}

static void test_strings_fixed(void **state)
{
    (void)state;
    profile *p = load_fixture("strings_fixed.h5");
    print_warnings(p);
    assert_int_equal(p->nwarnings, 0);
    region *r = get_region(p, 0, "r");
    COL(r->start_ns, r->n, 0);
    COL(r->end_ns, r->n, 1);
    assert_string_equal(r->source_file, "a.py");
    STRS(r->tags, r->ntags, "x", "yy");
    rank_data *rk = profile_rank(p, 0);
    assert_true(rk->has_threads);
    STRS(rk->threads.name, rk->threads.n, "Main");
    char buf[32];
    assert_string_equal(rank_thread_name(rk, 0, buf, sizeof buf), "Main");
    profile_free(p);
}

static void test_legacy_small(void **state)
{
    (void)state;
    profile *p = load_fixture("legacy_small.h5");
    assert_int_equal(p->nwarnings, 0);
    assert_true(p->legacy);
    assert_int_equal(p->nregions, 3);
    region *r = get_region(p, 0, "a");
    COL(r->start_ns, r->n, 0, 100);
    COL(r->end_ns, r->n, 1000, 200);
    r = get_region(p, 0, "b");
    COL(r->start_ns, r->n, 10, 300, 300);
    COL(r->end_ns, r->n, 50, 400, 400);
    r = get_region(p, 0, "c");
    COL(r->start_ns, r->n, 40, 900);
    COL(r->end_ns, r->n, 60, 1200);
    for (size_t i = 0; i < p->nregions; i++) {
        r = p->regions[i];
        assert_null(r->call_ids);
        assert_null(r->parent_ids);
        assert_null(r->thread_ids);
        assert_null(r->task_ids);
        assert_null(r->await_ns);
        assert_null(r->gpu_ns);
        assert_null(r->event_meta);
        assert_null(r->source_file);
        assert_int_equal(r->ntags, 0);
    }
    assert_true(p->has_min_start);
    assert_int_equal(p->min_start_ns, 0);
    profile_free(p);
}

static void test_legacy_empty_region(void **state)
{
    (void)state;
    profile *p = load_fixture("legacy_empty_region.h5");
    assert_int_equal(p->nwarnings, 0);
    region *r = get_region(p, 0, "empty");
    assert_true(r->has_event_data);
    assert_int_equal(r->n, 0);
    r = get_region(p, 0, "one");
    COL(r->start_ns, r->n, 5);
    COL(r->end_ns, r->n, 5);
    profile_free(p);
}

/* ------------------------------------------------------------ edges */

static void test_missing_and_directory(void **state)
{
    (void)state;
    profile *p = (profile *)&p; /* must be reset to NULL */
    sv_error err;
    sv_err e = profile_load("/nonexistent/dir/x.h5", NULL, &p, &err);
    assert_int_equal(e, SV_ERR_IO);
    assert_int_equal(err.code, SV_ERR_IO);
    assert_null(p);
    assert_non_null(strstr(err.msg, "/nonexistent/dir/x.h5"));
    assert_int_equal(sv_err_exit_status(e), 1);

    /* A directory is a run of native traces and rank files: one without any is refused. */
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/sv-empty.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    assert_non_null(mkdtemp(dir));
    e = profile_load(dir, NULL, &p, &err);
    rmdir(dir);
    assert_int_equal(e, SV_ERR_IO);
    assert_non_null(strstr(err.msg, "a directory without native traces"));
    assert_null(p);

    assert_int_equal(profile_load(NULL, NULL, &p, &err), SV_ERR_USAGE);
}

typedef struct progress_log {
    size_t calls;
    uint64_t last_done, last_total;
    bool monotonic;
} progress_log;

static void on_progress(void *ctx, uint64_t done, uint64_t total)
{
    progress_log *l = ctx;
    if (done < l->last_done || done > total)
        l->monotonic = false;
    l->calls++;
    l->last_done = done;
    l->last_total = total;
}

static void test_progress(void **state)
{
    (void)state;
    char path[4096];
    sv_fixture_path(path, sizeof path, "small.h5");
    if (!sv_file_exists(path))
        fail_msg("fixture %s is missing: run 'make check' first", path);
    uint64_t sum, size;
    assert_true(sv_file_checksum(path, &sum, &size));
    progress_log log = {0, 0, 0, true};
    load_options opt = {.progress = on_progress, .progress_ctx = &log};
    profile *p = NULL;
    sv_error err;
    assert_int_equal(profile_load(path, &opt, &p, &err), SV_OK);
    assert_true(log.calls >= 2);
    assert_true(log.monotonic);
    assert_int_equal(log.last_total, size);
    assert_int_equal(log.last_done, size);
    assert_int_equal(p->file_size, size);
    assert_string_equal(p->path, path);
    profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shared_real),
        cmocka_unit_test(test_shared_extended),
        cmocka_unit_test(test_shared_solver),
        cmocka_unit_test(test_shared_gpu_train),
        cmocka_unit_test(test_shared_async_server),
        cmocka_unit_test(test_small),
        cmocka_unit_test(test_nested_names),
        cmocka_unit_test(test_int_types),
        cmocka_unit_test(test_strings_fixed),
        cmocka_unit_test(test_legacy_small),
        cmocka_unit_test(test_legacy_empty_region),
        cmocka_unit_test(test_missing_and_directory),
        cmocka_unit_test(test_progress),
    };
    return sv_shared_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
