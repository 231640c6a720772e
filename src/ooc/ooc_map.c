/* ooc_map: the accumulator of the out-of-core overview (ooc_map.h).
 *
 * Times are handled relative to the origin in uint64_t (t - origin, t >=
 * origin) and bucket bounds as inclusive [first, last] so that a grid
 * reaching INT64_MAX or spanning 2^64 ns never overflows. */
#include "ooc_map.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ grid */

size_t ooc_map_row_cells(const ooc_map *m)
{
    return 2 * m->nb - 1;
}

size_t ooc_map_level_offset(const ooc_map *m, unsigned level)
{
    return 2 * (m->nb - (m->nb >> level));
}

size_t ooc_map_cells_cap(uint64_t budget)
{
    if (budget == 0)
        return OOC_MAP_CELLS_MAX;
    uint64_t c = budget / 8 / (2 * sizeof(ooc_cell));
    if (c < OOC_MAP_CELLS_MIN)
        return OOC_MAP_CELLS_MIN;
    return c > OOC_MAP_CELLS_MAX ? OOC_MAP_CELLS_MAX : (size_t)c;
}

/* Level-0 buckets per row allowed for nlanes_hint lanes (a power of two). */
static size_t bucket_cap(size_t nlanes_hint, size_t cells_max)
{
    size_t rows = (nlanes_hint ? nlanes_hint : 1) * OOC_MAP_DEPTHS;
    size_t cap = (cells_max ? cells_max : OOC_MAP_CELLS_MAX) / rows;
    if (cap > OOC_MAP_BUCKETS_MAX)
        cap = OOC_MAP_BUCKETS_MAX;
    size_t p = 2;
    while (p * 2 <= cap)
        p *= 2;
    return p;
}

static int64_t floor_to(int64_t t, unsigned shift)
{
    uint64_t w = (uint64_t)1 << shift;
    return (int64_t)((uint64_t)t & ~(w - 1));
}

bool ooc_map_init(ooc_map *m, int64_t t_min, int64_t t_max, size_t nlanes_hint)
{
    return ooc_map_init_cap(m, t_min, t_max, nlanes_hint, OOC_MAP_CELLS_MAX);
}

bool ooc_map_init_cap(ooc_map *m, int64_t t_min, int64_t t_max, size_t nlanes_hint,
                      size_t cells_max)
{
    memset(m, 0, sizeof *m);
    if (t_max < t_min)
        t_max = t_min;
    size_t cap = bucket_cap(nlanes_hint, cells_max);
    unsigned shift = 0;
    uint64_t last = 0;
    for (; shift < 63; shift++) {
        last = ((uint64_t)t_max - (uint64_t)floor_to(t_min, shift)) >> shift;
        if (last < cap)
            break;
    }
    if (shift == 63)
        last = ((uint64_t)t_max - (uint64_t)floor_to(t_min, shift)) >> shift;
    m->shift = shift;
    m->origin = floor_to(t_min, shift);
    m->nb = 1;
    m->nlevels = 1;
    while (m->nb <= last) {
        m->nb *= 2;
        m->nlevels++;
    }
    m->t_min = INT64_MAX;
    m->t_max = INT64_MIN;
    return true;
}

static void cells_empty(ooc_cell *c, size_t n)
{
    memset(c, 0, n * sizeof *c);
    for (size_t i = 0; i < n; i++)
        c[i].longest = -1;
}

void ooc_map_free(ooc_map *m)
{
    for (size_t i = 0; i < m->nlanes; i++)
        free(m->lanes[i].cells);
    free(m->lanes);
    free(m->deep);
    memset(m, 0, sizeof *m);
}

/* ------------------------------------------------------------ lanes */

static int lane_cmp(const ooc_lane *a, size_t rank_index, lane_kind kind, int64_t row)
{
    if (a->rank_index != rank_index)
        return a->rank_index < rank_index ? -1 : 1;
    if (a->kind != kind)
        return a->kind < kind ? -1 : 1;
    return (a->row > row) - (a->row < row);
}

