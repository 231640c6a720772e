/* diff_internal: the build state shared by diff.c and diff_rows.c. */
#ifndef SV_DIFF_INTERNAL_H
#define SV_DIFF_INTERNAL_H

#include "diff.h"

struct diff_build {
    region_filter filter; /* the user's, narrowed to one rank when asked */
    bool has_filter;
    int one_rank;
    uint32_t *nhash; /* names: open addressing, DIFF_NONE empty */
    size_t nhcap;
    size_t ncap;     /* names and regions allocated */
    uint32_t *phash; /* paths by (parent, name) */
    size_t phcap;
    size_t pcap; /* paths allocated */
};

uint32_t diff_name_find(const diff_result *d, const char *s);
/* Side 0 of part (built by diff_add on one profile, diff_remote.c) as side
 * `side` of d; part's samples move into d.  part's paths must name only
 * earlier paths as parents and only its own names. */
/* malloc for a per-call array (diff.c says why no huge pages). */
void *diff_alloc_big(size_t bytes);

/* A side's nesting computed beforehand (diff_remote.c: by the loading
 * child's one sweep, nest_rank_totals_parents): parent[k] for each rank k
 * of the profile in scope (NULL for the others); excl: the in-scope ranks'
 * exclusive times back to back in rank order, room for all their calls
 * (it becomes the side's samples). */
typedef struct diff_nesting {
    int32_t **parent;
    int64_t *excl;
} diff_nesting;

/* diff_add with that nesting; takes every array of nest (NULL after). */
sv_err diff_add_nested(diff_result *d, int side, profile *p, diff_nesting *nest, sv_error *err);

sv_err diff_add_built(diff_result *d, int side, const char *label, diff_result *part,
                      sv_error *err);

#endif
