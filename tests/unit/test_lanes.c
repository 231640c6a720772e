/* The timeline index: lanes, lane depths, visible-range queries and search.
 * Expectations are worked out by hand (tests/gen/FIXTURES.md for the
 * fixtures); the random tests compare the queries with a brute-force scan. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/lanes.h"
#include "load/loader.h"
#include "memprof.h"
#include "testutil.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------ helpers */

static profile *load_fixture(const char *name)
{
    char path[1024];
    sv_fixture_path(path, sizeof path, name);
    if (!sv_file_exists(path))
        fail_msg("fixture %s is missing: run 'make check' so svgen writes tests/fixtures", path);
    profile *p = NULL;
    sv_error err;
    sv_error_clear(&err);
    if (profile_load(path, NULL, &p, &err) != SV_OK)
        fail_msg("load %s: %s", path, err.msg);
    return p;
}

static lanes_index *index_of(profile *p, const region_filter *f)
{
    lanes_index *ix = NULL;
    sv_error err;
    sv_error_clear(&err);
    if (lanes_build(p, f, &ix, &err) != SV_OK)
        fail_msg("lanes_build: %s", err.msg);
    return ix;
}

static int64_t gidx(profile *p, int rank, const char *name, size_t i)
{
    region *r = rank_region(profile_rank(p, rank), name);
    assert_non_null(r);
    return (int64_t)(r->gidx0 + i);
}

/* Lane index and depth of a call, checked to be found. */
static void where(const lanes_index *ix, profile *p, const char *name, size_t i, size_t *lane_out,
                  uint32_t *depth)
{
    size_t pos;
    if (!lanes_locate(ix, 0, gidx(p, 0, name, i), lane_out, depth, &pos))
        fail_msg("%s[%zu] is not in the index", name, i);
    assert_int_equal(lane_row_call(&ix->lanes[*lane_out].rows[*depth], pos), gidx(p, 0, name, i));
}

static void set_ids(region *r, const int64_t *ids, const int64_t *par, const int64_t *thr,
                    const int64_t *task)
{
    mp_col(&r->call_ids, ids, r->n);
    mp_col(&r->parent_ids, par, r->n);
    mp_col(&r->thread_ids, thr, r->n);
    mp_col(&r->task_ids, task, r->n);
}

static void add_names(char ***dst, const char *const *names, size_t n)
{
    *dst = calloc(n, sizeof **dst);
    assert_non_null(*dst);
    for (size_t k = 0; k < n; k++) {
        (*dst)[k] = strdup(names[k]);
        assert_non_null((*dst)[k]);
    }
}

/* A server on rank 0: MainThread (row 0) runs `main` and the event loop of
 * tasks 0 and 1; Worker (row 1) runs executor work for task 0.
 *   main  [0,1000]  thread 0, no task              -> lane Main, depth 0
 *   req   [100,400] task 0 (top level)             -> lane task 0, depth 0
 *   req   [500,600] task 1                         -> lane task 1, depth 0
 *   db    [150,300] task 0, parent req[0]          -> lane task 0, depth 1
 *   work  [160,250] thread 1, parent db            -> lane Worker, depth 0 (parent elsewhere)
 *   inner [170,200] thread 1, parent work          -> lane Worker, depth 1
 *   extra [0,0]     summary-only                   -> not drawn, counted */
static profile *server(void)
{
    profile *p = profile_new("mem");
    rank_data *rk = profile_add_rank(p, 0);
    static const char *const threads[] = {"MainThread", "Worker"};
    static const char *const tasks[] = {"Task-1 handle", "Task-2 handle"};
    rk->has_threads = true;
    rk->threads.n = 2;
    add_names(&rk->threads.name, threads, 2);
    rk->has_tasks = true;
    rk->tasks.n = 2;
    add_names(&rk->tasks.name, tasks, 2);

    int64_t ms[] = {0}, me[] = {1000}, mi[] = {1}, mp[] = {-1}, mt[] = {0}, mk[] = {-1};
    set_ids(mp_region(rk, "main", 1, ms, me), mi, mp, mt, mk);
    int64_t rs[] = {100, 500}, re[] = {400, 600}, ri[] = {10, 20}, rp[] = {-1, -1}, rt[] = {0, 0},
            rkk[] = {0, 1};
    region *req = mp_region(rk, "req", 2, rs, re);
    set_ids(req, ri, rp, rt, rkk);
    int64_t aw[] = {200, 0};
    mp_col(&req->await_ns, aw, 2);
    int64_t ds[] = {150}, de[] = {300}, di[] = {11}, dp[] = {10}, dt[] = {0}, dk[] = {0};
    set_ids(mp_region(rk, "db", 1, ds, de), di, dp, dt, dk);
    int64_t ws[] = {160}, we[] = {250}, wi[] = {12}, wp[] = {11}, wt[] = {1}, wk[] = {-1};
    set_ids(mp_region(rk, "work", 1, ws, we), wi, wp, wt, wk);
    int64_t is[] = {170}, ie[] = {200}, ii[] = {13}, ip[] = {12}, it[] = {1}, ik[] = {-1};
    set_ids(mp_region(rk, "inner", 1, is, ie), ii, ip, it, ik);
    region *extra = rank_add_region(rk, "extra");
    assert_non_null(extra);
    extra->has_stored_summary = true;
    mp_finish(p);
    return p;
}

