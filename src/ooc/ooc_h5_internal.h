/* ooc_h5_internal: what ooc_h5.c (the pass) and ooc_h5_early.c (the ranks
 * swept as the load commits them) share.  Not for other files. */
#ifndef SV_OOC_H5_INTERNAL_H
#define SV_OOC_H5_INTERNAL_H

#include "ooc_h5.h"
#include "load/stream_col_internal.h"

enum { M_NONE, M_SWEEP, M_MEMORY, M_FLAT };

typedef struct hrank {
    rank_data *rk;
    region **regs; /* by name: the skeleton's region indices */
    sc_row **rows; /* with calls, by region index */
    uint32_t *reg;
    size_t nrows;
    uint64_t calls;
    int mode;
    bool lanes, ids;
    size_t nlanes;
    /* Read here with pass 1 before the load commits the rank (ooc_early):
     * its rows' names by row (row->r not set yet). */
    bool read;
    const char **names;
} hrank;

/* The pass's progress (ooc.h OOC_SWEEP_MARK), counted on the sweep's
 * thread as chunks reach it. */
typedef struct meter {
    const ld_ctx *c;
    uint64_t done, total;
    ooc_sweep last;
} meter;

typedef struct hpass {
    ooc_h5 *h;
    ld_ctx *c;
    sc_file *sf;
    hrank *r;
    size_t nr;
    meter m;
    uint64_t rank_before; /* the calls of the ranks before the one swept */
} hpass;

/* ooc_h5.c */
void oh_meter_rank(meter *m, size_t k, size_t nr);
int oh_cmp_reg(const void *a, const void *b);
/* hr's arrays for rank rk's regions (regs sorted by name, no row yet);
 * false on NOMEM (what was allocated freed with oh_hrank_free). */
bool oh_hrank_init(hrank *hr, rank_data *rk);
size_t oh_reg_index(const hrank *hr, const char *name);
/* Whether the map keeps row j's calls (ooc_h5.filter). */
bool oh_row_kept(const hpass *hp, const hrank *hr, size_t j);
/* The rank's mode (enum above) from its rows' columns and verdicts. */
void oh_choose(hpass *hp, hrank *hr);
/* Rank ri's rows swept (whole: NULL; else a rank read with pass 1, which
 * says whether all of it was, a row out of order or a read failure
 * leaving it to the load). */
sv_err oh_stream_rank(hpass *hp, const hrank *hr, size_t ri, bool *whole);
/* Rank hr's mode, its share of the grid's span (t_min > t_max: no call
 * the map keeps) and of its lane hint. */
sv_err oh_plan_rank(hpass *hp, hrank *hr, int64_t *t_min, int64_t *t_max, size_t *nlanes);
/* The span of the calls the map keeps, as plan finds it (no mode chosen). */
void oh_span_of(const hpass *hp, int64_t *t_min, int64_t *t_max);
/* The time zero finish.c will give (the least first start of the regions
 * with calls) of hp's ranks; false when none has calls. */
bool oh_zero_of(const hpass *hp, int64_t *zero);
/* Test hook (SCOPEVIEW_TEST_OVERVIEW=stop) at rank k's start. */
void oh_test_stop(const hpass *hp, size_t k);
/* Rank k (hr, its mode chosen) into the scan, and a part when due. */
sv_err oh_sweep_rank(hpass *hp, const hrank *hr, size_t k);
/* Rank k is in the scan: its note if its windows are off, its calls
 * counted from before on, a part when due. */
sv_err oh_rank_swept(hpass *hp, const hrank *hr, size_t k, uint64_t before);
/* The scan's tick (ooc_scan.h): a part when due; ctx an hpass. */
void oh_parts_tick(void *ctx, const ooc_scan *sc, size_t k, int64_t t, uint64_t swept);

/* ooc_h5_early.c: load_sink.h LOAD_PASS_READ and LOAD_PASS_RANK; at the
 * file's end, how many ranks stay as swept (the scan emptied when none). */
typedef struct ooc_early ooc_early;
sv_err oh_early_read(ooc_h5 *h, struct ld_ctx *c, struct lc_file *lf, struct load_pass_at *at);
sv_err oh_early_rank(ooc_h5 *h, struct ld_ctx *c, struct lc_file *lf, const rank_data *crk,
                     const size_t *rows, size_t n);
size_t oh_early_kept(ooc_h5 *h, const hpass *hp);
void oh_early_free(ooc_early *y);
/* The scan's span widened to [t0, t1] (none when t0 > t1), the map
 * regridded to it and the scan's lane hint. */
bool oh_scan_grow(ooc_scan *sc, int64_t t0, int64_t t1);
void oh_hrank_free(hrank *hr);

#endif
