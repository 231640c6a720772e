/* expected_check: one region's statistics and attributes against an object
 * of an expected JSON file (numbers to a relative 1e-9; null = unknown).
 * Shared by test_expected (../shared/data/expected) and test_upstream
 * (../shared/data/upstream/expected); cmocka asserts inside. */
#ifndef SV_EXPECTED_CHECK_H
#define SV_EXPECTED_CHECK_H

#include "json_min.h"
#include "model/region.h"

/* got equals want to 1e-9 relative (fails naming what, region and rank). */
void ec_close(const char *what, const region *r, double got, double want);
/* Statistic id against exp's key of the same name, when exp states it. */
void ec_stat(const region *r, const jm_node *exp, region_stat_id id);
/* The region's thread rows against exp's "threads". */
void ec_threads(const region *r, const jm_node *exp);
/* num_calls, has_event_data, has_source, source_file, source_lineno, tags. */
void ec_attrs(const region *r, const jm_node *exp);

#endif
