/* nest_sweep: the lanes' memory (nest_sweep.h); the per-call steps are
 * inline in the header. */
#include "nest_sweep.h"

#include <stdlib.h>
#include <string.h>

void nest_sweep_init(nest_sweep *sw, size_t elem)
{
    memset(sw, 0, sizeof *sw);
    sw->elem = elem;
}

void nest_sweep_free(nest_sweep *sw)
{
    for (size_t l = 0; l < sw->nlanes; l++)
        free(sw->lanes[l].stk);
    free(sw->lanes);
    sw->lanes = NULL;
    sw->nlanes = sw->lanes_cap = 0;
}

bool nest_sweep_lanes_to(nest_sweep *sw, size_t n)
{
    if (n <= sw->nlanes)
        return true;
    if (n > sw->lanes_cap) {
        size_t cap = sw->lanes_cap ? sw->lanes_cap * 2 : 4;
        cap = cap < n ? n : cap;
        nest_lane *v = realloc(sw->lanes, cap * sizeof *v);
        if (!v)
            return false;
        sw->lanes = v;
        sw->lanes_cap = cap;
    }
    memset(sw->lanes + sw->nlanes, 0, (n - sw->nlanes) * sizeof *sw->lanes);
    sw->nlanes = n;
    return true;
}

bool nest_lane_reserve(nest_sweep *sw, nest_lane *ln)
{
    if (ln->sp < ln->cap)
        return true;
    /* 64 open calls hold most ranks' deepest stacks: one allocation */
    size_t cap = ln->cap ? ln->cap * 2 : 64;
    unsigned char *v = realloc(ln->stk, cap * sw->elem);
    if (!v)
        return false;
    ln->stk = v;
    ln->cap = cap;
    return true;
}