/* First lane not sorting before the key. */
static size_t lane_lower(const ooc_map *m, size_t rank_index, lane_kind kind, int64_t row)
{
    size_t lo = 0, hi = m->nlanes;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (lane_cmp(&m->lanes[mid], rank_index, kind, row) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

size_t ooc_map_find_lane(const ooc_map *m, size_t rank_index, lane_kind kind, int64_t row)
{
    size_t k = lane_lower(m, rank_index, kind, row);
    if (k < m->nlanes && lane_cmp(&m->lanes[k], rank_index, kind, row) == 0)
        return k;
    return SIZE_MAX;
}

size_t ooc_map_lane(ooc_map *m, size_t rank_index, lane_kind kind, int64_t row)
{
    size_t k = lane_lower(m, rank_index, kind, row);
    if (k < m->nlanes && lane_cmp(&m->lanes[k], rank_index, kind, row) == 0)
        return k;
    if (m->nlanes == m->lanes_cap) {
        size_t cap = m->lanes_cap ? 2 * m->lanes_cap : 8;
        ooc_lane *g = realloc(m->lanes, cap * sizeof *g);
        if (!g)
            return SIZE_MAX;
        m->lanes = g;
        m->lanes_cap = cap;
    }
    memmove(&m->lanes[k + 1], &m->lanes[k], (m->nlanes - k) * sizeof *m->lanes);
    m->lanes[k] =
        (ooc_lane){.rank_index = rank_index, .kind = kind, .row = row, .uid = (uint32_t)m->nlanes};
    m->nlanes++;
    return k;
}

size_t *ooc_map_uid_index(const ooc_map *m)
{
    size_t *ix = malloc((m->nlanes ? m->nlanes : 1) * sizeof *ix);
    for (size_t l = 0; ix && l < m->nlanes; l++) {
        if (m->lanes[l].uid >= m->nlanes) { /* not numbered by ooc_map_lane */
            free(ix);
            return NULL;
        }
        ix[m->lanes[l].uid] = l;
    }
    return ix;
}

static uint32_t rows_of(uint32_t ndepth)
{
    return ndepth < OOC_MAP_DEPTHS ? ndepth : OOC_MAP_DEPTHS;
}

/* Raises the lane's ndepth, keeping cells at min(ndepth, OOC_MAP_DEPTHS)
 * rows (the new rows empty).  False on NOMEM, the lane unchanged. */
static bool lane_deepen(const ooc_map *m, ooc_lane *ln, uint32_t ndepth)
{
    if (ndepth <= ln->ndepth)
        return true;
    uint32_t have = rows_of(ln->ndepth), rows = rows_of(ndepth);
    if (rows > have) {
        size_t rc = ooc_map_row_cells(m);
        ooc_cell *c = realloc(ln->cells, (size_t)rows * rc * sizeof *c);
        if (!c)
            return false;
        cells_empty(c + (size_t)have * rc, (size_t)(rows - have) * rc);
        ln->cells = c;
    }
    ln->ndepth = ndepth;
    return true;
}

/* ------------------------------------------------------------ adding */

static uint32_t u32_sat_add(uint32_t a, uint32_t b)
{
    return a > UINT32_MAX - b ? UINT32_MAX : a + b;
}

/* Without branches: durations come in no order, so a branch here is
 * mispredicted about every other call (the scan adds 100M of them). */
static void longest_merge(ooc_cell *c, int64_t dur, uint32_t reg)
{
    bool take = (dur > c->longest) | ((dur == c->longest) & (reg < c->longest_reg));
    c->longest = take ? dur : c->longest;
    c->longest_reg = take ? reg : c->longest_reg;
}

static int64_t duration(int64_t start, int64_t end)
{
    if (end <= start)
        return 0;
    uint64_t d = (uint64_t)end - (uint64_t)start;
    return d > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)d;
}

/* t relative to the origin, t >= origin. */
static uint64_t rel(const ooc_map *m, int64_t t)
{
    return (uint64_t)t - (uint64_t)m->origin;
}

/* Adds one call to a row's level-0 cells, clipped to the grid. */
static void row_add(const ooc_map *m, ooc_cell *c, int64_t start, int64_t end, uint32_t reg)
{
    int64_t vend = lanes_visible_end(start, end);
    if (vend <= m->origin)
        return;
    uint64_t rs = start > m->origin ? rel(m, start) : 0;
    uint64_t rve = rel(m, vend) - 1; /* last visible ns */
    size_t b0 = (size_t)(rs >> m->shift);
    if (b0 >= m->nb)
        return;
    size_t b1 = rve >> m->shift < m->nb ? (size_t)(rve >> m->shift) : m->nb - 1;
    if (start >= m->origin)
        c[b0].starts = u32_sat_add(c[b0].starts, 1);
    int64_t dur = duration(start, end);
    if (rve >> m->shift == b0) { /* the usual call: its visible end, so its end, is in b0 */
        c[b0].overlap = u32_sat_add(c[b0].overlap, 1);
        longest_merge(&c[b0], dur, reg);
        c[b0].busy += end > start ? rel(m, end) - rs : 0;
        return;
    }
    /* Busy over [start, end) (inclusive last ns re = end - 1). */
    bool has_busy = end > start && end > m->origin;
    uint64_t re = has_busy ? rel(m, end) - 1 : 0;
    uint64_t w1 = ((uint64_t)1 << m->shift) - 1;
    for (size_t b = b0; b <= b1; b++) {
        c[b].overlap = u32_sat_add(c[b].overlap, 1);
        longest_merge(&c[b], dur, reg);
        uint64_t first = (uint64_t)b << m->shift, last = first + w1;
        uint64_t lo = rs > first ? rs : first, hi = re < last ? re : last;
        if (has_busy && hi >= lo)
            c[b].busy += hi - lo + 1;
    }
}

static bool deep_row(ooc_map *m)
{
    if (m->deep)
        return true;
    m->deep = malloc(ooc_map_row_cells(m) * sizeof *m->deep);
    if (!m->deep)
        return false;
    cells_empty(m->deep, ooc_map_row_cells(m));
    return true;
}

void ooc_map_count(ooc_map *m, size_t l, int64_t start, int64_t end)
{
    if (l >= m->nlanes)
        return;
    int64_t vend = lanes_visible_end(start, end);
    m->ncalls++;
    m->lanes[l].ncalls++;
    m->t_min = start < m->t_min ? start : m->t_min;
    m->t_max = vend > m->t_max ? vend : m->t_max;
}

void ooc_map_add(ooc_map *m, size_t l, uint32_t depth, int64_t start, int64_t end, uint32_t reg)
{
    if (l >= m->nlanes)
        return;
    ooc_map_count(m, l, start, end);
    ooc_lane *ln = &m->lanes[l];
    ooc_cell *row = NULL;
    if (lane_deepen(m, ln, depth + 1)) {
        if (depth < OOC_MAP_DEPTHS)
            row = ln->cells + (size_t)depth * ooc_map_row_cells(m);
        else if (deep_row(m))
            row = m->deep;
    }
    if (!row) {
        m->nomem = true;
        return;
    }
    row_add(m, row, start, end, reg);
}

/* ------------------------------------------------------------ levels */

static ooc_cell cell_merge(const ooc_cell *a, const ooc_cell *b)
{
    ooc_cell c = *a;
    c.busy = a->busy + b->busy;
    c.starts = u32_sat_add(a->starts, b->starts);
    c.overlap = u32_sat_add(a->overlap, b->starts);
    longest_merge(&c, b->longest, b->longest_reg);
    return c;
}

static void row_finish(const ooc_map *m, ooc_cell *row)
{
    for (unsigned L = 1; L < m->nlevels; L++) {
        const ooc_cell *fine = row + ooc_map_level_offset(m, L - 1);
        ooc_cell *coarse = row + ooc_map_level_offset(m, L);
        for (size_t i = 0; i < m->nb >> L; i++)
            coarse[i] = cell_merge(&fine[2 * i], &fine[2 * i + 1]);
    }
}

void ooc_map_finish(ooc_map *m)
{
    if (m->finished)
        return;
    size_t rc = ooc_map_row_cells(m);
    for (size_t l = 0; l < m->nlanes; l++) {
        const ooc_lane *ln = &m->lanes[l];
        for (uint32_t d = 0; d < rows_of(ln->ndepth); d++)
            row_finish(m, ln->cells + (size_t)d * rc);
    }
    if (m->deep)
        row_finish(m, m->deep);
    m->finished = true;
}

/* ------------------------------------------------------------ regrid */

/* Row `from` (level 0 of grid o) into `to` (level 0 of m's grid, every
 * cell empty): each old bucket lies within one new bucket (m's buckets
 * are wider and aligned), and the old buckets of a new one are adjacent,
 * so they merge in order as the coarser levels do. */
static void row_regrid(const ooc_map *o, const ooc_cell *from, const ooc_map *m, ooc_cell *to)
{
    size_t prev = SIZE_MAX;
    for (size_t i = 0; i < o->nb; i++) {
        uint64_t t = (uint64_t)o->origin + ((uint64_t)i << o->shift) - (uint64_t)m->origin;
        size_t j = (size_t)(t >> m->shift);
        if (j >= m->nb)
            break;
        to[j] = j == prev ? cell_merge(&to[j], &from[i]) : from[i];
        prev = j;
    }
}

static ooc_cell *rows_regrid(const ooc_map *o, const ooc_cell *from, uint32_t rows,
                             const ooc_map *m)
{
    size_t orc = ooc_map_row_cells(o), rc = ooc_map_row_cells(m);
    ooc_cell *to = malloc((size_t)rows * rc * sizeof *to);
    if (!to)
        return NULL;
    cells_empty(to, (size_t)rows * rc);
    for (uint32_t d = 0; d < rows; d++)
        row_regrid(o, from + (size_t)d * orc, m, to + (size_t)d * rc);
    return to;
}

bool ooc_map_regrid(ooc_map *m, int64_t t_min, int64_t t_max, size_t nlanes_hint, size_t cells_max)
{
    ooc_map g;
    ooc_map_init_cap(&g, t_min, t_max, nlanes_hint, cells_max);
    if (m->finished || g.shift < m->shift)
        return false;
    if (g.shift == m->shift && g.origin == m->origin && g.nb == m->nb)
        return true;
    ooc_map o = *m; /* the old grid, for row_regrid */
    ooc_map n = *m;
    n.origin = g.origin;
    n.shift = g.shift;
    n.nb = g.nb;
    n.nlevels = g.nlevels;
    ooc_cell **fresh = calloc(m->nlanes + 1, sizeof *fresh);
    bool ok = fresh != NULL;
    for (size_t l = 0; ok && l < m->nlanes; l++)
        if (m->lanes[l].cells)
            ok = (fresh[l] = rows_regrid(&o, m->lanes[l].cells, rows_of(m->lanes[l].ndepth), &n)) !=
                 NULL;
    ok = ok && (!m->deep || (fresh[m->nlanes] = rows_regrid(&o, m->deep, 1, &n)) != NULL);
    if (!ok) { /* m unchanged */
        for (size_t l = 0; fresh && l <= m->nlanes; l++)
            free(fresh[l]);
        free(fresh);
        return false;
    }
    for (size_t l = 0; l < m->nlanes; l++) {
        if (!m->lanes[l].cells)
            continue;
        free(m->lanes[l].cells);
        m->lanes[l].cells = fresh[l];
    }
    if (m->deep) {
        free(m->deep);
        m->deep = fresh[m->nlanes];
    }
    free(fresh);
    m->origin = n.origin;
    m->shift = n.shift;
    m->nb = n.nb;
    m->nlevels = n.nlevels;
    return true;
}

/* ------------------------------------------------------------ from lanes */

static void add_lane_row(ooc_map *m, size_t l, uint32_t d, const lane *ln, const lane_row *row)
{
    for (size_t k = 0; k < row->n; k++) {
        size_t i;
        size_t j = rank_call_region_at(ln->rk, lane_row_call(row, k), &i);
        if (j >= ln->rk->nregions)
            continue;
        const region *r = ln->rk->regions[j];
        ooc_map_add(m, l, d, r->start_ns[i], r->end_ns[i], (uint32_t)j);
    }
}

bool ooc_map_from_lanes(const lanes_index *ix, ooc_map *m)
{
    return ooc_map_from_lanes_cap(ix, OOC_MAP_CELLS_MAX, m);
}

bool ooc_map_from_lanes_cap(const lanes_index *ix, size_t cells_max, ooc_map *m)
{
    bool none = ix->t_min > ix->t_max; /* no calls: a grid at 0 */
    if (!ooc_map_init_cap(m, none ? 0 : ix->t_min, none ? 0 : ix->t_max, ix->nlanes, cells_max))
        return false;
    for (size_t k = 0; k < ix->nlanes; k++) {
        const lane *ln = &ix->lanes[k];
        size_t ri = (size_t)(ln->rk - ix->prof->ranks);
        size_t l = ooc_map_lane(m, ri, ln->kind, ln->row);
        if (l == SIZE_MAX) {
            ooc_map_free(m);
            return false;
        }
        for (uint32_t d = 0; d < ln->ndepth; d++)
            add_lane_row(m, l, d, ln, &ln->rows[d]);
    }
    ooc_map_finish(m);
    if (m->nomem) {
        ooc_map_free(m);
        return false;
    }
    return true;
}

/* ------------------------------------------------------------ columns */

static const ooc_cell *level_cells(const ooc_map *m, const ooc_cell *row, unsigned level)
{
    return row + ooc_map_level_offset(m, level);
}

static int64_t sat_add(int64_t a, int64_t b)
{
    if (b > 0 && a > INT64_MAX - b)
        return INT64_MAX;
    if (b < 0 && a < INT64_MIN - b)
        return INT64_MIN;
    return a + b;
}

/* The first bucket of width 2^sh starting at or after t, within [0, n]. */
static size_t bucket_ceil(const ooc_map *m, unsigned sh, size_t n, int64_t t)
{
    if (t <= m->origin)
        return 0;
    uint64_t b = ((rel(m, t) - 1) >> sh) + 1;
    return b > n ? n : (size_t)b;
}

/* Buckets [a, b) of one level summed into a column. */
static void col_sum(const ooc_cell *lv, size_t a, size_t b, ooc_col *c)
{
    for (size_t i = a; i < b; i++) {
        c->busy += lv[i].busy;
        c->calls += i == a ? lv[i].overlap : lv[i].starts;
        if (lv[i].longest > c->longest || (lv[i].longest == c->longest && c->longest >= 0 &&
                                           lv[i].longest_reg < c->longest_reg)) {
            c->longest = lv[i].longest;
            c->longest_reg = lv[i].longest_reg;
        }
    }
}

static bool aligned(const ooc_map *m, unsigned sh, int64_t t0, int64_t npc)
{
    uint64_t w1 = ((uint64_t)1 << sh) - 1;
    return (((uint64_t)t0 - (uint64_t)m->origin) & w1) == 0 && ((uint64_t)npc & w1) == 0;
}

/* Columns narrower than a level-0 bucket: the bucket holding each start,
 * its busy scaled to the column (the bucket's load; a bucket fully busy
 * gives exactly npc, the product by a power of two being exact). */
static void columns_narrow(const ooc_map *m, const ooc_cell *row, int64_t t0, int64_t npc,
                           int width, ooc_col *out)
{
    double w = (double)((uint64_t)1 << m->shift);
    for (int c = 0; c < width; c++) {
        int64_t cs = sat_add(t0, (int64_t)c * npc);
        if (cs < m->origin || rel(m, cs) >> m->shift >= m->nb)
            continue;
        size_t b = (size_t)(rel(m, cs) >> m->shift);
        col_sum(row, b, b + 1, &out[c]);
        out[c].busy = (uint64_t)((double)out[c].busy * (double)npc / w);
    }
}

/* busy of buckets covering span ns, as the same load of a column of npc:
 * a column takes a whole number of buckets (one more or one less than
 * its width holds), and their busy time unscaled would make a call
 * covering the view alternate between load levels instead of a bar. */
static uint64_t scale_busy(uint64_t busy, uint64_t span, int64_t npc)
{
    if (busy == span)
        return (uint64_t)npc; /* exactly: a bar */
    return (uint64_t)((double)busy / (double)span * (double)npc);
}

/* Each column from the buckets of `level` starting in it (unaligned
 * columns: their busy scaled to the column, scale_busy). */
static void columns_at(const ooc_map *m, const ooc_cell *row, unsigned level, int64_t t0,
                       int64_t npc, int width, ooc_col *out)
{
    const ooc_cell *lv = level_cells(m, row, level);
    unsigned sh = m->shift + level;
    size_t n = m->nb >> level;
    size_t a = bucket_ceil(m, sh, n, t0);
    bool whole = aligned(m, sh, t0, npc);
    for (int c = 0; c < width; c++) {
        size_t b = bucket_ceil(m, sh, n, sat_add(t0, ((int64_t)c + 1) * npc));
        col_sum(lv, a, b, &out[c]);
        if (!whole && b > a)
            out[c].busy = scale_busy(out[c].busy, (uint64_t)(b - a) << sh, npc);
        a = b;
    }
}

/* The level a view's columns are made from, and whether they are whole
 * buckets of it; -1: columns narrower than a level-0 bucket. */
static int view_level(const ooc_map *m, int64_t t0, int64_t npc, bool *exact)
{
    *exact = false;
    if (npc <= 0 || m->shift > 62 || ((int64_t)1 << m->shift) > npc)
        return -1;
    unsigned top = 0; /* the coarsest level whose bucket is at most npc */
    while (top + 1 < m->nlevels && m->shift + top + 1 <= 62 &&
           ((int64_t)1 << (m->shift + top + 1)) <= npc)
        top++;
    for (unsigned L = top + 1; L-- > 0;) {
        if (aligned(m, m->shift + L, t0, npc)) {
            *exact = true;
            return (int)L;
        }
    }
    return (int)top;
}

bool ooc_map_view_exact(const ooc_map *m, int64_t t0, int64_t npc)
{
    bool exact;
    view_level(m, t0, npc, &exact);
    return exact;
}

bool ooc_map_columns(const ooc_map *m, size_t l, uint32_t d, int64_t t0, int64_t npc, int width,
                     ooc_col *out)
{
    for (int c = 0; c < width; c++)
        out[c] = (ooc_col){.longest = -1};
    if (l >= m->nlanes || npc <= 0)
        return false;
    const ooc_lane *ln = &m->lanes[l];
    if (d >= ln->ndepth)
        return true;
    if (d >= OOC_MAP_DEPTHS || !m->finished)
        return false;
    const ooc_cell *row = ln->cells + (size_t)d * ooc_map_row_cells(m);
    bool exact;
    int L = view_level(m, t0, npc, &exact);
    if (L < 0)
        columns_narrow(m, row, t0, npc, width, out);
    else
        columns_at(m, row, (unsigned)L, t0, npc, width, out);
    return exact;
}

/* ------------------------------------------------------------ calls in */

/* Starts over level-0 buckets [lo, hi) of a row. */
static uint64_t starts_sum(const ooc_map *m, const ooc_cell *row, size_t lo, size_t hi)
{
    uint64_t s = 0;
    if (!m->finished) {
        for (size_t i = lo; i < hi; i++)
            s += row[i].starts;
        return s;
    }
    for (unsigned L = 0; lo < hi; L++, lo >>= 1, hi >>= 1) {
        const ooc_cell *lv = level_cells(m, row, L);
        if (lo & 1)
            s += lv[lo++].starts;
        if (hi & 1)
            s += lv[--hi].starts;
    }
    return s;
}

/* Calls of a row meeting level-0 buckets [b0, b1]. */
static uint64_t row_count(const ooc_map *m, const ooc_cell *row, size_t b0, size_t b1)
{
    return row[b0].overlap + starts_sum(m, row, b0 + 1, b1 + 1);
}

uint64_t ooc_map_calls_in(const ooc_map *m, int64_t t0, int64_t t1)
{
    if (m->nomem)
        return UINT64_MAX;
    if (t1 <= t0 || t1 <= m->origin)
        return 0;
    uint64_t first = t0 <= m->origin ? 0 : rel(m, t0) >> m->shift;
    if (first >= m->nb)
        return 0;
    size_t b0 = (size_t)first;
    uint64_t last = rel(m, t1 - 1) >> m->shift;
    size_t b1 = last < m->nb ? (size_t)last : m->nb - 1;
    uint64_t n = 0;
    size_t rc = ooc_map_row_cells(m);
    for (size_t l = 0; l < m->nlanes; l++) {
        const ooc_lane *ln = &m->lanes[l];
        for (uint32_t d = 0; d < rows_of(ln->ndepth); d++)
            n += row_count(m, ln->cells + (size_t)d * rc, b0, b1);
    }
    if (m->deep)
        n += row_count(m, m->deep, b0, b1);
    return n;
}
