/* calls_detail: the cursor call of the calls view, below the table: its
 * decomposition in one line, its parent chain, its metadata and its
 * slowest children.  The children are gathered only when the cursor
 * moves to another call. */
#include "calls_internal.h"

#include <stdio.h>
#include <string.h>

#include "model/decomp.h"
#include "util/strbuf.h"
#include "util/timefmt.h"

static bool ref_of(const rank_data *rk, size_t g, call_ref *out)
{
    size_t i;
    region *r = rank_call_region(rk, (int64_t)g, &i);
    if (!r)
        return false;
    *out = (call_ref){r, i, g};
    return true;
}

static int64_t ref_dur(const call_ref *c)
{
    return calls_ns_diff(c->r->end_ns[c->i], c->r->start_ns[c->i]);
}

/* "wall = exclusive + children", the host terms that add up, then the
 * awaited and GPU device times beside it with their share of the wall time:
 * they overlap it, they are no terms of the sum (decomp.h).  Spelled out
 * when it fits, abbreviated when not. */
static void draw_decomposition(ui_ctx *ctx, const call_ref *c, int x, int y, int w)
{
    call_decomp d;
    if (!call_decompose(c->r->owner, c->g, &d)) {
        int64_t dur = ref_dur(c);
        d = (call_decomp){.wall_ns = dur, .excl_ns = dur};
    }
    char wall[32], ex[32], ch[32], aw[96] = "", awb[96] = "", gpu[96] = "", gpub[96] = "";
    timefmt_ns(wall, sizeof wall, (double)d.wall_ns);
    timefmt_ns(ex, sizeof ex, (double)d.excl_ns);
    timefmt_ns(ch, sizeof ch, (double)d.children_ns);
    char t[32];
    if (d.has_await) {
        timefmt_ns(t, sizeof t, (double)d.await_ns);
        snprintf(aw, sizeof aw, "   awaited %s (%.0f%% of wall)", t, 100.0 * d.await_share);
        snprintf(awb, sizeof awb, "; awaited %s", t);
    }
    if (d.has_gpu) {
        timefmt_ns(t, sizeof t, (double)d.gpu_ns);
        snprintf(gpu, sizeof gpu, "   GPU device time %s overlaps (%.0f%% of wall)", t,
                 100.0 * d.gpu_share);
        snprintf(gpub, sizeof gpub, "; GPU %s (%.0f%%, overlap)", t, 100.0 * d.gpu_share);
    }
    char full[256], mid[256], brief[256];
    snprintf(full, sizeof full, "wall %s = exclusive %s + children %s%s%s", wall, ex, ch, aw, gpu);
    snprintf(mid, sizeof mid, "wall %s = exclusive %s + children %s%s%s", wall, ex, ch, awb, gpub);
    snprintf(brief, sizeof brief, "wall %s = excl %s + children %s%s%s", wall, ex, ch, awb, gpub);
    grid *g = &ctx->grid;
    const char *txt = grid_text_width(g, full) <= w  ? full
                      : grid_text_width(g, mid) <= w ? mid
                                                     : brief;
    grid_put_text(g, x, y, w, txt, ROLE_NORMAL, GA_BOLD);
}

/* "parents: root > ... > parent", dropping the ones next to the root
 * when the chain is wider than the line. */
static void draw_parents(ui_ctx *ctx, const call_ref *c, int x, int y, int w)
{
    enum { NEAR = 24 };
    const rank_data *rk = c->r->owner;
    const rank_calls *rc = rk->calls;
    grid *g = &ctx->grid;
    if (!rc || rc->parent[c->g] < 0) {
        grid_put_text(g, x, y, w, "parents: none (a top-level call)", ROLE_DIM, 0);
        return;
    }
    size_t chain[NEAR], nchain = 0, root = c->g;
    for (int64_t p = rc->parent[c->g]; p >= 0; p = rc->parent[p]) {
        if (nchain < NEAR)
            chain[nchain++] = (size_t)p;
        root = (size_t)p;
    }
    size_t depth = rank_call_depth(rk, c->g);
    char ell[8] = "";
    ell[utf8_encode(theme_glyphs_get(g->ascii)->ellipsis, ell)] = '\0';
    /* Drop ancestors next to the root until the line fits. */
    for (size_t keep = nchain; keep >= 1; keep--) {
        strbuf b;
        sb_init(&b);
        if (depth > 1)
            sb_printf(&b, "parents (%zu): ", depth);
        else
            sb_puts(&b, "parents: ");
        call_ref a;
        /* The root, then an ellipsis for the ancestors left out. */
        if (keep < depth && ref_of(rk, root, &a))
            sb_printf(&b, "%s > %s%s", a.r->name, depth - keep > 1 ? ell : "",
                      depth - keep > 1 ? " > " : "");
        for (size_t k = keep; k-- > 0;)
            if (ref_of(rk, chain[k], &a))
                sb_printf(&b, "%s%s", a.r->name, k ? " > " : "");
        bool fits = b.s && grid_text_width(g, b.s) <= w;
        if (fits || keep == 1)
            grid_put_text(g, x, y, w, b.s ? b.s : "", ROLE_DIM, 0);
        sb_free(&b);
        if (fits || keep == 1)
            return;
    }
}

