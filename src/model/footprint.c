/* footprint: bytes held per call by the model and the timeline index
 * (footprint.h).  Each array is counted at its element count times its
 * element size, plus the records that hold it. */
#include "footprint.h"

#include <string.h>

static size_t region_columns(const region *r)
{
    size_t n = r->has_event_data ? r->n : 0, cols = 0;
    const int64_t *const opt[] = {r->start_ns,   r->end_ns,   r->call_ids, r->parent_ids,
                                  r->thread_ids, r->task_ids, r->await_ns, r->gpu_ns};
    for (size_t k = 0; k < sizeof opt / sizeof opt[0]; k++)
        cols += opt[k] != NULL;
    size_t bytes =
        sizeof *r + n * cols * sizeof(int64_t) + (r->own_excl_ns ? n * sizeof(int64_t) : 0);
    if (r->event_meta)
        for (size_t i = 0; i < n; i++)
            bytes += sizeof(char *) + (r->event_meta[i] ? strlen(r->event_meta[i]) + 1 : 0);
    return bytes;
}

static size_t calls_bytes(const rank_calls *c)
{
    if (!c)
        return 0;
    return sizeof *c + c->n * sizeof *c->parent + c->nchild * sizeof *c->child +
           (c->lane ? c->n * sizeof *c->lane : 0);
}

void footprint_model(const profile *p, footprint *fp)
{
    for (size_t i = 0; i < p->nranks; i++) {
        const rank_data *rk = &p->ranks[i];
        for (size_t j = 0; j < rk->nregions; j++) {
            const region *r = rk->regions[j];
            fp->calls += r->has_event_data ? r->n : 0;
            fp->columns += region_columns(r);
        }
        fp->nesting += calls_bytes(rk->calls);
    }
}

void footprint_index(const lanes_index *ix, footprint *fp)
{
    size_t b = sizeof *ix + ix->nlanes * sizeof *ix->lanes;
    b += (ix->prof->nranks + 1) * sizeof *ix->rank_lane0;
    for (size_t k = 0; k < ix->prof->nranks; k++)
        b += sizeof *ix->rflags + ix->prof->ranks[k].nregions;
    for (size_t l = 0; l < ix->nlanes; l++) {
        const lane *ln = &ix->lanes[l];
        b += ln->ndepth * sizeof *ln->rows;
        for (uint32_t d = 0; d < ln->ndepth; d++) {
            const lane_row *row = &ln->rows[d];
            size_t nb = (row->n + LANES_BLOCK - 1) / LANES_BLOCK;
            b += (row->idx ? row->n * sizeof *row->idx : 0) + 2 * nb * sizeof *row->bstart;
        }
    }
    fp->index += b;
}

size_t footprint_total(const footprint *fp)
{
    return fp->columns + fp->nesting + fp->index;
}
