/* lineprof: line-profiler records (rank_data.lines) matched to regions,
 * and what the source pane and --lines derive from them.
 *
 * A record belongs to a region by its `region` attribute; a record without
 * one belongs to the region whose source file is the record's file and
 * whose recorded line lies in the record's lines (the function the region
 * decorates), or whose name is the record's function. */
#ifndef SV_LINEPROF_H
#define SV_LINEPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile.h"

/* Does lp belong to the region called name (r: that region on lp's rank,
 * or NULL when the rank has none)? */
bool lineprof_matches(const line_profile *lp, const char *name, const region *r);

/* The records of rk for the region called name, in file order: the count
 * found (all of them), and up to cap of them in out. */
size_t lineprof_for_region(const rank_data *rk, const char *name, const region *r,
                           const line_profile **out, size_t cap);

/* Time of row i in seconds and in nanoseconds, and the sum over every row
 * in nanoseconds.  A unit of 1/N s (1e-9, 1e-6) divides by N, so that
 * 9.8e6 units of 1e-9 s give 0.0098 s, not 0.009800000000000001. */
double lineprof_row_s(const line_profile *lp, size_t i);
double lineprof_row_ns(const line_profile *lp, size_t i);
double lineprof_total_ns(const line_profile *lp);

/* Line number (1-based, as in the file) of the first line of the text the
 * record's lines come from: its own `source`, else r's source_text.  NULL
 * when neither is there. */
const char *lineprof_text(const line_profile *lp, const region *r, int64_t *first_lineno);

/* Line `lineno` of text (whose first line is `first`), without its
 * newline; NULL when outside the text. */
const char *lineprof_text_line(const char *text, int64_t first, int64_t lineno, size_t *len);

/* The counter records (perf_events and LIKWID) of rk for the region called
 * name, as lineprof_for_region. */
size_t lineprof_counters(const rank_data *rk, const char *name, const perf_record **out,
                         size_t cap);

/* Heat of each row: hot[i] = 1 for the hottest row by time, 2 for the
 * next, ... up to k; 0 for the others and for rows with no time.  Ties
 * go to the lower line. */
void lineprof_hottest(const line_profile *lp, size_t k, unsigned char *hot);

#endif
