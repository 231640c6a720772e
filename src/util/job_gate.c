/* job_gate: a worker thread that publishes its result whole (job_gate.h).
 *
 * The publishing protocol: the worker takes the lock, sits out the test
 * hooks (a timed wait for the delay, a wait while held; both end at a
 * cancel), then sets done with a release store and broadcasts under the
 * lock, so a waiter that checked done under the lock cannot miss it. */
#include "job_gate.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <errno.h>
#include <time.h>
#include <unistd.h>

void job_gate_init(job_gate *g, bool hold, unsigned delay_ms)
{
    atomic_init(&g->cancel, false);
    atomic_init(&g->done, false);
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->cv, NULL);
    g->held = hold;
    g->delayed = delay_ms > 0;
    g->delay_ms = delay_ms;
    g->work = NULL;
    g->arg = NULL;
    g->threaded = false;
    g->foreground = false;
}

void job_gate_background(void)
{
#ifdef __linux__
    /* Linux's nice is per thread (the tid as a pid): the UI thread's first
     * frame (the overview's binning) is not slowed by the workers on a
     * two-core machine.  Best effort: an unprivileged thread only goes up. */
    id_t tid = (id_t)syscall(SYS_gettid);
    errno = 0;
    int now = getpriority(PRIO_PROCESS, tid);
    if (errno == 0 && now < JOB_GATE_NICE)
        (void)setpriority(PRIO_PROCESS, tid, JOB_GATE_NICE);
#endif
}

/* The absolute CLOCK_REALTIME time ms milliseconds from now. */
static struct timespec job_gate_deadline(unsigned ms)
{
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += (time_t)(ms / 1000);
    dl.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (dl.tv_nsec >= 1000000000L) {
        dl.tv_sec++;
        dl.tv_nsec -= 1000000000L;
    }
    return dl;
}

static void job_gate_publish(job_gate *g)
{
    pthread_mutex_lock(&g->mu);
    if (g->delayed) {
        struct timespec dl = job_gate_deadline(g->delay_ms);
        while (!atomic_load(&g->cancel) && g->delayed &&
               pthread_cond_timedwait(&g->cv, &g->mu, &dl) == 0)
            ;
    }
    while (g->held && !atomic_load(&g->cancel))
        pthread_cond_wait(&g->cv, &g->mu);
    atomic_store_explicit(&g->done, true, memory_order_release);
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

static void *job_gate_main(void *arg)
{
    job_gate *g = arg;
    if (!g->foreground)
        job_gate_background(); /* behind the UI thread's first frame */
    g->work(g->arg);
    job_gate_publish(g);
    return NULL;
}

void job_gate_start(job_gate *g, job_gate_work work, void *arg)
{
    g->work = work;
    g->arg = arg;
    g->threaded = pthread_create(&g->thread, NULL, job_gate_main, g) == 0;
    if (!g->threaded) { /* no thread: the same work, here and now */
        work(arg);
        atomic_store_explicit(&g->done, true, memory_order_release);
    }
}

bool job_gate_done(const job_gate *g)
{
    return atomic_load_explicit(&((job_gate *)g)->done, memory_order_acquire);
}

bool job_gate_cancelled(const job_gate *g)
{
    return atomic_load(&((job_gate *)g)->cancel);
}

void job_gate_release(job_gate *g)
{
    pthread_mutex_lock(&g->mu);
    g->held = false;
    g->delayed = false;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

void job_gate_wait(job_gate *g)
{
    job_gate_release(g);
    pthread_mutex_lock(&g->mu);
    while (!atomic_load(&g->done))
        pthread_cond_wait(&g->cv, &g->mu);
    pthread_mutex_unlock(&g->mu);
}

void job_gate_join(job_gate *g)
{
    job_gate_wait(g);
    if (g->threaded)
        pthread_join(g->thread, NULL);
    g->threaded = false;
}

void job_gate_cancel(job_gate *g)
{
    atomic_store(&g->cancel, true);
    pthread_mutex_lock(&g->mu);
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
    if (g->threaded)
        pthread_join(g->thread, NULL);
    g->threaded = false;
}

void job_gate_destroy(job_gate *g)
{
    pthread_mutex_destroy(&g->mu);
    pthread_cond_destroy(&g->cv);
}
