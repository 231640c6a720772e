/* ooc_h5: ooc_open's pass over a streamed columnar file (schema 2 and 3),
 * run by the loader at the end of the file's streamed load while its
 * event columns are still open (load_sink.h pass): the file's rows
 * are read again, a rank at a time, into ooc_scan (ooc_scan.h).  The
 * skeleton is not finished yet then (ranks and regions unsorted), so the
 * indices the scan writes are the ones profile_finish will give; the
 * caller checks them against the finished skeleton (ooc_h5_check). */
#ifndef SV_OOC_H5_H
#define SV_OOC_H5_H

#include "ooc_part.h"
#include "ooc_scan.h"

/* What the pass leaves for ooc_open. */
struct region_filter;
typedef struct ooc_h5 {
    size_t map_cells; /* set by the caller: the map's cap (ooc_map_cells_cap of --memory) */
    uint64_t budget;  /* set by the caller: --memory (the call paths' cap, ooc_paths.h) */
    /* set by the caller: the calls the map keeps (-i, -x, --ranks), NULL all */
    const struct region_filter *filter;
    const ooc_sink_hook *hook; /* set by the caller: an extra sink (ooc_sink.h), NULL none */
    /* set by the caller: the overview's parts as the pass goes (ooc_part.h),
     * zero none; closed when the pass ends */
    ooc_parts_out parts;
    bool ran;
    ooc_scan sc;
    /* The indices the pass assumed: rank numbers by rank index, region
     * pointers by (rank index, region index); compared only, never read. */
    int *rank_no;
    size_t nranks;
    const void ***regs;
    size_t *nregs;
    /* Ranks left out of the windows, and why (warnings for the skeleton). */
    int *nw_rank;
    const char **nw_why;
    size_t nnw;
    char path[400]; /* escaped */
    /* The ranks swept as the load commits them (ooc_h5.c), or NULL. */
    struct ooc_early *early;
} ooc_h5;

struct ld_ctx;
struct lc_file;
struct load_pass_at;
/* The loader's hook (load_sink.h pass: before and after each rank's pass
 * 1, and at the file's end); ctx is an ooc_h5. */
sv_err ooc_h5_streamed(void *ctx, struct ld_ctx *c, struct lc_file *lf, struct load_pass_at *at);
/* Whether the finished skeleton has the indices the pass assumed. */
bool ooc_h5_check(const ooc_h5 *h, const profile *p);
void ooc_h5_free(ooc_h5 *h);

#endif
