/* stats_local: the statistics of a model received without them (the
 * viewer's deferred load, isolate.h), computed in the viewer's process on
 * a worker thread (stats_job.h).
 *
 * The child sends its columns at once and releases them as they go, so the
 * viewer's columns reuse those warm pages (wire.h); the statistics are then
 * worked out here, by the same code as everywhere (profile_finish_steps and
 * the value checks), on a shallow copy of the profile: its own profile,
 * rank and region structs, statistics, flags and warnings, and p's columns,
 * which nothing writes.  The result is a wire_stats for p (installed by the
 * thread that owns p), so the profile is byte for byte an in-process
 * load's. */
#ifndef SV_STATS_LOCAL_H
#define SV_STATS_LOCAL_H

#include "model/profile.h"
#include "wire_stats.h"

typedef struct stats_local stats_local;

/* The copy, made by the thread that owns p (NULL when out of memory).
 * Until stats_local_run has returned, p's columns, names and tables must
 * stay (p may be read meanwhile, its statistics installed only after). */
stats_local *stats_local_new(const profile *p);

struct nest_share;
/* The per-call build's totals for the copy's totals pass (nest_share.h;
 * c takes a reference of its own), or NULL: the pass sweeps every rank.
 * Only for a copy run on another thread than the build's starter: the
 * pass waits for the build's ranks. */
void stats_local_share(stats_local *c, struct nest_share *sh);

/* On any thread: the statistics of p into *out; frees c. */
sv_err stats_local_run(stats_local *c, wire_stats **out, sv_error *err);

void stats_local_free(stats_local *c);

#endif
