/* flame_view: the flame graph view's state, shared by flame.c (building,
 * commands) and flame_draw.c (drawing).  Private to the view. */
#ifndef SV_FLAME_VIEW_H
#define SV_FLAME_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/flame.h"
#include "ui/view.h"
#include "view/picker.h"

/* Enter zooms this many levels deep at most (Esc walks back). */
#define FV_ZOOM_MAX 64

typedef struct fv_state {
    flame *f;
    char error[SV_MSG_MAX];
    calltree_scope *scopes; /* r: all ranks, each rank, each thread */
    size_t nscopes, scope_i;
    bool band; /* a time band from the timeline (F) */
    int64_t t0, t1;
    flame_mode mode; /* top-down or inverted (i) */
    flame_order order;
    bool heat; /* c: colours by self-time heat, not by region */
    int64_t max_self;
    uint32_t zoom[FV_ZOOM_MAX]; /* the frames zoomed into, the current last */
    size_t nzoom;
    uint32_t cur; /* cursor frame */
    /* the layout of the last frame */
    flame_box *boxes;
    size_t nboxes;
    int lw;
    uint32_t lrows, lroot, top;
    bool laid;
    /* the search the matches were worked out for */
    uint8_t *match; /* per name */
    bool match_on;
    char match_text[256];
    int64_t match_ns;
    picker pick;
    const ui_ctx *pick_ctx;
} fv_state;

static inline uint32_t fv_root(const fv_state *s)
{
    return s->nzoom ? s->zoom[s->nzoom - 1] : 0;
}

/* The box of node in the layout, NULL when it is not shown. */
const flame_box *fv_box_of(const fv_state *s, uint32_t node);
/* Lays out the frames for a row width and the rows shown from s->top. */
void fv_layout(fv_state *s, int width, uint32_t rows);
/* The matches of the current search (s->match), when it changed. */
void fv_sync_search(fv_state *s, const ui_ctx *ctx);
/* "all ranks", "rank 1, thread Worker", "+ band 1.2 s .. 1.5 s" into buf. */
void fv_scope_label(const fv_state *s, const ui_ctx *ctx, char *buf, size_t len);

/* The picker's item i: scope i (user: the state). */
void fv_pick_label(size_t i, char *buf, size_t len, void *user);
void fv_draw(void *state, ui_ctx *ctx, rect area);

#endif
