/* Profiles against statistics computed independently, to a relative 1e-9:
 * the generator's expected set (svgen fixtures: exp_*.h5 and exp.json, its
 * own arithmetic), always; every shared profile against numpy's figures
 * (../shared/data/expected) when that data is there. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <math.h>

#include <cmocka.h>

#include "json_min.h"
#include "load/loader.h"
#include "model/region.h"
#include "expected_check.h"
#include "testutil.h"

static const char *shared_dir(char *buf, size_t len)
{
    const char *env = getenv("SV_SHARED_DIR");
    if (env)
        snprintf(buf, len, "%s", env);
    else
        snprintf(buf, len, "%s/../shared", SV_TOP_SRCDIR);
    return buf;
}

/* The profile at h5 against the expected JSON at js. */
static void check_paths(const char *h5, const char *js, const char *base)
{
    size_t len = 0;
    char *text = sv_slurp(js, &len), msg[128];
    assert_non_null(text);
    jm_node *exp = jm_parse(text, len, msg, sizeof msg);
    free(text);
    if (!exp)
        fail_msg("%s: %s", js, msg);
    profile *p;
    sv_error err;
    if (profile_load(h5, NULL, &p, &err) != SV_OK)
        fail_msg("load %s: %s", h5, err.msg);
    assert_int_equal(p->nregions, exp->count); /* no region missing, none extra */
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
    }
    jm_free(exp);
    profile_free(p);
}

/* data/<sub>/<base>.h5 against <expdir>/<base>.json */
static void check_profile_in(const char *sub, const char *expdir, const char *base)
{
    char dir[512], h5[768], js[768];
    shared_dir(dir, sizeof dir);
    snprintf(h5, sizeof h5, "%s/data/%s/%s.h5", dir, sub, base);
    snprintf(js, sizeof js, "%s/data/%s/%s.json", dir, expdir, base);
    struct stat st;
    if (stat(h5, &st) != 0) {
        print_message("SKIP: shared data not found (%s)\n", h5);
        skip();
    }
    check_paths(h5, js, base);
}

/* The generator's expected set: one profile (2 ranks, nested by ids, ties
 * and gaps) in schema 3, schema 2 with gzip and odd chunks, and fixed-length
 * strings, each against the statistics svgen computed when it wrote them. */
static void test_generated(void **s)
{
    (void)s;
    static const char *const files[] = {"exp_s3.h5", "exp_s2_gzip.h5", "exp_s3_fixed.h5"};
    char js[1024], h5[1024];
    sv_fixture_path(js, sizeof js, "exp.json");
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++)
        check_paths(sv_fixture_path(h5, sizeof h5, files[k]), js, files[k]);
}

static void check_profile(const char *sub, const char *base)
{
    check_profile_in(sub, "expected", base);
}

/* Upstream's fixtures and files of today's writer (schemas 1 to 3),
 * against data/upstream/expected (test_upstream checks the loader's side
 * of them in more detail). */
static void test_upstream(void **s)
{
    (void)s;
    static const char *const base[] = {
        "hdf5-schema-1",         "hdf5-schema-2",     "hdf5-schema-3", "sp2-basic",
        "sp2-c-api_rank00000",   "sp3-aggregate",     "sp3-basic",     "sp3-gpu",
        "sp3-parallel-fixedstr", "sp3-threads-async",
    };
    for (size_t k = 0; k < sizeof base / sizeof base[0]; k++)
        check_profile_in("upstream", "upstream/expected", base[k]);
}

static void test_recursive(void **s)
{
    (void)s;
    check_profile("real", "recursive");
}

static void test_solver(void **s)
{
    (void)s;
    check_profile("real", "solver");
}

static void test_solver_mpi4(void **s)
{
    (void)s;
    check_profile("real", "solver_mpi4");
}

/* No thread ids, calls of 4 threads overlapping partly: the expected
 * exclusive times follow the inferred-lanes rule. */
static void test_solver_threads_small(void **s)
{
    (void)s;
    check_profile("real", "solver_threads_small");
}

static void test_async_server(void **s)
{
    (void)s;
    check_profile("extended", "async_server");
}

static void test_gpu_train(void **s)
{
    (void)s;
    check_profile("extended", "gpu_train");
}

static void test_recursion(void **s)
{
    (void)s;
    check_profile("extended", "recursion");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_recursive),    cmocka_unit_test(test_solver),
        cmocka_unit_test(test_solver_mpi4),  cmocka_unit_test(test_solver_threads_small),
        cmocka_unit_test(test_async_server), cmocka_unit_test(test_upstream),
        cmocka_unit_test(test_gpu_train),    cmocka_unit_test(test_recursion),
        cmocka_unit_test(test_generated),
    };
    return sv_shared_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
