/* strip: a finished profile without its calls, for the batch statistics
 * (--json, --csv, --summary), which read only each region's statistics.
 * Each region with event data takes the out-of-core form (profile.h:
 * streamed, n == 0, the calls counted in st, stream_cols and
 * stream_threads standing for the columns), so every accessor answers as
 * before; the loading child sends that, not the columns (isolate.h
 * prepare), and the parent receives kilobytes instead of 16 bytes a call. */
#ifndef SV_STRIP_H
#define SV_STRIP_H

#include "profile.h"

/* Strips every region of p that has event data and is not streamed yet.
 * A region whose thread list cannot be made (no memory) keeps its
 * columns. */
void profile_strip_calls(profile *p);

/* isolate_options.prepare: profile_strip_calls (ctx unused). */
sv_err strip_calls_prepare(void *ctx, profile **p, sv_error *err);

#endif