/* -------------------------------------------------------------- tests */

static void test_server_lanes(void **state)
{
    (void)state;
    profile *p = server();
    lanes_index *ix = index_of(p, NULL);
    assert_true(p->ranks[0].explicit_ids);
    /* Thread lanes by row, then task lanes by row. */
    assert_int_equal(ix->nlanes, 4);
    assert_int_equal(ix->lanes[0].kind, LANE_THREAD);
    assert_int_equal(ix->lanes[0].row, 0);
    assert_int_equal(ix->lanes[1].kind, LANE_THREAD);
    assert_int_equal(ix->lanes[1].row, 1);
    assert_int_equal(ix->lanes[2].kind, LANE_TASK);
    assert_int_equal(ix->lanes[2].row, 0);
    assert_int_equal(ix->lanes[3].kind, LANE_TASK);
    assert_int_equal(ix->lanes[3].row, 1);
    assert_int_equal(ix->rank_lane0[0], 0);
    assert_int_equal(ix->rank_lane0[1], 4);
    assert_int_equal(ix->lanes[0].ndepth, 1);
    assert_int_equal(ix->lanes[1].ndepth, 2);
    assert_int_equal(ix->lanes[2].ndepth, 2);
    assert_int_equal(ix->lanes[3].ndepth, 1);
    assert_int_equal(ix->ncalls, 6);
    assert_int_equal(ix->nsummary_only, 1);
    assert_int_equal(ix->t_min, 0);
    assert_int_equal(ix->t_max, 1000);

    size_t l;
    uint32_t d;
    where(ix, p, "main", 0, &l, &d);
    assert_int_equal(l, 0);
    assert_int_equal(d, 0);
    where(ix, p, "req", 0, &l, &d);
    assert_int_equal(l, 2);
    assert_int_equal(d, 0);
    where(ix, p, "req", 1, &l, &d);
    assert_int_equal(l, 3);
    assert_int_equal(d, 0);
    where(ix, p, "db", 0, &l, &d);
    assert_int_equal(l, 2);
    assert_int_equal(d, 1);
    where(ix, p, "work", 0, &l, &d); /* its parent db is in another lane */
    assert_int_equal(l, 1);
    assert_int_equal(d, 0);
    where(ix, p, "inner", 0, &l, &d);
    assert_int_equal(l, 1);
    assert_int_equal(d, 1);
    lanes_free(ix);
    profile_free(p);
}

/* Calls whose thread changes at every call, over more threads than the first key array
 * holds: the index still has one lane per thread, in row order, each with its own calls. */
static void test_threads_taking_turns(void **state)
{
    (void)state;
    enum { NT = 100, NC = 1000 };
    profile *p = profile_new("mem");
    rank_data *rk = profile_add_rank(p, 0);
    int64_t *s = calloc(NC, sizeof *s), *e = calloc(NC, sizeof *e), *t = calloc(NC, sizeof *t);
    assert_true(s && e && t);
    for (size_t i = 0; i < NC; i++) {
        s[i] = (int64_t)i * 10;
        e[i] = s[i] + 5;
        t[i] = (int64_t)(i * 37 % NT); /* 37 and 100 are coprime: every thread, no repeat */
    }
    region *r = mp_region(rk, "work", NC, s, e);
    mp_col(&r->thread_ids, t, NC);
    mp_finish(p);
    lanes_index *ix = index_of(p, NULL);
    assert_int_equal(ix->nlanes, NT);
    for (size_t l = 0; l < NT; l++) {
        assert_int_equal(ix->lanes[l].kind, LANE_THREAD);
        assert_int_equal(ix->lanes[l].row, (int64_t)l);
        assert_int_equal(ix->lanes[l].ndepth, 1);
        assert_int_equal(ix->lanes[l].rows[0].n, NC / NT);
    }
    for (size_t i = 0; i < NC; i += 97) {
        size_t l;
        uint32_t d;
        where(ix, p, "work", i, &l, &d);
        assert_int_equal(l, i * 37 % NT);
        assert_int_equal(d, 0);
    }
    lanes_free(ix);
    profile_free(p);
    free(s);
    free(e);
    free(t);
}

