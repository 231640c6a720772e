/* export_ooc: the Chrome trace and speedscope out of core (export_ooc.h), the loading child's
 * side: the export's sink (export_ooc_run.c is the parent's side).
 *
 * The export's sink is the only one the sweep feeds (ooc_scan_mute_others: the overview's
 * aggregates would cost as much again).  A time range is export_walk.c's: a call is pushed
 * in its lane when it overlaps the range, cut to it (its exclusive time the whole call's).
 *
 * The sink runs in the loading child and sees each call once, in the sweep's order (rank by
 * rank, start then the longer first), with its stack (key) and the depth below it there.
 * Two kinds of stacks are kept, both as deep as the nesting, never as long as the calls:
 * - a shadow stack per key of every call (kept by the filter or not), whose children's
 *   union gives each call's exclusive time as nest.c computes it (ooc_paths.c's way);
 * - a stack per lane (tid) of the calls written, driven as export_walk.c drives its walk: a
 *   call closes the open calls that do not contain it, and cuts one it outlasts where it
 *   starts.
 * A call's B is written when it is pushed, its E once it is closed in its lane and its
 * exclusive time is final: at once when the call that closes it starts after it ends (no
 * callee of length can follow), else when it leaves its shadow stack.  A call of no length
 * is an instant, written at once (its exclusive time is 0).  The walk writes a call of no
 * length before the calls of a length that start with it; the sweep has it after them, in
 * them: the same events (an instant holds nothing), another order.
 * Args: a B's call_index and, as the hook asks the sweep to read those columns too
 * (ooc_sink_hook.aux, ids), its call_id where its row has ids (a rank swept by time may have
 * them in some rows; in memory they are written), await_us and gpu_us where recorded; the E's
 * exclusive_us.  A rank the sweep cannot nest (call ids, a row out of order) that the child
 * does in memory within the budget comes whole as its lanes index (ooc_scan_add_lanes): its
 * lanes are walked by export_walk.c itself, so its events (call_id too) and their order are
 * the in-memory ones.
 * Output: events ending ",\n" written to the export's file descriptor, shared with the
 * parent (which wrote the header and writes the M events, the counters and the end once the
 * open returns: the lanes' names and order are known then, and the lanes with events from
 * the table of them the child leaves in its spill file).  What the parent must know
 * (a write's errno, why the export is incomplete, counts) is in a page shared across the
 * fork.  The file is read once where the output can go back to its start (a file, a device,
 * speedscope's spill): the ranks are swept as the load reads them, on a time zero guessed from
 * the file's stored statistics (ooc_sink_hook.early), and when the file's end finds a guess
 * wrong and sweeps again, attach comes again and the output is rewound to where the child
 * began (restart).  A pipe's sweep waits for the file's end.
 * speedscope (xo_run.speedscope) drives the same lane stacks without the exclusive times:
 * each lane's opens and closes go to its block of XO_BLOCK_EVENTS, full blocks to the spill
 * file (packed, 8 bytes an event: xo_ev_pack) chained from the lane's last one, and the lane
 * table after them; the events at the instant of a call being pushed are held back so that a
 * call of no length starting then comes first, as in export_walk.c.  The parent writes the
 * document from the spill, lane by lane in the map's order, through export_speedscope.c's
 * pieces (export_ooc_run.c). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sync_file_range */
#endif
#include "export_ooc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export_internal.h"
#include "ooc/ooc_excl.h"
#include "ooc/ooc_scan.h"
#include "util/checked.h"
#include "util/grow.h"
#include "util/text.h"

#define XO_NONE UINT32_MAX
#define XO_BUF (1u << 18)

typedef struct xo_rec { /* a call written, open in its lane */
    int64_t s, e;       /* e: cut where a later call of its lane starts */
    int64_t excl;
    int64_t tid;
    uint32_t reg;
    uint32_t key, kpos; /* its shadow stack entry while key_open */
    bool key_open, lane_open;
} xo_rec;

/* A stack's open calls are an ooc_excl_stack: each entry's tag is its
 * record (XO_NONE: not written). */

typedef struct xo_pre {
    char s[64];
    size_t len;
} xo_pre;

typedef struct xo_lstack {
    uint32_t *v; /* records */
    size_t sp, cap;
    xo_pre pre[3]; /* Chrome: the events' heads (lane_pre) for rank pre_rank - 1 */
    size_t pre_rank;
    /* speedscope */
    uint32_t id; /* its entry in the lane table + 1, 0 before its first call */
    xo_ev *blk;  /* XO_BLOCK_EVENTS */
    size_t nblk;
    xo_ev *inst; /* the events at instant inst_t held back for the calls of no length */
    size_t ninst, inst_cap;
    int64_t inst_t;
} xo_lstack;

