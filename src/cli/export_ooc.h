/* export_ooc: exports of a file opened out of core (export.h).  Folded stacks come from the
 * skeleton's call paths (export_folded.c).  The Chrome trace is written while the loading
 * child sweeps the calls (export_ooc.c): its sink (ooc/ooc_sink.h) writes every B, E and
 * instant event to the export's file descriptor as the calls come, in memory as deep as the
 * nesting, and the parent writes the M events, the counters and the end from the skeleton
 * and the map once the open returns (export_ooc_run.c).  Not for the viewer's loads: the hook is
 * the export's own. */
#ifndef SV_EXPORT_OOC_H
#define SV_EXPORT_OOC_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "export.h"
#include "isolate/isolate.h"
#include "ooc/ooc.h"

/* What the loading child tells the parent, in a page both share. */
typedef struct xo_status {
    int werrno;    /* a write to the output failed with it (0: none) */
    bool lost;     /* a rank the sweep could not do: why */
    bool finished; /* every event written and flushed */
    bool has_zero; /* the time zero the child wrote times from */
    int64_t zero;
    uint64_t events;            /* written */
    uint64_t overlap;           /* calls cut to nest in their lane */
    int spill_errno;            /* a write to the spill file failed with it */
    uint64_t lanes_off, nlanes; /* the spill file's table of the lanes written */
    char why[256];
} xo_status;

/* speedscope: a lane's entry in the spill file's table (export_ooc.c writes it). */
typedef struct xo_lane {
    size_t rank; /* the skeleton's rank index */
    int64_t tid; /* export_lane_tid */
    int kind;    /* lane_kind */
    int64_t row;
    int64_t t0, t1; /* first start, latest end */
    uint64_t last;  /* its last block's offset + 1 */
    uint64_t events;
} xo_lane;

/* speedscope: an event of a lane, spilled in blocks of one lane (export_ooc_spill.c). */
typedef struct xo_ev {
    int64_t at;
    uint32_t reg;
    uint32_t open;
} xo_ev;

#define XO_BLOCK_EVENTS 255
typedef struct xo_block_head {
    uint64_t prev;    /* the lane's previous block's offset + 1, 0 none */
    uint32_t lane, n; /* n: its slots */
} xo_block_head;

/* In the spill an event is a slot of 8 bytes: the time since the block's event before it
 * (32 bits), the region (31) and open (1); a time that does not fit (the block's first, a
 * gap of 4 s or more) is an escape, XO_ESC in the time's place and the time in the next
 * slot.  Half the 16 bytes of an xo_ev: 1.6 GB less spill for 100M calls. */
#define XO_ESC UINT32_MAX
#define XO_BLOCK_SLOTS (2 * XO_BLOCK_EVENTS)

/* The n events of v packed into slots; returns the slots written (at most 2n). */
size_t xo_ev_pack(uint64_t *slot, const xo_ev *v, size_t n);
/* The events of a block's n slots; false when they are not a packed block. */
bool xo_ev_unpack(xo_ev *v, size_t *nv, const uint64_t *slot, size_t n);

typedef struct xo_run {
    int fd;
    bool speedscope; /* the events to spill (by lane) rather than to fd */
    int spill;       /* the lanes written (and speedscope's events) go there */
    export_range range;
    xo_status *st;
    ooc_sink_hook hook;
    /* fd's offset at the start: a second attach (the sweep started over, ooc_sink_hook.early)
     * writes from it again; -1 when fd cannot seek (a pipe), whose sweep waits for the
     * file's end */
    int64_t at0;
    bool attached;
} xo_run;

/* The shared page and the hook writing to fd; false when the page cannot be had. */
bool xo_run_init(xo_run *x, int fd);
void xo_run_free(xo_run *x);

/* The Chrome trace of path out of core to fp (standard output or the export's temporary
 * file), as export_chrome writes it in memory, as a set of events, of the calls overlapping
 * rg cut to it.  *out gets the open file (the caller's to free, and to
 * check --ranks on).  A write error is SV_ERR_IO with errno kept, as export_flush's. */
sv_err export_ooc_chrome(const char *path, uint64_t budget, const region_filter *f,
                         const export_range *rg, FILE *fp, FILE *warn, ooc_file **out,
                         sv_error *err);

/* The speedscope export of path out of core, as export_speedscope writes it in memory: the
 * child spills each lane's events in blocks to a temporary file, from which the lanes are
 * written one after the other once the open returns.  As export_ooc_chrome otherwise. */
sv_err export_ooc_speedscope(const char *path, uint64_t budget, const region_filter *f,
                             const export_range *rg, FILE *fp, FILE *warn, ooc_file **out,
                             sv_error *err);

/* For folded stacks out of core (ooc_open_hooked): the sweep feeds the call paths only, the
 * overview's aggregates are not made. */
const ooc_sink_hook *export_ooc_folded_hook(void);

/* export_chrome.c: after the child's events, the M events of the map's lanes that have an
 * event (written(u, rank index, tid)), the counters in rg and the end of the document;
 * first: the one before ended with its comma, or none was written. */
sv_err export_chrome_finish_ooc(profile *skel, const ooc_map *map, const region_filter *f,
                                const export_range *rg,
                                bool (*written)(const void *u, size_t rank, int64_t tid),
                                const void *u, bool first, FILE *fp, sv_error *err);

#endif
