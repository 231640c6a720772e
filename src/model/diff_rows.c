/* diff_rows: testing, adjusting and flagging the rows of a comparison, the
 * path tree, and the accessors the outputs and views use. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "diff_internal.h"

static const diff_value metric_value[DM_COUNT] = {DV_TOTAL, DV_MEAN, DV_P50, DV_P95, DV_P99};

const int64_t *diff_row_sample(const diff_result *d, const diff_row *r, int side, size_t *n)
{
    const diff_side *s = &r->s[side];
    /* Path runs were reordered when their region's run was sorted as a
     * whole (diff_finish): only region rows keep a sample. */
    bool is_region = r >= d->regions && r < d->regions + d->nregions;
    *n = is_region && s->present && d->samples[side] ? s->n : 0;
    return *n ? d->samples[side] + s->off : NULL;
}

bool diff_side_value(const diff_row *r, int side, diff_value v, double *out)
{
    const diff_side *s = &r->s[side];
    if (!s->present || !(s->known & (1u << v)))
        return false;
    *out = s->v[v];
    return true;
}

/* A side's value for a change: an absent side did none of the work. */
static bool change_value(const diff_row *r, int side, diff_value v, double *out)
{
    if (!r->s[side].present && (v == DV_TOTAL || v == DV_EXCL)) {
        *out = 0.0;
        return true;
    }
    return diff_side_value(r, side, v, out);
}

bool diff_row_delta(const diff_row *r, diff_value v, double *out)
{
    double a, b;
    if (!change_value(r, DIFF_BASE, v, &a) || !change_value(r, DIFF_NEW, v, &b))
        return false;
    *out = b - a;
    return true;
}

bool diff_row_rel(const diff_row *r, diff_value v, double *out)
{
    double a, b;
    if (!change_value(r, DIFF_BASE, v, &a) || !change_value(r, DIFF_NEW, v, &b))
        return false;
    if (a != 0)
        *out = (b - a) / fabs(a);
    else
        *out = b > 0 ? INFINITY : b < 0 ? -INFINITY : 0.0;
    return true;
}

/* ------------------------------------------------------------------ tests */

static void row_state(diff_row *r)
{
    r->state = r->s[0].present && r->s[1].present ? DS_BOTH : r->s[0].present ? DS_GONE : DS_NEW;
}

/* The test and the shift of one row, p into p_out (NaN when untested). */
/* A row's run while testing (path runs are still sorted then). */
static const int64_t *run_of(const diff_result *d, const diff_row *r, int side, size_t *n)
{
    *n = r->s[side].present && d->samples[side] ? r->s[side].n : 0;
    return *n ? d->samples[side] + r->s[side].off : NULL;
}

static void row_test(const diff_result *d, diff_row *r, double *p_out)
{
    size_t n0, n1;
    const int64_t *x = run_of(d, r, DIFF_BASE, &n0);
    const int64_t *y = run_of(d, r, DIFF_NEW, &n1);
    row_state(r);
    r->tested = r->state == DS_BOTH && r->s[0].events && r->s[1].events &&
                mwu_test(x, n0, y, n1, &r->mwu) && mwu_hl_shift(x, n0, y, n1, &r->hl_ns);
    *p_out = r->tested ? r->mwu.p : NAN;
    r->q = NAN;
}

static void row_flag(diff_result *d, diff_row *r, size_t table)
{
    r->has_rel = diff_row_rel(r, metric_value[d->opt.metric], &r->rel);
    r->flag = 0;
    if (!r->tested || !r->has_rel || !(r->q < d->opt.alpha) || !(fabs(r->rel) >= d->opt.threshold))
        return;
    r->flag = r->rel > 0 ? 1 : -1;
    d->nflag[table][r->flag > 0 ? 0 : 1]++;
}

#define SOLO_MANY (DIFF_NONE - 1)

/* A region whose calls on each side are one and the same call path's has
 * that path's sample: its test and shift are the path's (no second pass). */
static bool region_from_path(const diff_result *d, diff_row *r, const uint32_t *solo, double *p)
{
    uint32_t a = solo[2 * r->name], b = solo[2 * r->name + 1];
    if (a != b || a == DIFF_NONE || a == SOLO_MANY || !d->paths[a].tested)
        return false;
    const diff_row *pr = &d->paths[a];
    row_state(r);
    if (r->state != DS_BOTH || !r->s[0].events || !r->s[1].events || r->s[0].n != pr->s[0].n ||
        r->s[1].n != pr->s[1].n)
        return false;
    r->tested = true;
    r->mwu = pr->mwu;
    r->hl_ns = pr->hl_ns;
    r->q = NAN;
    *p = r->mwu.p;
    return true;
}

