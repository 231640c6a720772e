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

#endif
