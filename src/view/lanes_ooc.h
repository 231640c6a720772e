/* lanes_ooc: the lanes view's model out of core, from the loading child's
 * per-lane figures (ooc/ooc_lanefig.h) rather than from calls: an index
 * with the overview map's lanes and no call (lanes_build_empty, as the
 * out-of-core timeline lays its rows out), a lanestats whose lane_stat
 * rows are the figures, and the rank rows from the figures of the rank's
 * lanes together (busy summed, idle the time no lane was busy).
 *
 * What the figures cannot say is marked, never shown as 0: a lane of a
 * rank the sweep did not do has no figures (LO_NOFIG, the product says
 * why); a task's idle time is its lifetime less its busy time in it,
 * exact when its busy time lies inside its lifetime, else unknown
 * (LO_IDLE_UNKNOWN).  Awaited time is not measured out of core. */
#ifndef SV_LANES_OOC_H
#define SV_LANES_OOC_H

#include <stdbool.h>
#include <stddef.h>

#include "model/lanestats.h"
#include "ooc/ooc.h"
#include "ooc/ooc_lanefig.h"

enum { LO_NOFIG = 1, LO_IDLE_UNKNOWN = 2 };

typedef struct lanes_ooc {
    const lane_figs *figs;
    unsigned char *flag;  /* per lane: LO_* */
    unsigned char *rflag; /* per rank index: LO_NOFIG when no lane of it has figures */
    size_t nofig, noidle; /* lanes so marked */
} lanes_ooc;

/* The view's index and statistics for the out-of-core file f of profile
 * p (its skeleton), and the rank rows (rank_tot: p->nranks entries).
 * ix and ls as lanes_build and lanestats_build give them (ls->top empty:
 * the load comes from lanes_ooc_spark). */
sv_err lanes_ooc_build(const ooc_file *f, profile *p, lanes_index **ix, lanestats **ls,
                       lanes_ooc *lo, sv_error *err);
sv_err lanes_ooc_totals(lanes_ooc *lo, const lanes_index *ix, const lanestats *ls,
                        lane_stat *rank_tot, sv_error *err);
void lanes_ooc_free(lanes_ooc *lo);

#endif
