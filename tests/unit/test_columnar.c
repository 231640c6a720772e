/* The columnar layouts on the generator's fixtures (tests/gen/FIXTURES.md,
 * values by hand there): every optional column, schema 2 and 3 alike, the
 * aggregate layout, fixed-length strings with uint64 index columns, the
 * C API's file set, and each fault: its message, and what still loads.
 * Small files written here cover the root attribute's bad values and an
 * index value beyond 2^63. */
#include <hdf5.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "load/jsontext.h"
#include "load/loader.h"
#include "model/region.h"
#include "testutil.h"

static const char *fx(char *buf, size_t len, const char *name)
{
    sv_fixture_path(buf, len, name);
    if (!sv_file_exists(buf))
        fail_msg("fixture %s is missing: run 'make check' so svgen writes tests/fixtures", buf);
    return buf;
}

static profile *load_ok(const char *name)
{
    char path[1024];
    profile *p;
    sv_error err;
    if (profile_load(fx(path, sizeof path, name), NULL, &p, &err) != SV_OK)
        fail_msg("load %s: %s", name, err.msg);
    return p;
}

static void load_fails(const char *name, sv_err code, const char *want)
{
    char path[1024];
    profile *p = NULL;
    sv_error err;
    assert_int_equal(profile_load(fx(path, sizeof path, name), NULL, &p, &err), code);
    assert_null(p);
    if (!strstr(err.msg, want))
        fail_msg("message '%s' lacks '%s'", err.msg, want);
    assert_int_equal(sv_err_exit_status(code), 1);
}

static region *get(const profile *p, int rank, const char *name)
{
    rank_data *rk = profile_rank(p, rank);
    region *r = rk ? rank_region(rk, name) : NULL;
    if (!r)
        fail_msg("no region %s on rank %d", name, rank);
    return r;
}

static bool has_region(const profile *p, int rank, const char *name)
{
    rank_data *rk = profile_rank(p, rank);
    return rk && rank_region(rk, name);
}

/* The one warning of p contains every needle. */
static void one_warning(const profile *p, const char *a, const char *b)
{
    for (size_t i = 0; i < p->nwarnings; i++)
        print_message("warning: %s\n", p->warnings[i]);
    assert_int_equal(p->nwarnings, 1);
    if (!strstr(p->warnings[0], a) || (b && !strstr(p->warnings[0], b)))
        fail_msg("warning '%s' lacks '%s' / '%s'", p->warnings[0], a, b ? b : "");
}

static void check_i64(const int64_t *v, const int64_t *want, size_t n)
{
    assert_non_null(v);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(v[i], want[i]);
}

static double stat(const region *r, region_stat_id id)
{
    double s = -1;
    if (!region_stat(r, id, &s))
        fail_msg("%s rank %d: %s unknown", r->name, r->rank, region_stat_names[id]);
    return s * 1e9;
}

