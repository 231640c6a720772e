/* isolate: the whole load of a file in a child process.
 *
 * libhdf5 1.10.8 crashes or hangs on some malformed files, and a file can
 * change while it is read (a job still writing it, a copy in progress).  So
 * the viewer's process never parses a file itself: a forked child runs
 * profile_load() (every libhdf5 call, then profile_finish(): the statistics
 * are computed in the child) under resource limits, and sends the finished
 * model back over a pipe (wire.h); the parent watches it with a progress
 * deadline.  A crash, a hang, a runaway allocation or a change of the file
 * can then only fail the load, with a one-line message.
 *
 * Limits scale with the bytes the file really stores (allocated blocks,
 * not its apparent size: a sparse file does not stretch them): address
 * space = the memory budget plus room for libhdf5, CPU = 60 s + 1 s per
 * MiB stored, no progress for 10 s + 1 s per 64 MiB stored kills the
 * child.  The model received is charged to the same budget.
 *
 * SCOPEVIEW_IN_PROCESS=1 (or the older SCOPEVIEW_NO_PROBE=1) loads in the
 * calling process instead: for tests and for debugging libhdf5 itself. */
#ifndef SV_ISOLATE_H
#define SV_ISOLATE_H

#include <stdatomic.h>

#include "model/profile.h"

struct ld_ctx;
struct lc_file;
struct load_pass_at;

typedef struct isolate_options {
    /* Called now and then during the load; done/total in bytes read. */
    void (*progress)(void *ctx, uint64_t done, uint64_t total);
    void *progress_ctx;
    /* Bytes the load may allocate (--memory); 0 = isolate_default_budget(). */
    uint64_t budget;
    /* npaths > 1: a C-API file set, loaded as one profile by
     * profile_load_set() (path is paths[0], whose size sets the limits). */
    const char *const *paths;
    size_t npaths;
    bool stored_statistics; /* load_options.stored_statistics (--summary) */
    bool stats_only;        /* load_options.stats_only (--json, --csv, --summary) */
    bool index_only;        /* load_options.index_only (the out-of-core viewer's skeleton) */
    int stream;             /* load_sink_stream (batch outputs, --out-of-core) */
    /* Work on the finished model done in the child and sent after it
     * (wire.h sections; --diff's batch run: one side of the comparison).
     * prepare(section->ctx, &p, err) runs in the child after the load and
     * may replace p by the (smaller) model to send; section->put sends its
     * result, section->get reads it in the parent into section->ctx.
     * Neither runs when the load is in-process (isolate_disabled): the
     * caller then finds nothing received and does the work itself. */
    sv_err (*prepare)(void *ctx, profile **p, sv_error *err);
    const struct wire_section *section;
    /* With prepare: the child's load stops before the nesting and its
     * checks of stored values (LOAD_FINISH_NO_NEST); prepare does them
     * (--diff: one sweep for the totals and the comparison's parents).  An
     * in-process load ignores it. */
    bool prepare_nests;
    /* The viewer's load (wire_stats.h): the child sends the model before
     * computing any statistic, then the statistics on a pipe of their own.
     * With tail set, *tail receives that second half, to be received later
     * (isolate_tail_recv, on any one thread) while the model is in use; the
     * model's statistics are zero until then.  Without tail the load waits
     * for them (the same profile as without defer_stats).  Ignored with a
     * prepare step (unless light_first) and in-process (*tail is then
     * NULL). */
    bool defer_stats;
    struct isolate_tail **tail;
    /* With defer_stats: the child computes the statistics after sending
     * the model and sends them on (wire_stats.h); without, the child sends
     * its columns released as they go (warm pages for the viewer's,
     * wire.h) and the statistics are computed in this process from the
     * tail (stats_local.h, stats_job.h), which is then "local". */
    bool stats_in_child;
    /* With prepare, defer_stats and stats_in_child (the out-of-core
     * viewer, ooc_open): the child's load stops after what the first frame
     * needs (load_sink.h stats_later), prepare runs and the model is sent
     * with its section; sent(section ctx) then lets the child free what
     * prepare made, and the child loads the file again in full and sends
     * that load's statistics as the tail (the same regions, else an
     * error; its warnings the model lacks).  A file whose load had
     * nothing to leave (no streamed region) sends its own statistics. */
    bool light_first;
    void (*sent)(void *ctx);
    /* An out-of-core window's plan (load_sink_window, ooc_window.c). */
    const struct ooc_plan *window;
    /* The out-of-core viewer's pass during the load (load_sink.h pass,
     * ooc.h), in the child or in-process. */
    sv_err (*streamed)(void *ctx, struct ld_ctx *c, struct lc_file *lf, struct load_pass_at *at);
    void *streamed_ctx;
    /* Set (by another thread) to give up the load: the parent stops waiting
     * for the child within ISOLATE_CANCEL_MS, kills it (a stopped child
     * too) and the load fails with SV_ERR_USAGE, "cancelled".  The viewer
     * quitting on a signal while a window is read (ooc_job_cancel). */
    const atomic_bool *cancel;
} isolate_options;

