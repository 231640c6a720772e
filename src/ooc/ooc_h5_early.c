/* ooc_h5_early: the out-of-core pass's ranks swept as the load commits
 * them (ooc_h5.h, load_sink.h pass), before the file's end.
 *
 * Rank k's pass 1 is done at its commit, so its verdicts, counts, span and
 * threads are known then, and the overview's parts come while the later
 * ranks are still to be read.  A rank without call ids, lane columns or
 * rows held in memory is read here before its pass 1, once: pass 1's
 * checks and statistics on each chunk the sweep takes (the load then
 * skips its own pass 1), checked at the commit against the rank the load
 * made (its rows, region indices and count, every row in order).  What
 * the sweep needs of the whole file beforehand is guessed and checked at
 * the file's end: the span of the calls the map keeps (the sinks' bins
 * and slices are cut on it) from the file's stored summary statistics,
 * the map's grid grown rank by rank to the span and lanes seen
 * (ooc_map_regrid: exact, and equal at the end to the grid of the whole
 * file when the guess was right), the number of ranks and calls from the
 * file's index.  A wrong guess, a rank out of its index's place (a rank
 * number other than its index), a rank read here that does not hold or
 * an export's hook that wants the whole file's time zero (ooc_sink_hook
 * early unset) leaves the
 * ranks to the file's end, and when the scan holds calls it should not
 * the file's end sweeps them all again: the products are always those of
 * the pass over the whole file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/filter.h"
#include "ooc_h5_internal.h"

typedef struct ooc_early {
    hpass hp;       /* the meter and the parts' ticks, across ranks */
    bool off;       /* the ranks from `done` on are the file end's */
    bool started;   /* the scan initialised */
    size_t done;    /* ranks 0..done-1 swept, rank k numbered k */
    int64_t g0, g1; /* the guessed span, the sinks' */
    bool redo;      /* a read stopped in a rank: its calls are in part in the scan */
    /* The rank read with pass 1 (rank `done`), checked once committed:
     * its rows, their region indices and the rank's region count. */
    bool reading;
    hrank rd;
    size_t nregs;
    const char **rd_names; /* its region names by region index */
    /* An early hook's (ooc_sink_hook.early): the guessed time zero, checked
     * at the file's end, and the rank being swept, which its view names. */
    bool has_zero;
    int64_t zero;
    const hrank *cur;
} ooc_early;

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The file's ranks as commit_all (load_columnar.c) makes them: the index's,
 * and those below max(mpi_size, top rank + 1); 0 when not known so. */
static size_t early_nranks(const ld_ctx *c, const lc_file *lf)
{
    if (c->rank_override >= 0 || c->mpi_rank >= 0 || lf->nkept == 0)
        return 0;
    int *v = malloc(lf->nkept * sizeof *v);
    if (!v)
        return 0;
    for (size_t j = 0; j < lf->nkept; j++)
        v[j] = lf->ix.rank[lf->order[j]];
    qsort(v, lf->nkept, sizeof *v, cmp_int);
    int64_t top = (int64_t)v[lf->nkept - 1] + 1;
    int64_t want = c->mpi_size > top ? c->mpi_size : top;
    want = want < 65536 ? want : 65536;
    size_t n = (size_t)want;
    for (size_t j = 0; j < lf->nkept; j++) /* distinct ranks outside [0, want) */
        n += (j == 0 || v[j] != v[j - 1]) && (v[j] < 0 || v[j] >= want);
    free(v);
    return n;
}

/* The guess: the stored first start and last end of every row with calls
 * the map keeps; false without them. */
static bool early_guess(const ooc_h5 *h, const lc_file *lf, int64_t *g0, int64_t *g1)
{
    *g0 = INT64_MAX;
    *g1 = INT64_MIN;
    for (size_t j = 0; lf->sum && j < lf->nkept; j++) {
        size_t i = lf->order[j];
        const sc_row *row = lf->sc->rows ? lf->sc->rows[i] : NULL;
        const region_filter *f = h->filter;
        if (!row || !row->n ||
            (f && !(filter_match_rank(f, lf->ix.rank[i]) && filter_match_name(f, row_name(lf, i)))))
            continue;
        *g0 = lf->sum[i].start_minimum < *g0 ? lf->sum[i].start_minimum : *g0;
        *g1 = lf->sum[i].end_maximum > *g1 ? lf->sum[i].end_maximum : *g1;
    }
    return *g0 <= *g1;
}

/* The hook's time zero as the file's stored statistics give it: the least
 * first start of the rows with calls (attach_hook's, checked against it). */
