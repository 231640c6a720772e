/* flame: the frames of a flame graph (icicle), its inverted and
 * differential forms, and their layout on a row of cells.
 *
 * Top-down, the frames are the call tree's nodes (calltree.h, recursion
 * unfolded): a frame's weight is the path's inclusive time in the scope and
 * its children are laid side by side inside it, so a frame is as wide as
 * its share of the root.  Inverted (bottom-up), the call paths are merged
 * from the leaf upwards: the top row holds every region that has exclusive
 * time, each weighed by that exclusive time, and a frame's children are
 * the callers through which that time was spent; widths are by exclusive
 * time, so the top row adds up to the scope's exclusive total.  The
 * differential form (flame_from_diff) takes the compare view's path tree:
 * widths from the new run, each frame carrying its change and flag.
 *
 * Layout is pure arithmetic on integer nanoseconds: a frame at offset o
 * (ns from the left edge of the zoomed frame) with weight w covers cells
 * [floor(o W / R), floor((o + w) W / R)) of a row W cells wide, R the
 * zoomed frame's weight, so no width is more than one cell from w W / R.
 * Frames narrower than a cell (and their subtrees) are left out: the
 * layout costs the frames shown, not the profile.  No curses. */
#ifndef SV_FLAME_H
#define SV_FLAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "calltree.h"
#include "diff.h"

#define FLAME_NONE UINT32_MAX

typedef enum flame_mode { FLAME_TOP_DOWN, FLAME_INVERTED, FLAME_DIFF } flame_mode;
typedef enum flame_order { FLAME_ORDER_FIRST, FLAME_ORDER_HEAVY } flame_order;

typedef struct flame_node {
    uint32_t name;   /* index into flame.names */
    uint32_t parent; /* FLAME_NONE for the root (node 0) */
    uint32_t depth;  /* 0: the root */
    int64_t weight;  /* width: inclusive time (top-down, diff new side), exclusive (inverted) */
    int64_t self;    /* exclusive time the frame holds: top-down its own, inverted = weight */
    int64_t calls;   /* calls merged into it (inverted: the leaf region's calls) */
    int64_t first;   /* earliest start among them; INT64_MAX: none */
    /* FLAME_DIFF only */
    int64_t base;       /* the path's inclusive time in the base run (0 when new) */
    int8_t flag;        /* diff_row.flag: +1 significantly slower, -1 faster */
    uint8_t state;      /* diff_state */
    uint32_t diff_path; /* the diff_result path it came from */
} flame_node;

typedef struct flame {
    flame_mode mode;
    calltree_scope scope;
    flame_node *nodes; /* nodes[0] is the root: every call in scope */
    size_t n;
    uint32_t *child_off; /* n + 1 */
    uint32_t *child;     /* children of i: child[child_off[i] .. child_off[i + 1]) */
    const char **names;  /* into the tree or the comparison it came from */
    size_t nnames;
    region **reps;  /* per name: the region to select (lowest rank in scope), or NULL */
    calltree *tree; /* owned: the names point into it (NULL for a diff) */
    size_t gone;    /* FLAME_DIFF: paths of the base run only (not drawn: no width) */
} flame;

/* The flame graph of the calls in scope (calltree_build's scope, band and
 * filter), top-down or inverted; children in first-call order. */
sv_err flame_build(profile *p, calltree_scope scope, flame_mode mode, const region_filter *filter,
                   flame **out, sv_error *err);
/* The differential graph of a finished comparison: one frame per path
 * present in the new run, weight its inclusive total there. */
sv_err flame_from_diff(const diff_result *d, flame **out, sv_error *err);
void flame_free(flame *f);

static inline const char *flame_name(const flame *f, uint32_t node)
{
    return node ? f->names[f->nodes[node].name] : "";
}

/* Orders every frame's children: by their first call (ties: name) or
 * heaviest first (ties: first call, name). */
void flame_sort(flame *f, flame_order order);

/* weight / the parent's weight (1 for the root, 0 under an empty parent). */
double flame_share_parent(const flame *f, uint32_t node);
/* weight / the root's weight. */
double flame_share_scope(const flame *f, uint32_t node);

typedef struct flame_box {
    uint32_t node;
    uint32_t row;   /* 0: the zoomed frame */
    int x0, x1;     /* cells [x0, x1), x1 > x0 */
    int64_t offset; /* ns from the zoomed frame's left edge */
    int64_t span;   /* ns it covers: its weight, or less when cut */
} flame_box;

/* Lays out the subtree of root on rows 0 .. rows-1 of width cells: boxes
 * row by row, left to right within a row (malloc'ed into *out).  A frame
 * whose children weigh more than it (overlapping calls) has them cut at
 * its right edge.  false without memory. */
bool flame_layout(const flame *f, uint32_t root, int width, uint32_t rows, flame_box **out,
                  size_t *n);

/* The time of the frames whose name matches (match[name] != 0) in the
 * subtree of root, each counted once: a match inside a match adds nothing
 * (its time is its ancestor's). */
int64_t flame_match_time(const flame *f, uint32_t root, const uint8_t *match);

/* Whether node is root or below it. */
bool flame_is_under(const flame *f, uint32_t node, uint32_t root);

#endif
