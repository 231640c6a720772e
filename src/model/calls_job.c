/* calls_job: profile_ensure_calls on worker threads (see calls_job.h).
 *
 * One coordinator thread starts up to (cores - 1) helpers; each takes the
 * next rank from an atomic counter and builds its arrays with
 * nest_rank_calls(), which depends on that rank alone, so the results are
 * the serial run's whatever the order.  The coordinator joins the helpers,
 * waits while a test holds it, then publishes with a release store that
 * calls_job_done()'s acquire load pairs with. */
#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "calls_job.h"
#include "nest.h"

#define CALLS_JOB_THREADS_MAX 64

struct calls_job {
    profile *p;
    rank_calls **res; /* nranks, owned by the job until installed */
    sv_err *rc;       /* nranks: each rank's status */
    sv_error *errs;   /* nranks */
    atomic_size_t next;
    atomic_bool cancel;
    atomic_bool done;
    pthread_mutex_t mu; /* guards held */
    pthread_cond_t cv;
    bool held;
    unsigned delay_ms;
    bool threaded;
    pthread_t coord;
};

void calls_job_background(void)
{
#ifdef __linux__
    /* Linux's nice is per thread (the tid as a pid): the UI thread's first
     * frame (the overview's binning) is not slowed by the workers on a
     * two-core machine.  Best effort: an unprivileged thread only goes up. */
    id_t tid = (id_t)syscall(SYS_gettid);
    errno = 0;
    int now = getpriority(PRIO_PROCESS, tid);
    if (errno == 0 && now < CALLS_JOB_NICE)
        (void)setpriority(PRIO_PROCESS, tid, CALLS_JOB_NICE);
#endif
}

static void *calls_job_helper(void *arg)
{
    calls_job *j = arg;
    calls_job_background();
    for (;;) {
        size_t k = atomic_fetch_add(&j->next, 1);
        if (k >= j->p->nranks || atomic_load(&j->cancel))
            break;
        j->rc[k] = nest_rank_calls(&j->p->ranks[k], &j->res[k], &j->errs[k]);
    }
    return NULL;
}

static size_t calls_job_nthreads(const profile *p)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    size_t n = cores > 1 ? (size_t)cores : 1;
    if (n > CALLS_JOB_THREADS_MAX)
        n = CALLS_JOB_THREADS_MAX;
    return n < p->nranks ? n : (p->nranks ? p->nranks : 1);
}

static void *calls_job_coord(void *arg)
{
    calls_job *j = arg;
    pthread_t helpers[CALLS_JOB_THREADS_MAX];
    size_t nh = 0, want = calls_job_nthreads(j->p) - 1;
    while (nh < want && pthread_create(&helpers[nh], NULL, calls_job_helper, j) == 0)
        nh++;
    calls_job_helper(j);
    for (size_t i = 0; i < nh; i++)
        pthread_join(helpers[i], NULL);
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
        while (!atomic_load(&j->cancel) && pthread_cond_timedwait(&j->cv, &j->mu, &dl) == 0)
            ;
    }
    while (j->held && !atomic_load(&j->cancel))
        pthread_cond_wait(&j->cv, &j->mu);
    atomic_store_explicit(&j->done, true, memory_order_release);
    pthread_cond_broadcast(&j->cv);
    pthread_mutex_unlock(&j->mu);
    return NULL;
}

static void calls_job_free(calls_job *j)
{
    for (size_t k = 0; j->res && k < j->p->nranks; k++)
        rank_calls_free(j->res[k]);
    free(j->res);
    free(j->rc);
    free(j->errs);
    pthread_mutex_destroy(&j->mu);
    pthread_cond_destroy(&j->cv);
    free(j);
}

sv_err calls_job_start(profile *p, bool hold, unsigned delay_ms, calls_job **out, sv_error *err)
{
    *out = NULL;
    calls_job *j = calloc(1, sizeof *j);
    size_t n = p->nranks ? p->nranks : 1;
    if (!j)
        return sv_error_set(err, SV_ERR_NOMEM, "%s: out of memory", p->path);
    j->p = p;
    j->res = calloc(n, sizeof *j->res);
    j->rc = calloc(n, sizeof *j->rc);
    j->errs = calloc(n, sizeof *j->errs);
    atomic_init(&j->next, 0);
    atomic_init(&j->cancel, false);
    atomic_init(&j->done, false);
    pthread_mutex_init(&j->mu, NULL);
    pthread_cond_init(&j->cv, NULL);
    j->held = hold;
    j->delay_ms = delay_ms;
    if (!j->res || !j->rc || !j->errs) {
        calls_job_free(j);
        return sv_error_set(err, SV_ERR_NOMEM, "%s: out of memory", p->path);
    }
    j->threaded = pthread_create(&j->coord, NULL, calls_job_coord, j) == 0;
    if (!j->threaded) { /* no thread: the same work, here and now */
        j->held = false;
        calls_job_helper(j);
        atomic_store(&j->done, true);
    }
    *out = j;
    return SV_OK;
}

bool calls_job_done(const calls_job *j)
{
    return atomic_load_explicit(&((calls_job *)j)->done, memory_order_acquire);
}

void calls_job_release(calls_job *j)
{
    pthread_mutex_lock(&j->mu);
    j->held = false;
    pthread_cond_broadcast(&j->cv);
    pthread_mutex_unlock(&j->mu);
}

void calls_job_wait(calls_job *j)
{
    calls_job_release(j);
    pthread_mutex_lock(&j->mu);
    while (!atomic_load(&j->done))
        pthread_cond_wait(&j->cv, &j->mu);
    pthread_mutex_unlock(&j->mu);
}

sv_err calls_job_install(calls_job *j, sv_error *err)
{
    calls_job_wait(j);
    if (j->threaded)
        pthread_join(j->coord, NULL);
    profile *p = j->p;
    sv_err e = SV_OK;
    for (size_t k = 0; k < p->nranks; k++) {
        if (!e && j->rc[k]) {
            e = j->rc[k];
            *err = j->errs[k];
        }
        if (!p->ranks[k].calls && !j->rc[k]) {
            p->ranks[k].calls = j->res[k];
            j->res[k] = NULL;
        }
    }
    calls_job_free(j);
    return e;
}

void calls_job_cancel(calls_job *j)
{
    if (!j)
        return;
    atomic_store(&j->cancel, true);
    pthread_mutex_lock(&j->mu);
    pthread_cond_broadcast(&j->cv);
    pthread_mutex_unlock(&j->mu);
    if (j->threaded)
        pthread_join(j->coord, NULL);
    calls_job_free(j);
}
