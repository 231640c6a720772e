/* help: the key table and legend overlay (? and F1).
 *
 * The content is produced row by row by one walk that either counts the
 * rows or draws the visible ones, so scrolling needs no stored copy and the
 * text wraps to whatever width the screen has. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/view.h"

/* The lines of one scope, from the command table and the user's key map. */
#define HELP_LINES_MAX 64

typedef struct help_section {
    size_t n;
    help_line line[HELP_LINES_MAX];
} help_section;

static void section_load(help_section *sec, const ui_ctx *ctx, key_scope scope)
{
    uint32_t hidden = 0;
    for (size_t v = 0; v < ctx->nviews && v < 32; v++)
        if (!ui_view_shown(ctx, v))
            hidden |= 1u << v;
    sec->n = commands_help_shown(&ctx->keys, scope, hidden, sec->line, HELP_LINES_MAX);
    if (sec->n > HELP_LINES_MAX)
        sec->n = HELP_LINES_MAX;
}

typedef struct help_walk {
    ui_ctx *ctx;
    rect area; /* the rows below the help's own header line */
    int keyw;  /* width of the key column */
    int row;   /* rows produced so far */
    bool draw;
    help_section sec; /* the section being walked */
    /* Searching (not drawing): the first matching line at or after from
     * (dir > 0) or the last one before it (dir < 0); every match counted,
     * and which of them that one is. */
    bool find;
    int from, dir, found, nmatch, found_nth;
} help_walk;

/* Whether an entry (its key and text) matches the help's search. */
static bool entry_matches(const ui_ctx *ctx, const char *key, const char *text)
{
    if (!ctx->help_has_re)
        return false;
    return (key && regexec(&ctx->help_re, key, 0, NULL, 0) == 0) ||
           (text && regexec(&ctx->help_re, text, 0, NULL, 0) == 0);
}

/* The search walk's note of a matching entry starting at row r. */
static void walk_match(help_walk *hw, int r)
{
    hw->nmatch++;
    if (hw->dir > 0 ? r >= hw->from && hw->found < 0 : r < hw->from) {
        hw->found = r;
        hw->found_nth = hw->nmatch;
    }
}

/* Byte length of the next line of at most w columns of s[0..n), broken at
 * spaces; *next is where the following line starts.  A word wider than
 * the line is taken whole (the drawing cuts it with an ellipsis). */
static size_t wrap_line(const grid *g, const char *s, size_t n, int w, size_t *next)
{
    size_t pos = 0, end = 0;
    int width = 0;
    while (pos < n) {
        size_t we = pos;
        while (we < n && s[we] == ' ')
            we++;
        while (we < n && s[we] != ' ')
            we++;
        int ww = grid_text_widthn(g, s + pos, we - pos);
        if (end > 0 && width + ww > w)
            break;
        width += ww;
        end = we;
        pos = we;
    }
    *next = end;
    while (*next < n && s[*next] == ' ')
        (*next)++;
    return end;
}

/* The grid row of walk row r, or -1 when it is scrolled out of sight. */
static int walk_y(const help_walk *hw, int r)
{
    int rel = r - hw->ctx->help_top;
    return rel >= 0 && rel < hw->area.h ? hw->area.y + rel : -1;
}

static void walk_entry(help_walk *hw, const char *key, int key_role, const char *text)
{
    grid *g = &hw->ctx->grid;
    int tx = hw->area.x + 1 + hw->keyw + 1;
    int tw = hw->area.x + hw->area.w - tx;
    size_t n = strlen(text ? text : ""), pos = 0;
    bool first = true;
    bool hit = entry_matches(hw->ctx, key, text);
    if (hit && hw->find)
        walk_match(hw, hw->row);
    do {
        size_t next;
        size_t len = wrap_line(g, text + pos, n - pos, tw > 1 ? tw : 1, &next);
        int y = walk_y(hw, hw->row);
        if (hw->draw && y >= 0) {
            if (first && key)
                grid_put_text(g, hw->area.x + 1, y, hw->keyw, key, hit ? ROLE_SEARCH : key_role, 0);
            grid_put_textn(g, tx, y, tw, text + pos, len, hit ? ROLE_SEARCH : ROLE_NORMAL, 0);
        }
        hw->row++;
        pos += next;
        first = false;
    } while (pos < n);
}

