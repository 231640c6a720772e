/* Call tree and merged regions, against values worked out by hand
 * (tests/gen/FIXTURES.md) and the independent expected statistics. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/calltree.h"
#include "json_min.h"
#include "load/loader.h"
#include "memprof.h"
#include "model/merged.h"
#include "model/region.h"
#include "testutil.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static profile *legacy_small(void)
{
    profile *p = profile_new("mem");
    rank_data *rk = profile_add_rank(p, 0);
    int64_t as[] = {0, 100}, ae[] = {1000, 200};
    int64_t bs[] = {10, 300, 300}, be[] = {50, 400, 400};
    int64_t cs[] = {40, 900}, ce[] = {60, 1200};
    mp_region(rk, "a", 2, as, ae);
    mp_region(rk, "b", 3, bs, be);
    mp_region(rk, "c", 2, cs, ce);
    mp_finish(p);
    return p;
}

static profile *load_fixture(const char *name)
{
    char path[4096];
    sv_fixture_path(path, sizeof path, name);
    profile *p = NULL;
    sv_error err;
    sv_error_clear(&err);
    if (profile_load(path, NULL, &p, &err))
        fail_msg("load %s: %s", path, err.msg);
    return p;
}

static calltree *build(profile *p, int rank, int64_t thread, bool fold)
{
    calltree *t = NULL;
    sv_error err;
    sv_error_clear(&err);
    if (calltree_build(p, (calltree_scope){rank, thread, 0, 0, LANE_RANK, 0}, fold, NULL, &t, &err))
        fail_msg("calltree_build: %s", err.msg);
    return t;
}

/* The child of node named name, or CT_NONE. */
static uint32_t child(const calltree *t, uint32_t node, const char *name)
{
    for (uint32_t k = t->child_off[node]; k < t->child_off[node + 1]; k++)
        if (strcmp(calltree_node_name(t, t->child[k]), name) == 0)
            return t->child[k];
    return CT_NONE;
}

/* Node at the end of a path of names from the root (NULL-terminated). */
static uint32_t path(const calltree *t, const char *const *names)
{
    uint32_t n = 0;
    for (size_t i = 0; names[i] && n != CT_NONE; i++)
        n = child(t, n, names[i]);
    return n;
}
#define PATH(t, ...) path((t), (const char *const[]){__VA_ARGS__, NULL})

static size_t nchildren(const calltree *t, uint32_t node)
{
    return t->child_off[node + 1] - t->child_off[node];
}

static void node_is(const calltree *t, uint32_t n, int64_t calls, int64_t incl, int64_t excl,
                    int64_t max)
{
    assert_int_not_equal(n, CT_NONE);
    assert_int_equal(t->nodes[n].calls, calls);
    assert_int_equal(t->nodes[n].incl_ns, incl);
    assert_int_equal(t->nodes[n].excl_ns, excl);
    assert_int_equal(t->nodes[n].max_ns, max);
}

/* legacy_small: a[0] holds b[0], a[1], b[1] (which holds b[2]); c[0]
 * overlaps b[0] partly, so it ran on another thread: top-level on inferred
 * lane 1, as c[1] is.  Exclusive: a0 760, a1 100, b0 40, b1 0, b2 100,
 * c0 20, c1 300. */
static void test_legacy_tree(void **state)
{
    (void)state;
    profile *p = legacy_small();
    calltree *t = build(p, -1, -1, false);
    assert_int_equal(t->n, 6); /* root, a, c, a>b, a>a, a>b>b */
    assert_int_equal(nchildren(t, 0), 2);
    node_is(t, PATH(t, "a"), 1, 1000, 760, 1000);
    node_is(t, PATH(t, "c"), 2, 320, 320, 300);
    node_is(t, PATH(t, "a", "b"), 2, 140, 40, 100);
    assert_int_equal(PATH(t, "a", "c"), CT_NONE);
    node_is(t, PATH(t, "a", "a"), 1, 100, 100, 100);
    node_is(t, PATH(t, "a", "b", "b"), 1, 100, 100, 100);
    assert_int_equal(t->nodes[PATH(t, "a", "b")].depth, 1);
    /* root: top-level inclusive (1000 + 20 + 300), and every call's
     * exclusive (860 + 140 + 320) */
    assert_int_equal(t->nodes[0].incl_ns, 1320);
    assert_int_equal(t->nodes[0].excl_ns, 1320);
    assert_int_equal(t->ncalls, 7);
    assert_false(t->has_await);
    assert_false(t->has_gpu);
    /* share of parent: a>b = 140 / 1000; mean of a>b = 70 */
    assert_float_equal(calltree_node_share(t, PATH(t, "a", "b")), 0.14, 1e-12);
    assert_float_equal(calltree_node_mean(t, PATH(t, "a", "b")), 70.0, 1e-12);
    calltree_free(t);
    profile_free(p);
}

