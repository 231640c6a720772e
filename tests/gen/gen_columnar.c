/* gen_columnar: the columnar (schema 2/3), aggregate and C-API writer (see
 * gen_columnar.h).  Each column is built whole in memory and written with one
 * H5Dwrite. */
#include "gen_columnar.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <lzf.h>
#include <zstd.h>

const char *const gc_opt_names[GC_NOPT] = {"gpu_durations", "call_ids", "parent_ids",
                                           "thread_ids",    "task_ids", "await_ns"};
static const int64_t gc_opt_fill[GC_NOPT] = {-1, -1, -1, -1, -1, 0};

#define GC_LZF_FILTER 40000
#define GC_INDEX_CHUNK 256

static void ck(int64_t rc, const char *what, const char *name)
{
    if (rc < 0)
        gen_die("%s '%s' failed", what, name);
}

/* --------------------------------------------- a filter no reader has */

/* A pass-through filter under an id of the unregistered range (32768 and
 * up) that no plugin provides: the file records it as mandatory, so no
 * reader can read the column, which is what the fixture is for (lzf and
 * zstd, which a reader may well have, would not do). */
static size_t gc_passthrough(unsigned flags, size_t cd_nelmts, const unsigned cd_values[],
                             size_t nbytes, size_t *buf_size, void **buf)
{
    (void)flags, (void)cd_nelmts, (void)cd_values, (void)buf_size, (void)buf;
    return nbytes;
}

static void gc_register_lzf(void)
{
    if (H5Zfilter_avail(GC_LZF_FILTER) > 0)
        return;
    static const H5Z_class2_t cls = {H5Z_CLASS_T_VERS, GC_LZF_FILTER, 1,    1,
                                     "private",        NULL,          NULL, gc_passthrough};
    ck(H5Zregister(&cls), "registering filter", "lzf");
}

/* ------------------------------------------------------------ zstd */

/* hdf5plugin's zstd filter (32015): one frame per chunk, level 3. */
static size_t gc_zstd(unsigned flags, size_t cd_nelmts, const unsigned cd_values[], size_t nbytes,
                      size_t *buf_size, void **buf)
{
    (void)cd_nelmts, (void)cd_values;
    size_t cap = (flags & H5Z_FLAG_REVERSE) ? (size_t)ZSTD_getFrameContentSize(*buf, nbytes)
                                            : ZSTD_compressBound(nbytes);
    if (cap == (size_t)ZSTD_CONTENTSIZE_ERROR || cap == (size_t)ZSTD_CONTENTSIZE_UNKNOWN)
        return 0;
    void *out = H5allocate_memory(cap ? cap : 1, false);
    if (!out)
        return 0;
    size_t n = (flags & H5Z_FLAG_REVERSE) ? ZSTD_decompress(out, cap, *buf, nbytes)
                                          : ZSTD_compress(out, cap, *buf, nbytes, 3);
    if (ZSTD_isError(n)) {
        H5free_memory(out);
        return 0;
    }
    H5free_memory(*buf);
    *buf = out;
    *buf_size = cap;
    return n;
}

/* h5py's lzf filter (32000): one lzf block per chunk; stored raw (the
 * filter optional, as h5py's) when lzf would not shrink it. */
static size_t gc_lzf(unsigned flags, size_t cd_nelmts, const unsigned cd_values[], size_t nbytes,
                     size_t *buf_size, void **buf)
{
    (void)cd_nelmts, (void)cd_values;
    size_t cap = (flags & H5Z_FLAG_REVERSE) ? *buf_size * 64 : nbytes;
    void *out = H5allocate_memory(cap ? cap : 1, false);
    if (!out)
        return 0;
    unsigned n = (flags & H5Z_FLAG_REVERSE)
                     ? lzf_decompress(*buf, (unsigned)nbytes, out, (unsigned)cap)
                     : lzf_compress(*buf, (unsigned)nbytes, out, (unsigned)cap);
    if (n == 0) {
        H5free_memory(out);
        return 0;
    }
    H5free_memory(*buf);
    *buf = out;
    *buf_size = cap;
    return n;
}