static bool early_zero(const lc_file *lf, int64_t *zero)
{
    bool has = false;
    *zero = 0;
    for (size_t j = 0; lf->sum && j < lf->nkept; j++) {
        size_t i = lf->order[j];
        const sc_row *row = lf->sc->rows ? lf->sc->rows[i] : NULL;
        if (!row || !row->n)
            continue;
        *zero = !has || lf->sum[i].start_minimum < *zero ? lf->sum[i].start_minimum : *zero;
        has = true;
    }
    return has;
}

static ooc_early *early_new(ooc_h5 *h, ld_ctx *c, lc_file *lf)
{
    ooc_early *y = calloc(1, sizeof *y);
    if (!y)
        return NULL;
    y->hp = (hpass){h, c, lf->sc, NULL, 0, {0}, 0};
    y->hp.nr = early_nranks(c, lf);
    y->hp.m.c = c;
    for (size_t j = 0; lf->sc->rows && j < lf->nkept; j++) {
        const sc_row *row = lf->sc->rows[lf->order[j]];
        y->hp.m.total += row ? row->n : 0;
    }
    y->off = (h->hook && !h->hook->early) || lf->share || !y->hp.nr ||
             !early_guess(h, lf, &y->g0, &y->g1);
    y->has_zero = early_zero(lf, &y->zero);
    return y;
}

/* Rank k's rows as gather finds them, its regions in the skeleton's order. */
static sv_err early_gather(const ooc_early *y, rank_data *rk, const size_t *rows, size_t n,
                           hrank *hr)
{
    size_t nr = rk->nregions;
    *hr = (hrank){0};
    if (!oh_hrank_init(hr, rk))
        return SV_ERR_NOMEM;
    for (size_t j = 0; j < n; j++) {
        sc_row *row = y->hp.sf->rows ? y->hp.sf->rows[rows[j]] : NULL;
        size_t ri = row && row->r && row->n ? oh_reg_index(hr, row->r->name) : SIZE_MAX;
        if (ri == SIZE_MAX || hr->regs[ri] != row->r || hr->nrows == nr)
            continue; /* dropped at the verdict: not in the skeleton */
        hr->rows[hr->nrows] = row;
        hr->reg[hr->nrows++] = (uint32_t)ri;
        hr->calls += row->n;
    }
    return SV_OK;
}

/* The scan's span widened to [t0, t1] (none when t0 > t1), the map
 * regridded to it and the scan's lane hint. */
bool oh_scan_grow(ooc_scan *sc, int64_t t0, int64_t t1)
{
    if (t0 <= t1) {
        sc->t_min = t0 < sc->t_min ? t0 : sc->t_min;
        sc->t_max = t1 > sc->t_max ? t1 : sc->t_max;
    }
    return ooc_map_regrid(&sc->map, sc->t_min, sc->t_max, sc->hint, sc->cells_max);
}

/* The hook's view of the rank being swept (ooc_early.cur), rank k numbered
 * k: a rank read with pass 1 by its rows' names (read_gather), a committed
 * one by its regions sorted by name (early_gather), the indices the sweep
 * gives either way. */
static int early_rank_no(const void *ctx, size_t k)
{
    (void)ctx;
    return (int)k;
}

static size_t early_nregs(const void *ctx, size_t k)
{
    (void)k;
    const ooc_early *y = ctx;
    return y->cur->read ? y->nregs : y->cur->rk->nregions;
}

static const char *early_reg_name(const void *ctx, size_t k, uint32_t j)
{
    (void)k;
    const ooc_early *y = ctx;
    return y->cur->read ? y->rd_names[j] : y->cur->regs[j]->name;
}

/* The caller's sink (ooc_sink_hook.early), with the guessed time zero. */
static bool early_hook(ooc_early *y)
{
    ooc_h5 *h = y->hp.h;
    const ooc_sink_hook *hk = h->hook;
    ooc_sweep_view v = {y,           y->hp.nr, early_rank_no, early_nregs, early_reg_name,
                        y->has_zero, y->zero,  &h->sc.map};
    return !hk || hk->attach(hk->ctx, &h->sc, &v);
}

/* The scan's grid over the guess and the ranks' spans so far, with their
 * lanes; the sinks attached on the guess. */
static bool early_grid(ooc_early *y, int64_t t0, int64_t t1, size_t nl)
{
    ooc_h5 *h = y->hp.h;
    ooc_scan *sc = &h->sc;
    if (!y->started) {
        y->started = true;
        if (!ooc_scan_init(sc, y->g0, y->g1, nl, h->map_cells) ||
            !ooc_sinks_attach(sc, h->budget) || !early_hook(y))
            return false;
        if (h->parts.on) {
            sc->tick = oh_parts_tick;
            sc->tick_ctx = &y->hp;
        }
    } else {
        sc->hint += nl;
    }
    return oh_scan_grow(sc, t0, t1);
}

