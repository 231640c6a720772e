/* export_ooc_run: the parent's side of an export out of core (export_ooc.h).  It opens the
 * file with the export's hook (its sink is export_ooc.c's, in the loading child), then judges
 * what the child's shared page says, and writes what only the parent can once the open
 * returns: the Chrome trace's M events, counters and end from the skeleton and the map, or
 * speedscope's document from the spill file, lane by lane in the map's order. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export_internal.h"
#include "export_ooc.h"
#include "ooc/ooc_paths.h"
#include "ooc/ooc_scan.h"
#include "util/grow.h"
#include "util/text.h"

static sv_err write_error(sv_error *err, int e)
{
    sv_error_set(err, SV_ERR_IO, "%s", strerror(e));
    errno = e; /* for the caller's sink or its closed-pipe check */
    return SV_ERR_IO;
}

/* What the open and the child's page say, once the open returned rc. */
static sv_err child_verdict(const xo_status *st, const ooc_file *file, const char *epath, sv_err rc,
                            sv_error *err)
{
    if (st->werrno)
        return write_error(err, st->werrno);
    if (rc != SV_OK)
        return rc;
    if (st->lost)
        return sv_error_set(err, SV_ERR_NO_EVENT_DATA, "%s: out of core: %s", epath, st->why);
    if (!st->finished)
        return sv_error_set(err, SV_ERR_DAMAGED, "%s: out of core: the export was not finished",
                            epath);
    if (st->events && (file->map.nlanes == 0 || st->zero != export_zero(file->skel)))
        return sv_error_set(err, SV_ERR_DAMAGED,
                            "%s: out of core: the export's lanes or time zero are not the "
                            "profile's",
                            epath);
    return SV_OK;
}

static int lane_cmp(const void *a, const void *b)
{
    const xo_lane *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return (x->tid > y->tid) - (x->tid < y->tid);
}

static bool read_at(int fd, void *p, size_t n, uint64_t off)
{
    char *b = p;
    size_t at = 0;
    while (at < n) {
        ssize_t r = pread(fd, b + at, n - at, (off_t)(off + at));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        at += (size_t)r;
    }
    return true;
}

/* The lane table the child wrote after its spill's events (sorted by lane_cmp); NULL on a
 * failure, said in err. */
static xo_lane *read_lanes(int spill, const xo_status *st, size_t *n, sv_error *err)
{
    *n = (size_t)st->nlanes;
    xo_lane *v = *n == st->nlanes ? malloc((*n ? *n : 1) * sizeof *v) : NULL;
    if (!v) {
        sv_error_set(err, SV_ERR_NOMEM, "out of memory");
        return NULL;
    }
    if (*n && !read_at(spill, v, *n * sizeof *v, st->lanes_off)) {
        free(v);
        sv_error_set(err, SV_ERR_IO, "the temporary file cannot be read back");
        return NULL;
    }
    qsort(v, *n, sizeof *v, lane_cmp);
    return v;
}

typedef struct xo_table {
    const xo_lane *v;
    size_t n;
} xo_table;

static const xo_lane *lane_find(const xo_table *t, size_t rank, int64_t tid)
{
    xo_lane key = {.rank = rank, .tid = tid};
    return t->n ? bsearch(&key, t->v, t->n, sizeof *t->v, lane_cmp) : NULL;
}

static bool lane_written(const void *u, size_t rank, int64_t tid)
{
    return lane_find(u, rank, tid) != NULL;
}

#define XO_EPATH 400

/* An export's start: path as its errors show it in epath (XO_EPATH bytes), no open file yet,
 * and the child's spill, an unlinked temporary file, gone with the process. */
static sv_err run_begin(const char *path, char *epath, FILE **tmp, ooc_file **out, sv_error *err)
{
    text_escape_buf(epath, XO_EPATH, path);
    *out = NULL;
    *tmp = tmpfile();
    return *tmp ? SV_OK
                : sv_error_set(err, SV_ERR_IO, "cannot make a temporary file: %s", strerror(errno));
}

