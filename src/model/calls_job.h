/* calls_job: the per-call nesting (profile_ensure_calls) built on a worker
 * thread, so the viewer draws its first frame and takes keys while it runs.
 *
 * Ownership: the worker reads the profile (columns, regions, thread
 * tables: nothing the viewer writes) and builds every rank's rank_calls in
 * arrays of its own; it publishes them whole by setting an atomic flag
 * when it is done.  Only the thread that started the job touches the
 * profile's rk->calls: calls_job_install() moves the results in there.  So
 * the two threads never write the same memory, and the viewer never waits
 * unless it asks to (calls_job_wait, for deterministic batch screens). */
#ifndef SV_CALLS_JOB_H
#define SV_CALLS_JOB_H

#include <stdbool.h>

#include "util/job_gate.h"
#include "profile.h"

typedef struct calls_job calls_job;

/* Starts the worker on p.  Test hooks: hold, the worker finishes its work
 * but does not publish it until calls_job_release(); delay_ms, it
 * publishes that long after finishing (a slow machine, for the terminal's
 * tests).  On failure to start a thread, builds synchronously (the results
 * are ready at once). */
struct nest_share;
/* share, when given (not taken: the job holds a reference of its own),
 * gets each rank's exclusive totals as its sweep ends (nest_share.h), and
 * is closed when the job ends or fails to start. */
sv_err calls_job_start(profile *p, bool hold, unsigned delay_ms, struct nest_share *share,
                       calls_job **out, sv_error *err);

/* The worker threads' niceness (calls_job_background). */
#define CALLS_JOB_NICE JOB_GATE_NICE

/* job_gate_background(): lowers the calling thread's priority to
 * CALLS_JOB_NICE (Linux; never raises it).  The nesting's helper threads
 * call it, as every gate's worker does, so the viewer's UI thread draws its
 * first frame at full speed beside them. */
void calls_job_background(void);

/* true once the results are published (never blocks). */
bool calls_job_done(const calls_job *j);

/* Lets a held worker publish. */
void calls_job_release(calls_job *j);

/* Blocks until the worker has published (releasing a held one). */
void calls_job_wait(calls_job *j);

/* After calls_job_done(): joins the worker, moves its arrays into the
 * profile's ranks (a rank that already has rk->calls keeps its own) and
 * frees the job.  The worker's error, if any, is returned. */
sv_err calls_job_install(calls_job *j, sv_error *err);

/* Stops the worker between ranks, joins it and frees everything it built
 * (for quitting before it is done). */
void calls_job_cancel(calls_job *j);

#endif
