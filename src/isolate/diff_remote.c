/* diff_remote: one side of a batch comparison built in the loading child
 * (diff_remote.h).
 *
 * Section layout (wire.h primitives): the number of names, each name and
 * its region row's side; the number of paths, then for each path after
 * the root its name, its parent and its side; the samples as one column.
 * A side is present, events, has_calls, calls, known, the DV_COUNT values
 * (bit patterns), off and n.  The reader checks every index and range. */
#include "diff_remote.h"

#include <stdlib.h>
#include <string.h>

#include "model/diff_internal.h"
#include "model/nest.h"
#include "model/sanity.h"

void diff_remote_init(diff_remote *r, const diff_options *o, const region_filter *f)
{
    *r = (diff_remote){.opt = *o, .filter = f, .nests = true};
    r->opt.release_calls = true; /* the child never needs rank_calls */
    r->section = (wire_section){diff_remote_put, diff_remote_get, r};
}

bool diff_remote_ready(const diff_remote *r)
{
    return r && (r->part || r->rc != SV_OK);
}

void diff_remote_free(diff_remote *r)
{
    if (r) {
        diff_free(r->part);
        r->part = NULL;
        r->rc = SV_OK;
    }
}

/* The model the parent still needs once the side is built: what it prints
 * (path, warnings) and the file facts; no ranks. */
static profile *stub_of(profile *p)
{
    profile *s = profile_new(p->path ? p->path : "");
    if (!s)
        return NULL;
    s->file_size = p->file_size;
    s->schema = p->schema;
    s->layout = p->layout;
    s->legacy = p->legacy;
    s->format = p->format;
    s->warnings = p->warnings;
    s->nwarnings = p->nwarnings;
    s->nwarnings_cap = p->nwarnings_cap;
    p->warnings = NULL;
    p->nwarnings = p->nwarnings_cap = 0;
    return s;
}

/* What profile_finish's nesting and the loading child's checks would have
 * done to a profile loaded without them (isolate_options.prepare_nests),
 * in the same order (the same warnings), with the parents and exclusive
 * times of the ranks in scope kept for the walk: one sweep, not two. */
static sv_err nest_side(const diff_result *d, profile *p, diff_nesting *nest, sv_error *err)
{
    const region_filter *f = diff_scope_filter(d);
    size_t cap = 0;
    for (size_t k = 0; k < p->nranks; k++)
        if (filter_match_rank(f, p->ranks[k].rank))
            cap += p->ranks[k].ncalls;
    nest->parent = calloc(p->nranks ? p->nranks : 1, sizeof *nest->parent);
    nest->excl = diff_alloc_big((cap ? cap : 1) * sizeof *nest->excl);
    if (!nest->parent || !nest->excl)
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory (diff)");
    sv_err rc = SV_OK;
    for (size_t k = 0, off = 0; rc == SV_OK && k < p->nranks; k++) {
        rank_data *rk = &p->ranks[k];
        if (!filter_match_rank(f, rk->rank)) {
            rc = nest_rank_totals(rk, err);
            continue;
        }
        nest->parent[k] = diff_alloc_big((rk->ncalls ? rk->ncalls : 1) * sizeof **nest->parent);
        rc = nest->parent[k] ? nest_rank_totals_parents(rk, nest->parent[k], nest->excl + off, err)
                             : sv_error_set(err, SV_ERR_NOMEM, "out of memory (diff)");
        off += rk->ncalls;
    }
    if (rc == SV_OK)
        profile_check_values(p);
    return rc;
}

static void nesting_free(diff_nesting *nest, size_t nranks)
{
    for (size_t k = 0; nest->parent && k < nranks; k++)
        free(nest->parent[k]);
    free(nest->parent);
    free(nest->excl);
}

/* A failure of the nesting is the load's (as in profile_finish); one of
 * the comparison's own step (a rank missing) crosses in the section, after
 * the stub and its warnings, as diff_add's does after an in-process load. */
sv_err diff_remote_prepare(void *ctx, profile **p, sv_error *err)
{
    diff_remote *r = ctx;
    diff_remote_free(r);
    diff_result *d = NULL;
    diff_nesting nest = {0};
    sv_err rc = diff_begin(&r->opt, r->filter, &d, err);
    if (rc == SV_OK && r->nests)
        rc = nest_side(d, *p, &nest, err);
    sv_error derr;
    sv_error_clear(&derr);
    sv_err drc = SV_OK;
    if (rc == SV_OK)
        drc = r->nests ? diff_add_nested(d, DIFF_BASE, *p, &nest, &derr)
                       : diff_add(d, DIFF_BASE, *p, &derr);
    nesting_free(&nest, (*p)->nranks);
    profile *s = rc == SV_OK ? stub_of(*p) : NULL;
    if (rc == SV_OK && !s)
        rc = sv_error_set(err, SV_ERR_NOMEM, "out of memory");
    if (rc != SV_OK || drc != SV_OK)
        diff_free(d);
    if (rc != SV_OK)
        return rc;
    profile_free(*p);
    *p = s;
    if (drc != SV_OK) {
        r->rc = drc;
        r->err = derr;
    } else {
        r->part = d;
    }
    return SV_OK;
}

/* ------------------------------------------------------------ writing */

static void put_side(wire_w *w, const diff_side *s)
{
    wire_put_u64(w, s->present);
    wire_put_u64(w, s->events);
    wire_put_u64(w, s->has_calls);
    wire_put_u64(w, (uint64_t)s->calls);
    wire_put_u64(w, s->known);
    wire_put_bytes(w, s->v, sizeof s->v);
    wire_put_u64(w, s->off);
    wire_put_u64(w, s->n);
}

