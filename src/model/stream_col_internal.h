/* What stream_col.c (stage, readers, pass 1) and stream_rank.c (pass 2)
 * share. */
#ifndef SV_STREAM_COL_INTERNAL_H
#define SV_STREAM_COL_INTERNAL_H

#include "stream.h"
#include "stream_col.h"

enum { SC_START, SC_END, SC_GPU, SC_CALL, SC_PARENT, SC_THREAD, SC_TASK, SC_AWAIT, SC_NCOL };

/* Pass 1's findings for one row. */
typedef struct sc_row {
    region *r; /* the committed region, once committed */
    uint64_t off, n;
    /* First faults, reported in load_colrows.c's order at the verdict. */
    bool ovf, bad_end, thr_bad, task_bad, aw_bad;
    size_t ovf_at, end_at, thr_at, task_at, aw_at;
    int64_t end_s, end_e, thr_v, task_v, aw_v;
    bool gpu_any, ids_all_m1, in_order;
    int64_t gpu_tot, gpu_cnt, aw_tot;
    unsigned cols; /* columns the row keeps (1 << SC_*) */
    bool moments_ok;
    region_stats st;
    stream_pct pct;
    int64_t *thr; /* distinct thread rows (a hash set while reading) */
    size_t nthr, thr_cap;
} sc_row;

typedef struct sc_file {
    /* The load's reader with a chunk cache of its own: the columns are read
     * in slices, and a compressed chunk cut by a slice's edge would
     * otherwise be inflated once per slice (or per call, with tiny ones). */
    h5u_reader rd;
    hid_t dapl;
    h5u_col col[SC_NCOL];
    unsigned open; /* 1 << SC_* */
    int schema;
    uint64_t budget;    /* bytes the stream may use (the budget left at the start) */
    int64_t tmax, kmax; /* the current rank's thread / task table bounds */
    sc_row **rows;      /* per index row, NULL when not streamed */
    size_t P;
    ld_ctx *c;
} sc_file;

/* A chunked reader of one row: the columns in want, decoded. */
typedef struct sc_reader {
    sc_file *sf;
    const sc_row *row;
    unsigned want;
    uint64_t pos; /* calls read */
    int64_t run;  /* schema 3: the running start */
    size_t cap, len;
    int64_t *buf[SC_NCOL];
    int64_t *dur; /* durations of the chunk, when asked */
    bool ovf;     /* schema 3 decoding overflowed at call ovf_at */
    size_t ovf_at;
} sc_reader;

bool sc_reader_init(sc_reader *rd, sc_file *sf, const sc_row *row, unsigned want, size_t cap,
                    bool dur);
/* Next chunk: calls in rd->len (0 at the end); -1 on a read error. */
int sc_reader_next(sc_reader *rd);
void sc_reader_free(sc_reader *rd);

#endif
