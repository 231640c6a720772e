/* wire: the finished profile as a native-endian byte stream (wire.h).
 *
 * Layout: "SVW1", a message kind ('P' profile or 'E' error), the message,
 * then "END!".  Scalars are 8-byte words; a string is its length (or
 * WIRE_NULL) then its bytes; an optional column is a present flag then n
 * raw elements; a string vector is a present flag then n strings. */
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

#define WIRE_MAGIC "SVW1"
#define WIRE_END "END!"
#define WIRE_NULL UINT64_MAX
#define WIRE_BUF (1u << 16)
/* No string the loader keeps is longer (SV_STRING_MAX plus escaping of a
 * warning or a name): a longer one is a malformed stream. */
#define WIRE_STR_MAX (8 * SV_STRING_MAX)

/* A field added to these structs must be carried across the isolated load:
 * add it to wire_put_* and wire_get_* below, then update the size here. */
#if defined(__x86_64__) && defined(__LP64__)
_Static_assert(sizeof(region) == 496, "region changed: update wire.c");
_Static_assert(sizeof(rank_data) == 248, "rank_data changed: update wire.c");
_Static_assert(sizeof(profile) == 152, "profile changed: update wire.c");
_Static_assert(sizeof(line_profile) == 88, "line_profile changed: update wire.c");
_Static_assert(sizeof(perf_record) == 48, "perf_record changed: update wire.c");
#endif

/* ------------------------------------------------------------ writer */

typedef struct ww_range {
    uintptr_t lo, hi;
} ww_range;

typedef struct wire_w {
    int fd;
    bool splice;  /* fd is a pipe: columns may go by vmsplice */
    bool release; /* the sender never reads the columns again (wire_send_profile_final) */
    /* The dry run before a release: columns recorded, nothing written. */
    bool collect;
    bool in_col; /* ww_col's bytes: the only ones released (strings may be shared) */
    struct ww_range *ranges;
    size_t nranges, cap;
    int err; /* first errno */
    size_t len;
    unsigned char buf[WIRE_BUF];
} wire_w;

/* A column straight into the pipe: vmsplice lends the child's pages to the
 * pipe instead of copying them (the child never writes them again: it
 * exits once the answer is sent).  Whatever it could not take goes by write. */
static size_t ww_splice(wire_w *w, const unsigned char *b, size_t n)
{
    size_t done = 0;
#ifdef SPLICE_F_MORE
    /* The whole pages lent so far are released up to `freed` (release). */
    const uintptr_t page = 4096, huge = (uintptr_t)2 << 20;
    uintptr_t freed = ((uintptr_t)b + page - 1) & ~(page - 1);
    while (done < n) {
        struct iovec iov = {(void *)(b + done), n - done};
        ssize_t k = vmsplice(w->fd, &iov, 1, 0);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        done += (size_t)k;
        if (w->release && w->in_col) {
            /* The pipe holds its own reference to each lent page, so the
             * child's mapping can let go of it: a page is freed once the
             * parent has read it, and the parent's next columns are
             * allocated from those warm pages instead of fresh ones (which
             * cost several times more to fault in on a VM).  Whole huge
             * pages while the column is under way, the tail at its end. */
            uintptr_t to = (uintptr_t)(b + done) & ~((done < n ? huge : page) - 1);
            if (to > freed) {
                madvise((void *)freed, to - freed, MADV_DONTNEED);
                freed = to;
            }
        }
    }
#else
    (void)w;
    (void)b;
    (void)n;
#endif
    return done;
}

/* lend: p is the model's own memory, never written again (the child exits
 * after sending), so its pages may be lent to the pipe; never w->buf. */
static void ww_raw(wire_w *w, const void *p, size_t n, bool lend)
{
    const unsigned char *b = p;
    if (lend && n >= WIRE_BUF && w->splice) {
        size_t k = ww_splice(w, b, n);
        b += k;
        n -= k;
    }
    while (n && !w->err) {
        ssize_t k = write(w->fd, b, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            w->err = k < 0 ? errno : EIO;
            return;
        }
        b += k;
        n -= (size_t)k;
    }
}