typedef struct xo_name {
    char *json; /* padded to a multiple of XO_PAD, for copy_padded */
    size_t len;
} xo_name;

#define XO_PAD 32

/* n bytes of s at o, in blocks of XO_PAD: s has room for them, o for XO_PAD - 1 bytes more.
 * Blocks of a known size are a few moves; memcpy of a name's length is a call. */
static char *copy_padded(char *o, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i += XO_PAD)
        memcpy(o + i, s + i, XO_PAD);
    return o + n;
}

typedef struct xo_sink {
    int fd;
    xo_status *st;
    ooc_sweep_view v;
    size_t rank; /* the rank being swept, SIZE_MAX before the first */
    int pid;
    xo_name *names;
    size_t nnames;
    ooc_excl_stack *ks;
    size_t nks;
    xo_lstack *ls; /* by tid */
    size_t nls;
    xo_rec *recs;
    size_t nrecs, recs_cap;
    uint32_t *free_recs;
    size_t nfree, free_cap;
    char *buf;
    size_t len;
    bool failed;
    /* A regular file: its pages go to the disk as they are written (out_flush). */
    bool regular;
    uint64_t off, win; /* fd's offset; where the window being written back starts */
    int64_t lo, hi;    /* the range, absolute ns: export_walk.c's */
    export_range range;
    /* a rank done in memory (sink_lanes): its lane being walked, its regions' indices */
    xo_lstack *wl;
    int64_t wtid;
    const rank_data *wrk;
    const uint32_t *wmap;
    /* speedscope: the events go to the spill file, a lane's in its own blocks; both write
     * the table of the lanes written there (the Chrome trace's M events name those only) */
    bool ss;
    int spill;
    uint64_t spill_len; /* written and buffered */
    char *sbuf;         /* XO_BUF */
    size_t nsbuf;
    xo_lane *lanes;
    size_t nlanes, lanes_cap;
} xo_sink;

/* ------------------------------------------------------------ output */

#define XO_WINDOW (32u << 20)

/* A regular file's last window of XO_WINDOW bytes is started to the disk, the one before it
 * waited for and dropped from the page cache: the export's fsync then finds little left to
 * write, the disk works while the sweep does, and a trace larger than the memory does not
 * fill the page cache with pages that will not be read again.  Only hints: an error is
 * the fsync's to report. */
static void out_writeback(xo_sink *k)
{
#ifdef SYNC_FILE_RANGE_WRITE
    if (!k->regular || k->off - k->win < XO_WINDOW)
        return;
    sync_file_range(k->fd, (off_t)k->win, (off_t)(k->off - k->win), SYNC_FILE_RANGE_WRITE);
    if (k->win >= XO_WINDOW) {
        off_t prev = (off_t)(k->win - XO_WINDOW);
        sync_file_range(k->fd, prev, XO_WINDOW,
                        SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
                            SYNC_FILE_RANGE_WAIT_AFTER);
        posix_fadvise(k->fd, prev, XO_WINDOW, POSIX_FADV_DONTNEED);
    }
    k->win += XO_WINDOW;
#else
    (void)k;
#endif
}

static bool out_flush(xo_sink *k)
{
    size_t at = 0;
    while (!k->failed && at < k->len) {
        ssize_t w = write(k->fd, k->buf + at, k->len - at);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            k->st->werrno = w < 0 ? errno : EIO;
            k->failed = true;
            break;
        }
        at += (size_t)w;
    }
    k->off += at;
    k->len = 0;
    out_writeback(k);
    return !k->failed;
}

/* Room for one event: its fixed parts, its name and a few numbers, and the copies' overrun
 * (copy_padded, the whole of an xo_pre). */
static char *out_room(xo_sink *k, size_t name_len)
{
    if (k->len + name_len + 512 > XO_BUF && !out_flush(k))
        return NULL;
    return k->buf + k->len;
}

enum { XO_B, XO_E, XO_I };

/* '{"ph":"B","pid":1,"tid":2,"ts":' and the E's and the instant's for the lane of tid, made
 * once a rank: formatting them each event cost a fifth of the writer. */
