/* export_speedscope: speedscope's file format (its published file-format-schema.json).
 *
 * One frame per distinct (region name, source file, line) of the regions written, so the
 * same function on several ranks is one frame; one evented profile per timeline lane, named
 * as the timeline names it ("r0 MainThread"), unit nanoseconds, times from the profile's
 * zero.  The lane walk (export_walk.c) gives the opens and closes balanced and in time
 * order, which is what speedscope's importer requires. */
#include <stdlib.h>
#include <string.h>

#include "export_internal.h"
#include "util/text.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0.1.0"
#endif

typedef struct frame_of {
    const region *r;
    uint32_t frame;
} frame_of;

/* An event's head up to its time, ',{"type":"O","frame":12,"at":', made once a frame: the
 * frame's digits each event cost a fifth of the writer. */
typedef struct ss_head {
    char s[48];
    uint8_t len;
} ss_head;

typedef struct ss_ctx {
    FILE *fp;
    strbuf b;
    int64_t zero;
    frame_of *map; /* by region pointer */
    size_t nmap;
    frame_of last;  /* the region looked up last */
    ss_head *heads; /* by frame: open, close */
    uint32_t nframes;
    bool first_profile, first_event;
    sv_error *err;
} ss_ctx;

static int str_cmp_null(const char *a, const char *b)
{
    return a && b ? strcmp(a, b) : (a != NULL) - (b != NULL);
}

static int frame_key_cmp(const region *x, const region *y)
{
    int c = strcmp(x->name, y->name);
    if (!c)
        c = str_cmp_null(x->source_file, y->source_file);
    if (!c && x->has_lineno != y->has_lineno)
        c = x->has_lineno ? 1 : -1;
    if (!c && x->has_lineno && x->source_lineno != y->source_lineno)
        c = x->source_lineno < y->source_lineno ? -1 : 1;
    return c;
}

static int by_frame_key(const void *a, const void *b)
{
    return frame_key_cmp(((const frame_of *)a)->r, ((const frame_of *)b)->r);
}

static int by_pointer(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)((const frame_of *)a)->r, y = (uintptr_t)((const frame_of *)b)->r;
    return x < y ? -1 : x > y;
}

static void put_frame(strbuf *b, const region *r, bool first)
{
    sb_puts(b, first ? "\n{\"name\":" : ",\n{\"name\":");
    json_escape(b, r->name);
    if (r->source_file) {
        sb_puts(b, ",\"file\":");
        json_escape(b, r->source_file);
    }
    if (r->has_lineno)
        sb_printf(b, ",\"line\":%lld", (long long)r->source_lineno);
    sb_putc(b, '}');
}

/* The frames of the regions written, into the output, and the region -> frame map. */
static sv_err put_frames(ss_ctx *c, const profile *p, const region_filter *f)
{
    c->map = malloc((p->nregions ? p->nregions : 1) * sizeof *c->map);
    if (!c->map)
        return sv_error_set(c->err, SV_ERR_NOMEM, "out of memory");
    for (size_t k = 0; k < p->nregions; k++) {
        const region *r = p->regions[k];
        if (r->has_event_data && (r->n > 0 || r->st.num_calls > 0) && filter_match(f, r))
            c->map[c->nmap++] = (frame_of){r, 0};
    }
    qsort(c->map, c->nmap, sizeof *c->map, by_frame_key);
    uint32_t nframes = 0;
    for (size_t k = 0; k < c->nmap; k++) {
        if (k == 0 || frame_key_cmp(c->map[k - 1].r, c->map[k].r) != 0)
            put_frame(&c->b, c->map[k].r, nframes++ == 0);
        c->map[k].frame = nframes - 1;
    }
    qsort(c->map, c->nmap, sizeof *c->map, by_pointer);
    c->nframes = nframes;
    c->heads = calloc((nframes ? nframes : 1) * 2, sizeof *c->heads);
    if (!c->heads)
        return sv_error_set(c->err, SV_ERR_NOMEM, "out of memory");
    for (uint32_t fr = 0; fr < nframes; fr++)
        for (int t = 0; t < 2; t++) {
            ss_head *h = &c->heads[2 * fr + (uint32_t)t];
            char *o = export_copy_at(
                h->s, t ? ",{\"type\":\"C\",\"frame\":" : ",{\"type\":\"O\",\"frame\":",
                sizeof ",{\"type\":\"O\",\"frame\":" - 1);
            o = export_i64_at(o, fr);
            o = EXPORT_LIT(o, ",\"at\":");
            h->len = (uint8_t)(o - h->s);
        }
    return SV_OK;
}

static uint32_t frame_index(ss_ctx *c, const region *r)
{
    if (r == c->last.r) /* a caller's close follows its callee's, often of one region */
        return c->last.frame;
    frame_of key = {r, 0};
    const frame_of *m = bsearch(&key, c->map, c->nmap, sizeof *c->map, by_pointer);
    c->last = (frame_of){r, m ? m->frame : 0}; /* every written region is in the map */
    return c->last.frame;
}