static void ww_flush(wire_w *w)
{
    ww_raw(w, w->buf, w->len, false);
    w->len = 0;
}

static void ww_bytes(wire_w *w, const void *p, size_t n)
{
    if (w->collect)
        return;
    if (w->len + n > WIRE_BUF) {
        ww_flush(w);
        if (n > WIRE_BUF / 2) {
            ww_raw(w, p, n, true); /* columns: straight to the pipe */
            return;
        }
    }
    if (n)
        memcpy(w->buf + w->len, p, n);
    w->len += n;
}

static void ww_u64(wire_w *w, uint64_t v)
{
    ww_bytes(w, &v, sizeof v);
}

static void ww_i64(wire_w *w, int64_t v)
{
    ww_bytes(w, &v, sizeof v);
}

static void ww_f64(wire_w *w, double v)
{
    ww_bytes(w, &v, sizeof v);
}

static void ww_str(wire_w *w, const char *s)
{
    if (!s) {
        ww_u64(w, WIRE_NULL);
        return;
    }
    size_t n = strlen(s);
    ww_u64(w, n);
    ww_bytes(w, s, n);
}

static void ww_strv(wire_w *w, char *const *v, size_t n)
{
    ww_u64(w, v != NULL);
    for (size_t i = 0; v && i < n; i++)
        ww_str(w, v[i]);
}

/* An optional column of n elements of size sz. */
static void ww_col(wire_w *w, const void *v, size_t n, size_t sz)
{
    if (w->collect && v && n * sz >= WIRE_BUF) {
        if (w->nranges == w->cap) {
            size_t cap = w->cap ? 2 * w->cap : 64;
            ww_range *g = realloc(w->ranges, cap * sizeof *g);
            if (!g) {
                w->err = ENOMEM;
                return;
            }
            w->ranges = g;
            w->cap = cap;
        }
        w->ranges[w->nranges++] = (ww_range){(uintptr_t)v, (uintptr_t)v + n * sz};
    }
    ww_u64(w, v != NULL);
    w->in_col = true;
    if (v)
        ww_bytes(w, v, n * sz);
    w->in_col = false;
}

static void ww_region(wire_w *w, const region *r)
{
    ww_str(w, r->name);
    ww_u64(w, r->has_event_data);
    ww_u64(w, r->n);
    const int64_t *cols[] = {r->start_ns, r->end_ns,   r->call_ids, r->parent_ids, r->thread_ids,
                             r->task_ids, r->await_ns, r->gpu_ns,   r->own_excl_ns};
    for (size_t i = 0; i < sizeof cols / sizeof *cols; i++)
        ww_col(w, cols[i], r->n, sizeof(int64_t));
    ww_strv(w, r->event_meta, r->n);
    ww_str(w, r->source_file);
    ww_str(w, r->source_text);
    ww_i64(w, r->source_lineno);
    ww_u64(w, r->has_lineno);
    ww_u64(w, r->ntags);
    ww_strv(w, r->tags, r->ntags);
    ww_u64(w, r->has_stored_summary);
    ww_bytes(w, &r->stored, sizeof r->stored); /* plain numbers */
    ww_bytes(w, &r->st, sizeof r->st);
    ww_u64(w, r->has_stored_exclusive);
    ww_i64(w, r->stored_exclusive_ns);
    /* Out-of-core (stream.h): the flags and the thread list stand for the columns. */
    ww_u64(w, r->streamed);
    ww_u64(w, r->stream_excl_unknown);
    ww_u64(w, r->stream_cols);
    ww_u64(w, r->stream_nthreads);
    ww_col(w, r->stream_threads, r->stream_nthreads, sizeof(int64_t));
}