static const xo_pre *lane_pre(xo_sink *k, int64_t tid)
{
    xo_lstack *ls = &k->ls[tid];
    if (ls->pre_rank != k->rank + 1) {
        static const char *const ph[3] = {"{\"ph\":\"B\",\"pid\":", "{\"ph\":\"E\",\"pid\":",
                                          "{\"ph\":\"i\",\"s\":\"t\",\"pid\":"};
        for (int i = 0; i < 3; i++) {
            char *o = export_copy_at(ls->pre[i].s, ph[i], strlen(ph[i]));
            o = export_i64_at(o, k->pid);
            o = EXPORT_LIT(o, ",\"tid\":");
            o = export_i64_at(o, tid);
            o = EXPORT_LIT(o, ",\"ts\":");
            ls->pre[i].len = (size_t)(o - ls->pre[i].s);
        }
        ls->pre_rank = k->rank + 1;
    }
    return ls->pre;
}

static char *put_head(xo_sink *k, char *o, int ph, int64_t tid, int64_t at)
{
    const xo_pre *pre = &lane_pre(k, tid)[ph];
    memcpy(o, pre->s, sizeof pre->s); /* whole: a copy of a known size */
    o += pre->len;
    o = export_us_at(o, at - k->v.zero);
    o = EXPORT_LIT(o, ",\"name\":");
    return o;
}

static const xo_name *name_of(const xo_sink *k, uint32_t reg)
{
    static const char empty[XO_PAD] = "\"\""; /* never written through unknown */
    static const xo_name unknown = {(char *)empty, 2};
    return reg < k->nnames ? &k->names[reg] : &unknown;
}

static bool put_open(xo_sink *k, const ooc_call *c, int64_t tid, bool instant)
{
    const xo_name *nm = name_of(k, c->reg);
    char *o = out_room(k, nm->len);
    if (!o)
        return false;
    o = put_head(k, o, instant ? XO_I : XO_B, tid, c->s);
    o = copy_padded(o, nm->json, nm->len);
    o = EXPORT_LIT(o, ",\"cat\":\"region\",\"args\":{\"call_index\":");
    o = export_i64_at(o, (int64_t)c->pos);
    if (c->has_call_id) {
        o = EXPORT_LIT(o, ",\"call_id\":");
        o = export_i64_at(o, c->call_id);
    }
    if (instant)
        o = EXPORT_LIT(o, ",\"exclusive_us\":0.000");
    if (c->await_ns >= 0) {
        o = EXPORT_LIT(o, ",\"await_us\":");
        o = export_us_at(o, c->await_ns);
    }
    if (c->gpu_ns >= 0) {
        o = EXPORT_LIT(o, ",\"gpu_us\":");
        o = export_us_at(o, c->gpu_ns);
    }
    o = EXPORT_LIT(o, "}},\n");
    k->len = (size_t)(o - k->buf);
    k->st->events++;
    return true;
}

static bool put_close(xo_sink *k, const xo_rec *r)
{
    const xo_name *nm = name_of(k, r->reg);
    char *o = out_room(k, nm->len);
    if (!o)
        return false;
    o = put_head(k, o, XO_E, r->tid, r->e);
    o = copy_padded(o, nm->json, nm->len);
    o = EXPORT_LIT(o, ",\"args\":{\"exclusive_us\":");
    o = export_us_at(o, r->excl);
    o = EXPORT_LIT(o, "}},\n");
    k->len = (size_t)(o - k->buf);
    k->st->events++;
    return true;
}

/* ------------------------------------------------------------ records */

static uint32_t rec_new(xo_sink *k)
{
    if (k->nfree)
        return k->free_recs[--k->nfree];
    if (k->nrecs >= XO_NONE - 1 ||
        !sv_grow((void **)&k->recs, &k->recs_cap, k->nrecs + 1, sizeof *k->recs, 64))
        return XO_NONE;
    return (uint32_t)k->nrecs++;
}

static bool rec_done(xo_sink *k, uint32_t id)
{
    bool ok = put_close(k, &k->recs[id]);
    if (!sv_grow((void **)&k->free_recs, &k->free_cap, k->nfree + 1, sizeof *k->free_recs, 64))
        return false;
    k->free_recs[k->nfree++] = id;
    return ok;
}

/* The exclusive time of a call still open: its children so far are all
 * it will have (ooc_excl_pop's figure). */
static int64_t own_time(const ooc_excl_call *e)
{
    int64_t x = ck_sub(ck_sub(e->e, e->s), e->covered);
    return x < 0 ? 0 : x;
}

