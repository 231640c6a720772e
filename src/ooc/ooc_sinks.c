/* ooc_sinks: the accumulators every out-of-core sweep feeds (ooc_scan.h).
 * A new aggregate of the sweep is one line here, its sink and its
 * product's place on the wire (ooc_open.c). */
#include "ooc_scan.h"

#include "ooc_lanefig.h"
#include "ooc_bins.h"
#include "ooc_paths.h"
#include "ooc_slowest.h"

bool ooc_sinks_attach(ooc_scan *sc, uint64_t budget)
{
    ooc_paths *pa = ooc_paths_new(budget);
    if (!pa || !ooc_scan_add_sink(sc, &ooc_paths_sink, pa))
        return false;
    sc->aux = true; /* the paths' Await and GPU columns */
    ooc_slowest *sl = ooc_slowest_new(budget);
    if (!sl || !ooc_scan_add_sink(sc, &ooc_slowest_sink, sl))
        return false;
    ooc_slowest_use_map(sl, &sc->map);
    ooc_lanefig *lf = ooc_lanefig_new(&sc->map, sc->t_min, sc->t_max, budget);
    if (!lf || !ooc_scan_add_sink(sc, &ooc_lanefig_sink, lf))
        return false;
    ooc_bins *bi = ooc_bins_new(budget, sc->t_min, sc->t_max);
    ooc_bins_use_map(bi, &sc->map);
    return bi && ooc_scan_add_sink(sc, &ooc_bins_sink, bi) &&
           ooc_scan_add_flat(sc, &ooc_bins_flat, bi);
}

ooc_sink_lanes_fn ooc_sink_lanes_of(const ooc_sink_ops *ops)
{
    return ops == &ooc_lanefig_sink   ? ooc_lanefig_lanes
           : ops == &ooc_paths_sink   ? ooc_paths_lanes
           : ops == &ooc_slowest_sink ? ooc_slowest_lanes
                                      : NULL;
}
