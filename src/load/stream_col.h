/* stream_col: the out-of-core load of the columnar layouts (schema 2 and
 * 3), the loader's side of stream.h.  Instead of reading the event columns
 * whole, the loader opens them (sc_stage) and, rank by rank, streams each
 * row in chunks of a length set by the budget:
 *
 * - sc_rank_begin: pass 1 over every row of the rank (decoding the schema-3
 *   gaps, the checks of load_colrows.c with the same warnings, statistics,
 *   the duration histogram, the distinct threads, whether the row is in
 *   start order);
 * - sc_row_check / sc_row_committed: the row's verdict and its region;
 * - sc_rank_finish: pass 2, the exclusive totals by the streaming sweep
 *   (k-way merge of the rank's rows) and, in the same reads, the durations
 *   of the histogram buckets holding the wanted percentile ranks.  A rank
 *   the sweep cannot take (call ids, thread or task columns, a row out of
 *   start order) is nested in memory by nest.c when its columns fit the
 *   budget, else it gets the file's stored exclusive_totals or null, with a
 *   warning.  Only the loader's files include this header. */
#ifndef SV_STREAM_COL_H
#define SV_STREAM_COL_H

#include "load_columnar_internal.h"

/* True when this load streams lf's events (load_sink_stream, the
 * budget left against the columns' bytes; preferred: columns of at least
 * sc_prefer_bytes() without call ids, thread or task columns, which the
 * streamed statistics take in one read, and a 1/SC_PREFER_ROWS of that
 * a row on average). */
bool sc_wanted(const ld_ctx *c, int how, hid_t f, const lc_file *lf, const h5u_list *el);
/* Preferred, schema 1: a rank without thread or task tables in a file of
 * at least sc_prefer_bytes() on disk; a rank of more than SC_PREFER_ROWS
 * regions declines (load_sink.h). */
#define SC_PREFER_ROWS 64
bool sg_prefer(const ld_ctx *c, const rank_data *rk);
/* 64 MiB, or SCOPEVIEW_STREAM_PREFER's bytes (tests). */
uint64_t sc_prefer_bytes(void);

/* Whether columns can hold the calls they declare (a sparse file declaring
 * gigabytes, a lying chunk index: such columns are not streamed, and the
 * in-memory load's budget refuses them).  Judged per column by the stored
 * sizes of its chunks and its filter, not by the file's size: a plain
 * column needs its bytes stored, a filtered one a 1/H5U_MAX_RATIO of them
 * (12M constant calls compress 1000:1), and the columns' storage must be
 * on disk, not in a sparse file's holes. */
typedef struct sc_claim {
    bool ok;
    uint64_t storage; /* the columns' stored bytes so far */
    char why[200];    /* when !ok: which column, what it declares, what it stores */
} sc_claim;
/* Adds dataset ds (at path) holding n calls. */
void sc_claim_add(sc_claim *cl, hid_t ds, uint64_t n, const char *path);
/* The verdict; when false, the reason is also the budget's not_streamed. */
bool sc_claim_check(const ld_ctx *c, sc_claim *cl);
/* Opens the event columns (the checks and warnings of read_events) and
 * sizes the staged rows; lf->sc is set. */
sv_err sc_stage(ld_ctx *c, hid_t f, const h5u_list *el, lc_file *lf);
sv_err sc_rank_begin(ld_ctx *c, lc_file *lf, const rank_data *rk, const size_t *rows, size_t n);
bool sc_row_check(ld_ctx *c, lc_file *lf, size_t i);
void sc_row_committed(lc_file *lf, size_t i, region *r);
sv_err sc_rank_finish(ld_ctx *c, lc_file *lf, rank_data *rk, const size_t *rows, size_t n);
void sc_free(lc_file *lf);

/* Schema 1 (stream_grp.c), with c->sg set (load_sink_stream forced):
 * sg_load_columns streams a region's columns into t (1), drops it with a
 * warning (0; *e set on NOMEM) or leaves it to the in-memory load (-1);
 * sg_committed follows every committed region of the rank, sg_rank_finish
 * the rank's walk. */
int sg_load_columns(ld_ctx *c, const rank_data *rk, hid_t g, const char *name, h5u_list *l,
                    region *t, sv_err *e);
sv_err sg_committed(ld_ctx *c, region *r);
sv_err sg_rank_finish(ld_ctx *c, rank_data *rk);
struct sc_file *sg_new(ld_ctx *c);
void sg_free(ld_ctx *c);

#endif
