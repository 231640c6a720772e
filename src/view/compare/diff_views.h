/* diff_views: the compare view's screens (scopeview --diff BASE NEW).
 *
 * View 6 "compare" (diff_view.c) holds four screens over one diff_result,
 * switched with m / M: the call-path tree of both runs (diff_tree.c), the
 * regions (diff_regions.c), the selected region's overlaid duration
 * histograms (diff_dist.c) and the two runs' timelines on one time axis
 * (diff_timeline.c), and the differential flame graph (diff_flame.c).  The
 * selected region is shared by the first four. */
#ifndef SV_DIFF_VIEWS_H
#define SV_DIFF_VIEWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/diff.h"
#include "model/lanes.h"
#include "view/flamegraph.h"
#include "view/table.h"
#include "ui/view.h"

typedef enum cmp_screen {
    CS_TREE,
    CS_REGIONS,
    CS_DIST,
    CS_FLAME,
    CS_TIMELINES,
    CS_COUNT
} cmp_screen;

/* The timelines screen: both runs' lanes, one time axis. */
typedef struct cmp_timelines {
    lanes_index *ix[2];
    bool built;
    char error[600];
    bool anchored;       /* a: align on the k-th call of the selected region */
    size_t k;            /* 1-based */
    int64_t origin[2];   /* the time each run's axis starts from */
    bool have_origin[2]; /* false: the anchor region has fewer than k calls */
    uint32_t anchor;     /* region row the origins were computed for */
    double v0, span;     /* the window, ns from the origins */
    bool fitted;
    size_t top; /* first (lane, depth) row shown in each run */
} cmp_timelines;

typedef struct cmp_state {
    diff_result *d;
    profile *prof[2];
    cmp_screen screen;
    /* tree */
    table tt;
    uint8_t *open;  /* per path */
    uint32_t *rows; /* visible paths, tree order */
    size_t nrows;
    uint32_t *stack;
    bool placed;
    /* regions */
    table rt;
    uint32_t *rorder;
    /* the selected region row (DIFF_NONE: none) */
    uint32_t region;
    cmp_timelines tl;
    /* the differential flame graph, built when first shown */
    flamegraph fg;
    bool fg_built;
    char fg_error[SV_MSG_MAX];
} cmp_state;

bool dtree_init(cmp_state *s);
void dtree_draw(cmp_state *s, ui_ctx *ctx, rect area);
int dtree_cmd(cmp_state *s, ui_ctx *ctx, ui_cmd cmd);

void dreg_init(cmp_state *s);
void dreg_draw(cmp_state *s, ui_ctx *ctx, rect area);
int dreg_cmd(cmp_state *s, ui_ctx *ctx, ui_cmd cmd);

/* The histograms of region row r (NULL: none) into area. */
void dist_draw(const diff_result *d, const diff_row *r, ui_ctx *ctx, rect area);

void dtl_draw(cmp_state *s, ui_ctx *ctx, rect area);
int dtl_cmd(cmp_state *s, ui_ctx *ctx, ui_cmd cmd);
void dtl_free(cmp_timelines *tl);

void dflame_draw(cmp_state *s, ui_ctx *ctx, rect area);
int dflame_cmd(cmp_state *s, ui_ctx *ctx, ui_cmd cmd);

/* Cell text shared by the tables. */
void cmp_fmt_ns(char *b, size_t n, bool known, double ns, bool sign);
void cmp_fmt_rel(char *b, size_t n, bool known, double rel);
void cmp_fmt_p(char *b, size_t n, const diff_row *r);
const char *cmp_mark(const diff_row *r, bool ascii);
int cmp_mark_role(const diff_row *r);

#endif
