/* wire_recv: reading the byte stream wire.c writes (wire.h): every count and
 * size checked against what is left and against the budget before it is
 * allocated; a short or malformed stream is one status and one line. */
#include "wire.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "wire_internal.h"
#include "util/bigmem.h"
#include "model/budget.h"

/* ------------------------------------------------------------ reader */

typedef struct wire_r {
    wire_src src;
    wire_status bad;  /* WIRE_PROFILE while all is well */
    const char *what; /* what was being read when it went wrong */
    uint64_t budget, used;
    const char *why; /* a malformed shared mapping: what is wrong with it */
    profile *p;      /* the model read: owns the shared mapping once made */
    const unsigned char *map;
    size_t map_len;
    size_t pos, len;
    unsigned char buf[WIRE_BUF];
} wire_r;

static void wr_fail(wire_r *r, wire_status s)
{
    if (r->bad == WIRE_PROFILE)
        r->bad = s;
}

static bool wr_fill(wire_r *r, void *dst, size_t n)
{
    unsigned char *d = dst;
    while (n) {
        ssize_t k = r->src.read(r->src.ctx, d, n);
        if (k <= 0) {
            wr_fail(r, WIRE_BROKEN);
            return false;
        }
        d += k;
        n -= (size_t)k;
    }
    return true;
}

static bool wr_bytes(wire_r *r, void *dst, size_t n)
{
    if (r->bad != WIRE_PROFILE)
        return false;
    unsigned char *d = dst;
    size_t have = r->len - r->pos;
    size_t take = have < n ? have : n;
    if (take)
        memcpy(d, r->buf + r->pos, take);
    r->pos += take;
    d += take;
    n -= take;
    if (!n)
        return true;
    if (n > WIRE_BUF / 2)
        return wr_fill(r, d, n); /* columns: straight from the pipe */
    r->pos = r->len = 0;
    while (r->len < n) {
        ssize_t k = r->src.read(r->src.ctx, r->buf + r->len, WIRE_BUF - r->len);
        if (k <= 0) {
            wr_fail(r, WIRE_BROKEN);
            return false;
        }
        r->len += (size_t)k;
    }
    memcpy(d, r->buf, n);
    r->pos = n;
    return true;
}

static uint64_t wr_u64(wire_r *r)
{
    uint64_t v = 0;
    wr_bytes(r, &v, sizeof v);
    return v;
}

static int64_t wr_i64(wire_r *r)
{
    int64_t v = 0;
    wr_bytes(r, &v, sizeof v);
    return v;
}

static bool wr_bool(wire_r *r)
{
    return wr_u64(r) != 0;
}

/* Column arrays as the loader allocates them (util/bigmem.h): big ones
 * 2 MiB-aligned with a huge-page hint, medium ones faulted in by one
 * madvise; page faults cost more than the copy from the pipe.  Big ones are faulted in by the
 * read itself, one huge page at a time, not all at once beforehand: the
 * sender releases its pages as they are read (wire_send_profile_final), so
 * each huge page is taken just after one of those is freed and reuses warm
 * memory instead of fresh pages (several times slower to fault in on a VM).
 * free() releases either. */
#define WR_HUGE_STEP BIGMEM_HUGE_ALIGN

static void *wr_column_mem(size_t bytes)
{
    return bigmem_column(bytes);
}

/* Allocates n bytes charged to the budget (NULL after a failure); a column's
 * memory is faulted in at once. */
static void *wr_alloc_mem(wire_r *r, uint64_t n, bool column)
{
    if (r->bad != WIRE_PROFILE)
        return NULL;
    if (r->budget && (n > r->budget || r->used > r->budget - n)) {
        wr_fail(r, WIRE_BUDGET);
        return NULL;
    }
    if (n > SIZE_MAX / 2) {
        wr_fail(r, WIRE_BUDGET);
        return NULL;
    }
    void *v = column ? wr_column_mem((size_t)n) : malloc(n ? (size_t)n : 1);
    if (!v) {
        wr_fail(r, WIRE_BUDGET);
        return NULL;
    }
    r->used += n;
    return v;
}