/* The generator's own encoders: it writes the files, the plugins are the reader's business. */
static void gc_ready_filter(unsigned id)
{
    static const H5Z_class2_t zstd = {H5Z_CLASS_T_VERS, 32015, 1, 1, "zstd", NULL, NULL, gc_zstd};
    static const H5Z_class2_t lzf = {H5Z_CLASS_T_VERS, 32000, 1, 1, "lzf", NULL, NULL, gc_lzf};
    ck(H5Zregister(id == 32015 ? &zstd : &lzf), "registering filter", id == 32015 ? "zstd" : "lzf");
}

/* ------------------------------------------------------------ datasets */

typedef enum { ST_INDEX, ST_EVENT, ST_TABLE } gc_storage;

typedef struct gc_ctx {
    const gc_opts *o;
    size_t nevents;
} gc_ctx;

static hid_t gc_dcpl(const gc_ctx *c, gc_storage st, hsize_t n, const char *name, bool *chunked)
{
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    ck(dcpl, "creating property list for", name);
    ck(H5Pset_obj_track_times(dcpl, 0), "disabling timestamps of", name);
    bool lzf = st == ST_EVENT && c->o->lzf_col && strcmp(c->o->lzf_col, name) == 0;
    bool deflate = st == ST_EVENT && c->o->deflate > 0;
    bool filter = st == ST_EVENT && c->o->event_filter;
    *chunked = (c->o->chunked && st != ST_TABLE) || deflate || lzf || filter;
    if (!*chunked)
        return dcpl;
    hsize_t chunk = st == ST_INDEX ? GC_INDEX_CHUNK : c->o->chunk ? c->o->chunk : 65536;
    if (chunk > n && n > 0)
        chunk = n;
    ck(H5Pset_chunk(dcpl, 1, &chunk), "setting chunk size of", name);
    if (((deflate || lzf) && c->o->shuffle) || filter)
        ck(H5Pset_shuffle(dcpl), "setting shuffle on", name);
    if (filter) {
        gc_ready_filter(c->o->event_filter);
        ck(H5Pset_filter(dcpl, c->o->event_filter, H5Z_FLAG_OPTIONAL, 0, NULL),
           "setting the filter on", name);
    }
    if (deflate)
        ck(H5Pset_deflate(dcpl, (unsigned)c->o->deflate), "setting deflate on", name);
    if (lzf) {
        gc_register_lzf();
        ck(H5Pset_filter(dcpl, GC_LZF_FILTER, H5Z_FLAG_MANDATORY, 0, NULL), "setting lzf on", name);
    }
    return dcpl;
}

static void gc_dataset(const gc_ctx *c, hid_t loc, const char *name, gc_storage st, hid_t ftype,
                       hid_t mtype, size_t n, const void *buf)
{
    hsize_t dim = n, maxdim = n;
    bool chunked = false;
    hid_t dcpl = gc_dcpl(c, st, dim, name, &chunked);
    if (chunked && !c->o->fixed_size)
        maxdim = H5S_UNLIMITED;
    hid_t space = H5Screate_simple(1, &dim, &maxdim);
    ck(space, "creating dataspace for", name);
    hid_t d = H5Dcreate2(loc, name, ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    ck(d, "creating dataset", name);
    if (n)
        ck(H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf), "writing dataset", name);
    ck(H5Dclose(d), "closing dataset", name);
    ck(H5Sclose(space), "closing dataspace of", name);
    ck(H5Pclose(dcpl), "closing property list of", name);
}

static void gc_i64(const gc_ctx *c, hid_t loc, const char *name, gc_storage st, const int64_t *v,
                   size_t n)
{
    gc_dataset(c, loc, name, st, H5T_STD_I64LE, H5T_NATIVE_INT64, n, v);
}

static void gc_u64(const gc_ctx *c, hid_t loc, const char *name, gc_storage st, const uint64_t *v,
                   size_t n)
{
    gc_dataset(c, loc, name, st, H5T_STD_U64LE, H5T_NATIVE_UINT64, n, v);
}

