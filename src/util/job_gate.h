/* job_gate: the scaffolding the viewer's background jobs share (calls_job,
 * stats_job, ooc_job): one worker thread that does a job's work, then publishes its
 * result whole, and the test hooks that hold the result back.
 *
 * The worker writes only the job's own memory until it publishes: a release
 * store of the done flag, which job_gate_done()'s acquire load pairs with,
 * so whoever sees done sees everything the work wrote.  Before publishing
 * it waits, for the tests: delay_ms (a slow machine, for the terminal's
 * tests; job_gate_release() or a wait cuts it short), then while held
 * (until job_gate_release()).  Cancelling sets a flag the work may poll
 * (job_gate_cancelled) and ends both waits.
 *
 * The gate is embedded in the job's struct; the job calls init, start,
 * then join (before reading the result) or cancel, then destroy. */
#ifndef SV_JOB_GATE_H
#define SV_JOB_GATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

typedef void (*job_gate_work)(void *arg);

typedef struct job_gate {
    atomic_bool cancel;
    atomic_bool done;
    pthread_mutex_t mu; /* guards held and delayed */
    pthread_cond_t cv;
    bool held;         /* test hook: publish only after job_gate_release() */
    bool delayed;      /* test hook: publish delay_ms late, unless released */
    unsigned delay_ms; /* ... */
    job_gate_work work;
    void *arg;
    bool threaded; /* the worker runs on thread (set by the starting thread) */
    /* The user waits for this work (a window of calls being read): its
     * worker keeps the UI thread's priority instead of JOB_GATE_NICE. */
    bool foreground;
    pthread_t thread;
} job_gate;

void job_gate_init(job_gate *g, bool hold, unsigned delay_ms);

/* The worker threads' niceness (job_gate_background). */
#define JOB_GATE_NICE 5

/* Lowers the calling thread's priority to JOB_GATE_NICE (Linux; never
 * raises it): every gate's worker calls it first, so the viewer's UI
 * thread draws its first frame at full speed beside them. */
void job_gate_background(void);

/* Runs work(arg) on a new thread (at JOB_GATE_NICE), which then publishes.  Without a thread,
 * runs it here and now and publishes at once (no hold, no delay). */
void job_gate_start(job_gate *g, job_gate_work work, void *arg);

/* true once the result is published (never blocks). */
bool job_gate_done(const job_gate *g);

/* true once job_gate_cancel() has begun (for the work to stop early). */
bool job_gate_cancelled(const job_gate *g);

/* Lets a held or delayed worker publish. */
void job_gate_release(job_gate *g);

/* Blocks until the worker has published (releasing a held one). */
void job_gate_wait(job_gate *g);

/* job_gate_wait(), then joins the worker: the result is the caller's. */
void job_gate_join(job_gate *g);

/* Asks the work to stop (job_gate_cancelled), ends the test hooks' waits
 * and joins the worker.  Whatever blocks the work outside the gate (a
 * pipe) is the job's to interrupt, before or after. */
void job_gate_cancel(job_gate *g);

/* Frees the lock and condition variable (after join or cancel). */
void job_gate_destroy(job_gate *g);

#endif
