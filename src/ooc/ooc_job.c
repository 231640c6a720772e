/* ooc_job: an out-of-core window read on a worker thread (see ooc_job.h). */
#include "ooc_job.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

struct ooc_job {
    const ooc_file *f;
    int64_t t0, t1;
    profile *win; /* the worker's result, the taker's after done */
    sv_err rc;
    sv_error err;
    atomic_bool done;
    pthread_mutex_t mu; /* guards held */
    pthread_cond_t cv;
    bool held;
    bool threaded;
    pthread_t th;
};

static void ooc_job_publish(ooc_job *j)
{
    pthread_mutex_lock(&j->mu);
    while (j->held)
        pthread_cond_wait(&j->cv, &j->mu);
    pthread_mutex_unlock(&j->mu);
    atomic_store_explicit(&j->done, true, memory_order_release);
}

static void *ooc_job_main(void *arg)
{
    ooc_job *j = arg;
    sv_error_clear(&j->err);
    j->rc = ooc_window(j->f, j->t0, j->t1, &j->win, &j->err);
    ooc_job_publish(j);
    return NULL;
}

ooc_job *ooc_job_start(const ooc_file *f, int64_t t0, int64_t t1, bool hold)
{
    ooc_job *j = calloc(1, sizeof *j);
    if (!j)
        return NULL;
    *j = (ooc_job){.f = f, .t0 = t0, .t1 = t1, .held = hold};
    atomic_init(&j->done, false);
    pthread_mutex_init(&j->mu, NULL);
    pthread_cond_init(&j->cv, NULL);
    j->threaded = pthread_create(&j->th, NULL, ooc_job_main, j) == 0;
    if (!j->threaded) {
        j->held = false; /* no thread to hold: read here and now */
        ooc_job_main(j);
    }
    return j;
}

bool ooc_job_done(const ooc_job *j)
{
    return atomic_load_explicit(&j->done, memory_order_acquire);
}

void ooc_job_span(const ooc_job *j, int64_t *t0, int64_t *t1)
{
    *t0 = j->t0;
    *t1 = j->t1;
}

void ooc_job_release(ooc_job *j)
{
    pthread_mutex_lock(&j->mu);
    j->held = false;
    pthread_cond_broadcast(&j->cv);
    pthread_mutex_unlock(&j->mu);
}

void ooc_job_wait(ooc_job *j)
{
    ooc_job_release(j);
    if (j->threaded) {
        pthread_join(j->th, NULL);
        j->threaded = false;
    }
}

static void ooc_job_free(ooc_job *j)
{
    pthread_mutex_destroy(&j->mu);
    pthread_cond_destroy(&j->cv);
    free(j);
}

sv_err ooc_job_take(ooc_job *j, profile **out, sv_error *err)
{
    ooc_job_wait(j); /* done already: the join returns at once */
    *out = j->win;
    sv_err rc = j->rc;
    if (err)
        *err = j->err;
    ooc_job_free(j);
    return rc;
}

void ooc_job_cancel(ooc_job *j)
{
    if (!j)
        return;
    ooc_job_wait(j);
    profile_free(j->win);
    ooc_job_free(j);
}
