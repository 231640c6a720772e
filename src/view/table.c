/* table: column layout, header, cursor and sort keys for list views. */
#include "table.h"

#include <stdio.h>
#include <string.h>

#include "ui/theme.h"

enum { TABLE_MARGIN = 1, TABLE_GAP = 1, TABLE_WHEEL_ROWS = 3 };

void table_init(table *t, const table_col *cols, size_t ncols, size_t sort_col, bool desc)
{
    memset(t, 0, sizeof *t);
    t->cols = cols;
    t->ncols = ncols < TABLE_MAX_COLS ? ncols : TABLE_MAX_COLS;
    t->sort_col = sort_col < t->ncols ? sort_col : 0;
    t->sort_desc = desc;
    t->page = 1;
}

/* Width the shown columns need, the flex one at its smallest. */
static int needed_width(const table *t, uint32_t shown)
{
    int w = TABLE_MARGIN, n = 0;
    for (size_t i = 0; i < t->ncols; i++)
        if ((shown >> i) & 1u) {
            w += t->cols[i].width;
            n++;
        }
    return w + (n > 1 ? (n - 1) * TABLE_GAP : 0);
}

/* The column dropped next on a narrow screen, or ncols when none may go. */
static size_t drop_candidate(const table *t, uint32_t shown)
{
    size_t best = t->ncols;
    for (size_t i = 0; i < t->ncols; i++) {
        const table_col *c = &t->cols[i];
        if (!((shown >> i) & 1u) || c->drop == 0 || i == t->sort_col)
            continue;
        if (best == t->ncols || c->drop > t->cols[best].drop)
            best = i;
    }
    return best;
}

/* Columns kept for the "▸N" marker when columns do not fit ("▸ N more"
 * when there is room). */
enum { TABLE_MORE_MIN = 4 };

static uint32_t all_cols(const table *t)
{
    return (t->ncols >= 32 ? UINT32_MAX : (1u << t->ncols) - 1u) & ~t->hidden;
}

static uint32_t fit_by_priority(const table *t, uint32_t shown, int w)
{
    while (needed_width(t, shown) > w) {
        size_t d = drop_candidate(t, shown);
        if (d == t->ncols)
            break;
        shown &= ~(1u << d);
    }
    return shown;
}

static uint32_t pinned_cols(const table *t, uint32_t avail)
{
    uint32_t p = avail & 1u;
    for (size_t i = 1; i < t->ncols; i++)
        if (((avail >> i) & 1u) && t->cols[i].pin)
            p |= 1u << i;
    return p;
}

/* Scrolled: column 0 and the pinned ones, then the other data columns in
 * order from the (hscroll - 1 + lead)-th on, as many as fit. */
static uint32_t fit_scrolled(const table *t, uint32_t avail, int w)
{
    uint32_t shown = pinned_cols(t, avail);
    size_t skip = t->hscroll - 1 + t->lead;
    for (size_t i = 1; i < t->ncols; i++) {
        if (!((avail >> i) & 1u) || ((shown >> i) & 1u))
            continue;
        if (skip > 0) {
            skip--;
            continue;
        }
        if (needed_width(t, shown | (1u << i)) > w)
            break;
        shown |= 1u << i;
    }
    return shown;
}

static size_t popcount32(uint32_t v)
{
    size_t n = 0;
    for (; v; v &= v - 1)
        n++;
    return n;
}

static size_t flex_col(const table *t, uint32_t shown)
{
    for (size_t i = 0; i < t->ncols; i++)
        if (((shown >> i) & 1u) && t->cols[i].flex)
            return i;
    return t->ncols;
}

/* A title's width with its sort arrow. */
static int title_width(const table *t, const grid *g, size_t col)
{
    return grid_text_width(g, t->cols[col].title) + (col == t->sort_col ? 1 : 0);
}

void table_want(table *t, size_t col, int width)
{
    if (col < t->ncols)
        t->want[col] = width > 0 ? width : 0;
}

/* What each shown column gets beyond its smallest width out of SPARE: name
 * columns first, up to their widest text, then the flex column the rest.
 * When every column is shown (ALL), a flex name column grows no wider than
 * its widest text, so the numbers stay next to their names; when some are
 * hidden it takes the rest too.  Returns what is left unused. */
static int name_growth(const table *t, uint32_t shown, bool all, int spare, int grow[])
{
    for (size_t i = 0; i < t->ncols; i++) {
        grow[i] = 0;
        int need = t->want[i] - t->cols[i].width;
        if (((shown >> i) & 1u) && t->want[i] > 0 && need > 0 && spare > 0) {
            grow[i] = need < spare ? need : spare;
            spare -= grow[i];
        }
    }
    size_t f = flex_col(t, shown);
    if (f < t->ncols && spare > 0 && (t->want[f] == 0 || !all)) {
        grow[f] += spare;
        spare = 0;
    }
    return spare;
}