/* Folding: a[1] merges into a (inclusive stays a[0]'s 1000, exclusive
 * 760 + 100); b[2] merges into a>b (inclusive 40 + 100, exclusive 40 + 0 +
 * 100). */
static void test_legacy_folded(void **state)
{
    (void)state;
    profile *p = legacy_small();
    calltree *t = build(p, -1, -1, true);
    assert_int_equal(t->n, 4); /* root, a, c, a>b */
    uint32_t a = PATH(t, "a");
    node_is(t, a, 2, 1000, 860, 1000);
    assert_int_equal(t->nodes[a].entries, 1);
    assert_float_equal(calltree_node_mean(t, a), 1000.0, 1e-12);
    node_is(t, PATH(t, "a", "b"), 3, 140, 140, 100);
    assert_int_equal(t->nodes[PATH(t, "a", "b")].entries, 2);
    assert_int_equal(PATH(t, "a", "a"), CT_NONE);
    assert_int_equal(t->nodes[0].incl_ns, 1320);
    assert_int_equal(t->nodes[0].excl_ns, 1320);
    calltree_free(t);
    profile_free(p);
}

/* small.h5: outer[0] holds inner[0] and io/write (thread 1); outer[1]
 * holds inner[1], inner[2]. */
static void test_small_threads(void **state)
{
    (void)state;
    profile *p = load_fixture("small.h5");
    calltree *t = build(p, 0, -1, false);
    assert_true(t->has_await);
    assert_true(t->has_gpu);
    node_is(t, PATH(t, "outer"), 2, 1500, 600, 1000);
    uint32_t in = PATH(t, "outer", "inner");
    node_is(t, in, 3, 1000, 1000, 500);
    assert_int_equal(t->nodes[in].gpu_ns, 120);
    assert_int_equal(t->nodes[in].gpu_n, 2); /* one call has no GPU timing */
    assert_int_equal(t->nodes[PATH(t, "outer")].gpu_n, 0);
    assert_int_equal(t->nodes[PATH(t, "outer", "io/write")].await_n, 1);
    node_is(t, PATH(t, "outer", "io/write"), 1, 0, 0, 0);
    assert_float_equal(calltree_node_share(t, in), 1000.0 / 1500.0, 1e-12);
    assert_int_equal(PATH(t, "reduce"), CT_NONE); /* summary-only: no calls */
    calltree_free(t);

    /* thread 0: io/write is gone, its exclusive with it */
    t = build(p, 0, 0, false);
    node_is(t, PATH(t, "outer"), 2, 1500, 600, 1000);
    node_is(t, PATH(t, "outer", "inner"), 3, 1000, 1000, 500);
    assert_int_equal(PATH(t, "outer", "io/write"), CT_NONE);
    assert_false(t->has_await);
    calltree_free(t);

    /* thread 1: io/write's parent is on thread 0, so it is top-level */
    t = build(p, 0, 1, false);
    assert_int_equal(t->n, 2);
    node_is(t, PATH(t, "io/write"), 1, 0, 0, 0);
    assert_true(t->has_await);
    assert_ptr_equal(t->names[t->nodes[PATH(t, "io/write")].name].rep,
                     rank_region(&p->ranks[0], "io/write"));
    calltree_free(t);

    calltree_scope *sc;
    size_t nsc;
    assert_int_equal(calltree_scopes(p, NULL, &sc, &nsc, NULL), SV_OK);
    assert_int_equal(nsc, 3); /* all, rank 0 thread 0, rank 0 thread 1 */
    assert_int_equal(sc[0].rank, -1);
    assert_int_equal(sc[1].rank, 0);
    assert_int_equal(sc[1].thread, 0);
    assert_int_equal(sc[2].thread, 1);
    free(sc);
    calltree *bad = NULL;
    assert_int_equal(
        calltree_build(p, (calltree_scope){7, -1, 0, 0, LANE_RANK, 0}, false, NULL, &bad, NULL),
        SV_ERR_NOT_FOUND);
    assert_null(bad);
    profile_free(p);
}