void diff_remote_put(wire_w *w, void *ctx)
{
    const diff_remote *r = ctx;
    wire_put_u64(w, (uint64_t)r->rc);
    if (r->rc != SV_OK) {
        wire_put_str(w, r->err.msg);
        return;
    }
    const diff_result *d = r->part;
    wire_put_u64(w, d->nnames);
    for (size_t i = 0; i < d->nnames; i++) {
        wire_put_str(w, d->names[i]);
        put_side(w, &d->regions[i].s[0]);
    }
    wire_put_u64(w, d->npaths);
    for (size_t i = 1; i < d->npaths; i++) {
        wire_put_u64(w, d->paths[i].name);
        wire_put_u64(w, d->paths[i].parent);
        put_side(w, &d->paths[i].s[0]);
    }
    wire_put_u64(w, d->nsamples[0]);
    wire_put_col(w, d->samples[0], d->nsamples[0], sizeof(int64_t));
}

/* ------------------------------------------------------------ reading */

/* A side, its range within nsamples checked by the caller. */
static bool get_side(wire_r *r, diff_side *s)
{
    s->present = wire_get_u64(r) != 0;
    s->events = wire_get_u64(r) != 0;
    s->has_calls = wire_get_u64(r) != 0;
    s->calls = (int64_t)wire_get_u64(r);
    uint64_t known = wire_get_u64(r);
    wire_get_bytes(r, s->v, sizeof s->v);
    s->off = (size_t)wire_get_u64(r);
    s->n = (size_t)wire_get_u64(r);
    s->known = (uint32_t)known;
    return wire_get_ok(r) && s->calls >= 0 && known < (1u << DV_COUNT);
}

static bool side_in(const diff_side *s, size_t nsamples)
{
    return s->off <= nsamples && s->n <= nsamples - s->off;
}

static bool get_names(wire_r *r, diff_result *d)
{
    size_t n = wire_get_count(r, sizeof(diff_row));
    if (!wire_get_ok(r) || n >= DIFF_NONE)
        return false;
    d->names = wire_get_alloc(r, n ? n : 1, sizeof *d->names);
    d->regions = wire_get_alloc(r, n ? n : 1, sizeof *d->regions);
    if (!d->names || !d->regions)
        return false;
    for (size_t i = 0; i < n; i++) {
        char *name = wire_get_str(r);
        if (!name)
            return false;
        d->names[d->nnames++] = name;
        d->regions[i] = (diff_row){.name = (uint32_t)i, .parent = DIFF_NONE};
        d->nregions = d->nnames;
        if (!get_side(r, &d->regions[i].s[0]))
            return false;
    }
    return true;
}

static bool get_paths(wire_r *r, diff_result *d)
{
    size_t n = wire_get_count(r, sizeof(diff_row));
    if (!wire_get_ok(r) || n == 0 || n >= DIFF_NONE - 2)
        return false;
    d->paths = wire_get_alloc(r, n, sizeof *d->paths);
    if (!d->paths)
        return false;
    d->paths[0] = (diff_row){.name = DIFF_NONE, .parent = DIFF_NONE};
    d->npaths = 1;
    for (size_t i = 1; i < n; i++) {
        diff_row *p = &d->paths[i];
        uint64_t name = wire_get_u64(r), parent = wire_get_u64(r);
        *p = (diff_row){.name = (uint32_t)name, .parent = (uint32_t)parent};
        /* parents come first: the merge maps them before their children */
        if (!get_side(r, &p->s[0]) || name >= d->nnames || parent >= i)
            return false;
        p->depth = parent ? d->paths[parent].depth + 1 : 0;
        d->npaths = i + 1;
    }
    return true;
}

/* The child's failure instead of a side: its code and message. */
static bool get_failure(wire_r *r, diff_remote *x, uint64_t code)
{
    char *msg = wire_get_str(r);
    bool ok = msg && code <= SV_ERR_USAGE;
    if (ok) {
        sv_error_set(&x->err, (sv_err)code, "%s", msg);
        x->rc = (sv_err)code;
    }
    free(msg);
    return ok;
}

bool diff_remote_get(wire_r *r, void *ctx)
{
    diff_remote *x = ctx;
    diff_remote_free(x);
    uint64_t code = wire_get_u64(r);
    if (!wire_get_ok(r))
        return false;
    if (code != SV_OK)
        return get_failure(r, x, code);
    diff_result *d = calloc(1, sizeof *d);
    if (!d)
        return false;
    bool ok = get_names(r, d) && get_paths(r, d);
    size_t ns = ok ? (size_t)wire_get_u64(r) : 0;
    ok = ok && wire_get_ok(r) && ns <= SIZE_MAX / sizeof(int64_t);
    d->samples[0] = ok ? wire_get_col(r, ns, sizeof(int64_t)) : NULL;
    d->nsamples[0] = d->samples[0] ? ns : 0;
    ok = ok && wire_get_ok(r) && (d->samples[0] || ns == 0);
    for (size_t i = 0; ok && i < d->nregions; i++)
        ok = side_in(&d->regions[i].s[0], d->nsamples[0]);
    for (size_t i = 1; ok && i < d->npaths; i++)
        ok = side_in(&d->paths[i].s[0], d->nsamples[0]);
    if (!ok) {
        diff_free(d);
        return false;
    }
    x->part = d;
    return true;
}

sv_err diff_add_remote(diff_result *d, int side, const char *label, diff_remote *r, sv_error *err)
{
    if (!diff_remote_ready(r))
        return sv_error_set(err, SV_ERR_USAGE, "diff_add_remote: nothing received");
    if (r->rc != SV_OK) {
        sv_err rc = sv_error_set(err, r->rc, "%s", r->err.msg);
        diff_remote_free(r);
        return rc;
    }
    sv_err rc = diff_add_built(d, side, label, r->part, err);
    diff_remote_free(r);
    return rc;
}