static void *wr_alloc(wire_r *r, uint64_t n)
{
    return wr_alloc_mem(r, n, false);
}

/* n elements of size sz, the product checked before anything else. */
static void *wr_alloc_n(wire_r *r, uint64_t n, size_t sz)
{
    if (sz && n > UINT64_MAX / sz) {
        wr_fail(r, WIRE_BUDGET);
        return NULL;
    }
    return wr_alloc(r, n * sz);
}

static char *wr_str(wire_r *r)
{
    uint64_t n = wr_u64(r);
    if (r->bad != WIRE_PROFILE || n == WIRE_NULL)
        return NULL;
    if (n > WIRE_STR_MAX) {
        wr_fail(r, WIRE_BROKEN);
        return NULL;
    }
    char *s = wr_alloc(r, n + 1);
    if (!s)
        return NULL;
    if (!wr_bytes(r, s, (size_t)n)) {
        free(s);
        return NULL;
    }
    s[n] = '\0';
    return s;
}

static char **wr_strv(wire_r *r, size_t n)
{
    if (!wr_bool(r))
        return NULL;
    char **v = wr_alloc_n(r, n, sizeof *v);
    if (!v)
        return NULL;
    for (size_t i = 0; i < n; i++)
        v[i] = wr_str(r); /* NULL after a failure: the vector stays freeable */
    return v;
}

/* A column's bytes into v (wr_column_mem's).  A big one is faulted in one
 * 2 MiB step at a time just before the step is read: the pages come as the
 * sender's are freed, and no page fault is taken per 4 KiB page even
 * without transparent huge pages. */
static bool wr_col_bytes(wire_r *r, unsigned char *v, size_t bytes)
{
    if (bytes < BIGMEM_HUGE_MIN)
        return wr_bytes(r, v, bytes);
    for (size_t off = 0; off < bytes; off += WR_HUGE_STEP) {
        size_t k = bytes - off < WR_HUGE_STEP ? bytes - off : WR_HUGE_STEP;
#ifdef MADV_POPULATE_WRITE
        /* v is 2 MiB-aligned and its allocation a whole number of steps;
         * the last step only as far as the column goes (bigmem.h). */
        madvise(v + off, (k + 4095) & ~(size_t)4095, MADV_POPULATE_WRITE);
#endif
        if (!wr_bytes(r, v + off, k))
            return false;
    }
    return true;
}

static void *wr_col(wire_r *r, size_t n, size_t sz)
{
    uint64_t kind = wr_u64(r);
    if (kind != WIRE_COL_INLINE) { /* only a region's call columns may be shared */
        if (kind != WIRE_COL_ABSENT)
            wr_fail(r, WIRE_BROKEN);
        return NULL;
    }
    void *v = sz && n > UINT64_MAX / sz ? NULL : wr_alloc_mem(r, (uint64_t)n * sz, true);
    if (!v && r->bad == WIRE_PROFILE)
        wr_fail(r, WIRE_BUDGET);
    if (v && !wr_col_bytes(r, v, n * sz)) {
        free(v);
        return NULL;
    }
    return v;
}

/* The shared memory, checked before it is mapped: sealed against any
 * write, growth or shrinking (the sender cannot change it under the
 * model) and no larger than the budget.  Mapped once; the profile owns it. */
static bool wr_map(wire_r *r)
{
    if (r->map)
        return true;
    if (r->bad != WIRE_PROFILE)
        return false;
    r->what = "the shared columns";
    int fd = r->src.recv_fd ? r->src.recv_fd(r->src.ctx) : -1;
    struct stat st;
    int seals = fd >= 0 ? fcntl(fd, F_GET_SEALS) : -1;
    if (fd < 0)
        r->why = "no shared memory came";
    else if (seals < 0 || (seals & WIRE_SHM_SEALS) != WIRE_SHM_SEALS)
        r->why = "the shared memory is not sealed";
    else if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0)
        r->why = "the shared memory is empty";
    if (r->why) {
        if (fd >= 0)
            close(fd);
        wr_fail(r, WIRE_BROKEN);
        return false;
    }
    uint64_t n = (uint64_t)st.st_size;
    if (n > SIZE_MAX / 2 || (r->budget && (n > r->budget || r->used > r->budget - n))) {
        close(fd);
        wr_fail(r, WIRE_BUDGET);
        return false;
    }
    void *m = mmap(NULL, (size_t)n, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (m == MAP_FAILED) {
        r->why = "the shared memory cannot be mapped";
        wr_fail(r, WIRE_BROKEN);
        return false;
    }
    r->used += n;
    r->map = m;
    r->map_len = (size_t)n;
    r->p->shared_cols = m;
    r->p->shared_len = (size_t)n;
    return true;
}