static void test_legacy_fixture(void **state)
{
    (void)state;
    profile *p = load_fixture("legacy_small.h5");
    calltree *t = build(p, -1, -1, false);
    node_is(t, PATH(t, "a"), 1, 1000, 760, 1000);
    node_is(t, PATH(t, "a", "b", "b"), 1, 100, 100, 100);
    assert_int_equal(t->nodes[0].excl_ns, 1320);
    calltree_free(t);
    profile_free(p);
}

/* legacy_threads2.h5 (FIXTURES.md): two threads, no thread ids.  Lane 1:
 * task[0,100] > step[10,40], step[50,90]; task[200,300] > step[210,290];
 * lane 2: task[60,160] > step[70,150].  Exclusive task 30 + 20 + 20,
 * step 30 + 40 + 80 + 80. */
static void test_legacy_threads2(void **state)
{
    (void)state;
    profile *p = load_fixture("legacy_threads2.h5");
    assert_int_equal(p->ranks[0].ninferred_lanes, 2);
    assert_int_equal(rank_region(&p->ranks[0], "task")->st.exclusive_total_ns, 70);
    assert_int_equal(rank_region(&p->ranks[0], "step")->st.exclusive_total_ns, 230);
    calltree *t = build(p, -1, -1, false);
    assert_int_equal(t->n, 3); /* root, task, task>step */
    node_is(t, PATH(t, "task"), 3, 300, 70, 100);
    node_is(t, PATH(t, "task", "step"), 4, 230, 230, 80);
    calltree_free(t);
    profile_free(p);
}

static calltree *build_filtered(profile *p, const region_filter *f)
{
    calltree *t = NULL;
    assert_int_equal(
        calltree_build(p, (calltree_scope){-1, -1, 0, 0, LANE_RANK, 0}, false, f, &t, NULL), SV_OK);
    return t;
}

/* --exclude a: a[1] goes, and a[0]'s children b[0], b[1] become
 * top-level (b[2] stays under b[1]); c was top-level already. */
static void test_filter_tree(void **state)
{
    (void)state;
    profile *p = legacy_small();
    region_filter f;
    filter_init(&f);
    assert_int_equal(filter_add_exclude(&f, "a", NULL), SV_OK);
    calltree *t = build_filtered(p, &f);
    assert_int_equal(t->n, 4); /* root, b, b>b, c */
    node_is(t, PATH(t, "b"), 2, 140, 40, 100);
    node_is(t, PATH(t, "b", "b"), 1, 100, 100, 100);
    node_is(t, PATH(t, "c"), 2, 320, 320, 300);
    assert_int_equal(t->ncalls, 5);
    assert_null(t->names[0].rep); /* "a" is not shown */
    calltree_free(t);
    filter_free(&f);
    filter_init(&f);
    assert_int_equal(filter_add_include(&f, "c", NULL), SV_OK);
    t = build_filtered(p, &f);
    assert_int_equal(t->n, 2);
    node_is(t, PATH(t, "c"), 2, 320, 320, 300);
    calltree_free(t);
    filter_free(&f);
    profile_free(p);
}

/* Without a thread table the scopes come from the column's values. */
static void test_scopes_no_table(void **state)
{
    (void)state;
    profile *p = profile_new("mem");
    rank_data *rk = profile_add_rank(p, 4);
    region *r = mp_region(rk, "x", 3, (int64_t[]){0, 10, 20}, (int64_t[]){5, 15, 25});
    mp_col(&r->thread_ids, (int64_t[]){7, 3, 7}, 3);
    mp_region(rk, "y", 1, (int64_t[]){30}, (int64_t[]){40}); /* no thread column */
    mp_finish(p);
    calltree_scope *sc;
    size_t nsc;
    assert_int_equal(calltree_scopes(p, NULL, &sc, &nsc, NULL), SV_OK);
    assert_int_equal(nsc, 3); /* all, (4, 3), (4, 7) */
    assert_int_equal(sc[1].rank, 4);
    assert_int_equal(sc[1].thread, 3);
    assert_int_equal(sc[2].thread, 7);
    free(sc);
    /* thread 7: x[0] and x[2]; y has no thread column, so no thread holds it */
    calltree *t = build(p, 4, 7, false);
    node_is(t, PATH(t, "x"), 2, 10, 10, 5);
    assert_int_equal(PATH(t, "y"), CT_NONE);
    calltree_free(t);
    profile_free(p);
}