/* ------------------------------------------------------------ the stacks */

static bool key_leave(xo_sink *k, ooc_excl_stack *st)
{
    uint64_t id;
    int64_t x = ooc_excl_pop(st, &id);
    if (id == XO_NONE)
        return true;
    xo_rec *r = &k->recs[id];
    r->excl = x;
    r->key_open = false;
    return r->lane_open || rec_done(k, (uint32_t)id);
}

/* Closes the top of lane stack ls.  final: nothing can add to its callees any more. */
static bool ss_close(xo_sink *k, xo_lstack *ls, const xo_rec *r, int64_t t);

/* Closes the top of lane stack ls.  final: nothing can add to its callees any more.  t: the
 * start of the call that closes it (INT64_MAX at the lane's end). */
static bool lane_pop_at(xo_sink *k, xo_lstack *ls, bool final, int64_t t)
{
    uint32_t id = ls->v[--ls->sp];
    xo_rec *r = &k->recs[id];
    r->lane_open = false;
    if (k->ss) {
        bool ok = ss_close(k, ls, r, t);
        if (!sv_grow((void **)&k->free_recs, &k->free_cap, k->nfree + 1, sizeof *k->free_recs, 64))
            return false;
        k->free_recs[k->nfree++] = id;
        return ok;
    }
    if (r->key_open && !final)
        return true; /* its E waits for its exclusive time */
    if (r->key_open) {
        ooc_excl_call *e = &k->ks[r->key].v[r->kpos];
        r->excl = own_time(e);
        e->tag = XO_NONE;
        r->key_open = false;
    }
    return rec_done(k, id);
}

static bool lane_pop(xo_sink *k, xo_lstack *ls, bool final)
{
    return lane_pop_at(k, ls, final, INT64_MAX);
}

static bool ss_lane_end(xo_sink *k, xo_lstack *ls);

static bool end_rank(xo_sink *k)
{
    bool ok = true;
    for (size_t i = 0; ok && i < k->nks; i++)
        while (ok && k->ks[i].sp)
            ok = key_leave(k, &k->ks[i]);
    for (size_t i = 0; ok && i < k->nls; i++) {
        while (ok && k->ls[i].sp)
            ok = lane_pop(k, &k->ls[i], true);
        if (ok)
            ok = ss_lane_end(k, &k->ls[i]);
    }
    for (size_t i = 0; i < k->nnames; i++)
        free(k->names[i].json);
    free(k->names);
    k->names = NULL;
    k->nnames = 0;
    return ok;
}

static bool begin_rank(xo_sink *k, size_t rank)
{
    k->rank = rank;
    k->pid = k->v.rank_no(k->v.ctx, rank) + 1;
    size_t n = k->v.nregs(k->v.ctx, rank);
    k->names = calloc(n ? n : 1, sizeof *k->names);
    if (!k->names)
        return false;
    strbuf b;
    sb_init(&b);
    for (size_t j = 0; j < n; j++) {
        sb_reset(&b);
        json_escape(&b, k->v.reg_name(k->v.ctx, rank, (uint32_t)j));
        size_t room = (b.len / XO_PAD + 1) * XO_PAD;
        if (b.oom || !(k->names[j].json = calloc(1, room))) {
            sb_free(&b);
            return false;
        }
        memcpy(k->names[j].json, b.s, b.len + 1);
        k->names[j].len = b.len;
        k->nnames = j + 1;
    }
    sb_free(&b);
    return true;
}

static bool grow_to(void **v, size_t *n, size_t want, size_t size)
{
    if (want <= *n)
        return true;
    void *nv = realloc(*v, want * size);
    if (!nv)
        return false;
    memset((char *)nv + *n * size, 0, (want - *n) * size);
    *v = nv;
    *n = want;
    return true;
}

/* ------------------------------------------------------------ speedscope's spill */

/* The spill's buffered bytes to the file, which they end. */
static bool spill_flush(xo_sink *k)
{
    size_t at = 0;
    uint64_t off = k->spill_len - k->nsbuf;
    while (!k->failed && at < k->nsbuf) {
        ssize_t w = pwrite(k->spill, k->sbuf + at, k->nsbuf - at, (off_t)(off + at));
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            k->st->spill_errno = w < 0 ? errno : EIO;
            k->failed = true;
        } else {
            at += (size_t)w;
        }
    }
    k->nsbuf = 0;
    return !k->failed;
}

/* Appends to the spill, through a buffer of XO_BUF bytes (two writes a 4 KiB block were
 * most of the child's system time). */