static void ww_threads(wire_w *w, const thread_table *t)
{
    ww_u64(w, t->n);
    ww_strv(w, t->name, t->n);
    ww_col(w, t->ident, t->n, sizeof(int64_t));
    ww_col(w, t->native_id, t->n, sizeof(int64_t));
    ww_col(w, t->daemon, t->n, sizeof(int8_t));
    ww_col(w, t->start_ns, t->n, sizeof(int64_t));
    ww_col(w, t->end_ns, t->n, sizeof(int64_t));
    ww_col(w, t->cpu_ns, t->n, sizeof(int64_t));
}

static void ww_tasks(wire_w *w, const task_table *t)
{
    ww_u64(w, t->n);
    ww_strv(w, t->name, t->n);
    ww_col(w, t->thread, t->n, sizeof(int64_t));
    ww_strv(w, t->kind, t->n);
    ww_strv(w, t->coro_name, t->n);
    const int64_t *cols[] = {t->created_ns, t->done_ns, t->steps, t->running_ns, t->suspended_ns};
    for (size_t i = 0; i < sizeof cols / sizeof *cols; i++)
        ww_col(w, cols[i], t->n, sizeof(int64_t));
}

static void ww_line(wire_w *w, const line_profile *lp)
{
    ww_str(w, lp->region);
    ww_str(w, lp->filename);
    ww_str(w, lp->function);
    ww_i64(w, lp->first_lineno);
    ww_f64(w, lp->unit_s);
    ww_str(w, lp->source);
    ww_i64(w, lp->source_first_lineno);
    ww_u64(w, lp->n);
    ww_col(w, lp->lineno, lp->n, sizeof(int64_t));
    ww_col(w, lp->hits, lp->n, sizeof(int64_t));
    ww_col(w, lp->times, lp->n, sizeof(double));
}

static void ww_perf(wire_w *w, const perf_record *pr)
{
    ww_str(w, pr->kind);
    ww_str(w, pr->region);
    ww_i64(w, pr->calls);
    ww_u64(w, pr->n);
    ww_strv(w, pr->names, pr->n);
    ww_col(w, pr->values, pr->n, sizeof(double));
}

static void ww_rank(wire_w *w, const rank_data *rk)
{
    ww_i64(w, rk->rank);
    ww_u64(w, rk->has_threads);
    ww_u64(w, rk->has_tasks);
    ww_u64(w, rk->explicit_ids);
    ww_u64(w, rk->ninferred_lanes);
    ww_threads(w, &rk->threads);
    ww_tasks(w, &rk->tasks);
    ww_u64(w, rk->nlines);
    for (size_t i = 0; i < rk->nlines; i++)
        ww_line(w, &rk->lines[i]);
    ww_u64(w, rk->nperf);
    for (size_t i = 0; i < rk->nperf; i++)
        ww_perf(w, &rk->perf[i]);
    ww_u64(w, rk->nregions);
    for (size_t i = 0; i < rk->nregions; i++)
        ww_region(w, rk->regions[i]);
}

static int ww_end(wire_w *w)
{
    ww_bytes(w, WIRE_END, 4);
    ww_flush(w);
    return w->err;
}

static int ww_send_profile(int fd, const profile *p, bool release, const wire_section *sec);

int wire_send_profile(int fd, const profile *p)
{
    return ww_send_profile(fd, p, false, NULL);
}

int wire_send_profile_final(int fd, const profile *p)
{
    return ww_send_profile(fd, p, true, NULL);
}

static void ww_profile(wire_w *w, const profile *p);
static void ww_section(wire_w *w, const wire_section *sec);

static int range_cmp(const void *a, const void *b)
{
    const ww_range *x = a, *y = b;
    return (x->lo > y->lo) - (x->lo < y->lo);
}

/* Releasing a column's pages is safe only if no other column shares its
 * bytes (the second would be sent as zeros): a dry run lists the columns
 * that may be lent and checks that no two overlap. */
