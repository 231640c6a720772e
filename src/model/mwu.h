/* mwu: the statistics that decide whether two runs differ.
 *
 * Pure functions on samples of integer nanoseconds sorted ascending:
 *
 * - mwu_test(): the two-sided Mann-Whitney U test, normal approximation with
 *   tie and continuity correction -- what
 *   scipy.stats.mannwhitneyu(x, y, alternative="two-sided",
 *   method="asymptotic") returns: U1 (the statistic of x), z from
 *   U = max(U1, U2) as (U - n1 n2 / 2 - 0.5) / sigma, p = 2 sf(z) clipped to 1.
 * - mwu_hl_shift(): the Hodges-Lehmann shift, the median of every pairwise
 *   difference y[j] - x[i] (numpy's median: the mean of the two middle ones
 *   when n1 n2 is even).  Exact at every size: the k-th smallest difference
 *   is found by a search over the integer value d, counting the pairs with
 *   y[j] - x[i] <= d in one merge-like pass (O(n1 + n2)); the search mixes
 *   interpolation and bisection steps, so it takes at most ~2 x 64 passes and
 *   usually far fewer.  No pair is ever materialised.
 * - mwu_bh_adjust(): Benjamini-Hochberg adjusted p-values (q-values).
 *
 * Values must lie in [0, 2^62): durations always do. */
#ifndef SV_MWU_H
#define SV_MWU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct mwu_result {
    double u1;       /* U statistic of x (scipy's `statistic`) */
    double z;        /* may be +-inf when every value is tied */
    double p;        /* two-sided, in [0, 1] */
    double tie_term; /* sum over tie groups of t^3 - t */
} mwu_result;

/* false (result untouched) when a side is empty: there is no test. */
bool mwu_test(const int64_t *x, size_t n1, const int64_t *y, size_t n2, mwu_result *out);

/* The median of y[j] - x[i] over every pair, ns.  false when a side is empty. */
bool mwu_hl_shift(const int64_t *x, size_t n1, const int64_t *y, size_t n2, double *shift);

/* Number of pairs (i, j) with y[j] - x[i] <= d. */
uint64_t mwu_pairs_le(const int64_t *x, size_t n1, const int64_t *y, size_t n2, int64_t d);

/* Standard normal upper tail, 0.5 erfc(z / sqrt 2). */
double mwu_norm_sf(double z);

/* Benjamini-Hochberg: q[i] for every p[i] that is not NaN (NaN rows are not
 * part of the family and get NaN).  q = min over j >= rank of m p(j) / j,
 * capped at 1.  false on out of memory (q untouched). */
bool mwu_bh_adjust(const double *p, size_t n, double *q);

/* Sorts v ascending: a counting sort when max - min is small (at most
 * 65536 or n / 8), else an LSD radix sort on the offsets from the minimum.
 * scratch: n elements (the radix sort's), or NULL to allocate.  false on
 * out of memory. */
bool mwu_sort_i64(int64_t *v, size_t n, int64_t *scratch);

/* numpy.percentile of a sorted sample (linear interpolation); 0 for n == 0. */
double mwu_sorted_percentile(const int64_t *v, size_t n, double pct);

#endif
