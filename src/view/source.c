/* source: the source pane.
 *
 * The text is split into lines once per region, with the highlighter's
 * state at the start of every line, so drawing costs only the visible
 * lines however far down the pane is scrolled.  A region whose line
 * profile is of a function it calls (its lines outside the region's text)
 * shows two parts: its own text, then under a labelled row (function,
 * file and line) the profiled function's text with the gutter. */
#include "source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/checked.h"
#include "pyhl.h"
#include "source_gutter.h"

#define SOURCE_TAB 8
/* Bytes of one line classified and drawn: the rest of a longer line is
 * beyond any screen (it is cut with an ellipsis). */
#define SOURCE_LINE_MAX 65536

/* One text shown: its lines and the highlighter state at each. */
typedef struct src_part {
    const char *text; /* the text the line cache is for (owned by the model) */
    size_t nlines;
    size_t *line_off; /* nlines + 1: start of each line, then the end */
    pyhl_state *hl;   /* nlines: highlighter state at each line's start */
    int64_t first;    /* line number of the text's first line */
} src_part;

typedef struct source_state {
    const char *text;  /* the first part's text, NULL: nothing to show */
    size_t nlines;     /* rows of the parts together, the second's label included */
    src_part part[2];  /* the text, then the profiled function's (text NULL: none) */
    uint8_t *kinds;    /* SOURCE_LINE_MAX: the line being drawn */
    size_t top;        /* first row shown */
    int page;          /* code rows at the last draw */
    bool lp_text;      /* the first part is the line-profile record's own source */
    src_gutter gutter; /* the line profile beside the lines (of the last part) */
} source_state;

static void part_forget(src_part *pt)
{
    free(pt->line_off);
    free(pt->hl);
    memset(pt, 0, sizeof *pt);
}

static void source_forget(source_state *s)
{
    part_forget(&s->part[0]);
    part_forget(&s->part[1]);
    s->nlines = 0;
    s->text = NULL;
}

static void *source_create(ui_ctx *ctx)
{
    (void)ctx;
    source_state *s = calloc(1, sizeof *s);
    if (s && !(s->kinds = malloc(SOURCE_LINE_MAX))) {
        free(s);
        return NULL;
    }
    return s;
}

static void source_destroy(void *state)
{
    source_state *s = state;
    if (!s)
        return;
    source_forget(s);
    gutter_free(&s->gutter);
    free(s->kinds);
    free(s);
}

/* Splits text into lines and runs the highlighter over it once.  A final
 * newline does not open an empty last line.  False when out of memory. */
static bool part_index(src_part *s, uint8_t *kinds, const char *text)
{
    size_t len = strlen(text), n = 1;
    for (size_t i = 0; i < len; i++)
        if (text[i] == '\n' && i + 1 < len)
            n++;
    s->line_off = malloc((n + 1) * sizeof *s->line_off);
    s->hl = malloc(n * sizeof *s->hl);
    if (!s->line_off || !s->hl) {
        part_forget(s);
        return false;
    }
    pyhl_state st = {0};
    size_t start = 0;
    for (size_t k = 0; k < n; k++) {
        const char *nl = memchr(text + start, '\n', len - start);
        size_t end = nl ? (size_t)(nl - text) : len;
        s->line_off[k] = start;
        s->hl[k] = st;
        size_t m = end - start;
        /* Only the state matters here; the kinds are thrown away. */
        size_t off = 0;
        do {
            size_t chunk = m - off < SOURCE_LINE_MAX ? m - off : SOURCE_LINE_MAX;
            pyhl_line(&st, text + start + off, chunk, kinds);
            off += chunk;
        } while (off < m);
        start = end + 1;
    }
    s->line_off[n] = start;
    s->nlines = n;
    s->text = text;
    return true;
}

/* The profiled function's text when it is a part of its own, after the
 * region's text (NULL: the gutter goes beside the only text). */
static const line_profile *second_part(const source_state *s, const region *r)
{
    return s->lp_text && r && r->source_text ? s->gutter.lp : NULL;
}

