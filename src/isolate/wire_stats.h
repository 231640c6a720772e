/* wire_stats: the statistics that follow the model (the viewer's load).
 *
 * The viewer's loading child (isolate.h, defer_stats) sends the model as
 * soon as its columns are read, before any statistic is computed, then
 * finishes the profile (profile_finish_steps: statistics, percentiles,
 * exclusive totals) and sends this trailer on a pipe of its own: every
 * region's region_stats in p->regions order, each rank's nesting flags,
 * minimum_start_time and the warnings added since the model was sent.
 * Installed into the parent's model (wire_stats_install), the profile is
 * the one an in-process load gives, byte for byte.
 *
 * Layout: "SVW1", 'S', the counts, the records, "END!" (native-endian
 * 8-byte words, like wire.h); or wire.h's error message ('E') when the
 * statistics failed.  The receiver checks every count against what the
 * model it belongs to holds and bounds every string: a short or malformed
 * trailer is one line of error, never a crash. */
#ifndef SV_WIRE_STATS_H
#define SV_WIRE_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/profile.h"
#include "wire.h"

typedef struct wire_stats {
    size_t nregions;
    region_stats *st; /* nregions, in the model's p->regions order */
    size_t nranks;
    bool *explicit_ids;        /* nranks */
    uint32_t *ninferred_lanes; /* nranks */
    bool has_min_start;
    int64_t min_start_ns;
    size_t nwarnings;
    char **warnings; /* added after the model was sent; already escaped */
} wire_stats;

/* Sends p's statistics (p finished) and the warnings from index
 * warn_from on.  0, or an errno value. */
int wire_send_stats(int fd, const profile *p, size_t warn_from);

/* Receives a trailer for a model of nregions regions and nranks ranks.
 * WIRE_PROFILE: *out holds it; WIRE_ERROR: the child's statistics failed
 * (err says why); WIRE_BUDGET / WIRE_BROKEN as wire_recv. */
wire_status wire_recv_stats(const wire_src *src, size_t nregions, size_t nranks, uint64_t budget,
                            wire_stats **out, sv_error *err);

/* Copies s into p (the model it belongs to): every region's st except
 * nothing else of the region, the ranks' flags, the minimum start, and
 * appends the warnings.  False (p untouched) when s does not fit p or
 * memory runs out. */
bool wire_stats_install(profile *p, const wire_stats *s);

void wire_stats_free(wire_stats *s);

#endif
