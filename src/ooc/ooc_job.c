/* ooc_job: an out-of-core window read on a worker thread (see ooc_job.h),
 * on the viewer's one job type (util/job_gate.h). */
#include "ooc_job.h"

#include <stdlib.h>

#include "util/job_gate.h"

struct ooc_job {
    job_gate gate;
    const ooc_file *f;
    int64_t t0, t1;
    profile *win; /* the worker's result, the taker's after done */
    sv_err rc;
    sv_error err;
};

static void ooc_job_work(void *arg)
{
    ooc_job *j = arg;
    sv_error_clear(&j->err);
    /* The gate's flag (job_gate_cancel) also gives up the read in its child. */
    j->rc = ooc_window_cancellable(j->f, j->t0, j->t1, &j->gate.cancel, &j->win, &j->err);
}

ooc_job *ooc_job_start(const ooc_file *f, int64_t t0, int64_t t1, bool hold)
{
    ooc_job *j = calloc(1, sizeof *j);
    if (!j)
        return NULL;
    j->f = f;
    j->t0 = t0;
    j->t1 = t1;
    job_gate_init(&j->gate, hold, 0);
    j->gate.foreground = true; /* the user zoomed in and waits for these calls */
    job_gate_start(&j->gate, ooc_job_work, j);
    return j;
}

bool ooc_job_done(const ooc_job *j)
{
    return job_gate_done(&j->gate);
}

void ooc_job_span(const ooc_job *j, int64_t *t0, int64_t *t1)
{
    *t0 = j->t0;
    *t1 = j->t1;
}

void ooc_job_release(ooc_job *j)
{
    job_gate_release(&j->gate);
}

void ooc_job_wait(ooc_job *j)
{
    job_gate_join(&j->gate);
}

static void ooc_job_free(ooc_job *j)
{
    job_gate_destroy(&j->gate);
    free(j);
}

sv_err ooc_job_take(ooc_job *j, profile **out, sv_error *err)
{
    job_gate_join(&j->gate); /* done already: the join returns at once */
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
    /* The read in its child is given up: a child stopped or slow (a SIGTERM while it
     * is SIGSTOPped) would otherwise hold the viewer until the stall deadline. */
    job_gate_cancel(&j->gate);
    profile_free(j->win);
    ooc_job_free(j);
}
