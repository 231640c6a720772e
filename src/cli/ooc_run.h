/* ooc_run: the viewer out of core.  A file whose columns
 * exceed --memory (or any file with --out-of-core) is opened by ooc_open
 * (ooc.h): a loading child scans it once for the skeleton profile (names,
 * structure, streamed statistics, no calls), the overview map and the seek
 * index, and the viewer runs on those (app_options.ooc), reading the calls
 * of a zoomed-in span only (view/tl_window.h). */
#ifndef SV_OOC_RUN_H
#define SV_OOC_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "args.h"
#include "model/filter.h"

/* The marker isolate.c's over-budget message carries (isolate.h
 * ISOLATE_OVER_BUDGET_NOTE): the viewer then opens the file out of core. */
bool ooc_run_over_budget(const char *msg);

/* True when the file stores more bytes than budget (cli_options.memory,
 * resolved by cli_parse, as every budget in this header): its columns, never smaller in memory than
 * on disk, cannot fit, so the viewer opens it out of core without first trying in memory (a failed
 * load of a large file costs seconds and most of the budget). Allocated blocks, not the apparent
 * size: a sparse file is not taken for a big one. */
bool ooc_run_file_exceeds(const char *path, uint64_t budget);

/* Opens path out of core (progress on the terminal unless --batch) and
 * runs the viewer; forced: --out-of-core asked for it, else the file
 * exceeded budget.  check_ranks (main.c's --ranks check, an exit status)
 * runs on the skeleton first.  Returns the exit status (stdout not
 * flushed). */
int ooc_run_viewer(const cli_options *o, const region_filter *f, const char *path, uint64_t budget,
                   bool forced, int (*check_ranks)(const char *list, const profile *p));

/* Opens path out of core for a batch output (no progress): *out's skeleton carries the
 * sweep's call-path totals (profile.cpaths).  stats: wait for the statistics (exclusive
 * totals, percentiles), else the loading child is ended once the skeleton is in.  hook: the
 * caller's (ooc_open_hooked), or NULL.  Warnings and a failure are said on stderr; returns
 * the exit status. */
struct ooc_file;
struct ooc_sink_hook;
int ooc_run_open_batch(const region_filter *f, const char *path, uint64_t budget, bool stats,
                       const struct ooc_sink_hook *hook, struct ooc_file **out);

#endif
