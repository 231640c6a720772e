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

void par_run(const par_job *job, int nthreads)
{
    if (job->ntasks == 0)
        return;
    size_t want = nthreads < 1 ? 1 : (size_t)nthreads;
    if (want > job->ntasks)
        want = job->ntasks;
    if (want > PAR_MAX_THREADS)
        want = PAR_MAX_THREADS;
    if (want <= 1) {
        run_serial(job);
        return;
    }
    par_state s = {.job = job, .next = 0, .inflight = 0, .taken = NULL};
    if (job->weight && job->weight_cap)
        s.taken = calloc(job->ntasks, 1); /* NULL: in order, never wrong */
    if (pthread_mutex_init(&s.mu, NULL) != 0) {
        free(s.taken);
        run_serial(job);
        return;
    }
    if (pthread_cond_init(&s.cv, NULL) != 0) {
        pthread_mutex_destroy(&s.mu);
        free(s.taken);
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
    pthread_cond_destroy(&s.cv);
    pthread_mutex_destroy(&s.mu);
    free(s.taken);
}