static void test_filter_drops_calls(void **state)
{
    (void)state;
    profile *p = server();
    region_filter f;
    filter_init(&f);
    assert_int_equal(filter_add_exclude(&f, "db", NULL), SV_OK);
    lanes_index *ix = index_of(p, &f);
    assert_int_equal(ix->ncalls, 5);
    size_t l, pos;
    uint32_t d;
    assert_false(lanes_locate(ix, 0, gidx(p, 0, "db", 0), &l, &d, &pos));
    assert_int_equal(ix->lanes[2].ndepth, 1); /* task 0 keeps only req */
    where(ix, p, "inner", 0, &l, &d);
    assert_int_equal(d, 1);
    lanes_free(ix);
    filter_free(&f);
    profile_free(p);
}

/* legacy_small.h5 (FIXTURES.md): no thread ids; c[0] overlaps b[0] partly,
 * so the rank has two inferred lanes: lane 0 holds a, b (depths from the
 * inferred parents), lane 1 holds c[0] and c[1], both top-level. */
static void test_legacy_small(void **state)
{
    (void)state;
    profile *p = load_fixture("legacy_small.h5");
    lanes_index *ix = index_of(p, NULL);
    assert_int_equal(ix->nlanes, 2);
    assert_int_equal(ix->lanes[0].kind, LANE_INFERRED);
    assert_int_equal(ix->lanes[0].row, 0);
    assert_int_equal(ix->lanes[1].kind, LANE_INFERRED);
    assert_int_equal(ix->lanes[1].row, 1);
    char nb[64];
    assert_string_equal(lanes_lane_name(&ix->lanes[1], nb, sizeof nb), "r0 lane 2 (inferred)");
    const lane *ln = &ix->lanes[0];
    assert_int_equal(ln->ndepth, 3);
    /* depth 0: a0; depth 1: b0 a1 b1 (by start); depth 2: b2 */
    assert_int_equal(ln->rows[0].n, 1);
    assert_int_equal(lane_row_call(&ln->rows[0], 0), gidx(p, 0, "a", 0));
    assert_int_equal(ln->rows[1].n, 3);
    assert_int_equal(lane_row_call(&ln->rows[1], 0), gidx(p, 0, "b", 0));
    assert_int_equal(lane_row_call(&ln->rows[1], 1), gidx(p, 0, "a", 1));
    assert_int_equal(lane_row_call(&ln->rows[1], 2), gidx(p, 0, "b", 1));
    assert_int_equal(ln->rows[2].n, 1);
    assert_int_equal(lane_row_call(&ln->rows[2], 0), gidx(p, 0, "b", 2));
    for (uint32_t d = 0; d < 3; d++)
        assert_true(ln->rows[d].disjoint); /* a valid nesting per lane */
    const lane *l1 = &ix->lanes[1];
    assert_int_equal(l1->ndepth, 1);
    assert_int_equal(l1->rows[0].n, 2);
    assert_int_equal(lane_row_call(&l1->rows[0], 0), gidx(p, 0, "c", 0));
    assert_int_equal(lane_row_call(&l1->rows[0], 1), gidx(p, 0, "c", 1));
    assert_true(l1->rows[0].disjoint);
    /* a0 [0,1000] and c1 [900,1200] are on different lanes now. */
    size_t first;
    assert_int_equal(lane_row_count(ln, &ln->rows[0], 950, 960, 8, &first), 1);
    assert_int_equal(lane_row_count(l1, &l1->rows[0], 950, 960, 8, &first), 1);
    assert_int_equal(first, 1);
    assert_int_equal(lane_row_count(ln, &ln->rows[0], 1000, 1100, 8, &first), 0);
    assert_int_equal(lane_row_count(l1, &l1->rows[0], 1200, 5000, 8, &first), 0);
    /* b0 [10,50] on lane 0, c0 [40,60] on lane 1 */
    assert_int_equal(lane_row_count(ln, &ln->rows[1], 45, 46, 8, &first), 1);
    assert_int_equal(lane_row_count(l1, &l1->rows[0], 45, 46, 8, &first), 1);
    size_t l;
    uint32_t d;
    where(ix, p, "c", 1, &l, &d);
    assert_int_equal(l, 1);
    assert_int_equal(d, 0);
    where(ix, p, "b", 2, &l, &d);
    assert_int_equal(l, 0);
    assert_int_equal(d, 2);
    assert_int_equal(ix->t_min, 0);
    assert_int_equal(ix->t_max, 1200);
    lanes_free(ix);
    profile_free(p);
}

