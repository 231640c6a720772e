/* ui: the helpers views use to move the user around. */
#include "ui.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isolate/stats_job.h"
#include "model/calls_job.h"
#include "model/filter.h"
#include "model/region.h"
#include "model/select.h"
#include "model/slowcalls.h"
#include "ooc/ooc_job.h"
#include "ooc/ooc_open_job.h"
#include "util/timefmt.h"
#include "view.h"

bool ui_calls_pending(const ui_ctx *ctx)
{
    /* The statistics too: the views that wait for the nesting also read
     * them (exclusive totals, first starts), and the child's statistics are
     * usually in before the viewer's own nesting. */
    return ctx->calls_job != NULL || ui_stats_pending(ctx);
}

bool ui_stats_pending(const ui_ctx *ctx)
{
    return ctx->stats_job != NULL || ctx->stats_error[0] || ctx->ooc_open != NULL;
}

const char *ui_stats_text(const ui_ctx *ctx)
{
    if (ctx->stats_error[0])
        return ctx->stats_error;
    return ctx->ascii ? "computing... (statistics, in the background)"
                      : "computing… (statistics, in the background)";
}

const char *ui_computing_text(const ui_ctx *ctx)
{
    if (!ctx->calls_job && ui_stats_pending(ctx))
        return ui_stats_text(ctx);
    return ctx->ascii ? "computing... (call nesting, in the background)"
                      : "computing… (call nesting, in the background)";
}

bool ui_view_shown(const ui_ctx *ctx, size_t i)
{
    return i < ctx->nviews && (!ctx->views[i]->compare_only || ctx->opt->diff);
}

void ui_open_view(ui_ctx *ctx, view_id id)
{
    if ((size_t)id < ctx->nviews && !ui_view_shown(ctx, (size_t)id)) {
        ui_set_status(ctx, "The %s view compares two runs: scopeview --diff BASE NEW",
                      ctx->views[id]->name);
        return;
    }
    if ((size_t)id >= ctx->nviews) {
        ui_set_status(ctx, "View %d is not available", (int)id + 1);
        return;
    }
    if ((size_t)id != ctx->current) {
        if (ctx->nback == UI_BACK_MAX) { /* the oldest jump goes */
            memmove(ctx->back, ctx->back + 1, (UI_BACK_MAX - 1) * sizeof ctx->back[0]);
            ctx->nback--;
        }
        ctx->back[ctx->nback++] = ctx->current;
        ctx->current = (size_t)id;
    }
    ctx->help_open = false;
}