/* Sorting orders each node's children; ties fall back to the name. */
static void test_sort(void **state)
{
    (void)state;
    profile *p = legacy_small();
    calltree *t = build(p, -1, -1, false);
    uint32_t a = PATH(t, "a");
    const uint32_t *ch = t->child + t->child_off[a];
    calltree_sort(t, CT_KEY_INCL, true); /* b 140, a 100 */
    assert_string_equal(calltree_node_name(t, ch[0]), "b");
    assert_string_equal(calltree_node_name(t, ch[1]), "a");
    calltree_sort(t, CT_KEY_EXCL, false); /* b 40, a 100 */
    assert_string_equal(calltree_node_name(t, ch[0]), "b");
    assert_string_equal(calltree_node_name(t, ch[1]), "a");
    calltree_sort(t, CT_KEY_CALLS, true); /* b 2, a 1 */
    assert_string_equal(calltree_node_name(t, ch[0]), "b");
    assert_string_equal(calltree_node_name(t, ch[1]), "a");
    calltree_sort(t, CT_KEY_CALLS, false); /* root: a 1, then c 2 */
    assert_string_equal(calltree_node_name(t, t->child[t->child_off[0]]), "a");
    calltree_sort(t, CT_KEY_NAME, true);
    assert_string_equal(calltree_node_name(t, ch[0]), "b");
    assert_string_equal(calltree_node_name(t, t->child[t->child_off[0]]), "c");
    calltree_free(t);
    profile_free(p);
}

/* 100 000 nested calls of one region: no recursion in the build; folded
 * it is one node whose inclusive is the outermost call's. */
static void test_deep(void **state)
{
    (void)state;
    size_t n = 100000;
    int64_t *s = malloc(n * 8), *e = malloc(n * 8), *id = malloc(n * 8), *par = malloc(n * 8);
    assert_non_null(s && e && id && par);
    for (size_t i = 0; i < n; i++) {
        s[i] = (int64_t)i;
        e[i] = (int64_t)(2 * n - i);
        id[i] = (int64_t)i + 1;
        par[i] = (int64_t)i;
    }
    par[0] = -1;
    profile *p = profile_new("mem");
    region *r = mp_region(profile_add_rank(p, 0), "rec", n, s, e);
    mp_col(&r->call_ids, id, n);
    mp_col(&r->parent_ids, par, n);
    mp_finish(p);
    calltree *t = build(p, -1, -1, false);
    assert_int_equal(t->n, n + 1);
    assert_int_equal(t->nodes[n].depth, n - 1);
    assert_int_equal(t->nodes[0].excl_ns, (int64_t)(2 * n));
    calltree_sort(t, CT_KEY_INCL, true);
    calltree_free(t);
    t = build(p, -1, -1, true);
    assert_int_equal(t->n, 2);
    node_is(t, 1, (int64_t)n, (int64_t)(2 * n), (int64_t)(2 * n), (int64_t)(2 * n));
    calltree_free(t);
    profile_free(p);
    free(s);
    free(e);
    free(id);
    free(par);
}

/* ------------------------------------------------- shared reference data */

static jm_node *load_expected(const char *name)
{
    char path[4096], rel[256];
    snprintf(rel, sizeof rel, "data/expected/%s.json", name);
    sv_shared_path(path, sizeof path, rel);
    size_t len;
    char *text = sv_slurp(path, &len);
    assert_non_null(text);
    jm_node *j = jm_parse(text, len, NULL, 0);
    free(text);
    assert_non_null(j);
    return j;
}