static void walk_heading(help_walk *hw, const char *title)
{
    if (hw->row > 0)
        hw->row++;
    int y = walk_y(hw, hw->row);
    bool hit = entry_matches(hw->ctx, NULL, title);
    if (hit && hw->find)
        walk_match(hw, hw->row);
    if (hw->draw && y >= 0)
        grid_put_text(&hw->ctx->grid, hw->area.x, y, hw->area.w, title,
                      hit ? ROLE_SEARCH : ROLE_HEADER, GA_BOLD);
    hw->row++;
}

/* A legend sample: text, or count copies of a glyph, each in its role;
 * drawn the way the timeline draws (a bar is "[name   ]"). */
typedef struct sample_part {
    const char *text;
    uint32_t glyph;
    int count, role;
} sample_part;

enum { SAMPLE_PARTS_MAX = 6 };

/* The timeline's legend: what each mark means, in the order shown.  The
 * help draws each sample with the glyphs the timeline draws with
 * (theme_glyphs), and the man page's legend is written from the same
 * rows (help_legend_label, help_legend_text), so neither can say
 * something the screen does not. */
typedef enum legend_id {
    LG_BAR,
    LG_AWAIT,
    LG_DENSE,
    LG_DEEPER,
    LG_GROUP,
    LG_FILTER,
    LG_SELECTED,
    LG_SEARCH,
    LG_CURSOR_TIME,
    LG_CURSOR_RULER,
    LG_CURSOR_COL,
    LG_SEL_EDGE,
    LG_COUNT
} legend_id;

static const char *const legend_text[LG_COUNT] = {
    [LG_BAR] = "a call from its start to its end, its name inside when it fits",
    [LG_AWAIT] = "the hatched share (and N% after the name): time suspended (awaiting); over the "
                 "children that account for it (executor work, awaiting callees), else spread "
                 "evenly: the file says how long, not when",
    [LG_DENSE] = "several calls in a cell, by load: busy under a third, under two thirds, or more "
                 "of its time",
    [LG_DEEPER] = "N depth rows not shown (also +N by a name): e",
    [LG_GROUP] = "a thread's tasks (T): how many ran per column (up to 1, 3, more); Enter opens",
    [LG_FILTER] = "with f: the timeline holds only the matching calls",
    [LG_SELECTED] = "in the selection colour: the selected call or row; its details show below",
    [LG_SEARCH] = "in the search colour: a region matching the search",
    [LG_CURSOR_TIME] = "left of the ruler: the time where the cursor column starts (+ and - zoom "
                       "around it)",
    [LG_CURSOR_RULER] = "on the ruler: the cursor column",
    [LG_CURSOR_COL] = "down the lanes: the cursor column, where they are empty",
    [LG_SEL_EDGE] = "down the lanes: the first and last columns of the selected call, where they "
                    "are empty (the ruler highlights its span)",
};

/* The sample of row id in parts (the glyphs of gl); returns how many. */
static size_t legend_sample(legend_id id, const theme_glyphs *gl, sample_part *p)
{
    switch (id) {
    case LG_BAR:
        p[0] = (sample_part){"[name    ]", 0, 0, ROLE_BAR0};
        return 1;
    case LG_AWAIT:
        p[0] = (sample_part){"[name 40%", 0, 0, ROLE_BAR0 + 1};
        p[1] = (sample_part){NULL, gl->await, 1, ROLE_AWAIT};
        p[2] = (sample_part){" ", 0, 0, ROLE_BAR0 + 1};
        p[3] = (sample_part){NULL, gl->await, 1, ROLE_AWAIT};
        p[4] = (sample_part){"]", 0, 0, ROLE_BAR0 + 1};
        return 5;
    case LG_DENSE:
        for (int k = 0; k < 3; k++) {
            p[2 * k] = (sample_part){NULL, gl->dense[k], 1, ROLE_DENSE};
            if (k < 2)
                p[2 * k + 1] = (sample_part){" ", 0, 0, ROLE_NORMAL};
        }
        return 5;
    case LG_DEEPER:
        p[0] = (sample_part){"+N deeper", 0, 0, ROLE_DIM};
        return 1;
    case LG_GROUP:
        p[0] = (sample_part){"r0 Main", 0, 0, ROLE_HEADER};
        p[1] = (sample_part){NULL, gl->ellipsis, 1, ROLE_HEADER};
        p[2] = (sample_part){" ", 0, 0, ROLE_HEADER};
        p[3] = (sample_part){NULL, gl->collapsed, 1, ROLE_HEADER};
        p[4] = (sample_part){"18", 0, 0, ROLE_HEADER};
        return 5;
    case LG_FILTER:
        p[0] = (sample_part){"filter /re/", 0, 0, ROLE_HEADER};
        return 1;
    case LG_SELECTED:
        p[0] = (sample_part){"name", 0, 0, ROLE_SELECTED};
        return 1;
    case LG_SEARCH:
        p[0] = (sample_part){"name", 0, 0, ROLE_SEARCH};
        return 1;
    case LG_CURSOR_TIME:
        p[0] = (sample_part){"@4.18 ms", 0, 0, ROLE_DIM};
        return 1;
    case LG_CURSOR_RULER:
        p[0] = (sample_part){NULL, gl->hline, 2, ROLE_HEADER};
        p[1] = (sample_part){NULL, gl->sort_down, 1, ROLE_SELECTED};
        p[2] = (sample_part){NULL, gl->hline, 2, ROLE_HEADER};
        return 3;
    case LG_CURSOR_COL:
        p[0] = (sample_part){NULL, gl->cursor_col, 1, ROLE_NORMAL};
        return 1;
    case LG_SEL_EDGE:
        p[0] = (sample_part){NULL, gl->sel_edge, 1, ROLE_SELECTED};
        p[1] = (sample_part){"  ", 0, 0, ROLE_NORMAL};
        p[2] = (sample_part){NULL, gl->sel_edge, 1, ROLE_SELECTED};
        return 3;
    default:
        return 0;
    }
}