/* A region column of n calls: absent (NULL), inline (allocated), or in the
 * shared memory (*shared set: a pointer into the mapping, checked to lie
 * inside it, aligned, and exactly n calls long). */
static int64_t *wr_region_col(wire_r *r, size_t n, bool *shared)
{
    *shared = false;
    uint64_t kind = wr_u64(r);
    if (r->bad != WIRE_PROFILE || kind == WIRE_COL_ABSENT)
        return NULL;
    if (kind == WIRE_COL_INLINE) {
        void *v = n > UINT64_MAX / sizeof(int64_t)
                      ? NULL
                      : wr_alloc_mem(r, (uint64_t)n * sizeof(int64_t), true);
        if (!v && r->bad == WIRE_PROFILE)
            wr_fail(r, WIRE_BUDGET);
        if (v && !wr_col_bytes(r, v, n * sizeof(int64_t))) {
            free(v);
            return NULL;
        }
        return v;
    }
    uint64_t off = wr_u64(r), bytes = wr_u64(r);
    if (r->bad != WIRE_PROFILE)
        return NULL;
    if (kind != WIRE_COL_SHARED || n > UINT64_MAX / sizeof(int64_t) ||
        bytes != (uint64_t)n * sizeof(int64_t)) {
        r->why = "a column's length is not its region's";
        wr_fail(r, WIRE_BROKEN);
        return NULL;
    }
    if (!wr_map(r))
        return NULL;
    if (off % sizeof(int64_t) || off > r->map_len || bytes > r->map_len - off) {
        r->what = "the shared columns";
        r->why = "a column lies outside the shared memory";
        wr_fail(r, WIRE_BROKEN);
        return NULL;
    }
    *shared = true;
    return (int64_t *)(void *)(r->map + off);
}

/* A count of items of at least sz bytes each, bounded by the budget (or
 * by what a size_t can index). */
static size_t wr_count(wire_r *r, size_t sz)
{
    uint64_t n = wr_u64(r);
    uint64_t cap = r->budget ? r->budget / (sz ? sz : 1) : SIZE_MAX / 16;
    if (r->bad != WIRE_PROFILE)
        return 0;
    if (n > cap || n > SIZE_MAX / 16) {
        wr_fail(r, r->budget ? WIRE_BUDGET : WIRE_BROKEN);
        return 0;
    }
    return (size_t)n;
}

/* A region's call columns: all inline or all shared (the free path
 * tells them apart by region.cols_shared alone); a mix is malformed. */
static void wr_region_cols(wire_r *r, region *g, int64_t **cols[], size_t ncols)
{
    bool shared[8] = {false}, any_shared = false, any_inline = false;
    for (size_t i = 0; i < ncols && i < 8; i++) {
        *cols[i] = wr_region_col(r, g->n, &shared[i]);
        any_shared |= shared[i];
        any_inline |= *cols[i] && !shared[i];
    }
    if (any_shared && any_inline) {
        for (size_t i = 0; i < ncols && i < 8; i++) {
            if (!shared[i])
                free(*cols[i]);
            *cols[i] = NULL;
        }
        r->why = "a region's columns are partly shared";
        wr_fail(r, WIRE_BROKEN);
        return;
    }
    g->cols_shared = any_shared;
}