static double expected(const jm_node *j, const char *rname, int rank, const char *key)
{
    for (size_t i = 0; i < j->count; i++) {
        const jm_node *o = jm_at(j, i);
        double rk, v;
        if (strcmp(jm_string(jm_get(o, "name")), rname) == 0 && jm_number(jm_get(o, "rank"), &rk) &&
            (int)rk == rank && jm_number(jm_get(o, key), &v))
            return v * 1e9;
    }
    fail_msg("no expected %s for %s", key, rname);
    return 0;
}

static profile *load_shared(const char *rel)
{
    char path[4096];
    sv_shared_path(path, sizeof path, rel);
    profile *p = NULL;
    sv_error err;
    sv_error_clear(&err);
    if (profile_load(path, NULL, &p, &err))
        fail_msg("load %s: %s", path, err.msg);
    return p;
}

static void expect_node(const calltree *t, uint32_t n, const jm_node *j, const char *name, int rank)
{
    assert_int_not_equal(n, CT_NONE);
    assert_float_equal((double)t->nodes[n].calls, expected(j, name, rank, "num_calls") / 1e9, 0);
    assert_float_equal((double)t->nodes[n].incl_ns, expected(j, name, rank, "total_duration"), 0.5);
    assert_float_equal((double)t->nodes[n].excl_ns,
                       expected(j, name, rank, "total_exclusive_duration"), 0.5);
    assert_float_equal((double)t->nodes[n].max_ns, expected(j, name, rank, "max_duration"), 0.5);
}

/* A folded row describes one set of calls: the outermost call of each
 * recursion chain.  Counted here from the raw columns with a plain loop:
 * a call of region name is outermost when no other call of it contains it
 * (the shared files recurse directly, so containment is the chain). */
static void check_folded(const char *rel, const char *name)
{
    profile *p = load_shared(rel);
    const region *r = rank_region(&p->ranks[0], name);
    assert_non_null(r);
    int64_t count = 0, incl = 0, max = 0;
    for (size_t i = 0; i < r->n; i++) {
        bool inner = false;
        for (size_t k = 0; k < r->n && !inner; k++) {
            bool holds = r->start_ns[k] <= r->start_ns[i] && r->end_ns[i] <= r->end_ns[k];
            bool same = r->start_ns[k] == r->start_ns[i] && r->end_ns[k] == r->end_ns[i];
            inner = k != i && holds && (!same || k < i);
        }
        if (inner)
            continue;
        int64_t d = r->end_ns[i] - r->start_ns[i];
        count++;
        incl += d;
        max = d > max ? d : max;
    }
    assert_true(count > 0 && (size_t)count < r->n); /* the file does recurse */
    calltree *t = build(p, -1, -1, true);
    uint32_t node = CT_NONE;
    for (uint32_t k = 1; k < t->n; k++)
        if (strcmp(calltree_node_name(t, k), name) == 0) {
            assert_int_equal(node, CT_NONE); /* folded: one row */
            node = k;
        }
    assert_int_not_equal(node, CT_NONE);
    assert_int_equal(calltree_node_calls(t, node), count);
    assert_int_equal(t->nodes[node].incl_ns, incl);
    assert_int_equal(t->nodes[node].max_ns, max);
    assert_float_equal(calltree_node_mean(t, node), (double)incl / (double)count, 1e-9);
    assert_int_equal(t->nodes[node].calls, (int64_t)r->n); /* all, for the record */
    calltree_free(t);
    t = build(p, -1, -1, false); /* unfolded: every call, one per row */
    int64_t total = 0;
    for (uint32_t k = 1; k < t->n; k++)
        if (strcmp(calltree_node_name(t, k), name) == 0) {
            assert_int_equal(calltree_node_calls(t, k), t->nodes[k].calls);
            total += calltree_node_calls(t, k);
        }
    assert_int_equal(total, (int64_t)r->n);
    calltree_free(t);
    profile_free(p);
}

static void test_folded_counts(void **state)
{
    (void)state;
    if (!sv_shared_available())
        skip();
    check_folded("data/real/recursive.h5", "__main__.fib");
    check_folded("data/extended/recursion.h5", "fib");
}

/* No row longer than its parent, children summing to at most the parent
 * (solver_threads_small.h5: no thread ids, calls of four threads overlap;
 * before lanes were inferred the tree showed rhs > rhs > timestep with
 * children summing to 181% of their parent). */
