/* grow: the one capacity rule of the growable arrays (doubling, so adding n
 * items one at a time costs O(n) copies).  Header-only. */
#ifndef SV_GROW_H
#define SV_GROW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

/* Grows *v, an array of *cap elements of sz bytes, to hold need elements:
 * from first (an empty array) or *cap, doubled until it does.  False, with
 * *v and *cap unchanged, when out of memory or when the size would not fit
 * a size_t. */
static inline bool sv_grow(void **v, size_t *cap, size_t need, size_t sz, size_t first)
{
    if (need <= *cap)
        return true;
    size_t c = *cap ? *cap : first;
    while (c < need) {
        if (c > SIZE_MAX / 2)
            return false;
        c *= 2;
    }
    if (sz && c > SIZE_MAX / sz)
        return false;
    void *nv = realloc(*v, c * sz);
    if (!nv)
        return false;
    *v = nv;
    *cap = c;
    return true;
}

#endif
