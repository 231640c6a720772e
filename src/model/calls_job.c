/* calls_job: profile_ensure_calls on worker threads (see calls_job.h).
 *
 * The gate's thread (job_gate.h) coordinates: it starts up to (cores - 1)
 * helpers; each takes the next rank from an atomic counter and builds its
 * arrays with nest_rank_calls(), which depends on that rank alone, so the
 * results are the serial run's whatever the order.  The coordinator joins
 * the helpers and the gate publishes the results whole. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "calls_job.h"
#include "util/job_gate.h"
#include "nest.h"
#include "nest_share.h"

#define CALLS_JOB_THREADS_MAX 64

struct calls_job {
    profile *p;
    rank_calls **res; /* nranks, owned by the job until installed */
    sv_err *rc;       /* nranks: each rank's status */
    sv_error *errs;   /* nranks */
    atomic_size_t next;
    nest_share *share; /* the statistics' (a reference), or NULL */
    job_gate gate;
};

void calls_job_background(void)
{
    job_gate_background();
}

static void *calls_job_helper(void *arg)
{
    calls_job *j = arg;
    calls_job_background();
    for (;;) {
        size_t k = atomic_fetch_add(&j->next, 1);
        if (k >= j->p->nranks || job_gate_cancelled(&j->gate))
            break;
        j->rc[k] = nest_rank_calls_shared(&j->p->ranks[k], &j->res[k], j->share, k, &j->errs[k]);
        nest_share_none(j->share, k); /* ignored once put */
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

static void calls_job_coord(void *arg)
{
    calls_job *j = arg;
    pthread_t helpers[CALLS_JOB_THREADS_MAX];
    size_t nh = 0, want = calls_job_nthreads(j->p) - 1;
    while (nh < want && pthread_create(&helpers[nh], NULL, calls_job_helper, j) == 0)
        nh++;
    calls_job_helper(j);
    for (size_t i = 0; i < nh; i++)
        pthread_join(helpers[i], NULL);
}

static void calls_job_free(calls_job *j)
{
    nest_share_close(j->share); /* ranks left unswept: the statistics sweep them */
    nest_share_unref(j->share);
    for (size_t k = 0; j->res && k < j->p->nranks; k++)
        rank_calls_free(j->res[k]);
    free(j->res);
    free(j->rc);
    free(j->errs);
    job_gate_destroy(&j->gate);
    free(j);
}

sv_err calls_job_start(profile *p, bool hold, unsigned delay_ms, nest_share *share, calls_job **out,
                       sv_error *err)
{
    *out = NULL;
    calls_job *j = calloc(1, sizeof *j);
    size_t n = p->nranks ? p->nranks : 1;
    if (!j) {
        nest_share_close(share);
        return sv_error_set(err, SV_ERR_NOMEM, "%s: out of memory", p->path);
    }
    j->p = p;
    j->share = nest_share_ref(share);
    j->res = calloc(n, sizeof *j->res);
    j->rc = calloc(n, sizeof *j->rc);
    j->errs = calloc(n, sizeof *j->errs);
    atomic_init(&j->next, 0);
    job_gate_init(&j->gate, hold, delay_ms);
    if (!j->res || !j->rc || !j->errs) {
        calls_job_free(j);
        return sv_error_set(err, SV_ERR_NOMEM, "%s: out of memory", p->path);
    }
    job_gate_start(&j->gate, calls_job_coord, j);
    *out = j;
    return SV_OK;
}

bool calls_job_done(const calls_job *j)
{
    return job_gate_done(&j->gate);
}

void calls_job_release(calls_job *j)
{
    job_gate_release(&j->gate);
}

void calls_job_wait(calls_job *j)
{
    job_gate_wait(&j->gate);
}

sv_err calls_job_install(calls_job *j, sv_error *err)
{
    job_gate_join(&j->gate);
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
    job_gate_cancel(&j->gate);
    calls_job_free(j);
}