static void draw_meta(ui_ctx *ctx, const call_ref *c, int x, int y, int w)
{
    const char *m = c->r->event_meta ? c->r->event_meta[c->i] : NULL;
    bool none = !m || !m[0] || strcmp(m, "{}") == 0;
    int used = grid_put_text(&ctx->grid, x, y, w, "metadata: ", ROLE_DIM, 0);
    grid_put_text(&ctx->grid, x + used, y, w - used, none ? "none" : m,
                  none ? ROLE_DIM : ROLE_NORMAL, 0);
}

/* Keeps the CALLS_KIDS_MAX slowest children of the cursor call. */
static void calls_kids(calls_state *s, const call_ref *c)
{
    const rank_data *rk = c->r->owner;
    if (s->kid_rank == rk->rank && s->kid_call == (int64_t)c->g)
        return;
    s->kid_rank = rk->rank;
    s->kid_call = (int64_t)c->g;
    s->nkids = s->kids_total = 0;
    if (!rk->calls)
        return;
    int64_t dur[CALLS_KIDS_MAX];
    const uint32_t *ch;
    size_t nch = rank_call_children(rk, c->g, &ch);
    for (size_t k = 0; k < nch; k++) {
        call_ref kid;
        if (!ref_of(rk, ch[k], &kid))
            continue;
        s->kids_total++;
        int64_t d = ref_dur(&kid);
        size_t at = s->nkids;
        while (at > 0 && dur[at - 1] < d)
            at--;
        if (at >= CALLS_KIDS_MAX)
            continue;
        size_t last = s->nkids < CALLS_KIDS_MAX ? s->nkids : CALLS_KIDS_MAX - 1;
        memmove(dur + at + 1, dur + at, (last - at) * sizeof *dur);
        memmove(s->kids + at + 1, s->kids + at, (last - at) * sizeof *s->kids);
        dur[at] = d;
        s->kids[at] = ch[k];
        if (s->nkids < CALLS_KIDS_MAX)
            s->nkids++;
    }
}

/* Columns of the children's table: wall and exclusive always, awaited
 * and GPU where a child's region records them. */
typedef struct kid_cols {
    bool await, gpu;
    int namew;
} kid_cols;

static void draw_kid(ui_ctx *ctx, const call_ref *kid, int x, int y, int w, const kid_cols *kc)
{
    grid *g = &ctx->grid;
    int64_t d = ref_dur(kid);
    grid_put_text(g, x, y, kc->namew, kid->r->name, theme_region_role(kid->r->name), 0);
    char v[4][32];
    int nv = 0;
    timefmt_ns(v[nv++], sizeof v[0], (double)d);
    timefmt_ns(v[nv++], sizeof v[0], (double)calls_rank_excl(kid->r->owner, kid->g, d));
    if (kc->await) {
        snprintf(v[nv], sizeof v[0], "-");
        if (kid->r->await_ns)
            timefmt_ns(v[nv], sizeof v[0], (double)kid->r->await_ns[kid->i]);
        nv++;
    }
    if (kc->gpu) {
        snprintf(v[nv], sizeof v[0], "-");
        if (kid->r->gpu_ns && kid->r->gpu_ns[kid->i] >= 0)
            timefmt_ns(v[nv], sizeof v[0], (double)kid->r->gpu_ns[kid->i]);
        nv++;
    }
    for (int k = 0; k < nv && kc->namew + 10 * (k + 1) <= w; k++)
        calls_put_right(g, x + kc->namew + 10 * k, y, 10, v[k], ROLE_NORMAL, 0);
}