void table_layout(table *t, const grid *g, rect area)
{
    uint32_t avail = all_cols(t);
    uint32_t free_cols = avail & ~pinned_cols(t, avail);
    size_t first = 1;
    while (first < t->ncols && !((free_cols >> first) & 1u))
        first++;
    t->lead = first < t->ncols && ((fit_by_priority(t, avail, area.w) >> first) & 1u) ? 1 : 0;
    size_t nsteps = popcount32(free_cols) + 1 - t->lead; /* hscroll 0 .. nsteps - 1 */
    if (t->hscroll >= nsteps)
        t->hscroll = nsteps ? nsteps - 1 : 0;
    uint32_t shown =
        t->hscroll ? fit_scrolled(t, avail, area.w) : fit_by_priority(t, avail, area.w);
    /* The marker goes into the flex column's header, after its title, when
     * the column's spare width holds it (no column lost to it), else at the
     * header's right end in columns of its own. */
    int reserve = 0;
    t->more_col = t->ncols;
    if (shown != avail) {
        size_t f = flex_col(t, shown);
        int spare0 = area.w - needed_width(t, shown), grow[TABLE_MAX_COLS];
        name_growth(t, shown, false, spare0, grow);
        if (f < t->ncols &&
            t->cols[f].width + grow[f] - title_width(t, g, f) - 1 >= TABLE_MORE_MIN) {
            t->more_col = f;
        } else {
            reserve = TABLE_MORE_MIN;
            if (spare0 < reserve) {
                int w = area.w - reserve;
                shown = t->hscroll ? fit_scrolled(t, avail, w) : fit_by_priority(t, avail, w);
            }
        }
    }
    t->nmore = popcount32(avail & ~shown);
    int spare = area.w - needed_width(t, shown) - reserve;
    int grow[TABLE_MAX_COLS];
    spare = name_growth(t, shown, shown == avail, spare, grow);
    int x = area.x + TABLE_MARGIN;
    for (size_t i = 0; i < t->ncols; i++) {
        t->x[i] = x;
        t->w[i] = 0;
        if (!((shown >> i) & 1u))
            continue;
        int w = t->cols[i].width + grow[i];
        int room = area.x + area.w - x;
        t->w[i] = w < room ? w : room > 0 ? room : 0;
        x += w + TABLE_GAP;
    }
    t->shown = shown;
    t->left = area.x;
    t->width = area.w;
    t->body_y = area.y + 1;
    t->page = area.h > 1 ? area.h - 1 : 1;
}

void table_put(const table *t, grid *g, size_t col, int y, const char *text, int role, int attr)
{
    if (!table_col_shown(t, col) || t->w[col] <= 0)
        return;
    int w = t->w[col], x = t->x[col];
    int tw = grid_text_width(g, text);
    if (!t->cols[col].left && tw < w)
        x += w - tw;
    if (t->cols[col].left)
        grid_put_text_mid(g, x, y, w, text, role, attr);
    else
        grid_put_text(g, x, y, w, text, role, attr);
}

void table_draw_header(const table *t, grid *g, int y)
{
    const theme_glyphs *gl = theme_glyphs_get(g->ascii);
    grid_fill(g, (rect){0, y, g->cols, 1}, ' ', ROLE_HEADER, 0);
    for (size_t i = 0; i < t->ncols; i++) {
        if (!table_col_shown(t, i))
            continue;
        char buf[80], arrow[4] = {0};
        bool sorted = i == t->sort_col;
        if (sorted)
            arrow[utf8_encode(t->sort_desc ? gl->sort_down : gl->sort_up, arrow)] = '\0';
        /* The arrow sits on the side away from the values' alignment. */
        if (t->cols[i].left)
            snprintf(buf, sizeof buf, "%s%s", t->cols[i].title, arrow);
        else
            snprintf(buf, sizeof buf, "%s%s", arrow, t->cols[i].title);
        table_put(t, g, i, y, buf, ROLE_HEADER, sorted ? GA_BOLD | GA_UNDERLINE : 0);
    }
    if (t->nmore) {
        /* "▸ 3 more", or "▸3" when that is all the room: right-aligned in
         * the flex column's header after its title, or at the right end. */
        int lo, hi;
        if (t->more_col < t->ncols) {
            lo = t->x[t->more_col] + title_width(t, g, t->more_col) + 1;
            hi = t->x[t->more_col] + t->w[t->more_col] - 1;
        } else {
            lo = t->left + TABLE_MARGIN;
            for (size_t i = 0; i < t->ncols; i++)
                if (table_col_shown(t, i))
                    lo = t->x[i] + t->w[i] + 1 > lo ? t->x[i] + t->w[i] + 1 : lo;
            hi = t->left + t->width;
        }
        const char *arrow = g->ascii ? ">" : "\u25b8";
        char more[32];
        snprintf(more, sizeof more, "%s %zu more", arrow, t->nmore);
        int mw = grid_text_width(g, more);
        if (hi - mw < lo) {
            snprintf(more, sizeof more, "%s%zu", arrow, t->nmore);
            mw = grid_text_width(g, more);
        }
        int x = hi - mw > lo ? hi - mw : lo;
        grid_put_text(g, x, y, hi - x, more, ROLE_DIM, GA_BOLD);
    }
}