static bool spill_write(xo_sink *k, const void *p, size_t n)
{
    const char *b = p;
    while (!k->failed && n) {
        if (k->nsbuf == XO_BUF && !spill_flush(k))
            break;
        size_t m = XO_BUF - k->nsbuf < n ? XO_BUF - k->nsbuf : n;
        memcpy(k->sbuf + k->nsbuf, b, m);
        k->nsbuf += m;
        k->spill_len += m;
        b += m;
        n -= m;
    }
    return !k->failed;
}

static bool ss_block_out(xo_sink *k, xo_lstack *ls)
{
    if (!ls->nblk)
        return true;
    xo_lane *ln = &k->lanes[ls->id - 1];
    uint64_t slot[XO_BLOCK_SLOTS];
    size_t n = xo_ev_pack(slot, ls->blk, ls->nblk);
    xo_block_head h = {ln->last, ls->id - 1, (uint32_t)n};
    ln->last = k->spill_len + 1;
    ln->events += ls->nblk;
    bool ok = spill_write(k, &h, sizeof h) && spill_write(k, slot, n * sizeof *slot);
    ls->nblk = 0;
    return ok;
}

static bool ss_put(xo_sink *k, xo_lstack *ls, const xo_ev *e)
{
    if (ls->nblk == XO_BLOCK_EVENTS && !ss_block_out(k, ls))
        return false;
    ls->blk[ls->nblk++] = *e;
    return true;
}

static bool ss_flush_inst(xo_sink *k, xo_lstack *ls)
{
    bool ok = true;
    for (size_t i = 0; ok && i < ls->ninst; i++)
        ok = ss_put(k, ls, &ls->inst[i]);
    ls->ninst = 0;
    return ok;
}

/* An event of the lane.  held: at the instant of the call being pushed, after the events of
 * the calls of no length that start then (export_walk.c writes those first). */
static bool ss_event(xo_sink *k, xo_lstack *ls, uint32_t reg, bool open, int64_t at, bool held)
{
    xo_ev e = {at, reg, open};
    if (!held)
        return ss_put(k, ls, &e);
    if (!sv_grow((void **)&ls->inst, &ls->inst_cap, ls->ninst + 1, sizeof *ls->inst, 16))
        return false;
    ls->inst_t = at;
    ls->inst[ls->ninst++] = e;
    return true;
}

/* A call closed in its lane by one starting at t (INT64_MAX: the lane's end). */
static bool ss_close(xo_sink *k, xo_lstack *ls, const xo_rec *r, int64_t t)
{
    if (ls->ninst && (t == INT64_MAX || r->e > ls->inst_t) && !ss_flush_inst(k, ls))
        return false;
    return ss_event(k, ls, r->reg, false, r->e, t != INT64_MAX && r->e >= t);
}

/* Call c arrives in lane ls: what was held for an earlier instant goes out; a new lane gets
 * its entry in the table. */
static bool lane_arrive(xo_sink *k, xo_lstack *ls, const ooc_lane *ml, int64_t tid,
                        const ooc_call *c)
{
    if (!ls->id) {
        if (!sv_grow((void **)&k->lanes, &k->lanes_cap, k->nlanes + 1, sizeof *k->lanes, 16) ||
            (k->ss && !ls->blk && !(ls->blk = malloc(XO_BLOCK_EVENTS * sizeof *ls->blk))))
            return false;
        k->lanes[k->nlanes] = (xo_lane){k->rank, tid, (int)ml->kind, ml->row, c->s, c->e, 0, 0};
        ls->id = (uint32_t)++k->nlanes;
    }
    xo_lane *ln = &k->lanes[ls->id - 1];
    ln->t0 = c->s < ln->t0 ? c->s : ln->t0;
    ln->t1 = c->e > ln->t1 ? c->e : ln->t1;
    return !k->ss || !ls->ninst || ls->inst_t >= c->s || ss_flush_inst(k, ls);
}

static bool ss_lane_end(xo_sink *k, xo_lstack *ls)
{
    if (!ls->id)
        return true;
    bool ok = !k->ss || (ss_flush_inst(k, ls) && ss_block_out(k, ls));
    ls->id = 0;
    return ok;
}

/* export_walk.c's contains: top opens around a call starting at s (of no length: z). */
static bool contains(const xo_rec *top, int64_t s, bool z)
{
    return top->e != top->s && (s < top->e || (s == top->e && z));
}