/* Region ids and ranks: uint32 as upstream, or uint64 (wide_index). */
static void gc_idx(const gc_ctx *c, hid_t loc, const char *name, const uint64_t *v, size_t n)
{
    hid_t ft = c->o->wide_index ? H5T_STD_U64LE : H5T_STD_U32LE;
    gc_dataset(c, loc, name, ST_INDEX, ft, H5T_NATIVE_UINT64, n, v);
}

/* Strings: vlen UTF-8, or fixed-length UTF-8 NULLPAD as wide as the longest. */
static void gc_strs(const gc_ctx *c, hid_t loc, const char *name, gc_storage st,
                    const char *const *v, size_t n)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    ck(t, "copying string type for", name);
    ck(H5Tset_cset(t, H5T_CSET_UTF8), "setting cset of", name);
    if (!c->o->fixed_strings) {
        ck(H5Tset_size(t, H5T_VARIABLE), "sizing", name);
        gc_dataset(c, loc, name, st, t, t, n, v);
        gen_close(t);
        return;
    }
    size_t width = 1;
    for (size_t i = 0; i < n; i++)
        if (strlen(v[i]) > width)
            width = strlen(v[i]);
    ck(H5Tset_size(t, width), "sizing", name);
    ck(H5Tset_strpad(t, H5T_STR_NULLPAD), "setting padding of", name);
    char *buf = gen_pack_fixed(v, n, width, '\0');
    gc_dataset(c, loc, name, st, t, t, n, buf);
    free(buf);
    gen_close(t);
}

/* ----------------------------------------------------------- statistics */

void gc_row_summary(const gc_row *r, gc_summary *s)
{
    memset(s, 0, sizeof *s);
    if (!r->n)
        return;
    s->first = r->end[0] - r->start[0];
    s->last = r->end[r->n - 1] - r->start[r->n - 1];
    s->minimum = s->maximum = s->first;
    s->start_minimum = r->start[0];
    s->end_maximum = r->end[0];
    for (size_t i = 0; i < r->n; i++) {
        int64_t d = r->end[i] - r->start[i];
        s->total += d;
        s->minimum = d < s->minimum ? d : s->minimum;
        s->maximum = d > s->maximum ? d : s->maximum;
        s->start_minimum = r->start[i] < s->start_minimum ? r->start[i] : s->start_minimum;
        s->end_maximum = r->end[i] > s->end_maximum ? r->end[i] : s->end_maximum;
        const int64_t *g = r->opt[GC_GPU];
        if (g && g[i] >= 0) {
            s->gpu_count++;
            s->gpu_total += g[i];
        }
    }
    s->mean = (double)s->total / (double)r->n;
    for (size_t i = 0; i < r->n; i++) {
        double dv = (double)(r->end[i] - r->start[i]) - s->mean;
        s->m2 += dv * dv;
    }
}

static hid_t gc_summary_type(void)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, 88);
    ck(t, "creating", "summary_statistics type");
    static const char *const i64[] = {"total", "minimum",       "maximum",    "first",
                                      "last",  "start_minimum", "end_maximum"};
    size_t off = 0;
    for (size_t i = 0; i < 7; i++, off += 8)
        ck(H5Tinsert(t, i64[i], off, H5T_STD_I64LE), "building", "summary_statistics type");
    ck(H5Tinsert(t, "gpu_count", off, H5T_STD_U64LE), "building", "summary_statistics");
    ck(H5Tinsert(t, "gpu_total", off + 8, H5T_STD_I64LE), "building", "summary_statistics");
    ck(H5Tinsert(t, "mean", off + 16, H5T_IEEE_F64LE), "building", "summary_statistics");
    ck(H5Tinsert(t, "m2", off + 24, H5T_IEEE_F64LE), "building", "summary_statistics");
    return t;
}

static hid_t gc_summary_mtype(void)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(gc_summary));
    ck(t, "creating", "summary memory type");
