/* timeline: what the timeline view lends the other views. */
#ifndef SV_TIMELINE_H
#define SV_TIMELINE_H

#include "model/lanes.h"
#include "ui/ui.h"

/* The timeline's index of every call in memory, shared (lanes_share: the
 * caller lanes_free()s it), when the timeline has built it with no filter
 * on the search; NULL otherwise (out of core, filtered, not built yet). */
lanes_index *timeline_shared_index(ui_ctx *ctx);

#endif