/* export_walk.c's in_range: a call of a length overlapping [lo, hi), one of no length in it. */
static bool in_range(const xo_sink *k, int64_t s, int64_t e)
{
    return e > s ? s < k->hi && e > k->lo : s >= k->lo && s < k->hi;
}

/* Call oc, in the range, arrives in its lane: cut to the range as export_walk.c cuts it.  Its
 * exclusive time stays the whole call's (ke, its shadow entry). */
static bool lane_push(xo_sink *k, const ooc_call *oc, ooc_excl_stack *ks, ooc_excl_call *ke)
{
    ooc_call cut = *oc;
    const ooc_call *c = &cut;
    cut.s = oc->s > k->lo ? oc->s : k->lo;
    cut.e = oc->e < k->hi ? oc->e : k->hi;
    cut.e = cut.e < cut.s ? cut.s : cut.e;
    const ooc_lane *ml = &k->v.map->lanes[c->lane];
    int64_t tid = export_lane_tid(ml->kind, ml->row);
    if (tid < 1 || (size_t)tid >= SIZE_MAX / 2 ||
        !grow_to((void **)&k->ls, &k->nls, (size_t)tid + 1, sizeof *k->ls))
        return false;
    xo_lstack *ls = &k->ls[tid];
    bool z = c->e == c->s, ok = lane_arrive(k, ls, ml, tid, c);
    while (ok && ls->sp && !contains(&k->recs[ls->v[ls->sp - 1]], c->s, z))
        ok = lane_pop_at(k, ls, true, c->s); /* c starts at or after its end */
    if (z && k->ss)
        return ok && ss_event(k, ls, c->reg, true, c->s, false) &&
               ss_event(k, ls, c->reg, false, c->s, false);
    if (z)
        return ok && put_open(k, c, tid, true);
    while (ok && ls->sp && c->e > k->recs[ls->v[ls->sp - 1]].e) {
        k->recs[ls->v[ls->sp - 1]].e = c->s; /* cut: c covers the rest of it */
        k->st->overlap++;
        ok = lane_pop_at(k, ls, false, c->s);
    }
    uint32_t id = ok ? rec_new(k) : XO_NONE;
    if (id == XO_NONE || !sv_grow((void **)&ls->v, &ls->cap, ls->sp + 1, sizeof *ls->v, 16))
        return false;
    k->recs[id] =
        (xo_rec){c->s, c->e, 0, tid, c->reg, (uint32_t)c->key, (uint32_t)(ks->sp - 1), true, true};
    ls->v[ls->sp++] = id;
    if (k->ss) /* no exclusive time to wait for */
        return ss_event(k, ls, c->reg, true, c->s, true);
    ke->tag = id;
    return put_open(k, c, tid, false);
}

static bool sink_call(void *self, const ooc_call *c)
{
    xo_sink *k = self;
    if (k->failed || k->st->lost)
        return !k->failed;
    bool ok = true;
    if (c->rank != k->rank)
        ok = (k->rank == SIZE_MAX || end_rank(k)) && begin_rank(k, c->rank);
    if (ok && c->key >= k->nks)
        ok = c->key < UINT32_MAX && grow_to((void **)&k->ks, &k->nks, c->key + 1, sizeof *k->ks);
    if (!ok)
        return false;
    ooc_excl_stack *ks = &k->ks[c->key];
    while (ok && ooc_excl_depth(ks) > c->depth)
        ok = key_leave(k, ks);
    if (!ok || !ooc_excl_push(ks, c->s, c->e, XO_NONE))
        return false;
    ooc_excl_call *ke = &ks->v[ks->sp - 1];
    return c->lane == SIZE_MAX || !in_range(k, c->s, c->e) || lane_push(k, c, ks, ke);
}

static void sink_lose(void *self, const char *why)
{
    xo_sink *k = self;
    if (!k->st->lost)
        snprintf(k->st->why, sizeof k->st->why, "%s", why);
    k->st->lost = true;
}

static void sink_free(void *self)
{
    xo_sink *k = self;
    if (!k)
        return;
    for (size_t i = 0; i < k->nnames; i++)
        free(k->names[i].json);
    free(k->names);
    for (size_t i = 0; i < k->nks; i++)
        ooc_excl_free(&k->ks[i]);
    free(k->ks);
    for (size_t i = 0; i < k->nls; i++) {
        free(k->ls[i].v);
        free(k->ls[i].blk);
        free(k->ls[i].inst);
    }
    free(k->ls);
    free(k->lanes);
    free(k->recs);
    free(k->free_recs);
    free(k->buf);
    free(k->sbuf);
    free(k);
}

