/* ooc_check: the oracle of the out-of-core tests (test_ooc_seek,
 * test_ooc_slice, test_ooc_window).  The whole in-memory profile decides:
 * every call overlapping a window must be in the window's profile with the
 * same start, end, region, parent, lane identity (rank, kind, row) and lane
 * depth as lanes_build gives it in the whole profile.  The profiles they
 * run on: the fixtures, the shared data when present, the demo and a few
 * generated ones (the cmocka group's state).  Failures go through cmocka. */
#ifndef SV_OOC_CHECK_H
#define SV_OOC_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/lanes.h"
#include "model/profile.h"

/* Where a call is in a lanes index: lane identity and depth. */
typedef struct ow_where {
    lane_kind kind;
    int64_t row;
    uint32_t depth;
} ow_where;

typedef struct ow_windows {
    int64_t (*v)[2];
    size_t n, cap;
} ow_windows;

typedef struct ow_prof_list {
    char **v;
    size_t n, cap;
} ow_prof_list;

/* Every profile the tests run on, and the scratch directory of the
 * generated ones (removed at the end): the group's state. */
typedef struct ow_profiles {
    ow_prof_list l;
    char gen_dir[1024];
} ow_profiles;

/* A profile loaded with its calls nested; NULL when it does not load. */
profile *ow_load_path(const char *path);
lanes_index *ow_index_of(profile *p);
ow_where ow_locate(const lanes_index *ix, const rank_data *rk, size_t g, const char *what);
/* A call [s, e) is drawn in [t0, t1). */
bool ow_overlaps(int64_t s, int64_t e, int64_t t0, int64_t t1);
/* The window profile w of [t0, t1) against the whole profile full (fix:
 * its lanes).  skip: rank indices not to check (not windowable), or NULL.
 * Returns the overlapping calls checked. */
size_t ow_check_window(profile *full, const lanes_index *fix, profile *w, int64_t t0, int64_t t1,
                       const bool *skip, const char *what);
/* The whole span, random windows, windows at call edges, one-ns windows,
 * empty and outside ones. */
void ow_make_windows(const profile *p, size_t nrand, ow_windows *ws);
void ow_list_add(ow_prof_list *l, const char *path);
void ow_list_free(ow_prof_list *l);
/* The group's state: an ow_profiles (generated into a scratch directory
 * the teardown removes). */
int ow_group_setup(void **state);
int ow_group_teardown(void **state);

#endif
