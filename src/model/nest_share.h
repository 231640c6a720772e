/* nest_share: the exclusive totals of the viewer's per-call nesting handed
 * to its statistics, so that the containment sweep runs once.
 *
 * The per-call build (calls_job.c) sweeps every inferred rank and works out
 * each call's exclusive time on the way, which is what the statistics'
 * totals pass (nest_rank_totals, on the statistics' copy of the profile,
 * stats_local.c) sums by region.  The build puts each rank's sums here as it
 * ends it; the totals pass of a profile given a share (profile.nest_given)
 * takes them, waiting for the rank when it is not swept yet, instead of
 * sweeping it again.  A rank the build does not sweep by inference (one
 * with call ids), or left unswept (cancelled, out of memory, the build never
 * started: nest_share_close), is swept by the totals pass as without a
 * share.
 *
 * Both threads hold a reference; the last unref frees it.  The values are
 * the totals pass's own: the same saturating sums of the same exclusive
 * times, the same lane count, the same capped flag (the warning is issued
 * by the taker, in the totals pass's order). */
#ifndef SV_NEST_SHARE_H
#define SV_NEST_SHARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile.h"

typedef struct nest_share nest_share;

/* A share for a profile of nranks ranks, one reference; NULL when out of
 * memory (the statistics then sweep themselves). */
nest_share *nest_share_new(size_t nranks);
nest_share *nest_share_ref(nest_share *sh);
void nest_share_unref(nest_share *sh);

/* The build's sums for rank index k (rk: the rank swept, tot: its regions'
 * exclusive totals in rk->regions order, nlanes: inferred lanes as
 * rank_data.ninferred_lanes counts them).  A put after close is ignored. */
void nest_share_put(nest_share *sh, size_t k, const rank_data *rk, const int64_t *tot,
                    uint32_t nlanes, bool capped);
/* Rank k will not be put (the taker sweeps it). */
void nest_share_none(nest_share *sh, size_t k);
/* Every rank not put yet will not be: wakes the takers. */
void nest_share_close(nest_share *sh);

/* Waits for rank index k, then writes its totals into rk's regions, its
 * lanes and explicit_ids (false) into rk; true when it did, *capped the
 * flag.  false (nothing written) when the rank is not given or is not the
 * one swept (another rank number, region count or call count). */
bool nest_share_take(nest_share *sh, size_t k, rank_data *rk, bool *capped);

#endif
