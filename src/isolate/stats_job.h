/* stats_job: the statistics of the viewer's load received on a worker
 * thread (isolate.h defer_stats), so the viewer draws its first frame from
 * the columns while the loading child still computes them.
 *
 * Ownership, as calls_job.h: the worker only reads the child's pipe
 * (isolate_tail_recv), or computes on a copy of the profile's structs whose
 * columns it only reads (stats_local.h), into a wire_stats of its own; it
 * publishes the result whole by an atomic flag.  Only the
 * thread that started the job installs it into the profile
 * (stats_job_install), so the viewer never waits unless it asks to
 * (stats_job_wait: deterministic headless screens). */
#ifndef SV_STATS_JOB_H
#define SV_STATS_JOB_H

#include <stdbool.h>

#include "isolate.h"
#include "model/profile.h"

typedef struct stats_job stats_job;
struct nest_share;

/* Starts receiving t (the job owns it from now on, whatever the outcome),
 * or, for a local tail (isolate_tail_local), computing p's statistics
 * from a copy made here (stats_local.h; p's columns stay read-only).
 * Test hooks: hold, the worker finishes but does not publish until
 * stats_job_release(); delay_ms, it publishes that long after finishing
 * (a slow machine, for the terminal's tests).  Without a thread, does the work here and now.
 * share (or NULL): the per-call build's totals, for a local tail's totals
 * pass (stats_local_share); the job takes a reference of its own. */
sv_err stats_job_start(isolate_tail *t, const profile *p, bool hold, unsigned delay_ms,
                       struct nest_share *share, stats_job **out, sv_error *err);

/* true once the result is published (never blocks). */
bool stats_job_done(const stats_job *j);

/* Lets a held worker publish. */
void stats_job_release(stats_job *j);

/* Blocks until the worker has published (releasing a held one). */
void stats_job_wait(stats_job *j);

/* After stats_job_done() (else waits): joins the worker, installs the
 * statistics into p (wire_stats_install), frees the job.  *nwarn_new: the
 * warnings appended to p.  An error (the child's, a broken trailer, no
 * memory) leaves p's statistics as they were. */
sv_err stats_job_install(stats_job *j, profile *p, size_t *nwarn_new, sv_error *err);

/* Kills the child, joins the worker and frees everything (for quitting
 * before it is done). */
void stats_job_cancel(stats_job *j);

#endif
