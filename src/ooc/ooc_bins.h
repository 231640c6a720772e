/* ooc_bins: the duration-over-time bins of the loading child's sweep
 * (model/tbins.h), so that the series view opens out of core.
 *
 * A sink of the sweep (ooc_sink.h) that needs no nesting: each kept call
 * (a filter's rejected rows are left out, as the series leaves them out)
 * goes to the bin of its start in its (rank, region) row; a row holds only
 * the bins from its first to its last call's, grown at either end, so
 * calls may come in any order (it also takes the flattened ranks' calls,
 * ooc_flat_ops).  The grid starts at TB_BINS_MAX bins over the
 * profile's span; when the rows' bins would exceed a sixteenth of the
 * budget, the bins are merged in pairs (the width doubles: every figure
 * stays exact), down to TB_BINS_MIN, beyond which the bins are dropped and
 * the view says why.  Model code: no curses, no libhdf5. */
#ifndef SV_OOC_BINS_H
#define SV_OOC_BINS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/tbins.h"
#include "ooc_sink.h"

#define TB_BINS_MIN 16u

typedef struct ooc_bins ooc_bins;

extern const ooc_sink_ops ooc_bins_sink;
/* It takes the flattened ranks' calls too (ooc_scan_add_flat). */
extern const ooc_flat_ops ooc_bins_flat;

/* An accumulator for calls starting within [t_min, t_max] whose bins hold
 * at most a sixteenth of budget bytes (0: no cap), never fewer than
 * TB_HELD_MIN bins.  NULL on NOMEM. */
#define TB_HELD_MIN 16384u
ooc_bins *ooc_bins_new(uint64_t budget, int64_t t_min, int64_t t_max);
/* The map the sweep's lanes index (ooc_sink.h's ooc_call.lane): the
 * bins name a call's lane so that lanes added later do not move it. */
void ooc_bins_use_map(ooc_bins *b, const struct ooc_map *map);
void ooc_bins_free(ooc_bins *b);

/* One call [s, e] at position pos of row reg of rank rank_index.  false on
 * NOMEM (the scan fails). */
bool ooc_bins_call(ooc_bins *b, size_t rank_index, uint32_t reg, uint64_t pos, int64_t s,
                   int64_t e);
/* The same for a call the sweep nested: its map lane and lane depth, kept
 * with a bin's longest call for the series' Enter (the timeline's go to;
 * ooc_bins_call: TB_ANY_LANE, the timeline looks in the rank's lanes). */
bool ooc_bins_call_at(ooc_bins *b, size_t rank_index, uint32_t reg, uint64_t pos, int64_t s,
                      int64_t e, uint32_t lane, uint32_t depth);
/* The bins cannot be complete: why says so. */
void ooc_bins_lose(ooc_bins *b, const char *why);

/* The product (the accumulator is spent); NULL on NOMEM. */
time_bins *ooc_bins_take(ooc_bins *b);

/* On the loading child's pipe after the call paths: put writes t (NULL:
 * none), get reads it (NULL when malformed: every count bounded, every
 * row's bins within the grid and adding up to its calls, rows in order);
 * valid checks its ranks and regions against the skeleton. */
struct wire_w;
struct wire_r;
struct profile;
void ooc_bins_put(struct wire_w *w, const time_bins *t);
time_bins *ooc_bins_get(struct wire_r *r);
bool ooc_bins_valid(const time_bins *t, const struct profile *skel);

#endif
