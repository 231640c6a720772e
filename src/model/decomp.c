/* decomp: one call's wall time as exclusive + children, with the awaited
 * and GPU overlaps beside it (decomp.h). */
#include "decomp.h"

#include <string.h>

static double share(int64_t part, int64_t whole)
{
    return whole > 0 ? (double)part / (double)whole : 0.0;
}

bool call_decompose(const rank_data *rk, size_t g, call_decomp *out)
{
    memset(out, 0, sizeof *out);
    size_t i = 0;
    const region *r = rank_call_region(rk, (int64_t)g, &i);
    if (!r || !rk->calls || g >= rk->calls->n)
        return false;
    int64_t s = r->start_ns[i], e = r->end_ns[i];
    /* The loader drops calls that end before they start; a span wider
     * than int64 saturates rather than wraps. */
    int64_t wall = e <= s ? 0 : (s < 0 && e > INT64_MAX + s) ? INT64_MAX : e - s;
    int64_t excl = rank_call_excl(rk, g);
    excl = excl < 0 ? 0 : excl > wall ? wall : excl;
    out->wall_ns = wall;
    out->excl_ns = excl;
    out->children_ns = wall - excl;
    if (r->await_ns && r->await_ns[i] >= 0) {
        out->has_await = true;
        out->await_ns = r->await_ns[i];
        out->await_share = share(out->await_ns, wall);
    }
    if (r->gpu_ns && r->gpu_ns[i] >= 0) {
        out->has_gpu = true;
        out->gpu_ns = r->gpu_ns[i];
        out->gpu_share = share(out->gpu_ns, wall);
    }
    return true;
}
