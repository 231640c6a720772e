/* Every fault row of tests/gen/FIXTURES.md: the error code and message of
 * whole-file faults, the warning (naming file, rank, region and dataset)
 * and what still loads for the others.  Also: loading never changes a
 * file's bytes, and names with control characters never reach a message
 * raw. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "load/loader.h"
#include "model/region.h"
#include "testutil.h"
#include "util/text.h"

static const char *fixture(char *buf, size_t len, const char *name)
{
    sv_fixture_path(buf, len, name);
    if (!sv_file_exists(buf))
        fail_msg("fixture %s is missing: run 'make check' so svgen writes tests/fixtures", buf);
    return buf;
}

static profile *load_ok(const char *name)
{
    char path[4096];
    fixture(path, sizeof path, name);
    profile *p = NULL;
    sv_error err;
    if (profile_load(path, NULL, &p, &err) != SV_OK)
        fail_msg("cannot load %s: %s", path, err.msg);
    for (size_t i = 0; i < p->nwarnings; i++) {
        print_message("warning: %s\n", p->warnings[i]);
        assert_true(text_is_clean(p->warnings[i]));
    }
    return p;
}

/* A whole-file fault: the code, exit status 1, a message naming the file. */
static sv_error load_fails(const char *name, sv_err want1, sv_err want2)
{
    char path[4096];
    fixture(path, sizeof path, name);
    profile *p = (profile *)&p;
    sv_error err;
    sv_err e = profile_load(path, NULL, &p, &err);
    print_message("%s -> %s\n", name, err.msg);
    assert_true(e == want1 || e == want2);
    assert_int_equal(err.code, e);
    assert_null(p);
    assert_int_equal(sv_err_exit_status(e), 1);
    assert_non_null(strstr(err.msg, path));
    assert_null(strchr(err.msg, '\n'));
    assert_true(text_is_clean(err.msg));
    return err;
}

/* Exactly one warning, holding every given part. */
static void one_warning(const profile *p, const char *const *parts, size_t n)
{
    assert_int_equal(p->nwarnings, 1);
    for (size_t i = 0; i < n; i++)
        if (!strstr(p->warnings[0], parts[i]))
            fail_msg("warning \"%s\" lacks \"%s\"", p->warnings[0], parts[i]);
}

#define WARNS(p, ...)                                                                              \
    do {                                                                                           \
        const char *const parts_[] = {__VA_ARGS__};                                                \
        one_warning(p, parts_, sizeof parts_ / sizeof parts_[0]);                                  \
    } while (0)

static region *get_region(const profile *p, const char *name)
{
    rank_data *rk = profile_rank(p, 0);
    assert_non_null(rk);
    region *r = rank_region(rk, name);
    if (!r)
        fail_msg("no region %s on rank 0", name);
    return r;
}

/* The region `good` that sits beside a dropped one loads whole. */
static void good_loads(const profile *p)
{
    assert_int_equal(p->nregions, 1);
    region *r = get_region(p, "good");
    assert_true(r->has_event_data);
    assert_true(r->n > 0);
    for (size_t i = 0; i < r->n; i++)
        assert_true(r->end_ns[i] >= r->start_ns[i]);
}

/* ------------------------------------------------------------ whole file */

static void test_not_hdf5(void **state)
{
    (void)state;
    sv_error err = load_fails("fault_not_hdf5.h5", SV_ERR_NOT_HDF5, SV_ERR_NOT_HDF5);
    assert_non_null(strstr(err.msg, "not an HDF5 file"));
}

static void test_empty(void **state)
{
    (void)state;
    load_fails("fault_empty.h5", SV_ERR_NOT_HDF5, SV_ERR_IO);
}

static void test_truncated(void **state)
{
    (void)state;
    load_fails("fault_truncated.h5", SV_ERR_NOT_HDF5, SV_ERR_DAMAGED);
}

/* ------------------------------------------------------------ regions */

static void test_length(void **state)
{
    (void)state;
    profile *p = load_ok("fault_length.h5");
    WARNS(p, "fault_length.h5", "rank 0", "region bad", "dataset end_times", "dropped");
    good_loads(p);
    profile_free(p);
}

static void test_optlen(void **state)
{
    (void)state;
    profile *p = load_ok("fault_optlen.h5");
    WARNS(p, "fault_optlen.h5", "rank 0", "region r", "dataset thread_ids", "column dropped");
    region *r = get_region(p, "r");
    assert_int_equal(r->n, 3);
    assert_null(r->thread_ids);
    assert_non_null(r->start_ns);
    profile_free(p);
}

static void test_float(void **state)
{
    (void)state;
    profile *p = load_ok("fault_float.h5");
    WARNS(p, "rank 0", "region f", "dataset start_times", "not integer", "region dropped");
    good_loads(p);
    profile_free(p);
}

static void test_float_opt(void **state)
{
    (void)state;
    profile *p = load_ok("fault_float_opt.h5");
    WARNS(p, "rank 0", "region r", "dataset gpu_durations", "not integer", "column dropped");
    region *r = get_region(p, "r");
    assert_null(r->gpu_ns);
    assert_int_equal(r->n, 2);
    profile_free(p);
}

