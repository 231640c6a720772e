/* ooc: the out-of-core viewer's load.  A profile whose calls do
 * not fit the memory budget is never held whole.  Instead:
 *
 * 1. ooc_open: a loading child (isolate.c rules: libhdf5 only there)
 *    reads the file's structure (ranks, regions, names, threads, tasks,
 *    stored summaries, no per-call column: the regions are `streamed`) and
 *    makes one streaming pass over each rank's rows in time order (the
 *    k-way merge and containment sweep of stream.h), feeding
 *      - the overview map (ooc_map.h), every call at its lane and depth;
 *      - the seek index (ooc_seek below);
 *      - the statistics (stream.h: exact, percentiles by a second pass).
 *    It sends the skeleton, the map and the seek index.  The viewer keeps
 *    them: memory in the buckets and the index, not the calls.
 *
 * 2. ooc_window: when the view's time span holds few enough calls (the
 *    map's count, against the budget), a child reads only that window: for
 *    each rank the last checkpoint at or before t0, then for each region
 *    row the calls starting in [checkpoint, t1) (HDF5 hyperslabs located by
 *    the seek index; schema 3's gaps decoded from the anchor) plus the
 *    calls still open at the checkpoint (kept in it).  The result is a
 *    small profile (nested, statistics of the window only: never shown):
 *    every call overlapping the window is in it with the same parent, lane
 *    and lane depth as in the whole profile, so the timeline drawn from it
 *    over [t0, t1) is the in-memory timeline, frame for frame.
 *
 * Rank call indices in a window are the window's own.  The tree, flame
 * graph and callers come from the sweep's call-path totals (ooc_paths.h),
 * the calls list and the slowest call from its slowest calls per region
 * (ooc_slowest.h), the lanes view from its per-lane figures
 * (ooc_lanefig.h); views that need every call (the exclusive time of a
 * call open across the checkpoint) are not offered out of core; batch
 * outputs stream.
 * Model code: no curses. */
#ifndef SV_OOC_H
#define SV_OOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "isolate/isolate.h"
#include "load/window_plan.h"
#include "ooc_map.h"
#include "ooc_part.h"
#include "ooc_sink.h"
#include "model/profile.h"

/* The order of the rank's merge and sweep (nest_infer.c's): start, then
 * the longer call first, then region index, then position in the row;
 * qsort's sign.  The streamed scan, the seek reference and the windows'
 * seeded nesting all sort by it. */
static inline int ooc_merge_cmp(int64_t as, int64_t ae, uint32_t ar, uint64_t ap, int64_t bs,
                                int64_t be, uint32_t br, uint64_t bp)
{
    if (as != bs)
        return as < bs ? -1 : 1;
    if (ae != be)
        return ae > be ? -1 : 1;
    if (ar != br)
        return ar < br ? -1 : 1;
    return (ap > bp) - (ap < bp);
}

/* A seek point every OOC_SEEK_STRIDE calls of a row. */
#define OOC_SEEK_STRIDE 4096

/* A row's calls are cut into segments of OOC_SEEK_STRIDE positions in
 * recorded order (the last one shorter).  Rows need not be in start order
 * (thread-concatenated rows, calls recorded at their end): a window reads
 * every segment whose [smin, smax] meets its time range, whole, and keeps
 * the calls that start in it.  A row of every region with event data, by
 * rank index then region index; npts = ceil(n / OOC_SEEK_STRIDE). */
typedef struct ooc_seek_row {
    size_t rank_index, region_index; /* the skeleton's indices */
    uint64_t n;                      /* calls of the row */
    size_t npts;
    int64_t *start; /* npts: start of call k * OOC_SEEK_STRIDE (absolute, decoded) */
    int64_t *smin;  /* npts: the smallest start of segment k */
    int64_t *smax;  /* npts: the largest start of segment k */
} ooc_seek_row;

/* Checkpoints of a rank: cp[0] at the rank's first start, then one at the
 * start of every (j * OOC_SEEK_STRIDE)-th call of the rank in start order
 * (j >= 1, counted from 0), a time equal to the previous checkpoint's
 * skipped.  Open calls in the nesting sweep's order: start, then end
 * descending, region index, position. */