#define F(name, type) ck(H5Tinsert(t, #name, HOFFSET(gc_summary, name), type), "building", #name)
    F(total, H5T_NATIVE_INT64);
    F(minimum, H5T_NATIVE_INT64);
    F(maximum, H5T_NATIVE_INT64);
    F(first, H5T_NATIVE_INT64);
    F(last, H5T_NATIVE_INT64);
    F(start_minimum, H5T_NATIVE_INT64);
    F(end_maximum, H5T_NATIVE_INT64);
    F(gpu_count, H5T_NATIVE_UINT64);
    F(gpu_total, H5T_NATIVE_INT64);
    F(mean, H5T_NATIVE_DOUBLE);
    F(m2, H5T_NATIVE_DOUBLE);
#undef F
    return t;
}

/* --------------------------------------------------------- /events */

static bool gc_has_opt(const gc_profile *p, int k)
{
    for (size_t r = 0; r < p->nrows; r++)
        if (p->rows[r].opt[k] && p->rows[r].n)
            return true;
    return false;
}

static void gc_events(const gc_ctx *c, hid_t file, const gc_profile *p, const uint64_t *off)
{
    hid_t ev = gen_group(file, "events");
    size_t n = c->nevents;
    int64_t *a = gen_alloc(n, sizeof *a), *b = gen_alloc(n, sizeof *b);
    for (size_t r = 0; r < p->nrows; r++) {
        const gc_row *w = &p->rows[r];
        for (size_t i = 0; i < w->n; i++) {
            size_t e = off[r] + i;
            if (c->o->timing == 3) {
                a[e] = i ? w->start[i] - w->start[i - 1] : w->start[0];
                b[e] = w->end[i] - w->start[i];
            } else {
                a[e] = w->start[i];
                b[e] = w->end[i];
            }
        }
    }
    size_t nb = c->o->fault == GC_FAULT_TRUNCATE && n >= 2 ? n - 2 : n;
    gc_i64(c, ev, c->o->timing == 3 ? "start_deltas" : "start_times", ST_EVENT, a, n);
    gc_i64(c, ev, c->o->timing == 3 ? "durations" : "end_times", ST_EVENT, b, nb);
    for (int k = 0; k < GC_NOPT; k++) {
        if (!gc_has_opt(p, k))
            continue;
        for (size_t r = 0; r < p->nrows; r++)
            for (size_t i = 0; i < p->rows[r].n; i++)
                a[off[r] + i] = p->rows[r].opt[k] ? p->rows[r].opt[k][i] : gc_opt_fill[k];
        gc_i64(c, ev, gc_opt_names[k], ST_EVENT, a, n);
    }
    free(a);
    free(b);
    gen_close(ev);
}

/* ------------------------------------------------ rank_region_index */

/* JSON array text of the row's per-call metadata: "[]" when none has any. */
static char *gc_meta_json(const gc_row *w)
{
    bool any = false;
    size_t len = 3;
    for (size_t i = 0; w->meta && i < w->n; i++) {
        const char *m = w->meta[i] && *w->meta[i] ? w->meta[i] : "{}";
        any |= w->meta[i] && *w->meta[i];
        len += strlen(m) + 2;
    }
    if (!any)
        return gen_strdup("[]");
    char *s = gen_alloc(len, 1), *o = s;
    *o++ = '[';
    for (size_t i = 0; i < w->n; i++) {
        const char *m = w->meta[i] && *w->meta[i] ? w->meta[i] : "{}";
        o += sprintf(o, "%s%s", i ? ", " : "", m);
    }
    strcpy(o, "]");
    return s;
}

/* Region ids in first-seen order; fills NAMES (caller frees the array). */
static uint64_t *gc_region_ids(const gc_profile *p, const char ***names, size_t *nnames)
{
    uint64_t *id = gen_alloc(p->nrows, sizeof *id);
    const char **v = gen_alloc(p->nrows, sizeof *v);
    size_t k = 0;
    for (size_t r = 0; r < p->nrows; r++) {
        size_t j = 0;
        while (j < k && strcmp(v[j], p->rows[r].region) != 0)
            j++;
        if (j == k)
            v[k++] = p->rows[r].region;
        id[r] = j;
    }
    *names = v;
    *nnames = k;
    return id;
}