void table_draw_cursor(const table *t, grid *g, int y)
{
    grid_fill(g, (rect){t->left, y, t->width, 1}, ' ', ROLE_SELECTED, 0);
    if (t->width > 0)
        grid_put_cp(g, t->left, y, theme_glyphs_get(g->ascii)->marker, ROLE_SELECTED, 0);
}

int table_row_y(const table *t, size_t row)
{
    if (row < t->top || row - t->top >= (size_t)t->page)
        return -1;
    return t->body_y + (int)(row - t->top);
}

void table_scroll(table *t)
{
    size_t page = t->page > 0 ? (size_t)t->page : 1;
    if (t->cursor < t->top)
        t->top = t->cursor;
    else if (t->cursor >= t->top + page)
        t->top = t->cursor - page + 1;
    /* no empty space below the last row while rows are hidden above */
    if (t->nrows >= page && t->top > t->nrows - page)
        t->top = t->nrows - page;
    if (t->nrows < page)
        t->top = 0;
}

void table_goto(table *t, size_t row)
{
    t->cursor = t->nrows == 0 ? 0 : row < t->nrows ? row : t->nrows - 1;
    table_scroll(t);
}

void table_set_rows(table *t, size_t nrows)
{
    t->nrows = nrows;
    table_goto(t, t->cursor);
}

static size_t col_at(const table *t, int x)
{
    for (size_t i = 0; i < t->ncols; i++)
        if (table_col_shown(t, i) && x >= t->x[i] && x < t->x[i] + t->w[i])
            return i;
    return t->ncols;
}

static void sort_by(table *t, size_t col)
{
    if (col == t->sort_col) {
        t->sort_desc = !t->sort_desc;
        return;
    }
    t->sort_col = col;
    /* names read best A to Z, numbers largest first (unless the column says) */
    t->sort_desc = !t->cols[col].left && !t->cols[col].asc;
}

/* The next shown column after (dir 1) or before (dir -1) the sort column. */
static void sort_step(table *t, int dir)
{
    size_t n = t->ncols, c = t->sort_col;
    for (size_t k = 1; k <= n; k++) {
        size_t i = (c + n + (size_t)dir * k) % n;
        if (table_col_shown(t, i)) {
            sort_by(t, i);
            return;
        }
    }
}

/* Moving counts as handled even at an edge, so the key does not fall
 * through to another pane. */
static enum table_result move_by(table *t, long delta)
{
    if (delta < 0)
        t->cursor = (size_t)-delta > t->cursor ? 0 : t->cursor - (size_t)-delta;
    else
        t->cursor += (size_t)delta;
    table_goto(t, t->cursor);
    return TABLE_MOVED;
}

static enum table_result click(table *t, int mx, int my)
{
    if (my == t->body_y - 1) {
        size_t c = col_at(t, mx);
        if (c == t->ncols)
            return TABLE_IGNORED;
        sort_by(t, c);
        return TABLE_SORTED;
    }
    if (my < t->body_y || my >= t->body_y + t->page)
        return TABLE_IGNORED;
    size_t row = t->top + (size_t)(my - t->body_y);
    if (row >= t->nrows)
        return TABLE_IGNORED;
    t->cursor = row;
    return TABLE_MOVED;
}

enum table_result table_on_cmd(table *t, ui_cmd cmd, int mouse_x, int mouse_y)
{
    long page = t->page > 1 ? t->page - 1 : 1;
    switch (cmd) {
    case CMD_UP:
        return move_by(t, -1);
    case CMD_DOWN:
        return move_by(t, 1);
    case CMD_PGUP:
        return move_by(t, -page);
    case CMD_PGDN:
        return move_by(t, page);
    case CMD_WHEEL_UP:
        return move_by(t, -TABLE_WHEEL_ROWS);
    case CMD_WHEEL_DOWN:
        return move_by(t, TABLE_WHEEL_ROWS);
    case CMD_HOME:
        return move_by(t, -(long)t->cursor);
    case CMD_END:
        return move_by(t, (long)t->nrows);
    case CMD_CLICK:
        return click(t, mouse_x, mouse_y);
    case CMD_LEFT:
    case CMD_RIGHT:
        /* Sideways, as less -S: handled even at an edge. */
        if (cmd == CMD_LEFT && t->hscroll > 0)
            t->hscroll--;
        else if (cmd == CMD_RIGHT && t->nmore > 0 &&
                 t->hscroll + t->lead < popcount32(all_cols(t) & ~pinned_cols(t, all_cols(t))))
            t->hscroll++;
        return TABLE_MOVED;
    case CMD_SORT_PREV:
        sort_step(t, -1);
        return TABLE_SORTED;
    case CMD_SORT_NEXT:
        sort_step(t, 1);
        return TABLE_SORTED;
    case CMD_SORT_INVERT:
        t->sort_desc = !t->sort_desc;
        return TABLE_SORTED;
    default:
        return TABLE_IGNORED;
    }
}
