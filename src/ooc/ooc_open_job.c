/* ooc_open_job: the out-of-core open on a worker thread (ooc_open_job.h),
 * on the viewer's one job type (util/job_gate.h). */
#include "ooc_open_job.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "isolate/isolate.h"
#include "util/job_gate.h"

struct ooc_open_job {
    job_gate gate;
    char *path;
    isolate_options io;
    const struct region_filter *filter;
    _Atomic uint64_t bytes_done, bytes_total, sweep; /* sweep: ooc_sweep_pack, 0 none yet */
    atomic_uint seq;
    ooc_file *file; /* the worker's result, the taker's after done */
    isolate_tail *tail;
    ooc_watch watch;
    ooc_opening *opening; /* begun on the starting thread, ended by the worker */
    sv_err rc;
    sv_error err;
};

static void oj_bytes(void *ctx, uint64_t done, uint64_t total)
{
    ooc_open_job *j = ctx;
    atomic_store(&j->bytes_done, done);
    atomic_store(&j->bytes_total, total);
    atomic_fetch_add(&j->seq, 1);
}

static void oj_sweep(void *ctx, ooc_sweep s)
{
    ooc_open_job *j = ctx;
    s.rank = s.rank ? s.rank : 1; /* packed 0 means "not sweeping" */
    atomic_store(&j->sweep, ooc_sweep_pack(s));
    atomic_fetch_add(&j->seq, 1);
}

static void oj_work(void *arg)
{
    ooc_open_job *j = arg;
    sv_error_clear(&j->err);
    ooc_opening *g = j->opening;
    j->opening = NULL;
    j->rc = ooc_open_end(g, &j->file, &j->err);
}

ooc_open_job *ooc_open_job_start(const char *path, const isolate_options *opt,
                                 const struct region_filter *filter, bool hold)
{
    ooc_open_job *j = calloc(1, sizeof *j);
    if (!j || !(j->path = strdup(path ? path : ""))) {
        free(j);
        return NULL;
    }
    j->io = opt ? *opt : (isolate_options){0};
    j->io.progress = oj_bytes;
    j->io.progress_ctx = j;
    j->io.tail = &j->tail;
    j->io.cancel = &j->gate.cancel;
    j->filter = filter;
    j->watch = (ooc_watch){oj_sweep, j, NULL};
    job_gate_init(&j->gate, hold, 0);
    /* The child is forked here: the starting thread outlives the tail. */
    j->opening = ooc_open_begin(j->path, &j->io, filter, &j->watch);
    /* The user waits for the overview: its loading child (forked from the
     * worker) keeps the viewer's priority. */
    j->gate.foreground = true;
    job_gate_start(&j->gate, oj_work, j);
    return j;
}

bool ooc_open_job_done(const ooc_open_job *j)
{
    return job_gate_done(&j->gate);
}

ooc_open_progress ooc_open_job_progress(const ooc_open_job *j)
{
    ooc_open_job *m = (ooc_open_job *)j; /* atomics: loads only */
    ooc_open_progress p = {atomic_load(&m->bytes_done),
                           atomic_load(&m->bytes_total),
                           false,
                           {0, 0, 0},
                           atomic_load(&m->seq)};
    uint64_t s = atomic_load(&m->sweep);
    p.sweeping = s != 0;
    p.sweep = ooc_sweep_unpack(s);
    return p;
}

void ooc_open_job_release(ooc_open_job *j)
{
    job_gate_release(&j->gate);
}

void ooc_open_job_wait(ooc_open_job *j)
{
    job_gate_join(&j->gate);
}

void ooc_open_job_wait_sweep(const ooc_open_job *j)
{
    struct timespec ts = {0, 10 * 1000 * 1000};
    while (!ooc_open_job_done(j) && !ooc_open_job_progress(j).sweeping)
        nanosleep(&ts, NULL);
}

static void oj_free(ooc_open_job *j)
{
    job_gate_destroy(&j->gate);
    free(j->path);
    free(j);
}

sv_err ooc_open_job_take(ooc_open_job *j, ooc_file **out, isolate_tail **tail, sv_error *err)
{
    job_gate_join(&j->gate);
    *out = j->file;
    if (tail)
        *tail = j->tail;
    else
        isolate_tail_free(j->tail);
    sv_err rc = j->rc;
    if (err)
        *err = j->err;
    oj_free(j);
    return rc;
}

void ooc_open_job_cancel(ooc_open_job *j)
{
    if (!j)
        return;
    job_gate_cancel(&j->gate);
    isolate_tail_free(j->tail);
    ooc_file_free(j->file);
    oj_free(j);
}
