/* ooc_part: the overview in parts while the pass goes (ooc_part.h).
 *
 * Layout (8-byte words): ranks_done, nranks, calls_done, calls_total,
 * t_min, t_max, origin, shift, nb, nlanes, partial, frontier; each lane's
 * rank_index, kind,
 * row, ndepth, ncalls, the number of its level-0 cells (rows * nb), then
 * each cell as four words (busy, starts << 32 | overlap, longest,
 * longest_reg), as ooc_wire.c writes them. */
#include "ooc_part.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ooc_scan.h"
#include "isolate/wire.h"

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static uint32_t rows_of(uint32_t ndepth)
{
    return ndepth < OOC_MAP_DEPTHS ? ndepth : OOC_MAP_DEPTHS;
}

/* ------------------------------------------------------------ writing */

/* Cells as four words each, a batch at a time (no padding byte crosses). */
#define PUT_BATCH 256

static void put_cells(wire_w *w, const ooc_cell *c, size_t n)
{
    uint64_t v[PUT_BATCH][4];
    for (size_t i = 0; i < n; i += PUT_BATCH) {
        size_t k = n - i < PUT_BATCH ? n - i : PUT_BATCH;
        for (size_t j = 0; j < k; j++) {
            const ooc_cell *x = &c[i + j];
            v[j][0] = x->busy;
            v[j][1] = (uint64_t)x->starts << 32 | x->overlap;
            v[j][2] = (uint64_t)x->longest;
            v[j][3] = x->longest_reg;
        }
        wire_put_bytes(w, v, k * sizeof v[0]);
    }
}

void ooc_part_put(wire_w *w, void *vsrc)
{
    const ooc_part_src *src = vsrc;
    const ooc_map *m = &src->sc->map;
    size_t upto = src->done + (src->partial ? 1 : 0), nl = 0;
    while (nl < m->nlanes && m->lanes[nl].rank_index < upto)
        nl++; /* lanes.h order: by rank first */
    uint64_t head[12] = {src->done,
                         src->nranks,
                         src->calls_done,
                         src->calls_total,
                         (uint64_t)src->sc->t_min,
                         (uint64_t)src->sc->t_max,
                         (uint64_t)m->origin,
                         m->shift,
                         m->nb,
                         nl,
                         src->partial,
                         (uint64_t)src->frontier};
    wire_put_bytes(w, head, sizeof head);
    size_t rc = ooc_map_row_cells(m);
    for (size_t l = 0; l < nl; l++) {
        const ooc_lane *ln = &m->lanes[l];
        uint32_t rows = ln->cells ? rows_of(ln->ndepth) : 0;
        uint64_t v[6] = {ln->rank_index,        (uint64_t)ln->kind, (uint64_t)ln->row,
                         rows ? ln->ndepth : 0, ln->ncalls,         (uint64_t)rows * m->nb};
        wire_put_bytes(w, v, sizeof v);
        for (uint32_t d = 0; d < rows; d++) /* level 0 comes first in a row */
            put_cells(w, ln->cells + (size_t)d * rc, m->nb);
    }
}

/* Sends src's part; false when the pipe failed (the parts are then off). */
static bool parts_send(ooc_parts_out *o, const ooc_part_src *src)
{
    wire_section sec = {ooc_part_put, NULL, (void *)src};
    if (wire_send_part(o->fd, &sec) != 0) {
        ooc_parts_close(o); /* the viewer stopped reading: the final overview still comes */
        return false;
    }
    o->partial_sent = src->partial;
    o->partial_rank = src->done;
    return true;
}

void ooc_parts_withdraw(ooc_parts_out *o, const ooc_part_src *src)
{
    if (o->on && o->partial_sent && o->partial_rank == src->done && !src->partial)
        parts_send(o, src);
}