static const ooc_sink_ops xo_ops = {"chrome", sink_call, sink_lose, sink_free};

/* ------------------------------------------------------------ a rank done in memory */

/* The skeleton's index of region r of the rank being walked. */
static uint32_t walk_reg(const xo_sink *k, const region *r)
{
    for (size_t j = 0; j < k->wrk->nregions; j++)
        if (k->wrk->regions[j] == r)
            return k->wmap ? k->wmap[j] : (uint32_t)j;
    return UINT32_MAX; /* names no region: written with an empty name, as name_of does */
}

static sv_err walk_nomem(xo_sink *k)
{
    k->failed = true;
    return SV_ERR_NOMEM;
}

static sv_err walk_begin(void *u, const lane *ln, size_t in_rank, int64_t t0, int64_t t1)
{
    (void)in_rank;
    xo_sink *k = u;
    int64_t tid = export_lane_tid(ln->kind, ln->row);
    if (tid < 1 || (size_t)tid >= SIZE_MAX / 2 ||
        !grow_to((void **)&k->ls, &k->nls, (size_t)tid + 1, sizeof *k->ls))
        return walk_nomem(k);
    xo_lstack *ls = &k->ls[tid];
    ooc_lane ml = {.rank_index = k->rank, .kind = ln->kind, .row = ln->row};
    ooc_call span = {.s = t0, .e = t1};
    k->wl = ls;
    k->wtid = tid;
    return lane_arrive(k, ls, &ml, tid, &span) ? SV_OK : walk_nomem(k);
}

/* export_chrome.c's put_event, for a call of the rank in memory: its call id too. */
static sv_err walk_event(xo_sink *k, const export_call *call, int ph, int64_t at)
{
    const xo_name *nm = name_of(k, walk_reg(k, call->r));
    char *o = out_room(k, nm->len);
    if (!o)
        return SV_ERR_IO;
    o = put_head(k, o, ph, k->wtid, at);
    o = copy_padded(o, nm->json, nm->len);
    o = export_chrome_args_at(o, call, ph == XO_E, ph == XO_I);
    o = EXPORT_LIT(o, "}},\n");
    k->len = (size_t)(o - k->buf);
    k->st->events++;
    return SV_OK;
}

static sv_err walk_ss(xo_sink *k, const export_call *call, bool open, int64_t at)
{
    xo_ev e = {at, walk_reg(k, call->r), open};
    return ss_put(k, k->wl, &e) ? SV_OK : SV_ERR_IO;
}

static sv_err walk_open(void *u, const export_call *call)
{
    xo_sink *k = u;
    if (k->ss)
        return walk_ss(k, call, true, call->start);
    return walk_event(k, call, call->end > call->start ? XO_B : XO_I, call->start);
}

static sv_err walk_close(void *u, const export_call *call)
{
    xo_sink *k = u;
    if (k->ss)
        return walk_ss(k, call, false, call->end);
    return call->end > call->start ? walk_event(k, call, XO_E, call->end) : SV_OK;
}

static sv_err walk_end(void *u, const lane *ln)
{
    (void)ln;
    xo_sink *k = u;
    return ss_lane_end(k, k->wl) ? SV_OK : SV_ERR_IO;
}

/* A rank the sweep cannot nest (call ids, a row out of order) done in memory within the
 * budget (ooc_sink.h's lanes hook): its lanes walked as export_walk walks them in memory, so
 * its events are the in-memory ones, call ids and all. */
static bool sink_lanes(void *self, size_t rank_index, const lanes_index *ix, size_t ix_rank,
                       const uint32_t *regmap)
{
    xo_sink *k = self;
    if (k->failed || k->st->lost)
        return !k->failed;
    const rank_data *rk = &ix->prof->ranks[ix_rank];
    if (!rk->calls || rk->calls->n != rk->ncalls) { /* no exclusive times to write */
        sink_lose(k, OOC_SINK_UNSWEPT);
        return true;
    }
    if ((k->rank != SIZE_MAX && !end_rank(k)) || !begin_rank(k, rank_index))
        return false;
    k->wrk = rk;
    k->wmap = regmap;
    static const export_walk_ops ops = {walk_begin, walk_open, walk_close, walk_end};
    export_walk_stats ws;
    sv_error err;
    sv_err rc = export_walk_rank(ix, ix_rank, k->v.zero, &k->range, &ops, k, &ws, &err);
    k->st->overlap += ws.overlap;
    k->wrk = NULL;
    k->wl = NULL;
    /* a write's failure is the page's to say (werrno, spill_errno); memory fails the open */
    return rc == SV_OK || (k->failed && (k->st->werrno || k->st->spill_errno));
}

