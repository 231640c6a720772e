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

static inline size_t lanes_nblocks(size_t n)
{
    return (n + LANES_BLOCK - 1) / LANES_BLOCK;
}

#endif
