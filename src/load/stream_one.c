/* stream_one: pass 1 and pass 2 of a rank in one read (stream_col.h).
 *
 * Pass 2's sweep needs the rank's calls in (start, -end) order, which pass
 * 1 only learns at its end, and its percentiles need pass 1's histogram.
 * Both passes decode every chunk of the rank's columns, which on a
 * compressed file is most of the load.  So a rank whose rows the sweep can
 * take if they turn out in order (no call ids, no thread or task columns:
 * choose() in stream_rank.c) is read once: the rows are merged as pass 2
 * merges them, each chunk goes through pass 1's checks and statistics and
 * then to the sweep, and the durations near each percentile are kept
 * (stream_early).  With a reader thread, pass 1's checks, statistics and
 * early percentiles run there as each chunk is decoded (sc_pf_start_stats),
 * beside the sweep on this thread, the longer of the two.  Pass 2 takes the totals when the rows
 * committed are these same rows in this order; otherwise, and when the sweep stops (a row out of
 * order, a read error), everything is as if this had not run: the rows are reset and read row by
 * row, so the output and the warnings are the two-pass load's. */
#include <stdlib.h>
#include <string.h>

#include "model/par.h"
#include "stream_col_internal.h"
#include "stream_pf.h"

typedef struct one_src {
    sc_file *sf;
    sc_row *row;
    sc_pf *pf;    /* the reads on a second thread, or NULL */
    size_t j;     /* the row's index there */
    sc_reader rd; /* the reader (no pf), or the last chunk's state */
    stream_acc acc;
    int64_t ps, pe;
    bool failed; /* a read error or NOMEM */
} one_src;

/* Pass 1's statistics of a chunk its checks kept: the row's accumulator and
 * the durations near its percentiles. */
static void one_stats(one_src *x, const sc_reader *rd)
{
    stream_acc_add(&x->acc, rd->buf[SC_START], rd->buf[SC_END], rd->len);
    if (x->row->early_on)
        stream_early_feed(&x->row->early, rd->buf[SC_START], rd->buf[SC_END], rd->len, x->acc.hist,
                          x->acc.n);
}

/* sc_pf_stats.fn: the same on the reader thread, which checked the chunk. */
static void one_stats_pf(void *ctx, size_t j, const sc_reader *rd)
{
    one_stats(&((one_src *)ctx)[j], rd);
}

/* The next chunk: from the reader thread, checked and counted there (the
 * sweep, on this thread, is the longer part: pass 1 goes beside it), or read,
 * checked and counted here. */
static int one_refill(void *vctx, stream_src *src)
{
    one_src *x = vctx;
    int rc;
    if (x->pf) {
        const sc_chunk *ch = sc_pf_next(x->pf, x->j);
        memcpy(x->rd.buf, ch->buf, sizeof x->rd.buf);
        x->rd.len = ch->len;
        x->rd.pos = ch->pos;
        x->rd.ovf = ch->ovf;
        x->rd.ovf_at = ch->ovf_at;
        rc = ch->rc == 1 && ch->nomem ? -1 : ch->rc;
    } else {
        rc = sc_reader_next(&x->rd);
        if (rc == 1 && !sc_pass1_check(x->sf, x->row, &x->rd, &x->ps, &x->pe))
            rc = -1;
        else if (rc == 1 && !x->rd.ovf && !x->row->bad_end)
            one_stats(x, &x->rd);
    }
    if (rc < 0)
        x->failed = true;
    if (rc != 1)
        return rc;
    src->s = x->rd.buf[SC_START];
    src->e = x->rd.buf[SC_END];
    src->len = x->rd.len;
    return 1;
}

void sc_row_reset(sc_row *row)
{
    sc_row keep = {.r = row->r,
                   .off = row->off,
                   .n = row->n,
                   .open = row->open,
                   .cols = row->cols,
                   .mem = row->mem,
                   .gpath = row->gpath,
                   .held = row->held};
    free(row->thr);
    stream_pct_free(&row->pct);
    stream_early_free(&row->early);
    *row = keep;
}

