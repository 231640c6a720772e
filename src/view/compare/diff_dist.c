/* diff_dist: see diff_dist.h.  Each bin's height is the share of that run's
 * calls in it, so a run with twice the calls does not look twice as tall. */
#include "diff_dist.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "diff_views.h"
#include "util/timefmt.h"

void dist_bins_init(dist_bins *b, const int64_t *x, size_t nx, const int64_t *y, size_t ny,
                    size_t nbins)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    if (nx) {
        lo = x[0];
        hi = x[nx - 1];
    }
    if (ny) {
        lo = y[0] < lo ? y[0] : lo;
        hi = y[ny - 1] > hi ? y[ny - 1] : hi;
    }
    if (!nx && !ny)
        lo = hi = 0;
    b->lo = lo;
    b->hi = hi;
    b->nbins = nbins ? nbins : 1;
    b->log = (double)hi > 100.0 * (double)(lo > 1 ? lo : 1);
}

double dist_pos(const dist_bins *b, double v)
{
    double p;
    if (b->hi <= b->lo)
        return 0.0;
    if (b->log) {
        double l0 = log((double)(b->lo > 1 ? b->lo : 1)), l1 = log((double)b->hi);
        p = (log(v > 1 ? v : 1) - l0) / (l1 - l0);
    } else {
        p = (v - (double)b->lo) / ((double)b->hi - (double)b->lo);
    }
    return p < 0 ? 0 : p > 1 ? 1 : p;
}

static size_t dist_bin(const dist_bins *b, double v)
{
    size_t k = (size_t)(dist_pos(b, v) * (double)b->nbins);
    return k >= b->nbins ? b->nbins - 1 : k;
}

/* The sample is sorted and the bin of a value rises with it, so each bin
 * boundary is one binary search: O(bins log n), whatever the call count
 * (a frame must not cost in proportion to the profile). */
void dist_count(const dist_bins *b, const int64_t *v, size_t n, uint64_t *counts)
{
    size_t prev = 0;
    for (size_t k = 0; k < b->nbins; k++) {
        size_t lo = prev, hi = n; /* first index whose bin is > k */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (dist_bin(b, (double)v[mid]) <= k)
                lo = mid + 1;
            else
                hi = mid;
        }
        counts[k] = lo - prev;
        prev = lo;
    }
}

/* One run's p50 / p95 / p99 as marks on a row under the chart. */
static void draw_marks(ui_ctx *ctx, const dist_bins *b, const int64_t *v, size_t n, int x0, int y,
                       const char *label, int role)
{
    grid *g = &ctx->grid;
    grid_put_text(g, x0 - 5, y, 5, label, role, 0);
    static const double pct[3] = {50, 95, 99};
    static const char glyph[3] = {'|', ':', '.'};
    for (int k = 2; k >= 0 && n; k--) {
        double p = mwu_sorted_percentile(v, n, pct[k]);
        int x = x0 + (int)dist_bin(b, p);
        grid_put_cp(g, x, y, (uint32_t)glyph[k], role, GA_BOLD);
    }
}

void dist_draw(const diff_result *d, const diff_row *r, ui_ctx *ctx, rect area)
{
    grid *g = &ctx->grid;
    grid_fill(g, area, ' ', ROLE_NORMAL, 0);
    if (!r || area.h < 5 || area.w < 20)
        return;
    size_t nx, ny;
    const int64_t *x = diff_row_sample(d, r, DIFF_BASE, &nx);
    const int64_t *y = diff_row_sample(d, r, DIFF_NEW, &ny);
    char title[512], lo[32], hi[32];
    const char *nb = ctx->ascii ? "." : "░", *nn = ctx->ascii ? "+" : "█",
               *nboth = ctx->ascii ? "#" : "▓";
    snprintf(title, sizeof title,
             "%s: base %s (%zu calls)  new %s (%zu)  both %s  (share of each run's calls; marks "
             "| p50 : p95 . p99)",
             diff_row_name(d, r), nb, nx, nn, ny, nboth);
    grid_put_text(g, area.x + 1, area.y, area.w - 2, title, ROLE_HEADER, 0);
    if (!nx && !ny) {
        grid_put_text(g, area.x + 1, area.y + 1, area.w - 2,
                      "no per-call durations on either side (summary-only)", ROLE_DIM, 0);
        return;
    }
    int x0 = area.x + 6, w = area.w - 7, rows = area.h - 4;
    dist_bins b;
    dist_bins_init(&b, x, nx, y, ny, (size_t)w);
    uint64_t *c = calloc(2 * b.nbins, sizeof *c);
    if (!c)
        return;
    dist_count(&b, x, nx, c);
    dist_count(&b, y, ny, c + b.nbins);
    double top = 0;
    for (size_t k = 0; k < b.nbins; k++) {
        double fx = nx ? (double)c[k] / (double)nx : 0,
               fy = ny ? (double)c[b.nbins + k] / (double)ny : 0;
        top = fmax(top, fmax(fx, fy));
    }
    for (size_t k = 0; k < b.nbins && top > 0; k++) {
        double fx = nx ? (double)c[k] / (double)nx : 0,
               fy = ny ? (double)c[b.nbins + k] / (double)ny : 0;
        int hx = c[k] ? (int)ceil(fx / top * rows) : 0;
        int hy = c[b.nbins + k] ? (int)ceil(fy / top * rows) : 0;
        for (int h = 0; h < rows; h++) {
            bool in_x = h < hx, in_y = h < hy;
            if (!in_x && !in_y)
                continue;
            const char *s = in_x && in_y ? nboth : in_y ? nn : nb;
            grid_put_text(g, x0 + (int)k, area.y + rows - h, 1, s, in_y ? ROLE_BAR0 + 1 : ROLE_DIM,
                          0);
        }
    }
    free(c);
    char axis[96];
    timefmt_ns(lo, sizeof lo, (double)b.lo);
    timefmt_ns(hi, sizeof hi, (double)b.hi);
    snprintf(axis, sizeof axis, "%s%s", lo, b.log ? "  (log scale)" : "");
    grid_put_text(g, x0, area.y + rows + 1, w, axis, ROLE_DIM, 0);
    grid_put_text(g, x0 + w - grid_text_width(g, hi), area.y + rows + 1, w, hi, ROLE_DIM, 0);
    draw_marks(ctx, &b, x, nx, x0, area.y + rows + 2, "base", ROLE_DIM);
    draw_marks(ctx, &b, y, ny, x0, area.y + rows + 3, "new", ROLE_BAR0 + 1);
}
