/* nest: parent of every call and exclusive time, exactly as
 * doc/FORMAT.md defines them.
 *
 * A rank whose every region with events has call_ids and parent_ids uses
 * the explicit links; any other rank (legacy files included), or one whose
 * links form a cycle or repeat an id, infers nesting by containment within
 * a lane (same thread and task), sweeping the calls in (start, -end,
 * region name, recorded index) order with a stack.
 *
 * Two entry points share that engine: totals only (what batch statistics
 * need: O(depth) extra memory for legacy files) and per-call arrays (what
 * the views need). */
#ifndef SV_NEST_H
#define SV_NEST_H

#include "profile.h"

/* Inferred lanes a rank may open.  Every first-fit sweep (nest_infer.c,
 * the streamed one in load/stream_nest.c, the out-of-core scan and the
 * window's seeded sweep in ooc/) stops here and puts further calls in the
 * last lane, so that they all give the same lanes. */
#define NEST_LANES_MAX 256

/* Sets every region's st.exclusive_total_ns and each rank's explicit_ids.
 * Warns (profile_warn) about orphan parent ids and cycles. */
sv_err nest_compute_totals(profile *p, sv_error *err);

/* The same for one rank.  Writes only that rank's flags and its regions'
 * exclusive totals, so ranks may be nested on separate threads, beside
 * stats_compute_region() (finish.c). */
sv_err nest_rank_totals(rank_data *rk, sv_error *err);

/* One rank's per-call arrays into *out (the caller owns them); reads the
 * rank and its regions and writes nothing of the profile, so it may run on
 * a worker thread while others read the profile (calls_job.c). */
sv_err nest_rank_calls(rank_data *rk, rank_calls **out, sv_error *err);

struct nest_share;
/* nest_rank_calls, and the rank's exclusive totals put into sh as rank
 * index k (nest_share.h) once swept, before the children lists are built;
 * a rank not swept by inference is told none.  sh NULL: nest_rank_calls. */
sv_err nest_rank_calls_shared(rank_data *rk, rank_calls **out, struct nest_share *sh, size_t k,
                              sv_error *err);

/* Builds rk->calls for every rank that lacks it. */
sv_err nest_build_calls(profile *p, sv_error *err);

/* The parent (-1: none) and exclusive time of every call of one rank, the
 * same as rk->calls would hold, without the depth, children and lane arrays
 * (what comparing two runs needs: less memory and no children pass).
 * parent and excl hold rk->ncalls entries.  Leaves rk->calls alone. */
sv_err nest_rank_parents(rank_data *rk, int32_t *parent, int64_t *excl, sv_error *err);

/* nest_rank_totals and nest_rank_parents in one (what a comparison's
 * loading child needs after a load without nesting, diff_remote.c): the
 * same totals, flags and warnings, the same parent and excl arrays; one
 * sweep instead of two when the nesting is inferred. */
sv_err nest_rank_totals_parents(rank_data *rk, int32_t *parent, int64_t *excl, sv_error *err);

/* Length of the union of intervals [s[i], e[i]] clipped to [lo, hi];
 * the intervals must be sorted by start. */
int64_t nest_union_clipped(const int64_t *s, const int64_t *e, size_t n, int64_t lo, int64_t hi);

#endif