/* Follows the selection: a new text resets the scroll, the same text
 * (the region on another rank) keeps it.  Without a captured source the
 * region's line-profile record may carry its own; with one, the record's
 * source follows it as a second part. */
static void source_follow(source_state *s, const region *r)
{
    gutter_follow(&s->gutter, r);
    const line_profile *lp = s->gutter.lp;
    s->lp_text = r && gutter_own_source(&s->gutter, r);
    const line_profile *two = second_part(s, r);
    const char *text = s->lp_text && !two ? lp->source : r ? r->source_text : NULL;
    const char *text2 = two ? two->source : NULL;
    if (text == s->text && text2 == s->part[1].text)
        return;
    bool same = text && s->text && strcmp(text, s->text) == 0;
    source_forget(s);
    if (!same)
        s->top = 0;
    if (!text)
        return;
    if (!part_index(&s->part[0], s->kinds, text) ||
        (text2 && !part_index(&s->part[1], s->kinds, text2))) {
        source_forget(s);
        s->top = 0;
        return;
    }
    s->part[0].first = s->lp_text && !two ? lp->source_first_lineno
                       : r->has_lineno    ? r->source_lineno
                                          : 1;
    s->part[1].first = two ? two->source_first_lineno : 1;
    s->text = text;
    s->nlines = s->part[0].nlines + (text2 ? 1 + s->part[1].nlines : 0);
}

/* Line k of a part, without its newline. */
static const char *source_line(const src_part *s, size_t k, size_t *n)
{
    size_t a = s->line_off[k], b = s->line_off[k + 1] - 1;
    *n = b - a;
    return s->text + a;
}

int source_line_width(const grid *g, const char *line, size_t n)
{
    int col = 0;
    size_t i = 0;
    while (i < n) {
        if (line[i] == '\t') {
            col = (col / SOURCE_TAB + 1) * SOURCE_TAB;
            i++;
            continue;
        }
        const char *tab = memchr(line + i, '\t', n - i);
        size_t j = tab ? (size_t)(tab - line) : n;
        col += grid_text_widthn(g, line + i, j - i);
        i = j;
    }
    return col;
}

static int kind_role(uint8_t k)
{
    switch (k) {
    case PYHL_KEYWORD:
        return ROLE_SRC_KEYWORD;
    case PYHL_STRING:
        return ROLE_SRC_STRING;
    case PYHL_COMMENT:
        return ROLE_SRC_COMMENT;
    case PYHL_DECORATOR:
        return ROLE_SRC_DECORATOR;
    case PYHL_NUMBER:
        return ROLE_SRC_NUMBER;
    default:
        return ROLE_NORMAL;
    }
}

/* Draws one highlighted line in w columns: tabs expanded, control
 * characters escaped (grid_put_textn), a cut marked with an ellipsis. */
static void draw_code(grid *g, int x, int y, int w, const char *s, size_t n, const uint8_t *kinds,
                      bool longer)
{
    int col = 0;
    size_t i = 0;
    while (i < n && col < w) {
        if (s[i] == '\t') {
            col = (col / SOURCE_TAB + 1) * SOURCE_TAB;
            i++;
            continue;
        }
        size_t j = i;
        while (j < n && s[j] != '\t' && kinds[j] == kinds[i])
            j++;
        int used = grid_put_textn(g, x + col, y, w - col, s + i, j - i, kind_role(kinds[i]), 0);
        if (used < grid_text_widthn(g, s + i, j - i))
            return; /* cut inside the run: grid_put_textn drew the ellipsis */
        col += used;
        i = j;
    }
    if ((i < n || longer) && col >= w && w > 0)
        grid_put_cp(g, x + w - 1, y, theme_glyphs_get(g->ascii)->ellipsis, ROLE_DIM, 0);
}

static int digits_of(int64_t v)
{
    int d = 1;
    for (; v >= 10 || v <= -10; v /= 10)
        d++;
    return v < 0 ? d + 1 : d;
}