static bool ww_columns_disjoint(wire_w *w, const profile *p, const wire_section *sec)
{
    w->collect = true;
    ww_profile(w, p);
    ww_section(w, sec);
    w->collect = false;
    bool ok = w->err == 0;
    if (ok && w->nranges > 1) {
        qsort(w->ranges, w->nranges, sizeof *w->ranges, range_cmp);
        for (size_t i = 1; i < w->nranges && ok; i++)
            ok = w->ranges[i].lo >= w->ranges[i - 1].hi;
    }
    free(w->ranges);
    w->ranges = NULL;
    w->nranges = w->cap = 0;
    w->err = 0;
    return ok;
}

static int ww_send_profile(int fd, const profile *p, bool release, const wire_section *sec)
{
    wire_w *w = calloc(1, sizeof *w);
    if (!w)
        return ENOMEM;
    w->fd = fd;
    struct stat st;
    w->splice = fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode);
    w->release = release && w->splice && ww_columns_disjoint(w, p, sec);
    ww_profile(w, p);
    ww_section(w, sec);
    int e = ww_end(w);
    free(w);
    return e;
}

static void ww_profile(wire_w *w, const profile *p)
{
    ww_bytes(w, WIRE_MAGIC "P", 5);
    ww_str(w, p->path);
    ww_u64(w, p->npaths);
    ww_strv(w, p->paths, p->npaths);
    ww_u64(w, p->file_size);
    ww_i64(w, p->schema);
    ww_i64(w, p->layout);
    ww_u64(w, p->legacy);
    ww_u64(w, p->nmeta);
    for (size_t i = 0; i < p->nmeta; i++) {
        ww_str(w, p->meta[i].key);
        ww_i64(w, p->meta[i].kind);
        ww_str(w, p->meta[i].text);
    }
    ww_u64(w, p->has_min_start);
    ww_i64(w, p->min_start_ns);
    ww_u64(w, p->nwarnings);
    ww_strv(w, p->warnings, p->nwarnings);
    ww_u64(w, p->nranks);
    for (size_t i = 0; i < p->nranks; i++)
        ww_rank(w, &p->ranks[i]);
}

int wire_send_error(int fd, const sv_error *e)
{
    wire_w *w = calloc(1, sizeof *w);
    if (!w)
        return ENOMEM;
    w->fd = fd;
    w->err = 0;
    w->len = 0;
    w->splice = false;
    ww_bytes(w, WIRE_MAGIC "E", 5);
    ww_i64(w, e->code);
    ww_str(w, e->msg);
    int rc = ww_end(w);
    free(w);
    return rc;
}

/* ------------------------------------------------------------ reader */