/* small.h5: thread lanes MainThread and Worker-1; io/write (thread 1) has
 * its parent outer[0] on thread 0, so it starts depth 0 in its lane; the
 * summary-only region reduce is counted, not drawn. */
static void test_small(void **state)
{
    (void)state;
    profile *p = load_fixture("small.h5");
    lanes_index *ix = index_of(p, NULL);
    assert_int_equal(ix->nlanes, 2);
    assert_int_equal(ix->lanes[0].kind, LANE_THREAD);
    assert_int_equal(ix->lanes[0].row, 0);
    assert_int_equal(ix->lanes[1].row, 1);
    assert_int_equal(ix->lanes[0].ndepth, 2);
    assert_int_equal(ix->lanes[1].ndepth, 1);
    assert_int_equal(ix->nsummary_only, 1);
    assert_int_equal(ix->ncalls, 6);
    size_t l;
    uint32_t d;
    where(ix, p, "io/write", 0, &l, &d);
    assert_int_equal(l, 1);
    assert_int_equal(d, 0);
    where(ix, p, "inner", 2, &l, &d);
    assert_int_equal(l, 0);
    assert_int_equal(d, 1);
    /* inner[1] [2100,2600] and inner[2] [2500,2900] overlap at depth 1. */
    const lane *ln = &ix->lanes[0];
    size_t first;
    assert_int_equal(lane_row_count(ln, &ln->rows[1], 2550, 2560, 8, &first), 2);
    assert_int_equal(lane_row_count(ln, &ln->rows[1], 2700, 2710, 8, &first), 1);
    assert_int_equal(lane_row_call(&ln->rows[1], first), gidx(p, 0, "inner", 2));
    /* The zero-length io/write call at 1300 occupies [1300, 1301). */
    const lane *w = &ix->lanes[1];
    assert_int_equal(lane_row_count(w, &w->rows[0], 1300, 1301, 8, &first), 1);
    assert_int_equal(lane_row_count(w, &w->rows[0], 1301, 1400, 8, &first), 0);
    assert_int_equal(lane_row_count(w, &w->rows[0], 1200, 1300, 8, &first), 0);
    lanes_free(ix);
    profile_free(p);
}

static bool match_all(const region *r, void *user)
{
    (void)r;
    (void)user;
    return true;
}

static bool match_name(const region *r, void *user)
{
    return strcmp(r->name, user) == 0;
}

/* Time order of legacy_small: a0(0) b0(10) c0(40) a1(100) b1(300) b2(300)
 * c1(900); b1 before b2 by call index. */
static void test_search_order(void **state)
{
    (void)state;
    profile *p = load_fixture("legacy_small.h5");
    lanes_index *ix = index_of(p, NULL);
    const char *names[] = {"a", "b", "c", "a", "b", "b", "c"};
    size_t idx[] = {0, 0, 0, 1, 1, 2, 1};
    lanes_key k = {INT64_MIN, 0, -1}, hit;
    for (size_t j = 0; j < N(names); j++) {
        assert_true(lanes_search(ix, &k, 1, match_all, NULL, &hit));
        assert_int_equal(hit.call, gidx(p, 0, names[j], idx[j]));
        k = hit;
    }
    assert_false(lanes_search(ix, &k, 1, match_all, NULL, &hit));
    for (size_t j = N(names) - 1; j-- > 0;) {
        assert_true(lanes_search(ix, &k, -1, match_all, NULL, &hit));
        assert_int_equal(hit.call, gidx(p, 0, names[j], idx[j]));
        k = hit;
    }
    k = (lanes_key){50, 0, -1};
    assert_true(lanes_search(ix, &k, 1, match_name, "b", &hit));
    assert_int_equal(hit.call, gidx(p, 0, "b", 1));
    assert_true(lanes_search(ix, &k, -1, match_name, "c", &hit));
    assert_int_equal(hit.call, gidx(p, 0, "c", 0));
    lanes_free(ix);
    profile_free(p);
}

