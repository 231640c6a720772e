/* The calls view's decomposition line (decomp.h): for every call of every
 * shared profile, wall = exclusive + children exactly, with children the
 * union of the call's direct children clipped to it, computed here with
 * its own loop; awaited and GPU time are shares, not terms. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/decomp.h"
#include "load/loader.h"
#include "memprof.h"
#include "testutil.h"

typedef struct kid {
    int32_t parent;
    int64_t s, e;
} kid;

static int kid_cmp(const void *a, const void *b)
{
    const kid *x = a, *y = b;
    if (x->parent != y->parent)
        return x->parent < y->parent ? -1 : 1;
    return (x->s > y->s) - (x->s < y->s);
}

/* children[g] = |union of g's children ∩ [start, end]|, by sorting the
 * calls by (parent, start) and merging each parent's run. */
static int64_t *children_union(const rank_data *rk)
{
    size_t n = rk->ncalls, m = 0;
    kid *k = malloc((n ? n : 1) * sizeof *k);
    int64_t *s = malloc((n ? n : 1) * sizeof *s), *e = malloc((n ? n : 1) * sizeof *e);
    int64_t *u = calloc(n ? n : 1, sizeof *u);
    assert_true(k && s && e && u);
    for (size_t j = 0; j < rk->nregions; j++)
        for (size_t i = 0; i < rk->regions[j]->n; i++) {
            size_t g = rk->regions[j]->gidx0 + i;
            s[g] = rk->regions[j]->start_ns[i];
            e[g] = rk->regions[j]->end_ns[i];
        }
    for (size_t g = 0; g < n; g++)
        if (rk->calls->parent[g] >= 0)
            k[m++] = (kid){rk->calls->parent[g], s[g], e[g]};
    qsort(k, m, sizeof *k, kid_cmp);
    for (size_t a = 0; a < m;) {
        int32_t p = k[a].parent;
        int64_t lo = s[p], hi = e[p], cur_s = 0, cur_e = 0, tot = 0;
        bool open = false;
        size_t b = a;
        for (; b < m && k[b].parent == p; b++) {
            int64_t cs = k[b].s < lo ? lo : k[b].s, ce = k[b].e > hi ? hi : k[b].e;
            if (ce <= cs)
                continue;
            if (open && cs <= cur_e) {
                cur_e = ce > cur_e ? ce : cur_e;
                continue;
            }
            tot += open ? cur_e - cur_s : 0;
            cur_s = cs;
            cur_e = ce;
            open = true;
        }
        u[p] = tot + (open ? cur_e - cur_s : 0);
        a = b;
    }
    free(k);
    free(s);
    free(e);
    return u;
}

static size_t check_rank(const rank_data *rk)
{
    int64_t *u = children_union(rk);
    size_t checked = 0;
    for (size_t j = 0; j < rk->nregions; j++) {
        const region *r = rk->regions[j];
        for (size_t i = 0; i < r->n; i++) {
            size_t g = r->gidx0 + i;
            call_decomp d;
            assert_true(call_decompose(rk, g, &d));
            if (d.wall_ns != r->end_ns[i] - r->start_ns[i])
                fail_msg("%s[%zu] rank %d: wall %lld, end - start %lld", r->name, i, rk->rank,
                         (long long)d.wall_ns, (long long)(r->end_ns[i] - r->start_ns[i]));
            if (d.excl_ns + d.children_ns != d.wall_ns || d.excl_ns < 0 || d.children_ns < 0)
                fail_msg("%s[%zu] rank %d: exclusive %lld + children %lld != wall %lld", r->name, i,
                         rk->rank, (long long)d.excl_ns, (long long)d.children_ns,
                         (long long)d.wall_ns);
            if (d.children_ns != u[g])
                fail_msg("%s[%zu] rank %d: children %lld, union of the children %lld", r->name, i,
                         rk->rank, (long long)d.children_ns, (long long)u[g]);
            bool gpu = r->gpu_ns && r->gpu_ns[i] >= 0;
            assert_int_equal(d.has_gpu, gpu);
            if (gpu && d.wall_ns > 0)
                assert_float_equal(d.gpu_share, (double)r->gpu_ns[i] / (double)d.wall_ns, 1e-12);
            checked++;
        }
    }
    free(u);
    return checked;
}

