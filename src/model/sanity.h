/* sanity: warnings about values a file stores that contradict themselves
 * but break no invariant of the model (so nothing is dropped):
 *  - a stored summary with a negative num_calls or std, or a first start
 *    after its last end;
 *  - a time column holding INT64_MAX, which is where libhdf5's conversion
 *    puts a uint64 value of 2^63 or more (it clamps without a word).
 * Run once on a loaded profile (isolate.c does, in the loading process). */
#ifndef SV_SANITY_H
#define SV_SANITY_H

#include "profile.h"

void profile_check_values(profile *p);

#endif
