/* out_diff: the batch outputs of a comparison (--diff BASE NEW --summary|--json|--csv) and
 * the CI gate (--check BASE NEW).
 *
 * --json and --csv print one flat row per region, then one per call path (tree order), with
 * the same keys in the same order; times in seconds, null (JSON) or an empty field (CSV)
 * where unknown (a side without the row, a statistic a summary-only region lacks, a test
 * that could not run).  Strings from the files are escaped. */
#ifndef SV_OUT_DIFF_H
#define SV_OUT_DIFF_H

#include <stdbool.h>
#include <stdio.h>

#include "model/diff.h"
#include "model/sv_error.h"

typedef enum diff_format { DIFF_OUT_SUMMARY, DIFF_OUT_JSON, DIFF_OUT_CSV } diff_format;

sv_err out_diff(const diff_result *d, diff_format fmt, FILE *fp, sv_error *err);

/* Prints the regressions (rows flagged slower; with fail_on_new, rows only in NEW too) and
 * returns 1 when there is one, 0 otherwise. */
int out_check(const diff_result *d, bool fail_on_new, FILE *fp);

#endif