static sv_err ss_begin(void *u, const lane *ln, size_t in_rank, int64_t t0, int64_t t1)
{
    (void)in_rank;
    ss_ctx *c = u;
    char name[128];
    sb_puts(&c->b, c->first_profile ? "\n{\"type\":\"evented\",\"name\":"
                                    : ",\n{\"type\":\"evented\",\"name\":");
    json_escape(&c->b, lanes_lane_name(ln, name, sizeof name));
    sb_printf(&c->b, ",\"unit\":\"nanoseconds\",\"startValue\":%lld,\"endValue\":%lld,\"events\":[",
              (long long)(t0 - c->zero), (long long)(t1 - c->zero));
    c->first_profile = false;
    c->first_event = true;
    return SV_OK;
}

static sv_err ss_event_r(ss_ctx *c, const region *r, char type, int64_t at)
{
    strbuf *b = &c->b;
    if (!sb_reserve(b, sizeof(ss_head) + 16 + EXPORT_NUM_MAX))
        return sv_error_set(c->err, SV_ERR_NOMEM, "out of memory while writing the export");
    uint32_t f = frame_index(c, r);
    const ss_head *h = &c->heads[2 * (f < c->nframes ? f : 0) + (type == 'O' ? 0 : 1)];
    /* The lane's first event has no comma.  The head is copied whole: a known size. */
    size_t skip = c->first_event ? 1 : 0;
    char *o = b->s + b->len;
    memcpy(o, h->s + skip, sizeof h->s - 1);
    o += h->len - skip;
    o = export_i64_at(o, at - c->zero);
    *o++ = '}';
    b->len = (size_t)(o - b->s);
    b->s[b->len] = '\0';
    c->first_event = false;
    return b->len >= EXPORT_FLUSH_AT ? export_flush(b, c->fp, c->err) : SV_OK;
}

static sv_err ss_event(ss_ctx *c, const export_call *call, char type, int64_t at)
{
    return ss_event_r(c, call->r, type, at);
}

static sv_err ss_open(void *u, const export_call *call)
{
    return ss_event(u, call, 'O', call->start);
}

static sv_err ss_close(void *u, const export_call *call)
{
    return ss_event(u, call, 'C', call->end);
}

static sv_err ss_end(void *u, const lane *ln)
{
    (void)ln;
    ss_ctx *c = u;
    sb_puts(&c->b, "]}");
    return export_flush(&c->b, c->fp, c->err);
}

static void put_head(ss_ctx *c, const profile *p)
{
    const char *path = p->path ? p->path : "";
    const char *base = strrchr(path, '/');
    sb_puts(&c->b, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n"
                   "\"exporter\":\"scopeview " PACKAGE_VERSION "\",\n\"name\":");
    json_escape(&c->b, base ? base + 1 : path);
    sb_puts(&c->b, ",\n\"activeProfileIndex\":0,\n\"shared\":{\"frames\":[");
}

sv_err export_speedscope(profile *p, const region_filter *f, const export_range *rg, FILE *fp,
                         FILE *warn, sv_error *err)
{
    ss_ctx c = {.fp = fp, .zero = export_zero(p), .first_profile = true, .err = err};
    sb_init(&c.b);
    put_head(&c, p);
    sv_err rc = put_frames(&c, p, f);
    if (rc == SV_OK) {
        sb_puts(&c.b, "\n]},\n\"profiles\":[");
        rc = export_flush(&c.b, fp, err);
    }
    static const export_walk_ops ops = {ss_begin, ss_open, ss_close, ss_end};
    export_walk_stats st;
    if (rc == SV_OK)
        rc = export_walk(p, f, rg, &ops, &c, &st, err);
    if (rc == SV_OK) {
        sb_puts(&c.b, "\n]}\n");
        rc = export_flush(&c.b, fp, err);
    }
    sb_free(&c.b);
    free(c.map);
    free(c.heads);
    if (rc == SV_OK)
        export_warn_overlap(warn, &st);
    return rc;
}

/* ------------------------------------------------------------------ piece by piece */

struct export_ss {
    ss_ctx c;
};

sv_err export_ss_begin(export_ss **out, const profile *p, const region_filter *f, FILE *fp,
                       sv_error *err)
{
    export_ss *w = calloc(1, sizeof *w);
    *out = w;
    if (!w)
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory");
    w->c = (ss_ctx){.fp = fp, .zero = export_zero(p), .first_profile = true, .err = err};
    sb_init(&w->c.b);
    put_head(&w->c, p);
    sv_err rc = put_frames(&w->c, p, f);
    if (rc == SV_OK) {
        sb_puts(&w->c.b, "\n]},\n\"profiles\":[");
        rc = export_flush(&w->c.b, fp, err);
    }
    return rc;
}

sv_err export_ss_lane(export_ss *w, const lane *ln, int64_t t0, int64_t t1)
{
    return ss_begin(&w->c, ln, 0, t0, t1);
}

sv_err export_ss_event(export_ss *w, const region *r, bool open, int64_t at)
{
    return ss_event_r(&w->c, r, open ? 'O' : 'C', at);
}

sv_err export_ss_lane_end(export_ss *w)
{
    return ss_end(&w->c, NULL);
}

sv_err export_ss_end(export_ss *w)
{
    sb_puts(&w->c.b, "\n]}\n");
    return export_flush(&w->c.b, w->c.fp, w->c.err);
}

void export_ss_free(export_ss *w)
{
    if (!w)
        return;
    sb_free(&w->c.b);
    free(w->c.map);
    free(w->c.heads);
    free(w);
}
