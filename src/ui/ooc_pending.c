/* ooc_pending: the views while the overview is coming (ooc_pending.h). */
#include "ooc_pending.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ooc/ooc_open_job.h"
#include "util/timefmt.h"

/* The calls the file's index counts (every region with event data). */
static uint64_t index_calls(const profile *p)
{
    uint64_t n = 0;
    for (size_t i = 0; p && i < p->nregions; i++)
        if (p->regions[i]->has_event_data && p->regions[i]->st.num_calls > 0)
            n += (uint64_t)p->regions[i]->st.num_calls;
    return n;
}

/* A count in three figures at most: 12345, 1.2e8. */
static void count_text(char *buf, size_t len, uint64_t n)
{
    if (n < 100000) {
        snprintf(buf, len, "%llu", (unsigned long long)n);
        return;
    }
    int e = 0;
    double m = (double)n;
    while (m >= 9.95) {
        m /= 10;
        e++;
    }
    snprintf(buf, len, "%.1fe%d", m, e);
}

/* The id of the rank at sweep position pos (1..nranks, the skeleton's order), as
 * the timeline's rows and the overview's legend name it. */
static int sweep_rank_id(const profile *p, uint32_t pos)
{
    if (!p || pos == 0 || pos > p->nranks)
        return (int)pos - 1;
    return p->ranks[pos - 1].rank;
}

void ooc_pending_text(const ui_ctx *ctx, char *buf, size_t len)
{
    const char *dots = ctx->ascii ? "..." : "…";
    if (!ctx->ooc_open) {
        snprintf(buf, len, "the overview is in");
        return;
    }
    ooc_open_progress p = ooc_open_job_progress(ctx->ooc_open);
    if (p.sweeping && p.sweep.permyriad >= 10000) {
        snprintf(buf, len, "mapping the calls: done, sending the overview%s", dots);
    } else if (p.sweeping) {
        char n[32];
        count_text(n, sizeof n, index_calls(ctx->prof));
        snprintf(buf, len, "mapping the calls: %u%% of %s read, rank %d (%u of %u)",
                 p.sweep.permyriad / 100, n, sweep_rank_id(ctx->prof, p.sweep.rank), p.sweep.rank,
                 p.sweep.nranks);
    } else if (p.bytes_total && p.bytes_done < p.bytes_total) {
        snprintf(buf, len, "reading the calls' statistics: %.0f of %.0f MB (%u%%)",
                 (double)p.bytes_done / 1e6, (double)p.bytes_total / 1e6,
                 (unsigned)(100.0 * (double)p.bytes_done / (double)p.bytes_total));
    } else {
        snprintf(buf, len, "reading the calls' statistics%s", dots);
    }
}

static void *pend_create(ui_ctx *ctx)
{
    return ctx; /* no state: a non-NULL pointer so the view draws */
}

static int pend_cmd(void *state, ui_ctx *ctx, ui_cmd cmd)
{
    (void)state;
    (void)ctx;
    (void)cmd;
    return 0; /* the app's own keys (views, help, quit) still work */
}

int ooc_pending_line(ui_ctx *ctx, rect area, int y, const char *text, int role)
{
    if (y < area.y || y >= area.y + area.h)
        return y;
    grid_put_text(&ctx->grid, area.x + 1, y, area.w - 2, text, role, 0);
    return y + 1;
}

static void pend_draw(void *state, ui_ctx *ctx, rect area)
{
    (void)state;
    char line[256], msg[320];
    grid_fill(&ctx->grid, area, ' ', ROLE_NORMAL, 0);
    ooc_pending_text(ctx, line, sizeof line);
    snprintf(msg, sizeof msg, "this view comes with the overview, after the pass over the calls");
    int y = ooc_pending_line(ctx, area, area.y, msg, ROLE_DIM);
    ooc_pending_line(ctx, area, y, line, ROLE_WARNING);
}

void ooc_pending_registry(const view_ops *const *base, size_t n, view_ops *ops,
                          const view_ops **reg)
{
    for (size_t i = 0; i < n; i++) {
        reg[i] = base[i];
        if (i == VIEW_REGIONS || i == VIEW_INFO)
            continue;
        if (i == VIEW_TIMELINE) { /* its skeleton, then the overview's parts */
            reg[i] = &timeline_pending_view;
            continue;
        }
        ops[i] = (view_ops){.name = base[i]->name,
                            .create = pend_create,
                            .draw = pend_draw,
                            .on_cmd = pend_cmd,
                            .compare_only = base[i]->compare_only};
        reg[i] = &ops[i];
    }
}