size_t help_legend_count(void)
{
    return LG_COUNT;
}

const char *help_legend_text(size_t i)
{
    return i < LG_COUNT ? legend_text[i] : "";
}

char *help_legend_label(size_t i, bool ascii, char *buf, size_t len)
{
    sample_part p[SAMPLE_PARTS_MAX];
    size_t n = i < LG_COUNT ? legend_sample((legend_id)i, theme_glyphs_get(ascii), p) : 0, off = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < n; k++) {
        if (p[k].text)
            off += (size_t)snprintf(buf + off, off < len ? len - off : 0, "%s", p[k].text);
        for (int c = 0; c < p[k].count; c++) {
            char u[4];
            size_t un = utf8_encode(p[k].glyph, u);
            if (off + un < len) {
                memcpy(buf + off, u, un);
                buf[off + un] = '\0';
            }
            off += un;
        }
    }
    return buf;
}

static void walk_legend(help_walk *hw, const sample_part *parts, size_t nparts, const char *text)
{
    int y = walk_y(hw, hw->row);
    grid *g = &hw->ctx->grid;
    int end = hw->area.x + 1 + hw->keyw;
    if (hw->draw && y >= 0) {
        int x = hw->area.x + 1;
        for (size_t i = 0; i < nparts && x < end; i++) {
            if (parts[i].text)
                x += grid_put_text(g, x, y, end - x, parts[i].text, parts[i].role, 0);
            for (int k = 0; k < parts[i].count; k++) {
                int w = grid_cp_width(g, parts[i].glyph);
                if (x + w <= end)
                    grid_put_cp(g, x, y, parts[i].glyph, parts[i].role, 0);
                x += w;
            }
        }
    }
    walk_entry(hw, NULL, ROLE_NORMAL, text);
}

static void walk_legends(help_walk *hw)
{
    const theme_glyphs *gl = theme_glyphs_get(hw->ctx->grid.ascii);
    walk_heading(hw, "Legend");
    for (size_t i = 0; i < LG_COUNT; i++) {
        sample_part p[SAMPLE_PARTS_MAX];
        size_t n = legend_sample((legend_id)i, gl, p);
        walk_legend(hw, p, n, legend_text[i]);
    }
}

static void walk_section(help_walk *hw, const char *title, key_scope scope)
{
    help_section *sec = &hw->sec;
    section_load(sec, hw->ctx, scope);
    walk_heading(hw, title);
    for (size_t i = 0; i < sec->n; i++)
        walk_entry(hw, sec->line[i].keys, ROLE_HEADER, sec->line[i].text);
}

