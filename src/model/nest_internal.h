/* Shared between nest.c (explicit links, children, union) and
 * nest_infer.c (containment sweep).  Not part of the model's API. */
#ifndef SV_NEST_INTERNAL_H
#define SV_NEST_INTERNAL_H

#include "util/checked.h"
#include "profile.h"

/* Where one rank's results go.  With per_call false only the regions'
 * exclusive totals are written. */
typedef struct nest_out {
    bool per_call;
    int32_t *parent; /* n */
    uint32_t *depth; /* n, or NULL: not wanted */
    int64_t *excl;   /* n */
    /* Per-call output: the inferred lane of each call, allocated by the
     * sweep when a rank gets a second inferred lane (NULL otherwise). */
    uint32_t *lane;
    /* lane was allocated zeroed before a split sweep (nest_split.c): only
     * the calls off lane 0 are written, so a rank that never gets a second
     * lane leaves the column's pages untouched. */
    bool lane_nonzero;
    /* Per call, when given (nregions): the sweep's exclusive totals by
     * region, as the totals pass would set them, with its lane count and
     * capped flag; swept tells they were written (nest_share.h). */
    int64_t *tot;
    uint32_t nlanes;
    bool capped, swept;
} nest_out;

/* Infers parents by containment and writes totals (and per-call arrays). */
sv_err nest_infer_rank(rank_data *rk, nest_out *out, sv_error *err);
/* The same with the sweep cut into nparts parts by time when the rank
 * qualifies (nest_split.c; 1: whole), whatever its size: the tests compare
 * the parts' results with the whole sweep's. */
sv_err nest_infer_rank_parts(rank_data *rk, nest_out *out, size_t nparts, sv_error *err);

/* The warning of a rank whose calls overlap on more lanes than allowed. */
void nest_warn_capped(const rank_data *rk);

#endif
