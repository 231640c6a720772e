/* export_chrome: the Trace Event Format (JSON object form) that Perfetto UI and
 * chrome://tracing read.
 *
 * pid = rank + 1 and tid = export_lane_tid (the lane's identity): Perfetto treats pid 0 as the
 * kernel's idle process, so no pid or tid is 0; the M events name them ("rank 3", the
 * timeline's lane name) and keep the timeline's order.  Each call is a B event when it opens
 * and an E event when it closes, in the lane walk's order (export_walk.c), ts in
 * microseconds from the profile's zero with the nanoseconds as three decimals, so no time is
 * rounded.  Not X events: a reader of an X event computes its end as ts + dur in floating
 * point and orders events that start together by duration, so a call ending with its caller,
 * or one of no length at its caller's edge, nests wrongly there (speedscope does); B and E
 * in nesting order carry every end exactly as written.  A call of no length is an instant
 * event (ph i, on its thread).  args (the format merges a call's B and E ones): on the B
 * the call's index in its region (--events' call_index), the file's call id, its await and
 * GPU times (us) where the file has them; on the E its exclusive time, which a writer that
 * streams the calls (out of core) knows only when the call's callees are all seen.  A region's
 * hardware counters (perf_events, LIKWID) are a C event at its first call.  The file stores await
 * totals, not the intervals a call was suspended in, so no await slice is invented. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "export_internal.h"
#include "export_ooc.h"
#include "util/text.h"
#include "util/timefmt.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0.1.0"
#endif

/* A region's name as a JSON string, escaped once (an event a call writes it). */
typedef struct chrome_name {
    const region *r;
    char *json;
    size_t len;
} chrome_name;

typedef struct chrome_ctx {
    const profile *p;
    FILE *fp;
    strbuf b;
    int64_t zero;
    int pid;
    int64_t tid;
    int named_rank; /* rank whose process_name is written, or -1 */
    bool first;     /* no event written yet */
    /* The lane's event openings: ',\n{"ph":"B","pid":1,"tid":2,"ts":' for B, E and i. */
    strbuf pre[3];
    chrome_name *names; /* by region pointer */
    size_t nnames;
    const chrome_name *last;
    sv_error *err;
} chrome_ctx;

static int by_region(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)((const chrome_name *)a)->r,
              y = (uintptr_t)((const chrome_name *)b)->r;
    return x < y ? -1 : x > y;
}

static sv_err build_names(chrome_ctx *c)
{
    const profile *p = c->p;
    c->names = calloc(p->nregions ? p->nregions : 1, sizeof *c->names);
    if (!c->names)
        return sv_error_set(c->err, SV_ERR_NOMEM, "out of memory");
    strbuf b;
    sb_init(&b);
    for (size_t k = 0; k < p->nregions; k++) {
        sb_reset(&b);
        json_escape(&b, p->regions[k]->name);
        if (b.oom || !(c->names[k].json = malloc(b.len + 1))) {
            sb_free(&b);
            c->nnames = k;
            return sv_error_set(c->err, SV_ERR_NOMEM, "out of memory");
        }
        memcpy(c->names[k].json, b.s, b.len + 1);
        c->names[k].len = b.len;
        c->names[k].r = p->regions[k];
    }
    sb_free(&b);
    c->nnames = p->nregions;
    qsort(c->names, c->nnames, sizeof *c->names, by_region);
    return SV_OK;
}

static const chrome_name *region_name(chrome_ctx *c, const region *r)
{
    if (!c->last || c->last->r != r) {
        chrome_name key = {r, NULL, 0};
        c->last = bsearch(&key, c->names, c->nnames, sizeof *c->names, by_region);
    }
    return c->last; /* every region is in the table */
}

static void ev_sep(chrome_ctx *c)
{
    sb_puts(&c->b, c->first ? "\n" : ",\n");
    c->first = false;
}

static void put_name_meta(chrome_ctx *c, const char *what, int64_t tid, const char *name)
{
    ev_sep(c);
    sb_printf(&c->b, "{\"ph\":\"M\",\"pid\":%d,", c->pid);
    if (tid > 0)
        sb_printf(&c->b, "\"tid\":%lld,", (long long)tid);
    sb_printf(&c->b, "\"name\":\"%s\",\"args\":{\"name\":", what);
    json_escape(&c->b, name);
    sb_puts(&c->b, "}}");
}

static void put_sort_meta(chrome_ctx *c, const char *what, int64_t tid, int index)
{
    ev_sep(c);
    sb_printf(&c->b, "{\"ph\":\"M\",\"pid\":%d,", c->pid);
    if (tid > 0)
        sb_printf(&c->b, "\"tid\":%lld,", (long long)tid);
    sb_printf(&c->b, "\"name\":\"%s\",\"args\":{\"sort_index\":%d}}", what, index);
}

