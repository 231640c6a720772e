/* ooc_scan: the streaming pass of ooc_open (ooc.h step 1), the part
 * without libhdf5.  One rank at a time, its rows (each in (start, -end)
 * order) are merged in (start, -end, region) order and swept as
 * nest_infer.c sweeps them, so that every call gets the lane and lane
 * depth lanes.h gives it:
 *
 * - a rank with thread or task columns: one stack per (thread, task) of
 *   the calls (nest_infer.c's sorted mode: a call's parent is in its own
 *   thread and task), the lane its task's (task >= 0), else its thread's
 *   (thread >= 0), else the rank's; the lane depth is the stack depth;
 * - otherwise the first-fit inferred lanes of nest_infer.c (at most 256),
 *   the lane LANE_INFERRED(l) when the rank has two or more of them (the
 *   skeleton's ninferred_lanes, from the same sweep in the load's pass 2),
 *   else LANE_RANK.
 *
 * Each call goes to the map (ooc_map_add) and to its row's seek segment,
 * and the checkpoints of ooc.h record the open calls (ooc_scan.c), so the
 * result equals ooc_map_from_lanes and ooc_seek_from_profile of the
 * in-memory profile.
 *
 * Ranks the sweep cannot do (call ids, a row out of order) are done in
 * memory instead (ooc_scan_feed_lanes, ooc_scan_take_seek).  Model code:
 * no curses, no libhdf5. */
#ifndef SV_OOC_SCAN_H
#define SV_OOC_SCAN_H

#include "model/lanes.h"
#include "ooc.h"
#include "ooc_sink.h"

/* One row of a rank, read a chunk at a time. */
typedef struct ooc_src {
    /* The current chunk: len calls from row position base.  thr / task
     * NULL when the row has no such column. */
    const int64_t *s, *e, *thr, *task;
    const int64_t *await, *gpu; /* NULL unless a hook asked for them (ooc_sink_hook.aux) */
    const int64_t *ids;         /* NULL unless a hook asked for them (ooc_sink_hook.ids) */
    size_t len, pos;
    uint64_t base;
    uint32_t reg; /* region index in the rank (the skeleton's) */
    uint64_t n;   /* calls of the row */
    /* The row's calls are swept (nesting, lanes, seek, checkpoints) but
     * not mapped: a filter (-i, -x, --ranks) leaves them out of the
     * timeline, whose lane depths then count the mapped calls only. */
    bool skip;
    /* Next chunk: sets s, e, thr, task, len, base; 1 ok, 0 end, -1 error. */
    int (*refill)(void *ctx, struct ooc_src *src);
    void *ctx;
    /* the scan's own */
    int64_t ps, pe;
    bool started;
    size_t seek_row;
} ooc_src;

/* What the scan builds (owned until handed over). */
typedef struct ooc_scan {
    ooc_map map;
    ooc_seek seek;
    /* The map's grid arguments: a rank whose inferred lanes are not known
     * beforehand (OOC_SCAN_LANES_UNKNOWN) adds to the hint as it finds
     * them, and the map is regridded (ooc_map_regrid). */
    int64_t t_min, t_max;
    size_t hint, cells_max;
    size_t rows_cap, ranks_cap;
    char why[256]; /* an internal inconsistency, for the error */
    /* What the sweep hands each call to (ooc_sink.h), owned. */
    ooc_sink sinks[OOC_SINKS_MAX];
    size_t nsinks;
    /* Those of them that take the flattened ranks' calls (ooc_sink.h). */
    const ooc_flat_ops *flat[OOC_SINKS_MAX];
    void *flat_self[OOC_SINKS_MAX];
    size_t nflat;
    /* A sink reads the await and GPU columns (ooc_call.await_ns, gpu_ns):
     * the rows that have them are read with them. */
    bool aux;
    /* Set after ooc_scan_init, or NULL: called during ooc_scan_rank every
     * OOC_SCAN_TICK calls of the rank, before the call starting at t is
     * swept (swept: the rank's calls before it); every call of the rank
     * that starts before t is in the map by then (the overview's parts,
     * ooc_part.h). */
    void (*tick)(void *ctx, const struct ooc_scan *sc, size_t rank_index, int64_t t,
                 uint64_t swept);
    void *tick_ctx;
    /* Lanes hooks of sinks ooc_sink_lanes_of does not know (ooc_scan_add_lanes). */
    ooc_sink_lanes_fn lanes_fn[OOC_SINKS_MAX];
    void *lanes_self[OOC_SINKS_MAX];
    size_t nlanes_fn;
    /* ooc_scan_sinks_only: the swept calls go to the sinks and the map's counts, not to the
     * map's cells, the seek segments or the checkpoints. */
    bool sinks_only;
} ooc_scan;
#define OOC_SCAN_TICK ((uint64_t)OOC_SEEK_STRIDE * 16)

/* The map's grid for calls within [t_min, t_max] on nlanes lanes, at most
 * cells_max level-0 cells (ooc_map_cells_cap of the budget; 0: the most). */
bool ooc_scan_init(ooc_scan *sc, int64_t t_min, int64_t t_max, size_t nlanes, size_t cells_max);
void ooc_scan_free(ooc_scan *sc);

/* Registers a sink (the scan owns self from here: freed with the scan
 * unless taken).  False when OOC_SINKS_MAX are in; self is freed. */
