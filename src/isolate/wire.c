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
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "wire_internal.h"

/* A field added to these structs must be carried across the isolated load:
 * write it in ww_region (or its struct's writer) here, read it in wr_region (wire_recv.c),
 * then update the size here. */
#if defined(__x86_64__) && defined(__LP64__)
_Static_assert(sizeof(region) == 496, "region changed: update wire.c");
_Static_assert(sizeof(rank_data) == 248, "rank_data changed: update wire.c");
/* Not carried: profile.run_name (the parent names the run after the load),
 * profile.cpaths, profile.slowest and profile.tbins (out of core they follow
 * as ooc_open's section), profile.shared_cols and shared_len (the receiver's
 * own mapping), profile.nest_given (the viewer's statistics' copy only). */
_Static_assert(sizeof(profile) == 216, "profile changed: update wire.c");
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
    /* The region columns went into a sealed memfd (wire_send_profile_shm):
     * the stream carries their offsets; shm_off is the layout's cursor. */
    bool shm;
    uint64_t shm_off;
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

/* The offset of the next shared column of `bytes`: the columns follow one
 * another in the stream's order, each at a multiple of WIRE_SHM_ALIGN. */
static uint64_t ww_shm_next(wire_w *w, uint64_t bytes)
{
    uint64_t off = (w->shm_off + WIRE_SHM_ALIGN - 1) & ~(uint64_t)(WIRE_SHM_ALIGN - 1);
    w->shm_off = off + bytes;
    return off;
}

static void ww_region(wire_w *w, const region *r)
{
    ww_str(w, r->name);
    ww_u64(w, r->has_event_data);
    ww_u64(w, r->n);
    const int64_t *cols[] = {r->start_ns,   r->end_ns,   r->call_ids, r->parent_ids,
                             r->thread_ids, r->task_ids, r->await_ns, r->gpu_ns};
    for (size_t i = 0; i < sizeof cols / sizeof *cols; i++) {
        if (w->shm && cols[i]) {
            uint64_t bytes = (uint64_t)r->n * sizeof(int64_t);
            ww_u64(w, WIRE_COL_SHARED);
            ww_u64(w, ww_shm_next(w, bytes));
            ww_u64(w, bytes);
        } else {
            ww_col(w, cols[i], r->n, sizeof(int64_t));
        }
    }
    ww_col(w, r->own_excl_ns, r->n, sizeof(int64_t)); /* a slice's own: never shared */
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

static int ww_send_profile_to(int fd, int shm_sock, const profile *p, bool release,
                              const wire_section *sec);

static int ww_send_profile(int fd, const profile *p, bool release, const wire_section *sec)
{
    return ww_send_profile_to(fd, -1, p, release, sec);
}

int wire_send_profile_shm(int fd, int shm_sock, const profile *p, bool final,
                          const struct wire_section *sec)
{
    return ww_send_profile_to(fd, shm_sock, p, final, sec);
}

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

/* The region columns a shared send carries, in the stream's order. */
#define WW_SHM_COLS(r)                                                                             \
    {                                                                                              \
        (r)->start_ns, (r)->end_ns, (r)->call_ids, (r)->parent_ids, (r)->thread_ids,               \
            (r)->task_ids, (r)->await_ns, (r)->gpu_ns                                              \
    }

/* Bytes the shared layout of p's region columns takes (0: none). */
static uint64_t ww_shm_size(wire_w *w, const profile *p)
{
    w->shm_off = 0;
    for (size_t i = 0; i < p->nranks; i++)
        for (size_t j = 0; j < p->ranks[i].nregions; j++) {
            const region *r = p->ranks[i].regions[j];
            const int64_t *cols[] = WW_SHM_COLS(r);
            for (size_t k = 0; k < sizeof cols / sizeof *cols; k++)
                if (cols[k])
                    (void)ww_shm_next(w, (uint64_t)r->n * sizeof(int64_t));
        }
    uint64_t total = w->shm_off;
    w->shm_off = 0;
    return total;
}

static int ww_pwrite(int fd, const void *v, size_t n, uint64_t off)
{
    const unsigned char *b = v;
    while (n) {
        ssize_t k = pwrite(fd, b, n, (off_t)off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return k < 0 ? errno : EIO;
        b += k;
        n -= (size_t)k;
        off += (uint64_t)k;
    }
    return 0;
}

/* Writes every region column into mfd at its place in the layout; with
 * release, a column's whole pages are given back once copied (the shared
 * copy is the one the receiver reads). */
static int ww_shm_fill(wire_w *w, const profile *p, int mfd)
{
    w->shm_off = 0;
    for (size_t i = 0; i < p->nranks; i++)
        for (size_t j = 0; j < p->ranks[i].nregions; j++) {
            const region *r = p->ranks[i].regions[j];
            const int64_t *cols[] = WW_SHM_COLS(r);
            for (size_t k = 0; k < sizeof cols / sizeof *cols; k++) {
                if (!cols[k])
                    continue;
                size_t bytes = r->n * sizeof(int64_t);
                int e = ww_pwrite(mfd, cols[k], bytes, ww_shm_next(w, bytes));
                if (e)
                    return e;
                uintptr_t lo = ((uintptr_t)cols[k] + 4095) & ~(uintptr_t)4095;
                uintptr_t hi = ((uintptr_t)cols[k] + bytes) & ~(uintptr_t)4095;
                if (w->release && hi > lo)
                    madvise((void *)lo, hi - lo, MADV_DONTNEED);
            }
        }
    w->shm_off = 0;
    return 0;
}

/* The memfd to the receiver, one byte and the descriptor (SCM_RIGHTS). */
static int ww_send_fd(int sock, int mfd)
{
    char byte = 'M';
    struct iovec iov = {&byte, 1};
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE(sizeof(int))];
    } ctl;
    memset(&ctl, 0, sizeof ctl);
    struct msghdr msg = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = sizeof ctl.buf};
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &mfd, sizeof mfd);
    for (;;) {
        ssize_t k = sendmsg(sock, &msg, MSG_NOSIGNAL);
        if (k == 1)
            return 0;
        if (k < 0 && errno == EINTR)
            continue;
        return k < 0 ? errno : EIO;
    }
}