/* Tests every row of a table (regions: solo is not NULL), adjusts, flags. */
static sv_err test_table(diff_result *d, diff_row *rows, size_t first, size_t n, size_t table,
                         const uint32_t *solo, sv_error *err)
{
    double *p = calloc(n ? n : 1, sizeof *p), *q = calloc(n ? n : 1, sizeof *q);
    if (!p || !q) {
        free(p);
        free(q);
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory (diff tests)");
    }
    for (size_t i = 0; i < n; i++) {
        p[i] = NAN;
        if (i >= first && !(solo && region_from_path(d, &rows[i], solo, &p[i])))
            row_test(d, &rows[i], &p[i]);
    }
    bool ok = mwu_bh_adjust(p, n, q);
    for (size_t i = first; ok && i < n; i++) {
        rows[i].q = q[i];
        row_flag(d, &rows[i], table);
    }
    free(p);
    free(q);
    return ok ? SV_OK : sv_error_set(err, SV_ERR_NOMEM, "out of memory (diff tests)");
}

/* solo[2 name + side]: the one path holding the name's calls on that side,
 * DIFF_NONE without calls, SOLO_MANY for several. */
static uint32_t *solo_paths(const diff_result *d)
{
    uint32_t *solo = malloc((d->nregions ? 2 * d->nregions : 1) * sizeof *solo);
    if (!solo)
        return NULL;
    for (size_t i = 0; i < 2 * d->nregions; i++)
        solo[i] = DIFF_NONE;
    for (size_t i = 1; i < d->npaths; i++)
        for (size_t s = 0; s < 2; s++)
            if (d->paths[i].s[s].n) {
                uint32_t *x = &solo[2 * d->paths[i].name + s];
                *x = *x == DIFF_NONE ? (uint32_t)i : SOLO_MANY;
            }
    return solo;
}

/* Region runs are their paths' runs back to back: sort each as a whole,
 * unless it is a single path's run (sorted already). */
static sv_err sort_region_runs(diff_result *d, const uint32_t *solo, sv_error *err)
{
    size_t maxn = 0;
    for (size_t i = 0; i < d->nregions; i++)
        for (size_t s = 0; s < 2; s++)
            if (solo[2 * i + s] == SOLO_MANY && d->regions[i].s[s].n > maxn)
                maxn = d->regions[i].s[s].n;
    int64_t *scratch = malloc((maxn ? maxn : 1) * sizeof *scratch);
    if (!scratch)
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory (diff sort)");
    for (size_t i = 0; i < d->nregions; i++)
        for (size_t s = 0; s < 2; s++) {
            diff_side *sd = &d->regions[i].s[s];
            if (d->samples[s] && solo[2 * i + s] == SOLO_MANY)
                mwu_sort_i64(d->samples[s] + sd->off, sd->n, scratch);
        }
    free(scratch);
    return SV_OK;
}

static sv_err build_children(diff_result *d, sv_error *err)
{
    size_t n = d->npaths;
    d->child_off = calloc(n + 1, sizeof *d->child_off);
    d->child = malloc((n > 1 ? n - 1 : 1) * sizeof *d->child);
    if (!d->child_off || !d->child)
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory (diff tree)");
    for (size_t i = 1; i < n; i++)
        d->child_off[d->paths[i].parent + 1]++;
    for (size_t i = 0; i < n; i++)
        d->child_off[i + 1] += d->child_off[i];
    for (size_t i = 1; i < n; i++)
        d->child[d->child_off[d->paths[i].parent]++] = (uint32_t)i;
    for (size_t i = n; i > 0; i--)
        d->child_off[i] = d->child_off[i - 1];
    d->child_off[0] = 0;
    /* the root sums the top level, so a share of the whole is at hand */
    diff_row *root = &d->paths[0];
    for (int s = 0; s < 2; s++) {
        root->s[s].present = root->s[s].has_calls = true;
        root->s[s].known = 1u << DV_TOTAL | 1u << DV_EXCL;
    }
    for (size_t i = 1; i < n; i++)
        for (int s = 0; s < 2; s++) {
            const diff_side *c = &d->paths[i].s[s];
            root->s[s].v[DV_EXCL] += c->v[DV_EXCL];
            if (d->paths[i].parent == 0) {
                root->s[s].v[DV_TOTAL] += c->v[DV_TOTAL];
                root->s[s].calls += c->calls;
            }
        }
    return SV_OK;
}