static sv_err ch_begin(void *u, const lane *ln, size_t in_rank, int64_t t0, int64_t t1)
{
    (void)t0;
    (void)t1;
    chrome_ctx *c = u;
    c->pid = ln->rk->rank + 1;
    c->tid = export_lane_tid(ln->kind, ln->row);
    if (c->named_rank != ln->rk->rank) {
        char name[32];
        snprintf(name, sizeof name, "rank %d", ln->rk->rank);
        put_name_meta(c, "process_name", 0, name);
        put_sort_meta(c, "process_sort_index", 0, ln->rk->rank);
        c->named_rank = ln->rk->rank;
    }
    char name[128];
    put_name_meta(c, "thread_name", c->tid, lanes_lane_name(ln, name, sizeof name));
    put_sort_meta(c, "thread_sort_index", c->tid, (int)in_rank);
    static const char *const ph[3] = {"B\",\"pid\":", "E\",\"pid\":", "i\",\"s\":\"t\",\"pid\":"};
    for (int k = 0; k < 3; k++) {
        sb_reset(&c->pre[k]);
        sb_puts(&c->pre[k], ",\n{\"ph\":\"");
        sb_puts(&c->pre[k], ph[k]);
        export_put_i64(&c->pre[k], c->pid);
        sb_puts(&c->pre[k], ",\"tid\":");
        export_put_i64(&c->pre[k], c->tid);
        sb_puts(&c->pre[k], ",\"ts\":");
    }
    return export_flush(&c->b, c->fp, c->err);
}

char *export_chrome_args_at(char *o, const export_call *call, bool end, bool instant)
{
    const region *r = call->r;
    size_t i = call->i;
    if (end) {
        o = EXPORT_LIT(o, ",\"args\":{\"exclusive_us\":");
        return export_us_at(o, rank_call_excl(r->owner, call->g));
    }
    o = EXPORT_LIT(o, ",\"cat\":\"region\",\"args\":{\"call_index\":");
    o = export_i64_at(o, (int64_t)i);
    if (r->call_ids) {
        o = EXPORT_LIT(o, ",\"call_id\":");
        o = export_i64_at(o, r->call_ids[i]);
    }
    if (instant) {
        o = EXPORT_LIT(o, ",\"exclusive_us\":");
        o = export_us_at(o, rank_call_excl(r->owner, call->g));
    }
    if (r->await_ns && r->await_ns[i] >= 0) {
        o = EXPORT_LIT(o, ",\"await_us\":");
        o = export_us_at(o, r->await_ns[i]);
    }
    if (r->gpu_ns && r->gpu_ns[i] >= 0) {
        o = EXPORT_LIT(o, ",\"gpu_us\":");
        o = export_us_at(o, r->gpu_ns[i]);
    }
    return o;
}

/* A B, E or i event.  An E carries the name (speedscope pairs an E with the open call by
 * name) and the exclusive time, known once the call's callees are (out of core the writer
 * learns it there); the format merges an E's args into its B's.  Room for the whole event
 * is reserved once: its fixed parts, the escaped name and six numbers with their keys. */
static sv_err put_event(chrome_ctx *c, const export_call *call, char ph, int64_t at)
{
    const region *r = call->r;
    strbuf *b = &c->b;
    const strbuf *pre = &c->pre[ph == 'B' ? 0 : ph == 'E' ? 1 : 2];
    const chrome_name *nm = region_name(c, r);
    /* The lane's M events came first, so a separator is always due. */
    c->first = false;
    if (pre->oom || !nm || !sb_reserve(b, pre->len + nm->len + 160 + 6 * EXPORT_NUM_MAX))
        return sv_error_set(c->err, SV_ERR_NOMEM, "out of memory while writing the export");
    char *o = export_copy_at(b->s + b->len, pre->s, pre->len);
    o = export_us_at(o, at - c->zero);
    o = EXPORT_LIT(o, ",\"name\":");
    o = export_copy_at(o, nm->json, nm->len);
    o = export_chrome_args_at(o, call, ph == 'E', ph == 'i');
    o = EXPORT_LIT(o, "}}");
    b->len = (size_t)(o - b->s);
    b->s[b->len] = '\0';
    return b->len >= EXPORT_FLUSH_AT ? export_flush(b, c->fp, c->err) : SV_OK;
}

/* A call of no length is an instant: a reader that pairs opens and closes by time cannot
 * tell apart two at one instant (speedscope pairs them by name), and it shows none anyway. */
static sv_err ch_open(void *u, const export_call *call)
{
    return put_event(u, call, call->end > call->start ? 'B' : 'i', call->start);
}

static sv_err ch_close(void *u, const export_call *call)
{
    return call->end > call->start ? put_event(u, call, 'E', call->end) : SV_OK;
}

static sv_err ch_end(void *u, const lane *ln)
{
    (void)ln;
    chrome_ctx *c = u;
    return export_flush(&c->b, c->fp, c->err);
}