static void wr_region(wire_r *r, rank_data *rk, region *g)
{
    r->what = "a region";
    g->name = wr_str(r);
    if (!g->name)
        g->name = strdup("");
    g->rank = rk->rank;
    g->owner = rk;
    g->has_event_data = wr_bool(r);
    g->n = wr_count(r, 1);
    int64_t **cols[] = {&g->start_ns,   &g->end_ns,   &g->call_ids, &g->parent_ids,
                        &g->thread_ids, &g->task_ids, &g->await_ns, &g->gpu_ns};
    r->what = "a region's columns";
    wr_region_cols(r, g, cols, sizeof cols / sizeof *cols);
    g->own_excl_ns = wr_col(r, g->n, sizeof(int64_t));
    g->event_meta = wr_strv(r, g->n);
    g->source_file = wr_str(r);
    g->source_text = wr_str(r);
    g->source_lineno = wr_i64(r);
    g->has_lineno = wr_bool(r);
    g->ntags = wr_count(r, sizeof(char *));
    g->tags = wr_strv(r, g->ntags);
    if (!g->tags)
        g->ntags = 0;
    g->has_stored_summary = wr_bool(r);
    wr_bytes(r, &g->stored, sizeof g->stored);
    wr_bytes(r, &g->st, sizeof g->st);
    g->has_stored_exclusive = wr_bool(r);
    g->stored_exclusive_ns = wr_i64(r);
    g->streamed = wr_bool(r);
    g->stream_excl_unknown = wr_bool(r);
    g->stream_cols = (uint32_t)wr_u64(r);
    g->stream_nthreads = wr_count(r, sizeof(int64_t));
    g->stream_threads = wr_col(r, g->stream_nthreads, sizeof(int64_t));
    if (!g->stream_threads)
        g->stream_nthreads = 0;
    /* Whatever went wrong, the region must obey the model: n calls in
     * start_ns and end_ns when it has event data (a streamed region keeps
     * none: n == 0). */
    if (r->bad != WIRE_PROFILE ||
        (g->has_event_data && (g->streamed ? g->n != 0 : (!g->start_ns || !g->end_ns)))) {
        wr_fail(r, WIRE_BROKEN);
        char *name = g->name;
        region_clear(g);
        g->name = name;
    }
}

static void wr_threads(wire_r *r, thread_table *t)
{
    r->what = "a thread table";
    t->n = wr_count(r, 1);
    t->name = wr_strv(r, t->n);
    t->ident = wr_col(r, t->n, sizeof(int64_t));
    t->native_id = wr_col(r, t->n, sizeof(int64_t));
    t->daemon = wr_col(r, t->n, sizeof(int8_t));
    t->start_ns = wr_col(r, t->n, sizeof(int64_t));
    t->end_ns = wr_col(r, t->n, sizeof(int64_t));
    t->cpu_ns = wr_col(r, t->n, sizeof(int64_t));
}

static void wr_tasks(wire_r *r, task_table *t)
{
    r->what = "a task table";
    t->n = wr_count(r, 1);
    t->name = wr_strv(r, t->n);
    t->thread = wr_col(r, t->n, sizeof(int64_t));
    t->kind = wr_strv(r, t->n);
    t->coro_name = wr_strv(r, t->n);
    int64_t **cols[] = {&t->created_ns, &t->done_ns, &t->steps, &t->running_ns, &t->suspended_ns};
    for (size_t i = 0; i < sizeof cols / sizeof *cols; i++)
        *cols[i] = wr_col(r, t->n, sizeof(int64_t));
}

static void wr_line(wire_r *r, line_profile *lp)
{
    r->what = "a line profile";
    lp->region = wr_str(r);
    lp->filename = wr_str(r);
    lp->function = wr_str(r);
    lp->first_lineno = wr_i64(r);
    wr_bytes(r, &lp->unit_s, sizeof lp->unit_s);
    lp->source = wr_str(r);
    lp->source_first_lineno = wr_i64(r);
    lp->n = wr_count(r, 1);
    lp->lineno = wr_col(r, lp->n, sizeof(int64_t));
    lp->hits = wr_col(r, lp->n, sizeof(int64_t));
    lp->times = wr_col(r, lp->n, sizeof(double));
    if (r->bad != WIRE_PROFILE || !lp->lineno || !lp->hits || !lp->times) {
        wr_fail(r, WIRE_BROKEN);
        line_profile_clear(lp);
    }
}

