/* stream_col: the out-of-core columnar load, columns and pass 1
 * (stream_col.h).  The checks are load_colrows.c's check_events, made on
 * chunks: each fault's first call is remembered and reported at the
 * verdict in the same order and words, so a streamed load keeps and drops
 * what the in-memory one does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model/budget.h"
#include "model/par.h"
#include "stream_col_internal.h"
#include "stream_pf.h"
#include "util/hash.h"
#include "util/hooks.h"
#include "util/text.h"

static const char *const sc_names[SC_NCOL] = {
    NULL, NULL, "gpu_durations", "call_ids", "parent_ids", "thread_ids", "task_ids", "await_ns"};

static const char *col_name(const lc_file *lf, int k)
{
    return k < 2 ? lf->tnames[k] : sc_names[k];
}

static uint64_t budget_left(const ld_ctx *c)
{
    const load_budget *b = c->rd.budget;
    if (!b || !b->limit)
        return (uint64_t)1 << 30;
    return b->limit > b->used ? b->limit - b->used : 0;
}

/* Bytes the profile's files really store (allocated blocks, not the apparent size). */
static uint64_t stored_bytes(const profile *p)
{
    uint64_t sum = 0;
    struct stat sb;
    for (size_t i = 0; i < (p->npaths ? p->npaths : 1); i++) {
        const char *path = p->npaths ? p->paths[i] : p->path;
        if (path && stat(path, &sb) == 0)
            sum += (uint64_t)sb.st_blocks * 512;
    }
    return sum;
}

/* Slack for a column's or a file's own metadata, so a tiny column never fails the ratio. */
#define SC_SLACK 4096

void sc_claim_add(sc_claim *cl, hid_t ds, uint64_t n, const char *path)
{
    if (!cl->ok)
        return;
    hid_t type = H5Dget_type(ds);
    size_t esize = type >= 0 ? H5Tget_size(type) : 0;
    if (type >= 0)
        H5Tclose(type);
    hid_t dcpl = H5Dget_create_plist(ds);
    int nf = dcpl >= 0 ? H5Pget_nfilters(dcpl) : -1;
    if (dcpl >= 0)
        H5Pclose(dcpl);
    H5Eclear2(H5E_DEFAULT);
    /* The stored sizes of its allocated chunks (or its contiguous block): unallocated
     * chunks, which hold only the fill value, count for nothing. */
    uint64_t storage = H5Dget_storage_size(ds);
    uint64_t need = n > UINT64_MAX / (esize ? esize : 1) ? UINT64_MAX : n * (esize ? esize : 1);
    /* Filtered (or unknown): the strongest built-in filter's ratio; plain: byte for byte. */
    uint64_t ratio = nf != 0 ? H5U_MAX_RATIO : 1;
    uint64_t can =
        storage > (UINT64_MAX - SC_SLACK) / ratio ? UINT64_MAX : storage * ratio + SC_SLACK;
    cl->storage = storage > UINT64_MAX - cl->storage ? UINT64_MAX : cl->storage + storage;
    if (need <= can)
        return;
    cl->ok = false;
    char a[32], b[32];
    budget_format(a, sizeof a, need);
    budget_format(b, sizeof b, storage);
    text_escape_buf(cl->why, sizeof cl->why, path);
    size_t len = strlen(cl->why);
    snprintf(
        cl->why + len, sizeof cl->why - len,
        " declares %s of calls in %s of stored %s, more than %llu:1 (a sparse or damaged file)", a,
        b, nf != 0 ? "compressed chunks" : "data", (unsigned long long)ratio);
}

bool sc_claim_check(const ld_ctx *c, sc_claim *cl)
{
    if (cl->ok && cl->storage > stored_bytes(c->p) + SC_SLACK) {
        /* The datasets' blocks are holes of a sparse file: they would stream zeros. */
        char a[32], b[32];
        budget_format(a, sizeof a, cl->storage);
        budget_format(b, sizeof b, stored_bytes(c->p));
        snprintf(cl->why, sizeof cl->why,
                 "its event columns claim %s of storage, the file occupies %s on disk (a sparse "
                 "file)",
                 a, b);
        cl->ok = false;
    }
    if (!cl->ok && c->rd.budget)
        snprintf(c->rd.budget->not_streamed, sizeof c->rd.budget->not_streamed, "%s", cl->why);
    return cl->ok;
}

