/* load_window: the loader's reads for an out-of-core window
 * (load_sink_window, window_plan.h): each planned row reads
 * only its planned segments and open calls (hyperslabs), keeps the calls
 * that start in the plan's time range and the open ones, in recorded
 * order, with every optional column the file has.  The rows are then
 * checked and committed as in a whole load.  Loader code (libhdf5). */
#ifndef SV_LOAD_WINDOW_H
#define SV_LOAD_WINDOW_H

#include "load_columnar_internal.h"

/* Columnar layouts: stages the kept rows of lf from the plan (instead of
 * reading whole event columns).  Schema 3's staged columns stay encoded
 * (deltas, durations) for lc_commit_rank's decoding. */
sv_err ow_stage_columnar(ld_ctx *c, const struct ooc_plan *plan, hid_t f, const h5u_list *el,
                         lc_file *lf);

/* Schema 1: the columns of region `name` of rk from group g (listing l)
 * into t.  1: keep the region, 0: drop it (warned), with *e on NOMEM. */
int ow_load_group(ld_ctx *c, const struct ooc_plan *plan, const rank_data *rk, hid_t g,
                  const char *name, h5u_list *l, region *t, sv_err *e);

#endif
