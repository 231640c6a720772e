/* h5util_internal: the checks of h5util.c shared with its sibling readers
 * (h5util_f64.c, h5util_text.c, h5util_cols.c).  Only files that include hdf5.h use this. */
#ifndef SV_H5UTIL_INTERNAL_H
#define SV_H5UTIL_INTERNAL_H

#include "h5util.h"

/* Writes a reason into why (nothing when why is NULL or len 0). */
void h5u_set_why(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* "what failed: innermost libhdf5 reason", taken right after the failing
 * call (any later API call clears the stack); returns H5U_BAD. */
h5u_status h5u_fail(char *why, size_t len, const char *what);

/* Opens dataset `name` below loc, refusing virtual and external storage
 * (H5U_REFUSED) and unreadable layouts (H5U_BAD).  *filtered tells
 * whether its chunks may be compressed. */
h5u_status h5u_open_checked(h5u_reader *rd, hid_t loc, const char *name, hid_t *ds, bool *filtered,
                            char *why, size_t whylen);

/* Can n elements of esize bytes be stored in this file (plain data within
 * the file size, compressed data within the best filter ratio)? */
bool h5u_count_plausible(const h5u_reader *rd, hid_t ds, bool filtered, uint64_t n, size_t esize);

/* An open attribute with its type, space and checked element count. */
typedef struct h5u_attr_h {
    hid_t a, type, space;
    uint64_t n;
} h5u_attr_h;

/* Opens attribute `name` of loc: scalar or 1-D (one element unless
 * array_ok), its count plausible for file_size. */
h5u_status h5u_attr_open(uint64_t file_size, hid_t loc, const char *name, bool array_ok,
                         h5u_attr_h *h, char *why, size_t whylen);
void h5u_attr_close(h5u_attr_h *h);
/* The n strings (vlen or fixed) of a dataset or attribute (attr). */
h5u_status h5u_read_strs_obj(hid_t obj, bool attr, hid_t dxpl, hid_t ftype, hid_t space, size_t n,
                             h5u_strs *out, char *why, size_t whylen);
const char *h5u_class_name(H5T_class_t c);
/* Registers the lzf and zstd decoders libhdf5 lacks (h5util_filters.c). */
void h5u_register_filters(void);

#endif