bool sc_wanted(const ld_ctx *c, int how, hid_t f, const lc_file *lf, const h5u_list *el)
{
    if (how == LOAD_STREAM_OFF)
        return false;
    uint64_t calls = 0;
    for (size_t j = 0; j < lf->nkept; j++)
        calls += lf->cnt[lf->order[j]];
    unsigned ncols = 0;
    sc_claim cl = {.ok = true};
    for (int k = 0; k < SC_NCOL; k++) {
        if (h5u_list_find(el, col_name(lf, k)) < 0)
            continue;
        ncols++;
        char path[64];
        ev_path(path, sizeof path, col_name(lf, k));
        hid_t ds = H5Dopen2(f, path, H5P_DEFAULT);
        if (ds < 0) {
            H5Eclear2(H5E_DEFAULT);
            continue; /* sc_stage's open gives the warning */
        }
        sc_claim_add(&cl, ds, calls, path);
        H5Dclose(ds);
    }
    uint64_t bytes = calls * ncols * sizeof(int64_t);
    /* A sparse or lying file would only stream fill values: left to the budget, which
     * refuses it, with the reason. */
    if (!sc_claim_check(c, &cl))
        return false;
    if (how == LOAD_STREAM_FORCE)
        return true;
    const load_budget *b = c->rd.budget;
    if (b && b->limit && bytes > budget_left(c))
        return true;
    /* Ids and lanes are nested rank by rank or thread by thread, over more reads. */
    bool one_read = true;
    for (int k = SC_CALL; k <= SC_TASK; k++)
        one_read &= h5u_list_find(el, col_name(lf, k)) < 0;
    /* Many small rows stream in small chunks each: faster in memory. */
    bool big_rows = lf->nkept && bytes / lf->nkept >= sc_prefer_bytes() / SC_PREFER_ROWS;
    return how == LOAD_STREAM_PREFER && one_read && big_rows && bytes >= sc_prefer_bytes();
}

uint64_t sc_prefer_bytes(void)
{
    const char *env = hook_value(HOOK_STREAM_PREFER);
    return env ? strtoull(env, NULL, 10) : (uint64_t)64 << 20;
}

bool sg_prefer(const ld_ctx *c, const rank_data *rk)
{
    return !rk->has_threads && !rk->has_tasks && stored_bytes(c->p) >= sc_prefer_bytes();
}

/* ------------------------------------------------------------ columns */

/* Whether the dataset has filters (true when it cannot be told: the cached
 * plist says). */
static bool col_filtered(hid_t f, const char *path)
{
    hid_t ds = H5Dopen2(f, path, H5P_DEFAULT);
    hid_t dcpl = ds >= 0 ? H5Dget_create_plist(ds) : -1;
    int nf = dcpl >= 0 ? H5Pget_nfilters(dcpl) : -1;
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (ds >= 0)
        H5Dclose(ds);
    if (nf < 0)
        H5Eclear2(H5E_DEFAULT);
    return nf != 0;
}

