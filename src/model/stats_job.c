/* stats_job: the deferred statistics received on a worker thread
 * (stats_job.h).
 *
 * One thread blocks in isolate_tail_recv (the watchdog's poll, the
 * reaping), keeps the result to itself, waits while a test holds it, then
 * publishes with a release store that stats_job_done()'s acquire load
 * pairs with.  Cancelling kills the child first, so the blocked read ends
 * at once. */
#include "stats_job.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "calls_job.h"
#include "stats_local.h"
#include "wire_stats.h"

struct stats_job {
    isolate_tail *tail; /* received by the worker; killed (only) by cancel */
    stats_local *local; /* or computed by the worker from this copy (a local tail) */
    wire_stats *st;     /* the worker's result */
    sv_err rc;          /* ... and its status */
    sv_error err;
    atomic_bool cancel;
    atomic_bool done;
    pthread_mutex_t mu; /* guards held */
    pthread_cond_t cv;
    bool held;
    unsigned delay_ms; /* test hook: publish this late ... */
    bool held_delay;   /* ... unless released (waited for) first */
    bool threaded;
    pthread_t thread;
};

static void stats_job_run(stats_job *j)
{
    if (j->local) {
        j->rc = stats_local_run(j->local, &j->st, &j->err);
        j->local = NULL; /* freed by stats_local_run */
    } else {
        j->rc = isolate_tail_recv(j->tail, &j->st, &j->err);
    }
}

static void *stats_job_main(void *arg)
{
    stats_job *j = arg;
    calls_job_background(); /* behind the UI thread's first frame */
    stats_job_run(j);
    pthread_mutex_lock(&j->mu);
    if (j->delay_ms) {
        struct timespec dl;
        clock_gettime(CLOCK_REALTIME, &dl);
        dl.tv_sec += (time_t)(j->delay_ms / 1000);
        dl.tv_nsec += (long)(j->delay_ms % 1000) * 1000000L;
        if (dl.tv_nsec >= 1000000000L) {
            dl.tv_sec++;
            dl.tv_nsec -= 1000000000L;
        }
        while (!atomic_load(&j->cancel) && j->held_delay &&
               pthread_cond_timedwait(&j->cv, &j->mu, &dl) == 0)
            ;
    }
    while (j->held && !atomic_load(&j->cancel))
        pthread_cond_wait(&j->cv, &j->mu);
    atomic_store_explicit(&j->done, true, memory_order_release);
    pthread_cond_broadcast(&j->cv);
    pthread_mutex_unlock(&j->mu);
    return NULL;
}

sv_err stats_job_start(isolate_tail *t, const profile *p, bool hold, unsigned delay_ms,
                       stats_job **out, sv_error *err)
{
    *out = NULL;
    stats_job *j = calloc(1, sizeof *j);
    /* A local tail: the copy is made here, by p's thread. */
    stats_local *c = j && isolate_tail_local(t) ? stats_local_new(p) : NULL;
    if (!j || (isolate_tail_local(t) && !c)) {
        free(j);
        isolate_tail_free(t);
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory");
    }
    j->local = c;
    j->tail = t;
    sv_error_clear(&j->err);
    atomic_init(&j->cancel, false);
    atomic_init(&j->done, false);
    pthread_mutex_init(&j->mu, NULL);
    pthread_cond_init(&j->cv, NULL);
    j->held = hold;
    j->delay_ms = delay_ms;
    j->held_delay = delay_ms > 0;
    j->threaded = pthread_create(&j->thread, NULL, stats_job_main, j) == 0;
    if (!j->threaded) { /* no thread: the same work, here and now */
        stats_job_run(j);
        atomic_store(&j->done, true);
    }
    *out = j;
    return SV_OK;
}

bool stats_job_done(const stats_job *j)
{
    return atomic_load_explicit(&((stats_job *)j)->done, memory_order_acquire);
}

void stats_job_release(stats_job *j)
{
    pthread_mutex_lock(&j->mu);
    j->held = false;
    j->held_delay = false;
    pthread_cond_broadcast(&j->cv);
    pthread_mutex_unlock(&j->mu);
}

void stats_job_wait(stats_job *j)
{
    stats_job_release(j);
    pthread_mutex_lock(&j->mu);
    while (!atomic_load(&j->done))
        pthread_cond_wait(&j->cv, &j->mu);
    pthread_mutex_unlock(&j->mu);
}

static void stats_job_free(stats_job *j)
{
    wire_stats_free(j->st);
    stats_local_free(j->local);
    isolate_tail_free(j->tail);
    pthread_mutex_destroy(&j->mu);
    pthread_cond_destroy(&j->cv);
    free(j);
}

sv_err stats_job_install(stats_job *j, profile *p, size_t *nwarn_new, sv_error *err)
{
    stats_job_wait(j);
    if (j->threaded)
        pthread_join(j->thread, NULL);
    size_t before = p->nwarnings;
    sv_err e = j->rc;
    if (e)
        *err = j->err;
    else if (!wire_stats_install(p, j->st))
        e = sv_error_set(err, SV_ERR_NOMEM, "%s: out of memory for the statistics", p->path);
    if (nwarn_new)
        *nwarn_new = p->nwarnings - before;
    stats_job_free(j);
    return e;
}

void stats_job_cancel(stats_job *j)
{
    if (!j)
        return;
    atomic_store(&j->cancel, true);
    isolate_tail_kill(j->tail); /* a worker blocked on the child's pipe returns */
    pthread_mutex_lock(&j->mu);
    pthread_cond_broadcast(&j->cv);
    pthread_mutex_unlock(&j->mu);
    if (j->threaded)
        pthread_join(j->thread, NULL);
    stats_job_free(j);
}
