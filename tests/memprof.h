/* memprof: build small profiles in memory through the producer API, so
 * model tests need no file. */
#ifndef SV_MEMPROF_H
#define SV_MEMPROF_H

#include "model/profile.h"

/* Adds a region with n calls; optional columns may be NULL. */
region *mp_region(rank_data *rk, const char *name, size_t n, const int64_t *start,
                  const int64_t *end);
void mp_col(int64_t **dst, const int64_t *src, size_t n);
/* Finishes p and fails the test on error. */
void mp_finish(profile *p);
/* nranks ranks of legacy_small's calls (test_nest.c: regions a, b, c),
 * rank k shifted by k * 10 000 ns, plus k disjoint calls of region "d"
 * (ranks differ in size, so threads take uneven work); finished. */
profile *mp_ranks_profile(int nranks);

#endif
