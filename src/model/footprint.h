/* footprint: the bytes the model and the viewer's timeline index hold,
 * counted from their own arrays (not from the process's resident size,
 * which also counts the allocator, libraries and freed pages).
 *
 * The target: at most 32 bytes a call for files with start and end
 * times only (16 for the times, 16 for the nesting and the index), and
 * optional columns only when the file has them. */
#ifndef SV_FOOTPRINT_H
#define SV_FOOTPRINT_H

#include <stddef.h>

#include "lanes.h"
#include "profile.h"

typedef struct footprint {
    size_t calls;   /* recorded calls (regions with event data) */
    size_t columns; /* per-call columns: times and the optional ones present */
    size_t nesting; /* rank_calls: parents, children, inferred lanes */
    size_t index;   /* lanes_index: rows' call indices and blocks, lanes */
} footprint;

/* Adds the profile's columns and nesting arrays (ranks' rk->calls). */
void footprint_model(const profile *p, footprint *fp);
/* Adds one timeline index. */
void footprint_index(const lanes_index *ix, footprint *fp);
/* columns + nesting + index */
size_t footprint_total(const footprint *fp);

#endif