/* read_event_column's checks, without the read. */
static sv_err open_col(ld_ctx *c, hid_t f, lc_file *lf, sc_file *sf, int k, bool *ok)
{
    char path[64], why[H5U_WHY_MAX];
    *ok = false;
    ev_path(path, sizeof path, col_name(lf, k));
    h5u_col *col = &sf->col[k];
    /* An unfiltered column opens with the load's plist (no chunk cache): libhdf5 then reads
     * each slice's chunks straight into the buffer instead of through the cache, a copy less.
     * The plist is only read at the open; the column keeps &sf->rd. */
    hid_t cached = sf->rd.dapl;
    if (!col_filtered(f, path))
        sf->rd.dapl = c->rd.dapl;
    h5u_status st = h5u_col_open(&sf->rd, f, path, col, why, sizeof why);
    sf->rd.dapl = cached;
    if (st == H5U_OK && (k >= 2 ? col->n != lf->nfull : col->n < lf->nev)) {
        snprintf(why, sizeof why, "%llu elements, %s has %llu", (unsigned long long)col->n,
                 lf->tnames[0], (unsigned long long)lf->nfull);
        st = H5U_BAD;
        h5u_col_close(col);
    }
    if (st == H5U_NOMEM)
        return SV_ERR_NOMEM;
    if (st == H5U_OK) {
        *ok = true;
        sf->open |= 1u << k;
    } else if (k >= SC_GPU) {
        ld_warn(c, NULL, "dataset", path, "%s; column dropped", why);
    } else {
        ld_warn(c, NULL, "dataset", path,
                "%s; no event data (regions with summary_statistics kept as summaries)", why);
    }
    return SV_OK;
}

sv_err sc_stage(ld_ctx *c, hid_t f, const h5u_list *el, lc_file *lf)
{
    sc_file *sf = calloc(1, sizeof *sf);
    if (!sf)
        return SV_ERR_NOMEM;
    lf->sc = sf;
    if (c->rd.budget)
        c->rd.budget->streamed = true;
    sf->c = c;
    sf->schema = c->schema;
    sf->budget = budget_left(c);
    sf->P = lf->ix.P;
    sf->rows = calloc(sf->P ? sf->P : 1, sizeof *sf->rows);
    sf->rd = c->rd;
    /* 4 MiB a column (libhdf5's share of the child's address space, not
     * the budget's): several chunks of h5py's size, one of 64 Ki calls. */
    sf->dapl = H5Pcreate(H5P_DATASET_ACCESS);
    if (sf->dapl < 0 || H5Pset_chunk_cache(sf->dapl, 12421, (size_t)4 << 20, 1.0) < 0) {
        H5Eclear2(H5E_DEFAULT);
        return SV_ERR_NOMEM;
    }
    sf->rd.dapl = sf->dapl;
    if (!sf->rows)
        return SV_ERR_NOMEM;
    /* Per-call JSON is no batch statistic: not kept. */
    h5u_strs_free(&lf->meta);
    memset(&lf->meta, 0, sizeof lf->meta);
    bool timing = true;
    for (int k = 0; k < SC_NCOL; k++) {
        if (h5u_list_find(el, col_name(lf, k)) < 0)
            continue;
        bool got = false;
        sv_err e = timing || k >= SC_GPU ? open_col(c, f, lf, sf, k, &got) : SV_OK;
        if (e)
            return e;
        if (k < 2 && !got)
            timing = false;
        if (k == SC_AWAIT)
            lf->has_await = got;
    }
    timing = timing && (sf->open & 3u) == 3u;
    lf->events = timing;
    for (size_t j = 0; j < lf->nkept; j++) {
        size_t i = lf->order[j];
        region *t = &lf->stage[i];
        t->has_event_data = timing;
        t->n = 0;
        if (!timing)
            continue;
        sc_row *row = calloc(1, sizeof *row);
        if (!row)
            return SV_ERR_NOMEM;
        row->off = lf->off[i];
        row->n = lf->cnt[i];
        row->open = sf->open;
        sf->rows[i] = row;
    }
    c->streamed = timing;
    return SV_OK;
}

/* ------------------------------------------------------------ reader */

bool sc_reader_init(sc_reader *rd, sc_file *sf, const sc_row *row, unsigned want, size_t cap,
                    bool dur)
{
    memset(rd, 0, sizeof *rd);
    rd->sf = sf;
    rd->row = row;
    rd->want = (want | 3u) & row->open;
    /* no bigger than the row: thousands of short rows merge at once */
    rd->cap = cap < row->n ? cap : (size_t)row->n;
    rd->cap = rd->cap ? rd->cap : 1;
    for (int k = 0; k < SC_NCOL; k++)
        if (rd->want & (1u << k))
            if (!(rd->buf[k] = malloc(rd->cap * sizeof(int64_t))))
                return false;
    return !dur || (rd->dur = malloc(rd->cap * sizeof(int64_t))) != NULL;
}

