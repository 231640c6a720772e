/* par: a fixed set of worker threads for one batch of independent tasks
 * (par.h).  The threads live only as long as par_run(): the loading child
 * runs a few batches, each long enough that creating threads costs
 * nothing measurable, and no thread outlives the step that needs it. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "par.h"
#include "util/hooks.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The warnings list of the task this thread runs, NULL outside a task.
 * Thread-local by necessity: profile_warn() is called deep inside the
 * nesting with only the profile at hand, and concurrent tasks share it. */
static _Thread_local par_warns *par_sink;

int par_threads(void)
{
    const char *s = hook_value(HOOK_THREADS);
    if (s && *s) {
        char *end;
        long v = strtol(s, &end, 10);
        if (*end == '\0' && v >= 1)
            return v > PAR_MAX_THREADS ? PAR_MAX_THREADS : (int)v;
    }
    long n = 0;
#ifdef CPU_COUNT
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        n = CPU_COUNT(&set);
#endif
    if (n < 1)
        n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        n = 1;
    return n > PAR_MAX_THREADS ? PAR_MAX_THREADS : (int)n;
}

int par_threads_shared(int procs)
{
    int n = par_threads();
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    long share = online > 0 && procs > 0 ? online / procs : 1;
    share = share < 1 ? 1 : share;
    return n < share ? n : (int)share;
}

bool par_warn_capture(const char *line)
{
    par_warns *w = par_sink;
    if (!w)
        return false;
    if (w->n == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 4;
        char **v = realloc(w->v, cap * sizeof *v);
        if (!v)
            return true; /* as profile_warn: no memory, no line */
        w->v = v;
        w->cap = cap;
    }
    char *copy = strdup(line);
    if (copy)
        w->v[w->n++] = copy;
    return true;
}

void par_warns_free(par_warns *w)
{
    for (size_t i = 0; i < w->n; i++)
        free(w->v[i]);
    free(w->v);
    memset(w, 0, sizeof *w);
}

void par_warns_replay(profile *p, par_warns *w)
{
    for (size_t i = 0; i < w->n; i++)
        profile_warn(p, "%s", w->v[i]);
    par_warns_free(w);
}

typedef struct par_state {
    const par_job *job;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    atomic_size_t next; /* the first task not started */
    uint64_t inflight;  /* the running tasks' weights */
    /* Weighted jobs: the tasks started ahead of next, or NULL (then tasks
     * start strictly in order). */
    uint8_t *taken;
} par_state;

/* How far past a task that must wait for memory another may start: a
 * rank's big nesting waits, its regions' statistics go on meanwhile. */
#define PAR_LOOKAHEAD 64

static uint64_t task_weight(const par_job *j, size_t t)
{
    return j->weight && j->weight_cap ? j->weight[t] : 0;
}

/* The next task this thread may start, or ntasks when none is left.  Tasks
 * start in index order, except that one which would pass the weight cap
 * lets the next few that fit go first; when none fits, the thread waits
 * for running ones to finish (a task always fits when nothing runs). */
static size_t take_task(par_state *s)
{
    const par_job *j = s->job;
    /* Without weights a task costs one atomic increment to take: rows of
     * a file with thousands of regions are tasks of a few calls each. */
    if (!j->weight || !j->weight_cap) {
        size_t t = atomic_fetch_add_explicit(&s->next, 1, memory_order_relaxed);
        return t < j->ntasks ? t : j->ntasks;
    }
    pthread_mutex_lock(&s->mu);
    for (;;) {
        size_t t = s->next;
        while (s->taken && t < j->ntasks && s->taken[t])
            t++;
        s->next = t;
        if (t >= j->ntasks) {
            pthread_mutex_unlock(&s->mu);
            return j->ntasks;
        }
        size_t end = s->taken ? t + PAR_LOOKAHEAD : t + 1;
        for (; t < end && t < j->ntasks; t++) {
            if (s->taken && s->taken[t])
                continue;
            uint64_t w = task_weight(j, t);
            if (s->inflight == 0 || s->inflight + w <= j->weight_cap) {
                s->inflight += w;
                if (s->taken)
                    s->taken[t] = 1;
                else
                    s->next = t + 1;
                pthread_mutex_unlock(&s->mu);
                return t;
            }
        }
        pthread_cond_wait(&s->cv, &s->mu);
    }
}

static void done_task(par_state *s, size_t t)
{
    uint64_t w = task_weight(s->job, t);
    if (!w)
        return;
    pthread_mutex_lock(&s->mu);
    s->inflight -= w;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

static void *par_worker(void *arg)
{
    par_state *s = arg;
    const par_job *j = s->job;
    /* A task may run a batch of its own (a rank's nesting cut into
     * parts): the caller's list is its again afterwards. */
    par_warns *outer = par_sink;
    size_t t;
    while ((t = take_task(s)) < j->ntasks) {
        par_sink = j->warns ? &j->warns[t] : NULL;
        j->fn(j->ctx, t);
        par_sink = outer;
        done_task(s, t);
    }
    return NULL;
}

static void run_serial(const par_job *j)
{
    par_warns *outer = par_sink;
    for (size_t t = 0; t < j->ntasks; t++) {
        par_sink = j->warns ? &j->warns[t] : NULL;
        j->fn(j->ctx, t);
        par_sink = outer;
    }
}

/* The job's state (its lock for weighted jobs); false: run it serially. */
static bool state_init(par_state *s, const par_job *job)
{
    *s = (par_state){.job = job, .next = 0, .inflight = 0, .taken = NULL};
    if (job->weight && job->weight_cap)
        s->taken = calloc(job->ntasks, 1); /* NULL: in order, never wrong */
    if (pthread_mutex_init(&s->mu, NULL) != 0) {
        free(s->taken);
        return false;
    }
    if (pthread_cond_init(&s->cv, NULL) != 0) {
        pthread_mutex_destroy(&s->mu);
        free(s->taken);
        return false;
    }
    return true;
}

static void state_free(par_state *s)
{
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->mu);
    free(s->taken);
}