void oh_hrank_free(hrank *hr)
{
    free(hr->regs);
    free(hr->rows);
    free(hr->reg);
    free(hr->names);
    memset(hr, 0, sizeof *hr);
}

/* Whether the rank read with pass 1 is the one the load committed: the
 * same rows, region indices and region count, every row in order. */
static bool read_held(const ooc_early *y, const hrank *hr)
{
    const hrank *a = &y->rd;
    bool ok = hr->nrows == a->nrows && hr->rk->nregions == y->nregs && hr->mode == M_SWEEP;
    for (size_t j = 0; ok && j < hr->nrows; j++)
        ok = hr->rows[j] == a->rows[j] && hr->reg[j] == a->reg[j];
    return ok;
}

/* The rank read with pass 1, committed: kept in the scan, or the scan
 * left to the file's end. */
/* Rank k's read stopped or did not hold: what the parts drew of it is
 * taken back (calls_done: those before it), the ranks left to the file's end. */
static void read_drop(ooc_early *y, size_t k, uint64_t before)
{
    ooc_part_src part = {&y->hp.h->sc, k, y->hp.nr, false, 0, before, y->hp.m.total};
    ooc_parts_withdraw(&y->hp.h->parts, &part);
    y->redo = y->off = true;
}

static sv_err read_commit(ooc_early *y, hrank *hr, size_t k)
{
    y->reading = false;
    oh_choose(&y->hp, hr);
    bool ok = read_held(y, hr);
    uint64_t before = y->hp.m.done - y->rd.calls;
    oh_hrank_free(&y->rd);
    free(y->rd_names);
    y->rd_names = NULL;
    if (!ok) {
        read_drop(y, k, before);
        return SV_OK;
    }
    y->done++;
    return oh_rank_swept(&y->hp, hr, k, before);
}