void sc_reader_free(sc_reader *rd)
{
    for (int k = 0; k < SC_NCOL; k++)
        free(rd->buf[k]);
    free(rd->dur);
    memset(rd, 0, sizeof *rd);
}

/* Schema 3: starts are a running sum of the deltas, ends start + duration
 * (load_colrows.c's decode_row across chunk edges). */
static void decode3(sc_reader *rd, size_t len)
{
    int64_t *s = rd->buf[SC_START], *e = rd->buf[SC_END], *d = rd->dur;
    int64_t run = rd->run;
    for (size_t i = 0; i < len && !rd->ovf; i++) {
        if (rd->pos + i == 0)
            run = s[0];
        else if (__builtin_add_overflow(run, s[i], &run))
            goto bad;
        s[i] = run;
        if (d) /* end - start, once decoded without overflow */
            d[i] = e[i];
        if (__builtin_add_overflow(run, e[i], &e[i]))
            goto bad;
        continue;
    bad:
        rd->ovf = true;
        rd->ovf_at = (size_t)(rd->pos + i);
    }
    rd->run = run;
}

int sc_reader_next(sc_reader *rd)
{
    uint64_t left = rd->row->n - rd->pos;
    size_t len = left < rd->cap ? (size_t)left : rd->cap;
    rd->len = 0;
    if (len == 0)
        return 0;
    char why[H5U_WHY_MAX];
    for (int k = 0; k < SC_NCOL; k++) {
        if (!(rd->want & (1u << k)))
            continue;
        if (rd->row->held && rd->row->held[k]) { /* a short row read once (stream_grp.c) */
            memcpy(rd->buf[k], rd->row->held[k] + rd->row->off + rd->pos, len * sizeof(int64_t));
            continue;
        }
        h5u_col *col = rd->row->cols ? &rd->row->cols[k] : &rd->sf->col[k];
        h5u_status st =
            h5u_col_read(col, rd->row->off + rd->pos, len, rd->buf[k], false, why, sizeof why);
        if (st != H5U_OK)
            return -1;
    }
    if (rd->sf->schema >= 3)
        decode3(rd, len);
    if (rd->dur && (rd->sf->schema < 3 || rd->ovf))
        for (size_t i = 0; i < len; i++)
            rd->dur[i] = rd->buf[SC_END][i] - rd->buf[SC_START][i];
    rd->pos += len;
    rd->len = len;
    ld_progress(rd->sf->c);
    return 1;
}

/* ------------------------------------------------------------ pass 1 */

/* Adds v to the row's set of distinct thread rows (open addressing). */
static bool thr_add(sc_row *row, int64_t v)
{
    if (2 * (row->nthr + 1) > row->thr_cap) {
        size_t cap = row->thr_cap ? 2 * row->thr_cap : 64;
        int64_t *t = malloc(cap * sizeof *t);
        if (!t)
            return false;
        for (size_t i = 0; i < cap; i++)
            t[i] = INT64_MIN;
        for (size_t i = 0; i < row->thr_cap; i++) {
            if (row->thr[i] == INT64_MIN)
                continue;
            size_t h = sv_hash_u64((uint64_t)row->thr[i]) & (cap - 1);
            while (t[h] != INT64_MIN)
                h = (h + 1) & (cap - 1);
            t[h] = row->thr[i];
        }
        free(row->thr);
        row->thr = t;
        row->thr_cap = cap;
    }
    size_t h = sv_hash_u64((uint64_t)v) & (row->thr_cap - 1);
    while (row->thr[h] != INT64_MIN && row->thr[h] != v)
        h = (h + 1) & (row->thr_cap - 1);
    if (row->thr[h] == INT64_MIN) {
        row->thr[h] = v;
        row->nthr++;
    }
    return true;
}