static void test_2d(void **state)
{
    (void)state;
    profile *p = load_ok("fault_2d.h5");
    WARNS(p, "rank 0", "region m", "dataset start_times", "not 1-D", "region dropped");
    good_loads(p);
    profile_free(p);
}

static void test_end_before_start(void **state)
{
    (void)state;
    profile *p = load_ok("fault_end_before_start.h5");
    WARNS(p, "rank 0", "region neg", "dataset end_times", "end < start", "call 1");
    good_loads(p);
    profile_free(p);
}

/* ------------------------------------------------------------ ids */

/* Parent (rank call index) of call i of the only region of rank 0. */
static int64_t parent_of(profile *p, size_t i)
{
    sv_error err;
    if (profile_ensure_calls(p, &err) != SV_OK)
        fail_msg("ensure_calls: %s", err.msg);
    rank_data *rk = profile_rank(p, 0);
    assert_non_null(rk->calls);
    assert_true(i < rk->calls->n);
    return rk->calls->parent[rk->regions[0]->gidx0 + i];
}

static void test_orphan_parent(void **state)
{
    (void)state;
    profile *p = load_ok("fault_orphan_parent.h5");
    WARNS(p, "fault_orphan_parent.h5", "rank 0", "region r");
    region *r = get_region(p, "r");
    assert_int_equal(r->n, 2);
    assert_non_null(r->call_ids);
    assert_non_null(r->parent_ids);
    assert_int_equal(parent_of(p, 0), -1);
    assert_int_equal(parent_of(p, 1), -1); /* parent id 99 names no call: top-level */
    profile_free(p);
}

static void test_cycle(void **state)
{
    (void)state;
    profile *p = load_ok("fault_cycle.h5");
    WARNS(p, "rank 0", "cycle");
    region *r = get_region(p, "x");
    assert_int_equal(r->n, 2);
    /* Inference: x[1] = [10, 50] lies inside x[0] = [0, 100]. */
    assert_int_equal(parent_of(p, 0), -1);
    assert_int_equal(parent_of(p, 1), 0);
    assert_false(profile_rank(p, 0)->explicit_ids);
    profile_free(p);
}

static void test_bad_parent_only(void **state)
{
    (void)state;
    profile *p = load_ok("fault_bad_parent_only.h5");
    WARNS(p, "rank 0", "region r", "dataset parent_ids", "dropped");
    region *r = get_region(p, "r");
    assert_null(r->parent_ids);
    assert_null(r->call_ids);
    assert_int_equal(parent_of(p, 1), 0);
    profile_free(p);
}

/* ------------------------------------------------------------ ranges */

static void test_thread_range(void **state)
{
    (void)state;
    profile *p = load_ok("fault_thread_range.h5");
    WARNS(p, "rank 0", "region r", "dataset thread_ids", "column dropped");
    region *r = get_region(p, "r");
    assert_null(r->thread_ids);
    assert_int_equal(r->n, 2);
    rank_data *rk = profile_rank(p, 0);
    assert_true(rk->has_threads);
    assert_int_equal(rk->threads.n, 1);
    profile_free(p);
}

static void test_task_range(void **state)
{
    (void)state;
    profile *p = load_ok("fault_task_range.h5");
    WARNS(p, "rank 0", "region r", "dataset task_ids", "column dropped");
    region *r = get_region(p, "r");
    assert_null(r->task_ids);
    assert_int_equal(r->n, 2);
    rank_data *rk = profile_rank(p, 0);
    assert_true(rk->has_tasks);
    assert_int_equal(rk->tasks.n, 1);
    profile_free(p);
}

static void test_await_range(void **state)
{
    (void)state;
    profile *p = load_ok("fault_await_range.h5");
    WARNS(p, "rank 0", "region r", "dataset await_times", "column dropped");
    region *r = get_region(p, "r");
    assert_null(r->await_ns);
    assert_int_equal(r->n, 1);
    profile_free(p);
}

/* ------------------------------------------------------------ strings */

static void test_hostile_strings(void **state)
{
    (void)state;
    profile *p = load_ok("fault_hostile_strings.h5");
    assert_int_equal(p->nwarnings, 0);
    /* The model keeps raw bytes: escaping is every output's job. */
    region *r = get_region(p, "evil\x1b[31mred\x07");
    assert_string_equal(r->source_text, "a\rb\x9b"
                                        "31mc\xff\xfe"
                                        "d\n");
    assert_int_equal(r->ntags, 1);
    assert_string_equal(r->tags[0], "\x1b[2J");
    assert_non_null(r->event_meta);
    assert_string_equal(r->event_meta[0], "{\"k\": \"\\u001b[31m\"}");
    assert_string_equal(profile_meta(p, "clip"), "\x1b]52;c;SGVsbG8=\x07");
    profile_free(p);
}