bool sc_one_fits(const sc_file *sf, sc_row *const *v, size_t n)
{
    unsigned lanes = 1u << SC_CALL | 1u << SC_PARENT | 1u << SC_THREAD | 1u << SC_TASK;
    if (sf->schema < 2)
        return false;
    for (size_t j = 0; j < n; j++)
        if (v[j]->mem || v[j]->held || v[j]->cols || (v[j]->open & lanes))
            return false;
    return true;
}

static size_t popcount(unsigned x)
{
    return (size_t)__builtin_popcount(x);
}

/* The early percentiles' share: what pass 2's buckets would have, the
 * first 256 Ki durations held whole (2 MiB a row: enough to place the
 * windows within a fraction of a percent). */
static void early_init(sc_file *sf, sc_row **v, size_t n)
{
    size_t cap = sc_pct_cap(sf, n);
    size_t prefix = cap / 2 < ((size_t)1 << 18) ? cap / 2 : (size_t)1 << 18;
    for (size_t j = 0; j < n; j++) {
        stream_early_init(&v[j]->early, prefix, cap);
        v[j]->early_on = true;
    }
}

bool sc_one_rank(sc_file *sf, sc_row **v, size_t n)
{
    if (!sc_one_fits(sf, v, n))
        return false;
    unsigned want = 0;
    for (size_t j = 0; j < n; j++)
        want |= v[j]->open;
    bool two = par_threads() > 1;
    size_t ncols = popcount(want);
    size_t cap = two ? sc_pf_chunk_len(stream_chunk_len(sf->budget, n, 2 * ncols))
                     : stream_chunk_len(sf->budget, n, ncols);
    one_src *x = calloc(n, sizeof *x);
    stream_src *srcs = calloc(n, sizeof *srcs);
    int64_t *excl = calloc(n, sizeof *excl);
    bool ok = x && srcs && excl;
    /* the rows' pass 1 set up before the reader thread checks and counts */
    for (size_t j = 0; ok && j < n; j++) {
        x[j] = (one_src){.sf = sf, .row = v[j], .j = j};
        sc_pass1_begin(v[j]);
        ok = stream_acc_init(&x[j].acc);
        srcs[j] = (stream_src){.reg = (uint32_t)j, .refill = one_refill, .ctx = &x[j]};
    }
    if (ok)
        early_init(sf, v, n);
    sc_pf *pf =
        ok && two ? sc_pf_start_stats(sf, v, n, want, cap, (sc_pf_stats){one_stats_pf, x}) : NULL;
    for (size_t j = 0; ok && j < n; j++) {
        x[j].pf = pf;
        ok = pf || sc_reader_init(&x[j].rd, sf, v[j], v[j]->open, cap, false);
    }
    stream_sweep_out out = {excl, 0, false, false};
    int rc = ok ? stream_sweep(srcs, n, &out) : -1;
    sc_pf_stop(pf);
    for (size_t j = 0; x && j < n; j++)
        ok = ok && !x[j].failed;
    ok = ok && rc == 0;
    for (size_t j = 0; x && j < n; j++) {
        if (ok)
            sc_pass1_end(v[j], &x[j].rd, &x[j].acc, 0);
        if (pf)
            memset(x[j].rd.buf, 0, sizeof x[j].rd.buf); /* the reader thread's */
        sc_reader_free(&x[j].rd);
        stream_acc_free(&x[j].acc);
    }
    free(x);
    free(srcs);
    if (!ok) {
        for (size_t j = 0; j < n; j++)
            sc_row_reset(v[j]);
        free(excl);
        /* Out of memory here may be this path's own buffers: the row-by-row
         * passes need less, and say so themselves when they run out. */
        return false;
    }
    sf->one = (sc_one){
        .ok = true, .v = v, .n = n, .excl = excl, .nlanes = out.nlanes, .capped = out.capped};
    return true;
}

void sc_one_free(sc_file *sf)
{
    free(sf->one.v);
    free(sf->one.excl);
    memset(&sf->one, 0, sizeof sf->one);
}