sv_err diff_finish(diff_result *d, sv_error *err)
{
    sv_err rc = test_table(d, d->paths, 1, d->npaths, 1, NULL, err);
    uint32_t *solo = rc == SV_OK ? solo_paths(d) : NULL;
    if (rc == SV_OK && !solo)
        rc = sv_error_set(err, SV_ERR_NOMEM, "out of memory (diff)");
    if (rc == SV_OK)
        rc = sort_region_runs(d, solo, err);
    if (rc == SV_OK)
        rc = test_table(d, d->regions, 0, d->nregions, 0, solo, err);
    free(solo);
    if (rc == SV_OK)
        rc = build_children(d, err);
    if (rc == SV_OK)
        diff_sort_paths(d, DK_NAME, false);
    return rc;
}

/* ------------------------------------------------------------------ order */

double diff_row_key(const diff_result *d, const diff_row *r, diff_key k)
{
    double v;
    switch (k) {
    case DK_ABS_DELTA:
        return diff_row_delta(r, DV_TOTAL, &v) ? fabs(v) : -INFINITY;
    case DK_REL_DELTA:
        return diff_row_rel(r, DV_TOTAL, &v) ? v : -INFINITY;
    case DK_EXCL_DELTA:
        return diff_row_delta(r, DV_EXCL, &v) ? fabs(v) : -INFINITY;
    case DK_BASE:
        return diff_side_value(r, DIFF_BASE, DV_TOTAL, &v) ? v : -INFINITY;
    case DK_NEW:
        return diff_side_value(r, DIFF_NEW, DV_TOTAL, &v) ? v : -INFINITY;
    case DK_P: /* most significant first when descending */
        return r->tested ? -r->q : -INFINITY;
    default:
        (void)d;
        return 0.0;
    }
}

typedef struct order_ctx {
    const diff_result *d;
    const diff_row *rows;
    diff_key key;
    bool desc;
} order_ctx;

static int cmp_rows(const void *a, const void *b, void *vctx)
{
    const order_ctx *c = vctx;
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    const diff_row *x = &c->rows[i], *y = &c->rows[j];
    if (c->key != DK_NAME) {
        double kx = diff_row_key(c->d, x, c->key), ky = diff_row_key(c->d, y, c->key);
        if (kx != ky)
            return (kx < ky) == c->desc ? 1 : -1;
    }
    int s = strcmp(diff_row_name(c->d, x), diff_row_name(c->d, y));
    if (s)
        return c->key == DK_NAME && c->desc ? -s : s;
    return (i > j) - (i < j);
}

void diff_sort_paths(diff_result *d, diff_key k, bool descending)
{
    if (!d->child_off)
        return;
    order_ctx c = {d, d->paths, k, descending};
    for (size_t i = 0; i < d->npaths; i++) {
        uint32_t lo = d->child_off[i], hi = d->child_off[i + 1];
        if (hi - lo > 1)
            qsort_r(d->child + lo, hi - lo, sizeof *d->child, cmp_rows, &c);
    }
}

uint32_t *diff_sorted_regions(const diff_result *d, diff_key k, bool descending)
{
    uint32_t *v = malloc((d->nregions ? d->nregions : 1) * sizeof *v);
    if (!v)
        return NULL;
    for (size_t i = 0; i < d->nregions; i++)
        v[i] = (uint32_t)i;
    order_ctx c = {d, d->regions, k, descending};
    qsort_r(v, d->nregions, sizeof *v, cmp_rows, &c);
    return v;
}

const char *diff_path_text(const diff_result *d, uint32_t path, char *buf, size_t len)
{
    if (len == 0)
        return buf;
    buf[0] = '\0';
    size_t depth = path && path != DIFF_NONE ? d->paths[path].depth + 1 : 0;
    uint32_t *up = malloc((depth ? depth : 1) * sizeof *up);
    if (!up)
        return buf;
    size_t k = 0;
    for (uint32_t x = path; k < depth; x = d->paths[x].parent)
        up[k++] = x;
    size_t used = 0;
    while (k && used + 1 < len) {
        uint32_t x = up[--k];
        int w = snprintf(buf + used, len - used, "%s%s", used ? " > " : "",
                         diff_row_name(d, &d->paths[x]));
        if (w < 0)
            break;
        used += (size_t)w < len - used ? (size_t)w : len - used - 1;
    }
    free(up);
    return buf;
}
