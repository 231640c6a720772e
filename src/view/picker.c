/* picker: a modal list to choose one item from. */
#include "picker.h"

#include <stdio.h>

#include "ui/theme.h"

void picker_open(picker *p, size_t n, size_t cur)
{
    p->open = true;
    p->n = n;
    p->cur = cur < n ? cur : 0;
    p->top = 0;
}

/* The next item after (dir > 0) or before the cursor whose label matches
 * the search, wrapping around. */
static void search(picker *p, ui_ctx *ctx, int dir, picker_label_fn label, void *user)
{
    char buf[256];
    for (size_t step = 1; step <= p->n; step++) {
        size_t i = dir > 0 ? (p->cur + step) % p->n : (p->cur + p->n - step % p->n) % p->n;
        label(i, buf, sizeof buf, user);
        if (ui_search_match(ctx, buf)) {
            p->cur = i;
            return;
        }
    }
    ui_set_status(ctx, "No item matches /%s/", ctx->search_text);
}

enum picker_result picker_cmd(picker *p, ui_ctx *ctx, ui_cmd cmd, picker_label_fn label, void *user)
{
    size_t page = p->page > 1 ? (size_t)p->page - 1 : 1;
    switch (cmd) {
    case CMD_UP:
        p->cur -= p->cur > 0;
        return PICK_MOVED;
    case CMD_DOWN:
        p->cur += p->cur + 1 < p->n;
        return PICK_MOVED;
    case CMD_PGUP:
        p->cur = p->cur > page ? p->cur - page : 0;
        return PICK_MOVED;
    case CMD_PGDN:
        p->cur = p->cur + page < p->n ? p->cur + page : p->n ? p->n - 1 : 0;
        return PICK_MOVED;
    case CMD_HOME:
        p->cur = 0;
        return PICK_MOVED;
    case CMD_END:
        p->cur = p->n ? p->n - 1 : 0;
        return PICK_MOVED;
    case CMD_SEARCH_NEXT:
    case CMD_SEARCH_PREV:
        if (ctx->has_search && p->n)
            search(p, ctx, cmd == CMD_SEARCH_NEXT ? 1 : -1, label, user);
        return PICK_MOVED;
    case CMD_ENTER:
        p->open = false;
        return PICK_CHOSEN;
    case CMD_BACK:
    case CMD_QUIT:
        p->open = false;
        return PICK_CLOSED;
    default:
        return PICK_NONE;
    }
}

void picker_draw(picker *p, ui_ctx *ctx, rect area, const char *title, picker_label_fn label,
                 void *user)
{
    grid *g = &ctx->grid;
    if (area.h < 3 || area.w < 10)
        return;
    grid_fill(g, area, ' ', ROLE_NORMAL, 0);
    grid_put_text(g, area.x, area.y, area.w, title, ROLE_HEADER, GA_BOLD);
    int rows = area.h - 2;
    p->page = rows;
    if (p->cur < p->top)
        p->top = p->cur;
    if (p->cur >= p->top + (size_t)rows)
        p->top = p->cur - (size_t)rows + 1;
    char buf[256];
    for (int i = 0; i < rows && p->top + (size_t)i < p->n; i++) {
        size_t k = p->top + (size_t)i;
        bool cur = k == p->cur;
        int y = area.y + 1 + i;
        label(k, buf, sizeof buf, user);
        int role = cur                                            ? ROLE_SELECTED
                   : ctx->has_search && ui_search_match(ctx, buf) ? ROLE_SEARCH
                                                                  : ROLE_NORMAL;
        grid_fill(g, (rect){area.x, y, area.w, 1}, ' ', cur ? ROLE_SELECTED : ROLE_NORMAL, 0);
        if (cur)
            grid_put_cp(g, area.x, y, theme_glyphs_get(g->ascii)->marker, ROLE_SELECTED, 0);
        grid_put_text(g, area.x + 2, y, area.w - 2, buf, role, 0);
    }
    snprintf(buf, sizeof buf, "%zu of %zu   Enter chooses, Esc keeps the scope, / then n N search",
             p->n ? p->cur + 1 : 0, p->n);
    grid_put_text(g, area.x + 1, area.y + area.h - 1, area.w - 1, buf, ROLE_DIM, 0);
}