static void check_path(const char *path, const char *rel)
{
    profile *p;
    sv_error err;
    if (profile_load(path, NULL, &p, &err) != SV_OK)
        fail_msg("load %s: %s", path, err.msg);
    assert_int_equal(profile_ensure_calls(p, &err), SV_OK);
    size_t n = 0;
    for (size_t k = 0; k < p->nranks; k++)
        n += check_rank(&p->ranks[k]);
    print_message("%s: %zu calls\n", rel, n);
    profile_free(p);
}

static void check_file(const char *rel)
{
    char path[1024];
    sv_shared_path(path, sizeof path, rel);
    if (!sv_file_exists(path)) {
        print_message("SKIP: %s not found\n", path);
        skip();
    }
    check_path(path, rel);
}

/* Generated profiles: ids, lanes, GPU and await columns, legacy threads. */
static void test_fixture_profiles(void **state)
{
    (void)state;
    static const char *const files[] = {"small.h5", "col3_full.h5", "col2_full.h5",
                                        "legacy_threads2.h5", "exp_s3.h5"};
    char path[1024];
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++)
        check_path(sv_fixture_path(path, sizeof path, files[k]), files[k]);
}

static void test_shared_profiles(void **state)
{
    (void)state;
    static const char *const files[] = {
        "data/real/recursive.h5",
        "data/real/solver.h5",
        "data/real/solver_mpi4.h5",
        "data/real/solver_threads_small.h5",
        "data/extended/async_server.h5",
        "data/extended/gpu_train.h5",
        "data/extended/recursion.h5",
        /* every call of the columnar files too, once the loader reads them */
        "data/upstream/hdf5-schema-1.h5",
        "data/upstream/hdf5-schema-2.h5",
        "data/upstream/hdf5-schema-3.h5",
        "data/upstream/sp2-basic.h5",
        "data/upstream/sp2-c-api_rank00000.h5",
        "data/upstream/sp3-aggregate.h5",
        "data/upstream/sp3-basic.h5",
        "data/upstream/sp3-gpu.h5",
        "data/upstream/sp3-parallel-fixedstr.h5",
        "data/upstream/sp3-threads-async.h5",
    };
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++)
        check_file(files[k]);
}

/* By hand: p [0,100] holds k [10,40] and [30,60] (another lane's call
 * would not be its child; these overlap within one explicit parent): the
 * union is [10,60] = 50, so exclusive 50; GPU 150 is 150% of the wall,
 * awaited 20 is 20%. */
static void test_by_hand(void **state)
{
    (void)state;
    profile *p = profile_new("mem");
    rank_data *rk = profile_add_rank(p, 0);
    region *par = mp_region(rk, "p", 1, (int64_t[]){0}, (int64_t[]){100});
    mp_col(&par->call_ids, (int64_t[]){1}, 1);
    mp_col(&par->parent_ids, (int64_t[]){-1}, 1);
    mp_col(&par->gpu_ns, (int64_t[]){150}, 1);
    mp_col(&par->await_ns, (int64_t[]){20}, 1);
    region *k = mp_region(rk, "k", 2, (int64_t[]){10, 30}, (int64_t[]){40, 60});
    mp_col(&k->call_ids, (int64_t[]){2, 3}, 2);
    mp_col(&k->parent_ids, (int64_t[]){1, 1}, 2);
    mp_col(&k->gpu_ns, (int64_t[]){-1, 5}, 2);
    mp_finish(p);
    assert_int_equal(profile_ensure_calls(p, NULL), SV_OK);
    rk = &p->ranks[0];
    call_decomp d;
    assert_true(call_decompose(rk, rank_region(rk, "p")->gidx0, &d));
    assert_int_equal(d.wall_ns, 100);
    assert_int_equal(d.children_ns, 50);
    assert_int_equal(d.excl_ns, 50);
    assert_true(d.has_gpu);
    assert_float_equal(d.gpu_share, 1.5, 1e-15);
    assert_true(d.has_await);
    assert_float_equal(d.await_share, 0.2, 1e-15);
    assert_true(call_decompose(rk, rank_region(rk, "k")->gidx0, &d));
    assert_false(d.has_gpu); /* -1: no GPU timing */
    assert_false(call_decompose(rk, 99, &d));
    check_rank(rk);
    profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_by_hand),
        cmocka_unit_test(test_shared_profiles),
        cmocka_unit_test(test_fixture_profiles),
    };
    return sv_shared_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