void ooc_parts_offer(ooc_parts_out *o, const ooc_part_src *src)
{
    if (!o->on || (!src->partial && src->done >= src->nranks) || src->done > src->nranks)
        return;
    int64_t t0 = mono_ms();
    if (!o->every && t0 < o->next_ms)
        return;
    if (!parts_send(o, src))
        return;
    int64_t t1 = mono_ms();
    int64_t gap = 40 * (t1 - t0); /* the parts take at most 1/41 of the pass */
    o->next_ms = t1 + (gap > OOC_PART_MS ? gap : OOC_PART_MS);
    if (o->slow_ms) {
        struct timespec ts = {o->slow_ms / 1000, (long)(o->slow_ms % 1000) * 1000000L};
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
            ;
    }
}

void ooc_parts_close(ooc_parts_out *o)
{
    if (o->on)
        close(o->fd);
    o->on = false;
    o->fd = -1;
}

/* ------------------------------------------------------------ reading */

static int lane_cmp(const ooc_lane *a, const ooc_lane *b)
{
    if (a->rank_index != b->rank_index)
        return a->rank_index < b->rank_index ? -1 : 1;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    return (a->row > b->row) - (a->row < b->row);
}

static bool get_head(wire_r *r, ooc_part *p, size_t *nlanes, int64_t *frontier)
{
    uint64_t h[12];
    if (!wire_get_bytes(r, h, sizeof h))
        return false;
    uint64_t nb = h[8], shift = h[7];
    int64_t origin = (int64_t)h[6];
    if (h[1] == 0 || h[1] > ((uint64_t)1 << 24) || h[0] > h[1] || h[2] > h[3] ||
        (int64_t)h[4] > (int64_t)h[5] || shift > 62 || nb < 2 || nb > OOC_MAP_BUCKETS_MAX ||
        (nb & (nb - 1)) || h[9] > ((uint64_t)1 << 24) || h[10] > 1 || (h[10] && h[0] >= h[1]))
        return false;
    /* the grid's end, origin + nb << shift, within int64 */
    __int128 end = (__int128)origin + ((__int128)nb << shift);
    if (end > INT64_MAX)
        return false;
    *p = (ooc_part){.ranks_done = (uint32_t)h[0],
                    .nranks = (uint32_t)h[1],
                    .calls_done = h[2],
                    .calls_total = h[3],
                    .t_min = (int64_t)h[4],
                    .t_max = (int64_t)h[5],
                    .partial = h[10] != 0,
                    .upto = (int64_t)end};
    p->map = (ooc_map){.origin = origin,
                       .shift = (unsigned)shift,
                       .nb = (size_t)nb,
                       .nlevels = (unsigned)__builtin_ctzll(nb) + 1,
                       .t_min = (int64_t)h[4],
                       .t_max = (int64_t)h[5]};
    *frontier = (int64_t)h[11];
    *nlanes = (size_t)h[9];
    p->map.lanes = wire_get_alloc(r, *nlanes ? *nlanes : 1, sizeof *p->map.lanes);
    p->map.lanes_cap = *nlanes ? *nlanes : 1;
    return p->map.lanes != NULL;
}

/* The partial rank's cells from the bucket holding the frontier on
 * emptied (the calls that start there are not all read); p->upto set to
 * that bucket's start. */
static void cut_partial(ooc_part *p, int64_t frontier)
{
    ooc_map *m = &p->map;
    __int128 off = (__int128)frontier - m->origin;
    size_t fb = off <= 0                               ? 0
                : (off >> m->shift) >= (__int128)m->nb ? m->nb
                                                       : (size_t)(off >> m->shift);
    p->upto = (int64_t)((__int128)m->origin + ((__int128)fb << m->shift));
    size_t rc = ooc_map_row_cells(m);
    for (size_t l = 0; l < m->nlanes; l++) {
        ooc_lane *ln = &m->lanes[l];
        if (ln->rank_index != p->ranks_done || !ln->cells)
            continue;
        for (uint32_t d = 0; d < rows_of(ln->ndepth); d++)
            for (size_t i = fb; i < m->nb; i++)
                ln->cells[(size_t)d * rc + i] = (ooc_cell){0, 0, 0, -1, 0};
    }
}