static void wr_perf(wire_r *r, perf_record *pr)
{
    r->what = "a counter record";
    pr->kind = wr_str(r);
    pr->region = wr_str(r);
    pr->calls = wr_i64(r);
    pr->n = wr_count(r, 1);
    pr->names = wr_strv(r, pr->n);
    pr->values = wr_col(r, pr->n, sizeof(double));
    if (r->bad != WIRE_PROFILE || !pr->names || !pr->values) {
        wr_fail(r, WIRE_BROKEN);
        perf_record_clear(pr);
    }
}

/* Fills rk (already added to its profile, so profile_free frees it). */
static void wr_rank(wire_r *r, rank_data *rk)
{
    rk->has_threads = wr_bool(r);
    rk->has_tasks = wr_bool(r);
    rk->explicit_ids = wr_bool(r);
    rk->ninferred_lanes = (uint32_t)wr_u64(r);
    wr_threads(r, &rk->threads);
    wr_tasks(r, &rk->tasks);
    size_t nl = wr_count(r, sizeof(line_profile));
    rk->lines = nl ? wr_alloc_n(r, nl, sizeof *rk->lines) : NULL;
    for (size_t i = 0; rk->lines && i < nl; i++) {
        memset(&rk->lines[i], 0, sizeof rk->lines[i]);
        rk->nlines = i + 1;
        wr_line(r, &rk->lines[i]);
    }
    size_t np = wr_count(r, sizeof(perf_record));
    rk->perf = np ? wr_alloc_n(r, np, sizeof *rk->perf) : NULL;
    for (size_t i = 0; rk->perf && i < np; i++) {
        memset(&rk->perf[i], 0, sizeof rk->perf[i]);
        rk->nperf = i + 1;
        wr_perf(r, &rk->perf[i]);
    }
    size_t nr = wr_count(r, sizeof(region));
    for (size_t i = 0; i < nr && r->bad == WIRE_PROFILE; i++) {
        region *g = rank_add_region(rk, "");
        if (!g) {
            wr_fail(r, WIRE_BUDGET);
            break;
        }
        free(g->name);
        g->name = NULL;
        wr_region(r, rk, g);
    }
}

/* Numbers calls and lists regions as profile_finish left them (the
 * stream's order is that order; the numbering is recomputed, not
 * trusted). */
static bool wr_finish(wire_r *r, profile *p)
{
    size_t total = 0;
    for (size_t i = 0; i < p->nranks; i++) {
        rank_data *rk = &p->ranks[i];
        rk->owner = p;
        size_t g = 0;
        for (size_t j = 0; j < rk->nregions; j++) {
            region *x = rk->regions[j];
            x->owner = rk;
            x->rank = rk->rank;
            x->gidx0 = g;
            if (x->n > SIZE_MAX - g)
                return false;
            g += x->n;
        }
        rk->ncalls = g;
        total += rk->nregions;
    }
    p->regions = wr_alloc_n(r, total ? total : 1, sizeof *p->regions);
    if (!p->regions)
        return false;
    p->nregions = 0;
    for (size_t i = 0; i < p->nranks; i++)
        for (size_t j = 0; j < p->ranks[i].nregions; j++)
            p->regions[p->nregions++] = p->ranks[i].regions[j];
    return true;
}