static bool check_lanes(sc_row *row, const sc_reader *rd, size_t len, const sc_file *sf)
{
    size_t base = (size_t)rd->pos - len;
    const int64_t *th = rd->buf[SC_THREAD], *tk = rd->buf[SC_TASK];
    for (size_t i = 0; th && !row->thr_bad && i < len; i++) {
        if (th[i] < sf->tlo || th[i] > sf->tmax) {
            row->thr_bad = true;
            row->thr_at = base + i;
            row->thr_v = th[i];
        } else if (!thr_add(row, th[i])) {
            return false;
        }
    }
    for (size_t i = 0; tk && !row->task_bad && i < len; i++)
        if (tk[i] < -1 || tk[i] > sf->kmax) {
            row->task_bad = true;
            row->task_at = base + i;
            row->task_v = tk[i];
        }
    return true;
}

static void check_chunk(sc_row *row, const sc_reader *rd, size_t len, int64_t *prev_s,
                        int64_t *prev_e)
{
    size_t base = (size_t)rd->pos - len;
    const int64_t *s = rd->buf[SC_START], *e = rd->buf[SC_END];
    for (size_t i = 0; !row->bad_end && i < len; i++)
        if (e[i] < s[i]) {
            row->bad_end = true;
            row->end_at = base + i;
            row->end_s = s[i];
            row->end_e = e[i];
        }
    for (size_t i = 0; row->in_order && i < len; i++) {
        if (base + i > 0 && (s[i] < *prev_s || (s[i] == *prev_s && e[i] > *prev_e)))
            row->in_order = false;
        *prev_s = s[i];
        *prev_e = e[i];
    }
    if (rd->buf[SC_GPU])
        for (size_t i = 0; i < len; i++) {
            int64_t g = rd->buf[SC_GPU][i];
            if (g >= 0) {
                row->gpu_any = true;
                row->gpu_tot = ck_add(row->gpu_tot, g);
                row->gpu_cnt++;
            }
        }
    const int64_t *a = rd->buf[SC_AWAIT];
    for (size_t i = 0; a && !row->bad_end && i < len; i++) {
        if (!row->aw_bad && (a[i] < 0 || (uint64_t)a[i] > (uint64_t)e[i] - (uint64_t)s[i])) {
            row->aw_bad = true;
            row->aw_at = base + i;
            row->aw_v = a[i];
            row->aw_dur = (int64_t)((uint64_t)e[i] - (uint64_t)s[i]);
        }
        row->aw_tot = ck_add(row->aw_tot, a[i]);
    }
    for (size_t i = 0; rd->buf[SC_CALL] && row->ids_all_m1 && i < len; i++)
        row->ids_all_m1 = rd->buf[SC_CALL][i] == -1;
}

/* Pass 1's work on one chunk (rd: the reader as the chunk left it);
 * false when out of memory. */
bool sc_pass1_check(sc_file *sf, sc_row *row, const sc_reader *rd, int64_t *ps, int64_t *pe)
{
    if (!rd->ovf)
        check_chunk(row, rd, rd->len, ps, pe);
    return check_lanes(row, rd, rd->len, sf);
}

bool sc_pass1_chunk(sc_file *sf, sc_row *row, const sc_reader *rd, stream_acc *acc, int64_t *ps,
                    int64_t *pe)
{
    if (!sc_pass1_check(sf, row, rd, ps, pe))
        return false;
    if (!rd->ovf && !row->bad_end)
        stream_acc_add(acc, rd->buf[SC_START], rd->buf[SC_END], rd->len);
    return true;
}

/* Pass 1's statistics of a chunk the checks kept and, when the row keeps
 * them, the durations near its percentiles. */
static void pass1_stats(sc_row *row, const sc_reader *rd, stream_acc *acc)
{
    stream_acc_add(acc, rd->buf[SC_START], rd->buf[SC_END], rd->len);
    if (row->early_on)
        stream_early_feed(&row->early, rd->buf[SC_START], rd->buf[SC_END], rd->len, acc->hist,
                          acc->n);
}

/* The same on this thread, checks first; false when out of memory. */
static bool pass1_feed(sc_file *sf, sc_row *row, const sc_reader *rd, stream_acc *acc, int64_t *ps,
                       int64_t *pe)
{
    if (!sc_pass1_check(sf, row, rd, ps, pe))
        return false;
    if (!rd->ovf && !row->bad_end)
        pass1_stats(row, rd, acc);
    return true;
}