typedef struct gc_index {
    size_t P;
    uint64_t *rid, *rank, *off, *cnt;
    int64_t *line, *excl;
    gc_summary *sum;
    const char **file, **text, **tags, **meta;
} gc_index;

static void gc_index_build(const gc_ctx *c, const gc_profile *p, gc_index *x)
{
    size_t P = x->P = p->nrows;
    x->rank = gen_alloc(P, sizeof *x->rank);
    x->off = gen_alloc(P, sizeof *x->off);
    x->cnt = gen_alloc(P, sizeof *x->cnt);
    x->line = gen_alloc(P, sizeof *x->line);
    x->excl = gen_alloc(P, sizeof *x->excl);
    x->sum = gen_alloc(P, sizeof *x->sum);
    x->file = gen_alloc(P, sizeof(char *));
    x->text = gen_alloc(P, sizeof(char *));
    x->tags = gen_alloc(P, sizeof(char *));
    x->meta = gen_alloc(P, sizeof(char *));
    if (c->o->excl_unknown || c->o->excl)
        for (size_t r = 0; r < P; r++)
            x->excl[r] = c->o->excl ? c->o->excl[r] : -1;
    else
        gc_exclusive_totals(p, x->excl);
    uint64_t o = 0;
    for (size_t r = 0; r < P; r++) {
        const gc_row *w = &p->rows[r];
        x->rank[r] = (uint64_t)w->rank;
        x->off[r] = o;
        x->cnt[r] = w->n;
        o += w->n;
        x->line[r] = w->source_line > 0 ? w->source_line : -1;
        x->file[r] = w->source_file ? w->source_file : "";
        x->text[r] = w->source_text ? w->source_text : "";
        x->tags[r] = w->tags_json ? w->tags_json : "[]";
        x->meta[r] = gc_meta_json(w);
        gc_row_summary(w, &x->sum[r]);
    }
    if (c->o->fault == GC_FAULT_OVERLAP && P >= 2 && x->off[1] > 0)
        x->off[1] -= 1;
    if (c->o->fault == GC_FAULT_PASTEND && P >= 1)
        x->cnt[P - 1] += 5;
    if (c->o->fault == GC_FAULT_SUMSTART && P >= 1)
        x->sum[0].start_minimum -= 1;
}

static void gc_index_free(gc_index *x)
{
    for (size_t r = 0; r < x->P; r++)
        free((char *)x->meta[r]);
    free(x->rid), free(x->rank), free(x->off), free(x->cnt), free(x->line), free(x->excl);
    free(x->sum), free(x->file), free(x->text), free(x->tags), free(x->meta);
}

static void gc_summary_col(const gc_ctx *c, hid_t g, const gc_summary *s, size_t n)
{
    hid_t ft = gc_summary_type(), mt = gc_summary_mtype();
    gc_dataset(c, g, "summary_statistics", ST_INDEX, ft, mt, n, s);
    gen_close(ft);
    gen_close(mt);
}

/* Columnar index: every column P rows (MUL 1), or, for the aggregate layout,
 * the event-locating columns empty (MUL 0). */
static void gc_index_write(const gc_ctx *c, hid_t file, const gc_index *x, size_t mul)
{
    hid_t g = gen_group(file, "rank_region_index");
    size_t P = x->P, Q = x->P * mul;
    gc_idx(c, g, "region_ids", x->rid, P);
    gc_idx(c, g, "ranks", x->rank, P);
    gc_u64(c, g, "event_offsets", ST_INDEX, x->off, Q);
    gc_u64(c, g, "event_counts", ST_INDEX, x->cnt, Q);
    gc_i64(c, g, "source_lines", ST_INDEX, x->line, Q);
    gc_i64(c, g, "exclusive_totals", ST_INDEX, x->excl, Q);
    if (!c->o->no_summary)
        gc_summary_col(c, g, x->sum, Q);
    gc_strs(c, g, "source_files", ST_INDEX, x->file, Q);
    gc_strs(c, g, "source_texts", ST_INDEX, x->text, Q);
    gc_strs(c, g, "tags", ST_INDEX, x->tags, Q);
    if (!c->o->no_event_meta)
        gc_strs(c, g, "event_metadata", ST_INDEX, x->meta, Q);
    gen_close(g);
}

