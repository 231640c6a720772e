/* h5chunk: the direct chunk reader of 1-D integer columns (h5chunk.c).
 *
 * libhdf5 reads a chunked, compressed column one chunk at a time: a look-up
 * in the chunk index, a read, then its serial filter pipeline.  This reader
 * locates each chunk once (H5Dget_chunk_info_by_coord), reads the stored
 * bytes of many chunks in long sequential pread()s straight from the file's
 * descriptor, and undoes deflate (libdeflate) and shuffle on the loading
 * step's worker threads (par.h).  Uncompressed chunks are a copy.
 *
 * It takes only what it reproduces exactly: chunked 1-D integers of 1, 2, 4
 * or 8 bytes in either byte order, deflate and shuffle in any order or
 * skipped per chunk, unallocated chunks holding a defined fill value, a
 * plain file (sec2 driver, no user block, not SWMR).  Anything else, and
 * any chunk whose stored bytes do not decode to a whole chunk, is left to
 * H5Dread: h5c_open returns NULL or h5c_read returns false, and the caller
 * reads through libhdf5, so the values (or the error) are libhdf5's own. */
#ifndef SV_H5CHUNK_H
#define SV_H5CHUNK_H

#include <hdf5.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct h5c_col h5c_col;

/* The fast path for dataset ds of n elements, or NULL when it does not
 * apply (also when SCOPEVIEW_H5READ=1 asks for libhdf5's read). */
h5c_col *h5c_open(hid_t ds, uint64_t n);

/* Elements [off, off + cnt) (within the dataset) into dst as int64, or as
 * uint64 when as_unsigned, converted as H5Dread converts: false when this
 * read needs H5Dread instead (dst's contents are then undefined). */
bool h5c_read(h5c_col *c, uint64_t off, size_t cnt, void *dst, bool as_unsigned);

/* Elements a chunk of c holds: a read of fewer gains nothing from the
 * direct path (one chunk fetched and decoded per few values) and goes
 * through H5Dread, whose chunk cache serves the next small read. */
uint64_t h5c_chunk_elems(const h5c_col *c);

/* Decodes on cr's threads (par.h) instead of threads started per read;
 * NULL again before cr stops.  Only the thread that posts to cr reads c. */
struct par_crew;
void h5c_set_crew(h5c_col *c, struct par_crew *cr);

void h5c_close(h5c_col *c);

#endif
