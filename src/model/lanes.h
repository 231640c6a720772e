/* lanes: the timeline index (model code, no curses).
 *
 * A lane is one (rank, thread) or one (rank, task): calls with a task row go
 * to their task's lane, the others to their thread's lane, and a rank
 * without thread columns gets a single lane, or one per inferred lane when
 * its calls overlap partly (doc/FORMAT.md, "Inferred lanes").  Within a lane a call's depth
 * counts only its ancestors in the same lane, so executor work started by a
 * task begins at depth 0 in its thread's lane.
 *
 * Each (lane, depth) row keeps its calls (rank call indices, 4 bytes each)
 * sorted by start, plus two small per-block arrays (the first start of each
 * block and the running maximum of ends) so a frame finds what is visible
 * in a time window by binary search, whatever the number of calls, and
 * never misses a long call that overlaps later ones (explicit-id profiles
 * may overlap within a row). */
#ifndef SV_LANES_H
#define SV_LANES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "filter.h"
#include "profile.h"

#define LANES_BLOCK 16

/* LANE_INFERRED: one of the lanes inferred for a rank without thread ids
 * whose calls overlap partly (rank_calls.lane; row = lane number from 0). */
typedef enum lane_kind { LANE_RANK, LANE_THREAD, LANE_TASK, LANE_INFERRED } lane_kind;

typedef struct lane_row {
    /* n rank call indices, by (start, index); NULL when they are the
     * consecutive calls first, first + 1, ... (one region's calls at one
     * depth, the usual row of a nested profile: no 4 bytes a call).  Read
     * entries through lane_row_call(). */
    uint32_t *idx;
    uint32_t first;
    size_t n;
    int64_t *bstart;  /* start of entry b * LANES_BLOCK */
    int64_t *bmaxend; /* max visible end over entries [0, (b + 1) * LANES_BLOCK) */
    bool disjoint;    /* each entry ends before the next starts (the usual case) */
} lane_row;

/* Entry k of a row: a rank call index. */
static inline uint32_t lane_row_call(const lane_row *row, size_t k)
{
    return row->idx ? row->idx[k] : row->first + (uint32_t)k;
}

typedef struct lane {
    rank_data *rk;
    lane_kind kind;
    int64_t row; /* thread or task table row; -1 for LANE_RANK */
    size_t ncalls;
    uint32_t ndepth; /* rows: depths 0 .. ndepth - 1 */
    lane_row *rows;
} lane;

enum { LANES_R_INDEXED = 1, LANES_R_SORTED = 2 };

typedef struct lanes_index {
    profile *prof;
    lane *lanes; /* by rank, then thread lanes, then task lanes */
    size_t nlanes;
    size_t *rank_lane0;            /* nranks + 1: lanes of rank index k are [k], [k+1]) */
    uint8_t **rflags;              /* per rank index, per region: LANES_R_* */
    size_t ncalls;                 /* calls indexed */
    int64_t t_min, t_max;          /* over indexed calls (t_min > t_max when none) */
    size_t nsummary_only;          /* region names without event data (filter applied) */
    const char *summary_only_name; /* the first of them by name, or NULL */
    /* lanes_build_where's extra condition (NULL: none). */
    bool (*keep)(const region *r, void *user);
    void *keep_user;
    /* Holders beyond the builder (lanes_share); lanes_free frees the index
     * only when it is the last one's. */
    unsigned shares;
} lanes_index;

/* Builds the index of every call of p passing f (NULL: every call).
 * Calls profile_ensure_calls().  O(n log n) time. */
sv_err lanes_build(profile *p, const region_filter *f, lanes_index **out, sv_error *err);
/* The same, indexing only the regions for which keep(r, user) is also true
 * (the timeline's filter on the search): lanes left without calls drop. */
sv_err lanes_build_where(profile *p, const region_filter *f,
                         bool (*keep)(const region *r, void *user), void *user, lanes_index **out,
                         sv_error *err);
void lanes_free(lanes_index *ix);
/* One more holder of ix (the lanes view borrowing the timeline's index:
 * built once, it is never changed after the build); each holder calls
 * lanes_free.  One thread: the count is not atomic. */
