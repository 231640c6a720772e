/* ooc_paths: the call-path totals of the loading child's sweep
 * (model/callpaths.h), so that the tree, the flame graph and the callers
 * view open out of core.
 *
 * The sweep (ooc_scan.c) reports each call as it pushes it: its rank, the
 * stack it goes on (a lane or a (thread, task) group: `key`) and that
 * stack's depth below it.  A shadow stack per key (ooc_excl.h) keeps each
 * open call's path and the union of its children's time so far; a call
 * leaves it when a later call arrives lower on the same stack, or at the
 * rank's end, and adds its exclusive time (nest.c's) to its path.  Memory: the distinct paths
 * (capped by the budget: over the cap the paths are dropped and the views
 * say why) plus the open calls.  Model code: no curses, no libhdf5. */
#ifndef SV_OOC_PATHS_H
#define SV_OOC_PATHS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/callpaths.h"
#include "ooc_sink.h"

typedef struct ooc_paths ooc_paths;

/* The accumulator as a sink of the sweep (ooc_sink.h). */
extern const ooc_sink_ops ooc_paths_sink;

/* An accumulator holding at most the paths budget bytes allow (0: the
 * most).  NULL on NOMEM. */
ooc_paths *ooc_paths_new(uint64_t budget);
void ooc_paths_free(ooc_paths *pa);

/* The sweep pushes call c (ooc_sink.h: its rank, stack key, depth below
 * it, region, span, and its await and GPU times when the row has them) on
 * its stack.  Ranks come one after the other.  false on NOMEM (the scan
 * fails). */
bool ooc_paths_call(ooc_paths *pa, const ooc_call *c);
/* A rank done in memory (nested from its call ids, or a row out of
 * order: ooc_sink.h's lanes hook): each call's path follows its parents,
 * its exclusive time the in-memory nesting's (rank_call_excl), so the
 * totals are the in-memory call tree's.  false on NOMEM. */
struct lanes_index;
bool ooc_paths_lanes(void *pa, size_t rank_index, const struct lanes_index *ix, size_t ix_rank,
                     const uint32_t *regmap);
/* A rank whose calls are not swept (flattened): the paths cannot be
 * complete, and why says so. */
void ooc_paths_lose(ooc_paths *pa, const char *why);

/* The totals (the accumulator is spent): available false with why when
 * lost.  NULL on NOMEM. */
call_paths *ooc_paths_take(ooc_paths *pa);

/* On the loading child's pipe after the map and the seek index: put
 * writes c (NULL: none available), get reads it (NULL when malformed:
 * counts bounded by the budget, parents before children); valid checks
 * its ranks and regions against the skeleton. */
struct wire_w;
struct wire_r;
struct profile;
void ooc_paths_put(struct wire_w *w, const call_paths *c);
call_paths *ooc_paths_get(struct wire_r *r);
bool ooc_paths_valid(const call_paths *c, const struct profile *skel);

#endif
