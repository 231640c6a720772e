/* tl_state: the timeline view's state, shared by timeline.c (commands)
 * and tl_draw.c (drawing).  Private to the timeline. */
#ifndef SV_TL_STATE_H
#define SV_TL_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/lanes.h"
#include "model/lanestats.h"
#include "tl_layout.h"
#include "tl_overview.h"
#include "ui/view.h"

/* Depth rows a lane shows until e expands it. */
#define TL_DEPTH_CAP 8

/* Where each part of the view goes inside its area. */
typedef struct tl_geo {
    int x, w; /* the area's columns */
    int header_y, ruler_y;
    int rows_y, nvis; /* lane rows */
    int panel_y, panel_h;
    int gutter; /* label columns (marker, label, separator) */
    int tx, tw; /* time axis columns */
} tl_geo;

/* At most this many overlapping calls are listed. */
#define TL_OVL_MAX 5000

typedef struct tl_ovl {
    size_t li; /* lane index */
    uint32_t call;
} tl_ovl;

/* A shown row: depth row `depth` of lane `lane`, or (lane SIZE_MAX) the
 * summary row of task group `group`. */
typedef struct tl_drow {
    size_t lane;
    uint32_t depth;
    size_t group;
} tl_drow;

typedef struct tl_group {
    size_t rank_index;
    int64_t thread;     /* thread table row, -1 unknown */
    size_t thread_lane; /* the thread's own lane, SIZE_MAX when it has none */
    size_t *tasks;      /* task lanes */
    size_t ntasks;
    bool open;
    /* Open: the tasks shown, the others folded (the first screen opens a
     * group only as far as its lanes fit; Enter shows them all). */
    size_t nshow;
} tl_group;

/* Selected calls whose exclusive time the details remember. */
#define TL_EXCL_CACHE 4

/* A lane row's busy intervals, built on first use. */
typedef struct tl_busy {
    lane_busy b;
    bool built;
} tl_busy;

typedef struct tl_state {
    lanes_index *ix;
    char error[512];     /* why there is no index, shown instead */
    bool awaiting_calls; /* the index waits for the background nesting (ui_calls_pending) */
    bool index_due;      /* the index is built when the timeline is first drawn or used */
    tl_view v;
    bool placed;     /* the view has been fitted once */
    int cursor_x;    /* cursor column within the time axis */
    size_t cur_row;  /* cursor row among the shown rows */
    size_t top_row;  /* first shown row on screen */
    uint32_t *shown; /* per lane: depth rows shown */
    size_t nrows;    /* = ndrows */
    /* rows (tl_rows.c) */
    tl_drow *drows;
    size_t ndrows, drows_cap;
    size_t *first_row; /* per lane: its first row, SIZE_MAX when not shown */
    tl_group *groups;  /* task lanes by the thread that ran them */
    size_t ngroups;
    size_t *group_of; /* per lane: its group (task lanes), or SIZE_MAX */
    bool group_tasks; /* T: tasks under their threads */
    bool hide_idle;   /* H: lanes without calls in view hidden */
    bool sort_busy;   /* < >: lanes by busy time */
    size_t keep_lane; /* never hidden: the selection's lane */
    rect area;        /* last area laid out */
    tl_geo geo;
    tl_seg *segs; /* scratch for one row's layout */
    size_t segcap;
    int seen_rank; /* the selection the view last followed */
    int64_t seen_call;
    int64_t span_lo, span_hi; /* the unfiltered data's extent: zoom and pan bounds */
    bool has_span;
    bool filtered;         /* the index holds only regions matching the search */
    char filter_text[256]; /* the search it was built for */
    tl_busy **busy;        /* per lane, per depth row: busy intervals, built when drawn */
    size_t nbusy;          /* lanes of busy and shown: the index's they were built for */
    /* The details' exclusive time of the last selected calls, worked out
     * once each: rank_call_excl walks a call's children (two million for a
     * 10M-call file's root), too much for every frame. */
    struct {
        const rank_calls *calls; /* the nesting it came from, NULL: unused */
        int64_t call, ns;
        size_t nkids; /* its children: the costliest to work out stay longest */
    } excl[TL_EXCL_CACHE];
    unsigned excl_next; /* the entry replaced next */
    /* o: the calls on other lanes overlapping the selection (tl_overlap.c) */
    bool ovl_open, ovl_truncated;
    tl_ovl *ovl;
    size_t ovl_n, ovl_cap, ovl_cur, ovl_top;
    int64_t ovl_t0, ovl_t1; /* the selection's span */
    /* While the lanes wait for the nesting: calls per time bin and row
     * (tl_overview.c), built on the first frame that needs it. */
    tl_overview ov;
    bool ov_built;
    size_t ov_cur, ov_top; /* its cursor row, its first row on screen */
    /* Out of core (tl_window.h): the windows and the overview's rows; NULL
     * in memory. */
    struct tl_window *win;
    const struct ooc_map *ooc_map; /* the overview map (tl_ooc.c), NULL in memory */
} tl_state;