sv_err export_ooc_chrome(const char *path, uint64_t budget, const region_filter *f,
                         const export_range *rg, FILE *fp, FILE *warn, ooc_file **out,
                         sv_error *err)
{
    char epath[XO_EPATH];
    FILE *tmp = NULL;
    sv_err rc = run_begin(path, epath, &tmp, out, err);
    if (rc != SV_OK)
        return rc;
    fputs("{\"traceEvents\":[\n", fp);
    if (fflush(fp) != 0 || ferror(fp)) {
        fclose(tmp);
        return write_error(err, errno ? errno : EIO);
    }
    /* Its own descriptor: the loading child points 0, 1 and 2 elsewhere. */
    int fd = fcntl(fileno(fp), F_DUPFD_CLOEXEC, 3);
    if (fd < 0) {
        fclose(tmp);
        return write_error(err, errno);
    }
    xo_run x;
    if (!xo_run_init(&x, fd)) {
        close(fd);
        fclose(tmp);
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory");
    }
    x.spill = fileno(tmp);
    x.range = *rg;
    isolate_tail *tail = NULL; /* the statistics pass is not wanted: its child is ended */
    isolate_options io = {.budget = budget, .tail = &tail};
    rc = ooc_open_hooked(path, &io, f, &x.hook, out, err);
    isolate_tail_free(tail);
    if (x.st->spill_errno && !x.st->werrno)
        rc = sv_error_set(err, SV_ERR_IO, "cannot write a temporary file: %s",
                          strerror(x.st->spill_errno));
    else
        rc = child_verdict(x.st, *out, epath, rc, err);
    xo_table t = {NULL, 0};
    xo_lane *lanes = rc == SV_OK ? read_lanes(fileno(tmp), x.st, &t.n, err) : NULL;
    t.v = lanes;
    if (rc == SV_OK && !lanes)
        rc = err->code;
    uint64_t overlap = x.st->overlap;
    if (x.st->werrno) { /* fp's own error too, which standard output's check reads */
        fputc('\n', fp);
        fflush(fp);
        errno = x.st->werrno;
    }
    xo_run_free(&x);
    close(fd);
    fclose(tmp);
    if (rc == SV_OK)
        rc = export_chrome_finish_ooc((*out)->skel, &(*out)->map, f, rg, lane_written, &t, true, fp,
                                      err);
    free(lanes);
    if (rc == SV_OK && overlap) {
        export_walk_stats ws = {.overlap = (size_t)overlap};
        export_warn_overlap(warn, &ws);
    }
    return rc;
}

/* ------------------------------------------------------------ speedscope, the parent */

/* The spill read back through a window of XO_WIN bytes: a lane's blocks are 4 KiB apart when
 * its rank has one lane, and a read of each (three with the chain's walk) cost more system
 * time than the writing. */
#define XO_WIN (1u << 20)
typedef struct xo_win {
    int fd;
    char *buf;
    uint64_t off;
    size_t len;
} xo_win;

static bool win_read(xo_win *w, void *p, size_t n, uint64_t off)
{
    if (n > XO_WIN)
        return read_at(w->fd, p, n, off);
    if (off < w->off || off + n > w->off + w->len) {
        uint64_t base = off / XO_WIN * XO_WIN;
        base = off + n > base + XO_WIN ? off : base;
        ssize_t r;
        do
            r = pread(w->fd, w->buf, XO_WIN, (off_t)base);
        while (r < 0 && errno == EINTR);
        w->off = base;
        w->len = r > 0 ? (size_t)r : 0;
        if (off + n > w->off + w->len)
            return false;
    }
    memcpy(p, w->buf + (off - w->off), n);
    return true;
}

/* One lane's profile from its blocks, which are chained from the last. */
static sv_err ss_lane_out(export_ss *w, xo_win *spill, profile *skel, const xo_lane *xl,
                          const ooc_lane *ml, sv_error *err)
{
    uint64_t *offs = NULL;
    size_t n = 0, cap = 0;
    bool ok = true;
    for (uint64_t at = xl->last; ok && at; n++) {
        xo_block_head h;
        ok = sv_grow((void **)&offs, &cap, n + 1, sizeof *offs, 64) &&
             win_read(spill, &h, sizeof h, at - 1) && h.prev < at;
        if (ok)
            offs[n] = at - 1;
        at = ok ? h.prev : 0;
    }
    rank_data *rk = &skel->ranks[xl->rank];
    lane ln = {.rk = rk, .kind = ml->kind, .row = ml->row};
    sv_err rc = ok ? export_ss_lane(w, &ln, xl->t0, xl->t1)
                   : sv_error_set(err, SV_ERR_IO, "the temporary file cannot be read back");
    xo_ev ev[XO_BLOCK_SLOTS];
    uint64_t slot[XO_BLOCK_SLOTS];
    for (size_t b = n; rc == SV_OK && b-- > 0;) {
        xo_block_head h;
        size_t nev = 0;
        if (!win_read(spill, &h, sizeof h, offs[b]) || h.n > XO_BLOCK_SLOTS ||
            !win_read(spill, slot, h.n * sizeof *slot, offs[b] + sizeof h) ||
            !xo_ev_unpack(ev, &nev, slot, h.n)) {
            rc = sv_error_set(err, SV_ERR_IO, "the temporary file cannot be read back");
            break;
        }
        for (size_t i = 0; rc == SV_OK && i < nev; i++)
            rc = ev[i].reg < rk->nregions
                     ? export_ss_event(w, rk->regions[ev[i].reg], ev[i].open, ev[i].at)
                     : sv_error_set(err, SV_ERR_DAMAGED, "a spilled event names no region");
    }
    free(offs);
    return rc == SV_OK ? export_ss_lane_end(w) : rc;
}