static void check_children_fit(const calltree *t)
{
    for (uint32_t k = 1; k < t->n; k++) {
        int64_t sum = 0;
        for (uint32_t c = t->child_off[k]; c < t->child_off[k + 1]; c++) {
            assert_true(t->nodes[t->child[c]].incl_ns <= t->nodes[k].incl_ns);
            sum += t->nodes[t->child[c]].incl_ns;
        }
        if (sum > t->nodes[k].incl_ns)
            fail_msg("node %s: children sum %lld > %lld", calltree_node_name(t, k), (long long)sum,
                     (long long)t->nodes[k].incl_ns);
    }
}

static void test_threads_small_fits(void **state)
{
    (void)state;
    if (!sv_shared_available())
        skip();
    /* the legacy files (inferred nesting, inferred lanes) and the others */
    static const char *const all[] = {
        "data/real/recursive.h5",
        "data/real/solver.h5",
        "data/real/solver_mpi4.h5",
        "data/extended/async_server.h5",
        "data/extended/gpu_train.h5",
        "data/extended/recursion.h5",
        "data/upstream/sp3-threads-async.h5",
    };
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) {
        profile *q = load_shared(all[k]);
        for (int fold = 0; fold < 2; fold++) {
            calltree *t = build(q, -1, -1, fold);
            check_children_fit(t);
            calltree_free(t);
        }
        profile_free(q);
    }
    profile *p = load_shared("data/real/solver_threads_small.h5");
    for (int fold = 0; fold < 2; fold++) {
        calltree *t = build(p, -1, -1, fold);
        check_children_fit(t);
        /* a worker's call inside the main thread's stays nested in it
         * (doc/FORMAT.md: they cannot be told apart) */
        assert_int_not_equal(PATH(t, "main", "worker_task", "rhs"), CT_NONE);
        calltree_free(t);
    }
    profile_free(p);
}

/* solver.h5: main > timestep > assemble, solve > rhs, precond, each region
 * on one path, so every node carries its region's expected totals. */
static void test_solver(void **state)
{
    (void)state;
    if (!sv_shared_available())
        skip();
    profile *p = load_shared("data/real/solver.h5");
    jm_node *j = load_expected("solver");
    calltree *t = build(p, -1, -1, false);
    expect_node(t, PATH(t, "main"), j, "main", 0);
    expect_node(t, PATH(t, "main", "timestep"), j, "timestep", 0);
    expect_node(t, PATH(t, "main", "timestep", "assemble"), j, "assemble", 0);
    expect_node(t, PATH(t, "main", "timestep", "solve"), j, "solve", 0);
    expect_node(t, PATH(t, "main", "timestep", "solve", "rhs"), j, "rhs", 0);
    expect_node(t, PATH(t, "main", "timestep", "solve", "precond"), j, "precond", 0);
    assert_int_equal(nchildren(t, 0), 1);
    assert_float_equal((double)t->nodes[0].incl_ns, expected(j, "main", 0, "total_duration"), 0.5);
    double excl = 0;
    for (size_t i = 0; i < j->count; i++) {
        double v;
        if (jm_number(jm_get(jm_at(j, i), "total_exclusive_duration"), &v))
            excl += v * 1e9;
    }
    assert_float_equal((double)t->nodes[0].excl_ns, excl, 0.5);
    calltree_free(t);
    jm_free(j);
    profile_free(p);
}

/* solver_mpi4.h5: all ranks merged add up the ranks' totals. */
static void test_solver_mpi4(void **state)
{
    (void)state;
    if (!sv_shared_available())
        skip();
    profile *p = load_shared("data/real/solver_mpi4.h5");
    jm_node *j = load_expected("solver_mpi4");
    calltree *t = build(p, -1, -1, false);
    uint32_t solve = PATH(t, "main", "timestep", "solve");
    double incl = 0, calls = 0;
    for (int r = 0; r < 4; r++) {
        incl += expected(j, "solve", r, "total_duration");
        calls += expected(j, "solve", r, "num_calls") / 1e9;
    }
    assert_float_equal((double)t->nodes[solve].calls, calls, 0);
    assert_float_equal((double)t->nodes[solve].incl_ns, incl, 2);
    calltree_free(t);
    t = build(p, 2, -1, false);
    expect_node(t, PATH(t, "main", "timestep", "solve"), j, "solve", 2);
    calltree_free(t);
    calltree_scope *sc;
    size_t nsc;
    assert_int_equal(calltree_scopes(p, NULL, &sc, &nsc, NULL), SV_OK);
    assert_int_equal(nsc, 5); /* all + 4 ranks, no thread columns */
    assert_int_equal(sc[4].rank, 3);
    free(sc);
    jm_free(j);
    profile_free(p);
}

