/* The profiles today's scope-profiler writes (../shared/data/upstream: schema
 * 1, 2 and 3, columnar, aggregate, fixed strings, a C-API rank file) against
 * statistics computed independently with numpy (upstream/expected), to a
 * relative 1e-9; the three upstream compatibility fixtures give the same
 * calls; the layout's own values (stored exclusive totals, thread names,
 * nesting from ids) where the expected files note them. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "json_min.h"
#include "load/loader.h"
#include "model/region.h"
#include "expected_check.h"
#include "testutil.h"

static const char *upstream_dir(char *buf, size_t len)
{
    const char *env = getenv("SV_SHARED_DIR");
    snprintf(buf, len, "%s/data/upstream", env ? env : SV_TOP_SRCDIR "/../shared");
    return buf;
}

/* The notes under _debug that the model can answer. */
static void check_debug(const region *r, const jm_node *exp)
{
    const jm_node *d = jm_get(exp, "_debug"), *v;
    double x;
    if (!d)
        return;
    if ((v = jm_get(d, "exclusive_stored_ns"))) {
        assert_int_equal(r->has_stored_exclusive, !jm_is_null(v));
        if (jm_number(v, &x))
            assert_int_equal(r->stored_exclusive_ns, (int64_t)x);
    }
    if ((v = jm_get(d, "nesting")) && jm_string(v))
        assert_int_equal(r->owner->explicit_ids, strcmp(jm_string(v), "explicit") == 0);
    if ((v = jm_get(d, "thread_names")))
        for (size_t i = 0; i < v->count; i++) {
            const rank_data *rk = r->owner;
            bool found = false;
            for (size_t t = 0; rk->threads.name && t < rk->threads.n; t++)
                found |= strcmp(rk->threads.name[t], jm_string(jm_at(v, i))) == 0;
            if (!found)
                fail_msg("%s: thread %s not in the thread table", r->name, jm_string(jm_at(v, i)));
        }
}

static profile *load_upstream(const char *base)
{
    char dir[512], h5[768];
    upstream_dir(dir, sizeof dir);
    snprintf(h5, sizeof h5, "%s/%s.h5", dir, base);
    struct stat st;
    if (stat(h5, &st) != 0) {
        print_message("SKIP: shared data not found (%s)\n", h5);
        skip();
    }
    profile *p;
    sv_error err;
    if (profile_load(h5, NULL, &p, &err) != SV_OK)
        fail_msg("load %s: %s", h5, err.msg);
    return p;
}

static void check_profile(profile *p, const char *base, size_t num_ranks, int schema,
                          profile_layout layout);

static void check_file(const char *base, size_t num_ranks, int schema, profile_layout layout)
{
    check_profile(load_upstream(base), base, num_ranks, schema, layout);
}

/* The profile's regions against expected/BASE.json (frees p). */
static void check_profile(profile *p, const char *base, size_t num_ranks, int schema,
                          profile_layout layout)
{
    char dir[512], js[768];
    upstream_dir(dir, sizeof dir);
    snprintf(js, sizeof js, "%s/expected/%s.json", dir, base);
    size_t len = 0;
    char *text = sv_slurp(js, &len), msg[128];
    assert_non_null(text);
    jm_node *exp = jm_parse(text, len, msg, sizeof msg);
    free(text);
    if (!exp)
        fail_msg("%s: %s", js, msg);
    for (size_t i = 0; i < p->nwarnings; i++)
        print_message("warning: %s\n", p->warnings[i]);
    assert_int_equal(p->nwarnings, 0);
    assert_int_equal(p->nranks, num_ranks);
    if (layout != LAYOUT_NATIVE)
        assert_int_equal(p->schema, schema);
    assert_int_equal(p->layout, layout);
    assert_int_equal(p->nregions, exp->count);
    for (size_t i = 0; i < exp->count; i++) {
        const jm_node *e = jm_at(exp, i);
        double rank;
        assert_true(jm_number(jm_get(e, "rank"), &rank));
        rank_data *rk = profile_rank(p, (int)rank);
        assert_non_null(rk);
        const region *r = rank_region(rk, jm_string(jm_get(e, "name")));
        if (!r)
            fail_msg("%s: region %s rank %d not loaded", base, jm_string(jm_get(e, "name")),
                     (int)rank);
        for (int id = 0; id < RSTAT_COUNT; id++)
            ec_stat(r, e, (region_stat_id)id);
        ec_threads(r, e);
        ec_attrs(r, e);
        check_debug(r, e);
    }
    jm_free(exp);
    profile_free(p);
}