/* The document from the spill: the lanes in the map's (the timeline's) order. */
static sv_err ss_write(int spill, const xo_status *st, ooc_file *file, const region_filter *f,
                       FILE *fp, sv_error *err)
{
    xo_table t;
    xo_lane *v = read_lanes(spill, st, &t.n, err);
    if (!v)
        return err->code;
    t.v = v;
    xo_win win = {spill, malloc(XO_WIN), UINT64_MAX, 0};
    if (!win.buf) {
        free(v);
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory");
    }
    export_ss *w = NULL;
    sv_err rc = export_ss_begin(&w, file->skel, f, fp, err);
    for (size_t l = 0; rc == SV_OK && l < file->map.nlanes; l++) {
        const ooc_lane *ml = &file->map.lanes[l];
        const xo_lane *xl = lane_find(&t, ml->rank_index, export_lane_tid(ml->kind, ml->row));
        if (xl && xl->rank < file->skel->nranks)
            rc = ss_lane_out(w, &win, file->skel, xl, ml, err);
    }
    if (rc == SV_OK)
        rc = export_ss_end(w);
    export_ss_free(w);
    free(win.buf);
    free(v);
    return rc;
}

sv_err export_ooc_speedscope(const char *path, uint64_t budget, const region_filter *f,
                             const export_range *rg, FILE *fp, FILE *warn, ooc_file **out,
                             sv_error *err)
{
    char epath[XO_EPATH];
    FILE *tmp = NULL;
    sv_err rc = run_begin(path, epath, &tmp, out, err);
    if (rc != SV_OK)
        return rc;
    xo_run x;
    if (!xo_run_init(&x, -1)) {
        fclose(tmp);
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory");
    }
    x.speedscope = true;
    x.hook.aux = false; /* speedscope has no args */
    x.hook.ids = false;
    x.spill = fileno(tmp);
    x.range = *rg;
    isolate_tail *tail = NULL;
    isolate_options io = {.budget = budget, .tail = &tail};
    rc = ooc_open_hooked(path, &io, f, &x.hook, out, err);
    isolate_tail_free(tail);
    if (x.st->spill_errno)
        rc = sv_error_set(err, SV_ERR_IO, "cannot write a temporary file: %s",
                          strerror(x.st->spill_errno));
    else
        rc = child_verdict(x.st, *out, epath, rc, err);
    if (rc == SV_OK)
        rc = ss_write(fileno(tmp), x.st, *out, f, fp, err);
    uint64_t overlap = x.st->overlap;
    xo_run_free(&x);
    fclose(tmp);
    if (rc == SV_OK && overlap) {
        export_walk_stats ws = {.overlap = (size_t)overlap};
        export_warn_overlap(warn, &ws);
    }
    return rc;
}

/* ------------------------------------------------------------ folded stacks */

/* Folded stacks are the call paths' (export_folded.c): the other sinks' aggregates (the
 * overview's lanes, bins, slowest calls) would be a third of the sweep. */
static bool folded_attach(void *ctx, ooc_scan *sc, const ooc_sweep_view *v)
{
    (void)ctx;
    (void)v;
    for (size_t i = 0; i < sc->nsinks; i++)
        if (sc->sinks[i].ops == &ooc_paths_sink) {
            ooc_scan_mute_others(sc, sc->sinks[i].self, "an export makes no overview");
            break;
        }
    ooc_scan_sinks_only(sc);
    return true;
}

const ooc_sink_hook *export_ooc_folded_hook(void)
{
    static const ooc_sink_hook hook = {folded_attach, NULL, NULL, false, false, true};
    return &hook;
}
