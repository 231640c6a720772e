/* diff: two runs compared region by region and call path by call path.
 *
 * Matching: regions by name; call paths by the chain of region names from
 * the root, as the call tree builds them (unfolded; calls of a region the
 * filter rejects hang their children on the nearest kept ancestor).  Ranks
 * are merged, or one rank is compared with the same rank of the other run.
 * A region or path found on one side only is "new" (NEW only) or "gone"
 * (BASE only).
 *
 * Significance: for each row with per-call durations on both sides, the
 * two-sided Mann-Whitney U test on the durations (mwu.h, scipy's asymptotic
 * method) and the Hodges-Lehmann shift (new - base, exact at any size).
 * p-values are adjusted with Benjamini-Hochberg within each table (the
 * region rows form one family, the path rows another).  A row is flagged
 * slower or faster only when its adjusted p is below alpha (0.01) AND the
 * relative change of the chosen metric (total, mean, p50, p95 or p99 of the
 * durations) reaches the threshold.  Rows without per-call data on both
 * sides (summary-only regions) compare totals and counts and are untested:
 * never flagged.  A run compared with itself has p = 1 everywhere.
 *
 * Building is incremental so that a batch run can free the first profile
 * before loading the second: diff_begin, diff_add(BASE), diff_add(NEW),
 * diff_finish.  Everything a result needs is copied out of the profiles
 * (names, statistics, the per-call durations, sorted). */
#ifndef SV_DIFF_H
#define SV_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "filter.h"
#include "mwu.h"
#include "profile.h"

#define DIFF_NONE UINT32_MAX
#define DIFF_BASE 0
#define DIFF_NEW 1

typedef enum diff_metric { DM_TOTAL, DM_MEAN, DM_P50, DM_P95, DM_P99, DM_COUNT } diff_metric;
extern const char *const diff_metric_names[DM_COUNT]; /* "total", "mean", "p50", ... */
bool diff_metric_parse(const char *s, diff_metric *out);

typedef struct diff_options {
    int rank;           /* -1: every rank merged; else that rank on both sides */
    diff_metric metric; /* whose relative change must pass the threshold */
    double threshold;   /* fraction: 0.05 = 5 % */
    double alpha;       /* adjusted p below which a change is significant */
    bool release_calls; /* batch: nest each rank for the walk alone (parents and
                         * exclusive times, freed at once), build no rank_calls */
} diff_options;

/* Defaults: ranks merged, total, 5 %, alpha 0.01. */
void diff_options_init(diff_options *o);

/* Per-side values, nanoseconds (imbalance: a fraction). */
typedef enum diff_value {
    DV_TOTAL,
    DV_MEAN,
    DV_P50,
    DV_P95,
    DV_P99,
    DV_EXCL,      /* exclusive total */
    DV_IMBALANCE, /* regions: max / mean - 1 of the per-rank totals (imbalance.h) */
    DV_COUNT
} diff_value;

typedef struct diff_side {
    bool present;   /* the region / path is in scope on this side */
    bool events;    /* every rank in scope has per-call data */
    bool has_calls; /* calls known */
    int64_t calls;
    uint32_t known; /* bit k: v[k] known */
    double v[DV_COUNT];
    size_t off, n; /* its durations: samples[side][off .. off + n), sorted */
} diff_side;

typedef enum diff_state { DS_BOTH, DS_GONE, DS_NEW } diff_state;

typedef struct diff_row {
    uint32_t name;   /* index into names */
    uint32_t parent; /* paths: parent path (0 = the root); regions: DIFF_NONE */
    uint32_t depth;  /* paths: 0 for top level */
    diff_side s[2];
    diff_state state;
    bool tested; /* per-call data on both sides: mwu, q and hl are set */
    mwu_result mwu;
    double q;     /* Benjamini-Hochberg adjusted p */
    double hl_ns; /* Hodges-Lehmann shift, new - base */
    bool has_rel;
    double rel; /* relative change of the metric (+inf from 0 to > 0) */
    int flag;   /* +1 significantly slower, -1 faster, 0 neither */
} diff_row;

typedef struct diff_build diff_build;

typedef struct diff_result {
    diff_options opt;
    char *label[2]; /* the two files' paths */
    char **names;   /* distinct region names in scope on either side */
    size_t nnames;
    diff_row *regions; /* regions[i].name == i: one row per name */
    size_t nregions;
    diff_row *paths; /* paths[0] is a synthetic root (never compared) */
    size_t npaths;
    /* Children of path i: child[child_off[i] .. child_off[i + 1]) */
    uint32_t *child_off;
    uint32_t *child;
    int64_t *samples[2]; /* every kept call's duration, grouped by row */
    size_t nsamples[2];
    size_t nflag[2][2]; /* [0 regions / 1 paths][0 slower / 1 faster] */
    diff_build *b;      /* build state until diff_finish() */
} diff_result;

sv_err diff_begin(const diff_options *o, const region_filter *f, diff_result **out, sv_error *err);
/* Reads everything the comparison needs from p (side DIFF_BASE or
 * DIFF_NEW).  p may be freed afterwards.  SV_ERR_NOT_FOUND when the rank
 * asked for is not in p. */
sv_err diff_add(diff_result *d, int side, profile *p, sv_error *err);
/* Tests, adjustment, flags and the path tree. */
sv_err diff_finish(diff_result *d, sv_error *err);
void diff_free(diff_result *d);

/* The filter the comparison applies: the user's, narrowed to opt.rank
 * (NULL: none).  Valid until diff_free(); it refers to the user's filter. */
const region_filter *diff_scope_filter(const diff_result *d);

/* All three steps on two loaded profiles. */
sv_err diff_profiles(profile *base, profile *newp, const diff_options *o, const region_filter *f,
                     diff_result **out, sv_error *err);

static inline const char *diff_row_name(const diff_result *d, const diff_row *r)
{
    return r->name == DIFF_NONE ? "" : d->names[r->name];
}

/* A side's sorted durations of a region row (NULL, 0 when none; path rows
 * have none once the comparison is finished). */
const int64_t *diff_row_sample(const diff_result *d, const diff_row *r, int side, size_t *n);

/* Value of a side: false when unknown or absent. */
bool diff_side_value(const diff_row *r, int side, diff_value v, double *out);
/* new - base of a value; false unless known on both sides (an absent side
 * counts as 0 for totals: a new path's whole time is its change). */
bool diff_row_delta(const diff_row *r, diff_value v, double *out);
/* (new - base) / base; false when unknown or base is 0 and new too. */
bool diff_row_rel(const diff_row *r, diff_value v, double *out);

typedef enum diff_key {
    DK_NAME,
    DK_ABS_DELTA, /* |new - base| of the total */
    DK_REL_DELTA, /* relative change of the total */
    DK_EXCL_DELTA,
    DK_BASE,
    DK_NEW,
    DK_P, /* adjusted p */
    DK_COUNT
} diff_key;

/* Key of a row for sorting (unknown sorts as -inf). */
double diff_row_key(const diff_result *d, const diff_row *r, diff_key k);
/* Orders every path's children by key (ties by name). */
void diff_sort_paths(diff_result *d, diff_key k, bool descending);
/* Region indices ordered by key (malloc'ed, nregions). */
uint32_t *diff_sorted_regions(const diff_result *d, diff_key k, bool descending);

/* The path's region names from the top, joined with " > " into buf. */
const char *diff_path_text(const diff_result *d, uint32_t path, char *buf, size_t len);

#endif