/* ------------------------------------------------------------ the hook */

/* The sweep starts over (ooc_sink_hook.early): the events written and counted are dropped. */
static bool restart(xo_run *x)
{
    if (x->fd >= 0) {
        struct stat fs;
        if (lseek(x->fd, (off_t)x->at0, SEEK_SET) < 0 ||
            (fstat(x->fd, &fs) == 0 && S_ISREG(fs.st_mode) && ftruncate(x->fd, (off_t)x->at0))) {
            x->st->werrno = errno;
            return false;
        }
    }
    x->st->events = x->st->overlap = 0;
    x->st->lost = false;
    x->st->why[0] = '\0';
    return true;
}

static bool hook_attach(void *ctx, ooc_scan *sc, const ooc_sweep_view *v)
{
    xo_run *x = ctx;
    if (x->attached && !restart(x))
        return false;
    x->attached = true;
    xo_sink *k = calloc(1, sizeof *k);
    if (!k || !(k->buf = malloc(XO_BUF)) || !(k->sbuf = malloc(XO_BUF))) {
        if (k)
            free(k->buf);
        free(k);
        return false;
    }
    k->fd = x->fd;
    struct stat fs;
    k->regular = x->fd >= 0 && fstat(x->fd, &fs) == 0 && S_ISREG(fs.st_mode);
    off_t at = k->regular ? lseek(x->fd, 0, SEEK_CUR) : -1;
    k->regular = at >= 0;
    k->off = k->win = at >= 0 ? (uint64_t)at : 0;
    k->st = x->st;
    k->ss = x->speedscope;
    k->spill = x->spill;
    k->v = *v;
    k->v.zero = v->has_zero ? v->zero : 0;
    int64_t zero = k->v.zero;
    k->lo = INT64_MIN;
    k->hi = INT64_MAX;
    if (x->range.has_from) /* export_walk's bounds */
        k->lo = x->range.from_ns > INT64_MAX - zero ? INT64_MAX : zero + x->range.from_ns;
    if (x->range.has_to)
        k->hi = x->range.to_ns > INT64_MAX - zero ? INT64_MAX : zero + x->range.to_ns;
    k->rank = SIZE_MAX;
    x->st->has_zero = v->has_zero;
    x->st->zero = k->v.zero;
    k->range = x->range;
    if (!ooc_scan_add_sink(sc, &xo_ops, k) || !ooc_scan_add_lanes(sc, sink_lanes, k))
        return false;
    /* The export reads the skeleton and the map only: the overview's aggregates are not
     * made (a third of the sweep's time). */
    ooc_scan_mute_others(sc, k, "an export makes no overview");
    ooc_scan_sinks_only(sc);
    return true;
}

static bool hook_finish(void *ctx, ooc_scan *sc)
{
    (void)ctx;
    xo_sink *k = ooc_scan_take_sink(sc, &xo_ops);
    if (!k)
        return false;
    bool ok = k->st->lost || ((k->rank == SIZE_MAX || end_rank(k)) && out_flush(k));
    if (ok && !k->st->lost) { /* the lane table after the blocks */
        k->st->lanes_off = k->spill_len;
        k->st->nlanes = k->nlanes;
        ok = spill_write(k, k->lanes, k->nlanes * sizeof *k->lanes) && spill_flush(k);
    }
    ok = ok && !k->failed;
    k->st->finished = ok;
    sink_free(k);
    return ok;
}

bool xo_run_init(xo_run *x, int fd)
{
    memset(x, 0, sizeof *x);
    x->fd = fd;
    /* shared with the loading child, which fills it */
    void *m = mmap(NULL, sizeof *x->st, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return false;
    x->st = m;
    off_t at = fd >= 0 ? lseek(fd, 0, SEEK_CUR) : 0;
    x->at0 = at;
    /* the ranks swept as the file is read (read once) where a start over can rewind */
    x->hook = (ooc_sink_hook){hook_attach, hook_finish, x, true, true, at >= 0};
    return true;
}

void xo_run_free(xo_run *x)
{
    if (x->st)
        munmap(x->st, sizeof *x->st);
    x->st = NULL;
}
