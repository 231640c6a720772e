/* calls: view 4, every call of the selected region (the drill-down). */
#ifndef SV_CALLS_H
#define SV_CALLS_H

#include "view.h"

extern const view_ops calls_view;

/* Selects (ui_select_call) the slowest call of the selected region on its
 * slowest rank: the rank where the region's total time is largest (ties:
 * the lowest rank), then that rank's longest call (ties: the first
 * recorded).  Without a selected region it takes the region with the
 * largest total time.  Says what it did in the status line; the caller
 * decides which view shows the call. */
void calls_jump_slowest(ui_ctx *ctx);

#endif
