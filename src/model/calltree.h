/* calltree: the aggregations behind the call-tree and regions views.
 *
 * A call tree merges calls by call path (root region > child region > ...),
 * following the parent links of profile_ensure_calls().  It is built
 * without recursion (a path can be 100 000 levels deep) in O(n) expected
 * time: each call's node comes from its parent's node through a hash of
 * (parent node, region name).
 *
 * A scope narrows the calls: every rank merged, one rank, or one thread of
 * one rank.  In a thread scope a call's parent is its nearest ancestor on
 * that thread (so cross-thread parents do not hide the thread's calls).
 *
 * Folding direct recursion merges a call whose parent is a call of the same
 * region into the parent's node.  Then only the outermost call of such a
 * chain adds inclusive, await and GPU time (they already contain the inner
 * ones); exclusive time of every call adds, so the tree's exclusive total
 * stays the model's.
 *
 * Regions merged across ranks (the regions table) are in merged.h.  Pure
 * model code: no curses, nanoseconds throughout. */
#ifndef SV_CALLTREE_H
#define SV_CALLTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "filter.h"
#include "lanes.h"
#include "profile.h"

#define CT_NONE UINT32_MAX

/* Which calls a tree holds.  rank < 0: every rank; thread < 0: every
 * thread of the rank.  A time band t0 < t1 keeps the calls overlapping
 * [t0, t1) (a zero-length call: starting in it) and counts only their time
 * inside it; t1 <= t0 (the zero of an initializer): no band. */
typedef struct calltree_scope {
    int rank;
    int64_t thread;
    int64_t t0, t1;
    /* One lane of the rank (rank >= 0, thread < 0): LANE_TASK, the calls of
     * task row lane_row; LANE_INFERRED, the calls on inferred lane lane_row
     * (rank_calls.lane); LANE_RANK (0, an initializer's): no lane.  As in a
     * thread scope a call's parent is its nearest ancestor in the lane. */
    int lane_kind;
    int64_t lane_row;
} calltree_scope;

static inline bool calltree_scope_banded(calltree_scope s)
{
    return s.t1 > s.t0;
}

typedef struct ct_node {
    uint32_t name;   /* index into calltree.names */
    uint32_t parent; /* node index; CT_NONE for the synthetic root (node 0) */
    uint32_t depth;  /* 0 for top-level nodes (the root's children) */
    int64_t calls;   /* every call merged into the node */
    int64_t entries; /* calls that added inclusive time (== calls unfolded) */
    int64_t incl_ns; /* saturating sums */
    int64_t excl_ns;
    int64_t max_ns; /* longest counted call */
    int64_t await_ns;
    int64_t gpu_ns;   /* over calls with a GPU timing */
    int64_t await_n;  /* counted calls with an await column */
    int64_t gpu_n;    /* counted calls with a GPU timing */
    int64_t first_ns; /* earliest start of a call merged into it (INT64_MAX: none) */
} ct_node;

typedef struct ct_name {
    const char *name; /* points into the profile */
    region *rep;      /* the region to select for it: in scope, lowest rank */
} ct_name;

typedef struct calltree {
    calltree_scope scope;
    bool folded;
    ct_node *nodes; /* nodes[0] is the root: its incl_ns sums the top level */
    size_t n;
    /* Children of node i: child[child_off[i] .. child_off[i+1]-1]. */
    uint32_t *child_off; /* n + 1 */
    uint32_t *child;     /* n - 1 */
    ct_name *names;      /* distinct region names, byte order */
    size_t nnames;
    bool has_await; /* some call in scope has an await column */
    bool has_gpu;   /* some call in scope has a GPU column */
    int64_t ncalls; /* calls in scope */
} calltree;

/* Builds the tree (calls profile_ensure_calls()).  A filter (NULL: none)
 * leaves out the ranks and regions it rejects; the calls of a rejected
 * region hang their children on its nearest kept ancestor, as a thread
 * scope does.  SV_ERR_NOT_FOUND for a rank that does not exist. */
sv_err calltree_build(profile *p, calltree_scope scope, bool fold_recursion,
                      const region_filter *filter, calltree **out, sv_error *err);
void calltree_free(calltree *t);

static inline const char *calltree_node_name(const calltree *t, uint32_t node)
{
    return node ? t->names[t->nodes[node].name].name : "";
}

/* The calls a node's Calls, Incl, Mean and Max describe: every call
 * unfolded; with recursion folded the outermost call of each chain (each
 * one stands for the chain it holds).  ct_node.calls still counts all. */
static inline int64_t calltree_node_calls(const calltree *t, uint32_t node)
{
    return t->nodes[node].entries;
}

/* mean inclusive time of a node's counted calls (0 without calls) */
double calltree_node_mean(const calltree *t, uint32_t node);
/* share of the parent's inclusive time, in [0, ...) (0 under an empty parent) */
double calltree_node_share(const calltree *t, uint32_t node);

typedef enum ct_key {
    CT_KEY_NAME,
    CT_KEY_CALLS,
    CT_KEY_INCL,
    CT_KEY_EXCL,
    CT_KEY_MEAN,
    CT_KEY_MAX,
    CT_KEY_SHARE,
    CT_KEY_AWAIT,
    CT_KEY_GPU,
    CT_KEY_COUNT
} ct_key;

/* Orders every node's children by key (ties by name, then node index).
 * O(n log n). */
void calltree_sort(calltree *t, ct_key key, bool descending);

/* Scopes worth offering: every rank merged, then each rank the filter
 * keeps (only when there are several) followed by each thread row its calls
 * use (when it has a thread column).  Malloc'ed. */
sv_err calltree_scopes(const profile *p, const region_filter *filter, calltree_scope **out,
                       size_t *count, sv_error *err);
/* The lanes worth a scope of their own (the flame graph's): each task row
 * the calls of a kept rank use, then each inferred lane of a rank with two
 * or more, by rank.  Malloc'ed (*out NULL and *count 0 when none). */
sv_err calltree_lane_scopes(const profile *p, const region_filter *filter, calltree_scope **out,
                            size_t *count, sv_error *err);

#endif
