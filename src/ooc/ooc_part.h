/* ooc_part: the out-of-core overview in parts, while the loading child's
 * pass goes (ooc.h step 1), so that the viewer's timeline fills in rank by
 * rank instead of waiting for the whole pass.
 *
 * The sweep takes the ranks one after the other, in rank index order
 * (ooc_h5.c run), and a rank's calls in start order: once rank k is swept,
 * the map's lanes of ranks 0..k are final, cell for cell, and no later
 * call changes them; while rank k is swept, every bucket that ends before
 * the start of the call being swept is final too.  A part is those lanes
 * (level 0 of each depth row; the receiver builds the coarser levels) on
 * the map's grid of the moment (a later rank may make it coarser: each
 * part is whole, never a difference from the previous one), with how many
 * ranks and calls it covers and how far into the rank being swept.
 * Nothing else of a rank is in a part: a viewer draws the rest as not
 * read yet.
 *
 * The child writes parts on a pipe of their own (wire.h wire_send_part)
 * after a rank, or within one (ooc_scan.h tick), when the last part is old
 * enough: at most one every OOC_PART_MS, and never sooner than 40 times
 * what writing the last one took after it, so that the parts take at most
 * 1/41 of the pass (measured: about 30 ms a part of one lane of 65536
 * buckets on a loaded machine).  The
 * final overview (ooc_wire.c) replaces them; parts change nothing in it.
 * Model code: no curses, no libhdf5. */
#ifndef SV_OOC_PART_H
#define SV_OOC_PART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ooc_map.h"

#define OOC_PART_MS 400

/* The child's side: where parts go and when (set by the parent before the
 * fork; zero: no parts). */
typedef struct ooc_parts_out {
    bool on;
    int fd;           /* the pipe's write end */
    bool every;       /* a test hook: a part at every chance, unthrottled */
    unsigned slow_ms; /* a test hook: the pass sleeps this long after each part */
    int64_t next_ms;  /* monotonic ms before which no part is sent */
    /* The rank of the last part sent, when it was a partial one (its lanes
     * drawn up to a frontier): the one a withdrawal takes back. */
    bool partial_sent;
    size_t partial_rank;
} ooc_parts_out;

/* What a part is made of: sc's map's lanes of ranks [0, done) of nranks,
 * and with partial those of rank `done` too, whose calls starting before
 * frontier are all in (the sweep's merge order: ooc_scan.h tick);
 * calls_done of calls_total calls swept. */
struct ooc_scan;
typedef struct ooc_part_src {
    const struct ooc_scan *sc;
    size_t done, nranks;
    bool partial;
    int64_t frontier;
    uint64_t calls_done, calls_total;
} ooc_part_src;
/* A part of src goes out when due (never the whole of the last rank: the
 * final overview follows).  A pipe that fails turns the parts off. */
void ooc_parts_offer(ooc_parts_out *o, const ooc_part_src *src);
/* Takes back what the parts drew of rank src->done when a partial part of
 * it went out: src (ranks [0, done) final, not partial) is sent at once,
 * unthrottled.  For a rank whose sweep stops before its end (a row out of
 * start order): the frontier the parts drew to no longer holds every call
 * starting before it, so its lanes show as not read until the pass sends
 * them again. */
void ooc_parts_withdraw(ooc_parts_out *o, const ooc_part_src *src);
/* No more parts: the pipe's end closed (the viewer's reader then ends). */
void ooc_parts_close(ooc_parts_out *o);

/* A part as the viewer holds it: the map of ranks [0, ranks_done)
 * (finished: ooc_map_columns works on it), over [t_min, t_max], the grid
 * span of the whole pass; with partial, also the lanes of rank
 * ranks_done, complete before upto (a bucket edge: the cells from the
 * bucket holding the sender's frontier on are emptied, so nothing of a
 * call not read yet shows). */
typedef struct ooc_part {
    uint32_t ranks_done, nranks;
    uint64_t calls_done, calls_total;
    int64_t t_min, t_max;
    bool partial;
    int64_t upto;
    ooc_map map;
} ooc_part;

/* The part's section on the wire: put writes src's part; get reads one
 * into *p (false when malformed: every count bounded, the grid a power of
 * two within OOC_MAP_BUCKETS_MAX buckets that does not overflow,
 * ranks_done <= nranks (< with partial), calls_done <= calls_total and
 * the lanes' calls within calls_done, every lane of a rank below
 * ranks_done (or the partial rank), in lanes.h order, each depth row's
 * cells whole, starts <= overlap in every cell; the partial result
 * freed); valid checks it against the skeleton: its rank count and, for
 * each lane, the regions its cells name. */
struct wire_w;
struct wire_r;
struct profile;
void ooc_part_put(struct wire_w *w, void *src); /* src: an ooc_part_src */
bool ooc_part_get(struct wire_r *r, ooc_part *p);
bool ooc_part_valid(const ooc_part *p, const struct profile *skel);
void ooc_part_free(ooc_part *p); /* the part and p itself (NULL: nothing) */
/* Whether the part draws bars: a call in its map and a rank finished, or
 * the partial rank read over at least OOC_PART_DRAWN_PCT percent of the
 * span (a column and more of a screen 100 columns wide). */
#define OOC_PART_DRAWN_PCT 1
bool ooc_part_drawn(const ooc_part *p);

#endif