/* The calls of col3_full (and col2_full): FIXTURES.md's table. */
static void check_full_calls(const profile *p, bool lanes)
{
    assert_int_equal(p->nranks, 2);
    assert_int_equal(p->nregions, 4);
    assert_true(p->has_min_start);
    assert_int_equal(p->min_start_ns, 100);
    region *o = get(p, 0, "outer"), *in = get(p, 0, "inner");
    check_i64(in->start_ns, (int64_t[]){150, 600, 300}, 3); /* a negative delta decoded */
    check_i64(in->end_ns, (int64_t[]){250, 700, 350}, 3);
    check_i64(o->start_ns, (int64_t[]){100, 500}, 2);
    check_i64(in->call_ids, (int64_t[]){2, 5, 3}, 3);
    check_i64(in->parent_ids, (int64_t[]){1, 4, -1}, 3);
    check_i64(in->gpu_ns, (int64_t[]){40, -1, 20}, 3);
    assert_null(o->gpu_ns); /* -1 everywhere: no GPU timing */
    assert_float_equal(stat(o, RSTAT_TOTAL), 700, 1e-6);
    assert_float_equal(stat(o, RSTAT_MEAN), 350, 1e-6);
    assert_float_equal(stat(o, RSTAT_STD), 50, 1e-6);
    assert_float_equal(stat(o, RSTAT_EXCLUSIVE), 500, 1e-6);
    assert_float_equal(stat(in, RSTAT_TOTAL), 250, 1e-6);
    assert_float_equal(stat(in, RSTAT_GPU_TOTAL), 60, 1e-6);
    assert_float_equal(stat(get(p, 1, "outer"), RSTAT_EXCLUSIVE), 300, 1e-6);
    assert_true(o->has_stored_exclusive);
    assert_int_equal(o->stored_exclusive_ns, 500);
    assert_string_equal(o->source_file, "app.py");
    assert_int_equal(o->source_lineno, 10);
    assert_string_equal(o->source_text, "def outer():\n    inner()\n");
    assert_null(in->source_text); /* "" = not captured */
    assert_int_equal(o->ntags, 2);
    assert_string_equal(o->tags[1], "io");
    assert_int_equal(get(p, 1, "solve")->ntags, 0);
    assert_true(o->has_stored_summary);
    assert_float_equal(o->stored.v[SUM_STD], 50, 1e-9);
    assert_float_equal(o->stored.v[SUM_LAST_END], 900, 0);
    if (!lanes)
        return;
    check_i64(o->await_ns, (int64_t[]){120, 0}, 2);
    assert_float_equal(stat(o, RSTAT_AWAIT_TOTAL), 120, 1e-6);
    check_i64(in->thread_ids, (int64_t[]){0, 0, 1}, 3);
    check_i64(o->task_ids, (int64_t[]){0, -1}, 2);
    rank_data *r0 = profile_rank(p, 0), *r1 = profile_rank(p, 1);
    assert_int_equal(r0->threads.n, 2);
    assert_string_equal(r0->threads.name[1], "worker-1");
    assert_int_equal(r0->threads.daemon[1], 1);
    assert_int_equal(r0->threads.end_ns[0], -1);
    assert_int_equal(r0->threads.cpu_ns[1], 400);
    assert_int_equal(r1->threads.n, 1);
    assert_int_equal(r1->threads.ident[0], 21);
    assert_int_equal(r0->tasks.n, 1);
    assert_string_equal(r0->tasks.coro_name[0], "handler");
    assert_int_equal(r0->tasks.suspended_ns[0], 350);
    assert_false(r1->has_tasks);
}

static void test_col3_full(void **s)
{
    (void)s;
    profile *p = load_ok("col3_full.h5");
    assert_int_equal(p->nwarnings, 0);
    assert_int_equal(p->schema, 3);
    assert_int_equal(p->layout, LAYOUT_COLUMNAR);
    check_full_calls(p, true);
    region *in = get(p, 0, "inner");
    assert_non_null(in->event_meta);
    assert_string_equal(in->event_meta[0], "{}");
    assert_string_equal(in->event_meta[1], "{\"k\": \"v\"}");
    assert_null(get(p, 1, "outer")->event_meta); /* "[]" */
    assert_string_equal(profile_meta(p, "hostname"), "fixhost");
    profile_free(p);
}

static void test_col2_full(void **s)
{
    (void)s;
    profile *p = load_ok("col2_full.h5");
    assert_int_equal(p->nwarnings, 0);
    assert_int_equal(p->schema, 2);
    check_full_calls(p, true);
    assert_null(get(p, 0, "inner")->event_meta);
    profile_free(p);
}

/* Fixed-length strings, uint64 index, chunked deflate + shuffle. */
static void test_col3_fixedstr(void **s)
{
    (void)s;
    profile *p = load_ok("col3_fixedstr.h5");
    assert_int_equal(p->nwarnings, 0);
    check_full_calls(p, false);
    assert_null(get(p, 0, "outer")->thread_ids);
    assert_string_equal(get(p, 0, "inner")->event_meta[1], "{\"k\": \"v\"}");
    profile_free(p);
}

static void test_col3_aggregate(void **s)
{
    (void)s;
    profile *p = load_ok("col3_aggregate.h5");
    assert_int_equal(p->nwarnings, 0); /* 0-row columns are not errors */
    assert_int_equal(p->layout, LAYOUT_AGGREGATE);
    assert_int_equal(p->nregions, 4);
    region *in = get(p, 0, "inner");
    assert_false(in->has_event_data);
    assert_int_equal(region_num_calls(in), 3);
    assert_float_equal(stat(in, RSTAT_TOTAL), 250, 1e-6);
    assert_float_equal(stat(in, RSTAT_MEAN), 250.0 / 3, 1e-6);
    assert_float_equal(stat(in, RSTAT_MIN), 50, 1e-6);
    assert_float_equal(stat(in, RSTAT_MAX), 100, 1e-6);
    assert_float_equal(stat(get(p, 1, "solve"), RSTAT_EXCLUSIVE), 300, 1e-6);
    double x;
    assert_false(region_stat(in, RSTAT_STD, &x));
    assert_false(region_stat(in, RSTAT_P50, &x));
    profile_free(p);
}