/* ------------------------------------------------------- random data */

static uint64_t rng_state = 88172645463325252ull;

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static int64_t rnd_in(int64_t lo, int64_t hi)
{
    return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1));
}

/* Three regions of random calls with explicit random parents (each call's
 * parent has a smaller id), random threads and tasks, zero-length calls and
 * arbitrary overlaps: the worst case for a row. */
static profile *random_profile(size_t per_region, bool unsorted)
{
    profile *p = profile_new("random");
    rank_data *rk = profile_add_rank(p, 3);
    const char *names[] = {"alpha", "beta", "gamma"};
    int64_t next_id = 1;
    for (size_t j = 0; j < 3; j++) {
        int64_t *s = malloc(per_region * sizeof *s), *e = malloc(per_region * sizeof *e);
        int64_t *ids = malloc(per_region * sizeof *ids), *par = malloc(per_region * sizeof *par);
        int64_t *thr = malloc(per_region * sizeof *thr), *tsk = malloc(per_region * sizeof *tsk);
        assert_true(s && e && ids && par && thr && tsk);
        int64_t t = 0;
        for (size_t i = 0; i < per_region; i++) {
            t = unsorted ? rnd_in(0, 100000) : t + rnd_in(0, 40);
            s[i] = t;
            e[i] = t + (rnd() % 5 == 0 ? 0 : rnd_in(1, 3000));
            ids[i] = next_id++;
            par[i] = ids[i] > 1 && rnd() % 4 ? rnd_in(1, ids[i] - 1) : -1;
            thr[i] = rnd_in(0, 1);
            tsk[i] = rnd_in(-1, 2);
        }
        region *r = mp_region(rk, names[j], per_region, s, e);
        set_ids(r, ids, par, thr, tsk);
        free(s);
        free(e);
        free(ids);
        free(par);
        free(thr);
        free(tsk);
    }
    mp_finish(p);
    return p;
}

typedef struct call_lane {
    int kind;
    int64_t row;
} call_lane;

static call_lane lane_of_call(const rank_data *rk, int64_t g)
{
    size_t i;
    const region *r = rank_call_region(rk, g, &i);
    if (r->task_ids && r->task_ids[i] >= 0)
        return (call_lane){LANE_TASK, r->task_ids[i]};
    if (r->thread_ids && r->thread_ids[i] >= 0)
        return (call_lane){LANE_THREAD, r->thread_ids[i]};
    return (call_lane){LANE_RANK, -1};
}

static uint32_t brute_depth(const rank_data *rk, int64_t g)
{
    call_lane me = lane_of_call(rk, g);
    uint32_t d = 0;
    for (int32_t a = rk->calls->parent[g]; a >= 0; a = rk->calls->parent[a]) {
        call_lane o = lane_of_call(rk, a);
        d += o.kind == me.kind && o.row == me.row;
    }
    return d;
}

static void check_structure(const lanes_index *ix, const rank_data *rk)
{
    size_t n = rk->ncalls;
    unsigned char *seen = calloc(n, 1);
    assert_non_null(seen);
    for (size_t l = 0; l < ix->nlanes; l++) {
        const lane *ln = &ix->lanes[l];
        for (uint32_t d = 0; d < ln->ndepth; d++) {
            const lane_row *row = &ln->rows[d];
            assert_true(row->n > 0 || d > 0);
            for (size_t k = 0; k < row->n; k++) {
                int64_t g = lane_row_call(row, k), s, e, ps, pe;
                assert_false(seen[g]);
                seen[g] = 1;
                call_lane cl = lane_of_call(rk, g);
                assert_int_equal(cl.kind, ln->kind);
                assert_int_equal(cl.row, ln->row);
                assert_int_equal(brute_depth(rk, g), d);
                lanes_call_span(rk, (uint32_t)g, &s, &e);
                if (k > 0) {
                    lanes_call_span(rk, lane_row_call(row, k - 1), &ps, &pe);
                    assert_true(ps <= s);
                }
                size_t ll, pos;
                uint32_t dd;
                assert_true(lanes_locate(ix, rk->rank, g, &ll, &dd, &pos));
                assert_int_equal(ll, l);
                assert_int_equal(dd, d);
                assert_int_equal(pos, k);
            }
        }
    }
    for (size_t g = 0; g < n; g++)
        assert_true(seen[g]);
    free(seen);
}