/* ------------------------------------------------------- merged regions */

static void summary_region(rank_data *rk, const char *name, const summary_key *k, const double *v,
                           size_t n)
{
    region *r = rank_add_region(rk, name);
    assert_non_null(r);
    r->has_stored_summary = true;
    for (size_t i = 0; i < n; i++) {
        r->stored.known |= 1u << k[i];
        r->stored.v[k[i]] = v[i];
    }
}

static const merged_region *find_merged(const merged_region *m, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(m[i].name, name) == 0)
            return &m[i];
    fail_msg("no merged region %s", name);
    return NULL;
}

static void ms_is(const merged_region *m, merged_stat s, double v)
{
    assert_true(m->known & (1u << s));
    assert_float_equal(m->v[s], v, 1e-9);
}

/* x: rank 0 durations 10 20 30, rank 1 durations 40.
 * s: rank 0 summary (2 calls, total 30, mean 15, std 5, min 10, max 20),
 *    rank 1 one call of 30: as if 10, 20, 30. */
static void test_merged(void **state)
{
    (void)state;
    profile *p = profile_new("mem");
    /* adding a rank may move the others: take the pointers afterwards */
    assert_non_null(profile_add_rank(p, 0));
    assert_non_null(profile_add_rank(p, 1));
    rank_data *r0 = &p->ranks[0], *r1 = &p->ranks[1];
    mp_region(r0, "x", 3, (int64_t[]){0, 100, 200}, (int64_t[]){10, 120, 230});
    mp_region(r1, "x", 1, (int64_t[]){0}, (int64_t[]){40});
    summary_key k[] = {SUM_NUM_CALLS, SUM_TOTAL, SUM_MEAN, SUM_STD, SUM_MIN, SUM_MAX};
    summary_region(r0, "s", k, (double[]){2, 30, 15, 5, 10, 20}, N(k));
    mp_region(r1, "s", 1, (int64_t[]){500}, (int64_t[]){530});
    summary_region(r1, "only", k, (double[]){4, 4000, 1000, 0, 500, 1500}, 4);
    mp_finish(p);

    merged_region *m;
    size_t n;
    assert_int_equal(merged_regions_build(p, NULL, &m, &n, NULL), SV_OK);
    assert_int_equal(n, 3);
    assert_string_equal(m[0].name, "only"); /* byte order */
    const merged_region *x = find_merged(m, n, "x");
    assert_int_equal(x->nranks, 2);
    assert_true(x->event_data);
    ms_is(x, MS_CALLS, 4);
    ms_is(x, MS_TOTAL, 100);
    ms_is(x, MS_MEAN, 25);
    ms_is(x, MS_MIN, 10);
    ms_is(x, MS_MAX, 40);
    ms_is(x, MS_P50, 25);   /* between 20 and 30 */
    ms_is(x, MS_P95, 38.5); /* rank 2.85: 30 + 0.85 * 10 */
    ms_is(x, MS_P99, 39.7);
    ms_is(x, MS_STD, 11.180339887498949); /* sqrt(125) */
    ms_is(x, MS_EXCL, 100);
    ms_is(x, MS_IMBALANCE, 0.2); /* totals 60, 40: 60 / 50 - 1 */
    assert_int_equal(x->slowest_rank, 0);
    assert_false(x->known & (1u << MS_GPU));
    assert_false(x->known & (1u << MS_AWAIT_SHARE));

    const merged_region *s = find_merged(m, n, "s");
    assert_false(s->event_data);
    assert_false(s->summary_only);
    ms_is(s, MS_CALLS, 3);
    ms_is(s, MS_TOTAL, 60);
    ms_is(s, MS_MEAN, 20);
    ms_is(s, MS_MIN, 10);
    ms_is(s, MS_MAX, 30);
    ms_is(s, MS_STD, 8.16496580927726); /* sqrt(200 / 3) */
    assert_false(s->known & (1u << MS_P50));
    assert_false(s->known & (1u << MS_EXCL)); /* rank 0 has no exclusive total */
    assert_int_equal(s->slowest_rank, 0);     /* 30 on both: the first */
    ms_is(s, MS_IMBALANCE, 0);

    const merged_region *o = find_merged(m, n, "only");
    assert_true(o->summary_only);
    ms_is(o, MS_CALLS, 4);
    ms_is(o, MS_TOTAL, 4000);
    ms_is(o, MS_MEAN, 1000);
    assert_false(o->known & (1u << MS_MIN)); /* only 4 keys stored */
    assert_false(o->known & (1u << MS_P95));
    ms_is(o, MS_IMBALANCE, 0); /* rank 0 did not run it: rank 1 alone */
    assert_int_equal(o->nabsent, 1);
    assert_int_equal(o->absent[0], 0);
    assert_int_equal(o->slowest_rank, 1);
    merged_regions_free(m, n);

    /* --ranks 1 --exclude only: x and s over rank 1 alone */
    region_filter f;
    filter_init(&f);
    assert_int_equal(filter_set_ranks(&f, "1", NULL), SV_OK);
    assert_int_equal(filter_add_exclude(&f, "only", NULL), SV_OK);
    assert_int_equal(merged_regions_build(p, &f, &m, &n, NULL), SV_OK);
    assert_int_equal(n, 2);
    x = find_merged(m, n, "x");
    assert_int_equal(x->nranks, 1);
    ms_is(x, MS_CALLS, 1);
    ms_is(x, MS_TOTAL, 40);
    ms_is(x, MS_P50, 40);
    assert_true(find_merged(m, n, "s")->event_data);
    merged_regions_free(m, n);
    calltree_scope *sc;
    size_t nsc;
    assert_int_equal(calltree_scopes(p, &f, &sc, &nsc, NULL), SV_OK);
    assert_int_equal(nsc, 2); /* all, rank 1 */
    assert_int_equal(sc[1].rank, 1);
    free(sc);
    filter_free(&f);
    profile_free(p);
}

