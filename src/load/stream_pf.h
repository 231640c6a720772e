/* stream_pf: the out-of-core reads on a second thread.  While the main
 * thread works on a chunk of calls (pass 1's checks and statistics, pass
 * 2's merge and sweep), a reader thread reads and decodes each row's next
 * chunk into a second buffer (in pass 2 also feeding its durations to the
 * row's percentile buckets), so that reading and computing overlap.  Only
 * the reader thread calls libhdf5 meanwhile; each row's chunks are read,
 * decoded and fed in order, as one thread does. */
#ifndef SV_STREAM_PF_H
#define SV_STREAM_PF_H

#include "stream_col_internal.h"

typedef struct sc_pf sc_pf;

/* A chunk as sc_reader_next left the reader after it. */
typedef struct sc_chunk {
    int64_t *buf[SC_NCOL];
    size_t len;
    uint64_t pos; /* calls read, this chunk's included */
    bool ovf;
    size_t ovf_at;
    int rc; /* sc_reader_next's: 1 a chunk, 0 the row's end, -1 a read error */
    bool full;
    bool skip;  /* SC_PF_CHECK: the row is dropped (a fault so far): no statistics */
    bool nomem; /* SC_PF_CHECK: the checks ran out of memory */
} sc_chunk;

/* sc_pf_start's flags. */
#define SC_PF_PCT 1u   /* each chunk's durations go to the row's percentile buckets */
#define SC_PF_CHECK 2u /* the reader runs pass 1's checks on each chunk (sc_pass1_check) */

/* Starts the reader over rows v[0 .. n) (rows held in memory, row->mem,
 * are left to the caller): columns want (sc_reader_init's), chunks of cap
 * calls.  SC_PF_PCT: each chunk's durations go to the row's percentile
 * buckets, of the rows feed[j] that are not NULL when feed is given
 * (feed[j] is v[j] or NULL: a row whose percentiles pass 1 kept is read
 * without its durations).  SC_PF_CHECK: the reader checks each chunk, in
 * order, before handing it over; the row's faults, order and threads are
 * then written by the reader until sc_pf_stop, and sc_pass1_begin must
 * come first.  NULL when out of memory or no thread could start: the
 * caller reads on its own thread. */
sc_pf *sc_pf_start(sc_file *sf, sc_row *const *v, sc_row *const *feed, size_t n, unsigned want,
                   size_t cap, unsigned flags);
/* The reader's statistics beside its checks: fn(ctx, j, rd) on each chunk of
 * row j the checks keep (rd: the reader after it), on the reader thread and
 * in each row's order; what fn writes is the caller's to read once sc_pf_stop
 * has returned. */
typedef struct sc_pf_stats {
    void (*fn)(void *ctx, size_t j, const sc_reader *rd);
    void *ctx;
} sc_pf_stats;
/* sc_pf_start with SC_PF_CHECK and st's statistics on the reader. */
sc_pf *sc_pf_start_stats(sc_file *sf, sc_row *const *v, size_t n, unsigned want, size_t cap,
                         sc_pf_stats st);
/* Row j's next chunk (the one before is handed back to the reader). */
const sc_chunk *sc_pf_next(sc_pf *pf, size_t j);
/* Stops the reader and frees everything. */
void sc_pf_stop(sc_pf *pf);

/* The chunk length for the reader thread, from len (stream_chunk_len's
 * for the buffers): at most 64 Ki calls, so that a chunk's read, decoding
 * and use meet in the caches and two slots a row take no more memory than
 * one thread's chunks; SCOPEVIEW_STREAM_CHUNK's length as it is. */
size_t sc_pf_chunk_len(size_t len);

#endif
