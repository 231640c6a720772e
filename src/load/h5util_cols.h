/* h5util_cols: readers for the columnar layouts (h5util_cols.c).  Same
 * contract as h5util.h: untrusted input, one short reason in why. */
#ifndef SV_H5UTIL_COLS_H
#define SV_H5UTIL_COLS_H

#include "h5util.h"

/* An open 1-D integer dataset read in slices. */
typedef struct h5u_col {
    h5u_reader *rd;
    hid_t ds, space;
    uint64_t n;           /* elements */
    bool is_unsigned;     /* the file type is unsigned */
    bool wide_unsigned;   /* unsigned and 64-bit: values may exceed INT64_MAX */
    struct h5c_col *fast; /* the direct chunk reader (h5chunk.h), or NULL */
} h5u_col;

/* Opens integer column `name` below loc: 1-D, plausible for the file's
 * size, and every filter available (else H5U_BAD naming the filter and the
 * fix, 'h5repack -f NONE'). */
h5u_status h5u_col_open(h5u_reader *rd, hid_t loc, const char *name, h5u_col *col, char *why,
                        size_t whylen);
/* Elements [off, off + cnt) into dst as int64 (or uint64 when as_unsigned):
 * through the direct chunk reader where it applies, else (or when it gives
 * up on this read) through H5Dread, with the same values either way. */
h5u_status h5u_col_read(h5u_col *col, uint64_t off, size_t cnt, void *dst, bool as_unsigned,
                        char *why, size_t whylen);
void h5u_col_close(h5u_col *col);

/* A whole index column as uint64: unsigned columns as they are (values
 * >= 2^63 kept, for the caller to reject), signed ones with every negative
 * value counted in *nnegative and replaced by UINT64_MAX. */
h5u_status h5u_read_index(h5u_reader *rd, hid_t loc, const char *name, uint64_t **out, size_t *n,
                          size_t *nnegative, char *why, size_t whylen);

/* One row of rank_region_index/summary_statistics (doc/FORMAT.md, "Schema 2 and 3"). */
typedef struct h5u_sumstat {
    int64_t total, minimum, maximum, first, last, start_minimum, end_maximum;
    uint64_t gpu_count;
    int64_t gpu_total;
    double mean, m2;
    bool has_gpu, has_moments; /* the fields were in the file */
} h5u_sumstat;

h5u_status h5u_read_sumstats(h5u_reader *rd, hid_t loc, const char *name, h5u_sumstat **out,
                             size_t *n, char *why, size_t whylen);

/* H5U_BAD (naming the filter and the fix) when dataset `name` uses a
 * filter this libhdf5 lacks. */
h5u_status h5u_dataset_filters(h5u_reader *rd, hid_t loc, const char *name, char *why,
                               size_t whylen);

/* A 1-D string dataset (vlen or fixed length) with every string whole:
 * a row's event_metadata holds one JSON object per call and can pass
 * SV_STRING_MAX; the count is checked against the file's size. */
h5u_status h5u_read_strs_whole(h5u_reader *rd, hid_t loc, const char *name, h5u_strs *out,
                               char *why, size_t whylen);

/* A column buffer of n int64 (free() releases it); NULL on NOMEM. */
int64_t *h5u_alloc_i64(size_t n);

/* Name of a known HDF5 filter id ("lzf" for 32000), or NULL. */
const char *h5u_filter_name(unsigned id);
/* H5U_BAD naming the first filter of ds this libhdf5 cannot apply (lzf,
 * blosc, ...: plugins are off), with how to decompress the file. */
h5u_status h5u_check_filters(hid_t ds, char *why, size_t whylen);

#endif
