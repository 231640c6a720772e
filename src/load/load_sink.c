/* load_sink: the sinks a load hands its rows to (load_sink.h): the model,
 * an MPI part, an out-of-core window, the streamed statistics. */
#include "load_sink_ops.h"
#include "load_rows.h"
#include "load_window.h"
#include "stream_col_internal.h"
#include "model/budget.h"

static bool rows_all(const load_sink *s, lc_file *lf)
{
    (void)s;
    (void)lf;
    return true;
}

static bool owns_all(const load_sink *s, int rank, const char *name)
{
    (void)s;
    (void)rank;
    (void)name;
    return true;
}

static int group_whole(const load_sink *s, ld_ctx *c, const rank_data *rk, hid_t g,
                       const char *name, h5u_list *l, region *t, sv_err *e)
{
    (void)s, (void)c, (void)rk, (void)g, (void)name, (void)l, (void)t, (void)e;
    return -1;
}

static sv_err group_in_memory(const load_sink *s, ld_ctx *c, const rank_data *rk)
{
    (void)s;
    (void)c;
    (void)rk;
    return SV_OK;
}

static sv_err columns_model(const load_sink *s, ld_ctx *c, hid_t f, const h5u_list *el, lc_file *lf)
{
    (void)s;
    return lc_columns_model(c, f, el, lf);
}

static sv_err end_none(const load_sink *s, ld_ctx *c, lc_file *lf)
{
    (void)s;
    (void)c;
    (void)lf;
    return SV_OK;
}

static sv_err finish_as(load_finish fin, profile *p, sv_error *err)
{
    switch (fin) {
    case LOAD_FINISH_NO_NEST:
        return profile_finish_steps(p, true, false, err);
    case LOAD_FINISH_NONE:
        return profile_finish_steps(p, false, false, err);
    case LOAD_FINISH_ALL:
        break;
    }
    return profile_finish(p, err);
}

static sv_err finish_model(const load_sink *s, ld_ctx *c, sv_error *err)
{
    return finish_as(s->finish, c->p, err);
}

static const load_sink_ops model_ops = {rows_all,        columns_model, owns_all,    group_whole,
                                        group_in_memory, end_none,      finish_model};

load_sink load_sink_model(load_finish fin)
{
    return (load_sink){.ops = &model_ops, .finish = fin};
}

/* --- an MPI part --- */

static bool rows_part(const load_sink *s, lc_file *lf)
{
    lf->share = true;
    return lc_partition(lf, s->part);
}

static bool owns_part(const load_sink *s, int rank, const char *name)
{
    return load_part_owns(s->part, rank, name);
}

static const load_sink_ops part_ops = {rows_part,       columns_model, owns_part,   group_whole,
                                       group_in_memory, end_none,      finish_model};

load_sink load_sink_part(const struct load_part *pt)
{
    return (load_sink){.ops = &part_ops, .finish = LOAD_FINISH_NO_NEST, .part = pt};
}

/* --- an out-of-core window --- */

static sv_err columns_window(const load_sink *s, ld_ctx *c, hid_t f, const h5u_list *el,
                             lc_file *lf)
{
    return ow_stage_columnar(c, s->window, f, el, lf);
}

static int group_window(const load_sink *s, ld_ctx *c, const rank_data *rk, hid_t g,
                        const char *name, h5u_list *l, region *t, sv_err *e)
{
    return ow_load_group(c, s->window, rk, g, name, l, t, e);
}

static const load_sink_ops window_ops = {rows_all,        columns_window, owns_all,    group_window,
                                         group_in_memory, end_none,       finish_model};

load_sink load_sink_window(const struct ooc_plan *plan)
{
    /* a window's statistics are never shown (ooc.h) */
    return (load_sink){.ops = &window_ops, .finish = LOAD_FINISH_NONE, .window = plan};
}

/* --- the streamed statistics --- */

static sv_err columns_stream(const load_sink *s, ld_ctx *c, hid_t f, const h5u_list *el,
                             lc_file *lf)
{
    if (!sc_wanted(c, s->stream, f, lf, el))
        return lc_columns_model(c, f, el, lf);
    sv_err e = sc_stage(c, f, el, lf);
    if (lf->sc) {
        lf->sc->stats_later = s->stats_later;
        lf->sc->declined = s->stream == LOAD_STREAM_PREFER ? s->declined : NULL;
    }
    return e;
}

/* Schema 1 meets its columns one region at a time: streamed when forced
 * (a failed load tells the caller to force it) or preferred for this rank
 * (sg_prefer).  The out-of-core viewer's pass maps columnar files only:
 * schema 1 is then loaded in memory for it (ooc_open.c). */
static sv_err group_stream(const load_sink *s, ld_ctx *c, const rank_data *rk)
{
    bool prefer = s->stream == LOAD_STREAM_PREFER;
    if ((s->stream != LOAD_STREAM_FORCE && !(prefer && sg_prefer(c, rk))) || s->pass || c->sg)
        return SV_OK;
    if (!(c->sg = sg_new(c)))
        return SV_ERR_NOMEM;
    c->sg->stats_later = s->stats_later;
    c->sg->declined = prefer ? s->declined : NULL;
    return SV_OK;
}

static sv_err end_stream(const load_sink *s, ld_ctx *c, lc_file *lf)
{
    load_pass_at at = {LOAD_PASS_END, NULL, NULL, 0, false};
    return lf->sc && s->pass ? s->pass(s->pass_ctx, c, lf, &at) : SV_OK;
}

/* A streamed load nested its ranks as it read them. */
static sv_err finish_stream(const load_sink *s, ld_ctx *c, sv_error *err)
{
    return finish_as(c->streamed ? LOAD_FINISH_NO_NEST : s->finish, c->p, err);
}

static const load_sink_ops stream_ops = {rows_all,     columns_stream, owns_all,     group_whole,
                                         group_stream, end_stream,     finish_stream};

load_sink load_sink_stream(int how, load_finish fin)
{
    return (load_sink){.ops = &stream_ops, .finish = fin, .stream = how};
}

bool load_sink_retry(load_sink *s, sv_err e, const load_budget *b)
{
    if (e != SV_ERR_NOMEM)
        return false;
    /* Preferred, it ends as AUTO would have: declined or over the budget, it runs as AUTO. */
    if (s->stream == LOAD_STREAM_PREFER && ((s->declined && *s->declined) || b->exceeded)) {
        if (s->declined)
            *s->declined = false;
        s->stream = LOAD_STREAM_AUTO;
        return true;
    }
    if (b->exceeded && s->stream == LOAD_STREAM_AUTO) {
        s->stream = LOAD_STREAM_FORCE;
        return true;
    }
    return false;
}

const load_sink *ld_sink(const ld_ctx *c)
{
    static const load_sink model = {.ops = &model_ops, .finish = LOAD_FINISH_ALL};
    return c->opt && c->opt->sink ? c->opt->sink : &model;
}