static void gc_aggregate_write(const gc_ctx *c, hid_t file, const gc_profile *p)
{
    size_t P = p->nrows;
    uint64_t *cnt = gen_alloc(P, sizeof *cnt);
    int64_t *v[4];
    for (int k = 0; k < 4; k++)
        v[k] = gen_alloc(P, sizeof(int64_t));
    for (size_t r = 0; r < P; r++) {
        const gc_row *w = &p->rows[r];
        cnt[r] = w->agg_count;
        v[0][r] = w->agg_total, v[1][r] = w->agg_min, v[2][r] = w->agg_max;
        v[3][r] = w->agg_excl;
    }
    hid_t g = gen_group(file, "rank_region_index");
    gc_u64(c, g, "aggregate_counts", ST_INDEX, cnt, P);
    static const char *const names[4] = {"aggregate_totals", "aggregate_minimums",
                                         "aggregate_maximums", "aggregate_exclusives"};
    for (int k = 0; k < 4; k++) {
        gc_i64(c, g, names[k], ST_INDEX, v[k], P);
        free(v[k]);
    }
    free(cnt);
    gen_close(g);
}

/* ------------------------------------------------------ lane tables */

static void gc_threads(const gc_ctx *c, hid_t file, const gc_profile *p)
{
    size_t n = p->nthreads;
    hid_t g = gen_group(file, "thread_table");
    uint64_t *rk = gen_alloc(n, sizeof *rk);
    int64_t *v[6];
    int8_t *daemon = gen_alloc(n, 1);
    const char **name = gen_alloc(n, sizeof *name);
    for (int k = 0; k < 6; k++)
        v[k] = gen_alloc(n, sizeof(int64_t));
    for (size_t i = 0; i < n; i++) {
        const gc_thread *t = &p->threads[i];
        rk[i] = (uint64_t)t->rank;
        v[0][i] = t->index, v[1][i] = t->ident, v[2][i] = t->native_id;
        v[3][i] = t->start_ns, v[4][i] = t->end_ns, v[5][i] = t->cpu_ns;
        daemon[i] = t->daemon;
        name[i] = t->name;
    }
    gc_dataset(c, g, "ranks", ST_TABLE, H5T_STD_U32LE, H5T_NATIVE_UINT64, n, rk);
    static const char *const names[6] = {"index",    "ident",  "native_id",
                                         "start_ns", "end_ns", "cpu_ns"};
    for (int k = 0; k < 6; k++)
        gc_i64(c, g, names[k], ST_TABLE, v[k], n);
    gc_dataset(c, g, "daemon", ST_TABLE, H5T_STD_I8LE, H5T_NATIVE_INT8, n, daemon);
    gc_strs(c, g, "name", ST_TABLE, name, n);
    for (int k = 0; k < 6; k++)
        free(v[k]);
    free(rk), free(daemon), free(name);
    gen_close(g);
}

static void gc_tasks(const gc_ctx *c, hid_t file, const gc_profile *p)
{
    size_t n = p->ntasks;
    hid_t g = gen_group(file, "task_table");
    uint64_t *rk = gen_alloc(n, sizeof *rk);
    int64_t *v[7];
    const char **s[3];
    for (int k = 0; k < 7; k++)
        v[k] = gen_alloc(n, sizeof(int64_t));
    for (int k = 0; k < 3; k++)
        s[k] = gen_alloc(n, sizeof(char *));
    for (size_t i = 0; i < n; i++) {
        const gc_task *t = &p->tasks[i];
        rk[i] = (uint64_t)t->rank;
        v[0][i] = t->index, v[1][i] = t->thread_index, v[2][i] = t->created_ns;
        v[3][i] = t->done_ns, v[4][i] = t->steps, v[5][i] = t->running_ns;
        v[6][i] = t->suspended_ns;
        s[0][i] = t->kind, s[1][i] = t->name, s[2][i] = t->coro_name;
    }
    gc_dataset(c, g, "ranks", ST_TABLE, H5T_STD_U32LE, H5T_NATIVE_UINT64, n, rk);
    static const char *const names[7] = {"index", "thread_index", "created_ns",  "done_ns",
                                         "steps", "running_ns",   "suspended_ns"};
    static const char *const snames[3] = {"kind", "name", "coro_name"};
    for (int k = 0; k < 7; k++) {
        gc_i64(c, g, names[k], ST_TABLE, v[k], n);
        free(v[k]);
    }
    for (int k = 0; k < 3; k++) {
        gc_strs(c, g, snames[k], ST_TABLE, s[k], n);
        free(s[k]);
    }
    free(rk);
    gen_close(g);
}

