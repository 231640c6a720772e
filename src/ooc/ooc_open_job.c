/* ooc_open_job: the out-of-core open on a worker thread (ooc_open_job.h),
 * on the viewer's one job type (util/job_gate.h). */
#include "ooc_open_job.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "isolate/isolate.h"
#include "isolate/wire.h"
#include "util/hooks.h"
#include "util/job_gate.h"

/* The overview's parts (ooc_part.h): a reader thread of their pipe
 * validates each against the skeleton and publishes it whole by an atomic
 * exchange (the taker's acquire sees all the reader wrote).  Stepping (a
 * test hook): the parts are queued and published one per
 * ooc_open_job_wait, the overview only after the last. */
typedef struct oj_parts {
    bool on;
    int fd; /* the read end */
    pthread_t reader;
    const profile *skel;
    uint64_t budget;
    atomic_bool stop;
    _Atomic(ooc_part *) latest; /* the newest part not yet taken */
    atomic_uint got, refused;
    atomic_bool drawn; /* a part with bars was published (ooc_part_drawn) */
    bool step;
    pthread_mutex_t mu; /* guards the queue and ended (stepping) */
    pthread_cond_t cv;
    ooc_part **queue;
    size_t nq, qcap, qnext;
    bool ended;
    ooc_part *cur; /* the one being read */
} oj_parts;

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
    oj_parts parts;
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

/* ------------------------------------------------------------ the parts */