/* Brute force: visible calls of a row in [t0, t1), and the first one. */
static size_t brute_count(const lane *ln, const lane_row *row, int64_t t0, int64_t t1,
                          size_t *first)
{
    size_t c = 0;
    *first = row->n;
    for (size_t k = 0; k < row->n; k++) {
        int64_t s, e;
        lanes_call_span(ln->rk, lane_row_call(row, k), &s, &e);
        if (s < t1 && lanes_visible_end(s, e) > t0) {
            if (c++ == 0)
                *first = k;
        }
    }
    return c;
}

static void check_queries(const lanes_index *ix)
{
    for (int trial = 0; trial < 3000; trial++) {
        const lane *ln = &ix->lanes[rnd() % ix->nlanes];
        const lane_row *row = &ln->rows[rnd() % ln->ndepth];
        int64_t t0 = rnd_in(-100, 110000), t1 = t0 + rnd_in(1, trial % 2 ? 50 : 5000);
        size_t bf, f;
        size_t want = brute_count(ln, row, t0, t1, &bf);
        assert_int_equal(lane_row_count(ln, row, t0, t1, SIZE_MAX, &f), want);
        assert_int_equal(f, bf);
        /* With a small exact budget: never more than the truth, never 0 for
         * a non-empty cell, and the same first call. */
        size_t est = lane_row_count(ln, row, t0, t1, 2, &f);
        assert_true(est <= want);
        assert_true((est == 0) == (want == 0));
        assert_int_equal(f, bf);
        /* lower_start against a scan */
        size_t ls = lane_row_lower_start(ln, row, t0), k = 0;
        for (; k < row->n; k++) {
            int64_t s, e;
            lanes_call_span(ln->rk, lane_row_call(row, k), &s, &e);
            if (s >= t0)
                break;
        }
        assert_int_equal(ls, k);
        /* From any entry known to start before t0, the same answer. */
        size_t from = ls ? (size_t)(rnd() % (ls + 1)) : 0;
        assert_int_equal(lane_row_lower_start_from(ln, row, from, t0), ls);
    }
}

static int key_cmp(const lanes_key *a, const lanes_key *b)
{
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    return (a->call > b->call) - (a->call < b->call);
}

static void check_search(const lanes_index *ix, const rank_data *rk)
{
    for (int trial = 0; trial < 200; trial++) {
        lanes_key k = {rnd_in(-10, 100000), rk->rank, (int64_t)(rnd() % rk->ncalls)}, hit;
        int dir = trial % 2 ? 1 : -1;
        const char *name = rk->regions[rnd() % rk->nregions]->name;
        bool found = lanes_search(ix, &k, dir, match_name, (void *)name, &hit);
        const region *r = rank_region(rk, name);
        bool bf = false;
        lanes_key best = {0, 0, 0};
        for (size_t i = 0; i < r->n; i++) {
            lanes_key c = {r->start_ns[i], rk->rank, (int64_t)(r->gidx0 + i)};
            int cmp = key_cmp(&c, &k);
            if ((dir > 0 && cmp <= 0) || (dir < 0 && cmp >= 0))
                continue;
            if (!bf || (dir > 0 ? key_cmp(&c, &best) < 0 : key_cmp(&c, &best) > 0)) {
                best = c;
                bf = true;
            }
        }
        assert_int_equal(found, bf);
        if (bf) {
            assert_int_equal(hit.call, best.call);
            assert_int_equal(hit.start, best.start);
        }
    }
}

static void random_case(bool unsorted)
{
    profile *p = random_profile(1500, unsorted);
    lanes_index *ix = index_of(p, NULL);
    const rank_data *rk = &p->ranks[0];
    assert_true(rk->explicit_ids);
    assert_int_equal(ix->ncalls, 4500);
    check_structure(ix, rk);
    check_queries(ix);
    check_search(ix, rk);
    lanes_free(ix);
    profile_free(p);
}

