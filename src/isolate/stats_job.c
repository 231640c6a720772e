/* stats_job: the deferred statistics received on a worker thread
 * (stats_job.h).
 *
 * The worker (job_gate.h) blocks in isolate_tail_recv (the watchdog's
 * poll, the reaping) or computes from its copy, keeps the result to
 * itself, and the gate publishes it whole.  Cancelling kills the child
 * first, so the blocked read ends at once. */
#include "stats_job.h"

#include <pthread.h>
#include <stdlib.h>

#include "model/nest_share.h"
#include "util/job_gate.h"
#include "stats_local.h"
#include "wire_stats.h"

struct stats_job {
    isolate_tail *tail; /* received by the worker; killed (only) by cancel */
    stats_local *local; /* or computed by the worker from this copy (a local tail) */
    wire_stats *st;     /* the worker's result */
    sv_err rc;          /* ... and its status */
    sv_error err;
    pthread_t starter; /* the thread that started the job */
    job_gate gate;
};

static void stats_job_run(void *arg)
{
    stats_job *j = arg;
    if (j->local) {
        /* Run by the starter itself (no thread): the build it would wait
         * for starts only after this returns. */
        if (pthread_equal(pthread_self(), j->starter))
            stats_local_share(j->local, NULL);
        j->rc = stats_local_run(j->local, &j->st, &j->err);
        j->local = NULL; /* freed by stats_local_run */
    } else {
        j->rc = isolate_tail_recv(j->tail, &j->st, &j->err);
    }
}

sv_err stats_job_start(isolate_tail *t, const profile *p, bool hold, unsigned delay_ms,
                       nest_share *share, stats_job **out, sv_error *err)
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
    if (c)
        stats_local_share(c, share);
    j->local = c;
    j->tail = t;
    j->starter = pthread_self();
    sv_error_clear(&j->err);
    job_gate_init(&j->gate, hold, delay_ms);
    job_gate_start(&j->gate, stats_job_run, j);
    *out = j;
    return SV_OK;
}

bool stats_job_done(const stats_job *j)
{
    return job_gate_done(&j->gate);
}

void stats_job_release(stats_job *j)
{
    job_gate_release(&j->gate);
}

void stats_job_wait(stats_job *j)
{
    job_gate_wait(&j->gate);
}

static void stats_job_free(stats_job *j)
{
    wire_stats_free(j->st);
    stats_local_free(j->local);
    isolate_tail_free(j->tail);
    job_gate_destroy(&j->gate);
    free(j);
}

sv_err stats_job_install(stats_job *j, profile *p, size_t *nwarn_new, sv_error *err)
{
    job_gate_join(&j->gate);
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
    isolate_tail_kill(j->tail); /* a worker blocked on the child's pipe returns */
    job_gate_cancel(&j->gate);
    stats_job_free(j);
}
