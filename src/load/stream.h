/* stream: the out-of-core batch statistics, the part without
 * libhdf5.  A region too big for the memory budget is read in chunks
 * (stream_col.c) and fed to these accumulators; the results are the same
 * numbers, bit for bit, as stats.c and nest*.c compute from whole columns:
 *
 * - pass 1 (stream_acc): count, total, mean, std (exact integer sums, the
 *   formula of stats.c), min, max, first/last, first_start/last_end, GPU
 *   and await totals, and a log-linear histogram of the durations (the
 *   buckets of stats.c's radix selection);
 * - percentiles (stream_pct): the order statistics numpy's interpolation
 *   needs are located in the histogram; pass 2 keeps only the durations of
 *   those few buckets and selects in them.  A bucket too full for its
 *   share of the budget is split linearly by further passes over its row
 *   (stream_pct_refine), as stats.c splits it in memory;
 * - exclusive totals (stream_sweep): the containment sweep of
 *   nest_infer.c over the rank's calls in (start, -end, region) order, a
 *   k-way merge of chunked row readers, with a stack per inferred lane:
 *   memory in the nesting depth, not the calls. */
#ifndef SV_STREAM_H
#define SV_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/checked.h"
#include "model/profile.h"

__extension__ typedef __int128 stream_i128;
__extension__ typedef unsigned __int128 stream_u128;

/* stats.c's log-linear buckets: 256 per octave. */
#define STREAM_PCT_M 8
#define STREAM_HIST_BUCKETS ((size_t)(65 - STREAM_PCT_M) << STREAM_PCT_M)

size_t stream_log_bucket(uint64_t d);

/* ------------------------------------------------------------ pass 1 */

typedef struct stream_acc {
    uint64_t n;
    stream_i128 sum;
    stream_u128 sumsq;
    int64_t mn, mx, fs, le, first, last;
    uint32_t *hist; /* STREAM_HIST_BUCKETS counts (owned) */
} stream_acc;

bool stream_acc_init(stream_acc *a); /* false on NOMEM */
void stream_acc_free(stream_acc *a);
/* Calls in recorded order; every end >= start (the caller checked). */
void stream_acc_add(stream_acc *a, const int64_t *s, const int64_t *e, size_t n);
/* Fills st (not the percentiles, not exclusive).  Returns false when the
 * integer moments may have wrapped (hostile data only): the caller then
 * gives std by stream_ld_* over two more passes, as stats.c does. */
bool stream_acc_finish(const stream_acc *a, region_stats *st);

/* stats_mean_std's two passes in long double, same order of additions. */
typedef struct stream_ld {
    long double sum, mean, ss;
    uint64_t n;
} stream_ld;
void stream_ld_sum(stream_ld *l, const int64_t *d, size_t n);
void stream_ld_ss(stream_ld *l, const int64_t *d, size_t n);
double stream_ld_std(const stream_ld *l);

/* ------------------------------------------------------------ percentiles */

typedef struct stream_pct {
    uint64_t n;
    size_t lo[3];
    double frac[3];
    size_t nr;        /* 6: ranks lo and lo + 1 of each percentile */
    size_t rank[6];   /* overall rank */
    size_t bucket[6]; /* log-linear bucket holding it */
    size_t within[6]; /* its rank inside that bucket */
    uint32_t cnt[6];  /* calls in that bucket */
    int64_t value[6]; /* the order statistic, once known */
    bool known[6];
    /* Pass 2's collection: the buckets to keep, each with its values. */
    size_t nb, bkt[6], bcnt[6], fill[6];
    int64_t *v[6];
    size_t bmin, bmax; /* bucket range of the collected ones */
    uint64_t vlo, vhi; /* the durations of that range (buckets grow with the duration) */
} stream_pct;

/* The plan from pass 1's histogram (n calls, n > 0). */
void stream_pct_plan(stream_pct *pc, const uint32_t *hist, uint64_t n);
/* Values pass 2 must keep to resolve every rank (0 when nothing left). */
size_t stream_pct_need(const stream_pct *pc);
/* Allocates pass 2's buffers for the buckets that fit in cap values
 * together (the others are left to stream_pct_refine); false on NOMEM. */