typedef struct ooc_checkpoint {
    int64_t t;           /* every call of the rank starting before t was swept */
    size_t first, count; /* its open calls: ooc_seek_rank.open[first .. first + count) */
} ooc_checkpoint;

typedef struct ooc_seek_rank {
    size_t rank_index;
    ooc_checkpoint *cp; /* by time; cp[0].t is the rank's first start (nothing open) */
    size_t ncp;
    ooc_open_call *open;
    size_t nopen;
    bool windowable; /* false: windows cannot be exact for this rank (say why in the skeleton's
                        warnings) */
    /* The rank's inferred lanes in the whole profile (rank_data.ninferred_lanes):
     * a window's sweep starts from the open calls in their lanes, so its
     * calls get the lanes the whole profile gives them. */
    uint32_t ninferred;
} ooc_seek_rank;

typedef struct ooc_seek {
    ooc_seek_row *rows;
    size_t nrows;
    ooc_seek_rank *ranks;
    size_t nranks;
} ooc_seek;

void ooc_seek_free(ooc_seek *s); /* ooc_seek.c */

/* The seek index of a whole in-memory profile (its rank calls built:
 * profile_ensure_calls), the reference the streaming scan must equal.
 * A rank is not windowable when its call ids fell back to inference or a
 * parent starts after its child.  false on NOMEM or without the calls. */
bool ooc_seek_from_profile(const profile *full, ooc_seek *out);

/* What the viewer keeps of an out-of-core file. */
/* What a window read checks before it trusts the file at path: the file
 * opened (device and inode), its size and modification time, and a digest
 * of the index it mapped (the skeleton's ranks and their regions by name, in
 * order: a window must be on the same ones, ooc_window).  A file replaced,
 * rewritten, truncated or deleted since the open fails the check, and the
 * window is refused with OOC_CHANGED_MSG instead of read. */
typedef struct ooc_file_id {
    uint64_t dev, ino;
    int64_t size, mtime_s, mtime_ns;
    uint64_t digest;
} ooc_file_id;

#define OOC_CHANGED_MSG "the file changed since it was opened: quit and open it again"

typedef struct ooc_file {
    char *path;
    ooc_file_id id;
    profile *skel; /* regions streamed: statistics, no calls */
    ooc_map map;
    ooc_seek seek;
    uint64_t budget;
    /* The lanes view's figures, by the map's lanes (ooc_lanefig.h), owned. */
    struct lane_figs *lanefigs;
} ooc_file;

/* Step 1 (blocking: call it from a worker thread or before the first
 * frame).  opt as for profile_load_isolated (budget, progress).  The
 * child sends the skeleton, the map and the index after pass 1 and the
 * map's pass; the exclusive totals, percentiles and inferred-lane counts
 * follow (isolate.h light_first): with opt->tail set, *opt->tail receives
 * them for later (the viewer's stats_job; the skeleton's statistics are
 * incomplete until installed, its ninferred_lanes the sweep's), else
 * ooc_open waits and installs them.  In process (isolate_disabled) the
 * same code runs here, whole. */
sv_err ooc_open(const char *path, const isolate_options *opt, ooc_file **out, sv_error *err);
/* ooc_open whose map keeps only the calls filter keeps (-i, -x, --ranks;
 * NULL all), as the in-memory timeline's lanes_build(p, filter) does:
 * lanes without such calls left out, lane depths counting such calls
 * only, the grid on their time span.  The seek index is every call's. */
struct region_filter;
sv_err ooc_open_where(const char *path, const isolate_options *opt,
                      const struct region_filter *filter, ooc_file **out, sv_error *err);
/* ooc_open_where with the caller's sink added to the sweep (ooc_sink.h
 * ooc_sink_hook; NULL none): an export streamed from the loading child. */
sv_err ooc_open_hooked(const char *path, const isolate_options *opt,
                       const struct region_filter *filter, const ooc_sink_hook *hook,
                       ooc_file **out, sv_error *err);
void ooc_file_free(ooc_file *f);

/* How far the pass over the calls is: the loading child reports it on
 * the load's progress channel as a record whose `done` is OOC_SWEEP_MARK
 * and whose `total` packs the figures (ooc_sweep_pack); every other
 * record is bytes read.  rank: the position (1..nranks) of the rank being
 * swept in rank order; permyriad: calls swept of the file's total, in
 * units of 0.01 %. */
