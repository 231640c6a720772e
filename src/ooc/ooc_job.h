/* ooc_job: one out-of-core window (ooc.h ooc_window) read on a worker
 * thread, so the viewer keeps drawing the overview and taking keys while
 * the calls of the visible span are read.
 *
 * Ownership: the worker only reads the ooc_file (read-only once open) and
 * writes the job's own fields; it publishes the window whole with a
 * release store of `done`, which ooc_job_done's acquire load pairs with.
 * Only the starting thread takes the result (ooc_job_take).  Model code:
 * no curses. */
#ifndef SV_OOC_JOB_H
#define SV_OOC_JOB_H

#include <stdbool.h>
#include <stdint.h>

#include "ooc.h"

typedef struct ooc_job ooc_job;

/* Starts reading the window [t0, t1) of f.  hold (a test hook): the
 * worker reads it but publishes only after ooc_job_release.  Without a
 * thread the read runs here, published at once.  NULL when out of memory. */
ooc_job *ooc_job_start(const ooc_file *f, int64_t t0, int64_t t1, bool hold);

/* true once the window (or the error) is published; never blocks. */
bool ooc_job_done(const ooc_job *j);

/* The span asked for. */
void ooc_job_span(const ooc_job *j, int64_t *t0, int64_t *t1);

/* Lets a held worker publish. */
void ooc_job_release(ooc_job *j);

/* Blocks until published (releasing a held worker). */
void ooc_job_wait(ooc_job *j);

/* After ooc_job_done: joins the worker, hands over the window (*out) or
 * the error, frees j. */
sv_err ooc_job_take(ooc_job *j, profile **out, sv_error *err);

/* Gives up the read (its loading child is killed, stopped or not), waits
 * for the worker, frees the window and j (quitting, or a window no longer
 * wanted). */
void ooc_job_cancel(ooc_job *j);

#endif