#define FILE_TEST(fn, base, nr, schema, layout)                                                    \
    static void fn(void **s)                                                                       \
    {                                                                                              \
        (void)s;                                                                                   \
        check_file(base, nr, schema, layout);                                                      \
    }

FILE_TEST(test_schema1, "hdf5-schema-1", 1, 1, LAYOUT_GROUPS)
FILE_TEST(test_schema2, "hdf5-schema-2", 1, 2, LAYOUT_COLUMNAR)
FILE_TEST(test_schema3, "hdf5-schema-3", 1, 3, LAYOUT_COLUMNAR)
FILE_TEST(test_sp2_basic, "sp2-basic", 1, 2, LAYOUT_COLUMNAR)
FILE_TEST(test_sp2_capi, "sp2-c-api_rank00000", 1, 2, LAYOUT_COLUMNAR)
FILE_TEST(test_sp3_aggregate, "sp3-aggregate", 2, 3, LAYOUT_AGGREGATE)
FILE_TEST(test_sp3_basic, "sp3-basic", 1, 3, LAYOUT_COLUMNAR)
FILE_TEST(test_sp3_gpu, "sp3-gpu", 1, 3, LAYOUT_COLUMNAR)
FILE_TEST(test_sp3_fixedstr, "sp3-parallel-fixedstr", 2, 3, LAYOUT_COLUMNAR)
FILE_TEST(test_sp3_threads, "sp3-threads-async", 1, 3, LAYOUT_COLUMNAR)

/* native/DIR, opened as its directory and as its files named one by one
 * (in reverse order): both against expected/native-DIR.json. */
static void check_native(const char *sub, size_t num_ranks, int schema, profile_layout layout)
{
    char dir[512], path[768], base[128];
    upstream_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/native/%s", dir, sub);
    snprintf(base, sizeof base, "native-%s", sub);
    struct stat st;
    if (stat(path, &st) != 0) {
        print_message("SKIP: shared data not found (%s)\n", path);
        skip();
    }
    const char *one = path;
    char **files;
    size_t n;
    sv_error err;
    assert_int_equal(profile_run_paths(&one, 1, &files, &n, &err), SV_OK);
    for (int pass = 0; pass < 2; pass++) {
        const char *rev[8];
        assert_true(n <= 8);
        for (size_t i = 0; i < n; i++)
            rev[i] = files[n - 1 - i];
        profile *p;
        if (pass == 0 ? profile_load(path, NULL, &p, &err)
                      : profile_load_set(rev, n, NULL, &p, &err))
            fail_msg("load %s: %s", path, err.msg);
        assert_int_equal(p->npaths, n);
        check_profile(p, base, num_ranks, schema, layout);
    }
    profile_run_paths_free(files, n);
}

static void test_native_mpi4(void **s)
{
    (void)s;
    check_native("solver_mpi4", 4, 0, LAYOUT_NATIVE);
}

static void test_native_v1_be(void **s)
{
    (void)s;
    check_native("solver_v1_be", 1, 0, LAYOUT_NATIVE);
}

static void test_native_mixed(void **s)
{
    (void)s;
    check_native("mixed", 2, 2, LAYOUT_COLUMNAR);
}

