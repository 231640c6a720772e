/* The finishing step on threads (par.c, finish.c) gives the serial step's
 * model byte for byte: every shared profile and the fixtures loaded with
 * SCOPEVIEW_THREADS=1 and =4, and generated many-region, many-rank
 * profiles (dropped regions, nesting warnings, summary-only regions, big
 * regions on the radix percentiles) finished both ways; the model
 * compared through its wire stream (every field, statistics bit for bit),
 * region by region and warning by warning.  And par_run() itself: every
 * task once, warnings in task order, the weight cap kept. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <hdf5.h>
#include <pthread.h>

#include "load/loader.h"
#include "memprof.h"
#include "model/par.h"
#include "model/profile.h"
#include "testutil.h"
#include "isolate/wire.h"

/* --- comparing two models ------------------------------------------ */

static unsigned char *stream_of(const profile *p, size_t *len)
{
    int fd = memfd_create("wire", 0);
    assert_true(fd >= 0);
    assert_int_equal(wire_send_profile(fd, p), 0);
    off_t end = lseek(fd, 0, SEEK_END);
    assert_true(end > 0);
    unsigned char *b = malloc((size_t)end);
    assert_non_null(b);
    assert_int_equal(pread(fd, b, (size_t)end, 0), end);
    close(fd);
    *len = (size_t)end;
    return b;
}

static void check_same(const char *what, const profile *a, const profile *b)
{
    assert_int_equal(a->nregions, b->nregions);
    for (size_t i = 0; i < a->nregions; i++) {
        const region *x = a->regions[i], *y = b->regions[i];
        assert_string_equal(x->name, y->name);
        assert_int_equal(x->rank, y->rank);
        assert_int_equal(x->n, y->n);
        assert_int_equal(x->gidx0, y->gidx0);
        if (memcmp(&x->st, &y->st, sizeof x->st) != 0)
            fail_msg("%s: rank %d region %s: statistics differ", what, x->rank, x->name);
    }
    assert_int_equal(a->nranks, b->nranks);
    for (size_t i = 0; i < a->nranks; i++) {
        assert_int_equal(a->ranks[i].ncalls, b->ranks[i].ncalls);
        assert_int_equal(a->ranks[i].explicit_ids, b->ranks[i].explicit_ids);
        assert_int_equal(a->ranks[i].ninferred_lanes, b->ranks[i].ninferred_lanes);
    }
    if (a->nwarnings != b->nwarnings)
        fail_msg("%s: %zu warnings serially, %zu on threads", what, a->nwarnings, b->nwarnings);
    for (size_t i = 0; i < a->nwarnings; i++)
        assert_string_equal(a->warnings[i], b->warnings[i]);
    assert_int_equal(a->has_min_start, b->has_min_start);
    assert_int_equal(a->min_start_ns, b->min_start_ns);
    size_t la, lb;
    unsigned char *sa = stream_of(a, &la), *sb = stream_of(b, &lb);
    if (la != lb || memcmp(sa, sb, la) != 0)
        fail_msg("%s: the threaded model differs from the serial one", what);
    free(sa);
    free(sb);
}

static void set_threads(int n)
{
    char v[16];
    snprintf(v, sizeof v, "%d", n);
    assert_int_equal(setenv("SCOPEVIEW_THREADS", v, 1), 0);
    assert_int_equal(par_threads(), n);
}

/* --- every shared profile and fixture -------------------------------- */

static void check_file(const char *path, size_t *count)
{
    profile *a = NULL, *b = NULL;
    sv_error e1, e2;
    set_threads(1);
    sv_err r1 = profile_load(path, NULL, &a, &e1);
    set_threads(4);
    sv_err r2 = profile_load(path, NULL, &b, &e2);
    unsetenv("SCOPEVIEW_THREADS");
    assert_int_equal(r1, r2);
    if (r1 == SV_OK)
        check_same(path, a, b);
    else
        assert_string_equal(e1.msg, e2.msg);
    profile_free(a);
    profile_free(b);
    (*count)++;
}

