/* ui: the helpers views use to move the user around. */
#include "ui.h"

#include <stdarg.h>
#include <stdio.h>

#include "view.h"

void ui_open_view(ui_ctx *ctx, int number)
{
    for (size_t i = 0; i < ctx->nviews; i++) {
        if (ctx->views[i]->number == number && number > 0) {
            if (i != ctx->current) {
                ctx->previous = ctx->current;
                ctx->current = i;
            }
            ctx->help_open = false;
            return;
        }
    }
    ui_set_status(ctx, "View %d is not available", number);
}

void ui_set_status(ui_ctx *ctx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx->status, sizeof ctx->status, fmt, ap);
    va_end(ap);
}

bool ui_search_match(const ui_ctx *ctx, const char *name)
{
    return ctx->has_search && name && regexec(&ctx->search_re, name, 0, NULL, 0) == 0;
}

void ui_select_call(ui_ctx *ctx, int rank, int64_t call)
{
    rank_data *rk = profile_rank(ctx->prof, rank);
    size_t idx = 0;
    region *r = rk && call >= 0 ? rank_call_region(rk, call, &idx) : NULL;
    ctx->sel.region = r;
    ctx->sel.rank = rank;
    ctx->sel.call = r ? call : -1;
}

void ui_select_region(ui_ctx *ctx, region *r)
{
    ctx->sel.region = r;
    ctx->sel.rank = r ? r->rank : 0;
    ctx->sel.call = -1;
}

bool ui_scroll(size_t *top, size_t end, int page_rows, ui_cmd cmd)
{
    size_t page = page_rows > 1 ? (size_t)page_rows - 1 : 1;
    switch (cmd) {
    case CMD_UP:
    case CMD_WHEEL_UP:
        *top = *top > 0 ? *top - 1 : 0;
        return true;
    case CMD_DOWN:
    case CMD_WHEEL_DOWN:
        (*top)++;
        return true;
    case CMD_PGUP:
        *top = *top > page ? *top - page : 0;
        return true;
    case CMD_PGDN:
        *top += page;
        return true;
    case CMD_HOME:
        *top = 0;
        return true;
    case CMD_END:
        *top = end;
        return true;
    default:
        return false;
    }
}