static void wr_profile(wire_r *r, profile *p)
{
    r->what = "the file list";
    free(p->path);
    p->path = wr_str(r);
    if (!p->path)
        p->path = strdup("");
    size_t np = wr_count(r, sizeof(char *));
    char **paths = wr_strv(r, np);
    char **formats = wr_strv(r, np);
    if (paths && np) {
        p->path_formats = formats;
        formats = NULL;
        free(p->paths[0]);
        free(p->paths);
        p->paths = paths;
        p->npaths = np;
        for (size_t i = 0; i < np; i++)
            if (!paths[i])
                paths[i] = strdup("");
    } else {
        free(paths);
    }
    for (size_t i = 0; formats && i < np; i++)
        free(formats[i]);
    free(formats);
    p->file_size = wr_u64(r);
    p->schema = (int)wr_i64(r);
    int64_t layout = wr_i64(r);
    p->layout =
        layout >= LAYOUT_GROUPS && layout <= LAYOUT_NATIVE ? (profile_layout)layout : LAYOUT_GROUPS;
    p->legacy = wr_bool(r);
    uint64_t format = wr_u64(r);
    p->format = format <= PFMT_JSON_GZIP ? (uint8_t)format : PFMT_HDF5;
    r->what = "the metadata";
    size_t nm = wr_count(r, sizeof(meta_entry));
    p->meta = nm ? wr_alloc_n(r, nm, sizeof *p->meta) : NULL;
    for (size_t i = 0; p->meta && i < nm; i++) {
        char *key = wr_str(r);
        int64_t kind = wr_i64(r);
        char *text = wr_str(r);
        p->meta[p->nmeta++] =
            (meta_entry){key ? key : strdup(""),
                         kind >= META_STRING && kind <= META_BOOL ? (meta_kind)kind : META_STRING,
                         text ? text : strdup("")};
    }
    p->has_min_start = wr_bool(r);
    p->min_start_ns = wr_i64(r);
    r->what = "the warnings";
    size_t nw = wr_count(r, sizeof(char *));
    p->warnings = wr_strv(r, nw);
    if (p->warnings) {
        p->nwarnings = p->nwarnings_cap = nw;
        for (size_t i = 0; i < nw; i++)
            if (!p->warnings[i])
                p->warnings[i] = strdup("");
    }
    r->what = "the ranks";
    size_t nr = wr_count(r, sizeof(rank_data));
    for (size_t i = 0; i < nr && r->bad == WIRE_PROFILE; i++) {
        int64_t rank = wr_i64(r);
        rank_data *rk = r->bad == WIRE_PROFILE ? profile_add_rank(p, (int)rank) : NULL;
        if (!rk) {
            wr_fail(r, WIRE_BUDGET);
            break;
        }
        wr_rank(r, rk);
    }
    if (r->bad == WIRE_PROFILE && !wr_finish(r, p))
        wr_fail(r, WIRE_BUDGET);
}

static bool wr_tag(wire_r *r, const char *tag)
{
    char got[4];
    return wr_bytes(r, got, 4) && memcmp(got, tag, 4) == 0;
}

static wire_status wr_done(wire_r *r, sv_error *err)
{
    if (r->bad == WIRE_BUDGET) {
        char lim[32];
        budget_format(lim, sizeof lim, r->budget);
        sv_error_set(err, SV_ERR_NOMEM,
                     "the loaded profile needs more than the memory budget (%s) at %s", lim,
                     r->what);
    } else if (r->bad == WIRE_BROKEN && r->why)
        sv_error_set(err, SV_ERR_DAMAGED, "the loading process's answer is malformed at %s: %s",
                     r->what, r->why);
    else if (r->bad == WIRE_BROKEN)
        sv_error_set(err, SV_ERR_DAMAGED, "the loading process's answer ended early at %s",
                     r->what);
    return r->bad;
}

static void wr_section(wire_r *r, const wire_section *sec);

wire_status wire_recv(const wire_src *src, uint64_t budget, profile **out, sv_error *err)
{
    return wire_recv_section(src, budget, NULL, out, err);
}

