/* par: the loading step's worker threads.  par_run() runs n independent
 * tasks on up to par_threads() threads (the caller's thread among them) and
 * returns when all are done.  Results never depend on the schedule: each
 * task writes only its own outputs, and the warnings a task reports through
 * profile_warn() are kept in that task's own list (par_warns), which the
 * caller replays in the serial order with par_warns_replay().
 *
 * SCOPEVIEW_THREADS=N forces N threads (1: everything runs serially in the
 * caller, the reference the tests compare the threaded results with). */
#ifndef SV_PAR_H
#define SV_PAR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile.h"

#define PAR_MAX_THREADS 16
/* A worker's stack: the tasks recurse nowhere and keep no big arrays on
 * the stack.  It counts against the loading child's address-space limit. */
#define PAR_STACK_BYTES ((size_t)256 << 10)

/* The warnings of one task, in the order it reported them. */
typedef struct par_warns {
    char **v;
    size_t n, cap;
} par_warns;

typedef void (*par_task_fn)(void *ctx, size_t task);

typedef struct par_job {
    size_t ntasks;
    par_task_fn fn;
    void *ctx;
    /* Optional: warns[task] collects that task's profile_warn() lines. */
    par_warns *warns;
    /* Optional: the scratch memory a task needs (any unit).  A task starts
     * only while the running ones' weights plus its own stay within
     * weight_cap, or when nothing else runs, so the threads add at most
     * weight_cap to the serial run's peak; meanwhile up to 64 later tasks
     * that fit may start before it.  0: no cap. */
    const uint64_t *weight;
    uint64_t weight_cap;
} par_job;

/* Threads to use: SCOPEVIEW_THREADS when set (1..PAR_MAX_THREADS), else
 * the CPUs this process may run on, at most PAR_MAX_THREADS. */
int par_threads(void);

/* Threads for each of procs processes that share this machine (an MPI
 * run's processes on one node): the machine's online CPUs divided among
 * them, at least 1, and no more than par_threads() (the CPUs this process
 * may run on; SCOPEVIEW_THREADS when set), so that the processes together
 * never run more threads than there are CPUs. */
int par_threads_shared(int procs);

/* Runs every task of job on up to nthreads threads, started in index order
 * (but for weight_cap above).  Never fails: a thread that cannot be created leaves its share
 * to the others (the caller's thread runs tasks too). */
void par_run(const par_job *job, int nthreads);

/* A crew: nthreads - 1 helper threads kept waiting between jobs, for a
 * thread that runs many short jobs in a row (the out-of-core reader's
 * chunks: a few hundred microseconds of decoding each, which a thread
 * created per job would mostly miss).  par_crew_run runs job as par_run
 * does, on the caller and whichever helpers wake while tasks are left;
 * only one thread posts jobs to a crew.  par_crew_start returns NULL when
 * nthreads <= 1 or no helper starts: par_crew_run(NULL, job) then runs
 * serially.  par_crew_stop ends the helpers; no thread outlives it. */
typedef struct par_crew par_crew;
par_crew *par_crew_start(int nthreads);
void par_crew_run(par_crew *cr, const par_job *job);
void par_crew_stop(par_crew *cr);

/* Appends w's lines to p's warnings through profile_warn() (its cap per
 * kind applies as in a serial run), then empties w. */
void par_warns_replay(profile *p, par_warns *w);
void par_warns_free(par_warns *w);

/* For profile_warn(): true when the calling thread runs a par task that
 * collects warnings; the line is then kept there instead. */
bool par_warn_capture(const char *line);

#endif