/* Line number first + k as text: widened to uint64 past INT64_MAX, so a
 * file's line number near the top of the range never wraps negative (k is
 * a line index, far below 2^63). */
static int line_no_text(char *buf, size_t len, int width, int64_t first, size_t k)
{
    width = width < 1 ? 1 : width > 24 ? 24 : width;
    if (first >= 0)
        return snprintf(buf, len, "%*llu", width, (unsigned long long)first + k);
    return snprintf(buf, len, "%*lld", width, (long long)(first + (int64_t)k));
}

static void draw_header(source_state *s, ui_ctx *ctx, const region *r, rect a)
{
    grid *g = &ctx->grid;
    grid_fill(g, (rect){a.x, a.y, a.w, 1}, ' ', ROLE_HEADER, 0);
    char pos[64] = "";
    if (s->nlines > (size_t)s->page && s->page > 0) {
        size_t last = s->top + (size_t)s->page < s->nlines ? s->top + (size_t)s->page : s->nlines;
        snprintf(pos, sizeof pos, " %zu-%zu/%zu ", s->top + 1, last, s->nlines);
    }
    int pw = grid_text_width(g, pos);
    int room = a.w - 1 - (pw < a.w / 2 ? pw : 0);
    int x = a.x + 1;
    /* The file and first line of the text shown: the record's own source
     * is the profiled function's. */
    const line_profile *lp = s->lp_text && !second_part(s, r) ? s->gutter.lp : NULL;
    const char *file = lp ? lp->filename : r ? r->source_file : NULL;
    bool has_ln = lp || (r && r->has_lineno);
    int64_t lineno = lp ? lp->source_first_lineno : r ? r->source_lineno : 0;
    if (r && file) {
        x += grid_put_text(g, x, a.y, room, file, ROLE_HEADER, GA_BOLD);
        if (has_ln && x < a.x + 1 + room) {
            char ln[32];
            snprintf(ln, sizeof ln, ":%lld", (long long)lineno);
            x += grid_put_text(g, x, a.y, a.x + 1 + room - x, ln, ROLE_HEADER, GA_BOLD);
        }
        x += 2;
    }
    if (r && x < a.x + 1 + room)
        grid_put_text(g, x, a.y, a.x + 1 + room - x, r->name, ROLE_HEADER, 0);
    else if (!r)
        grid_put_text(g, x, a.y, room, "source", ROLE_HEADER, GA_BOLD);
    if (pw < a.w / 2)
        grid_put_text(g, a.x + a.w - pw, a.y, pw, pos, ROLE_HEADER, 0);
}

/* The row that opens the profiled function's part: its name, file, line. */
static void draw_part_label(const line_profile *lp, grid *g, int x, int y, int w)
{
    char b[512];
    const char *dash = g->ascii ? "--" : "──";
    snprintf(b, sizeof b, "%s line profile: %s  %s:%lld", dash, lp->function ? lp->function : "?",
             lp->filename ? lp->filename : "?", (long long)lp->source_first_lineno);
    grid_put_text_mid(g, x, y, w, b, ROLE_HEADER, GA_BOLD);
}