/* The section titles, by scope. */
static void section_title(const ui_ctx *ctx, key_scope scope, char *buf, size_t len)
{
    if (scope == SCOPE_GLOBAL)
        snprintf(buf, len, "Keys in every view");
    else if (scope == SCOPE_SOURCE)
        snprintf(buf, len, "Source pane (s, beside or below any view)");
    else if (scope == SCOPE_HELP)
        snprintf(buf, len, "This help");
    else if ((size_t)scope < ctx->nviews && ui_view_shown(ctx, (size_t)scope)) {
        /* a compare view outside --diff: no section (its keys do nothing there) */
        char key[32];
        snprintf(buf, len, "%s %s view", ui_view_key(ctx, (view_id)scope, key, sizeof key),
                 ctx->views[scope]->name);
    } else
        buf[0] = '\0';
}

/* Every view first, then the views, the source pane, this help. */
static key_scope section_scope(size_t i)
{
    return i == 0 ? SCOPE_GLOBAL : (key_scope)(i - 1);
}

static void walk_all(help_walk *hw)
{
    for (size_t i = 0; i < SCOPE_COUNT; i++) {
        key_scope scope = section_scope(i);
        char title[96];
        section_title(hw->ctx, scope, title, sizeof title);
        if (title[0] && (scope != SCOPE_SOURCE || views_source_pane()))
            walk_section(hw, title, scope);
    }
    walk_legends(hw);
}

/* The key column fits the longest key label, within 12..22 columns (the
 * view keys of a comparison with every view: "1 2 3 4 5 6 7 8 9 D B"). */
static int key_column(const ui_ctx *ctx, help_section *sec)
{
    int w = 12;
    for (int scope = 0; scope < SCOPE_COUNT; scope++) {
        section_load(sec, ctx, (key_scope)scope);
        for (size_t i = 0; i < sec->n; i++) {
            int kw = text_display_width(sec->line[i].keys);
            w = w > kw ? w : kw;
        }
    }
    return w < 22 ? w : 22;
}

static void walk_setup(help_walk *hw, ui_ctx *ctx, rect area, bool draw)
{
    hw->ctx = ctx;
    hw->draw = draw;
    hw->find = false;
    hw->found = -1;
    hw->nmatch = hw->found_nth = 0;
    hw->row = 0;
    hw->area = (rect){area.x, area.y + 1, area.w, area.h > 1 ? area.h - 1 : 0};
    hw->keyw = area.w >= 60 ? key_column(ctx, &hw->sec) : area.w / 4;
}

static int help_rows(ui_ctx *ctx, rect area)
{
    help_walk *hw = malloc(sizeof *hw);
    if (!hw)
        return 0;
    walk_setup(hw, ctx, area, false);
    walk_all(hw);
    int rows = hw->row;
    free(hw);
    return rows;
}

static void help_clamp(ui_ctx *ctx, rect area)
{
    int max_top = help_rows(ctx, area) - (area.h - 1);
    if (ctx->help_top > max_top)
        ctx->help_top = max_top;
    if (ctx->help_top < 0)
        ctx->help_top = 0;
}

void help_draw(ui_ctx *ctx, rect area)
{
    if (area.h < 1 || area.w < 1)
        return;
    help_clamp(ctx, area);
    help_walk *hw = malloc(sizeof *hw);
    if (!hw)
        return;
    walk_setup(hw, ctx, area, true);
    walk_all(hw);
    int rows = hw->row, shown = hw->area.h;
    free(hw);
    grid *g = &ctx->grid;
    grid_fill(g, (rect){area.x, area.y, area.w, 1}, ' ', ROLE_HEADER, 0);
    int used =
        grid_put_text(g, area.x, area.y, area.w, "Help: keys and legend", ROLE_HEADER, GA_BOLD);
    char pos[64];
    int last = ctx->help_top + shown < rows ? ctx->help_top + shown : rows;
    snprintf(pos, sizeof pos, "lines %d-%d of %d", ctx->help_top + 1, last, rows);
    if (ctx->help_has_re && ctx->help_hit >= 0) {
        /* Which match the top line is, of how many (n N move). */
        char m[320];
        snprintf(m, sizeof m, "  /%s/: match %d of %d (n N)", ctx->help_pat, ctx->help_nth,
                 ctx->help_nmatch);
        int mw = grid_text_width(g, m);
        if (used + mw <= area.w)
            used += grid_put_text(g, area.x + used, area.y, area.w - used, m, ROLE_HEADER, 0);
    }
    int pw = grid_text_width(g, pos);
    if (used + 2 + pw <= area.w)
        grid_put_text(g, area.x + area.w - pw, area.y, pw, pos, ROLE_HEADER, 0);
}

