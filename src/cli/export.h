/* export: a profile written for other tools (--export chrome|speedscope|folded, --folded).
 *
 * chrome      the Trace Event Format that Perfetto UI and chrome://tracing read
 *             (export_chrome.c): one pid per rank, one tid per timeline lane.
 * speedscope  speedscope's file format (export_speedscope.c): one evented profile per lane,
 *             frames shared with the regions' source file and line.
 * folded      folded stacks (export_folded.c): one line per call path with its own
 *             (exclusive) time in ns, the input of flamegraph.pl, inferno and speedscope.
 *
 * The filter (-i, -x, --ranks) and a time range select what is written: a call overlapping
 * [from, to) is written cut to it.  Chrome and speedscope walk each lane of the timeline's
 * index (export_walk.c) in time order; folded stacks follow the call tree's parent links
 * (the tree and flame views' paths).  Every writer streams: what it holds beside the model
 * is one lane's calls (chrome, speedscope) or the distinct call paths (folded), never the
 * output.  No string from the file reaches the output raw (json_escape, text_escape). */
#ifndef SV_EXPORT_H
#define SV_EXPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "model/filter.h"
#include "model/profile.h"

typedef enum export_format { EXPORT_CHROME, EXPORT_SPEEDSCOPE, EXPORT_FOLDED } export_format;

/* A time range in ns from the profile's zero (minimum_start_time), the ruler's times. */
typedef struct export_range {
    bool has_from, has_to;
    int64_t from_ns, to_ns;
} export_range;

typedef struct export_request {
    export_format format;
    bool folded_ranks; /* folded: the rank as the first frame ("rank 3;main;...") */
    export_range range;
} export_request;

/* Writes p to fp in req's format.  Warnings (calls cut to nest in their lane) go to warn.
 * Write errors are the caller's to find (ferror); the writer stops at the first. */
sv_err export_write(profile *p, const region_filter *f, const export_request *req, FILE *fp,
                    FILE *warn, sv_error *err);

/* The writers (export_chrome.c, export_speedscope.c, export_folded.c). */
sv_err export_chrome(profile *p, const region_filter *f, const export_range *rg, FILE *fp,
                     FILE *warn, sv_error *err);
sv_err export_speedscope(profile *p, const region_filter *f, const export_range *rg, FILE *fp,
                         FILE *warn, sv_error *err);
sv_err export_folded(profile *p, const region_filter *f, const export_request *req, FILE *fp,
                     sv_error *err);

/* ------------------------------------------------------------------ the output file */

/* Where an export goes: "-" is standard output; a regular file (or a new name) is written
 * under a temporary name in its directory and renamed over it only once complete; any other
 * existing file (a device such as /dev/full, a FIFO) is written in place. */
typedef struct export_sink {
    FILE *fp;
    const char *path; /* the final name; NULL for standard output */
    char *tmp;        /* the temporary name, NULL when written in place */
} export_sink;

/* SV_ERR_IO, said in err, when out names one of the inputs (the same file, through any link):
 * checked before the load too, so a big profile is not read for nothing. */
sv_err export_out_check(const char *out, const char *const *inputs, size_t ninputs, sv_error *err);
/* Opens out.  Refuses (SV_ERR_IO, nothing created) a name that is one of the inputs. */
sv_err export_sink_open(export_sink *s, const char *out, const char *const *inputs, size_t ninputs,
                        sv_error *err);
/* Flushes, syncs and closes the file and, when ok, renames it to its final name; otherwise,
 * or on a write error (write_errno: the errno of one the writer met, 0 when none), removes
 * the temporary file and says why.  Standard output is left to the caller (main's exit
 * status handling tells a closed pipe apart). */
sv_err export_sink_close(export_sink *s, bool ok, int write_errno, sv_error *err);

#endif
