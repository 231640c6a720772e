/* calls_internal: what the files of the calls view (4) share.
 *
 * calls.c has the view's operations, its keys and the frame; calls_list.c
 * builds, sorts and syncs the rows; calls_table.c lays out and draws the
 * table and the duration histogram above it; calls_detail.c draws the
 * cursor call's decomposition, parents, metadata and children. */
#ifndef SV_CALLS_INTERNAL_H
#define SV_CALLS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "view/histogram.h"
#include "model/profile.h"
#include "view/table.h"
#include "ui/view.h"

enum { CC_DUR, CC_EXCL, CC_HELD, CC_AWAIT, CC_GPU, CC_START, CC_RANK, CC_THREAD, CC_TASK, CC_N };

typedef struct calls_colspec {
    const char *title;
    int width;         /* 0: shares what is left (names) */
    bool desc;         /* natural order: largest first */
    const char *order; /* the header's words for the natural order */
    const char *rev;   /* and for the inverted one */
} calls_colspec;

extern const calls_colspec calls_cols[CC_N];

/* Children listed under the selected call, at most. */
#define CALLS_KIDS_MAX 64

typedef struct call_row {
    int64_t key;
    uint32_t ri; /* index into regs */
    uint32_t i;  /* call index within the region */
} call_row;

typedef struct calls_layout {
    int n;
    int col[CC_N], x[CC_N], w[CC_N];
} calls_layout;

typedef struct calls_state {
    /* what the list is of */
    bool built;
    char *name;
    int scope;     /* rank number, or -1 for every rank */
    bool one_rank; /* r toggles */
    region **regs; /* every region of that name in scope, rank order */
    size_t nregs, nsummary;
    char err[SV_MSG_MAX];
    /* rows */
    call_row *rows;
    int64_t *durs; /* durations, for the histogram */
    size_t n;
    bool has[CC_N];
    int name_w[2]; /* widest thread / task name of the ranks in scope, 0 unknown */
    int sort_col;
    bool desc;
    /* The cursor, scrolling, paging, the wheel and clicks on rows: the
     * shared table's (table.c), its rows this view's calls; the columns,
     * their widths and the sort stay the view's own (names share the
     * width by their length, each column has its natural order). */
    table tb;
    table_col tcols[CC_N]; /* calls_cols as the table knows them (sort keys, header clicks) */
    /* the selection last seen, so a new one moves the cursor once */
    int sync_rank;
    int64_t sync_call;
    histogram hist;
    int hist_w;
    /* children of the cursor call, slowest first */
    int kid_rank;
    int64_t kid_call;
    uint32_t kids[CALLS_KIDS_MAX];
    size_t nkids, kids_total;
    /* Out of core: the list of the sweep's slowest calls (calls_ooc.h)
     * stands for everything above. */
    struct calls_ooc *ooc;
} calls_state;

typedef struct calls_areas {
    rect title, hist, head, list, detail;
} calls_areas;

typedef struct call_ref {
    const region *r;
    size_t i;
    size_t g; /* rank call index */
} call_ref;

/* calls_list.c: values and rows */
int64_t calls_ns_diff(int64_t a, int64_t b);
/* Exclusive time of rank call g (its duration when nesting is missing). */
int64_t calls_rank_excl(const rank_data *rk, size_t g, int64_t dur);
/* The text of a cell; buf may or may not be used. */
const char *calls_cell_text(const calls_state *s, const ui_ctx *ctx, const call_row *row, int col,
                            char *buf, size_t len);
void calls_reset(calls_state *s);
/* Sorts by s->sort_col and s->desc, the cursor staying on its call. */
void calls_sort(calls_state *s, const ui_ctx *ctx);
/* Brings the list in line with the shared selection. */
void calls_sync(calls_state *s, ui_ctx *ctx);
/* Publishes the cursor's call as the shared selection. */
void calls_select_cursor(calls_state *s, ui_ctx *ctx);

/* calls_table.c: layout, table, histogram */
calls_areas calls_split(rect a, bool with_hist, int detail_need);
bool calls_col_shown(const calls_state *s, int col);
/* text right-aligned in the w columns from x */
void calls_put_right(grid *g, int x, int y, int w, const char *text, int role, int attr);
/* What the view says before a region is picked (in memory and out of core). */
void calls_draw_unpicked(grid *g, rect area);
void calls_draw_list(calls_state *s, ui_ctx *ctx, rect head, rect list);
void calls_draw_hist(calls_state *s, ui_ctx *ctx, rect a);

/* calls_detail.c: the cursor call */
/* Rows the details of the cursor call fill. */
int calls_detail_rows(calls_state *s);
void calls_draw_detail(calls_state *s, ui_ctx *ctx, rect a);

#endif
