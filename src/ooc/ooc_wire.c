/* ooc_wire: the overview map and the seek index as a wire.h section
 * (ooc_scan.h), and their checks against the skeleton.
 *
 * Layout (8-byte words unless said): the map's origin, shift, nb,
 * nlevels, t_min, t_max, ncalls, finished, nomem, nlanes; each lane's
 * rank_index, kind, row, ndepth, ncalls and its cells as one column; the
 * deep row as a column (absent: none).  Then the seek rows (rank_index,
 * region_index, n, npts, the starts, smin and smax as columns) and the
 * ranks (rank_index, windowable, ninferred, ncp, nopen, the checkpoints'
 * t, first, count, each open call's region, lane, position, start, end).  Columns of structs go
 * field by field, so no padding byte crosses. */
#include <stdlib.h>
#include <string.h>

#include "ooc_scan.h"
#include "isolate/wire.h"

#define WIRE_NONE UINT64_MAX /* an absent row of cells */

static uint32_t rows_of(uint32_t ndepth)
{
    return ndepth < OOC_MAP_DEPTHS ? ndepth : OOC_MAP_DEPTHS;
}

static void put_cells(wire_w *w, const ooc_cell *c, size_t n)
{
    wire_put_u64(w, c ? n : WIRE_NONE);
    for (size_t i = 0; c && i < n; i++) {
        uint64_t v[4] = {c[i].busy, (uint64_t)c[i].starts << 32 | c[i].overlap,
                         (uint64_t)c[i].longest, c[i].longest_reg};
        wire_put_bytes(w, v, sizeof v);
    }
}

void ooc_wire_put(wire_w *w, const ooc_map *m, const ooc_seek *s)
{
    uint64_t head[10] = {
        (uint64_t)m->origin, m->shift,  m->nb,       m->nlevels, (uint64_t)m->t_min,
        (uint64_t)m->t_max,  m->ncalls, m->finished, m->nomem,   m->nlanes};
    wire_put_bytes(w, head, sizeof head);
    size_t rc = m->nb ? ooc_map_row_cells(m) : 0;
    for (size_t l = 0; l < m->nlanes; l++) {
        const ooc_lane *ln = &m->lanes[l];
        uint64_t v[5] = {ln->rank_index, (uint64_t)ln->kind, (uint64_t)ln->row, ln->ndepth,
                         ln->ncalls};
        wire_put_bytes(w, v, sizeof v);
        put_cells(w, ln->cells, rows_of(ln->ndepth) * rc);
    }
    put_cells(w, m->deep, rc);
    wire_put_u64(w, s->nrows);
    for (size_t i = 0; i < s->nrows; i++) {
        const ooc_seek_row *r = &s->rows[i];
        uint64_t v[4] = {r->rank_index, r->region_index, r->n, r->npts};
        wire_put_bytes(w, v, sizeof v);
        wire_put_col(w, r->npts ? r->start : NULL, r->npts, sizeof *r->start);
        wire_put_col(w, r->npts ? r->smin : NULL, r->npts, sizeof *r->smin);
        wire_put_col(w, r->npts ? r->smax : NULL, r->npts, sizeof *r->smax);
    }
    wire_put_u64(w, s->nranks);
    for (size_t i = 0; i < s->nranks; i++) {
        const ooc_seek_rank *k = &s->ranks[i];
        uint64_t v[5] = {k->rank_index, k->windowable, k->ninferred, k->ncp, k->nopen};
        wire_put_bytes(w, v, sizeof v);
        for (size_t c = 0; c < k->ncp; c++) {
            uint64_t cp[3] = {(uint64_t)k->cp[c].t, k->cp[c].first, k->cp[c].count};
            wire_put_bytes(w, cp, sizeof cp);
        }
        for (size_t c = 0; c < k->nopen; c++) {
            const ooc_open_call *o = &k->open[c];
            uint64_t ov[5] = {o->region_index, o->lane, o->pos, (uint64_t)o->start,
                              (uint64_t)o->end};
            wire_put_bytes(w, ov, sizeof ov);
        }
    }
}

/* ------------------------------------------------------------ reading */