/* Opens the overlap list for the selected call; false (status set) when
 * there is none on the timeline. */
bool tl_overlap_open(tl_state *s, ui_ctx *ctx);
/* Keys while the list is open (it is modal). */
int tl_overlap_cmd(tl_state *s, ui_ctx *ctx, ui_cmd cmd);
/* Draws it over the lanes and the details. */
void tl_overlap_draw(tl_state *s, ui_ctx *ctx);

/* Rebuilds the index when the filter (f) changed since it was built. */
void tl_sync_filter(tl_state *s, ui_ctx *ctx);

/* Busy intervals of a lane row (built on first use; NULL when out of memory). */
const lane_busy *tl_row_busy(tl_state *s, size_t l, uint32_t d);

/* Lays the view out in area (also adjusts the time axis width). */
void tl_set_area(tl_state *s, rect area);

/* The lane and depth of shown row r; false for a task group's row. */
bool tl_row_at(const tl_state *s, size_t r, size_t *lane_out, uint32_t *depth);
/* The task group of row r, or SIZE_MAX for a lane's row. */
size_t tl_row_group(const tl_state *s, size_t r);
/* The row of (lane, depth), made shown first (its group opened, the depth
 * row unfolded, the lane kept when idle lanes are hidden); SIZE_MAX if none. */
size_t tl_row_of(tl_state *s, size_t lane, uint32_t depth);
/* Rebuilds the shown rows, the cursor staying on its lane. */
void tl_rows_rebuild(tl_state *s);
bool tl_groups_build(tl_state *s);
void tl_groups_free(tl_state *s);
/* Average number of group g's tasks running in [t0, t1). */
double tl_group_load(tl_state *s, size_t g, int64_t t0, int64_t t1);
/* Opens group g with every task shown (open) or closes it. */
void tl_group_open(tl_state *s, size_t g, bool open);
/* The task lanes folded: those of closed groups and past an open one's nshow. */
size_t tl_tasks_folded(const tl_state *s);

/* Moves the view to the selected call: keep_zoom centres it only when off
 * screen, otherwise it is zoomed to (z).  Returns false when it is not on
 * the timeline (filtered out, or no event data). */
bool tl_reveal(tl_state *s, int rank, int64_t call, bool keep_zoom);
/* The same for a call known by its lane l, depth row d and span [st, e]
 * (out of core, a call not read yet). */
void tl_reveal_span(tl_state *s, size_t l, uint32_t d, int64_t st, int64_t e, bool keep_zoom);

/* [ and ]: selects the previous (dir < 0) or next call of the cursor's row. */
int tl_step_call(tl_state *s, ui_ctx *ctx, int dir);

/* Selects a call through the shared selection and remembers it as seen. */
void tl_select(tl_state *s, ui_ctx *ctx, int rank, int64_t call);

/* Draws the view (tl_draw.c). */
void tl_draw(void *state, ui_ctx *ctx, rect area);
/* The details' exclusive time of rank call g, from s->excl when there;
 * the entry replaced is the one with the fewest children (tl_draw.c). */
int64_t tl_selection_excl(tl_state *s, const rank_data *rk, int64_t g);

#endif
