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
    unsigned open;  /* columns the file has for the row (1 << SC_*) */
    h5u_col *cols;  /* schema 1: the row's own datasets (SC_NCOL), else NULL: the file's */
    bool mem;       /* schema 1: loaded in memory (r's columns), statistics by stats.c */
    char *gpath;    /* schema 1: the region's group, its datasets closed between the passes */
    int64_t **held; /* schema 1, a short row in pass 2: its columns in memory (SC_NCOL), or NULL */
    /* First faults, reported in load_colrows.c's order at the verdict. */
    bool ovf, bad_end, thr_bad, task_bad, aw_bad;
    size_t ovf_at, end_at, thr_at, task_at, aw_at;
    int64_t end_s, end_e, thr_v, task_v, aw_v, aw_dur;
    bool gpu_any, ids_all_m1, in_order;
    int64_t gpu_tot, gpu_cnt, aw_tot;
    unsigned keep; /* columns the row keeps (1 << SC_*) */
    bool moments_ok;
    region_stats st;
    stream_pct pct;
    int64_t *thr; /* distinct thread rows (a hash set while reading) */
    size_t nthr, thr_cap;
    stream_early early; /* percentiles from pass 1 (stream_one.c, schema 1), when early_on */
    bool early_on;
    bool pct_early; /* pass 2: early gave pct every value it needs (nothing to feed) */
} sc_row;

/* A rank's pass 1 that also swept it (stream_one.c): its rows in the
 * sweep's order and their exclusive totals, for pass 2 to take when the
 * committed rows are those same rows. */
typedef struct sc_one {
    bool ok;
    sc_row **v;
    size_t n;
    int64_t *excl;
    uint32_t nlanes;
    bool capped;
} sc_one;

typedef struct sc_file {
    /* The load's reader with a chunk cache of its own: the columns are read
     * in slices, and a compressed chunk cut by a slice's edge would
     * otherwise be inflated once per slice (or per call, with tiny ones). */
    h5u_reader rd;
    hid_t dapl;
    hid_t file; /* schema 1: the file, where pass 2 opens the rows' datasets again */
    h5u_col col[SC_NCOL];
    unsigned open; /* 1 << SC_* */
    int schema;
    uint64_t budget;    /* bytes the stream may use (the budget left at the start) */
    int64_t tmax, kmax; /* the current rank's thread / task table bounds */
    int64_t tlo;        /* the lowest thread row allowed: -1 (columnar), 0 (schema 1) */
    sc_row **rows;      /* per index row, NULL when not streamed; schema 1: the rank's rows */
    size_t P, cap;
    sc_row *pending;  /* schema 1: the row of the region being committed */
    uint64_t stored;  /* schema 1: the stored bytes of the streamed regions' columns */
    bool stats_later; /* stop after pass 1 (load_sink.h stats_later) */
    bool *declined;   /* preferred (load_sink.h LOAD_STREAM_PREFER): give up, not stored totals */
    ld_ctx *c;
    sc_one one; /* the current rank's pass 1 and sweep in one read */
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

/* stream_one.c: whether a sweep may take a rank's rows v in one read with
 * pass 1 if they are in order (no call ids, no lane columns, none held in
 * memory); a row back as staged, pass 1's findings and the early
 * percentiles gone (after a read that stopped). */
bool sc_one_fits(const sc_file *sf, sc_row *const *v, size_t n);
void sc_row_reset(sc_row *row);

/* Pass 1 over one row (stream_col.c). */
sv_err sc_pass1_row(sc_file *sf, sc_row *row);
/* Its parts: the row's state before the first chunk, one chunk (rd as the
 * chunk left the reader; false on NOMEM), the results once rc (the
 * reader's last: 0 the end) is known. */
void sc_pass1_begin(sc_row *row);
/* Its checks alone (faults, order, threads: the row's fields; ps, pe the
 * order's last call); false on NOMEM. */
bool sc_pass1_check(sc_file *sf, sc_row *row, const sc_reader *rd, int64_t *ps, int64_t *pe);
bool sc_pass1_chunk(sc_file *sf, sc_row *row, const sc_reader *rd, stream_acc *acc, int64_t *ps,
                    int64_t *pe);
void sc_pass1_end(sc_row *row, const sc_reader *rd, const stream_acc *acc, int rc);
/* Pass 1 of a rank's rows v (in byte order of their names) read once
 * with pass 2's sweep beside it (stream_one.c), into sf->one, which then
 * owns v: true when done; false when the rank is not one for it or the
 * read stopped (a row out of order, a read error, no memory): the rows
 * are then as they were before pass 1, for the row-by-row passes. */
bool sc_one_rank(sc_file *sf, sc_row **v, size_t n);
void sc_one_free(sc_file *sf);
/* Per-row share of the budget for the percentile buckets (values). */
size_t sc_pct_cap(const sc_file *sf, size_t nrows);
/* Its results into the region (streamed, statistics, columns, threads). */
void sc_row_to_region(sc_row *row, region *t);
/* Pass 2 over a rank's rows (stream_rank.c); v: every row of the rank with
 * its region committed. */
sv_err sc_finish_rows(ld_ctx *c, sc_file *sf, rank_data *rk, sc_row **v, size_t n);
/* The file's stream state for a schema-1 load (stream_grp.c), NULL on NOMEM. */
sc_file *sc_file_new(ld_ctx *c);
void sc_file_free(sc_file *sf);

bool sc_reader_init(sc_reader *rd, sc_file *sf, const sc_row *row, unsigned want, size_t cap,
                    bool dur);
/* Next chunk: calls in rd->len (0 at the end); -1 on a read error. */
int sc_reader_next(sc_reader *rd);
void sc_reader_free(sc_reader *rd);

#endif