const char *ui_view_key(const ui_ctx *ctx, view_id id, char *buf, size_t len)
{
    int key;
    if (keymap_keys(&ctx->keys, SCOPE_GLOBAL, CMD_VIEW(id), &key, 1) == 0) {
        if (len)
            buf[0] = '\0';
        return buf;
    }
    return keys_label(key, buf, len);
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

static int region_name_cmp(const void *a, const void *b)
{
    return strcmp((*(region *const *)a)->name, (*(region *const *)b)->name);
}

/* The region where the time goes when nothing is selected: the most
 * exclusive time summed over the ranks (the largest inclusive total is
 * the root, which says nothing).  One of its per-rank regions, NULL when
 * no region has recorded calls. */
static region *hottest_region(const ui_ctx *ctx)
{
    const region_filter *f = ctx->opt ? ctx->opt->filter : NULL;
    size_t n = 0;
    region **v = malloc((ctx->prof->nregions ? ctx->prof->nregions : 1) * sizeof *v);
    if (!v)
        return NULL;
    for (size_t i = 0; i < ctx->prof->nregions; i++) {
        region *r = ctx->prof->regions[i];
        if (r->has_event_data && (r->n || (r->streamed && r->st.num_calls)) && filter_match(f, r))
            v[n++] = r;
    }
    qsort(v, n, sizeof *v, region_name_cmp);
    region *best = NULL;
    int64_t best_excl = -1;
    for (size_t a = 0, z; a < n; a = z) {
        int64_t sum = 0;
        for (z = a; z < n && strcmp(v[z]->name, v[a]->name) == 0; z++)
            sum += v[z]->st.exclusive_total_ns;
        if (sum > best_excl) {
            best_excl = sum;
            best = v[a];
        }
    }
    free(v);
    return best;
}

/* end - start as the calls view computes it (calls_ns_diff): the model
 * keeps end >= start, so the unsigned difference is the duration. */
static int64_t duration_ns(int64_t end, int64_t start)
{
    return (int64_t)((uint64_t)end - (uint64_t)start);
}

/* The longest call of r (ties: the first recorded). */
static size_t longest_call(const region *r)
{
    size_t at = 0;
    for (size_t i = 1; i < r->n; i++)
        if (duration_ns(r->end_ns[i], r->start_ns[i]) > duration_ns(r->end_ns[at], r->start_ns[at]))
            at = i;
    return at;
}

void ui_ooc_go(ui_ctx *ctx, const ui_ooc_goto *g)
{
    rank_data *rk = profile_rank(ctx->prof, g->rank);
    if (g->region != UI_GOTO_ANY_REGION)
        ui_select_region(ctx, rk && g->region < rk->nregions ? rk->regions[g->region] : NULL);
    ctx->ooc_goto = *g;
    ctx->ooc_goto.on = true;
}

/* Out of core: the loading child's lists (slowcalls.h), each region's
 * first its slowest; the same rule as in memory (a later rank wins only
 * with a strictly longer call).  A rank without lists is said. */
static void slowest_ooc(ui_ctx *ctx, int rank, const region *sel, bool picked)
{
    const region_filter *f = ctx->opt ? ctx->opt->filter : NULL;
    region **list = NULL;
    size_t count = 0, lost = 0;
    if (profile_region_across_ranks(ctx->prof, sel->name, &list, &count, NULL) != SV_OK) {
        ui_set_status(ctx, "No region to look in: select one first");
        return;
    }
    const region *best = NULL;
    const slow_region *bl = NULL;
    for (size_t k = 0; k < count; k++) {
        const region *r = list[k];
        if (!r->has_event_data || !r->st.num_calls || !filter_match_rank(f, r->rank) ||
            (rank >= 0 && r->rank != rank))
            continue;
        const slow_region *l = slow_calls_of(ctx->prof, r);
        if (!l || !l->n) {
            lost++;
            continue;
        }
        if (!bl || slow_call_dur(&l->v[0]) > slow_call_dur(&bl->v[0])) {
            best = r;
            bl = l;
        }
    }
    free(list);
    if (lost) { /* never a partial answer given as whole */
        ui_set_status(ctx, "The slowest call of %s is not known out of core: %s", sel->name,
                      ctx->prof->slowest->why[0] ? ctx->prof->slowest->why : "no list");
        return;
    }
    if (!best) {
        ui_set_status(ctx, "No recorded calls in this region (summary-only or empty)");
        return;
    }
    const slow_call *c = &bl->v[0];
    ui_ooc_goto g = {.rank = best->rank,
                     .region = bl->region,
                     .pos = c->pos,
                     .lane = c->lane,
                     .depth = c->depth,
                     .s = c->s,
                     .e = c->e};
    ui_ooc_go(ctx, &g);
    char d[32];
    timefmt_ns(d, sizeof d, (double)slow_call_dur(c));
    if (!picked)
        ui_set_status(ctx, "Most exclusive time: %s; slowest call: rank %d, call %llu, %s",
                      best->name, best->rank, (unsigned long long)c->pos, d);
    else if (rank >= 0)
        ui_set_status(ctx, "Slowest call of %s on rank %d: call %llu, %s", best->name, best->rank,
                      (unsigned long long)c->pos, d);
    else
        ui_set_status(ctx, "Slowest call of %s over every rank: rank %d, call %llu, %s", best->name,
                      best->rank, (unsigned long long)c->pos, d);
}

void ui_select_slowest_on(ui_ctx *ctx, int rank)
{
    if (ctx->ooc_open || (ctx->opt && ctx->opt->ooc && !ctx->prof->slowest)) {
        /* no calls to look through (yet) */
        ui_set_status(ctx, "The slowest call is not available out of core (--json has the Max)");
        return;
    }
    if (ctx->opt && ctx->opt->ooc && !ctx->sel.region && ui_stats_pending(ctx)) {
        ui_set_status(ctx, "Select a region first: its exclusive totals are still being computed");
        return;
    }
    const region *sel = ctx->sel.region ? ctx->sel.region : hottest_region(ctx);
    bool picked = ctx->sel.region != NULL; /* else the status says which rule chose */
    if (sel && ctx->opt && ctx->opt->ooc) {
        slowest_ooc(ctx, rank, sel, picked);
        return;
    }
    const region_filter *f = ctx->opt ? ctx->opt->filter : NULL;
    region **list = NULL, *best = NULL;
    size_t count = 0, at = 0;
    if (!sel || profile_region_across_ranks(ctx->prof, sel->name, &list, &count, NULL) != SV_OK) {
        ui_set_status(ctx, "No region to look in: select one first");
        return;
    }
    /* Every rank (and so every lane of each) in rank order: a later rank
     * wins only with a strictly longer call. */
    for (size_t k = 0; k < count; k++) {
        region *r = list[k];
        if (!r->has_event_data || !r->n || !filter_match_rank(f, r->rank) ||
            (rank >= 0 && r->rank != rank))
            continue;
        size_t i = longest_call(r);
        if (!best || duration_ns(r->end_ns[i], r->start_ns[i]) >
                         duration_ns(best->end_ns[at], best->start_ns[at])) {
            best = r;
            at = i;
        }
    }
    free(list);
    if (!best) {
        ui_set_status(ctx, "No recorded calls in this region (summary-only or empty)");
        return;
    }
    ui_select_call(ctx, best->rank, (int64_t)(best->gidx0 + at));
    char d[32], c[64];
    timefmt_ns(d, sizeof d, (double)duration_ns(best->end_ns[at], best->start_ns[at]));
    ui_call_name(best, at, c, sizeof c);
    if (!picked) /* the rule first: a cut status line keeps it */
        ui_set_status(ctx, "Most exclusive time: %s; slowest call: rank %d, %s, %s", best->name,
                      best->rank, c, d);
    else if (rank >= 0)
        ui_set_status(ctx, "Slowest call of %s on rank %d: %s, %s", best->name, best->rank, c, d);
    else
        ui_set_status(ctx, "Slowest call of %s over every rank: rank %d, %s, %s", best->name,
                      best->rank, c, d);
}

void ui_call_name(const region *r, size_t i, char *buf, size_t len)
{
    if (r->call_ids && i < r->n)
        snprintf(buf, len, "call %zu (id %lld)", i, (long long)r->call_ids[i]);
    else
        snprintf(buf, len, "call %zu", i);
}

void ui_select_slowest(ui_ctx *ctx)
{
    ui_select_slowest_on(ctx, -1);
}

bool ui_job_ready(const ui_ctx *ctx)
{
    return (ctx->calls_job && calls_job_done(ctx->calls_job)) ||
           (ctx->stats_job && stats_job_done(ctx->stats_job)) ||
           (ctx->ooc_job && ooc_job_done(ctx->ooc_job)) ||
           (ctx->ooc_open && (ooc_open_job_done(ctx->ooc_open) ||
                              ooc_open_job_progress(ctx->ooc_open).seq != ctx->ooc_open_seq));
}

void ui_jobs_wait(ui_ctx *ctx)
{
    if (ctx->calls_job)
        calls_job_wait(ctx->calls_job);
    if (ctx->stats_job)
        stats_job_wait(ctx->stats_job);
    if (ctx->ooc_job)
        ooc_job_wait(ctx->ooc_job);
    if (ctx->ooc_open)
        ooc_open_job_wait(ctx->ooc_open);
}
