/* ooc_slowest: each region's slowest calls from the loading child's sweep
 * (model/slowcalls.h), so that the calls view and the slowest-call command
 * work out of core without holding the calls.
 *
 * Per region of the rank being swept a heap keeps the k slowest calls so
 * far (slowcalls.h's order: longer first, then the lower row position;
 * the heap's root the one to drop next).  A call is
 * offered when it leaves the sweep's stack (a later call arrives lower on
 * the same stack, or the rank ends), its exclusive time then known: a
 * shadow stack per key keeps each open call's children's union, as
 * ooc_paths.c does, so the figure is nest.c's.
 *
 * k: SLOW_K_MAX per region, fewer when the regions are many: the lists
 * hold at most a 64th of the budget (64 bytes a call: the child's heap and
 * the viewer's copy), at least 4096 calls, and at least one call a region
 * (a region's skeleton costs more).  When a new region would pass the cap,
 * k drops for every region and the heaps are cut (the first k' of a
 * region's k slowest are its k' slowest), so every list ends with the same
 * k.  Memory: the lists plus the open calls.  A rank the sweep does not do
 * (lose) gets no lists (one done in memory instead, ooc_slowest_lanes,
 * gets them from its nesting); the product names the ranks swept and says why the
 * others are missing.  Model code: no curses, no libhdf5. */
#ifndef SV_OOC_SLOWEST_H
#define SV_OOC_SLOWEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/slowcalls.h"
#include "ooc_sink.h"

typedef struct ooc_slowest ooc_slowest;

/* The accumulator as a sink of the sweep (ooc_sink.h). */
extern const ooc_sink_ops ooc_slowest_sink;

/* An accumulator within the budget's share (0: no cap).  NULL on NOMEM. */
ooc_slowest *ooc_slowest_new(uint64_t budget);
void ooc_slowest_free(ooc_slowest *sl);

/* One swept call (ooc_sink.h); false on NOMEM. */
bool ooc_slowest_call(ooc_slowest *sl, const ooc_call *c);
/* A rank not swept: its regions get no list, why says so. */
void ooc_slowest_lose(ooc_slowest *sl, const char *why);
/* A rank done in memory (ooc_sink_lanes_fn): each region's calls with
 * their exclusive time from the rank's nesting (its call ids), as the
 * in-memory calls view has them; a rank without that nesting is lost.
 * Their lanes are named by identity until ooc_slowest_take finds them in
 * the map given here (ooc_sinks.c: the scan's; none: SLOW_NO_LANE). */
struct lanes_index;
struct ooc_map;
bool ooc_slowest_lanes(void *self, size_t rank_index, const struct lanes_index *ix, size_t ix_rank,
                       const uint32_t *regmap);
void ooc_slowest_use_map(ooc_slowest *sl, const struct ooc_map *map);

/* The lists, slowest first (the accumulator is spent).  NULL on NOMEM. */
slow_calls *ooc_slowest_take(ooc_slowest *sl);

/* On the loading child's pipe after the call paths: put writes c (NULL:
 * none), get reads it (NULL when malformed: k within 1 .. SLOW_K_MAX,
 * ranks and regions increasing, a list of min(k, seen) calls in order,
 * each exclusive time within its duration); valid checks it against the
 * skeleton and the map's nlanes (ranks, regions with event data, each
 * region's count its statistic, every region of a swept rank with calls
 * listed, a rank with calls and no lists only with a why, lanes). */
struct wire_w;
struct wire_r;
struct profile;
void ooc_slowest_put(struct wire_w *w, const slow_calls *c);
slow_calls *ooc_slowest_get(struct wire_r *r);
bool ooc_slowest_valid(const slow_calls *c, const struct profile *skel, size_t nlanes);

#endif
