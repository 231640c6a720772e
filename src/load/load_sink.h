/* load_sink: where a load hands what it reads.  The caller picks one sink
 * (cli, isolate, ooc) from what it chose; the loaders walk the file and
 * call the sink at fixed points instead of testing mode flags.
 *
 * The contract, producer (the columnar loader, load_columnar.c) to
 * consumer (the sink), per file in this order:
 *   1. rows: the kept (region, rank) rows of the index, checked, in offset
 *      order: the sink may keep fewer (an MPI part keeps its share).
 *   2. columns: the event columns of those rows, once: the sink reads
 *      them whole into the model, reads only its planned stretches (a
 *      window), or opens them to be streamed rank by rank (the streamed
 *      statistics; the loader then nests each rank as it commits it).
 *      Not called when the summaries suffice (load_options
 *      stored_statistics): the regions then carry no calls.
 *   3. ranks: each rank's rows committed in rank order (the loader's
 *      work, the same for every sink).
 *   4. end of file: the columns still open; the out-of-core viewer's pass
 *      (ooc_h5.h) reads a streamed file's calls again here.  An error
 *      fails the load.
 * and once per load, after the last file:
 *   5. finish: what the model still needs (statistics, nesting) before
 *      the profile is handed back.
 * Rows of schema-1 files and native traces go to the same sinks, asked
 * for the part, window and stream they carry (load_groups.c, load_spt.c).
 *
 * A sink is a value: its ops and the few parameters they read.  Build it
 * with one of the load_sink_* functions below. */
#ifndef SV_LOAD_SINK_H
#define SV_LOAD_SINK_H

#include <stdbool.h>

#include "model/sv_error.h"

struct ld_ctx;
struct load_budget;
struct lc_file;
struct rank_data;
struct load_pass_at;
struct load_part;
struct ooc_plan;
struct load_sink_ops;

/* What the model still needs after the load. */
typedef enum load_finish {
    LOAD_FINISH_ALL,     /* statistics and nesting (profile_finish) */
    LOAD_FINISH_NO_NEST, /* statistics only: the caller nests (diff_remote.c) */
    /* Sorted and numbered only: the viewer's load (isolate.h defer_stats)
     * finishes with profile_finish_steps(p, true, true) once the columns
     * are sent. */
    LOAD_FINISH_NONE,
} load_finish;

/* LOAD_STREAM_PREFER is AUTO that also streams a large file the streamed
 * statistics take in one read (stream_col.h sc_wanted, sg_prefer): less
 * time and a fraction of the memory, with the same output.  Should the
 * stream meet a rank it could only give stored exclusive totals for, it
 * gives up (declined) and the load runs again as AUTO (load_sink_retry). */
enum { LOAD_STREAM_OFF, LOAD_STREAM_AUTO, LOAD_STREAM_FORCE, LOAD_STREAM_PREFER };

typedef struct load_sink {
    const struct load_sink_ops *ops;
    load_finish finish; /* the model's, and a stream's that did not stream */
    /* load_sink_part: an MPI run's share of the rows (load_rows.h). */
    const struct load_part *part;
    /* load_sink_window: each planned row reads only its planned segments
     * and open calls, the others none (load_window.h). */
    const struct ooc_plan *window;
    /* load_sink_stream: LOAD_STREAM_AUTO streams a columnar file whose
     * event columns would exceed the budget, LOAD_STREAM_FORCE always;
     * regions are then `streamed` (no columns).  LOAD_STREAM_OFF in the
     * other sinks. */
    int stream;
    /* LOAD_STREAM_PREFER: set when the stream gave up (see above); NULL
     * otherwise. */
    bool *declined;
    /* A streamed columnar load stops after pass 1 (stream_col.h): counts,
     * totals, moments, min, max, first/last, but no exclusive totals, no
     * percentiles and no inferred-lane count (the out-of-core viewer's
     * first frame; a second, full load brings them: isolate.h
     * light_first). */
    bool stats_later;
    /* The out-of-core viewer's pass, or NULL (load_pass_at says when). A
     * schema-1 file is then not streamed: that pass maps columnar files
     * only (ooc_open.c loads schema 1 in memory). */
    sv_err (*pass)(void *ctx, struct ld_ctx *c, struct lc_file *lf, struct load_pass_at *at);
    void *pass_ctx;
} load_sink;

/* When a streamed columnar load calls its sink's pass: before a rank's
 * pass 1 (LOAD_PASS_READ: the pass may read the rank's rows itself, doing
 * pass 1 on every chunk, and sets `read` then; the load reads them
 * otherwise), after the rank is committed (LOAD_PASS_RANK: its verdicts,
 * statistics and regions are known) and at the file's end (LOAD_PASS_END,
 * step 4: no rank). */
enum { LOAD_PASS_READ, LOAD_PASS_RANK, LOAD_PASS_END };
typedef struct load_pass_at {
    int when;
    struct rank_data *rk;
    const size_t *rows; /* the rank's rows (lc_file indices) */
    size_t n;
    bool read;
} load_pass_at;

/* Every call into the model, finished as fin says. */
load_sink load_sink_model(load_finish fin);
/* An MPI process's share: the model of its rows, statistics but no
 * nesting (load_rows_finish nests). */
load_sink load_sink_part(const struct load_part *pt);
/* An out-of-core window's calls; its statistics are never shown. */
load_sink load_sink_window(const struct ooc_plan *plan);
/* The streamed statistics (stream.h) as `how` says; a file that does not
 * stream goes to the model, finished as fin says.  Set stats_later and
 * pass on the value as needed. */
load_sink load_sink_stream(int how, load_finish fin);
/* After a failed load e of a stream sink (b its budget): true when it is
 * to run again, s->stream changed: a PREFER that declined or exceeded the
 * budget as AUTO, an AUTO over the budget as FORCE (schema 1 meets its
 * columns one region at a time: only a failed load tells that they exceed
 * it). */
bool load_sink_retry(load_sink *s, sv_err e, const struct load_budget *b);

#endif