/* --------------------------------------------------- rank<N> records */

static void gc_line_profiles(const gc_ctx *c, hid_t file, const gc_profile *p)
{
    int count[4096] = {0};
    for (size_t i = 0; i < p->nlines; i++) {
        const gc_line_profile *l = &p->lines[i];
        char path[64];
        int rk = l->rank & 4095;
        snprintf(path, sizeof path, "rank%d/line_profile/%d", l->rank, count[rk]++);
        hid_t g = gen_group(file, path);
        gen_attr_str(g, "region", l->region);
        gen_attr_str(g, "filename", l->filename);
        gen_attr_str(g, "function", l->function);
        gen_attr_int(g, "first_lineno", l->first_lineno);
        gen_attr_float(g, "unit", l->unit);
        if (l->source) {
            gen_attr_str(g, "source", l->source);
            gen_attr_int(g, "source_first_lineno", l->source_first_lineno);
        }
        gc_i64(c, g, "line_numbers", ST_TABLE, l->lines, l->n);
        gc_i64(c, g, "hits", ST_TABLE, l->hits, l->n);
        gc_dataset(c, g, "times", ST_TABLE, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, l->n, l->times);
        gen_close(g);
    }
}

static void gc_perf_events(const gc_ctx *c, hid_t file, const gc_profile *p)
{
    for (size_t i = 0; i < p->nperf; i++) {
        const gc_perf *e = &p->perf[i];
        char path[64];
        snprintf(path, sizeof path, "rank%d/perf_events", e->rank);
        hid_t pg = gen_group(file, path);
        hid_t g = H5Gcreate2(pg, e->region, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        ck(g, "creating perf_events group", e->region);
        gen_attr_int(g, "calls", e->calls);
        gen_attr_strs(g, "event_names", e->names, e->n);
        gc_u64(c, g, "values", ST_TABLE, e->values, e->n);
        gen_close(g);
        gen_close(pg);
    }
}

/* ------------------------------------------------------------- files */

static void gc_root_attrs(hid_t file, const gc_opts *o)
{
    gen_attr_int(file, "scope_profiler_schema", o->schema ? o->schema : o->timing);
    gen_attr_str(file, "storage_layout", o->aggregate ? "aggregate" : "columnar");
}

static void gc_write_index(const gc_ctx *c, hid_t file, const gc_profile *p)
{
    gc_index x = {0};
    gc_index_build(c, p, &x);
    const char **names = NULL;
    size_t nnames = 0;
    x.rid = gc_region_ids(p, &names, &nnames);
    hid_t rt = gen_group(file, "region_table");
    gc_strs(c, rt, "names", ST_INDEX, names, nnames);
    gen_close(rt);
    free(names);
    gc_index_write(c, file, &x, c->o->aggregate ? 0 : 1);
    gc_index_free(&x);
}

void gc_write(const char *path, const gc_profile *p, const gc_opts *opts)
{
    gc_ctx c = {.o = opts};
    uint64_t *off = gen_alloc(p->nrows, sizeof *off);
    for (size_t r = 0; r < p->nrows; r++) {
        off[r] = c.nevents;
        c.nevents += opts->aggregate ? 0 : p->rows[r].n;
    }
    hid_t file = gen_file_create(path);
    gc_root_attrs(file, opts);
    if (p->nmeta)
        gen_metadata(file, p->meta, p->nmeta);
    if (!opts->no_index) {
        gc_write_index(&c, file, p);
        if (opts->aggregate)
            gc_aggregate_write(&c, file, p);
        gc_profile none = {0};
        gc_events(&c, file, opts->aggregate ? &none : p, off);
    }
    if (p->nthreads)
        gc_threads(&c, file, p);
    if (p->ntasks)
        gc_tasks(&c, file, p);
    gc_line_profiles(&c, file, p);
    gc_perf_events(&c, file, p);
    free(off);
    gen_close(file);
}

void gc_write_aggregated(const char *path, const gc_profile *p)
{
    gc_row *rows = gen_alloc(p->nrows, sizeof *rows);
    int64_t *excl = gen_alloc(p->nrows, sizeof *excl);
    gc_exclusive_totals(p, excl);
    for (size_t r = 0; r < p->nrows; r++) {
        gc_summary s;
        gc_row_summary(&p->rows[r], &s);
        rows[r] = (gc_row){.region = p->rows[r].region,
                           .rank = p->rows[r].rank,
                           .agg_count = p->rows[r].n,
                           .agg_total = s.total,
                           .agg_min = s.minimum,
                           .agg_max = s.maximum,
                           .agg_excl = excl[r]};
    }
    gc_profile q = *p;
    q.rows = rows;
    q.threads = NULL, q.nthreads = 0, q.tasks = NULL, q.ntasks = 0;
    gc_write(path, &q, &(gc_opts){.timing = 3, .aggregate = true});
    free(rows);
    free(excl);
}

/* ------------------------------------------------------------ C API */

static const char *gc_meta_str(const gc_profile *p, const char *key, const char *dflt)
{
    for (size_t i = 0; i < p->nmeta; i++)
        if (strcmp(p->meta[i].key, key) == 0 && p->meta[i].kind == GEN_STR)
            return p->meta[i].s;
    return dflt;
}

static void gc_capi_rank(const char *prefix, const gc_profile *p, int rank)
{
    gc_row *rows = gen_alloc(p->nrows, sizeof *rows);
    size_t n = 0;
    int64_t first = INT64_MAX;
    for (size_t r = 0; r < p->nrows; r++) {
        const gc_row *w = &p->rows[r];
        if (w->rank != rank || !w->n)
            continue; /* regions with no completed call are omitted */
        rows[n] = (gc_row){.region = w->region,
                           .rank = rank,
                           .n = w->n,
                           .start = w->start,
                           .end = w->end,
                           .source_file = w->source_file,
                           .source_line = w->source_line};
        for (size_t i = 0; i < w->n; i++)
            first = w->start[i] < first ? w->start[i] : first;
        n++;
    }
    const gen_kv meta[] = {
        {"source", GEN_STR, "native", 0, 0},
        {"source_language", GEN_STR, "c", 0, 0},
        {"trace_format_version", GEN_INT, NULL, 2, 0},
        {"mpi_rank", GEN_INT, NULL, rank, 0},
        {"hostname", GEN_STR, gc_meta_str(p, "hostname", "node017"), 0, 0},
        {"timestamp", GEN_STR, gc_meta_str(p, "timestamp", "2026-11-30T09:00:00+00:00"), 0, 0},
        {"start_time_ns", GEN_INT, NULL, first, 0},
    };
    gc_profile one = {.rows = rows, .nrows = n, .meta = meta, .nmeta = n ? 7 : 6};
    gc_opts o = {.timing = 2, .no_event_meta = true, .excl_unknown = true};
    char path[4096];
    snprintf(path, sizeof path, "%s_rank%05d.h5", prefix, rank);
    gc_write(path, &one, &o);
    free(rows);
}

void gc_write_capi(const char *prefix, const gc_profile *p, int skip_rank)
{
    int maxrank = -1;
    for (size_t r = 0; r < p->nrows; r++)
        maxrank = p->rows[r].rank > maxrank ? p->rows[r].rank : maxrank;
    for (int rank = 0; rank <= maxrank; rank++) {
        bool present = false;
        for (size_t r = 0; r < p->nrows; r++)
            present |= p->rows[r].rank == rank;
        if (present && rank != skip_rank)
            gc_capi_rank(prefix, p, rank);
    }
}
