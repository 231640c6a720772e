/* callpaths: call-path totals of a profile whose calls are not held (the
 * out-of-core viewer's skeleton).  The loading child's sweep merges each
 * rank's calls by call path (a region under the path of its parent call)
 * and sends one record per distinct path: its calls, inclusive, exclusive,
 * longest, await and GPU time and first start, the same figures the call tree sums
 * over single calls.  From them calltree_build (calltree_paths.c) and
 * butterfly_build give the in-memory trees, flame graphs and callers for
 * the scopes they cover: every rank merged or one rank, no thread scope
 * and no time band (both need single calls).  Pure model code. */
#ifndef SV_CALLPATHS_H
#define SV_CALLPATHS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CP_ROOT UINT32_MAX

typedef struct cpath {
    uint32_t parent; /* an earlier path of the same rank, CP_ROOT at the top */
    uint32_t region; /* index among the rank's regions */
    int64_t calls;
    int64_t incl_ns; /* saturating sums */
    int64_t excl_ns; /* each call's duration less the union of its children */
    int64_t max_ns;
    int64_t first_ns; /* earliest start */
    /* As calltree.c sums them: await over the calls with an await column,
     * GPU time over the calls with a GPU timing (>= 0), and those counts. */
    int64_t await_ns, gpu_ns;
    int64_t await_n, gpu_n;
} cpath;

typedef struct cpath_rank {
    size_t rank_index; /* the profile's */
    cpath *v;
    size_t n;
} cpath_rank;

typedef struct call_paths {
    bool available; /* false: why says why there are none */
    char why[200];
    cpath_rank *ranks; /* by rank index, each at most once */
    size_t nranks;
} call_paths;

void call_paths_free(call_paths *c);

#endif
