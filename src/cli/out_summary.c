/* --summary: a header line, then an aligned table with one row per (region, rank).
 *
 * Durations use adaptive units (timefmt_ns); "-" marks a value that is unknown.  Summary-only
 * regions (statistics from the stored summary, no per-call data) get a '*' in a first column
 * and a footnote; without any, that column is left out. */
#include <inttypes.h>
#include <stdlib.h>

#include "outputs.h"
#include "model/region.h"
#include "util/text.h"
#include "util/timefmt.h"

static const table_col summary_cols[] = {
    {"", false},    {"region", false}, {"rank", true}, {"calls", true}, {"total", true},
    {"mean", true}, {"min", true},     {"max", true},  {"p50", true},   {"p95", true},
    {"p99", true},  {"std", true},     {"excl", true}, {"await", true}, {"gpu", true},
};
#define SUMMARY_NCOLS (sizeof summary_cols / sizeof summary_cols[0])

/* The statistics after the calls column, in column order. */
static const region_stat_id summary_stats[] = {
    RSTAT_TOTAL, RSTAT_MEAN, RSTAT_MIN,       RSTAT_MAX,         RSTAT_P50,       RSTAT_P95,
    RSTAT_P99,   RSTAT_STD,  RSTAT_EXCLUSIVE, RSTAT_AWAIT_TOTAL, RSTAT_GPU_TOTAL,
};

typedef struct summary_ctx {
    region **regs;
    bool marks; /* the '*' column is shown */
} summary_ctx;

static void summary_fill(void *vctx, size_t row, strbuf *cells)
{
    const summary_ctx *ctx = vctx;
    const region *r = ctx->regs[row];
    size_t o = ctx->marks ? 1 : 0; /* the name's column */
    char num[64];
    if (ctx->marks && !r->has_event_data)
        sb_putc(&cells[0], '*');
    text_escape(&cells[o], r->name, SIZE_MAX);
    sb_printf(&cells[o + 1], "%d", r->rank);
    if (r->has_event_data || (r->stored.known & (UINT32_C(1) << SUM_NUM_CALLS)))
        sb_printf(&cells[o + 2], "%" PRId64, region_num_calls(r));
    else
        sb_putc(&cells[o + 2], '-');
    for (size_t i = 0; i < sizeof summary_stats / sizeof summary_stats[0]; i++) {
        double ns;
        strbuf *cell = &cells[o + 3 + i];
        if (region_stat_ns(r, summary_stats[i], &ns))
            sb_puts(cell, timefmt_ns(num, sizeof num, ns));
        else
            sb_putc(cell, '-');
    }
}

/* Rank numbers as a compact list, "0-3,5", the syntax --ranks takes. */
static void put_rank_list(strbuf *b, const profile *p, const region_filter *f)
{
    size_t shown = 0;
    for (size_t i = 0; i < p->nranks;) {
        if (!filter_match_rank(f, p->ranks[i].rank)) {
            i++;
            continue;
        }
        size_t j = i;
        while (j + 1 < p->nranks && filter_match_rank(f, p->ranks[j + 1].rank) &&
               p->ranks[j + 1].rank == p->ranks[j].rank + 1)
            j++;
        sb_printf(b, "%s%d", shown++ ? "," : "", p->ranks[i].rank);
        if (j > i)
            sb_printf(b, "-%d", p->ranks[j].rank);
        i = j + 1;
    }
    if (!shown)
        sb_puts(b, "none");
}

static void summary_header(strbuf *b, const profile *p, const region_filter *f)
{
    sb_puts(b, "file: ");
    text_escape(b, profile_name(p), SIZE_MAX);
    sb_puts(b, "  ranks: ");
    put_rank_list(b, p, f);
    sb_puts(b, "  minimum start: ");
    if (p->has_min_start)
        sb_printf(b, "%" PRId64 " ns", p->min_start_ns);
    else
        sb_putc(b, '-');
    sb_puts(b, "\n\n");
}

sv_err out_summary(const profile *p, const region_filter *f, FILE *fp, sv_error *err)
{
    region **regs = NULL;
    size_t n = 0;
    sv_err rc = out_select(p, f, &regs, &n, err);
    if (rc != SV_OK)
        return rc;
    summary_ctx ctx = {regs, false};
    for (size_t i = 0; i < n; i++)
        ctx.marks = ctx.marks || !regs[i]->has_event_data;
    strbuf b;
    sb_init(&b);
    summary_header(&b, p, f);
    if (!out_flush_buf(&b, fp))
        rc = sv_error_set(err, SV_ERR_NOMEM, "out of memory while writing the summary");
    const table_col *cols = ctx.marks ? summary_cols : summary_cols + 1;
    size_t ncols = ctx.marks ? SUMMARY_NCOLS : SUMMARY_NCOLS - 1;
    if (rc == SV_OK)
        rc = out_table(fp, cols, ncols, n, summary_fill, &ctx, err);
    if (rc == SV_OK && n == 0)
        fputs("(no regions)\n", fp);
    /* A columnar file's summary-only rows come from --summary's fast open (loader.h): the
     * file has the calls, they were not read. */
    if (rc == SV_OK && ctx.marks && p->layout == LAYOUT_COLUMNAR)
        fputs("\n* from the file's summary_statistics; the per-call columns were not read "
              "(p50, p95, p99 need them: --json or --csv read them)\n",
              fp);
    else if (rc == SV_OK && ctx.marks)
        fputs("\n* summary-only: statistics from the stored summary; no per-call data\n", fp);
    sb_free(&b);
    free(regs);
    return rc;
}
