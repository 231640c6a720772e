/* decomp: what one call's wall time is made of, as the calls view states
 * it.  The host terms add up exactly (wall = exclusive + children); awaited
 * and GPU device time are not terms of that sum: awaited time lies inside
 * the wall time (in the call's own time or its children's), and device time
 * overlaps the host time (kernels run while the host goes on), so each is
 * given with its share of the wall time instead. */
#ifndef SV_DECOMP_H
#define SV_DECOMP_H

#include <stdbool.h>
#include <stdint.h>

#include "profile.h"

typedef struct call_decomp {
    int64_t wall_ns;     /* end - start */
    int64_t excl_ns;     /* wall - children */
    int64_t children_ns; /* union of the direct children, clipped to the call */
    bool has_await;
    int64_t await_ns;   /* as recorded (>= 0) */
    double await_share; /* await / wall (0 for a zero-length call) */
    bool has_gpu;
    int64_t gpu_ns;   /* as recorded (>= 0) */
    double gpu_share; /* gpu / wall; may exceed 1: device time runs on */
} call_decomp;

/* The decomposition of rank call g.  Needs rk->calls
 * (profile_ensure_calls); false when g is no call of rk. */
bool call_decompose(const rank_data *rk, size_t g, call_decomp *out);

#endif