/* How often a cancellable load looks at its flag. */
#define ISOLATE_CANCEL_MS 50

sv_err profile_load_isolated(const char *path, const isolate_options *opt, profile **out,
                             sv_error *err);

/* The same load in two steps, so that two files load at once (--diff: the
 * second child reads its file while the first one's model is received and
 * used).  isolate_start forks the child and returns at once (NULL only
 * when out of memory); a failure to start is reported by isolate_collect,
 * which receives the model, reaps the child and frees the handle whatever
 * the outcome (NULL: an out-of-memory error).  The stall deadline runs
 * from the collect: a child that is done waits on its full pipe without
 * using CPU.  isolate_cancel kills and reaps an uncollected child.  With
 * isolation off, the load runs in isolate_collect.  The options are
 * copied (paths: the pointer only); isolate_set_progress replaces the
 * progress callback before the collect. */
typedef struct isolate_load isolate_load;
isolate_load *isolate_start(const char *path, const isolate_options *opt);
void isolate_set_progress(isolate_load *ld, void (*progress)(void *, uint64_t, uint64_t),
                          void *ctx);
sv_err isolate_collect(isolate_load *ld, profile **out, sv_error *err);
void isolate_cancel(isolate_load *ld);

/* The statistics of a load started with defer_stats.  isolate_tail_recv
 * blocks until the child sends them (the stall deadline and the CPU limit
 * still watch it) and reaps the child: SV_OK with *out, or an error in err
 * (one line, naming the file).  It touches no profile, so it may run on a
 * worker thread (stats_job.h); isolate_tail_kill, from any thread, ends the
 * child (the receive then fails at once).  isolate_tail_free kills a child
 * not reaped and frees t. */
typedef struct isolate_tail isolate_tail;
struct wire_stats;
sv_err isolate_tail_recv(isolate_tail *t, struct wire_stats **out, sv_error *err);
void isolate_tail_kill(isolate_tail *t);
/* A tail whose statistics are computed here (no child): stats_local.h. */
bool isolate_tail_local(const isolate_tail *t);
void isolate_tail_free(isolate_tail *t);

/* Ends the message of a load that exceeded the budget without streaming:
 * the viewer (cli/ooc_run.h) then opens the file out of core. */
#define ISOLATE_OVER_BUDGET_NOTE                                                                   \
    "; the viewer opens such a file out of core, --json, --csv and --summary stream it"

struct load_budget;
/* Appends to msg (a refusal by budget b, budget.h budget_message) why the
 * load did not get below the budget: how to load it out of core (stream
 * off), a sparse file's columns not streamed (b->not_streamed), the
 * streamed load's own need, or a layout that is not streamed (viewer: the
 * out-of-core viewer's load). */
void isolate_budget_note(const struct load_budget *b, int stream, bool viewer, char *msg,
                         size_t cap);

/* Half the machine's RAM (sysconf), at least 256 MiB. */
uint64_t isolate_default_budget(void);

/* The budget a load runs under: bytes itself, or isolate_default_budget()
 * when 0.  The command line resolves --memory with it once (cli_parse);
 * the library entry points apply it too, so their other callers (tests)
 * may still pass 0. */
uint64_t isolate_budget_or_default(uint64_t bytes);

/* Parses a size: "512M", "2G", "1.5G", "1048576" (K, M, G, T binary
 * units, optional "B" / "iB").  False for anything else or 0. */
bool isolate_parse_size(const char *s, uint64_t *bytes);

/* True when SCOPEVIEW_IN_PROCESS=1 or SCOPEVIEW_NO_PROBE=1 asks for an
 * in-process load. */
bool isolate_disabled(void);

#endif
