/* export_internal: what the export writers share (export.h says what each writes). */
#ifndef SV_EXPORT_INTERNAL_H
#define SV_EXPORT_INTERNAL_H

#include "export.h"
#include "model/lanes.h"
#include "util/strbuf.h"

#include <string.h>

/* One call as a writer sees it: times absolute ns, cut to the range and to its lane's
 * nesting (cut), depth among the open calls written. */
typedef struct export_call {
    const region *r;
    size_t i;   /* call index in r */
    uint32_t g; /* rank call index */
    uint32_t depth;
    int64_t start, end;
    bool cut; /* start or end differ from the recorded ones */
} export_call;

/* A lane's walk: begin (with the span of what follows: first start, latest end), then
 * every open and close in time order, properly nested, then end.  A non-zero return stops
 * the walk with that status (the writer has set err). */
typedef struct export_walk_ops {
    sv_err (*begin)(void *u, const lane *ln, size_t lane_in_rank, int64_t t0, int64_t t1);
    sv_err (*open)(void *u, const export_call *c);
    sv_err (*close)(void *u, const export_call *c);
    sv_err (*end)(void *u, const lane *ln);
} export_walk_ops;

typedef struct export_walk_stats {
    size_t calls;   /* written */
    size_t overlap; /* cut to nest: a later call of their lane overlapped them partly */
    size_t lanes;   /* with at least one call written */
} export_walk_stats;

/* Every lane of the timeline's index of p under f, rank by rank, lanes in the index's
 * order; lanes without a call in the range are skipped.  Holds one lane's calls at once. */
sv_err export_walk(profile *p, const region_filter *f, const export_range *rg,
                   const export_walk_ops *ops, void *u, export_walk_stats *st, sv_error *err);
/* The same over the lanes of rank ix_rank of an index already built (its times from zero,
 * the profile's): a rank an out-of-core sweep had in memory. */
sv_err export_walk_rank(const lanes_index *ix, size_t ix_rank, int64_t zero, const export_range *rg,
                        const export_walk_ops *ops, void *u, export_walk_stats *st, sv_error *err);

/* A lane's Chrome tid, from its identity rather than its place in the rank, so that a writer
 * that meets the lanes in any order (out of core) numbers them as the in-memory one does: 1
 * the rank's lane, inferred lane k k + 1 (a rank has those or the others), thread row r
 * 2r + 2, task row r 2r + 3; never 0.  The M events' sort index keeps the timeline's order. */
static inline int64_t export_lane_tid(lane_kind kind, int64_t row)
{
    return kind == LANE_INFERRED ? row + 1
           : kind == LANE_THREAD ? 2 * row + 2
           : kind == LANE_TASK   ? 2 * row + 3
                                 : 1;
}

/* speedscope's document piece by piece (export_speedscope.c), for a writer that has the
 * lanes' events from elsewhere (out of core): begin writes the head and the frames of p's
 * regions under f; then per lane its profile's head (t0, t1: its first start, latest end),
 * its opens and closes in order, its end; then the document's end.  err is begin's. */
typedef struct export_ss export_ss;
sv_err export_ss_begin(export_ss **out, const profile *p, const region_filter *f, FILE *fp,
                       sv_error *err);
sv_err export_ss_lane(export_ss *w, const lane *ln, int64_t t0, int64_t t1);
sv_err export_ss_event(export_ss *w, const region *r, bool open, int64_t at);
sv_err export_ss_lane_end(export_ss *w);
sv_err export_ss_end(export_ss *w);
void export_ss_free(export_ss *w);

/* Says how many calls were cut to nest, once, on warn. */
void export_warn_overlap(FILE *warn, const export_walk_stats *st);

/* The profile's zero: minimum_start_time (0 when unknown). */
int64_t export_zero(const profile *p);

/* ns as microseconds with the nanoseconds kept as three decimals ("12.345"), exactly; an
 * integer.  Without printf (several numbers a call). */
void export_put_us(strbuf *b, int64_t ns);
void export_put_i64(strbuf *b, int64_t v);

/* The same written at p, which has room for EXPORT_NUM_MAX bytes; they return the end.  A
 * writer reserves room for a whole event once and fills it with these (an event is several
 * numbers and copies: a reserve each cost more than the digits). */
#define EXPORT_NUM_MAX 24 /* "-9223372036854775.808" and a margin */
char *export_us_at(char *p, int64_t ns);
char *export_i64_at(char *p, int64_t v);

/* Copies the n bytes of s to p; returns the end. */
static inline char *export_copy_at(char *p, const char *s, size_t n)
{
    memcpy(p, s, n);
    return p + n;
}

/* A string literal's bytes, without its NUL. */
#define EXPORT_LIT(p, lit) export_copy_at((p), (lit), sizeof(lit) - 1)
/* A Chrome event's args for call at p, the object left open for the
 * caller to close: an end event's exclusive time; else the category, call
 * index, call id, an instant's exclusive time, await and GPU times where
 * recorded.  At most 40 + 5 * EXPORT_NUM_MAX bytes; returns the end. */
char *export_chrome_args_at(char *p, const export_call *call, bool end, bool instant);

/* A writer's buffer goes to its file once it holds this much: few writes, in cache. */
#define EXPORT_FLUSH_AT (1u << 18)

/* Writes b to fp and empties it; SV_ERR_IO once fp has an error (err says why, errno keeps
 * it), SV_ERR_NOMEM when b ran out of memory. */
sv_err export_flush(strbuf *b, FILE *fp, sv_error *err);

#endif