/* Upstream's compatibility fixtures: one run, three schemas, the same calls. */
static void test_same_calls(void **s)
{
    (void)s;
    static const char *const files[] = {"hdf5-schema-1", "hdf5-schema-2", "hdf5-schema-3"};
    static const int64_t starts[] = {10, 20, 40}, ends[] = {15, 33, 55};
    for (size_t k = 0; k < 3; k++) {
        profile *p = load_upstream(files[k]);
        assert_int_equal(p->nregions, 1);
        const region *r = p->regions[0];
        assert_string_equal(r->name, "solve");
        assert_int_equal(r->rank, 0);
        assert_int_equal(r->n, 3);
        for (size_t i = 0; i < 3; i++) {
            assert_int_equal(r->start_ns[i], starts[i]);
            assert_int_equal(r->end_ns[i], ends[i]);
        }
        assert_true(r->has_lineno);
        assert_int_equal(r->source_lineno, 7);
        assert_int_equal(r->ntags, 1);
        assert_string_equal(r->tags[0], "golden");
        profile_free(p);
    }
}

/* Every region of a and b holds the same calls (name, rank, times). */
static void same_calls(const char *a, const char *b)
{
    char pa[1024], pb[1024];
    profile *x, *y;
    sv_error err;
    if (profile_load(sv_fixture_path(pa, sizeof pa, a), NULL, &x, &err) != SV_OK)
        fail_msg("load %s: %s", a, err.msg);
    if (profile_load(sv_fixture_path(pb, sizeof pb, b), NULL, &y, &err) != SV_OK)
        fail_msg("load %s: %s", b, err.msg);
    assert_int_equal(x->nregions, y->nregions);
    for (size_t i = 0; i < x->nregions; i++) {
        const region *r = x->regions[i];
        const region *q = rank_region(profile_rank(y, r->rank), r->name);
        if (!q)
            fail_msg("%s: region %s of rank %d missing", b, r->name, r->rank);
        assert_int_equal(r->n, q->n);
        for (size_t k = 0; k < r->n; k++) {
            assert_int_equal(r->start_ns[k], q->start_ns[k]);
            assert_int_equal(r->end_ns[k], q->end_ns[k]);
        }
    }
    profile_free(x);
    profile_free(y);
}

/* The generator's runs written in several layouts (svgen fixtures): schema
 * 2 with absolute times and schema 3 with gap-encoded ones, gzip and odd
 * chunks, fixed-length strings: every layout decodes the same calls. */
static void test_generated_same_calls(void **s)
{
    (void)s;
    same_calls("col2_full.h5", "col3_full.h5");
    same_calls("exp_s3.h5", "exp_s2_gzip.h5");
    same_calls("exp_s3.h5", "exp_s3_fixed.h5");
}

/* Columns the expected files do not spell out: lanes, await, metadata. */
static void test_threads_async_columns(void **s)
{
    (void)s;
    profile *p = load_upstream("sp3-threads-async");
    rank_data *rk = profile_rank(p, 0);
    assert_true(rk->has_threads);
    assert_int_equal(rk->threads.n, 4);
    assert_string_equal(rk->threads.name[1], "ThreadPoolExecutor-0_0");
    assert_int_equal(rk->threads.end_ns[0], -1);
    assert_int_equal(rk->threads.daemon[1], 1);
    assert_int_equal(rk->threads.cpu_ns[0], 81000000);
    assert_true(rk->has_tasks);
    assert_int_equal(rk->tasks.n, 6);
    assert_string_equal(rk->tasks.name[0], "Task-2");
    assert_string_equal(rk->tasks.coro_name[0], "fetch_page");
    assert_string_equal(rk->tasks.kind[0], "task");
    assert_int_equal(rk->tasks.done_ns[5], -1);
    assert_int_equal(rk->tasks.suspended_ns[0], 1800000);
    const region *fetch = rank_region(rk, "fetch");
    assert_non_null(fetch->task_ids);
    assert_int_equal(fetch->task_ids[0], 0);
    assert_non_null(fetch->await_ns);
    assert_int_equal(fetch->await_ns[0], 1800000);
    assert_non_null(fetch->event_meta);
    assert_string_equal(fetch->event_meta[0], "{\"url\": \"https://example.invalid/page/0\"}");
    const region *main_r = rank_region(rk, "main");
    assert_null(main_r->event_meta); /* "[]" */
    assert_int_equal(main_r->task_ids[0], -1);
    profile_free(p);
}

