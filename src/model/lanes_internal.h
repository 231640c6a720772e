/* Shared between lanes.c (queries) and lanes_build.c (the index build).
 * Not part of the model's API. */
#ifndef SV_LANES_INTERNAL_H
#define SV_LANES_INTERNAL_H

#include "lanes.h"

#define LANES_NO_LANE UINT32_MAX
/* lane_row.first while building: the row's calls are not consecutive. */
#define LANES_NOT_CONSECUTIVE UINT32_MAX

/* Which lane a call goes to within its rank. */
typedef struct lane_key {
    lane_kind kind;
    int64_t row;
} lane_key;

int lanes_key_cmp(lane_key a, lane_key b);
lane_key lanes_call_key(const region *r, size_t i);

/* The regions a row's calls were last found in: a row's calls come from a
 * few regions taking turns (the children of one region at one depth), so
 * most reads skip rank_call_region's search. */
#define LANES_HINTS 4
typedef struct lanes_hint {
    const region *r[LANES_HINTS];
    unsigned next; /* the slot a miss replaces */
} lanes_hint;

/* The region holding rank call g and its index there (rank_call_region's
 * answer), NULL when none. */
static inline const region *lanes_hint_find(lanes_hint *h, const rank_data *rk, uint32_t g,
                                            size_t *i)
{
    for (unsigned k = 0; k < LANES_HINTS; k++) {
        const region *r = h->r[k];
        if (r && g >= r->gidx0 && g - r->gidx0 < r->n) {
            *i = g - r->gidx0;
            return r;
        }
    }
    const region *r = rank_call_region(rk, g, i);
    if (r) {
        h->r[h->next] = r;
        h->next = (h->next + 1) % LANES_HINTS;
    }
    return r;
}

static inline size_t lanes_nblocks(size_t n)
{
    return (n + LANES_BLOCK - 1) / LANES_BLOCK;
}

#endif
