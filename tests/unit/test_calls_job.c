/* calls_job: the per-call nesting built on worker threads equals the
 * values worked out by hand (the legacy_small profile of test_nest.c) and
 * the serial profile_ensure_calls() on every rank; a held job publishes
 * nothing until released; cancelling leaves the profile as it was.  Built
 * with --enable-tsan, this also runs the threads under ThreadSanitizer. */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "model/calls_job.h"
#include "memprof.h"
#include "model/region.h"

static int64_t gi(const rank_data *rk, const char *name, size_t i)
{
    return (int64_t)(rank_region(rk, name)->gidx0 + i);
}

static void sleep_ms(long ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

static void same_calls(const rank_data *rx, const rank_data *ry)
{
    const rank_calls *x = rx->calls, *y = ry->calls;
    assert_int_equal(x->n, y->n);
    size_t n = x->n;
    assert_memory_equal(x->parent, y->parent, n * sizeof *x->parent);
    for (size_t g = 0; g < n; g++)
        assert_int_equal(rank_call_excl(rx, g), rank_call_excl(ry, g));
    for (size_t g = 0; g < n; g++)
        assert_int_equal(rank_call_depth(rx, g), rank_call_depth(ry, g));
    /* children: every call with a parent (roots are nobody's child) */
    assert_int_equal(x->nchild, y->nchild);
    assert_memory_equal(x->child, y->child, x->nchild * sizeof *x->child);
    assert_int_equal(x->lane != NULL, y->lane != NULL);
    if (x->lane)
        assert_memory_equal(x->lane, y->lane, n * sizeof *x->lane);
}

static void test_by_hand(void **state)
{
    (void)state;
    profile *p = mp_ranks_profile(1);
    calls_job *j;
    assert_int_equal(calls_job_start(p, false, 0, NULL, &j, NULL), SV_OK);
    calls_job_wait(j);
    assert_true(calls_job_done(j));
    assert_int_equal(calls_job_install(j, NULL), SV_OK);
    const rank_data *rk = &p->ranks[0];
    const rank_calls *c = rk->calls;
    assert_non_null(c);
    /* test_nest.c's legacy_small, worked out by hand */
    assert_int_equal(c->parent[gi(rk, "b", 0)], gi(rk, "a", 0));
    assert_int_equal(c->parent[gi(rk, "c", 0)], -1);
    assert_int_equal(c->parent[gi(rk, "b", 2)], gi(rk, "b", 1));
    assert_int_equal(rank_call_depth(rk, (size_t)gi(rk, "b", 2)), 2);
    assert_int_equal(rank_call_excl(rk, (size_t)gi(rk, "a", 0)), 760);
    assert_int_equal(rank_call_excl(rk, (size_t)gi(rk, "c", 0)), 20);
    const uint32_t *kid;
    assert_int_equal(rank_call_children(rk, (size_t)gi(rk, "a", 0), &kid), 3);
    assert_int_equal(c->lane[gi(rk, "c", 1)], 1);
    /* the totals of profile_finish are left as they were */
    assert_int_equal(rank_region(rk, "a")->st.exclusive_total_ns, 860);
    assert_int_equal(rank_region(rk, "b")->st.exclusive_total_ns, 140);
    assert_int_equal(rank_region(rk, "c")->st.exclusive_total_ns, 320);
    assert_int_equal(rk->ninferred_lanes, 2);
    profile_free(p);
}

/* Many ranks over the worker threads: each rank as the serial build has it. */
static void test_equals_serial(void **state)
{
    (void)state;
    enum { NR = 9 };
    profile *p = mp_ranks_profile(NR), *q = mp_ranks_profile(NR);
    calls_job *j;
    assert_int_equal(calls_job_start(p, false, 0, NULL, &j, NULL), SV_OK);
    assert_int_equal(profile_ensure_calls(q, NULL), SV_OK);
    calls_job_wait(j);
    assert_int_equal(calls_job_install(j, NULL), SV_OK);
    for (int k = 0; k < NR; k++) {
        assert_non_null(p->ranks[k].calls);
        same_calls(&p->ranks[k], &q->ranks[k]);
        /* per call, worked out from the children, they add up to the totals
         * the loader's sweep counted */
        const rank_data *rk = &p->ranks[k];
        for (size_t ri = 0; ri < rk->nregions; ri++) {
            const region *r = rk->regions[ri];
            int64_t sum = 0;
            for (size_t i = 0; i < r->n; i++)
                sum += rank_call_excl(rk, r->gidx0 + i);
            assert_int_equal(sum, r->st.exclusive_total_ns);
        }
        assert_int_equal(rank_region(&p->ranks[k], "a")->st.exclusive_total_ns, 860);
    }
    profile_free(p);
    profile_free(q);
}

/* Held: done stays false (the viewer keeps saying "computing…") while
 * the profile is read meanwhile, as the viewer does; then it publishes. */
static void test_hold_release(void **state)
{
    (void)state;
    profile *p = mp_ranks_profile(4);
    calls_job *j;
    assert_int_equal(calls_job_start(p, true, 0, NULL, &j, NULL), SV_OK);
    int64_t seen = 0;
    for (int i = 0; i < 5; i++) {
        sleep_ms(4);
        assert_false(calls_job_done(j));
        for (size_t k = 0; k < p->nranks; k++) /* what the regions view reads */
            seen += rank_region(&p->ranks[k], "a")->st.exclusive_total_ns;
        assert_null(p->ranks[0].calls);
    }
    assert_int_equal(seen, 5 * 4 * 860);
    calls_job_release(j);
    while (!calls_job_done(j))
        sleep_ms(1);
    assert_int_equal(calls_job_install(j, NULL), SV_OK);
    assert_non_null(p->ranks[3].calls);
    assert_int_equal(rank_call_excl(&p->ranks[3], (size_t)gi(&p->ranks[3], "a", 0)), 760);
    profile_free(p);
}

/* Quitting while it runs: nothing is installed, nothing leaks. */
static void test_cancel(void **state)
{
    (void)state;
    profile *p = mp_ranks_profile(6);
    calls_job *j;
    assert_int_equal(calls_job_start(p, true, 0, NULL, &j, NULL), SV_OK);
    calls_job_cancel(j);
    for (size_t k = 0; k < p->nranks; k++)
        assert_null(p->ranks[k].calls);
    calls_job_cancel(NULL);
    profile_free(p);
}

/* A rank that already has its arrays (built meanwhile by the viewer's
 * thread) keeps them; the others are installed. */
static void test_install_keeps_existing(void **state)
{
    (void)state;
    profile *p = mp_ranks_profile(3);
    calls_job *j;
    assert_int_equal(calls_job_start(p, true, 0, NULL, &j, NULL), SV_OK);
    assert_int_equal(profile_ensure_calls(p, NULL), SV_OK);
    rank_calls *mine = p->ranks[1].calls;
    assert_int_equal(calls_job_install(j, NULL), SV_OK); /* releases and waits */
    assert_ptr_equal(p->ranks[1].calls, mine);
    profile_free(p);
}

#ifdef __linux__
/* The nice of the calling thread (Linux: per thread, the tid as a pid). */
static int thread_nice(void)
{
    errno = 0;
    int n = getpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid));
    assert_int_equal(errno, 0);
    return n;
}

static void *background_thread(void *arg)
{
    int *out = arg;
    out[0] = thread_nice();
    calls_job_background();
    out[1] = thread_nice();
    calls_job_background(); /* twice: never lower than it was */
    out[2] = thread_nice();
    return NULL;
}
#endif

/* A worker thread runs behind the UI thread's first frame: its own nice
 * goes up to CALLS_JOB_NICE (not the process's: the caller's is kept). */
static void test_background_nice(void **state)
{
    (void)state;
#ifdef __linux__
    int before = thread_nice(), seen[3] = {0, 0, 0};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, background_thread, seen), 0);
    pthread_join(t, NULL);
    assert_int_equal(seen[0], before);
    assert_int_equal(seen[1], before > CALLS_JOB_NICE ? before : CALLS_JOB_NICE);
    assert_int_equal(seen[2], seen[1]);
    assert_int_equal(thread_nice(), before); /* the calling thread untouched */
#else
    skip();
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_by_hand),
        cmocka_unit_test(test_equals_serial),
        cmocka_unit_test(test_hold_release),
        cmocka_unit_test(test_cancel),
        cmocka_unit_test(test_install_keeps_existing),
        cmocka_unit_test(test_background_nice),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