/* wire_src.read of the parts' pipe: wakes up to look at the stop flag. */
static ssize_t pr_read(void *ctx, void *buf, size_t n)
{
    oj_parts *q = ctx;
    for (;;) {
        if (atomic_load(&q->stop))
            return -1;
        struct pollfd pfd = {.fd = q->fd, .events = POLLIN};
        int rc = poll(&pfd, 1, ISOLATE_CANCEL_MS);
        if (rc < 0 && errno != EINTR)
            return -1;
        if (rc <= 0)
            continue;
        ssize_t k = read(q->fd, buf, n);
        if (k < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        return k;
    }
}

static bool pr_get(wire_r *r, void *ctx)
{
    oj_parts *q = ctx;
    q->cur = calloc(1, sizeof *q->cur);
    if (q->cur && ooc_part_get(r, q->cur))
        return true;
    free(q->cur);
    q->cur = NULL;
    return false;
}

/* The pass is at least as far as a part it sent: the progress line says so
 * even when the sweep's own record was dropped (the loading child sends at
 * most one a tick). */
static void pr_progress(ooc_open_job *j, const ooc_part *p)
{
    uint64_t t = p->calls_total ? p->calls_total : 1;
    uint32_t pm = (uint32_t)(p->calls_done < ((uint64_t)1 << 50) ? p->calls_done * 10000 / t
                                                                 : p->calls_done / (t / 10000));
    ooc_sweep s = {p->ranks_done + (p->partial ? 1 : 0), p->nranks, pm};
    uint64_t now = atomic_load(&j->sweep);
    if (now && ooc_sweep_unpack(now).permyriad >= pm)
        return;
    oj_sweep(j, s);
}

static void pr_publish(ooc_open_job *j, ooc_part *p)
{
    bool drawn = ooc_part_drawn(p); /* before the UI thread may take and free it */
    pr_progress(j, p);
    ooc_part_free(atomic_exchange(&j->parts.latest, p));
    if (drawn)
        atomic_store(&j->parts.drawn, true);
    atomic_fetch_add(&j->parts.got, 1);
    atomic_fetch_add(&j->seq, 1);
}

static bool pr_each(void *ctx)
{
    ooc_open_job *j = ctx;
    oj_parts *q = &j->parts;
    ooc_part *p = q->cur;
    q->cur = NULL;
    if (!ooc_part_valid(p, q->skel)) {
        ooc_part_free(p);
        atomic_fetch_add(&q->refused, 1);
        return false; /* no part after a bad one is trusted */
    }
    if (!q->step) {
        pr_publish(j, p);
        return true;
    }
    pthread_mutex_lock(&q->mu);
    ooc_part **v = q->nq < q->qcap ? q->queue : realloc(q->queue, (q->qcap * 2 + 4) * sizeof *v);
    if (v) {
        q->queue = v;
        q->qcap = q->nq < q->qcap ? q->qcap : q->qcap * 2 + 4;
        q->queue[q->nq++] = p;
    } else {
        ooc_part_free(p);
    }
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
    return true;
}

static void *pr_main(void *arg)
{
    ooc_open_job *j = arg;
    oj_parts *q = &j->parts;
    wire_src src = {pr_read, q, NULL};
    /* pr_get's ctx is the parts, pr_each's the job */
    wire_section sec = {NULL, pr_get, q};
    sv_error err;
    sv_error_clear(&err);
    wire_status st = wire_recv_parts(&src, q->budget, &sec, pr_each, j, &err);
    ooc_part_free(q->cur);
    q->cur = NULL;
    /* A part refused (malformed, or not this skeleton's): the rest is read
     * and dropped, so that the child never blocks on a full pipe. */
    if (st != WIRE_PROFILE && !atomic_load(&q->stop))
        atomic_fetch_add(&q->refused, 1);
    char sink[4096];
    while (pr_read(q, sink, sizeof sink) > 0)
        ;
    pthread_mutex_lock(&q->mu);
    q->ended = true;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
    return NULL;
}

/* The pipe and its reader, before the fork (the child inherits the write
 * end, which is then closed here: the reader ends when the child closes
 * its own or dies).  Without them the open has no parts: the overview comes whole. */
static bool parts_begin(ooc_open_job *j, const profile *skel, ooc_parts_out *out)
{
    oj_parts *q = &j->parts;
    q->fd = -1;
    pthread_mutex_init(&q->mu, NULL);
    pthread_cond_init(&q->cv, NULL);
    int fds[2];
    if (!skel || isolate_disabled() || pipe2(fds, O_CLOEXEC) != 0)
        return false;
    q->skel = skel;
    q->budget = isolate_budget_or_default(j->io.budget);
    q->fd = fds[0];
    const char *hook = hook_value(HOOK_TEST_OVERVIEW);
    q->step = hook && strcmp(hook, "parts") == 0;
    *out = (ooc_parts_out){.on = true, .fd = fds[1], .every = q->step};
    if (hook && strncmp(hook, "slow:", 5) == 0) {
        out->every = true;
        out->slow_ms = (unsigned)strtoul(hook + 5, NULL, 10) % 60000u;
    }
    return true;
}

static void parts_start(ooc_open_job *j)
{
    oj_parts *q = &j->parts;
    close(j->watch.parts.fd); /* the child's now */
    j->watch.parts = (ooc_parts_out){0};
    q->on = pthread_create(&q->reader, NULL, pr_main, j) == 0;
    if (!q->on) {
        close(q->fd);
        q->fd = -1;
    }
}

static void parts_end(oj_parts *q)
{
    atomic_store(&q->stop, true);
    if (q->on)
        pthread_join(q->reader, NULL);
    q->on = false;
    if (q->fd >= 0)
        close(q->fd);
    q->fd = -1;
    for (size_t i = q->qnext; i < q->nq; i++)
        ooc_part_free(q->queue[i]);
    free(q->queue);
    q->queue = NULL;
    ooc_part_free(atomic_exchange(&q->latest, NULL));
    pthread_mutex_destroy(&q->mu);
    pthread_cond_destroy(&q->cv);
}

/* Stepping: the next queued part published; false once none is left and
 * the reader has ended (the overview's turn). */
static bool parts_step(ooc_open_job *j)
{
    oj_parts *q = &j->parts;
    if (!q->step)
        return false;
    pthread_mutex_lock(&q->mu);
    while (q->on && q->qnext == q->nq && !q->ended)
        pthread_cond_wait(&q->cv, &q->mu);
    ooc_part *p = q->qnext < q->nq ? q->queue[q->qnext++] : NULL;
    pthread_mutex_unlock(&q->mu);
    if (p)
        pr_publish(j, p);
    return p != NULL;
}

ooc_part *ooc_open_job_part(ooc_open_job *j)
{
    return atomic_exchange(&j->parts.latest, NULL);
}

unsigned ooc_open_job_parts_refused(const ooc_open_job *j)
{
    return atomic_load(&((ooc_open_job *)j)->parts.refused);
}

ooc_open_job *ooc_open_job_start(const char *path, const isolate_options *opt,
                                 const struct region_filter *filter, const profile *skel, bool hold)
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
    j->watch = (ooc_watch){oj_sweep, j, NULL, {0}};
    bool parts = parts_begin(j, skel, &j->watch.parts);
    job_gate_init(&j->gate, hold || j->parts.step, 0);
    /* The child is forked here: the starting thread outlives the tail. */
    j->opening = ooc_open_begin(j->path, &j->io, filter, &j->watch);
    if (parts)
        parts_start(j);
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
    if (!parts_step(j))
        job_gate_join(&j->gate);
}

void ooc_open_job_wait_sweep(const ooc_open_job *j)
{
    struct timespec ts = {0, 10 * 1000 * 1000};
    while (!ooc_open_job_done(j) && !ooc_open_job_progress(j).sweeping)
        nanosleep(&ts, NULL);
}

void ooc_open_job_wait_drawn(const ooc_open_job *j)
{
    struct timespec ts = {0, 2 * 1000 * 1000};
    while (!ooc_open_job_done(j) && !atomic_load(&((ooc_open_job *)j)->parts.drawn))
        nanosleep(&ts, NULL);
}

static void oj_free(ooc_open_job *j)
{
    parts_end(&j->parts);
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