static void test_col3_schema4(void **s)
{
    (void)s;
    load_fails("col3_schema4.h5", SV_ERR_FORMAT, "scope_profiler_schema 4 is newer");
}

static void test_col3_noregion(void **s)
{
    (void)s;
    load_fails("col3_noregion.h5", SV_ERR_FORMAT,
               "no rank_region_index (top-level groups: junk, metadata, rank0, rank1)");
}

/* A filter this libhdf5 lacks: that column goes, with the fix; all else loads. */
static void test_col3_nofilter(void **s)
{
    (void)s;
    profile *p = load_ok("col3_nofilter.h5");
    one_warning(p, "dataset events/gpu_durations: compressed with filter 40000, which",
                "h5repack -f NONE in.h5 out.h5");
    assert_int_equal(p->nregions, 4);
    assert_null(get(p, 0, "inner")->gpu_ns);
    check_i64(get(p, 0, "inner")->call_ids, (int64_t[]){2, 5, 3}, 3);
    assert_float_equal(stat(get(p, 0, "outer"), RSTAT_AWAIT_TOTAL), 120, 1e-6);
    profile_free(p);
}

static void test_col3_truncated(void **s)
{
    (void)s;
    profile *p = load_ok("col3_truncated.h5");
    assert_int_equal(p->nwarnings, 2);
    assert_non_null(strstr(p->warnings[0], "dataset events/durations: 6 elements"));
    assert_non_null(strstr(p->warnings[1], "region solve"));
    assert_non_null(strstr(p->warnings[1], "run past the end of events/durations (6 events)"));
    assert_int_equal(p->nregions, 3);
    assert_false(has_region(p, 1, "solve"));
    check_i64(get(p, 1, "outer")->end_ns, (int64_t[]){1600}, 1);
    check_i64(get(p, 0, "inner")->end_ns, (int64_t[]){250, 700, 350}, 3);
    profile_free(p);
}

static void test_col3_overlap(void **s)
{
    (void)s;
    profile *p = load_ok("col3_overlap.h5");
    one_warning(p, "region inner", "events 1..4 overlap those of region outer (rank 0");
    assert_false(has_region(p, 0, "inner"));
    assert_int_equal(p->nregions, 3);
    check_i64(get(p, 0, "outer")->end_ns, (int64_t[]){400, 900}, 2);
    profile_free(p);
}

static void test_col3_pastend(void **s)
{
    (void)s;
    profile *p = load_ok("col3_pastend.h5");
    one_warning(p, "region solve", "events 6..13 run past the end of events/start_deltas (8");
    assert_false(has_region(p, 1, "solve"));
    assert_int_equal(p->nregions, 3);
    profile_free(p);
}

static void test_col3_badthread(void **s)
{
    (void)s;
    profile *p = load_ok("col3_badthread.h5");
    one_warning(p, "region inner: dataset events/thread_ids",
                "thread 7 at call 1 is outside the thread table of rank 0 (2 rows)");
    region *in = get(p, 0, "inner");
    assert_null(in->thread_ids);
    check_i64(in->start_ns, (int64_t[]){150, 600, 300}, 3);
    check_i64(get(p, 0, "outer")->thread_ids, (int64_t[]){0, 0}, 2);
    profile_free(p);
}

static void capi_paths(char bufs[3][1024], const char *paths[3])
{
    static const char *const names[] = {"capi_rank00000.h5", "capi_rank00001.h5",
                                        "capi_rank00003.h5"};
    for (int i = 0; i < 3; i++)
        paths[i] = fx(bufs[i], sizeof bufs[i], names[i]);
}