bool stream_pct_alloc(stream_pct *pc, size_t cap);
void stream_pct_feed(stream_pct *pc, const int64_t *d, size_t n);
/* Selects in the collected buckets and frees them. */
void stream_pct_resolve(stream_pct *pc);
void stream_pct_free(stream_pct *pc);

/* Percentiles in pass 1 itself (when pass 1 also sweeps the rank): the
 * row's first durations are held; once prefix values are held, windows of
 * buckets around each percentile of what was seen are chosen, only the
 * durations in them are kept (at most cap values), and at the end
 * stream_early_apply checks that every bucket the exact plan wants lies
 * inside a window, so what was kept is all of that bucket.  Any miss (a
 * row whose durations drift, a window too full) just leaves the row to
 * the passes above: the result is the same either way. */
typedef struct stream_early {
    int64_t *v;
    size_t nv, vcap, cap, prefix;
    bool planned, failed;
    uint64_t wlo[3], whi[3]; /* the windows' durations */
} stream_early;

void stream_early_init(stream_early *e, size_t prefix, size_t cap);
/* The chunk's calls (recorded order); hist: pass 1's histogram of every
 * call fed so far, this chunk's included, over seen calls. */
void stream_early_feed(stream_early *e, const int64_t *s, const int64_t *en, size_t n,
                       const uint32_t *hist, uint64_t seen);
/* After stream_pct_plan: true when pc got every value it needs (pass 2's
 * collection done, as stream_pct_alloc and stream_pct_feed leave it);
 * false (pc untouched) when it must read them; NOMEM also false. */
bool stream_early_apply(stream_early *e, stream_pct *pc);
void stream_early_free(stream_early *e);

/* One more pass over a row's durations: calls fn on each chunk.  Returns 0,
 * or -1 on a read error / NOMEM. */
typedef void (*stream_dur_fn)(void *fctx, const int64_t *d, size_t n);
typedef int (*stream_pass_fn)(void *ctx, stream_dur_fn fn, void *fctx);
/* Resolves the ranks still unknown by passes over the row, keeping at most
 * cap values at a time.  0 ok, -1 error. */
int stream_pct_refine(stream_pct *pc, size_t cap, stream_pass_fn pass, void *ctx);
/* p50, p95, p99 into st (every rank known). */
void stream_pct_result(const stream_pct *pc, region_stats *st);

/* ------------------------------------------------------------ exclusive times */

/* A source of one region's calls in (start, -end) order, a chunk at a
 * time: refill points s/e at the next chunk (len calls) and returns 1, 0
 * at the end, -1 on error. */
typedef struct stream_src {
    const int64_t *s, *e;
    size_t len, pos;
    uint32_t reg; /* the region's index in its rank (byte order of names) */
    int (*refill)(void *ctx, struct stream_src *src);
    void *ctx;
    int64_t ps, pe; /* the last call taken: the order is checked as the calls come */
    bool started;
} stream_src;

typedef struct stream_sweep_out {
    int64_t *excl;   /* per reg: exclusive total (added to, saturating) */
    uint32_t nlanes; /* inferred lanes (> 1), else 0: rank_data.ninferred_lanes */
    bool capped;     /* more than 256 lanes were wanted */
    bool lanes;      /* in: the calls of one real lane (thread): one stack, nothing inferred */
} stream_sweep_out;

/* nest_infer.c's sweep for a rank without lane columns or call ids (or the
 * calls of one thread, out->lanes) whose rows are each in (start, -end)
 * order.  0 ok, -1 NOMEM or read error, -2 a row out of that order. */
int stream_sweep(stream_src *srcs, size_t nsrc, stream_sweep_out *out);

/* Chunk length (calls) for nreaders readers of ncols columns each within
 * budget bytes; SCOPEVIEW_STREAM_CHUNK=N forces N (tests: chunk edges). */
size_t stream_chunk_len(uint64_t budget, size_t nreaders, size_t ncols);

#endif
