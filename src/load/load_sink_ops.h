/* load_sink_ops: the steps of a sink (load_sink.h) as the loader calls
 * them; the sinks are in load_sink.c.  Inside src/load only. */
#ifndef SV_LOAD_SINK_OPS_H
#define SV_LOAD_SINK_OPS_H

#include "load_columnar_internal.h"
#include "load_sink.h"

typedef struct load_sink_ops {
    /* Step 1: keeps in lf->order the rows the sink wants; false on NOMEM. */
    bool (*rows)(const load_sink *s, lc_file *lf);
    /* Step 2: the kept rows' event columns. */
    sv_err (*columns)(const load_sink *s, ld_ctx *c, hid_t f, const h5u_list *el, lc_file *lf);
    /* Step 1 of schema 1 and native traces, per region: whether the sink
     * wants region name of rank. */
    bool (*owns)(const load_sink *s, int rank, const char *name);
    /* Step 2 of schema 1, per region (not streamed): the sink's own read
     * of group g's columns into t, as ow_load_group; -1: read whole. */
    int (*group)(const load_sink *s, ld_ctx *c, const rank_data *rk, hid_t g, const char *name,
                 h5u_list *l, region *t, sv_err *e);
    /* Schema 1, before rank rk's regions (its thread and task tables
     * read): the sink may stream them (sets c->sg, stream_col.h);
     * SV_ERR_NOMEM. */
    sv_err (*group_stream)(const load_sink *s, ld_ctx *c, const rank_data *rk);
    /* Step 4: the file's end, its columns still open. */
    sv_err (*file_end)(const load_sink *s, ld_ctx *c, lc_file *lf);
    /* Step 5: the model's last steps. */
    sv_err (*finish)(const load_sink *s, ld_ctx *c, sv_error *err);
} load_sink_ops;

/* The model's step 2: every kept row's columns read whole (load_columnar.c). */
sv_err lc_columns_model(ld_ctx *c, hid_t f, const h5u_list *el, lc_file *lf);

#endif