/* The region columns into a sealed memfd passed on sock: true when the
 * stream is then to carry offsets (w->shm), false to send them inline
 * (no column, no memfd: an old kernel; a memfd that cannot take them: a
 * file size limit, ulimit -f), with w->err set when the columns were
 * partly released already or the descriptor could not be sent. */
static bool ww_shm_setup(wire_w *w, const profile *p, int sock)
{
    uint64_t total = ww_shm_size(w, p);
    if (sock < 0 || total == 0 || total > (uint64_t)INT64_MAX)
        return false;
    int mfd = memfd_create("scopeview-columns", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (mfd < 0)
        return false;
    /* Its whole size first: within it no write can fail for want of room. */
    if (ftruncate(mfd, (off_t)total) != 0) {
        close(mfd);
        return false;
    }
    int e = ww_shm_fill(w, p, mfd);
    if (!e && fcntl(mfd, F_ADD_SEALS, WIRE_SHM_SEALS) != 0)
        e = errno;
    if (!e)
        e = ww_send_fd(sock, mfd);
    close(mfd);
    w->err = e;
    return e == 0;
}

static int ww_send_profile_to(int fd, int shm_sock, const profile *p, bool release,
                              const wire_section *sec)
{
    wire_w *w = calloc(1, sizeof *w);
    if (!w)
        return ENOMEM;
    w->fd = fd;
    struct stat st;
    w->splice = fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode);
    w->release = release && (w->splice || shm_sock >= 0) && ww_columns_disjoint(w, p, sec);
    w->shm = ww_shm_setup(w, p, shm_sock);
    if (w->err) {
        int e = w->err;
        free(w);
        return e;
    }
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
    ww_strv(w, p->path_formats, p->npaths);
    ww_u64(w, p->file_size);
    ww_i64(w, p->schema);
    ww_i64(w, p->layout);
    ww_u64(w, p->legacy);
    ww_u64(w, p->format);
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

/* ------------------------------------------------------------ sections
 *
 * An optional section between the model and "END!": "SEC1", then what the
 * section's put wrote (wire.h).  A receiver that asks for a section
 * requires it; one that does not rejects a stream that has one. */

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

int wire_send_part(int fd, const wire_section *sec)
{
    wire_w *w = calloc(1, sizeof *w);
    if (!w)
        return ENOMEM;
    w->fd = fd; /* no splice: the sender keeps writing the memory it sends */
    ww_bytes(w, WIRE_MAGIC "Q", 5);
    ww_section(w, sec);
    int rc = ww_end(w);
    free(w);
    return rc;
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
