/* job_gate: a held worker publishes nothing until released; a delayed one
 * publishes no sooner than its delay, unless released; cancelling stops a
 * running work that polls the flag and ends the hold; whoever sees done
 * sees everything the work wrote (run under --enable-tsan, a missing
 * release/acquire pair is reported as a race on the result). */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/job_gate.h"

#define NVAL 65536

typedef struct work_ctx {
    job_gate *g;
    uint64_t *val;     /* NVAL: the result, plain memory */
    atomic_bool ran;   /* the work has returned */
    atomic_bool begun; /* the work has started */
    bool spin;         /* loop until cancelled */
    bool saw_cancel;   /* (plain: read after the join) */
    int nice;          /* the worker thread's nice */
    pthread_t self;
} work_ctx;

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void work(void *arg)
{
    work_ctx *c = arg;
    c->self = pthread_self();
    errno = 0;
    c->nice = getpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid));
    atomic_store(&c->begun, true);
    while (c->spin && !job_gate_cancelled(c->g))
        sleep_ms(1);
    c->saw_cancel = job_gate_cancelled(c->g);
    for (size_t i = 0; i < NVAL; i++)
        c->val[i] = (uint64_t)i * 7 + 1;
    atomic_store(&c->ran, true);
}

static work_ctx *ctx_new(job_gate *g, bool hold, unsigned delay_ms)
{
    work_ctx *c = calloc(1, sizeof *c);
    assert_non_null(c);
    c->val = calloc(NVAL, sizeof *c->val);
    assert_non_null(c->val);
    c->g = g;
    atomic_init(&c->ran, false);
    atomic_init(&c->begun, false);
    job_gate_init(g, hold, delay_ms);
    return c;
}

static void ctx_free(work_ctx *c)
{
    job_gate_destroy(c->g);
    free(c->val);
    free(c);
}

/* Every value the work wrote, checked against the formula (not a copy of
 * the work's own output). */
static void check_values(const work_ctx *c)
{
    for (size_t i = 0; i < NVAL; i++)
        if (c->val[i] != (uint64_t)i * 7 + 1)
            fail_msg("value %zu is %llu, the work wrote %llu: published before the work "
                     "was done",
                     i, (unsigned long long)c->val[i], (unsigned long long)i * 7 + 1);
}

/* Not held: the reader polls done without a lock, as the viewer does, and
 * then reads the result on its own thread; the work ran on another thread,
 * at the background nice. */
static void test_publish_whole(void **state)
{
    (void)state;
    job_gate g;
    work_ctx *c = ctx_new(&g, false, 0);
    job_gate_start(&g, work, c);
    while (!job_gate_done(&g))
        sleep_ms(1);
    check_values(c); /* before the join: done alone must make them visible */
    job_gate_join(&g);
    assert_false(pthread_equal(c->self, pthread_self()));
#ifdef __linux__
    assert_true(c->nice >= JOB_GATE_NICE);
#endif
    ctx_free(c);
}

/* Held: the work is over but done stays false until released. */
static void test_hold_release(void **state)
{
    (void)state;
    job_gate g;
    work_ctx *c = ctx_new(&g, true, 0);
    job_gate_start(&g, work, c);
    while (!atomic_load(&c->ran))
        sleep_ms(1);
    for (int i = 0; i < 20; i++) {
        sleep_ms(2);
        if (job_gate_done(&g))
            fail_msg("a held job published before job_gate_release()");
    }
    job_gate_release(&g);
    while (!job_gate_done(&g))
        sleep_ms(1);
    check_values(c);
    job_gate_join(&g);
    ctx_free(c);
}

/* job_gate_wait() releases a held job and returns once it is published. */
static void test_wait_releases(void **state)
{
    (void)state;
    job_gate g;
    work_ctx *c = ctx_new(&g, true, 0);
    job_gate_start(&g, work, c);
    job_gate_wait(&g);
    assert_true(job_gate_done(&g));
    check_values(c);
    job_gate_join(&g);
    ctx_free(c);
}

/* Delayed: published no sooner than the delay after the work ends. */
static void test_delay(void **state)
{
    (void)state;
    job_gate g;
    work_ctx *c = ctx_new(&g, false, 200);
    double t0 = now_ms();
    job_gate_start(&g, work, c);
    while (!job_gate_done(&g))
        sleep_ms(1);
    double took = now_ms() - t0;
    if (took < 199)
        fail_msg("a 200 ms delay published after %.1f ms", took);
    job_gate_join(&g);
    ctx_free(c);
}

/* A release (here by the wait) cuts a long delay short. */
static void test_delay_released(void **state)
{
    (void)state;
    job_gate g;
    work_ctx *c = ctx_new(&g, false, 600000);
    double t0 = now_ms();
    job_gate_start(&g, work, c);
    job_gate_join(&g);
    double took = now_ms() - t0;
    if (took > 60000)
        fail_msg("the wait sat out the 600 s delay (%.0f ms)", took);
    check_values(c);
    ctx_free(c);
}

/* Cancelled while the work runs: the work sees the flag and stops, the
 * cancel returns with the worker joined. */
static void test_cancel_running(void **state)
{
    (void)state;
    job_gate g;
    work_ctx *c = ctx_new(&g, false, 0);
    c->spin = true;
    job_gate_start(&g, work, c);
    while (!atomic_load(&c->begun))
        sleep_ms(1);
    assert_false(job_gate_done(&g)); /* spins until cancelled */
    job_gate_cancel(&g);
    assert_true(c->saw_cancel);
    assert_true(atomic_load(&c->ran));
    ctx_free(c);
}

/* Cancelled while held (and delayed): neither wait keeps the cancel from
 * returning. */
static void test_cancel_held(void **state)
{
    (void)state;
    job_gate g;
    work_ctx *c = ctx_new(&g, true, 600000);
    job_gate_start(&g, work, c);
    while (!atomic_load(&c->ran))
        sleep_ms(1);
    double t0 = now_ms();
    job_gate_cancel(&g);
    if (now_ms() - t0 > 60000)
        fail_msg("cancel waited for the hold or the delay");
    assert_false(c->saw_cancel); /* the work had finished before */
    ctx_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_publish_whole),  cmocka_unit_test(test_hold_release),
        cmocka_unit_test(test_wait_releases),  cmocka_unit_test(test_delay),
        cmocka_unit_test(test_delay_released), cmocka_unit_test(test_cancel_running),
        cmocka_unit_test(test_cancel_held),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
