/* filter: which regions an output or view shows.
 *
 * Include/exclude patterns are POSIX extended regular expressions anchored
 * at the start of the name, like Python's re.match (a pattern matches when
 * it matches a prefix).  A rank list is "0-3,5" style. */
#ifndef SV_FILTER_H
#define SV_FILTER_H

#include <regex.h>

#include "profile.h"

typedef struct region_filter {
    regex_t *include;
    size_t ninclude;
    regex_t *exclude;
    size_t nexclude;
    int *ranks; /* sorted distinct rank numbers, NULL = every rank */
    size_t nranks;
} region_filter;

void filter_init(region_filter *f);
void filter_free(region_filter *f);
sv_err filter_add_include(region_filter *f, const char *re, sv_error *err);
sv_err filter_add_exclude(region_filter *f, const char *re, sv_error *err);
/* Parses "0-3,5"; SV_ERR_USAGE with a message on a malformed list. */
sv_err filter_set_ranks(region_filter *f, const char *list, sv_error *err);

bool filter_match_name(const region_filter *f, const char *name);
bool filter_match_rank(const region_filter *f, int rank);
bool filter_match(const region_filter *f, const region *r);

#endif
