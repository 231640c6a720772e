/* series_ooc: the duration-over-time view (series.c) out of core, drawn
 * from the loading child's time bins (model/tbins.h, profile.tbins) since
 * no call is held: per dot column the min, mean and max of the calls
 * starting in its bins (a median is not exact from a stream: none is
 * drawn), the p50 / p95 lines from the region's own exact statistics when
 * the series is one rank's, the warm-up against the mean of the rest, the
 * drift between the first and the last tenth of its bins, the outliers
 * above the p99 only when the bins count them exactly. */
#ifndef SV_SERIES_OOC_H
#define SV_SERIES_OOC_H

#include <stdbool.h>

#include "ui/view.h"

typedef struct sero sero;

sero *sero_new(void);
void sero_free(sero *s);
/* Draws the series of region name (rank >= 0: that rank, else every rank
 * the filter keeps) in a. */
void sero_draw(sero *s, ui_ctx *ctx, rect a, const char *name, int rank, bool log);
/* The cursor keys and Enter; 0 when not handled. */
int sero_cmd(sero *s, ui_ctx *ctx, ui_cmd cmd);

#endif
