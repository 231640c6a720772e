/* The inferred-nesting sweep's state, shared by nest_infer.c (the sweep)
 * and nest_split.c (one rank's sweep cut by time into parts run on
 * threads).  Not part of the model's API. */
#ifndef SV_NEST_INFER_H
#define SV_NEST_INFER_H

#include "nest_internal.h"
#include "nest_sweep.h"

typedef struct call_key {
    int64_t thread, task; /* the lane; -1 when the column is absent */
    int64_t s, e;
    uint32_t reg; /* region index in the rank (byte order of names) */
    /* The call's index in the rank (gidx0 + recorded index): within a
     * region it orders as the recorded index (ranks hold at most
     * SV_RANK_CALLS_MAX calls, so it never wraps). */
    uint32_t g;
} call_key;

__extension__ typedef unsigned __int128 merge_key;

typedef struct heap_item {
    merge_key key; /* of the head: (start, -end) */
    int64_t s, e;
    /* Where the region's next call comes from, kept here so that
     * advancing touches nothing but this item. */
    const int64_t *sp, *ep;
    const uint32_t *perm; /* sorted order, or NULL when already sorted */
    uint32_t reg;
    uint32_t pos; /* position in the region's order */
    uint32_t n;   /* the end of the positions to merge */
    uint32_t g0;  /* the region's first index in the rank */
} heap_item;

typedef struct call_iter {
    const rank_data *rk;
    /* merge mode */
    heap_item *heap;
    size_t nheap;
    /* Scanning (nheap <= SCAN_MAX): the items stay in region order, so
     * that of equal keys the first is the smallest region. */
    bool scan;
    uint32_t **perm; /* per region: sorted order, or NULL when already sorted */
    /* sorted mode: keys in the sweep's order (owned by the iterator
     * unless keys_borrowed) */
    call_key *keys;
    size_t nkeys, next;
    bool keys_borrowed;
} call_iter;

/* An open call: nest_sweep's span first, then what its pop adds up. */
typedef struct open_call {
    nest_span span;
    uint32_t reg, g;
    int64_t cover_end, covered;
    /* Open when a part of a split sweep began (nest_split.c): its covered
     * time before the part is not known here, so its pop is recorded, not
     * summed.  Always false in a whole sweep. */
    bool carried;
} open_call;

/* The pop of a call open when a part began: its lane, its position in the
 * lane's stack, and the time its children covered during the part. */
typedef struct carried_pop {
    uint32_t lane;
    uint32_t pos;
    int64_t covered;
} carried_pop;

typedef struct sweep {
    rank_data *rk;
    nest_out *out;
    nest_sweep ns; /* the lanes, of open_call */
    bool infer;    /* split partial overlaps into inferred lanes */
    bool nomem;    /* a carried pop could not be recorded */
    /* Without inference: the real lane of the calls on the one lane. */
    int64_t thread, task;
    /* Totals pass: the regions' exclusive totals, summed here (the same
     * saturating adds in the same order) and stored back at the end, so a
     * pop touches no region. */
    int64_t *excl_tot;
    /* A part of a split sweep: the pops of carried calls. */
    carried_pop *cpops;
    size_t ncpops, cpops_cap;
} sweep;

/* Merge order of the sweep: (lane, start, -end, region, index). */
int nest_key_cmp(const void *a, const void *b);
/* Merges the calls of regions j at positions lo[j] .. hi[j] (in start
 * order, longer first at equal starts); false when out of memory. */
bool nest_iter_range(call_iter *it, const rank_data *rk, const uint32_t *lo, const uint32_t *hi);
/* Iterates over keys (borrowed, already in the sweep's order). */
void nest_iter_keys(call_iter *it, const rank_data *rk, call_key *keys, size_t n);
void nest_iter_free(call_iter *it);
/* An empty sweep of rk's calls into out. */
void nest_infer_begin(sweep *sw, rank_data *rk, nest_out *out, bool infer);
/* Feeds every call of it to the sweep; false when out of memory. */
bool nest_infer_run(sweep *sw, call_iter *it);
/* Pops the top call of lane l (its exclusive time written as the sweep's). */
void nest_infer_pop(sweep *sw, size_t l);
/* Frees the lanes (without popping) and the carried pops. */
void nest_infer_free(sweep *sw);

/* Splits the rank's sweep into nparts parts by time, run on up to
 * nthreads threads: results equal the whole sweep's.  false (nothing
 * written but per-call values the whole sweep then overwrites) when
 * memory is short.  *nlanes: the lanes the sweep ended with. */
bool nest_split_rank(rank_data *rk, nest_out *out, size_t nparts, int nthreads, size_t *nlanes,
                     bool *capped);

#endif