/* Every *.h5 under dir, subdirectories too. */
static void check_tree(const char *dir, size_t *count)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        struct stat st;
        if (stat(path, &st) != 0)
            continue;
        size_t n = strlen(de->d_name);
        if (S_ISDIR(st.st_mode))
            check_tree(path, count);
        else if (n > 3 && strcmp(de->d_name + n - 3, ".h5") == 0)
            check_file(path, count);
    }
    closedir(d);
}

static void test_files(void **state)
{
    (void)state;
    char dir[4096];
    size_t count = 0;
    sv_fixture_path(dir, sizeof dir, "");
    check_tree(dir, &count);
    size_t fixtures = count;
    if (sv_shared_available()) {
        sv_shared_path(dir, sizeof dir, "data");
        check_tree(dir, &count);
        assert_true(count - fixtures >= 17); /* data/real, extended, upstream */
    }
    print_message("%zu files compared\n", count);
    assert_true(fixtures >= 10);
}

/* --- generated profiles ---------------------------------------------- */

static uint64_t rnd(uint64_t *s)
{
    /* splitmix64: the same profile on every run */
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Calls nested by construction: call i of a region lies inside the
 * enclosing region's call i / fan (ids link them on explicit ranks). */
static void gen_region(rank_data *rk, const char *name, size_t n, uint64_t *seed, bool ids,
                       int64_t id0, size_t parents, int64_t parent_id0)
{
    int64_t *s = malloc((n ? n : 1) * sizeof *s), *e = malloc((n ? n : 1) * sizeof *e);
    int64_t *ci = malloc((n ? n : 1) * sizeof *ci), *pi = malloc((n ? n : 1) * sizeof *pi);
    assert_true(s && e && ci && pi);
    int64_t t = 1000;
    for (size_t i = 0; i < n; i++) {
        t += (int64_t)(rnd(seed) % 50);
        s[i] = t;
        /* Durations over many octaves: exercises the radix buckets. */
        int64_t d = (int64_t)(rnd(seed) % ((uint64_t)1 << (rnd(seed) % 24)));
        e[i] = t + d;
        t += d / 2;
        ci[i] = id0 + (int64_t)i;
        pi[i] = parents ? parent_id0 + (int64_t)(rnd(seed) % parents) : -1;
    }
    region *r = mp_region(rk, name, n, s, e);
    if (ids) {
        mp_col(&r->call_ids, ci, n);
        mp_col(&r->parent_ids, pi, n);
    }
    if (n && rnd(seed) % 4 == 0) {
        for (size_t i = 0; i < n; i++)
            ci[i] = (int64_t)(rnd(seed) % 1000) - 100; /* < 0: no GPU time */
        mp_col(&r->gpu_ns, ci, n);
    }
    free(s);
    free(e);
    free(ci);
    free(pi);
}

/* Ranks in a scrambled order; per rank, regions added in an order that is
 * not their name order.  Some ranks get a region whose call ends before it
 * starts (dropped, with a warning), explicit ids with orphan parents
 * (warned), a repeated id (warned), summary-only regions. */
static profile *gen_profile(uint64_t seed, size_t nranks, size_t nregions, size_t big)
{
    profile *p = profile_new("generated");
    assert_non_null(p);
    for (size_t k = 0; k < nranks; k++) {
        int rank = (int)((k * 7 + 3) % nranks);
        rank_data *rk = profile_add_rank(p, rank);
        assert_non_null(rk);
        bool ids = rank % 3 != 0;
        int64_t id0 = 1;
        size_t prev_n = 0;
        int64_t prev_id0 = 0;
        for (size_t j = 0; j < nregions; j++) {
            char name[64];
            snprintf(name, sizeof name, "mod%zu/func_%03zu", (j * 37) % 11, (j * 53) % nregions);
            size_t n = j == 1 && k < 2 ? big : (size_t)(rnd(&seed) % 300);
            if (j % 17 == 5) {
                region *r = rank_add_region(rk, name);
                assert_non_null(r); /* summary-only */
                continue;
            }
            gen_region(rk, name, n, &seed, ids, id0, prev_n, prev_id0);
            region *r = rk->regions[rk->nregions - 1];
            if (rank % 4 == 1 && j % 29 == 7 && n > 2) {
                r->end_ns[n / 2] = r->start_ns[n / 2] - 1; /* dropped */
            }
            if (ids && rank % 5 == 2 && j == 3 && n > 2)
                r->parent_ids[0] = 999999999; /* an orphan */
            if (ids && rank == 4 && j == 8 && n > 2)
                r->call_ids[1] = r->call_ids[0]; /* a repeated id: inferred instead */
            prev_n = n;
            prev_id0 = id0;
            id0 += (int64_t)n;
        }
    }
    return p;
}

static void check_generated(uint64_t seed, size_t nranks, size_t nregions, size_t big)
{
    profile *a = gen_profile(seed, nranks, nregions, big);
    profile *b = gen_profile(seed, nranks, nregions, big);
    sv_error e1, e2;
    set_threads(1);
    assert_int_equal(profile_finish(a, &e1), SV_OK);
    set_threads(4);
    assert_int_equal(profile_finish(b, &e2), SV_OK);
    unsetenv("SCOPEVIEW_THREADS");
    check_same("generated", a, b);
    /* The generator did make what it means to test. */
    assert_true(a->nwarnings >= 2);
    bool dropped = false;
    for (size_t i = 0; i < a->nwarnings; i++)
        dropped |= strstr(a->warnings[i], "region dropped") != NULL;
    assert_true(dropped);
    profile_free(a);
    profile_free(b);
}

static void test_many_regions(void **state)
{
    (void)state;
    check_generated(1, 12, 300, 200000);
}

static void test_one_rank(void **state)
{
    (void)state;
    check_generated(2, 2, 40, 300000);
    /* One rank: the nesting runs beside the statistics. */
    profile *a = gen_profile(3, 1, 30, 250000), *b = gen_profile(3, 1, 30, 250000);
    sv_error err;
    set_threads(1);
    assert_int_equal(profile_finish(a, &err), SV_OK);
    set_threads(3);
    assert_int_equal(profile_finish(b, &err), SV_OK);
    unsetenv("SCOPEVIEW_THREADS");
    check_same("one rank", a, b);
    profile_free(a);
    profile_free(b);
}

/* --- a schema-3 file: rows decoded on threads, warned in row order ---- */

static void put_col(hid_t loc, const char *name, hid_t ftype, hid_t mtype, const void *v, hsize_t n)
{
    hid_t sp = H5Screate_simple(1, &n, NULL);
    hid_t d = H5Dcreate2(loc, name, ftype, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(d >= 0);
    assert_true(H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
    H5Dclose(d);
    H5Sclose(sp);
}

/* Two ranks of five rows (a..e), three calls each; on each rank row b's
 * start times overflow and row d ends before it starts (both dropped). */
static void write_schema3(const char *path)
{
    enum { ROWS = 10, CALLS = 3 };
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(f >= 0);
    hid_t sp = H5Screate(H5S_SCALAR);
    int64_t three = 3;
    hid_t a = H5Acreate2(f, "scope_profiler_schema", H5T_STD_I64LE, sp, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, H5T_NATIVE_INT64, &three);
    H5Aclose(a);
    H5Sclose(sp);
    hid_t g = H5Gcreate2(f, "region_table", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t st = H5Tcopy(H5T_C_S1);
    H5Tset_size(st, H5T_VARIABLE);
    H5Tset_cset(st, H5T_CSET_UTF8);
    const char *names[5] = {"a", "b", "c", "d", "e"};
    put_col(g, "names", st, st, names, 5);
    H5Tclose(st);
    H5Gclose(g);
    uint64_t rid[ROWS], rank[ROWS], off[ROWS], cnt[ROWS];
    int64_t delta[ROWS * CALLS], dur[ROWS * CALLS];
    for (size_t i = 0; i < ROWS; i++) {
        rid[i] = i % 5;
        rank[i] = i / 5;
        off[i] = i * CALLS;
        cnt[i] = CALLS;
        for (size_t k = 0; k < CALLS; k++) {
            delta[i * CALLS + k] = k == 0 ? (int64_t)(100 + i) : (int64_t)(10 + k);
            dur[i * CALLS + k] = (int64_t)(1 + k + i);
        }
    }
    delta[1 * CALLS + 2] = delta[6 * CALLS + 1] = INT64_MAX; /* row b: the sum overflows */
    dur[3 * CALLS + 1] = dur[8 * CALLS + 2] = -40;           /* row d: end < start */
    g = H5Gcreate2(f, "rank_region_index", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    put_col(g, "region_ids", H5T_STD_U64LE, H5T_NATIVE_UINT64, rid, ROWS);
    put_col(g, "ranks", H5T_STD_U64LE, H5T_NATIVE_UINT64, rank, ROWS);
    put_col(g, "event_offsets", H5T_STD_U64LE, H5T_NATIVE_UINT64, off, ROWS);
    put_col(g, "event_counts", H5T_STD_U64LE, H5T_NATIVE_UINT64, cnt, ROWS);
    H5Gclose(g);
    g = H5Gcreate2(f, "events", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    put_col(g, "start_deltas", H5T_STD_I64LE, H5T_NATIVE_INT64, delta, ROWS * CALLS);
    put_col(g, "durations", H5T_STD_I64LE, H5T_NATIVE_INT64, dur, ROWS * CALLS);
    H5Gclose(g);
    H5Fclose(f);
}

static void test_schema3_decode(void **state)
{
    (void)state;
    char path[256];
    snprintf(path, sizeof path, "/tmp/sv-par-%ld.h5", (long)getpid());
    write_schema3(path);
    size_t count = 0;
    check_file(path, &count); /* 1 and 4 threads: the same model and warnings */
    profile *p;
    sv_error err;
    set_threads(4);
    assert_int_equal(profile_load(path, NULL, &p, &err), SV_OK);
    unsetenv("SCOPEVIEW_THREADS");
    unlink(path);
    assert_int_equal(p->nregions, 6); /* a, c, e on both ranks */
    /* In row order: rank 0's b then d, rank 1's b then d. */
    const char *want[4][2] = {{"region b", "start time overflows at call 2"},
                              {"region d", "end < start at call 1"},
                              {"region b", "start time overflows at call 1"},
                              {"region d", "end < start at call 2"}};
    assert_int_equal(p->nwarnings, 4);
    for (size_t i = 0; i < 4; i++)
        if (!strstr(p->warnings[i], want[i][0]) || !strstr(p->warnings[i], want[i][1]))
            fail_msg("warning %zu: want %s ... %s, got %s", i, want[i][0], want[i][1],
                     p->warnings[i]);
    /* Row e of rank 1 decoded: starts are running sums of the deltas. */
    const region *e = rank_region(profile_rank(p, 1), "e");
    assert_non_null(e);
    assert_int_equal(e->start_ns[0], 109);
    assert_int_equal(e->start_ns[1], 120);
    assert_int_equal(e->start_ns[2], 132);
    assert_int_equal(e->end_ns[2], 132 + 3 + 9);
    profile_free(p);
}

/* --- par_run itself ---------------------------------------------------- */

typedef struct run_ctx {
    profile *p;
    int *ran;
    uint64_t *weight;
    pthread_mutex_t mu;
    uint64_t inflight, peak;
} run_ctx;

static void run_task(void *ctx, size_t t)
{
    run_ctx *c = ctx;
    pthread_mutex_lock(&c->mu);
    c->inflight += c->weight[t];
    if (c->inflight > c->peak)
        c->peak = c->inflight;
    pthread_mutex_unlock(&c->mu);
    c->ran[t]++;
    for (int k = 0; k < (int)(t % 3); k++)
        profile_warn(c->p, "task %zu: line %d", t, k);
    usleep(t % 7 == 0 ? 200 : 0);
    pthread_mutex_lock(&c->mu);
    c->inflight -= c->weight[t];
    pthread_mutex_unlock(&c->mu);
}

static void test_run(void **state)
{
    (void)state;
    enum { NT = 500 };
    static int ran[NT];
    static uint64_t weight[NT];
    static par_warns warns[NT];
    memset(ran, 0, sizeof ran);
    for (size_t t = 0; t < NT; t++)
        weight[t] = t % 10 == 0 ? 50 : t % 5;
    run_ctx c = {.p = profile_new("par"), .ran = ran, .weight = weight};
    assert_non_null(c.p);
    pthread_mutex_init(&c.mu, NULL);
    par_job job = {NT, run_task, &c, warns, weight, 60};
    par_run(&job, 4);
    pthread_mutex_destroy(&c.mu);
    for (size_t t = 0; t < NT; t++)
        assert_int_equal(ran[t], 1);
    assert_true(c.peak <= 60);
    assert_int_equal(c.p->nwarnings, 0); /* kept aside until replayed */
    for (size_t t = 0; t < NT; t++)
        par_warns_replay(c.p, &warns[t]);
    /* In task order, the cap per kind applied as when warned serially. */
    profile *q = profile_new("par");
    assert_non_null(q);
    for (size_t t = 0; t < NT; t++)
        for (int j = 0; j < (int)(t % 3); j++)
            profile_warn(q, "task %zu: line %d", t, j);
    assert_true(q->nwarnings >= 10);
    assert_int_equal(c.p->nwarnings, q->nwarnings);
    for (size_t i = 0; i < q->nwarnings; i++)
        assert_string_equal(c.p->warnings[i], q->warnings[i]);
    profile_free(q);
    profile_free(c.p);
}

/* A crew runs job after job as par_run does: every task of each once,
 * the weight cap kept, the warnings kept per task; and its helpers run
 * tasks beside the caller (task 0 waits for task 1 to start: one thread
 * alone would time out).  Without helpers (NULL) a job runs serially. */
typedef struct pair_ctx {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool started1, timed_out;
} pair_ctx;

static void pair_task(void *ctx, size_t t)
{
    pair_ctx *c = ctx;
    pthread_mutex_lock(&c->mu);
    if (t == 1) {
        c->started1 = true;
        pthread_cond_broadcast(&c->cv);
    } else {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 20;
        while (!c->started1 && !c->timed_out)
            c->timed_out = pthread_cond_timedwait(&c->cv, &c->mu, &until) != 0;
    }
    pthread_mutex_unlock(&c->mu);
}

static void test_crew(void **state)
{
    (void)state;
    enum { NT = 40, JOBS = 300 };
    static int ran[NT];
    static uint64_t weight[NT];
    static par_warns warns[NT];
    assert_null(par_crew_start(1));
    par_crew *cr = par_crew_start(4);
    assert_non_null(cr);
    for (size_t t = 0; t < NT; t++)
        weight[t] = t % 10 == 0 ? 50 : t % 5;
    for (size_t j = 0; j < JOBS; j++) {
        size_t nt = j % NT + 1;
        memset(ran, 0, sizeof ran);
        run_ctx c = {.p = profile_new("crew"), .ran = ran, .weight = weight};
        assert_non_null(c.p);
        pthread_mutex_init(&c.mu, NULL);
        par_job job = {nt, run_task, &c, warns, j % 2 ? weight : NULL, 60};
        par_crew_run(cr, &job);
        pthread_mutex_destroy(&c.mu);
        for (size_t t = 0; t < NT; t++)
            assert_int_equal(ran[t], t < nt ? 1 : 0);
        if (j % 2)
            assert_true(c.peak <= 60);
        assert_int_equal(c.p->nwarnings, 0);
        size_t lines = 0;
        for (size_t t = 0; t < nt; t++) {
            assert_int_equal(warns[t].n, t % 3);
            lines += warns[t].n;
            par_warns_replay(c.p, &warns[t]);
        }
        assert_true(c.p->nwarnings <= lines);
        profile_free(c.p);
    }
    pair_ctx pc = {.started1 = false};
    pthread_mutex_init(&pc.mu, NULL);
    pthread_cond_init(&pc.cv, NULL);
    par_job pair = {2, pair_task, &pc, NULL, NULL, 0};
    par_crew_run(cr, &pair);
    assert_false(pc.timed_out);
    assert_true(pc.started1);
    pthread_cond_destroy(&pc.cv);
    pthread_mutex_destroy(&pc.mu);
    par_crew_stop(cr);
    /* NULL: the caller alone, in task order */
    memset(ran, 0, sizeof ran);
    run_ctx c = {.p = profile_new("crew"), .ran = ran, .weight = weight};
    pthread_mutex_init(&c.mu, NULL);
    par_job job = {NT, run_task, &c, NULL, NULL, 0};
    par_crew_run(NULL, &job);
    pthread_mutex_destroy(&c.mu);
    for (size_t t = 0; t < NT; t++)
        assert_int_equal(ran[t], 1);
    profile *q = profile_new("crew"); /* serial: straight to the profile */
    for (size_t t = 0; t < NT; t++)
        for (int k = 0; k < (int)(t % 3); k++)
            profile_warn(q, "task %zu: line %d", t, k);
    assert_int_equal(c.p->nwarnings, q->nwarnings);
    for (size_t i = 0; i < q->nwarnings; i++)
        assert_string_equal(c.p->warnings[i], q->warnings[i]);
    profile_free(q);
    profile_free(c.p);
}

/* A task that must wait for memory lets a later one that fits go first:
 * task 0 holds most of the cap until task 2 has started; task 1 cannot start
 * beside it, so the other thread must skip to task 2 (else this times
 * out). */
typedef struct ahead_ctx {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool started2, timed_out;
    int order[3], n;
} ahead_ctx;

static void ahead_task(void *ctx, size_t t)
{
    ahead_ctx *c = ctx;
    pthread_mutex_lock(&c->mu);
    c->order[c->n++] = (int)t;
    if (t == 2) {
        c->started2 = true;
        pthread_cond_broadcast(&c->cv);
    }
    if (t == 0) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 20;
        while (!c->started2 && !c->timed_out)
            c->timed_out = pthread_cond_timedwait(&c->cv, &c->mu, &until) != 0;
    }
    pthread_mutex_unlock(&c->mu);
}

static void test_run_ahead(void **state)
{
    (void)state;
    ahead_ctx c = {.n = 0};
    pthread_mutex_init(&c.mu, NULL);
    pthread_cond_init(&c.cv, NULL);
    uint64_t weight[3] = {9, 10, 1};
    par_warns warns[3] = {{0}};
    par_job job = {3, ahead_task, &c, warns, weight, 10};
    par_run(&job, 2);
    assert_false(c.timed_out);
    assert_int_equal(c.n, 3);
    assert_int_equal(c.order[0], 0);
    assert_int_equal(c.order[1], 2);
    assert_int_equal(c.order[2], 1);
    pthread_cond_destroy(&c.cv);
    pthread_mutex_destroy(&c.mu);
}

static void test_threads_env(void **state)
{
    (void)state;
    set_threads(1);
    set_threads(7);
    assert_int_equal(setenv("SCOPEVIEW_THREADS", "999", 1), 0);
    assert_int_equal(par_threads(), PAR_MAX_THREADS);
    assert_int_equal(setenv("SCOPEVIEW_THREADS", "zero", 1), 0);
    assert_true(par_threads() >= 1); /* not a number: the machine's count */
    unsetenv("SCOPEVIEW_THREADS");
    assert_true(par_threads() >= 1 && par_threads() <= PAR_MAX_THREADS);
}

/* An MPI run's processes share the machine's CPUs: together never more
 * threads than CPUs, each at least one, none more than SCOPEVIEW_THREADS. */
static void test_threads_shared(void **state)
{
    (void)state;
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    assert_true(online >= 1);
    assert_int_equal(setenv("SCOPEVIEW_THREADS", "16", 1), 0);
    long want1 = online < 16 ? online : 16;
    assert_int_equal(par_threads_shared(1), want1); /* alone: every CPU (up to the cap) */
    for (int procs = 2; procs <= 4 * (int)online + 1; procs++) {
        int n = par_threads_shared(procs);
        if (n < 1 || (procs <= online && (long)n * procs > online))
            fail_msg("%d processes on %ld CPUs: %d threads each", procs, online, n);
    }
    assert_int_equal(par_threads_shared(4 * (int)online), 1); /* more processes than CPUs */
    if (online >= 2)
        assert_int_equal(par_threads_shared(2), online / 2 < 16 ? online / 2 : 16);
    assert_int_equal(setenv("SCOPEVIEW_THREADS", "1", 1), 0);
    assert_int_equal(par_threads_shared(1), 1); /* forced: never more */
    unsetenv("SCOPEVIEW_THREADS");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads_env), cmocka_unit_test(test_threads_shared),
        cmocka_unit_test(test_run),         cmocka_unit_test(test_run_ahead),
        cmocka_unit_test(test_crew),        cmocka_unit_test(test_many_regions),
        cmocka_unit_test(test_one_rank),    cmocka_unit_test(test_schema3_decode),
        cmocka_unit_test(test_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