/* A row of a few chunks or more is read on a second thread (stream_pf.h)
 * when there is one, into two buffers; cap: the reader's chunk. */
static bool pass1_two(const sc_row *row, size_t cap)
{
    return row->n > 2 * (uint64_t)cap && par_threads() > 1;
}

/* The row's chunks from the reader thread, which checked them (the row's
 * faults, threads and order are its to write until it stops); rd gets the
 * last one's state. */
static int pass1_pf(sc_pf *pf, sc_row *row, sc_reader *rd, stream_acc *acc)
{
    int rc = 1;
    while (rc == 1) {
        const sc_chunk *ch = sc_pf_next(pf, 0);
        memcpy(rd->buf, ch->buf, sizeof rd->buf);
        rd->len = ch->len;
        rd->pos = ch->pos;
        rd->ovf = ch->ovf;
        rd->ovf_at = ch->ovf_at;
        rc = ch->rc;
        if (rc == 1 && ch->nomem)
            rc = -2;
        else if (rc == 1 && !ch->skip)
            pass1_stats(row, rd, acc);
    }
    memset(rd->buf, 0, sizeof rd->buf); /* the buffers were the reader thread's */
    return rc;
}

void sc_pass1_begin(sc_row *row)
{
    row->in_order = true;
    row->ids_all_m1 = true;
    row->keep = row->open;
}

void sc_pass1_end(sc_row *row, const sc_reader *rd, const stream_acc *acc, int rc)
{
    row->ovf = rd->ovf;
    row->ovf_at = rd->ovf_at;
    if (rc == 0) {
        row->moments_ok = stream_acc_finish(acc, &row->st);
        if (row->n > 0 && !row->ovf && !row->bad_end)
            stream_pct_plan(&row->pct, acc->hist, row->n);
    }
}