static void test_random_sorted(void **state)
{
    (void)state;
    random_case(false);
}

static void test_random_unsorted(void **state)
{
    (void)state;
    random_case(true);
}

/* A random flame graph without ids: children are laid out inside their
 * parent without overlapping, so nesting is inferred and rows are disjoint. */
typedef struct flame {
    int64_t *s[3], *e[3];
    size_t n[3], cap;
} flame;

static void flame_add(flame *f, int64_t s, int64_t e, int depth)
{
    size_t j = rnd() % 3;
    if (f->n[j] < f->cap) {
        f->s[j][f->n[j]] = s;
        f->e[j][f->n[j]++] = e;
    }
    if (depth >= 6 || e - s < 4)
        return;
    for (int64_t t = s + 1; t < e - 1;) {
        int64_t len = rnd_in(1, (e - 1 - t) / 2 + 1), cs = t, ce = t + len;
        flame_add(f, cs, ce, depth + 1);
        t = ce + rnd_in(1, 20);
    }
}

static void test_random_flame(void **state)
{
    (void)state;
    flame f = {.cap = 20000};
    for (int j = 0; j < 3; j++) {
        f.s[j] = malloc(f.cap * sizeof(int64_t));
        f.e[j] = malloc(f.cap * sizeof(int64_t));
        assert_true(f.s[j] && f.e[j]);
    }
    for (int64_t t = 0; t < 100000; t += 5000)
        flame_add(&f, t, t + 4000, 0);
    profile *p = profile_new("flame");
    rank_data *rk = profile_add_rank(p, 0);
    const char *names[] = {"x", "y", "z"};
    for (int j = 0; j < 3; j++) {
        mp_region(rk, names[j], f.n[j], f.s[j], f.e[j]);
        free(f.s[j]);
        free(f.e[j]);
    }
    mp_finish(p);
    lanes_index *ix = index_of(p, NULL);
    size_t disjoint = 0;
    for (uint32_t d = 0; d < ix->lanes[0].ndepth; d++)
        disjoint += ix->lanes[0].rows[d].disjoint;
    assert_true(disjoint > 0);
    check_structure(ix, &p->ranks[0]);
    check_queries(ix);
    lanes_free(ix);
    profile_free(p);
}

/* Many back-to-back calls in one row: the index must not depend on them
 * being visited (block arrays, 16 per block). */
static void test_disjoint_row(void **state)
{
    (void)state;
    enum { NC = 100000 };
    profile *p = profile_new("mem");
    rank_data *rk = profile_add_rank(p, 0);
    int64_t *s = malloc(NC * sizeof *s), *e = malloc(NC * sizeof *e);
    assert_true(s && e);
    for (int i = 0; i < NC; i++) {
        s[i] = 10 * (int64_t)i;
        e[i] = s[i] + 10;
    }
    mp_region(rk, "tick", NC, s, e);
    free(s);
    free(e);
    mp_finish(p);
    lanes_index *ix = index_of(p, NULL);
    const lane *ln = &ix->lanes[0];
    assert_int_equal(ln->ndepth, 1);
    size_t first;
    /* [12345, 12355) meets calls 1234 ([12340,12350)) and 1235. */
    assert_int_equal(lane_row_count(ln, &ln->rows[0], 12345, 12355, 8, &first), 2);
    assert_int_equal(first, 1234);
    /* [0, 1e6) holds 100000 calls; counted without visiting them. */
    assert_int_equal(lane_row_count(ln, &ln->rows[0], 0, 1000000, 8, &first), NC);
    assert_int_equal(lane_row_first_visible(ln, &ln->rows[0], 999990), NC - 1);
    assert_int_equal(lane_row_first_visible(ln, &ln->rows[0], 1000000), NC);
    lanes_free(ix);
    profile_free(p);
}

/* Rows that mix regions are filled by merging only the regions whose calls
 * reach such a row.  One lane, nesting inferred from times; call indices
 * follow the regions' order (by name):
 *   a_top  g0 [0,100]   g1 [200,300]               depth 0
 *   b_mid  g2 [10,50]   g3 [210,250] (in a_top)    depth 1
 *          g4 [400,450] (top level)                depth 0
 *   c_leaf g5 [20,30]   g6 [220,230] (in b_mid)    depth 2, alone on its row
 *   d_side g7 [60,70]   (in a_top[0], after b_mid[0]) depth 1
 * Row 0 is g0 g1 g4, row 1 g2 g7 g3 (by start), row 2 g5 g6. */