/* gpu_train.h5: allreduce is summary-only; GPU totals add over ranks. */
static void test_merged_gpu_train(void **state)
{
    (void)state;
    if (!sv_shared_available())
        skip();
    profile *p = load_shared("data/extended/gpu_train.h5");
    jm_node *j = load_expected("gpu_train");
    merged_region *m;
    size_t n;
    assert_int_equal(merged_regions_build(p, NULL, &m, &n, NULL), SV_OK);
    const merged_region *a = find_merged(m, n, "allreduce");
    assert_true(a->summary_only);
    const merged_region *f = find_merged(m, n, "forward");
    double gpu = expected(j, "forward", 0, "gpu_total_duration") +
                 expected(j, "forward", 1, "gpu_total_duration");
    ms_is(f, MS_GPU, gpu);
    double t0 = expected(j, "forward", 0, "total_duration");
    double t1 = expected(j, "forward", 1, "total_duration");
    double hi = t0 > t1 ? t0 : t1;
    ms_is(f, MS_IMBALANCE, hi / ((t0 + t1) / 2) - 1);
    assert_int_equal(f->slowest_rank, t1 > t0 ? 1 : 0);
    merged_regions_free(m, n);
    jm_free(j);
    profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_legacy_tree),
        cmocka_unit_test(test_legacy_folded),
        cmocka_unit_test(test_small_threads),
        cmocka_unit_test(test_legacy_fixture),
        cmocka_unit_test(test_filter_tree),
        cmocka_unit_test(test_scopes_no_table),
        cmocka_unit_test(test_sort),
        cmocka_unit_test(test_deep),
        cmocka_unit_test(test_solver),
        cmocka_unit_test(test_solver_mpi4),
        cmocka_unit_test(test_merged),
        cmocka_unit_test(test_merged_gpu_train),
        cmocka_unit_test(test_legacy_threads2),
        cmocka_unit_test(test_folded_counts),
        cmocka_unit_test(test_threads_small_fits),
    };
    return sv_shared_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