/* One C event per counter record of a region the filter keeps, at its first call. */
static void put_counters(chrome_ctx *c, const rank_data *rk, const region_filter *f,
                         const export_range *rg)
{
    for (size_t k = 0; k < rk->nperf; k++) {
        const perf_record *pr = &rk->perf[k];
        const region *r = pr->region ? rank_region(rk, pr->region) : NULL;
        if (!r || !r->has_event_data || (r->n == 0 && r->st.num_calls <= 0) ||
            !filter_match(f, r) || pr->n == 0)
            continue;
        int64_t at = r->st.first_start_ns - c->zero;
        if ((rg->has_from && at < rg->from_ns) || (rg->has_to && at >= rg->to_ns))
            continue;
        ev_sep(c);
        sb_printf(&c->b, "{\"ph\":\"C\",\"pid\":%d,\"ts\":", rk->rank + 1);
        export_put_us(&c->b, at);
        strbuf name;
        sb_init(&name);
        sb_printf(&name, "%s %s", pr->kind ? pr->kind : "counters", pr->region);
        sb_puts(&c->b, ",\"name\":");
        json_escape(&c->b, name.s ? name.s : "");
        sb_free(&name);
        sb_puts(&c->b, ",\"args\":{");
        bool any = false;
        for (size_t j = 0; j < pr->n; j++) {
            char num[40];
            if (!isfinite(pr->values[j]))
                continue;
            sb_puts(&c->b, any ? "," : "");
            json_escape(&c->b, pr->names[j] ? pr->names[j] : "");
            sb_printf(&c->b, ":%s", fmt_double_exact(num, sizeof num, pr->values[j]));
            any = true;
        }
        sb_puts(&c->b, "}}");
    }
}

/* The end of the document: the exporter and the file. */
static void put_trailer(chrome_ctx *c)
{
    sb_puts(&c->b, "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"exporter\":"
                   "\"scopeview " PACKAGE_VERSION "\",\"file\":");
    json_escape(&c->b, c->p->path ? c->p->path : "");
    sb_puts(&c->b, "}}\n");
}

sv_err export_chrome_finish_ooc(profile *skel, const ooc_map *map, const region_filter *f,
                                const export_range *rg,
                                bool (*written)(const void *u, size_t rank, int64_t tid),
                                const void *u, bool first, FILE *fp, sv_error *err)
{
    chrome_ctx c = {.p = skel, .fp = fp, .zero = export_zero(skel), .first = first, .err = err};
    sb_init(&c.b);
    size_t lane0 = 0;
    int named = -1; /* as ch_begin: a rank is named before its first lane with events */
    for (size_t l = 0; l < map->nlanes; l++) {
        const ooc_lane *ml = &map->lanes[l];
        rank_data *rk = &skel->ranks[ml->rank_index];
        if (l == 0 || ml->rank_index != map->lanes[l - 1].rank_index) {
            lane0 = l;
            named = -1;
        }
        int64_t tid = export_lane_tid(ml->kind, ml->row);
        if (!written(u, ml->rank_index, tid))
            continue;
        c.pid = rk->rank + 1;
        if (named != (int)ml->rank_index) {
            char name[32];
            snprintf(name, sizeof name, "rank %d", rk->rank);
            put_name_meta(&c, "process_name", 0, name);
            put_sort_meta(&c, "process_sort_index", 0, rk->rank);
            named = (int)ml->rank_index;
        }
        lane ln = {.rk = rk, .kind = ml->kind, .row = ml->row};
        char name[128];
        put_name_meta(&c, "thread_name", tid, lanes_lane_name(&ln, name, sizeof name));
        put_sort_meta(&c, "thread_sort_index", tid, (int)(l - lane0));
    }
    for (size_t k = 0; k < skel->nranks; k++)
        if (filter_match_rank(f, skel->ranks[k].rank))
            put_counters(&c, &skel->ranks[k], f, rg);
    put_trailer(&c);
    sv_err rc = export_flush(&c.b, fp, err);
    sb_free(&c.b);
    return rc;
}

sv_err export_chrome(profile *p, const region_filter *f, const export_range *rg, FILE *fp,
                     FILE *warn, sv_error *err)
{
    chrome_ctx c = {
        .p = p, .fp = fp, .zero = export_zero(p), .named_rank = -1, .first = true, .err = err};
    sb_init(&c.b);
    for (int k = 0; k < 3; k++)
        sb_init(&c.pre[k]);
    sb_puts(&c.b, "{\"traceEvents\":[");
    sv_err rc = build_names(&c);
    if (rc == SV_OK)
        rc = export_flush(&c.b, fp, err);
    static const export_walk_ops ops = {ch_begin, ch_open, ch_close, ch_end};
    export_walk_stats st;
    if (rc == SV_OK)
        rc = export_walk(p, f, rg, &ops, &c, &st, err);
    for (size_t k = 0; rc == SV_OK && k < p->nranks; k++)
        if (filter_match_rank(f, p->ranks[k].rank))
            put_counters(&c, &p->ranks[k], f, rg);
    if (rc == SV_OK) {
        put_trailer(&c);
        rc = export_flush(&c.b, fp, err);
    }
    sb_free(&c.b);
    for (int k = 0; k < 3; k++)
        sb_free(&c.pre[k]);
    for (size_t k = 0; k < c.nnames; k++)
        free(c.names[k].json);
    free(c.names);
    if (rc == SV_OK)
        export_warn_overlap(warn, &st);
    return rc;
}