static void test_capi_set(void **s)
{
    (void)s;
    char bufs[3][1024];
    const char *paths[3];
    capi_paths(bufs, paths);
    profile *p;
    sv_error err;
    assert_int_equal(profile_load_set(paths, 3, NULL, &p, &err), SV_OK);
    one_warning(p, "the set has no file for rank 2 (of 0..3)", "capi_rank00000.h5");
    assert_int_equal(p->npaths, 3);
    assert_string_equal(p->paths[2], paths[2]);
    assert_int_equal(p->nranks, 3);
    assert_int_equal(p->ranks[2].rank, 3);
    assert_int_equal(p->nregions, 5);
    assert_string_equal(get(p, 3, "outer")->source_file, "app.c");
    assert_int_equal(get(p, 3, "outer")->source_lineno, 12);
    /* No ids: nesting inferred; the worker's call cannot be told apart. */
    assert_float_equal(stat(get(p, 0, "outer"), RSTAT_EXCLUSIVE), 450, 1e-6);
    assert_false(get(p, 0, "outer")->has_stored_exclusive);
    assert_float_equal(stat(get(p, 1, "solve"), RSTAT_TOTAL), 300, 1e-6);
    assert_true(p->has_min_start);
    assert_int_equal(p->min_start_ns, 100);
    assert_string_equal(profile_meta(p, "mpi_rank"), "0"); /* the first file's metadata */
    assert_int_equal(p->nmeta, 7);
    profile_free(p);
    /* The same rank twice: the later file is skipped. */
    const char *twice[2] = {paths[1], paths[1]};
    assert_int_equal(profile_load_set(twice, 2, NULL, &p, &err), SV_OK);
    assert_int_equal(p->nwarnings, 2); /* and rank 0 missing */
    assert_non_null(strstr(p->warnings[0], "rank 1 came already from another file; file skipped"));
    assert_non_null(strstr(p->warnings[1], "no file for rank 0 (of 0..1)"));
    assert_int_equal(p->nregions, 2);
    profile_free(p);
    /* One file of the set opens alone, as its own rank only. */
    assert_int_equal(profile_load(paths[2], NULL, &p, &err), SV_OK);
    assert_int_equal(p->nwarnings, 0);
    assert_int_equal(p->nranks, 1);
    assert_int_equal(p->ranks[0].rank, 3);
    profile_free(p);
    /* A schema-1 file cannot join a set. */
    char legacy[1024];
    const char *mixed[2] = {paths[0], fx(legacy, sizeof legacy, "small.h5")};
    assert_int_equal(profile_load_set(mixed, 2, NULL, &p, &err), SV_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "small.h5: schema 1 file"));
}

/* ------------------------------------------------------------ files written here */

static void tmp_path(char *buf, size_t len, const char *tag)
{
    snprintf(buf, len, "/tmp/sv-columnar-%ld-%s.h5", (long)getpid(), tag);
}