lanes_index *lanes_share(lanes_index *ix);

/* A lane by identity (lanes_empty.c): rank index, kind, row, depth rows. */
typedef struct lanes_spec {
    size_t rank_index;
    lane_kind kind;
    int64_t row;
    uint32_t ndepth;
} lanes_spec;

/* An index of p with the n lanes of spec (in lanes.h order: by rank index,
 * then kind and row) and no call: the out-of-core viewer's rows before its
 * calls are read.  SV_ERR_RANGE for a spec out of order. */
sv_err lanes_build_empty(profile *p, const lanes_spec *spec, size_t n, lanes_index **out,
                         sv_error *err);
/* Adds to ix, in lanes.h order, the lanes of spec it lacks (without calls)
 * and empty depth rows up to each spec's ndepth: an index of part of a
 * profile then has the rows of the whole.  ix's other lanes are kept.  On
 * failure ix is unchanged. */
sv_err lanes_add_empty(lanes_index *ix, const lanes_spec *spec, size_t n, sv_error *err);

/* A lane's name for people: "r0", "r0 MainThread", "r0 Task-3" or
 * "r0 lane 2 (inferred)" (inferred lanes counted from 1).  Not escaped. */
const char *lanes_lane_name(const lane *ln, char *buf, size_t len);

/* Start and end of rank call g. */
void lanes_call_span(const rank_data *rk, uint32_t g, int64_t *start, int64_t *end);

/* The end used for visibility: a zero-length call occupies [s, s + 1). */
static inline int64_t lanes_visible_end(int64_t s, int64_t e)
{
    return e > s ? e : (s < INT64_MAX ? s + 1 : s);
}

/* First entry of row whose start is >= t (row->n when none). */
size_t lane_row_lower_start(const lane *ln, const lane_row *row, int64_t t);

/* The same when every entry before from is known to start before t:
 * costs O(log (answer - from)), for sweeps from left to right. */
size_t lane_row_lower_start_from(const lane *ln, const lane_row *row, size_t from, int64_t t);

/* Its two halves.  bracket reads only the block starts (no call is
 * visited): the answer lies in [*a, *e], at most LANES_BLOCK apart.
 * resolve finds it in [a, e] by binary search over the calls. */
void lane_row_bracket(const lane_row *row, size_t from, int64_t t, size_t *a, size_t *e);
size_t lane_row_resolve(const lane *ln, const lane_row *row, size_t a, size_t e, int64_t t);

/* First entry that may be visible at or after time t: every entry before it
 * has a visible end <= t.  In a row without overlaps every entry from it on
 * that starts before a window's end is visible in that window. */
size_t lane_row_first_visible(const lane *ln, const lane_row *row, int64_t t);

/* Calls of row overlapping [t0, t1).  Counts exactly up to `exact` candidates
 * and estimates beyond (a density glyph only needs the order of magnitude).
 * first receives the first visible entry (row->n when none). */
size_t lane_row_count(const lane *ln, const lane_row *row, int64_t t0, int64_t t1, size_t exact,
                      size_t *first);

/* The lane and lane depth of a call, and its entry in that row.  False when
 * the call is not indexed (filtered out, or no such call). */
bool lanes_locate(const lanes_index *ix, int rank, int64_t call, size_t *lane, uint32_t *depth,
                  size_t *pos);

/* The lane of a (rank index, kind, row), or SIZE_MAX. */
size_t lanes_find_lane(const lanes_index *ix, size_t rank_index, lane_kind kind, int64_t row);

/* A call's position in time order: start, then rank, then call index. */
typedef struct lanes_key {
    int64_t start;
    int rank;
    int64_t call;
} lanes_key;

/* The indexed call nearest after (dir > 0) or before (dir < 0) key, in time
 * order, whose region satisfies match.  Cost: binary search per region whose
 * starts are sorted (the usual case), a scan otherwise. */
bool lanes_search(const lanes_index *ix, const lanes_key *key, int dir,
                  bool (*match)(const region *r, void *user), void *user, lanes_key *out);

#endif