wire_status wire_recv_section(const wire_src *src, uint64_t budget, const wire_section *sec,
                              profile **out, sv_error *err)
{
    *out = NULL;
    wire_r *r = calloc(1, sizeof *r);
    if (!r) {
        sv_error_set(err, SV_ERR_NOMEM, "out of memory");
        return WIRE_BUDGET;
    }
    r->src = *src;
    r->budget = budget;
    r->what = "its start";
    char kind = 0;
    if (!wr_tag(r, WIRE_MAGIC) || !wr_bytes(r, &kind, 1) || (kind != 'P' && kind != 'E')) {
        wr_fail(r, WIRE_BROKEN);
        wire_status s = wr_done(r, err);
        free(r);
        return s;
    }
    wire_status s;
    if (kind == 'E') {
        int64_t code = wr_i64(r);
        char *msg = wr_str(r);
        r->what = "its end";
        if (r->bad == WIRE_PROFILE && wr_tag(r, WIRE_END) && msg && code > SV_OK &&
            code <= SV_ERR_USAGE) {
            sv_error_set(err, (sv_err)code, "%s", msg);
            s = WIRE_ERROR;
        } else {
            wr_fail(r, WIRE_BROKEN);
            s = wr_done(r, err);
        }
        free(msg);
        free(r);
        return s;
    }
    profile *p = profile_new("");
    if (!p) {
        free(r);
        sv_error_set(err, SV_ERR_NOMEM, "out of memory");
        return WIRE_BUDGET;
    }
    r->p = p;
    wr_profile(r, p);
    wr_section(r, sec);
    r->what = "its end";
    if (r->bad == WIRE_PROFILE && !wr_tag(r, WIRE_END))
        wr_fail(r, WIRE_BROKEN);
    s = wr_done(r, err);
    if (s == WIRE_PROFILE)
        *out = p;
    else
        profile_free(p);
    free(r);
    return s;
}

static void wr_section(wire_r *r, const wire_section *sec)
{
    if (!sec || !sec->get || r->bad != WIRE_PROFILE)
        return;
    r->what = "the extra section";
    if (!wr_tag(r, WIRE_SECTION) || !sec->get(r, sec->ctx))
        wr_fail(r, WIRE_BROKEN);
}

/* The stream ends cleanly: nothing buffered and nothing more to read. */
static bool wr_at_end(wire_r *r)
{
    if (r->pos < r->len)
        return false;
    r->pos = r->len = 0;
    ssize_t k = r->src.read(r->src.ctx, r->buf, WIRE_BUF);
    if (k <= 0)
        return true; /* an error between messages ends the stream as well */
    r->len = (size_t)k;
    return false;
}

wire_status wire_recv_parts(const wire_src *src, uint64_t budget, const wire_section *sec,
                            bool (*each)(void *ctx), void *ctx, sv_error *err)
{
    wire_r *r = calloc(1, sizeof *r);
    if (!r) {
        sv_error_set(err, SV_ERR_NOMEM, "out of memory");
        return WIRE_BUDGET;
    }
    r->src = *src;
    r->budget = budget;
    char kind = 0;
    while (r->bad == WIRE_PROFILE && !wr_at_end(r)) {
        r->used = 0; /* each message on its own: the receiver frees or keeps it */
        r->what = "a part's start";
        if (!wr_tag(r, WIRE_MAGIC) || !wr_bytes(r, &kind, 1) || kind != 'Q') {
            wr_fail(r, WIRE_BROKEN);
            break;
        }
        wr_section(r, sec);
        r->what = "a part's end";
        if (r->bad == WIRE_PROFILE && !wr_tag(r, WIRE_END))
            wr_fail(r, WIRE_BROKEN);
        if (r->bad == WIRE_PROFILE && each && !each(ctx))
            break;
    }
    wire_status s = wr_done(r, err);
    free(r);
    return s;
}

uint64_t wire_get_u64(wire_r *r)
{
    return wr_u64(r);
}

bool wire_get_bytes(wire_r *r, void *dst, size_t n)
{
    return wr_bytes(r, dst, n);
}

char *wire_get_str(wire_r *r)
{
    return wr_str(r);
}

size_t wire_get_count(wire_r *r, size_t sz)
{
    return wr_count(r, sz);
}

void *wire_get_col(wire_r *r, size_t n, size_t sz)
{
    return wr_col(r, n, sz);
}

void *wire_get_alloc(wire_r *r, size_t n, size_t sz)
{
    return wr_alloc_n(r, n, sz);
}

bool wire_get_ok(const wire_r *r)
{
    return r->bad == WIRE_PROFILE;
}