static void put_u64(hid_t loc, const char *name, const uint64_t *v, hsize_t n)
{
    hid_t sp = H5Screate_simple(1, &n, NULL);
    hid_t d = H5Dcreate2(loc, name, H5T_STD_U64LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
    H5Dclose(d);
    H5Sclose(sp);
}

static void put_i64(hid_t loc, const char *name, const int64_t *v, hsize_t n)
{
    hid_t sp = H5Screate_simple(1, &n, NULL);
    hid_t d = H5Dcreate2(loc, name, H5T_STD_I64LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
    H5Dclose(d);
    H5Sclose(sp);
}

/* A two-row schema-3 file: rows "a" (events 0..2) and "b" (offset given). */
static void write_small(const char *path, uint64_t b_offset, hid_t schema_type, const void *schema,
                        const char *bname, bool huge_gpu)
{
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(f, "scope_profiler_schema", schema_type, sp, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, schema_type, schema);
    H5Aclose(a);
    H5Sclose(sp);
    hid_t g = H5Gcreate2(f, "region_table", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t st = H5Tcopy(H5T_C_S1);
    H5Tset_size(st, H5T_VARIABLE);
    H5Tset_cset(st, H5T_CSET_UTF8);
    hsize_t two = 2;
    sp = H5Screate_simple(1, &two, NULL);
    hid_t d = H5Dcreate2(g, "names", st, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const char *names[2] = {"a", bname};
    H5Dwrite(d, st, H5S_ALL, H5S_ALL, H5P_DEFAULT, names);
    H5Dclose(d);
    H5Sclose(sp);
    H5Tclose(st);
    H5Gclose(g);
    g = H5Gcreate2(f, "rank_region_index", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    put_u64(g, "region_ids", (uint64_t[]){0, 1}, 2);
    put_u64(g, "ranks", (uint64_t[]){0, 0}, 2);
    put_u64(g, "event_offsets", (uint64_t[]){0, b_offset}, 2);
    put_u64(g, "event_counts", (uint64_t[]){2, 1}, 2);
    H5Gclose(g);
    g = H5Gcreate2(f, "events", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    put_i64(g, "start_deltas", (int64_t[]){10, 5, 40}, 3);
    put_i64(g, "durations", (int64_t[]){3, 4, 5}, 3);
    if (huge_gpu) /* uint64, the second value beyond 2^63 */
        put_u64(g, "gpu_durations", (uint64_t[]){1, UINT64_C(1) << 63, 2}, 3);
    H5Gclose(g);
    H5Fclose(f);
}

static sv_err load_small_named(uint64_t b_offset, hid_t type, const void *schema, const char *bname,
                               bool huge_gpu, profile **p, sv_error *err)
{
    char path[256];
    tmp_path(path, sizeof path, "small");
    write_small(path, b_offset, type, schema, bname, huge_gpu);
    sv_err e = profile_load(path, NULL, p, err);
    unlink(path);
    return e;
}

static sv_err load_small(uint64_t b_offset, hid_t type, const void *schema, profile **p,
                         sv_error *err)
{
    return load_small_named(b_offset, type, schema, "b", false, p, err);
}

/* The names table repeating a name: one (region, rank) pair twice. */
static void test_repeated_pair(void **s)
{
    (void)s;
    profile *p;
    sv_error err;
    int64_t three = 3;
    assert_int_equal(load_small_named(2, H5T_NATIVE_INT64, &three, "a", false, &p, &err), SV_OK);
    one_warning(p, "region a", "row 1 repeats row 0 (rank 0); row dropped");
    assert_int_equal(p->nregions, 1);
    check_i64(get(p, 0, "a")->start_ns, (int64_t[]){10, 15}, 2);
    profile_free(p);
}

static void put_str(hid_t loc, const char *name, const char *v)
{
    hid_t st = H5Tcopy(H5T_C_S1);
    H5Tset_size(st, H5T_VARIABLE);
    H5Tset_cset(st, H5T_CSET_UTF8);
    hsize_t one = 1;
    hid_t sp = H5Screate_simple(1, &one, NULL);
    hid_t d = H5Dcreate2(loc, name, st, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, st, H5S_ALL, H5S_ALL, H5P_DEFAULT, &v);
    H5Dclose(d);
    H5Sclose(sp);
    H5Tclose(st);
}

/* A row's event_metadata longer than the 1 MiB string limit is read whole:
 * 150 000 calls, one object each. */
static void test_long_event_metadata(void **s)
{
    (void)s;
    enum { N = 150000 };
    char path[256];
    tmp_path(path, sizeof path, "meta");
    int64_t *d = malloc(N * sizeof *d), *u = malloc(N * sizeof *u);
    char *meta = malloc((size_t)N * 24 + 8);
    assert_true(d && u && meta);
    size_t o = 0;
    meta[o++] = '[';
    for (int i = 0; i < N; i++) {
        d[i] = i ? 10 : 1000;
        u[i] = 5;
        o += (size_t)sprintf(meta + o, "%s{\"i\": %d}", i ? ", " : "", i);
    }
    meta[o++] = ']';
    meta[o] = '\0';
    assert_true(o > ((size_t)1 << 20));
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    int64_t three = 3;
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(f, "scope_profiler_schema", H5T_STD_I64LE, sp, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, H5T_NATIVE_INT64, &three);
    H5Aclose(a);
    H5Sclose(sp);
    hid_t g = H5Gcreate2(f, "region_table", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    put_str(g, "names", "loop");
    H5Gclose(g);
    g = H5Gcreate2(f, "rank_region_index", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    put_u64(g, "region_ids", (uint64_t[]){0}, 1);
    put_u64(g, "ranks", (uint64_t[]){0}, 1);
    put_u64(g, "event_offsets", (uint64_t[]){0}, 1);
    put_u64(g, "event_counts", (uint64_t[]){N}, 1);
    put_str(g, "event_metadata", meta);
    H5Gclose(g);
    g = H5Gcreate2(f, "events", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    put_i64(g, "start_deltas", d, N);
    put_i64(g, "durations", u, N);
    H5Gclose(g);
    H5Fclose(f);
    free(d);
    free(u);
    free(meta);
    profile *p;
    sv_error err;
    sv_err e = profile_load(path, NULL, &p, &err);
    unlink(path);
    assert_int_equal(e, SV_OK);
    assert_int_equal(p->nwarnings, 0);
    region *r = get(p, 0, "loop");
    assert_int_equal(r->n, N);
    assert_int_equal(r->start_ns[N - 1], 1000 + 10 * (int64_t)(N - 1));
    assert_non_null(r->event_meta);
    assert_string_equal(r->event_meta[N - 1], "{\"i\": 149999}");
    profile_free(p);
}

typedef struct sumrow {
    int64_t total, minimum, maximum, first, last, start_minimum, end_maximum;
    uint64_t gpu_count;
    int64_t gpu_total;
    double mean, m2;
} sumrow;

/* Adds summary_statistics (row 1's m2 given) and exclusive_totals to a
 * write_small() file: row a = calls [10,13] [15,19], row b = [40,45]. */
static void add_summaries(const char *path, double m2_b)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t g = H5Gopen2(f, "rank_region_index", H5P_DEFAULT);
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(sumrow));
    H5Tinsert(t, "total", HOFFSET(sumrow, total), H5T_NATIVE_INT64);
    H5Tinsert(t, "minimum", HOFFSET(sumrow, minimum), H5T_NATIVE_INT64);
    H5Tinsert(t, "maximum", HOFFSET(sumrow, maximum), H5T_NATIVE_INT64);
    H5Tinsert(t, "first", HOFFSET(sumrow, first), H5T_NATIVE_INT64);
    H5Tinsert(t, "last", HOFFSET(sumrow, last), H5T_NATIVE_INT64);
    H5Tinsert(t, "start_minimum", HOFFSET(sumrow, start_minimum), H5T_NATIVE_INT64);
    H5Tinsert(t, "end_maximum", HOFFSET(sumrow, end_maximum), H5T_NATIVE_INT64);
    H5Tinsert(t, "gpu_count", HOFFSET(sumrow, gpu_count), H5T_NATIVE_UINT64);
    H5Tinsert(t, "gpu_total", HOFFSET(sumrow, gpu_total), H5T_NATIVE_INT64);
    H5Tinsert(t, "mean", HOFFSET(sumrow, mean), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "m2", HOFFSET(sumrow, m2), H5T_NATIVE_DOUBLE);
    sumrow rows[2] = {{7, 3, 4, 3, 4, 10, 19, 0, 0, 3.5, 0.5},
                      {5, 5, 5, 5, 5, 40, 45, 0, 0, 5, m2_b}};
    hsize_t two = 2;
    hid_t sp = H5Screate_simple(1, &two, NULL);
    hid_t d = H5Dcreate2(g, "summary_statistics", t, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows);
    H5Dclose(d);
    H5Sclose(sp);
    H5Tclose(t);
    put_i64(g, "exclusive_totals", (int64_t[]){7, 5}, 2);
    H5Gclose(g);
    H5Fclose(f);
}

/* The fast open from the index's summaries: exact where the summaries are
 * sound; a NaN m2 (a damaged row) sends it back to the calls. */
static void test_stored_statistics_small(void **s)
{
    (void)s;
    char path[256];
    tmp_path(path, sizeof path, "sums");
    int64_t three = 3;
    load_options lo = {.stored_statistics = true};
    profile *p;
    sv_error err;
    write_small(path, 2, H5T_NATIVE_INT64, &three, "b", false);
    add_summaries(path, 0.0);
    assert_int_equal(profile_load(path, &lo, &p, &err), SV_OK);
    region *a = get(p, 0, "a");
    assert_false(a->has_event_data);
    assert_int_equal(region_num_calls(a), 2);
    assert_float_equal(stat(a, RSTAT_STD), 0.5, 1e-9); /* sqrt(0.5 / 2) */
    assert_float_equal(stat(a, RSTAT_EXCLUSIVE), 7, 0);
    assert_true(p->has_min_start);
    assert_int_equal(p->min_start_ns, 10);
    profile_free(p);
    write_small(path, 2, H5T_NATIVE_INT64, &three, "b", false);
    add_summaries(path, NAN);
    assert_int_equal(profile_load(path, &lo, &p, &err), SV_OK);
    assert_true(get(p, 0, "a")->has_event_data);
    region *b = get(p, 0, "b");
    assert_false(b->stored.known & (1u << SUM_STD)); /* NaN: unknown */
    assert_float_equal(stat(b, RSTAT_STD), 0, 0);    /* from the one call */
    profile_free(p);
    unlink(path);
}

/* A uint64 event column holding a value beyond 2^63 is refused, not clamped. */
static void test_event_beyond_int64(void **s)
{
    (void)s;
    profile *p;
    sv_error err;
    int64_t three = 3;
    assert_int_equal(load_small_named(2, H5T_NATIVE_INT64, &three, "b", true, &p, &err), SV_OK);
    one_warning(p, "dataset events/gpu_durations",
                "value 9223372036854775808 at element 1 is beyond 2^63; column dropped");
    assert_int_equal(p->nregions, 2);
    assert_null(get(p, 0, "a")->gpu_ns);
    profile_free(p);
}

/* An unsigned offset beyond 2^63 is not clamped: its row goes, by name. */
static void test_offset_beyond_int64(void **s)
{
    (void)s;
    profile *p;
    sv_error err;
    int64_t three = 3;
    assert_int_equal(load_small(UINT64_C(1) << 63, H5T_NATIVE_INT64, &three, &p, &err), SV_OK);
    one_warning(p, "region b", "events 9223372036854775808..9223372036854775809 run past");
    assert_int_equal(p->nregions, 1);
    check_i64(get(p, 0, "a")->start_ns, (int64_t[]){10, 15}, 2);
    check_i64(get(p, 0, "a")->end_ns, (int64_t[]){13, 19}, 2);
    profile_free(p);
    assert_int_equal(load_small(2, H5T_NATIVE_INT64, &three, &p, &err), SV_OK);
    assert_int_equal(p->nwarnings, 0);
    check_i64(get(p, 0, "b")->start_ns, (int64_t[]){40}, 1); /* a row's first delta is absolute */
    profile_free(p);
}

static void test_schema_attribute(void **s)
{
    (void)s;
    profile *p = NULL;
    sv_error err;
    int64_t zero = 0;
    assert_int_equal(load_small(2, H5T_NATIVE_INT64, &zero, &p, &err), SV_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "scope_profiler_schema 0 is not a schema version"));
    double two = 2.0;
    assert_int_equal(load_small(2, H5T_NATIVE_DOUBLE, &two, &p, &err), SV_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "scope_profiler_schema is not an integer"));
    hid_t b = H5Tenum_create(H5T_NATIVE_INT8);
    int8_t f = 0, t = 1;
    H5Tenum_insert(b, "FALSE", &f);
    H5Tenum_insert(b, "TRUE", &t);
    assert_int_equal(load_small(2, b, &t, &p, &err), SV_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "not an integer (a boolean)"));
    H5Tclose(b);
    assert_null(p);
}

/* ------------------------------------------------------------ columns skipped */

static void put_strs(hid_t loc, const char *name, const char *const *v, hsize_t n)
{
    hid_t st = H5Tcopy(H5T_C_S1);
    H5Tset_size(st, H5T_VARIABLE);
    hid_t sp = H5Screate_simple(1, &n, NULL);
    hid_t d = H5Dcreate2(loc, name, st, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, st, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
    H5Dclose(d);
    H5Sclose(sp);
    H5Tclose(st);
}

/* write_small's file plus call_ids (parent_ids with parents) and
 * event_metadata: "a" has two calls, "b" one. */
static void write_ids_meta(const char *path, bool parents)
{
    int64_t three = 3;
    write_small(path, 2, H5T_NATIVE_INT64, &three, "b", false);
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t g = H5Gopen2(f, "events", H5P_DEFAULT);
    put_i64(g, "call_ids", (int64_t[]){1, 2, 3}, 3);
    if (parents)
        put_i64(g, "parent_ids", (int64_t[]){-1, -1, -1}, 3);
    H5Gclose(g);
    g = H5Gopen2(f, "rank_region_index", H5P_DEFAULT);
    put_strs(g, "event_metadata", (const char *[]){"[{\"k\": 1}, {}]", "[{}]"}, 2);
    H5Gclose(g);
    H5Fclose(f);
}

/* Schema 1: region r (calls [0,100], [10,50]) with call_ids, no
 * parent_ids, and event_metadata. */
static void write_groups_ids_meta(const char *path)
{
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t r0 = H5Gcreate2(f, "rank0", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t rg = H5Gcreate2(r0, "regions", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t r = H5Gcreate2(rg, "r", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    put_i64(r, "start_times", (int64_t[]){0, 10}, 2);
    put_i64(r, "end_times", (int64_t[]){100, 50}, 2);
    put_i64(r, "call_ids", (int64_t[]){7, 8}, 2);
    put_strs(r, "event_metadata", (const char *[]){"{}", "{\"x\": 2}"}, 2);
    H5Gclose(r);
    H5Gclose(rg);
    H5Gclose(r0);
    H5Fclose(f);
}

static profile *load_with(const char *path, bool stats_only)
{
    load_options lo = {.stats_only = stats_only};
    profile *p;
    sv_error err;
    if (profile_load(path, &lo, &p, &err) != SV_OK)
        fail_msg("load %s: %s", path, err.msg);
    assert_int_equal(p->nwarnings, 0);
    return p;
}

/* A statistics-only load (the batch outputs) reads no event_metadata and
 * no call_ids that have no parent_ids beside them; the calls and their
 * statistics are those of the whole load (values by hand). */
static void test_stats_only_columns(void **s)
{
    (void)s;
    char path[256];
    tmp_path(path, sizeof path, "statsonly");
    write_ids_meta(path, false);
    profile *p = load_with(path, false);
    assert_non_null(get(p, 0, "a")->call_ids);
    assert_non_null(get(p, 0, "a")->event_meta);
    assert_string_equal(get(p, 0, "a")->event_meta[0], "{\"k\": 1}");
    profile_free(p);
    p = load_with(path, true);
    region *a = get(p, 0, "a");
    assert_null(a->call_ids);
    assert_null(a->event_meta);
    assert_null(get(p, 0, "b")->call_ids);
    check_i64(a->start_ns, (int64_t[]){10, 15}, 2);
    check_i64(a->end_ns, (int64_t[]){13, 19}, 2);
    assert_float_equal(stat(a, RSTAT_TOTAL), 7, 0);     /* 3 + 4 */
    assert_float_equal(stat(a, RSTAT_EXCLUSIVE), 7, 0); /* nothing inside */
    assert_float_equal(stat(get(p, 0, "b"), RSTAT_TOTAL), 5, 0);
    profile_free(p);
    /* With parent_ids the nesting uses both: call_ids are read. */
    write_ids_meta(path, true);
    p = load_with(path, true);
    check_i64(get(p, 0, "a")->call_ids, (int64_t[]){1, 2}, 2);
    check_i64(get(p, 0, "b")->parent_ids, (int64_t[]){-1}, 1);
    assert_null(get(p, 0, "a")->event_meta);
    profile_free(p);
    /* Schema 1 alike. */
    write_groups_ids_meta(path);
    p = load_with(path, false);
    check_i64(get(p, 0, "r")->call_ids, (int64_t[]){7, 8}, 2);
    assert_string_equal(get(p, 0, "r")->event_meta[1], "{\"x\": 2}");
    profile_free(p);
    p = load_with(path, true);
    region *r = get(p, 0, "r");
    assert_null(r->call_ids);
    assert_null(r->event_meta);
    assert_false(p->legacy); /* the columns still tell the extended layout */
    assert_float_equal(stat(r, RSTAT_EXCLUSIVE), 100, 0); /* (100 - 40) + 40 */
    profile_free(p);
    unlink(path);
}

/* ------------------------------------------------------------ JSON text */

static void test_json_text(void **s)
{
    (void)s;
    char **v;
    size_t n;
    assert_int_equal(jt_string_array(" [\"a\\\"b\", \"\\u00e9\\ud83d\\ude00\"] ", &v, &n), JT_OK);
    assert_int_equal(n, 2);
    assert_string_equal(v[0], "a\"b");
    assert_string_equal(v[1], "\xc3\xa9\xf0\x9f\x98\x80");
    jt_free(v, n);
    assert_int_equal(jt_string_array("[]", &v, &n), JT_OK);
    assert_int_equal(n, 0);
    static const char *const bad[] = {
        "", "[", "[\"a\",]", "[1]", "[\"a\"] x", "[\"a\" \"b\"]", "{\"a\": 1}", "[\"\\x\"]"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(jt_string_array(bad[i], &v, &n), JT_BAD);
    assert_int_equal(jt_split_array("[{\"a\": [1, \"],\"]}, {}, 3, \"x,y\", null]", &v, &n), JT_OK);
    assert_int_equal(n, 5);
    assert_string_equal(v[0], "{\"a\": [1, \"],\"]}");
    assert_string_equal(v[1], "{}");
    assert_string_equal(v[2], "3");
    assert_string_equal(v[3], "\"x,y\"");
    assert_string_equal(v[4], "null");
    jt_free(v, n);
    static const char *const bad2[] = {"[{]", "[{}", "[{}, ]", "[}]", "{}", "[\"]"};
    for (size_t i = 0; i < sizeof bad2 / sizeof bad2[0]; i++)
        assert_int_equal(jt_split_array(bad2[i], &v, &n), JT_BAD);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_col3_full),           cmocka_unit_test(test_col2_full),
        cmocka_unit_test(test_col3_fixedstr),       cmocka_unit_test(test_col3_aggregate),
        cmocka_unit_test(test_col3_schema4),        cmocka_unit_test(test_col3_noregion),
        cmocka_unit_test(test_col3_nofilter),       cmocka_unit_test(test_col3_truncated),
        cmocka_unit_test(test_col3_overlap),        cmocka_unit_test(test_col3_pastend),
        cmocka_unit_test(test_col3_badthread),      cmocka_unit_test(test_capi_set),
        cmocka_unit_test(test_offset_beyond_int64), cmocka_unit_test(test_schema_attribute),
        cmocka_unit_test(test_long_event_metadata), cmocka_unit_test(test_stored_statistics_small),
        cmocka_unit_test(test_repeated_pair),       cmocka_unit_test(test_event_beyond_int64),
        cmocka_unit_test(test_json_text),           cmocka_unit_test(test_stats_only_columns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