static void test_rows_merge_mixed_only(void **state)
{
    (void)state;
    profile *p = profile_new("mem");
    rank_data *rk = profile_add_rank(p, 0);
    int64_t ts[] = {0, 200}, te[] = {100, 300};
    int64_t ms[] = {10, 210, 400}, me[] = {50, 250, 450};
    int64_t ls[] = {20, 220}, le[] = {30, 230};
    int64_t ss[] = {60}, se[] = {70};
    mp_region(rk, "a_top", 2, ts, te);
    mp_region(rk, "b_mid", 3, ms, me);
    mp_region(rk, "c_leaf", 2, ls, le);
    mp_region(rk, "d_side", 1, ss, se);
    mp_finish(p);
    lanes_index *ix = index_of(p, NULL);
    assert_int_equal(ix->nlanes, 1);
    const lane *ln = &ix->lanes[0];
    assert_int_equal(ln->ndepth, 3);
    static const uint32_t want0[] = {0, 1, 4}, want1[] = {2, 7, 3}, want2[] = {5, 6};
    const uint32_t *want[] = {want0, want1, want2};
    static const size_t nwant[] = {3, 3, 2};
    for (uint32_t d = 0; d < 3; d++) {
        assert_int_equal(ln->rows[d].n, nwant[d]);
        for (size_t k = 0; k < nwant[d]; k++)
            assert_int_equal(lane_row_call(&ln->rows[d], k), want[d][k]);
    }
    lanes_free(ix);
    profile_free(p);
}

/* Lane depths are kept in a byte a call below 255 and widened past it: a
 * chain of 300 calls, each inside the one before ([i, 1000 - i]), gives
 * 300 rows of one call, call i on row i, at both widths alike. */
static void test_deep_chain(void **state)
{
    (void)state;
    for (int depth = 254; depth <= 300; depth += 46) {
        int64_t s[300], e[300];
        for (int i = 0; i < depth; i++) {
            s[i] = i;
            e[i] = 1000 - i;
        }
        profile *p = profile_new("mem");
        mp_region(profile_add_rank(p, 0), "f", (size_t)depth, s, e);
        mp_finish(p);
        lanes_index *ix = index_of(p, NULL);
        assert_int_equal(ix->nlanes, 1);
        const lane *ln = &ix->lanes[0];
        assert_int_equal(ln->ndepth, depth);
        for (int d = 0; d < depth; d++) {
            assert_int_equal(ln->rows[d].n, 1);
            assert_int_equal(lane_row_call(&ln->rows[d], 0), d);
        }
        lanes_free(ix);
        profile_free(p);
    }
}

/* rank_call_region_at against a walk over the regions: an empty region
 * between two, and a call past the last. */
static void test_call_region_at(void **state)
{
    (void)state;
    region a = {0}, b = {0}, c = {0};
    a.gidx0 = 0, a.n = 3;
    b.gidx0 = 3, b.n = 0;
    c.gidx0 = 3, c.n = 2;
    region *v[] = {&a, &b, &c};
    rank_data rk = {0};
    rk.regions = v;
    rk.nregions = 3;
    rk.ncalls = 5;
    size_t want_j[] = {0, 0, 0, 2, 2, 3}, want_i[] = {0, 1, 2, 0, 1, 0};
    for (size_t g = 0; g < 6; g++) {
        size_t i = 99;
        assert_int_equal(rank_call_region_at(&rk, g, &i), want_j[g]);
        assert_int_equal(i, want_i[g]);
    }
    assert_int_equal(rank_call_region_at(&rk, 4, NULL), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_server_lanes),          cmocka_unit_test(test_filter_drops_calls),
        cmocka_unit_test(test_legacy_small),          cmocka_unit_test(test_small),
        cmocka_unit_test(test_search_order),          cmocka_unit_test(test_random_sorted),
        cmocka_unit_test(test_random_unsorted),       cmocka_unit_test(test_disjoint_row),
        cmocka_unit_test(test_random_flame),          cmocka_unit_test(test_deep_chain),
        cmocka_unit_test(test_threads_taking_turns),  cmocka_unit_test(test_call_region_at),
        cmocka_unit_test(test_rows_merge_mixed_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