sv_err sc_pass1_row(sc_file *sf, sc_row *row)
{
    size_t cap = stream_chunk_len(sf->budget, 1, SC_NCOL + 1);
    size_t cap2 = sc_pf_chunk_len(stream_chunk_len(sf->budget, 2, SC_NCOL + 1));
    sc_pf *pf = NULL;
    sc_pass1_begin(row); /* before the reader thread's checks */
    if (pass1_two(row, cap2)) {
        cap = cap2;
        pf = sc_pf_start(sf, &row, NULL, 1, row->open, cap, SC_PF_CHECK);
    }
    sc_reader rd;
    stream_acc acc;
    bool ok = pf || sc_reader_init(&rd, sf, row, row->open, cap, false);
    if (pf)
        memset(&rd, 0, sizeof rd);
    bool accok = stream_acc_init(&acc);
    int64_t ps = 0, pe = 0;
    int rc = ok && accok ? 1 : -2;
    if (pf && rc == 1)
        rc = pass1_pf(pf, row, &rd, &acc);
    while (!pf && rc == 1 && (rc = sc_reader_next(&rd)) == 1)
        if (!pass1_feed(sf, row, &rd, &acc, &ps, &pe))
            rc = -2;
    sc_pf_stop(pf);
    sc_pass1_end(row, &rd, &acc, rc);
    sc_reader_free(&rd);
    stream_acc_free(&acc);
    if (rc == -2)
        return SV_ERR_NOMEM;
    return rc < 0 ? SV_ERR_FORMAT : SV_OK;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The rank's streamed rows in byte order of their names, read once for
 * pass 1 and the sweep (stream_one.c); false when not (then pass 1 reads
 * row by row).  Names equal between rows leave it to pass 2. */
static bool one_rank(lc_file *lf, const size_t *rows, size_t n)
{
    sc_file *sf = lf->sc;
    sc_one_free(sf);
    if (sf->stats_later || n == 0)
        return false;
    const char **names = malloc(n * sizeof *names);
    sc_row **v = malloc(n * sizeof *v);
    size_t m = 0;
    bool ok = names && v;
    for (size_t j = 0; ok && j < n; j++)
        if (sf->rows[rows[j]])
            names[m++] = row_name(lf, rows[j]);
    if (ok && m)
        qsort(names, m, sizeof *names, cmp_name);
    for (size_t j = 1; ok && j < m; j++)
        ok = strcmp(names[j - 1], names[j]) != 0;
    /* The rows in that order: each name's row (names are distinct). */
    for (size_t k = 0; ok && k < m; k++)
        for (size_t j = 0; j < n; j++)
            if (sf->rows[rows[j]] && row_name(lf, rows[j]) == names[k])
                v[k] = sf->rows[rows[j]];
    bool done = ok && m && sc_one_rank(sf, v, m);
    if (!done)
        free(v);
    free(names);
    return done;
}

sv_err sc_rank_begin(ld_ctx *c, lc_file *lf, const rank_data *rk, const size_t *rows, size_t n)
{
    sc_file *sf = lf->sc;
    sf->tlo = -1;
    sf->tmax = rk->has_threads ? (int64_t)rk->threads.n - 1 : INT64_MAX;
    sf->kmax = rk->has_tasks ? (int64_t)rk->tasks.n - 1 : INT64_MAX;
    bool real_ids = false, any_ids = false;
    bool one = one_rank(lf, rows, n);
    /* the out-of-core viewer's pass may read the rank itself (load_sink.h pass) */
    const load_sink *s = !one && !lf->share ? ld_sink(c) : NULL;
    load_pass_at at = {LOAD_PASS_READ, (rank_data *)rk, rows, n, false};
    if (s && s->pass) {
        sv_err e = s->pass(s->pass_ctx, c, lf, &at);
        if (e)
            return e;
        one = at.read;
    }
    if (one && sf->rd.log_reads)
        fprintf(stderr, "scopeview: stream rank %d: pass 1 and the sweep in one read\n", rk->rank);
    for (size_t j = 0; !one && j < n; j++) {
        sc_row *row = sf->rows[rows[j]];
        if (!row)
            continue;
        sv_err e = sc_pass1_row(sf, row);
        if (e == SV_ERR_FORMAT) {
            char path[64];
            ld_warn(c, row_name(lf, rows[j]), "dataset", ev_path(path, sizeof path, lf->tnames[0]),
                    "read failed; region dropped");
            row->ovf = true; /* dropped at the verdict, silently */
            row->ovf_at = SIZE_MAX;
            continue;
        }
        if (e)
            return e;
    }
    for (size_t j = 0; j < n; j++) {
        sc_row *row = sf->rows[rows[j]];
        if (!row)
            continue;
        any_ids |= (row->keep & (1u << SC_CALL)) != 0;
        real_ids |= (row->keep & (1u << SC_CALL)) && !row->ids_all_m1;
    }
    /* load_colrows.c's drop_fake_ids: call ids -1 in every row are none. */
    for (size_t j = 0; any_ids && !real_ids && j < n; j++)
        if (sf->rows[rows[j]])
            sf->rows[rows[j]]->keep &= ~(1u << SC_CALL | 1u << SC_PARENT);
    return SV_OK;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The set as a sorted list (region_threads' answer). */
static void thr_list(sc_row *row)
{
    size_t k = 0;
    for (size_t i = 0; i < row->thr_cap; i++)
        if (row->thr[i] != INT64_MIN)
            row->thr[k++] = row->thr[i];
    qsort(row->thr, k, sizeof *row->thr, cmp_i64);
    row->nthr = k;
}

/* A streamed row's results into its region: no calls kept, the
 * statistics, which optional columns it had, its threads (schema 1's
 * sg_load_columns too). */
void sc_row_to_region(sc_row *row, region *t)
{
    t->streamed = true;
    t->n = 0;
    t->st = row->st;
    t->stream_cols = 0;
    if (row->keep & (1u << SC_GPU)) {
        t->stream_cols |= SV_SCOL_GPU;
        t->st.gpu_total_ns = row->gpu_tot;
        t->st.gpu_count = row->gpu_cnt;
    }
    if (row->keep & (1u << SC_AWAIT)) {
        t->stream_cols |= SV_SCOL_AWAIT;
        t->st.await_total_ns = row->aw_tot;
    }
    if (row->keep & (1u << SC_TASK))
        t->stream_cols |= SV_SCOL_TASKS;
    if ((row->keep & (1u << SC_CALL)) && (row->keep & (1u << SC_PARENT)))
        t->stream_cols |= SV_SCOL_IDS;
    if (row->keep & (1u << SC_THREAD)) {
        t->stream_cols |= SV_SCOL_THREADS;
        thr_list(row);
        t->stream_threads = row->thr;
        t->stream_nthreads = row->nthr;
        row->thr = NULL;
    }
}

bool sc_row_check(ld_ctx *c, lc_file *lf, size_t i)
{
    sc_row *row = lf->sc->rows[i];
    region *t = &lf->stage[i];
    const char *name = row_name(lf, i);
    char item[64];
    if (!row)
        return true;
    if (row->ovf) {
        if (row->ovf_at != SIZE_MAX)
            ld_warn(c, name, "dataset", ev_path(item, sizeof item, lf->tnames[0]),
                    "start time overflows at call %zu; region dropped", row->ovf_at);
        return false;
    }
    if (row->bad_end) {
        ld_warn(c, name, "dataset", ev_path(item, sizeof item, lf->tnames[1]),
                "end < start at call %zu (start %lld, end %lld); region dropped", row->end_at,
                (long long)row->end_s, (long long)row->end_e);
        return false;
    }
    if (!row->gpu_any)
        row->keep &= ~(1u << SC_GPU); /* -1 everywhere: no GPU timing */
    if (!(row->keep & (1u << SC_CALL)))
        row->keep &= ~(1u << SC_PARENT);
    if ((row->keep & (1u << SC_THREAD)) && row->thr_bad) {
        rank_data *rk = ld_rank(c, lf->ix.rank[i]);
        ld_warn(c, name, "dataset", "events/thread_ids",
                "thread %lld at call %zu is outside the thread table of rank %d (%zu rows); "
                "column dropped",
                (long long)row->thr_v, row->thr_at, rk->rank, rk->has_threads ? rk->threads.n : 0);
        row->keep &= ~(1u << SC_THREAD);
    }
    if ((row->keep & (1u << SC_TASK)) && row->task_bad) {
        rank_data *rk = ld_rank(c, lf->ix.rank[i]);
        ld_warn(c, name, "dataset", "events/task_ids",
                "task %lld at call %zu is outside the task table of rank %d (%zu rows); "
                "column dropped",
                (long long)row->task_v, row->task_at, rk->rank, rk->has_tasks ? rk->tasks.n : 0);
        row->keep &= ~(1u << SC_TASK);
    }
    if ((row->keep & (1u << SC_AWAIT)) && row->aw_bad) {
        ld_warn(c, name, "dataset", "events/await_ns",
                "%lld at call %zu is outside [0, duration]; column dropped", (long long)row->aw_v,
                row->aw_at);
        row->keep &= ~(1u << SC_AWAIT);
    }
    sc_row_to_region(row, t);
    return true;
}

void sc_row_committed(lc_file *lf, size_t i, region *r)
{
    if (lf->sc && lf->sc->rows[i])
        lf->sc->rows[i]->r = r;
}

void sc_free(lc_file *lf)
{
    sc_file *sf = lf->sc;
    if (!sf)
        return;
    for (int k = 0; k < SC_NCOL; k++)
        if (sf->open & (1u << k))
            h5u_col_close(&sf->col[k]);
    if (sf->dapl > 0)
        H5Pclose(sf->dapl);
    for (size_t i = 0; sf->rows && i < sf->P; i++)
        if (sf->rows[i]) {
            stream_pct_free(&sf->rows[i]->pct);
            stream_early_free(&sf->rows[i]->early);
            free(sf->rows[i]->thr);
            free(sf->rows[i]);
        }
    free(sf->rows);
    sc_one_free(sf);
    free(sf);
    lf->sc = NULL;
}
