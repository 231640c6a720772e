/* gen_json: svgen's writer of scope-profiler's JSON profiles
 * (format_version 1, `.json` or gzip'd `.json.gz`) from the same in-memory
 * description as the columnar writer (gen_columnar.h), so one scenario can
 * be written both ways and the two loads compared.  Shares no code with the
 * reader.  The format has no perf-event counters: gc_profile.perf is not
 * written. */
#ifndef SV_GEN_JSON_H
#define SV_GEN_JSON_H

#include <stdbool.h>

#include "gen_columnar.h"

typedef struct gj_opts {
    bool gzip;           /* gzip the text (zlib, level 6) */
    bool aggregate;      /* `aggregate` objects from the calls instead of the calls */
    const int64_t *excl; /* exclusive_total_ns per row (else computed from the ids) */
} gj_opts;

/* Write P to PATH as a JSON profile.  Dies on any write error. */
void gj_write(const char *path, const gc_profile *p, const gj_opts *o);

#endif