/* One lane's rows: level 0 read, the coarser levels left to ooc_map_finish. */
static bool get_lane(wire_r *r, ooc_part *p, ooc_lane *ln)
{
    uint64_t v[6];
    memset(ln, 0, sizeof *ln); /* no cells until read */
    if (!wire_get_bytes(r, v, sizeof v) || v[0] >= (uint64_t)p->ranks_done + p->partial ||
        v[1] > LANE_INFERRED || v[3] > UINT32_MAX || v[4] > p->calls_done)
        return false;
    uint32_t no = (uint32_t)(ln - p->map.lanes); /* numbered in order, as from the wire */
    *ln = (ooc_lane){(size_t)v[0], (lane_kind)v[1], (int64_t)v[2], (uint32_t)v[3], v[4], NULL, no};
    const ooc_map *m = &p->map;
    uint32_t rows = rows_of(ln->ndepth);
    if (v[5] != (uint64_t)rows * m->nb || (rows == 0 && v[4] != 0))
        return false;
    if (!rows)
        return true;
    size_t rc = ooc_map_row_cells(m);
    ln->cells = wire_get_alloc(r, (size_t)rows * rc, sizeof *ln->cells);
    if (!ln->cells)
        return false;
    memset(ln->cells, 0, (size_t)rows * rc * sizeof *ln->cells);
    for (uint32_t d = 0; d < rows; d++)
        for (size_t i = 0; i < m->nb; i++) {
            uint64_t c[4];
            if (!wire_get_bytes(r, c, sizeof c) || c[3] > UINT32_MAX || (int64_t)c[2] < -1 ||
                (uint32_t)(c[1] >> 32) > (uint32_t)c[1])
                return false;
            ln->cells[(size_t)d * rc + i] = (ooc_cell){c[0], (uint32_t)(c[1] >> 32), (uint32_t)c[1],
                                                       (int64_t)c[2], (uint32_t)c[3]};
        }
    return true;
}

bool ooc_part_get(wire_r *r, ooc_part *p)
{
    memset(p, 0, sizeof *p);
    size_t n = 0;
    int64_t frontier = 0;
    if (!get_head(r, p, &n, &frontier)) {
        ooc_map_free(&p->map);
        return false;
    }
    uint64_t calls = 0;
    for (size_t l = 0; l < n; l++) {
        ooc_lane *ln = &p->map.lanes[l];
        bool ok = get_lane(r, p, ln);
        if (ln->cells || ok)
            p->map.nlanes++; /* freed with the map */
        calls += ln->ncalls;
        if (!ok || (l && lane_cmp(&p->map.lanes[l - 1], ln) >= 0) || calls > p->calls_done) {
            ooc_map_free(&p->map);
            return false;
        }
    }
    p->map.ncalls = calls;
    if (!wire_get_ok(r)) {
        ooc_map_free(&p->map);
        return false;
    }
    if (p->partial)
        cut_partial(p, frontier);
    ooc_map_finish(&p->map);
    return true;
}

bool ooc_part_valid(const ooc_part *p, const profile *skel)
{
    if (!p || !skel || p->nranks != skel->nranks || p->ranks_done + p->partial > skel->nranks)
        return false;
    const ooc_map *m = &p->map;
    size_t rc = ooc_map_row_cells(m);
    for (size_t l = 0; l < m->nlanes; l++) {
        const ooc_lane *ln = &m->lanes[l];
        if (ln->rank_index >= (size_t)p->ranks_done + p->partial)
            return false;
        size_t nreg = skel->ranks[ln->rank_index].nregions;
        size_t cells = (size_t)rows_of(ln->ndepth) * rc;
        for (size_t i = 0; ln->cells && i < cells; i++)
            if (ln->cells[i].longest >= 0 && ln->cells[i].longest_reg >= nreg)
                return false;
    }
    return true;
}

void ooc_part_free(ooc_part *p)
{
    if (!p)
        return;
    ooc_map_free(&p->map);
    free(p);
}

bool ooc_part_drawn(const ooc_part *p)
{
    if (!p || p->map.ncalls == 0)
        return false;
    if (p->ranks_done > 0)
        return true;
    __int128 span = (__int128)p->t_max - p->t_min, read = (__int128)p->upto - p->t_min;
    return p->partial && read * 100 >= span * OOC_PART_DRAWN_PCT;
}
