/* ooc_sink: what the out-of-core sweep (ooc_scan.h) hands on, call by
 * call, to the accumulators that summarise the calls for the viewer's
 * aggregate views (call paths, per-lane figures, slowest calls, ...).
 *
 * The sweep owns the order: ranks one after the other, within a rank the
 * calls in (start, -end, region) order, each as it is pushed on its
 * stack.  A sink never sees a call twice and never sees the calls of a
 * rank the sweep could not do (nested from call ids, a row out of start
 * order, flattened); for such a rank `lose` is called instead, before
 * the rank's first call would have come, and the sink says in its own
 * product why it is incomplete (a rank done in memory goes whole, as
 * its lanes index, to the sinks with a lanes hook: ooc_sink_lanes_fn).
 * A sink registered with ooc_scan_add_sink is owned by the scan until
 * taken out with ooc_scan_take_sink (its product then goes over the
 * wire, see ooc_open.c); ooc_scan_free frees the ones still in it.  Model
 * code: no curses, no libhdf5. */
#ifndef SV_OOC_SINK_H
#define SV_OOC_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lanes_index;

/* One swept call. */
typedef struct ooc_call {
    size_t rank;     /* the skeleton's rank index */
    size_t key;      /* its stack in the rank: a lane, or a (thread, task) group */
    size_t depth;    /* the calls open below it on that stack */
    size_t lane;     /* the map's lane (a kept call), SIZE_MAX when filtered out */
    uint32_t kdepth; /* its lane depth, counting the kept calls below it */
    uint32_t reg;    /* its region's index in the rank (the skeleton's) */
    uint64_t pos;    /* its position in its region's row */
    int64_t s, e;    /* start and end, ns */
    /* The call's await and GPU times, ns (-1: none recorded), when a hook asked for them
     * (ooc_sink_hook.aux) and the row has the column; else -1. */
    int64_t await_ns, gpu_ns;
    /* Its call id when a hook asked for them (ooc_sink_hook.ids) and the row has the column
     * (a rank swept by time may have ids in some rows). */
    bool has_call_id;
    int64_t call_id;
} ooc_call;

typedef struct ooc_sink_ops {
    const char *name; /* for ooc_scan_take_sink */
    /* false on NOMEM: the scan fails. */
    bool (*call)(void *self, const ooc_call *c);
    /* A rank that is not swept: why names the reason. */
    void (*lose)(void *self, const char *why);
    void (*free)(void *self);
} ooc_sink_ops;

typedef struct ooc_sink {
    const ooc_sink_ops *ops;
    void *self;
    bool muted; /* ooc_scan_mute_others: lost once, fed nothing more */
} ooc_sink;

/* Optional, for a sink that can take it: a rank done in memory instead
 * (ooc_scan_feed_lanes: call ids or a row out of order, within the
 * budget) handed on whole as its in-memory lanes index, nested: rank
 * ix_rank of ix is the skeleton's rank_index, its region j the
 * skeleton's regmap[j] (regmap NULL: j).  It comes where the rank's calls
 * would have; a sink without it gets `lose`.  false on NOMEM (the scan
 * fails).  ooc_sink_lanes_of (ooc_sinks.c) names each sink's, NULL for
 * none; a caller's sink registers its own with ooc_scan_add_lanes. */
typedef bool (*ooc_sink_lanes_fn)(void *self, size_t rank_index, const struct lanes_index *ix,
                                  size_t ix_rank, const uint32_t *regmap);
ooc_sink_lanes_fn ooc_sink_lanes_of(const ooc_sink_ops *ops);

#define OOC_SINKS_MAX 8

/* A sink that needs no nesting may also take the calls of a rank the
 * sweep cannot do (ooc_scan_flat, ooc_scan_feed_lanes): registered again
 * with ooc_scan_add_flat (the same self, still owned by its sink), it gets
 * them through call, each once but in no particular order (depth, kdepth
 * and key 0, lane SIZE_MAX for a call a filter leaves out), and no `lose`. */
typedef struct ooc_flat_ops {
    bool (*call)(void *self, const ooc_call *c); /* false on NOMEM */
} ooc_flat_ops;

/* Why a rank is lost to the sinks (ooc_scan_flat, ooc_scan_feed_lanes). */
#define OOC_SINK_UNSWEPT                                                                           \
    "a rank's nesting comes from its call ids or a row out of start order, which the "             \
    "out-of-core sweep does not follow"

/* A sink the caller adds for one open (ooc_open_hooked; the viewer's loads
 * add none): an export that writes the calls as the sweep hands them on.
 * attach runs in the loading child once the scan is set up, before the
 * first call, with what the sink may read of the file being swept: the
 * rank numbers and region names by the sweep's indices (valid until the
 * sweep ends: copy what is kept), the profile's time zero
 * (profile.min_start_ns) and the map, whose lane ooc_call.lane names at
 * the call (its lanes move as others are added).  finish runs after the
 * sweep, in the same process; false from either fails the open. */
struct ooc_scan;
struct ooc_map;
typedef struct ooc_sweep_view {
    const void *ctx;
    size_t nranks;
    int (*rank_no)(const void *ctx, size_t rank);
    size_t (*nregs)(const void *ctx, size_t rank);
    const char *(*reg_name)(const void *ctx, size_t rank, uint32_t reg);
    bool has_zero;
    int64_t zero;
    const struct ooc_map *map;
} ooc_sweep_view;

typedef struct ooc_sink_hook {
    bool (*attach)(void *ctx, struct ooc_scan *sc, const ooc_sweep_view *v);
    bool (*finish)(void *ctx, struct ooc_scan *sc);
    void *ctx;
    bool aux; /* the sweep reads the await and GPU columns too (ooc_call.await_ns, gpu_ns) */
    bool ids; /* and the call id column of the rows that have one (ooc_call.call_id) */
    /* The ranks may be swept as the load commits them (ooc_h5_early.c: the file read once):
     * attach comes before the first rank's calls, with the time zero the file's stored
     * statistics give and a view answering for the rank being swept.  When the file's end
     * finds a guess wrong it sweeps every rank again on a fresh scan, and attach comes again
     * (with the whole file's view): the hook starts its product over. */
    bool early;
} ooc_sink_hook;

#endif
