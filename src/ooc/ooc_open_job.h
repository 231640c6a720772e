/* ooc_open_job: ooc_open (ooc.h) on a worker thread, so the viewer draws
 * its first frame from the file's index (the skeleton) and takes keys
 * while the loading child makes its pass over the calls, saying how far
 * the pass is.
 *
 * Ownership: the worker writes the job's own fields; the progress fields
 * are atomics any thread reads; the file and its tail are published whole
 * with the gate's release store (job_gate.h) and taken only by the
 * starting thread.  Cancelling kills the loading child (stopped or not)
 * within ISOLATE_CANCEL_MS.  Model code: no curses. */
#ifndef SV_OOC_OPEN_JOB_H
#define SV_OOC_OPEN_JOB_H

#include <stdbool.h>
#include <stdint.h>

#include "ooc.h"

typedef struct ooc_open_job ooc_open_job;

/* What the pass has done so far: bytes read by the loading child's first
 * read (statistics), then, once sweeping, the sweep's figures; done once
 * the sweep reported every call (the overview is being sent). */
typedef struct ooc_open_progress {
    uint64_t bytes_done, bytes_total;
    bool sweeping;
    ooc_sweep sweep;
    unsigned seq; /* changes with every report (a redraw is due) */
} ooc_open_progress;

/* Starts ooc_open_where(path, opt, filter) (opt copied: its progress,
 * tail and cancel are the job's; filter and path must outlive the job).
 * skel: the skeleton the viewer shows meanwhile (outlives the job; NULL:
 * no parts), against which each part of the overview is checked
 * (ooc_part.h: the loading child sends them on a pipe of their own, a
 * reader thread receives them).  hold (a test hook): the result is
 * published only after ooc_open_job_release.  SCOPEVIEW_TEST_OVERVIEW:
 * slow:MS, a part after every rank and every OOC_SCAN_TICK calls, the
 * pass sleeping MS after each; parts, the same parts published one per
 * ooc_open_job_wait and the overview after the last.  Without a thread the open runs here.
 * NULL when out of memory. */
ooc_open_job *ooc_open_job_start(const char *path, const isolate_options *opt,
                                 const struct region_filter *filter, const profile *skel,
                                 bool hold);

bool ooc_open_job_done(const ooc_open_job *j);
ooc_open_progress ooc_open_job_progress(const ooc_open_job *j);

/* The newest part of the overview not taken yet (the caller's, free it
 * with ooc_part_free), or NULL; never blocks.  A newer part replaces an
 * untaken one.  refused: parts the reader did not trust (then no more). */
ooc_part *ooc_open_job_part(ooc_open_job *j);
unsigned ooc_open_job_parts_refused(const ooc_open_job *j);

void ooc_open_job_release(ooc_open_job *j);
/* Blocks until published (releasing a held worker); stepping through the
 * parts (above), until the next part instead while one is left. */
void ooc_open_job_wait(ooc_open_job *j);
/* Blocks until the pass reports its sweep or the job is done (tests: an
 * early frame with a definite progress line). */
void ooc_open_job_wait_sweep(const ooc_open_job *j);
/* Blocks until a part with bars is published (ooc_part_drawn) or the job
 * is done (tests and the benchmark: the first frame a user sees filled). */
void ooc_open_job_wait_drawn(const ooc_open_job *j);

/* After ooc_open_job_done: joins the worker, hands over the file and the
 * statistics still to come (*tail, may be NULL) or the error, frees j. */
sv_err ooc_open_job_take(ooc_open_job *j, ooc_file **out, struct isolate_tail **tail,
                         sv_error *err);

/* Gives up the open (its child killed), waits for the worker, frees what
 * it made and j. */
void ooc_open_job_cancel(ooc_open_job *j);

#endif