static ooc_cell *get_cells(wire_r *r, size_t want)
{
    uint64_t n = wire_get_u64(r);
    if (n == WIRE_NONE || !wire_get_ok(r) || n != want)
        return NULL;
    ooc_cell *c = wire_get_alloc(r, want ? want : 1, sizeof *c);
    for (size_t i = 0; c && i < want; i++) {
        uint64_t v[4];
        if (!wire_get_bytes(r, v, sizeof v) || v[3] > UINT32_MAX) {
            free(c);
            return NULL;
        }
        c[i] =
            (ooc_cell){v[0], (uint32_t)(v[1] >> 32), (uint32_t)v[1], (int64_t)v[2], (uint32_t)v[3]};
    }
    return c;
}

static bool get_map(wire_r *r, ooc_map *m)
{
    uint64_t h[10];
    if (!wire_get_bytes(r, h, sizeof h))
        return false;
    /* nb a power of two below 2^32, nlevels its log2 + 1 */
    if (h[1] > 63 || h[2] == 0 || h[2] > ((uint64_t)1 << 32) || (h[2] & (h[2] - 1)) ||
        h[3] != (uint64_t)__builtin_ctzll(h[2]) + 1 || h[7] > 1 || h[8] > 1)
        return false;
    *m = (ooc_map){.origin = (int64_t)h[0],
                   .shift = (unsigned)h[1],
                   .nb = (size_t)h[2],
                   .nlevels = (unsigned)h[3],
                   .t_min = (int64_t)h[4],
                   .t_max = (int64_t)h[5],
                   .ncalls = h[6],
                   .finished = h[7] != 0,
                   .nomem = h[8] != 0};
    size_t rc = ooc_map_row_cells(m);
    size_t n = (size_t)h[9];
    if (n > ((size_t)1 << 24))
        return false;
    m->lanes = wire_get_alloc(r, n ? n : 1, sizeof *m->lanes);
    if (!m->lanes)
        return false;
    m->lanes_cap = n ? n : 1;
    for (size_t l = 0; l < n; l++) {
        uint64_t v[5];
        if (!wire_get_bytes(r, v, sizeof v) || v[1] > LANE_INFERRED || v[3] > UINT32_MAX)
            return false;
        ooc_lane *ln = &m->lanes[m->nlanes++];
        *ln =
            (ooc_lane){(size_t)v[0], (lane_kind)v[1],          (int64_t)v[2], (uint32_t)v[3], v[4],
                       NULL,         (uint32_t)(m->nlanes - 1)};
        size_t want = (size_t)rows_of(ln->ndepth) * rc;
        if (want && !(ln->cells = get_cells(r, want)))
            return false;
        if (!want && wire_get_u64(r) != WIRE_NONE)
            return false;
    }
    uint64_t dn = wire_get_u64(r);
    if (dn != WIRE_NONE) {
        if (dn != rc)
            return false;
        m->deep = wire_get_alloc(r, rc, sizeof *m->deep);
        for (size_t i = 0; m->deep && i < rc; i++) {
            uint64_t v[4];
            if (!wire_get_bytes(r, v, sizeof v) || v[3] > UINT32_MAX)
                return false;
            m->deep[i] = (ooc_cell){v[0], (uint32_t)(v[1] >> 32), (uint32_t)v[1], (int64_t)v[2],
                                    (uint32_t)v[3]};
        }
        if (!m->deep)
            return false;
    }
    return wire_get_ok(r);
}

