/* export_ooc_spill: the packed events of speedscope's spill file (export_ooc.h): the loading
 * child packs a lane's full block (export_ooc.c), the parent unpacks it (export_ooc_run.c). */
#include "export_ooc.h"

size_t xo_ev_pack(uint64_t *slot, const xo_ev *v, size_t n)
{
    size_t m = 0;
    int64_t prev = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t low = (uint64_t)v[i].reg << 1 | (v[i].open != 0);
        bool near = i > 0 && v[i].at >= prev && (uint64_t)(v[i].at - prev) < XO_ESC;
        slot[m++] = (near ? (uint64_t)(v[i].at - prev) : (uint64_t)XO_ESC) << 32 | low;
        if (!near)
            slot[m++] = (uint64_t)v[i].at;
        prev = v[i].at;
    }
    return m;
}

bool xo_ev_unpack(xo_ev *v, size_t *nv, const uint64_t *slot, size_t n)
{
    size_t m = 0;
    int64_t prev = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t head = slot[i], d = head >> 32;
        int64_t at;
        if (d == XO_ESC && i + 1 < n)
            at = (int64_t)slot[++i];
        else if (d != XO_ESC && m > 0) /* a block opens with an escape */
            at = prev + (int64_t)d;
        else
            return false;
        v[m++] = (xo_ev){at, (uint32_t)(head & UINT32_MAX) >> 1, (uint32_t)(head & 1)};
        prev = at;
    }
    *nv = m;
    return true;
}