static void test_huge_string(void **state)
{
    (void)state;
    profile *p = load_ok("fault_huge_string.h5");
    region *r = get_region(p, "big");
    assert_non_null(r->source_text);
    assert_int_equal(strlen(r->source_text), SV_STRING_MAX);
    assert_memory_equal(r->source_text, "0123456789abcde\n0123", 20);
    assert_int_equal(r->ntags, 1);
    assert_int_equal(strlen(r->tags[0]), SV_STRING_MAX);
    assert_int_equal(p->nwarnings, 2);
    bool text = false, tags = false;
    for (size_t i = 0; i < p->nwarnings; i++) {
        const char *w = p->warnings[i];
        assert_non_null(strstr(w, "region big"));
        text |= strstr(w, "attribute source_text") != NULL;
        tags |= strstr(w, "attribute tags") != NULL;
    }
    assert_true(text && tags);
    profile_free(p);
}

static void test_no_regions(void **state)
{
    (void)state;
    profile *p = load_ok("fault_region_no_regions.h5");
    assert_int_equal(p->nwarnings, 0);
    assert_int_equal(p->nranks, 0);
    assert_int_equal(p->nregions, 0);
    assert_false(p->has_min_start);
    assert_string_equal(profile_meta(p, "hostname"), "nohost");
    profile_free(p);
}

/* A file name full of control characters reaches messages escaped. */
static void test_hostile_path(void **state)
{
    (void)state;
    char dir[] = "/tmp/sv-faults-XXXXXX";
    assert_non_null(mkdtemp(dir));
    static const char *const srcs[] = {"fault_length.h5", "fault_not_hdf5.h5"};
    for (size_t i = 0; i < 2; i++) {
        char src[4096], dst[512];
        fixture(src, sizeof src, srcs[i]);
        snprintf(dst, sizeof dst, "%s/\x1b[31mred\x07\x9b%zu.h5", dir, i);
        size_t len;
        char *bytes = sv_slurp(src, &len);
        assert_non_null(bytes);
        FILE *f = fopen(dst, "wb");
        assert_non_null(f);
        assert_int_equal(fwrite(bytes, 1, len, f), len);
        fclose(f);
        free(bytes);
        profile *p = NULL;
        sv_error err;
        sv_err e = profile_load(dst, NULL, &p, &err);
        if (e == SV_OK) {
            assert_int_equal(p->nwarnings, 1);
            assert_true(text_is_clean(p->warnings[0]));
            assert_non_null(strstr(p->warnings[0], "red"));
            profile_free(p);
        } else {
            assert_int_equal(e, SV_ERR_NOT_HDF5);
            assert_true(text_is_clean(err.msg));
            assert_non_null(strstr(err.msg, "red"));
        }
        unlink(dst);
    }
    rmdir(dir);
}

/* ------------------------------------------------------------ read-only */

static const char *const all_fixtures[] = {
    "small.h5",
    "legacy_small.h5",
    "legacy_empty_region.h5",
    "nested_names.h5",
    "int_types.h5",
    "strings_fixed.h5",
    "fault_not_hdf5.h5",
    "fault_empty.h5",
    "fault_truncated.h5",
    "fault_length.h5",
    "fault_optlen.h5",
    "fault_float.h5",
    "fault_float_opt.h5",
    "fault_2d.h5",
    "fault_end_before_start.h5",
    "fault_orphan_parent.h5",
    "fault_cycle.h5",
    "fault_thread_range.h5",
    "fault_task_range.h5",
    "fault_await_range.h5",
    "fault_hostile_strings.h5",
    "fault_huge_string.h5",
    "fault_bad_parent_only.h5",
    "fault_region_no_regions.h5",
};

static void test_files_unchanged(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof all_fixtures / sizeof all_fixtures[0]; i++) {
        char path[4096];
        fixture(path, sizeof path, all_fixtures[i]);
        uint64_t before, after, size0, size1;
        assert_true(sv_file_checksum(path, &before, &size0));
        profile *p = NULL;
        sv_error err;
        profile_load(path, NULL, &p, &err);
        profile_free(p);
        assert_true(sv_file_checksum(path, &after, &size1));
        if (before != after || size0 != size1)
            fail_msg("%s changed while loading", path);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_not_hdf5),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_length),
        cmocka_unit_test(test_optlen),
        cmocka_unit_test(test_float),
        cmocka_unit_test(test_float_opt),
        cmocka_unit_test(test_2d),
        cmocka_unit_test(test_end_before_start),
        cmocka_unit_test(test_orphan_parent),
        cmocka_unit_test(test_cycle),
        cmocka_unit_test(test_bad_parent_only),
        cmocka_unit_test(test_thread_range),
        cmocka_unit_test(test_task_range),
        cmocka_unit_test(test_await_range),
        cmocka_unit_test(test_hostile_strings),
        cmocka_unit_test(test_huge_string),
        cmocka_unit_test(test_no_regions),
        cmocka_unit_test(test_hostile_path),
        cmocka_unit_test(test_files_unchanged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