void par_run(const par_job *job, int nthreads)
{
    if (job->ntasks == 0)
        return;
    size_t want = nthreads < 1 ? 1 : (size_t)nthreads;
    if (want > job->ntasks)
        want = job->ntasks;
    if (want > PAR_MAX_THREADS)
        want = PAR_MAX_THREADS;
    par_state s;
    if (want <= 1 || !state_init(&s, job)) {
        run_serial(job);
        return;
    }
    pthread_t tid[PAR_MAX_THREADS];
    size_t started = 0;
    pthread_attr_t attr;
    bool attr_ok = pthread_attr_init(&attr) == 0;
    if (attr_ok)
        pthread_attr_setstacksize(&attr, PAR_STACK_BYTES);
    /* The caller is one of the threads: start want - 1 more. */
    for (size_t i = 0; i + 1 < want; i++) {
        if (pthread_create(&tid[started], attr_ok ? &attr : NULL, par_worker, &s) != 0)
            break; /* the others take its share */
        started++;
    }
    if (attr_ok)
        pthread_attr_destroy(&attr);
    par_worker(&s);
    for (size_t i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    state_free(&s);
}

/* ------------------------------------------------------------ crews */

struct par_crew {
    pthread_mutex_t mu;
    pthread_cond_t work, idle;
    pthread_t tid[PAR_MAX_THREADS];
    size_t n;       /* helpers started */
    uint64_t gen;   /* jobs posted */
    par_state *job; /* the posted job while its caller still takes tasks, else NULL */
    size_t busy;    /* helpers inside a job */
    bool stop;
};

/* A helper: waits for a job, takes its tasks beside the caller.  One that
 * wakes after the caller ran out of tasks finds no job and waits again. */
static void *crew_main(void *arg)
{
    par_crew *cr = arg;
    uint64_t seen = 0;
    pthread_mutex_lock(&cr->mu);
    for (;;) {
        while (!cr->stop && (cr->gen == seen || !cr->job))
            pthread_cond_wait(&cr->work, &cr->mu);
        if (cr->stop)
            break;
        seen = cr->gen;
        par_state *s = cr->job;
        cr->busy++;
        pthread_mutex_unlock(&cr->mu);
        par_worker(s);
        pthread_mutex_lock(&cr->mu);
        if (--cr->busy == 0)
            pthread_cond_broadcast(&cr->idle);
    }
    pthread_mutex_unlock(&cr->mu);
    return NULL;
}

par_crew *par_crew_start(int nthreads)
{
    if (nthreads <= 1)
        return NULL;
    par_crew *cr = calloc(1, sizeof *cr);
    if (!cr)
        return NULL;
    if (pthread_mutex_init(&cr->mu, NULL) != 0) {
        free(cr);
        return NULL;
    }
    if (pthread_cond_init(&cr->work, NULL) != 0) {
        pthread_mutex_destroy(&cr->mu);
        free(cr);
        return NULL;
    }
    if (pthread_cond_init(&cr->idle, NULL) != 0) {
        pthread_cond_destroy(&cr->work);
        pthread_mutex_destroy(&cr->mu);
        free(cr);
        return NULL;
    }
    pthread_attr_t attr;
    bool attr_ok = pthread_attr_init(&attr) == 0;
    if (attr_ok)
        pthread_attr_setstacksize(&attr, PAR_STACK_BYTES);
    size_t want = (size_t)(nthreads > PAR_MAX_THREADS ? PAR_MAX_THREADS : nthreads) - 1;
    while (cr->n < want &&
           pthread_create(&cr->tid[cr->n], attr_ok ? &attr : NULL, crew_main, cr) == 0)
        cr->n++;
    if (attr_ok)
        pthread_attr_destroy(&attr);
    if (cr->n == 0) {
        par_crew_stop(cr);
        return NULL;
    }
    return cr;
}

void par_crew_run(par_crew *cr, const par_job *job)
{
    if (!cr) {
        par_run(job, 1);
        return;
    }
    par_state s;
    if (job->ntasks == 0)
        return;
    if (job->ntasks == 1 || !state_init(&s, job)) {
        run_serial(job);
        return;
    }
    pthread_mutex_lock(&cr->mu);
    cr->job = &s;
    cr->gen++;
    pthread_cond_broadcast(&cr->work);
    pthread_mutex_unlock(&cr->mu);
    par_worker(&s);
    /* Every task is taken: no helper joins now; wait for those inside. */
    pthread_mutex_lock(&cr->mu);
    cr->job = NULL;
    while (cr->busy > 0)
        pthread_cond_wait(&cr->idle, &cr->mu);
    pthread_mutex_unlock(&cr->mu);
    state_free(&s);
}

void par_crew_stop(par_crew *cr)
{
    if (!cr)
        return;
    pthread_mutex_lock(&cr->mu);
    cr->stop = true;
    pthread_cond_broadcast(&cr->work);
    pthread_mutex_unlock(&cr->mu);
    for (size_t i = 0; i < cr->n; i++)
        pthread_join(cr->tid[i], NULL);
    pthread_cond_destroy(&cr->work);
    pthread_cond_destroy(&cr->idle);
    pthread_mutex_destroy(&cr->mu);
    free(cr);
}