/* The help's area for key handling: below the title bar, above the status. */
static rect help_area(const ui_ctx *ctx)
{
    return (rect){0, 1, ctx->grid.cols, ctx->grid.rows > 2 ? ctx->grid.rows - 2 : 0};
}

/* Scrolls to the next match below the top line (forward: at or below it
 * right after a new search, when nothing was found yet) or the previous
 * one above it, as less's n and N. */
static int help_find(ui_ctx *ctx, rect area, bool forward)
{
    if (!ctx->help_has_re) {
        ui_set_status(ctx, "No search yet: press / to search the help");
        return VF_HANDLED | VF_REDRAW;
    }
    help_walk *hw = malloc(sizeof *hw);
    if (!hw)
        return VF_HANDLED;
    walk_setup(hw, ctx, area, false);
    hw->find = true;
    hw->dir = forward ? 1 : -1;
    hw->from = ctx->help_hit < 0 ? ctx->help_top : forward ? ctx->help_top + 1 : ctx->help_top;
    walk_all(hw);
    int found = hw->found, nth = hw->found_nth, n = hw->nmatch;
    free(hw);
    if (found < 0) {
        ui_set_status(ctx, "Pattern not found in the help: /%s/%s", ctx->help_pat,
                      n ? (forward ? " (no more below)" : " (none above)") : "");
        return VF_HANDLED | VF_REDRAW;
    }
    ctx->help_top = found;
    ctx->help_hit = found;
    ctx->help_nth = nth;
    ctx->help_nmatch = n;
    help_clamp(ctx, area);
    return VF_HANDLED | VF_REDRAW;
}

int help_on_key(ui_ctx *ctx, int key)
{
    rect area = help_area(ctx);
    int page = area.h > 2 ? area.h - 2 : 1;
    switch (keymap_lookup(&ctx->keys, SCOPE_HELP, key)) {
    case CMD_HELP:
    case CMD_QUIT:
    case CMD_BACK:
        ctx->help_open = false;
        return VF_HANDLED | VF_REDRAW;
    case CMD_UP:
        ctx->help_top--;
        break;
    case CMD_DOWN:
        ctx->help_top++;
        break;
    case CMD_WHEEL_UP:
        ctx->help_top -= 3;
        break;
    case CMD_WHEEL_DOWN:
        ctx->help_top += 3;
        break;
    case CMD_PGUP:
        ctx->help_top -= page;
        break;
    case CMD_PGDN:
    case CMD_ENTER:
        ctx->help_top += page;
        break;
    case CMD_HOME:
        ctx->help_top = 0;
        break;
    case CMD_END:
        ctx->help_top = 1 << 20;
        break;
    case CMD_SEARCH:
        ctx->prompt_open = true;
        ctx->prompt_len = 0;
        ctx->prompt[0] = '\0';
        return VF_HANDLED | VF_REDRAW;
    case CMD_SEARCH_NEXT:
    case CMD_SEARCH_PREV:
        return help_find(ctx, area, keymap_lookup(&ctx->keys, SCOPE_HELP, key) == CMD_SEARCH_NEXT);
    default:
        return 0;
    }
    help_clamp(ctx, area);
    return VF_HANDLED | VF_REDRAW;
}

int help_search(ui_ctx *ctx, const char *pat)
{
    if (!pat[0]) {
        if (!ctx->help_has_re) {
            ui_set_status(ctx, "No search yet: type a pattern after /");
            return VF_HANDLED | VF_REDRAW;
        }
        return help_find(ctx, help_area(ctx), true);
    }
    regex_t re;
    bool upper = false;
    for (const char *c = pat; *c; c++)
        upper |= *c >= 'A' && *c <= 'Z';
    int rc = regcomp(&re, pat, REG_EXTENDED | REG_NOSUB | (upper ? 0 : REG_ICASE));
    if (rc != 0) {
        char why[128];
        regerror(rc, &re, why, sizeof why);
        ui_set_status(ctx, "Bad regular expression: %s", why);
        return VF_HANDLED | VF_REDRAW;
    }
    help_search_free(ctx);
    ctx->help_re = re;
    ctx->help_has_re = true;
    snprintf(ctx->help_pat, sizeof ctx->help_pat, "%s", pat);
    ctx->help_hit = -1;
    return help_find(ctx, help_area(ctx), true);
}

void help_search_free(ui_ctx *ctx)
{
    if (ctx->help_has_re)
        regfree(&ctx->help_re);
    ctx->help_has_re = false;
}