bool ooc_scan_add_sink(ooc_scan *sc, const ooc_sink_ops *ops, void *self);
/* Takes the sink of these ops out of the scan (the caller owns it now);
 * NULL when none is in. */
void *ooc_scan_take_sink(ooc_scan *sc, const ooc_sink_ops *ops);
/* A registered sink's self also takes the calls of the ranks the sweep
 * cannot do (ooc_flat_ops), and no `lose`.  False when OOC_SINKS_MAX are
 * in or self is not a registered sink's. */
bool ooc_scan_add_flat(ooc_scan *sc, const ooc_flat_ops *ops, void *self);
/* A registered sink's self takes the ranks done in memory as their lanes index (ooc_sink.h
 * ooc_sink_lanes_fn) rather than `lose`: for a caller's sink (an export's hook), which
 * ooc_sinks.c's ooc_sink_lanes_of cannot name.  False as ooc_scan_add_flat. */
bool ooc_scan_add_lanes(ooc_scan *sc, ooc_sink_lanes_fn fn, void *self);
/* Every accumulator the viewer's aggregate views read out of core
 * (ooc_sinks.c), each held within its share of budget bytes.  False on
 * NOMEM. */
bool ooc_sinks_attach(ooc_scan *sc, uint64_t budget);
/* For an open whose caller reads only the skeleton and the map (an export's hook, at its
 * attach): every sink but keep's gets lose(why) now and no call, flattened call or lanes
 * index after it, so the sweep spends nothing on the overview's aggregates; they stay
 * registered, their products saying why they are empty. */
void ooc_scan_mute_others(ooc_scan *sc, const void *keep, const char *why);
/* For a caller that reads the map's lanes and counts and the sinks' products but no cell and
 * no seek index (an export): from the next rank on, the sweep spends nothing on them (the
 * cells alone were 5% of a folded export's samples); the map's cells stay empty and the seek
 * index holds no segment. */
void ooc_scan_sinks_only(ooc_scan *sc);

/* Sweeps one rank (rank_index: the skeleton's) from its rows' sources.
 * lanes: the rank has thread or task columns (the grid's hint counted
 * the lanes its mapped calls reach); else the hint counted the rank as
 * one lane and each further inferred lane its mapped calls reach adds one
 * (ooc_map_regrid).  ninferred: the skeleton's ninferred_lanes, checked,
 * or OOC_SCAN_LANES_UNKNOWN (a load that left it to its statistics,
 * loader.h stats_later).  The rank's seek entry gets the count the sweep
 * finds.  0 ok, -1 NOMEM or a read error, -2 a row out of (start, -end)
 * order or a lane count other than a known ninferred (sc->why). */
#define OOC_SCAN_LANES_UNKNOWN UINT32_MAX
int ooc_scan_rank(ooc_scan *sc, size_t rank_index, ooc_src *srcs, size_t nsrc, bool lanes,
                  uint32_t ninferred);

/* A rank the sweep cannot do and that does not fit in memory: every call
 * at depth 0 of its thread / task lane (the rank's lane without them), the
 * seek rows, one checkpoint at the first start, not windowable.  0 ok, -1
 * NOMEM or a read error. */
int ooc_scan_flat(ooc_scan *sc, size_t rank_index, ooc_src *srcs, size_t nsrc);

/* A rank done in memory: every call of rank ix_rank of an in-memory lanes
 * index to the map as ooc_map_from_lanes adds it (region indices through
 * regmap, NULL: the same); then the rank's rows and entry of a seek index
 * of that profile (ooc_seek_from_profile).  The sinks with a lanes hook
 * get the index (ooc_sink.h), the others lose the rank.  False on NOMEM. */
bool ooc_scan_feed_lanes(ooc_scan *sc, size_t rank_index, const lanes_index *ix, size_t ix_rank,
                         const uint32_t *regmap);
bool ooc_scan_take_seek(ooc_scan *sc, size_t rank_index, const ooc_seek *ref, size_t ref_rank,
                        const uint32_t *regmap);

/* A rank's entry: no checkpoint when first is INT64_MAX (no calls), else
 * one at first with nothing open. */
bool ooc_scan_rank_entry(ooc_scan *sc, size_t rank_index, int64_t first, bool windowable);

/* The number of lanes of a rank with lane columns: distinct keys of
 * lanes_call_key over (thread, task) pairs fed in any order. */
typedef struct ooc_keyset {
    int64_t *v; /* pairs (kind, row) in an open-addressing table */
    size_t n, cap;
} ooc_keyset;
bool ooc_keyset_add(ooc_keyset *k, int64_t thread, int64_t task);
void ooc_keyset_free(ooc_keyset *k);

/* The map and the seek index on the loading child's pipe (ooc_wire.c):
 * put writes them, get reads them (every count checked against the
 * budget, every field against its range; false when malformed, the
 * partial result freed).  The indices are checked against the skeleton by
 * ooc_scan_valid. */
struct wire_w;
struct wire_r;
void ooc_wire_put(struct wire_w *w, const ooc_map *m, const ooc_seek *s);
bool ooc_wire_get(struct wire_r *r, ooc_map *m, ooc_seek *s);
/* Whether the map's lanes and the seek index fit the skeleton p. */
bool ooc_scan_valid(const ooc_map *m, const ooc_seek *s, const profile *p);

#endif
