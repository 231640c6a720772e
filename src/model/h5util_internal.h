/* h5util_internal: the checks of h5util.c shared with its sibling readers
 * (h5util_f64.c).  Only files that include hdf5.h use this. */
#ifndef SV_H5UTIL_INTERNAL_H
#define SV_H5UTIL_INTERNAL_H

#include "h5util.h"

/* Opens dataset `name` below loc, refusing virtual and external storage
 * (H5U_REFUSED) and unreadable layouts (H5U_BAD).  *filtered tells
 * whether its chunks may be compressed. */
h5u_status h5u_open_checked(h5u_reader *rd, hid_t loc, const char *name, hid_t *ds, bool *filtered,
                            char *why, size_t whylen);

/* Can n elements of esize bytes be stored in this file (plain data within
 * the file size, compressed data within the best filter ratio)? */
bool h5u_count_plausible(const h5u_reader *rd, hid_t ds, bool filtered, uint64_t n, size_t esize);

#endif
