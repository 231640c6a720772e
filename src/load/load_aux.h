/* load_aux: auxiliary records of a rank group (line profiles, perf-event
 * counters, LIKWID groups).  In schema 2/3 files `rank<N>` groups hold only
 * these; schema-1 files may hold them beside `regions/`.  Never regions. */
#ifndef SV_LOAD_AUX_H
#define SV_LOAD_AUX_H

#include "h5util.h"
#include "model/profile.h"

/* Reads every auxiliary record below rank group rg into rk->lines and
 * rk->perf.  A bad record is dropped with a warning (profile_warn, naming
 * path, rank and record); only SV_ERR_NOMEM stops the load. */
sv_err load_aux_rank(h5u_reader *rd, profile *p, rank_data *rk, hid_t rg, sv_error *err);

#endif