static void test_basic_source_meta(void **s)
{
    (void)s;
    profile *p = load_upstream("sp3-basic");
    const region *r = rank_region(profile_rank(p, 0), "solve");
    assert_non_null(r->source_text);
    assert_non_null(strstr(r->source_text, "with sp.region(\"solve\""));
    assert_int_equal(r->ntags, 2);
    assert_string_equal(r->tags[1], "golden");
    assert_non_null(r->event_meta);
    assert_string_equal(r->event_meta[0], "{\"step\": 0, \"cg_iterations\": 38}");
    const region *io = rank_region(profile_rank(p, 0), "io/checkpoint");
    assert_string_equal(io->event_meta[1], "{\"step\": 19, \"bytes\": 8388608}");
    assert_true(r->has_stored_summary);
    assert_true(p->ranks[0].explicit_ids);
    profile_free(p);
}

/* The C API writes every exclusive total as -1: computed, not stored. */
static void test_capi_native(void **s)
{
    (void)s;
    profile *p = load_upstream("sp2-c-api_rank00000");
    for (size_t i = 0; i < p->nregions; i++) {
        assert_false(p->regions[i]->has_stored_exclusive);
        assert_null(p->regions[i]->call_ids);
    }
    assert_string_equal(profile_meta(p, "source"), "native");
    profile_free(p);
}

/* --summary's fast open: the index's summaries, no event column read. */
static void test_stored_statistics(void **s)
{
    (void)s;
    char dir[512], h5[768];
    upstream_dir(dir, sizeof dir);
    snprintf(h5, sizeof h5, "%s/sp3-basic.h5", dir);
    struct stat st;
    if (stat(h5, &st) != 0)
        skip();
    load_options lo = {.stored_statistics = true};
    profile *p, *full;
    sv_error err;
    assert_int_equal(profile_load(h5, &lo, &p, &err), SV_OK);
    assert_int_equal(profile_load(h5, NULL, &full, &err), SV_OK);
    assert_int_equal(p->nregions, full->nregions);
    static const region_stat_id same[] = {
        RSTAT_TOTAL, RSTAT_MEAN, RSTAT_MIN,         RSTAT_MAX,      RSTAT_STD,
        RSTAT_FIRST, RSTAT_LAST, RSTAT_FIRST_START, RSTAT_LAST_END, RSTAT_EXCLUSIVE};
    for (size_t i = 0; i < p->nregions; i++) {
        const region *r = p->regions[i];
        const region *f = rank_region(profile_rank(full, r->rank), r->name);
        assert_false(r->has_event_data);
        assert_int_equal(region_num_calls(r), region_num_calls(f));
        for (size_t k = 0; k < sizeof same / sizeof same[0]; k++) {
            double a, b;
            assert_true(region_stat(r, same[k], &a));
            assert_true(region_stat(f, same[k], &b));
            ec_close(region_stat_names[same[k]], r, a, b);
        }
        double x;
        assert_false(region_stat(r, RSTAT_P50, &x)); /* needs the events */
    }
    profile_free(p);
    profile_free(full);
    /* The await column needs the events: the fast open reads them. */
    snprintf(h5, sizeof h5, "%s/sp3-threads-async.h5", dir);
    assert_int_equal(profile_load(h5, &lo, &p, &err), SV_OK);
    assert_true(p->regions[0]->has_event_data);
    profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_schema1),           cmocka_unit_test(test_schema2),
        cmocka_unit_test(test_schema3),           cmocka_unit_test(test_sp2_basic),
        cmocka_unit_test(test_sp2_capi),          cmocka_unit_test(test_sp3_aggregate),
        cmocka_unit_test(test_sp3_basic),         cmocka_unit_test(test_sp3_gpu),
        cmocka_unit_test(test_sp3_fixedstr),      cmocka_unit_test(test_sp3_threads),
        cmocka_unit_test(test_same_calls),        cmocka_unit_test(test_threads_async_columns),
        cmocka_unit_test(test_basic_source_meta), cmocka_unit_test(test_capi_native),
        cmocka_unit_test(test_stored_statistics), cmocka_unit_test(test_generated_same_calls),
        cmocka_unit_test(test_native_mpi4),       cmocka_unit_test(test_native_v1_be),
        cmocka_unit_test(test_native_mixed),
    };
    return sv_shared_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
