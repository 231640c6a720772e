/* tbins: each region's calls binned by start time, the duration-over-time
 * view's data for a profile whose calls are not held (the out-of-core
 * skeleton, profile.tbins).  The loading child's sweep (ooc/ooc_bins.h)
 * puts every call of a (rank, region) row in the bin of its start on one
 * grid over the profile's span: bin b holds the starts in
 * [t0 + b * width, t0 + (b + 1) * width), integer nanoseconds, so every
 * figure below is exact (nothing a stream cannot give: no median).
 * Pure model code. */
#ifndef SV_TBINS_H
#define SV_TBINS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The most bins of the grid (the budget may leave fewer). */
#define TB_BINS_MAX 1024u

typedef struct tbin {
    uint64_t n;            /* calls starting in the bin (0: the rest is 0) */
    int64_t min, max, sum; /* durations, ns; sum saturating */
    int64_t max_s;    /* start of its longest call (ties: the earliest start, then row position) */
    uint64_t max_pos; /* that call's position in its region's row */
    /* Where the timeline finds that call: the overview map's lane
     * (TB_ANY_LANE: not known, a call fed unnested) and its lane depth. */
    uint32_t max_lane, max_depth;
} tbin;

#define TB_ANY_LANE UINT32_MAX

typedef struct tbins_row {
    size_t rank_index; /* the profile's */
    uint32_t reg;      /* index among the rank's regions */
    uint64_t n;        /* its calls */
    /* The earliest call (ties: the lowest row position): the warm-up. */
    int64_t first_s, first_d;
    uint64_t first_pos;
    uint32_t lo; /* bins lo .. lo + nb - 1 of the grid hold its calls */
    uint32_t nb;
    tbin *v; /* nb bins */
} tbins_row;

typedef struct time_bins {
    bool available; /* false: why says why there are none */
    char why[200];
    int64_t t0, width; /* the grid */
    uint32_t nbins;
    tbins_row *rows; /* ascending (rank_index, reg), each at most once */
    size_t nrows;
} time_bins;

void time_bins_free(time_bins *t);

/* The row of (rank_index, reg), NULL when it had no call. */
const tbins_row *time_bins_row(const time_bins *t, size_t rank_index, uint32_t reg);

/* b merged into a (the same grid: the figures add exactly). */
void tbin_merge(tbin *a, const tbin *b);

/* A call of duration d starting at s, at row position pos, in lane lane
 * (TB_ANY_LANE: unknown) at lane depth depth, into bin b. */
void tbin_add(tbin *b, int64_t s, int64_t d, uint64_t pos, uint32_t lane, uint32_t depth);

/* The bin of start s (clamped to the grid). */
uint32_t time_bins_of(const time_bins *t, int64_t s);

#endif