static void draw_kids(calls_state *s, ui_ctx *ctx, const call_ref *c, rect a)
{
    grid *g = &ctx->grid;
    calls_kids(s, c);
    if (s->kids_total == 0) {
        grid_put_text(g, a.x, a.y, a.w, "children: none", ROLE_DIM, 0);
        return;
    }
    size_t room = a.h > 1 ? (size_t)(a.h - 1) : 0;
    size_t shown = room < s->nkids ? room : s->nkids;
    kid_cols kc = {false, false, a.w - 42 > 28 ? 28 : a.w - 42 > 8 ? a.w - 42 : 8};
    call_ref kid[CALLS_KIDS_MAX];
    for (size_t k = 0; k < shown; k++) {
        if (!ref_of(c->r->owner, s->kids[k], &kid[k]))
            kid[k].r = NULL;
        kc.await |= kid[k].r && kid[k].r->await_ns;
        kc.gpu |= kid[k].r && kid[k].r->gpu_ns;
    }
    char head[96];
    if (shown < s->kids_total)
        snprintf(head, sizeof head, "children: %zu, the slowest %zu", s->kids_total, shown);
    else
        snprintf(head, sizeof head, "children: %zu%s", s->kids_total,
                 s->kids_total > 1 ? ", slowest first" : "");
    int hw = grid_put_text(g, a.x, a.y, a.w, head, ROLE_DIM, 0);
    const char *titles[4] = {"wall", "excl", NULL, NULL};
    int nt = 2;
    if (kc.await)
        titles[nt++] = "awaited";
    if (kc.gpu)
        titles[nt++] = "GPU";
    for (int k = 0; k < nt && hw < kc.namew + 2 && kc.namew + 2 + 10 * (k + 1) <= a.w; k++)
        calls_put_right(g, a.x + 2 + kc.namew + 10 * k, a.y, 10, titles[k], ROLE_DIM, 0);
    for (size_t k = 0; k < shown; k++)
        if (kid[k].r)
            draw_kid(ctx, &kid[k], a.x + 2, a.y + 1 + (int)k, a.w - 2, &kc);
}

static call_ref cursor_ref(const calls_state *s)
{
    const call_row *row = &s->rows[s->tb.cursor];
    const region *r = s->regs[row->ri];
    return (call_ref){r, row->i, r->gidx0 + row->i};
}

/* Rows the details of the cursor call fill: rule, decomposition,
 * parents, metadata where recorded, the children's head and rows. */
int calls_detail_rows(calls_state *s)
{
    if (s->n == 0)
        return 0;
    call_ref c = cursor_ref(s);
    calls_kids(s, &c);
    size_t kids = s->kids_total < CALLS_KIDS_MAX ? s->kids_total : CALLS_KIDS_MAX;
    return 4 + (c.r->event_meta != NULL) + (int)kids;
}

void calls_draw_detail(calls_state *s, ui_ctx *ctx, rect a)
{
    if (a.h < 1 || s->n == 0)
        return;
    grid *g = &ctx->grid;
    call_ref c = cursor_ref(s);
    const theme_glyphs *gl = theme_glyphs_get(g->ascii);
    for (int x = 0; x < a.w; x++)
        grid_put_cp(g, a.x + x, a.y, gl->hline, ROLE_DIM, 0);
    char t[160], cn[64];
    ui_call_name(c.r, c.i, cn, sizeof cn);
    snprintf(t, sizeof t, " %s on rank %d, of %zu recorded (counted from 0) ", cn, c.r->rank,
             c.r->n);
    grid_put_text(g, a.x + 2, a.y, a.w - 4, t, ROLE_DIM, 0);
    int x = a.x + 1, w = a.w - 2;
    if (a.h > 1)
        draw_decomposition(ctx, &c, x, a.y + 1, w);
    if (a.h > 2)
        draw_parents(ctx, &c, x, a.y + 2, w);
    /* Metadata only where the region records it, leaving room for the
     * children otherwise. */
    int y = a.y + 3;
    if (a.h > 3 && c.r->event_meta)
        draw_meta(ctx, &c, x, y++, w);
    if (y < a.y + a.h)
        draw_kids(s, ctx, &c, (rect){x, y, w, a.y + a.h - y});
}