static bool get_seek(wire_r *r, ooc_seek *s)
{
    size_t n = wire_get_count(r, 4 * sizeof(uint64_t));
    s->rows = wire_get_alloc(r, n ? n : 1, sizeof *s->rows);
    if (!s->rows)
        return false;
    for (size_t i = 0; i < n; i++) {
        uint64_t v[4];
        if (!wire_get_bytes(r, v, sizeof v) ||
            v[3] != (v[2] + OOC_SEEK_STRIDE - 1) / OOC_SEEK_STRIDE)
            return false;
        ooc_seek_row *row = &s->rows[s->nrows++];
        *row = (ooc_seek_row){(size_t)v[0], (size_t)v[1], v[2], (size_t)v[3], NULL, NULL, NULL};
        int64_t **col[3] = {&row->start, &row->smin, &row->smax};
        for (int c = 0; c < 3; c++) {
            if (row->npts && !(*col[c] = wire_get_col(r, row->npts, sizeof **col[c])))
                return false;
            if (!row->npts && (wire_get_u64(r) != 0 || !(*col[c] = malloc(sizeof **col[c]))))
                return false; /* the absent column's flag */
        }
    }
    n = wire_get_count(r, 4 * sizeof(uint64_t));
    s->ranks = wire_get_alloc(r, n ? n : 1, sizeof *s->ranks);
    if (!s->ranks)
        return false;
    for (size_t i = 0; i < n; i++) {
        uint64_t v5[5];
        if (!wire_get_bytes(r, v5, sizeof v5) || v5[1] > 1 || v5[2] > UINT32_MAX)
            return false;
        ooc_seek_rank *k = &s->ranks[s->nranks++];
        memset(k, 0, sizeof *k);
        k->rank_index = (size_t)v5[0];
        k->windowable = v5[1] != 0;
        k->ninferred = (uint32_t)v5[2];
        uint64_t v[4] = {0, 0, v5[3], v5[4]};
        if (v[2] > ((uint64_t)1 << 32) || v[3] > ((uint64_t)1 << 32))
            return false;
        k->cp = wire_get_alloc(r, v[2] ? v[2] : 1, sizeof *k->cp);
        k->open = wire_get_alloc(r, v[3] ? v[3] : 1, sizeof *k->open);
        if (!k->cp || !k->open)
            return false;
        for (; k->ncp < v[2]; k->ncp++) {
            uint64_t c[3];
            if (!wire_get_bytes(r, c, sizeof c) || c[1] > v[3] || c[2] > v[3] - c[1])
                return false;
            k->cp[k->ncp] = (ooc_checkpoint){(int64_t)c[0], (size_t)c[1], (size_t)c[2]};
        }
        for (; k->nopen < v[3]; k->nopen++) {
            uint64_t o[5];
            if (!wire_get_bytes(r, o, sizeof o) || o[0] > UINT32_MAX || o[1] > UINT32_MAX)
                return false;
            k->open[k->nopen] =
                (ooc_open_call){(uint32_t)o[0], (uint32_t)o[1], o[2], (int64_t)o[3], (int64_t)o[4]};
        }
    }
    return wire_get_ok(r);
}

bool ooc_wire_get(wire_r *r, ooc_map *m, ooc_seek *s)
{
    memset(m, 0, sizeof *m);
    memset(s, 0, sizeof *s);
    if (get_map(r, m) && get_seek(r, s))
        return true;
    ooc_map_free(m);
    ooc_seek_free(s);
    return false;
}

/* ------------------------------------------------------------ checks */

static int lane_cmp(const ooc_lane *a, const ooc_lane *b)
{
    if (a->rank_index != b->rank_index)
        return a->rank_index < b->rank_index ? -1 : 1;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    return (a->row > b->row) - (a->row < b->row);
}

bool ooc_scan_valid(const ooc_map *m, const ooc_seek *s, const profile *p)
{
    for (size_t l = 0; l < m->nlanes; l++)
        if (m->lanes[l].rank_index >= p->nranks ||
            (l && lane_cmp(&m->lanes[l - 1], &m->lanes[l]) >= 0))
            return false;
    for (size_t i = 0; i < s->nrows; i++) {
        const ooc_seek_row *r = &s->rows[i];
        if (r->rank_index >= p->nranks || r->region_index >= p->ranks[r->rank_index].nregions)
            return false;
    }
    if (s->nranks != p->nranks)
        return false;
    for (size_t i = 0; i < s->nranks; i++) {
        const ooc_seek_rank *k = &s->ranks[i];
        if (k->rank_index != i)
            return false;
        for (size_t c = 0; c < k->nopen; c++)
            if (k->open[c].region_index >= p->ranks[i].nregions)
                return false;
    }
    return true;
}