#define OOC_SWEEP_MARK (UINT64_MAX - 1)
typedef struct ooc_sweep {
    uint32_t rank, nranks;
    uint32_t permyriad;
} ooc_sweep;
uint64_t ooc_sweep_pack(ooc_sweep s);
ooc_sweep ooc_sweep_unpack(uint64_t v);

/* ooc_open_where whose progress callback (opt->progress) hears bytes read
 * only, and sweep(ctx, s) the pass's records (any one thread: the one
 * that waits for the child). */
typedef struct ooc_watch {
    void (*sweep)(void *ctx, ooc_sweep s);
    void *ctx;
    /* A sink added to this open's sweep (ooc_open_hooked), or NULL. */
    const struct ooc_sink_hook *hook;
    /* Where the loading child sends the overview's parts as its pass goes
     * (ooc_part.h; zero: none), inherited by the child. */
    ooc_parts_out parts;
} ooc_watch;
sv_err ooc_open_watch(const char *path, const isolate_options *opt,
                      const struct region_filter *filter, const ooc_watch *watch, ooc_file **out,
                      sv_error *err);
/* ooc_open_watch in two steps: begin forks the loading child on the
 * calling thread (the child dies with the thread that forked it, so a
 * worker that ends before the statistics' tail is in must not fork it)
 * and returns at once (NULL when out of memory); end, on any one thread,
 * receives the file and frees g, whatever the outcome; abandon kills the
 * child and frees g instead. */
typedef struct ooc_opening ooc_opening;
ooc_opening *ooc_open_begin(const char *path, const isolate_options *opt,
                            const struct region_filter *filter, const ooc_watch *watch);
sv_err ooc_open_end(ooc_opening *g, ooc_file **out, sv_error *err);
void ooc_open_abandon(ooc_opening *g);

/* The identity of the file at path now (false when it cannot be stat'ed),
 * digest 0; the digest of a skeleton or window's ranks and regions. */
bool ooc_file_id_now(const char *path, ooc_file_id *id);
uint64_t ooc_index_digest(const profile *p);
/* Whether path is still the file f opened (identity, size, mtime). */
bool ooc_file_unchanged(const ooc_file *f);

/* Step 2 (blocking, any one thread at a time per ooc_file: it only reads
 * f).  *out: a profile of the calls of [t0, t1) as described above, on the
 * skeleton's ranks and regions (same indices, every region present), its
 * time zero (min_start_ns) and nesting flags the skeleton's; per region the
 * calls starting in [checkpoint, t1) and the checkpoint's open calls, in
 * recorded order.  No statistics (zero).  A rank that is not windowable
 * gets the same calls, but its nesting may differ from the whole profile's.
 * t0 >= t1: every region, no call (no child); a window past the span holds
 * only its checkpoint's calls, none of them overlapping it. */
sv_err ooc_window(const ooc_file *f, int64_t t0, int64_t t1, profile **out, sv_error *err);

/* ooc_window, given up (SV_ERR_USAGE, its child killed) soon after *cancel
 * is set by another thread (isolate_options.cancel); cancel may be NULL. */
sv_err ooc_window_cancellable(const ooc_file *f, int64_t t0, int64_t t1, const atomic_bool *cancel,
                              profile **out, sv_error *err);

/* The most calls a window may hold under budget bytes (the viewer's share
 * of the budget divided by a window's cost per call): a third of the
 * budget at 136 bytes a call (ooc_window.c: times 16, every optional
 * column 48, nesting 12, lanes index 4, and the transient copies while it
 * is made; a plain start/end window measures 26.6 bytes a call resident). */
uint64_t ooc_window_cap(uint64_t budget);

/* The window semantics from a whole in-memory profile (tests: the
 * file-backed window must give the same timeline): every call overlapping
 * [t0, t1) and all its ancestors, nested (full's rank calls built:
 * profile_ensure_calls).  An empty profile for t0 >= t1. */
sv_err ooc_window_slice(const profile *full, int64_t t0, int64_t t1, profile **out, sv_error *err);

#endif