static void draw_lines(source_state *s, ui_ctx *ctx, const region *r, rect a)
{
    grid *g = &ctx->grid;
    const line_profile *two = second_part(s, r);
    int gw = 1;
    for (int p = 0; p < (two ? 2 : 1); p++) {
        const src_part *pt = &s->part[p];
        char last[32];
        int lw = line_no_text(last, sizeof last, 1, pt->first, pt->nlines ? pt->nlines - 1 : 0);
        int w = lw > digits_of(pt->first) ? lw : digits_of(pt->first);
        gw = w > gw ? w : gw;
    }
    int pw = gutter_layout(&s->gutter, g, a.w - gw - 3);
    if (pw > 0) { /* a caption row over the gutter */
        gutter_caption(&s->gutter, g, a.x, a.y, a.w);
        a.y++;
        a.h--;
    }
    a.x += pw;
    a.w -= pw;
    int cx = a.x + gw + 3, cw = a.w - gw - 3;
    uint32_t vline = theme_glyphs_get(g->ascii)->vline;
    size_t n0 = s->part[0].nlines;
    for (int row = 0; row < a.h && s->top + (size_t)row < s->nlines; row++) {
        size_t k = s->top + (size_t)row;
        int y = a.y + row;
        if (two && k == n0) {
            draw_part_label(two, g, a.x - pw, y, a.w + pw);
            continue;
        }
        /* The gutter goes beside the line-profiled text: the second part
         * when there is one, else the only one. */
        bool second = two && k > n0;
        const src_part *pt = &s->part[second ? 1 : 0];
        if (second)
            k -= n0 + 1;
        char num[32];
        line_no_text(num, sizeof num, gw, pt->first, k);
        grid_put_text(g, a.x, y, gw, num, ROLE_DIM, 0);
        grid_put_cp(g, a.x + gw + 1, y, vline, ROLE_DIM, 0);
        if (pw > 0 && (second || !two))
            gutter_draw(&s->gutter, g, a.x - pw, y, ck_add(pt->first, (int64_t)k));
        size_t n;
        const char *line = source_line(pt, k, &n);
        bool longer = n > SOURCE_LINE_MAX;
        if (longer)
            n = SOURCE_LINE_MAX;
        pyhl_state st = pt->hl[k];
        pyhl_line(&st, line, n, s->kinds);
        if (cw > 0)
            draw_code(g, cx, y, cw, line, n, s->kinds, longer);
    }
}

static void source_clamp(source_state *s)
{
    size_t page = s->page > 0 ? (size_t)s->page : 1;
    size_t max_top = s->nlines > page ? s->nlines - page : 0;
    if (s->top > max_top)
        s->top = max_top;
}

static void source_draw(void *state, ui_ctx *ctx, rect area)
{
    source_state *s = state;
    if (!s || area.w < 4 || area.h < 1)
        return;
    grid *g = &ctx->grid;
    grid_fill(g, area, ' ', ROLE_NORMAL, 0);
    if (area.x > 0) { /* beside the view: a rule on its left */
        uint32_t vline = theme_glyphs_get(g->ascii)->vline;
        for (int y = area.y; y < area.y + area.h; y++)
            grid_put_cp(g, area.x, y, vline, ROLE_DIM, 0);
        area.x++;
        area.w--;
    }
    const region *r = ctx->sel.region;
    source_follow(s, r);
    s->page = area.h - 1 - (s->gutter.lp && s->text ? 1 : 0);
    source_clamp(s);
    draw_header(s, ctx, r, area);
    rect body = {area.x, area.y + 1, area.w, area.h - 1};
    const char *msg = !r ? "no region selected"
                      : !r->source_text && !s->gutter.lp && r->source_file
                          ? "source text not captured" /* a native trace: file and line only */
                      : !r->source_text && !s->gutter.lp ? "no source captured"
                      : !s->text && s->gutter.lp         ? "no source captured; --lines "
                                                           "prints the line profile"
                      : !s->text                         ? "out of memory for the source"
                                                         : NULL;
    if (msg)
        grid_put_text(g, body.x + 1, body.y, body.w - 1, msg, ROLE_DIM, 0);
    else
        draw_lines(s, ctx, r, body);
}

static int source_cmd(void *state, ui_ctx *ctx, ui_cmd cmd)
{
    source_state *s = state;
    (void)ctx;
    if (!s || !s->text)
        return 0;
    if (!ui_scroll(&s->top, s->nlines, s->page, cmd))
        return 0;
    source_clamp(s);
    return VF_HANDLED | VF_REDRAW;
}

const view_ops source_pane_view = {
    .name = "source",
    .create = source_create,
    .destroy = source_destroy,
    .draw = source_draw,
    .on_cmd = source_cmd,
    .on_resize = NULL,
};
