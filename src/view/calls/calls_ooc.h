/* calls_ooc: the calls view (4) out of core.  The calls are not held: the
 * list is the loading child's slowest calls of the region
 * (model/slowcalls.h), over the ranks in scope merged and cut to the k the
 * sweep kept (the k slowest of them all are among each rank's k slowest),
 * and says so ("the 256 slowest of 3999 calls").  The figures over every
 * call are the region's own statistics from the skeleton (total, mean,
 * min, max; one region's percentiles once they are in), never ones
 * computed over the listed calls.  The list sorts by duration, exclusive
 * time, start, rank or position (true of the set listed); Enter shows the
 * call in the timeline (ui_ooc_go: the window holding it is read, the
 * call found in it by lane, depth, span and region).  A rank the sweep
 * could not do has no list, and a line says so and why.  No histogram, no
 * await, GPU, thread or task column: the sweep keeps none of them. */
#ifndef SV_CALLS_OOC_H
#define SV_CALLS_OOC_H

#include "ui/view.h"

typedef struct calls_ooc calls_ooc;

calls_ooc *calls_ooc_new(void);
void calls_ooc_free(calls_ooc *o);
void calls_ooc_draw(calls_ooc *o, ui_ctx *ctx, rect area);
int calls_ooc_cmd(calls_ooc *o, ui_ctx *ctx, ui_cmd cmd);

#endif