typedef struct wire_r {
    wire_src src;
    wire_status bad;  /* WIRE_PROFILE while all is well */
    const char *what; /* what was being read when it went wrong */
    uint64_t budget, used;
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

/* Column arrays as the loader allocates them (h5util): big ones 2 MiB-aligned
 * with a huge-page hint, medium ones faulted in by one madvise; page faults
 * cost more than the copy from the pipe.  Big ones are faulted in by the
 * read itself, one huge page at a time, not all at once beforehand: the
 * sender releases its pages as they are read (wire_send_profile_final), so
 * each huge page is taken just after one of those is freed and reuses warm
 * memory instead of fresh pages (several times slower to fault in on a VM).
 * free() releases either. */
#define WR_HUGE_MIN ((size_t)4 << 20)
#define WR_HUGE_STEP ((size_t)2 << 20)

static void *wr_column_mem(size_t bytes)
{
    const size_t huge_min = WR_HUGE_MIN, align = WR_HUGE_STEP;
    if (bytes < huge_min) {
        void *p = malloc(bytes ? bytes : 1);
#ifdef MADV_POPULATE_WRITE
        if (p && bytes >= ((size_t)64 << 10)) {
            uintptr_t a = ((uintptr_t)p + 4095) & ~(uintptr_t)4095;
            uintptr_t e = ((uintptr_t)p + bytes) & ~(uintptr_t)4095;
            if (e > a)
                madvise((void *)a, e - a, MADV_POPULATE_WRITE);
        }
#endif
        return p;
    }
    size_t sz = (bytes + align - 1) & ~(align - 1);
    void *p;
    if (posix_memalign(&p, align, sz) != 0)
        return NULL;
    madvise(p, sz, MADV_HUGEPAGE);
    return p;
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
    if (bytes < WR_HUGE_MIN)
        return wr_bytes(r, v, bytes);
    for (size_t off = 0; off < bytes; off += WR_HUGE_STEP) {
        size_t k = bytes - off < WR_HUGE_STEP ? bytes - off : WR_HUGE_STEP;
#ifdef MADV_POPULATE_WRITE
        /* v is 2 MiB-aligned and its allocation a whole number of steps. */
        madvise(v + off, WR_HUGE_STEP, MADV_POPULATE_WRITE);
#endif
        if (!wr_bytes(r, v + off, k))
            return false;
    }
    return true;
}

static void *wr_col(wire_r *r, size_t n, size_t sz)
{
    if (!wr_bool(r))
        return NULL;
    void *v = sz && n > UINT64_MAX / sz ? NULL : wr_alloc_mem(r, (uint64_t)n * sz, true);
    if (!v && r->bad == WIRE_PROFILE)
        wr_fail(r, WIRE_BUDGET);
    if (v && !wr_col_bytes(r, v, n * sz)) {
        free(v);
        return NULL;
    }
    return v;
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
    int64_t **cols[] = {&g->start_ns, &g->end_ns,   &g->call_ids, &g->parent_ids, &g->thread_ids,
                        &g->task_ids, &g->await_ns, &g->gpu_ns,   &g->own_excl_ns};
    r->what = "a region's columns";
    for (size_t i = 0; i < sizeof cols / sizeof *cols; i++)
        *cols[i] = wr_col(r, g->n, sizeof(int64_t));
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
    if (paths && np) {
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
    p->file_size = wr_u64(r);
    p->schema = (int)wr_i64(r);
    int64_t layout = wr_i64(r);
    p->layout = layout >= LAYOUT_GROUPS && layout <= LAYOUT_AGGREGATE ? (profile_layout)layout
                                                                      : LAYOUT_GROUPS;
    p->legacy = wr_bool(r);
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
    if (r->bad == WIRE_BUDGET)
        sv_error_set(err, SV_ERR_NOMEM,
                     "the loaded profile needs more than the memory budget (%llu MiB) at %s",
                     (unsigned long long)(r->budget >> 20), r->what);
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

/* ------------------------------------------------------------ sections
 *
 * An optional section between the model and "END!": "SEC1", then what the
 * section's put wrote (wire.h).  A receiver that asks for a section
 * requires it; one that does not rejects a stream that has one. */

#define WIRE_SECTION "SEC1"

int wire_send_profile_section(int fd, const profile *p, bool final, const wire_section *sec)
{
    return ww_send_profile(fd, p, final, sec);
}

static void ww_section(wire_w *w, const wire_section *sec)
{
    if (!sec || !sec->put)
        return;
    ww_bytes(w, WIRE_SECTION, 4);
    sec->put(w, sec->ctx);
}

static void wr_section(wire_r *r, const wire_section *sec)
{
    if (!sec || !sec->get || r->bad != WIRE_PROFILE)
        return;
    r->what = "the extra section";
    if (!wr_tag(r, WIRE_SECTION) || !sec->get(r, sec->ctx))
        wr_fail(r, WIRE_BROKEN);
}

void wire_put_u64(wire_w *w, uint64_t v)
{
    ww_u64(w, v);
}

void wire_put_bytes(wire_w *w, const void *p, size_t n)
{
    ww_bytes(w, p, n);
}

void wire_put_str(wire_w *w, const char *s)
{
    ww_str(w, s);
}

void wire_put_col(wire_w *w, const void *v, size_t n, size_t sz)
{
    ww_col(w, v, n, sz);
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