sv_err oh_early_rank(ooc_h5 *h, ld_ctx *c, lc_file *lf, const rank_data *crk, const size_t *rows,
                     size_t n)
{
    if (h->ran)
        return SV_OK;
    if (!h->early && !(h->early = early_new(h, c, lf)))
        return SV_ERR_NOMEM;
    ooc_early *y = h->early;
    size_t k = (size_t)(crk - c->p->ranks);
    if (!y->off && (k != y->done || crk->rank != (int)k || k >= y->hp.nr))
        y->off = true;
    if (y->off)
        return SV_OK;
    hrank hr;
    int64_t t0, t1;
    size_t nl;
    sv_err e = early_gather(y, &c->p->ranks[k], rows, n, &hr);
    if (!e && y->reading) {
        e = read_commit(y, &hr, k);
        oh_hrank_free(&hr);
        return e;
    }
    if (!e)
        e = oh_plan_rank(&y->hp, &hr, &t0, &t1, &nl);
    if (!e && !early_grid(y, t0, t1, nl))
        e = SV_ERR_NOMEM;
    y->cur = &hr;
    if (!e)
        e = oh_sweep_rank(&y->hp, &hr, k);
    y->cur = NULL;
    oh_hrank_free(&hr);
    y->done += !e;
    return e;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Rank k's rows as early_gather will find them once committed, each
 * region index its name's place among the rank's row names (every row
 * committed: read_held checks it); false on NOMEM. */
static bool read_gather(ooc_early *y, const lc_file *lf, rank_data *rk, const size_t *rows,
                        size_t n, hrank *hr)
{
    *hr = (hrank){.rk = rk, .read = true, .mode = M_SWEEP};
    const char **sorted = malloc((n ? n : 1) * sizeof *sorted);
    hr->names = malloc((n ? n : 1) * sizeof *hr->names);
    hr->rows = malloc((n ? n : 1) * sizeof *hr->rows);
    hr->reg = malloc((n ? n : 1) * sizeof *hr->reg);
    bool ok = sorted && hr->names && hr->rows && hr->reg;
    for (size_t j = 0; ok && j < n; j++)
        sorted[j] = row_name(lf, rows[j]);
    if (ok && n)
        qsort(sorted, n, sizeof *sorted, cmp_str);
    for (size_t j = 0; ok && j < n; j++) {
        sc_row *row = y->hp.sf->rows ? y->hp.sf->rows[rows[j]] : NULL;
        if (!row || !row->n)
            continue;
        const char *nm = row_name(lf, rows[j]);
        const char **at = bsearch(&nm, sorted, n, sizeof *sorted, cmp_str);
        hr->names[hr->nrows] = nm;
        hr->rows[hr->nrows] = row;
        hr->reg[hr->nrows++] = (uint32_t)(at - sorted);
        hr->calls += row->n;
    }
    y->nregs = n;
    free(y->rd_names);
    y->rd_names = sorted; /* the hook's view of the rank (early_reg_name) */
    return ok;
}

/* Whether rank k's rows may be read here with pass 1: those the sweep
 * takes whole if in order (sc_one_fits), each with its own name. */
static bool read_fits(const ooc_early *y, const lc_file *lf, const size_t *rows, size_t n)
{
    sc_row **v = malloc((n ? n : 1) * sizeof *v);
    size_t m = 0;
    for (size_t j = 0; v && j < n; j++)
        if (y->hp.sf->rows && y->hp.sf->rows[rows[j]])
            v[m++] = y->hp.sf->rows[rows[j]];
    bool ok = v && m && sc_one_fits(y->hp.sf, v, m);
    const char **names = ok ? malloc(n * sizeof *names) : NULL;
    for (size_t j = 0; names && j < n; j++)
        names[j] = row_name(lf, rows[j]);
    if (names)
        qsort(names, n, sizeof *names, cmp_str);
    for (size_t j = 1; names && ok && j < n; j++)
        ok = strcmp(names[j - 1], names[j]) != 0;
    ok = ok && names;
    free(names);
    free(v);
    return ok;
}

/* Before rank k's pass 1 (load_sink.h LOAD_PASS_READ): the rank read here
 * once, pass 1 on each chunk the sweep takes, when it fits; at->read
 * then.  A row out of order or a failed read gives the rows back to the
 * load as staged and the scan to the file's end. */
sv_err oh_early_read(ooc_h5 *h, ld_ctx *c, lc_file *lf, load_pass_at *at)
{
    if (h->ran)
        return SV_OK;
    if (!h->early && !(h->early = early_new(h, c, lf)))
        return SV_ERR_NOMEM;
    ooc_early *y = h->early;
    size_t k = (size_t)(at->rk - c->p->ranks);
    if (y->off || k != y->done || at->rk->rank != (int)k || k >= y->hp.nr ||
        !read_fits(y, lf, at->rows, at->n))
        return SV_OK;
    hrank *hr = &y->rd;
    if (!read_gather(y, lf, at->rk, at->rows, at->n, hr)) {
        oh_hrank_free(hr);
        return SV_ERR_NOMEM;
    }
    bool kept = false;
    for (size_t j = 0; j < hr->nrows; j++)
        kept |= oh_row_kept(&y->hp, hr, j);
    bool whole = false;
    uint64_t before = y->hp.m.done;
    y->hp.rank_before = before;
    oh_meter_rank(&y->hp.m, k, y->hp.nr);
    oh_test_stop(&y->hp, k);
    /* the rank's span comes with its calls: the grid is the guess's so far */
    sv_err e = early_grid(y, INT64_MAX, INT64_MIN, kept) ? SV_OK : SV_ERR_NOMEM;
    y->cur = hr;
    if (!e)
        e = oh_stream_rank(&y->hp, hr, k, &whole);
    y->cur = NULL;
    if (e || !whole) {
        for (size_t j = 0; j < hr->nrows; j++)
            sc_row_reset(hr->rows[j]);
        oh_hrank_free(hr);
        free(y->rd_names);
        y->rd_names = NULL;
        read_drop(y, k, before);
        y->hp.m.done = before;
        return e;
    }
    for (size_t j = 0; !e && j < at->n; j++) { /* rows without calls: nothing to sweep */
        sc_row *row = y->hp.sf->rows[at->rows[j]];
        if (row && !row->n)
            e = sc_pass1_row(y->hp.sf, row);
    }
    y->hp.m.done = before + hr->calls;
    y->reading = at->read = !e;
    return e;
}

/* How many ranks the file's end leaves as swept early: every early one when
 * the guess was the span and the ranks kept their places, else none (the
 * scan emptied for a pass over them all). */
size_t oh_early_kept(ooc_h5 *h, const hpass *hp)
{
    ooc_early *y = h->early;
    if (!y || (!y->done && !y->redo))
        return 0;
    int64_t t0, t1;
    oh_span_of(hp, &t0, &t1);
    bool ok = !y->redo && t0 == y->g0 && t1 == y->g1 && y->done <= hp->nr && hp->nr == y->hp.nr;
    for (size_t k = 0; ok && k < y->done; k++)
        ok = hp->r[k].rk->rank == (int)k;
    if (ok && h->hook) { /* its sink has the early view: every rank, the zero guessed right */
        int64_t zero;
        bool has = oh_zero_of(hp, &zero);
        ok = y->done == hp->nr && has == y->has_zero && (!has || zero == y->zero);
    }
    if (ok)
        return y->done;
    ooc_scan_free(&h->sc);
    h->nnw = 0;
    return 0;
}

void oh_early_free(ooc_early *y)
{
    if (y) {
        oh_hrank_free(&y->rd);
        free(y->rd_names);
    }
    free(y);
}
