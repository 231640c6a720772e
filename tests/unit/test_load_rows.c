/* The MPI run's split work (load_rows.h) without MPI: process 0's load and
 * share (load_rows_own), the others' loads with a part and their results
 * (load_rows_encode), installed (load_rows_apply) and completed
 * (load_rows_complete), all in one process.  The model that comes out must
 * be the serial load's: every region's statistics bit for bit, the ranks'
 * nesting flags, the minimum start, the same warnings; on every fixture and
 * shared profile with 2 and 3 processes.  On the demo profile the results
 * are really used (nothing redone), and a result cut short anywhere (a
 * prefix) still gives the serial model, process 0 computing the rest. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "load/load_rows.h"
#include "load/loader.h"
#include "testutil.h"

/* The others' results for process count np, each malloc'd. */
typedef struct results {
    char *buf[8];
    size_t len[8];
} results;

static void results_free(results *r)
{
    for (int k = 0; k < 8; k++)
        free(r->buf[k]);
    memset(r, 0, sizeof *r);
}

static void worker(const char *path, int k, int np, results *out)
{
    load_nest_list nests = {0};
    load_part pt = {k, np, &nests};
    load_sink sink = load_sink_part(&pt);
    load_options lo = {.sink = &sink};
    profile *q = NULL;
    sv_error err;
    out->buf[k] = NULL;
    out->len[k] = 0;
    if (profile_load(path, &lo, &q, &err) == SV_OK)
        assert_int_equal(load_rows_encode(q, &nests, &out->buf[k], &out->len[k], &err), SV_OK);
    profile_free(q);
    load_nest_list_free(&nests);
}

/* Process 0 with the others' results; cut: the first result cut to that
 * many bytes (SIZE_MAX: whole).  NULL when the load failed. */
static profile *leader(const char *path, int np, const results *res, size_t cut, size_t *redone)
{
    load_sink sink = load_sink_model(LOAD_FINISH_NONE);
    load_options lo = {.sink = &sink};
    profile *p = NULL;
    sv_error err;
    if (profile_load(path, &lo, &p, &err) != SV_OK)
        return NULL;
    rows_work *w = NULL;
    assert_int_equal(load_rows_own(p, np, &w, &err), SV_OK);
    for (int k = 1; k < np; k++) {
        size_t len = k == 1 && cut < res->len[k] ? cut : res->len[k];
        if (res->buf[k])
            load_rows_apply(p, w, res->buf[k], len);
    }
    assert_int_equal(load_rows_complete(p, w, &err), SV_OK);
    size_t s = 0, r = 0;
    load_rows_redone(w, &s, &r);
    *redone = s + r;
    rows_work_free(w);
    return p;
}

static bool has_line(const profile *p, const char *w)
{
    for (size_t i = 0; i < p->nwarnings; i++)
        if (strcmp(p->warnings[i], w) == 0)
            return true;
    return false;
}

/* The split load's model is the serial one's. */
static void same_model(const profile *a, const profile *b, const char *path)
{
    if (a->nregions != b->nregions)
        fail_msg("%s: %zu regions, serially %zu", path, b->nregions, a->nregions);
    for (size_t i = 0; i < a->nregions; i++) {
        const region *x = a->regions[i], *y = b->regions[i];
        if (strcmp(x->name, y->name) != 0 || x->rank != y->rank || x->n != y->n)
            fail_msg("%s: region %zu: %s/%d, serially %s/%d", path, i, y->name, y->rank, x->name,
                     x->rank);
        if (memcmp(&x->st, &y->st, sizeof x->st) != 0)
            fail_msg("%s: rank %d region %s: other statistics (excl %lld, serially %lld)", path,
                     x->rank, x->name, (long long)y->st.exclusive_total_ns,
                     (long long)x->st.exclusive_total_ns);
    }
    assert_int_equal(a->nranks, b->nranks);
    for (size_t k = 0; k < a->nranks; k++) {
        assert_int_equal(a->ranks[k].explicit_ids, b->ranks[k].explicit_ids);
        assert_int_equal(a->ranks[k].ninferred_lanes, b->ranks[k].ninferred_lanes);
    }
    assert_int_equal(a->has_min_start, b->has_min_start);
    assert_int_equal(a->min_start_ns, b->min_start_ns);
    for (size_t i = 0; i < a->nwarnings; i++)
        if (!has_line(b, a->warnings[i]))
            fail_msg("%s: warning missing: %s", path, a->warnings[i]);
    for (size_t i = 0; i < b->nwarnings; i++)
        if (!has_line(a, b->warnings[i]))
            fail_msg("%s: warning not in the serial run's: %s", path, b->warnings[i]);
}

/* path split over np processes; the number of things process 0 redid. */
static size_t check_file(const char *path, int np)
{
    profile *ref = NULL;
    sv_error err;
    sv_err rc = profile_load(path, NULL, &ref, &err);
    results res;
    memset(&res, 0, sizeof res);
    for (int k = 1; k < np; k++)
        worker(path, k, np, &res);
    size_t redone = 0;
    profile *p = leader(path, np, &res, SIZE_MAX, &redone);
    if (rc != SV_OK)
        assert_null(p); /* the same file fails the same way in process 0 */
    else if (!p)
        fail_msg("%s: the serial load worked, process 0's did not", path);
    else
        same_model(ref, p, path);
    profile_free(p);
    profile_free(ref);
    results_free(&res);
    return redone;
}

static void check_dir(const char *dir, size_t *count)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 3 || strcmp(e->d_name + n - 3, ".h5") != 0)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        check_file(path, 2);
        check_file(path, 3);
        (*count)++;
    }
    closedir(d);
}

static void test_every_profile(void **state)
{
    (void)state;
    char dir[2048]; /* with a slash and a name, within a 4096-byte path */
    size_t count = 0;
    for (size_t i = 0; sv_profile_dir(i, dir, sizeof dir); i++)
        check_dir(dir, &count);
    assert_true(count >= 10);
}

static const char *demo_path(char *buf, size_t len)
{
    snprintf(buf, len, "%s/data/demo.h5",
             getenv("SV_TOP_SRCDIR") ? getenv("SV_TOP_SRCDIR") : SV_TOP_SRCDIR);
    return buf;
}

/* On a well-formed profile every process's results are used. */
static void test_results_used(void **state)
{
    (void)state;
    char path[4096];
    demo_path(path, sizeof path);
    for (int np = 2; np <= 4; np++)
        assert_int_equal(check_file(path, np), 0);
}

/* A result cut anywhere: what came is used, the rest computed; the same
 * model.  Without any result (cut 0) process 0 does everything. */
static void test_cut_results(void **state)
{
    (void)state;
    char path[4096];
    demo_path(path, sizeof path);
    profile *ref = NULL;
    sv_error err;
    assert_int_equal(profile_load(path, NULL, &ref, &err), SV_OK);
    results res;
    memset(&res, 0, sizeof res);
    worker(path, 1, 2, &res);
    assert_true(res.len[1] > 16);
    size_t step = res.len[1] / 61 + 1, redone = 0;
    for (size_t cut = 0; cut <= res.len[1]; cut += cut + 16 >= res.len[1] ? 1 : step) {
        profile *p = leader(path, 2, &res, cut, &redone);
        assert_non_null(p);
        same_model(ref, p, path);
        if (cut == 0)
            assert_true(redone > 0);
        profile_free(p);
    }
    results_free(&res);
    profile_free(ref);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_results_used),
        cmocka_unit_test(test_cut_results),
        cmocka_unit_test(test_every_profile),
    };
    return sv_shared_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
