/* diff_internal: the build state shared by diff.c and diff_rows.c. */
#ifndef SV_DIFF_INTERNAL_H
#define SV_DIFF_INTERNAL_H

#include "diff.h"

struct diff_build {
    region_filter filter; /* the user's, narrowed to one rank when asked */
    bool has_filter;
    int one_rank;
    uint32_t *nhash; /* names: open addressing, DIFF_NONE empty */
    size_t nhcap;
    size_t ncap;     /* names and regions allocated */
    uint32_t *phash; /* paths by (parent, name) */
    size_t phcap;
    size_t pcap; /* paths allocated */
};

uint32_t diff_name_find(const diff_result *d, const char *s);
/* Side 0 of part (built by diff_add on one profile, diff_remote.c) as side
 * `side` of d; part's samples move into d.  part's paths must name only
 * earlier paths as parents and only its own names. */
sv_err diff_add_built(diff_result *d, int side, const char *label, diff_result *part,
                      sv_error *err);

#endif
