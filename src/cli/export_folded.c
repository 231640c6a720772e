/* export_folded: folded stacks, "main;timestep;solve 123456": one line per distinct call
 * path, its weight the path's own (exclusive) time in integer ns, so that a consumer's frame
 * widths (flamegraph.pl, inferno, speedscope) are the paths' inclusive times.
 *
 * Paths follow the parent links of the rank's nesting (profile_ensure_calls), as the call
 * tree merges them (calltree.c): a call of a region the filter rejects hangs its callees on
 * its nearest kept ancestor, recursion is not folded (fib;fib;fib), and every rank adds into
 * one tree unless the rank is the first frame (--folded-ranks).  A call's weight is its
 * span inside the range less the union of its callees' spans inside it: without a range,
 * the model's exclusive time.  Lines come depth first, callees by name, so the output is
 * the same on every run; a path whose own time is 0 (all of it in its callees) is not
 * written, its callees' lines carry it.  Names are escaped as for any text output, and a
 * ';' in a name, which would split the frame, is written as ':'.
 *
 * Out of core (a skeleton whose cpaths the loading child's sweep summed, callpaths.h) the
 * same tree is built from the call paths instead of the calls: a path is a region under its
 * parent path, its exclusive total the sum of its calls' own times, so the lines are the
 * same bytes.  A range is then allowed only when it holds every call whole (each call's
 * own time unchanged); a narrower one needs the single calls. */
#include <stdlib.h>
#include <string.h>

#include "export_internal.h"
#include "model/callpaths.h"
#include "model/select.h"
#include "util/checked.h"
#include "util/hash.h"
#include "util/text.h"

#define FN_NONE UINT32_MAX
#define FN_UNSET (UINT32_MAX - 1)

typedef struct fnode {
    uint32_t parent, name; /* name >= nnames: the rank frame of rank index name - nnames */
    int64_t w;
} fnode;

typedef struct fold_ctx {
    const profile *p;
    const region_filter *f;
    int64_t lo, hi;
    char **names; /* escaped, ';' replaced; nnames region names then nranks "rank N" */
    const char **raw;
    size_t nnames;
    bool ranks; /* a root frame per rank */
    fnode *nodes;
    size_t n, cap;
    uint32_t *hash;
    size_t hcap;
    sv_error *err;
} fold_ctx;

/* ------------------------------------------------------------------ nodes */

static size_t slot(const fold_ctx *c, uint32_t parent, uint32_t name)
{
    size_t mask = c->hcap - 1;
    size_t h = (size_t)sv_hash_u64(((uint64_t)parent << 32) | name) & mask;
    while (c->hash[h] != FN_NONE &&
           (c->nodes[c->hash[h]].parent != parent || c->nodes[c->hash[h]].name != name))
        h = (h + 1) & mask;
    return h;
}

static bool grow(fold_ctx *c)
{
    if (c->n == c->cap) {
        size_t nc = c->cap ? c->cap * 2 : 256;
        fnode *nn = realloc(c->nodes, nc * sizeof *nn);
        if (!nn)
            return false;
        c->nodes = nn;
        c->cap = nc;
    }
    if ((c->n + 1) * 2 <= c->hcap)
        return true;
    size_t nh = c->hcap ? c->hcap * 2 : 1024;
    uint32_t *h = malloc(nh * sizeof *h);
    if (!h)
        return false;
    memset(h, 0xff, nh * sizeof *h);
    free(c->hash);
    c->hash = h;
    c->hcap = nh;
    for (size_t i = 1; i < c->n; i++)
        c->hash[slot(c, c->nodes[i].parent, c->nodes[i].name)] = (uint32_t)i;
    return true;
}

static uint32_t intern(fold_ctx *c, uint32_t parent, uint32_t name)
{
    size_t h = slot(c, parent, name);
    if (c->hash[h] != FN_NONE)
        return c->hash[h];
    if (c->n >= FN_UNSET - 1 || !grow(c))
        return FN_NONE;
    h = slot(c, parent, name);
    c->nodes[c->n] = (fnode){parent, name, 0};
    c->hash[h] = (uint32_t)c->n;
    return (uint32_t)c->n++;
}

/* ------------------------------------------------------------------ names */

static int cmp_raw(const void *key, const void *elem)
{
    return strcmp((const char *)key, *(const char *const *)elem);
}

static char *escaped_frame(const char *s)
{
    strbuf b;
    sb_init(&b);
    text_escape(&b, s, SIZE_MAX);
    for (size_t i = 0; i < b.len; i++)
        if (b.s[i] == ';')
            b.s[i] = ':';
    if (!b.s && !b.oom)
        sb_puts(&b, "");
    return b.oom ? (sb_free(&b), NULL) : sb_take(&b);
}

static sv_err build_names(fold_ctx *c)
{
    const profile *p = c->p;
    region **v = profile_regions_by_name(p);
    c->raw = malloc((p->nregions ? p->nregions : 1) * sizeof *c->raw);
    c->names = calloc(p->nregions + p->nranks + 1, sizeof *c->names);
    bool ok = v && c->raw && c->names;
    for (size_t i = 0; ok && i < p->nregions; i++)
        if (!c->nnames || strcmp(c->raw[c->nnames - 1], v[i]->name) != 0)
            c->raw[c->nnames++] = v[i]->name;
    free(v);
    for (size_t i = 0; ok && i < c->nnames; i++)
        ok = (c->names[i] = escaped_frame(c->raw[i])) != NULL;
    for (size_t k = 0; ok && k < p->nranks; k++) {
        char buf[32];
        snprintf(buf, sizeof buf, "rank %d", p->ranks[k].rank);
        ok = (c->names[c->nnames + k] = strdup(buf)) != NULL;
    }
    return ok ? SV_OK : sv_error_set(c->err, SV_ERR_NOMEM, "out of memory");
}

static uint32_t name_id(const fold_ctx *c, const char *name)
{
    const char **hit = bsearch(name, c->raw, c->nnames, sizeof *c->raw, cmp_raw);
    return hit ? (uint32_t)(hit - c->raw) : 0;
}

/* ------------------------------------------------------------------ one rank */

typedef struct fold_rank {
    const rank_data *rk;
    uint32_t *cname; /* name id, FN_NONE when the call is not written */
    uint32_t *eff;   /* node of the call, or of its nearest written ancestor */
    uint32_t *stack;
    uint32_t base; /* the rank's root node */
} fold_rank;

static bool in_range(const fold_ctx *c, int64_t s, int64_t e)
{
    return e > s ? s < c->hi && e > c->lo : s >= c->lo && s < c->hi;
}

static void mark(fold_ctx *c, fold_rank *fr)
{
    const rank_data *rk = fr->rk;
    for (size_t j = 0; j < rk->nregions; j++) {
        const region *r = rk->regions[j];
        bool keep = filter_match(c->f, r);
        uint32_t id = name_id(c, r->name);
        for (size_t i = 0; i < r->n; i++) {
            size_t g = r->gidx0 + i;
            fr->eff[g] = FN_UNSET;
            fr->cname[g] = keep && in_range(c, r->start_ns[i], r->end_ns[i]) ? id : FN_NONE;
        }
    }
}

/* Walks up from g to the first call whose node is known, then down: each call once. */
static bool resolve(fold_ctx *c, fold_rank *fr, uint32_t g)
{
    const int32_t *parent = fr->rk->calls->parent;
    size_t k = 0;
    int64_t x = g;
    while (x >= 0 && fr->eff[x] == FN_UNSET) {
        fr->stack[k++] = (uint32_t)x;
        x = parent[x];
    }
    uint32_t base = x < 0 ? fr->base : fr->eff[x];
    while (k) {
        uint32_t y = fr->stack[--k];
        if (fr->cname[y] != FN_NONE && (base = intern(c, base, fr->cname[y])) == FN_NONE)
            return false;
        fr->eff[y] = base;
    }
    return true;
}

/* g's span in [lo, hi) less the union of its callees' spans there. */
static int64_t own_time(const fold_ctx *c, const rank_data *rk, uint32_t g)
{
    int64_t s, e;
    lanes_call_span(rk, g, &s, &e);
    int64_t lo = s > c->lo ? s : c->lo, hi = e < c->hi ? e : c->hi, covered = 0, reach = lo;
    const uint32_t *kids = NULL;
    size_t nk = rank_call_children(rk, g, &kids);
    for (size_t k = 0; k < nk; k++) {
        int64_t ks, ke;
        lanes_call_span(rk, kids[k], &ks, &ke);
        int64_t a = ks > reach ? ks : reach, b = ke < hi ? ke : hi;
        if (b > a) {
            covered += b - a;
            reach = b;
        }
    }
    return hi > lo + covered ? hi - lo - covered : 0;
}

static sv_err fold_rank_calls(fold_ctx *c, size_t k)
{
    const rank_data *rk = &c->p->ranks[k];
    size_t n = rk->calls ? rk->calls->n : 0;
    if (n == 0)
        return SV_OK;
    fold_rank fr = {.rk = rk, .base = 0};
    fr.cname = malloc(n * sizeof *fr.cname);
    fr.eff = malloc(n * sizeof *fr.eff);
    fr.stack = malloc(n * sizeof *fr.stack);
    bool ok = fr.cname && fr.eff && fr.stack;
    if (ok) {
        mark(c, &fr);
        if (c->ranks)
            ok = (fr.base = intern(c, 0, (uint32_t)(c->nnames + k))) != FN_NONE;
    }
    for (size_t g = 0; ok && g < n; g++)
        if (fr.eff[g] == FN_UNSET)
            ok = resolve(c, &fr, (uint32_t)g);
    for (size_t g = 0; ok && g < n; g++)
        if (fr.cname[g] != FN_NONE)
            c->nodes[fr.eff[g]].w = ck_add(c->nodes[fr.eff[g]].w, own_time(c, rk, (uint32_t)g));
    free(fr.cname);
    free(fr.eff);
    free(fr.stack);
    return ok ? SV_OK : sv_error_set(c->err, SV_ERR_NOMEM, "out of memory (folded stacks)");
}

/* ------------------------------------------------------------------ from call paths */

/* A rank's paths as fold_rank_calls folds its calls: a path of a region the filter rejects
 * hangs its children on its parent's node and its own time is dropped; parents come before
 * their children. */
static sv_err fold_rank_paths(fold_ctx *c, size_t k, const cpath_rank *cr)
{
    const rank_data *rk = &c->p->ranks[k];
    if (cr->n == 0)
        return SV_OK;
    uint32_t *eff = malloc(cr->n * sizeof *eff), base = 0;
    bool ok = eff != NULL;
    if (ok && c->ranks)
        ok = (base = intern(c, 0, (uint32_t)(c->nnames + k))) != FN_NONE;
    for (size_t i = 0; ok && i < cr->n; i++) {
        const cpath *cp = &cr->v[i];
        const region *r = rk->regions[cp->region];
        eff[i] = cp->parent == CP_ROOT ? base : eff[cp->parent];
        if (!filter_match(c->f, r))
            continue;
        ok = (eff[i] = intern(c, eff[i], name_id(c, r->name))) != FN_NONE;
        if (ok)
            c->nodes[eff[i]].w = ck_add(c->nodes[eff[i]].w, cp->excl_ns);
    }
    free(eff);
    return ok ? SV_OK : sv_error_set(c->err, SV_ERR_NOMEM, "out of memory (folded stacks)");
}

static const cpath_rank *paths_of(const call_paths *cp, size_t k)
{
    for (size_t i = 0; i < cp->nranks; i++)
        if (cp->ranks[i].rank_index == k)
            return &cp->ranks[i];
    return NULL;
}

/* Whether [lo, hi) holds every call of p whole, so that the paths' totals are the range's. */
static bool range_holds_all(const fold_ctx *c)
{
    const profile *p = c->p;
    for (size_t i = 0; i < p->nregions; i++) {
        const region_stats *st = &p->regions[i]->st;
        if (st->num_calls > 0 && (st->first_start_ns < c->lo || st->last_end_ns >= c->hi))
            return false;
    }
    return true;
}

/* Why the paths cannot give the lines (err set), or SV_OK. */
static sv_err paths_usable(const fold_ctx *c)
{
    char name[256];
    text_escape_buf(name, sizeof name, c->p->path ? c->p->path : "");
    if (!c->p->cpaths->available)
        return sv_error_set(c->err, SV_ERR_NO_EVENT_DATA, "%s: out of core: %s", name,
                            c->p->cpaths->why);
    if ((c->lo > INT64_MIN || c->hi < INT64_MAX) && !range_holds_all(c))
        return sv_error_set(c->err, SV_ERR_RANGE,
                            "%s: out of core, folded stacks of a time range (--from, --to) need "
                            "the calls in memory; a range holding every call is allowed",
                            name);
    return SV_OK;
}

/* ------------------------------------------------------------------ output */

typedef struct fold_out {
    uint32_t *off, *child; /* children of node i: child[off[i] .. off[i + 1]) */
} fold_out;

static sv_err build_children(const fold_ctx *c, fold_out *o)
{
    o->off = calloc(c->n + 1, sizeof *o->off);
    o->child = malloc((c->n ? c->n : 1) * sizeof *o->child);
    if (!o->off || !o->child)
        return sv_error_set(c->err, SV_ERR_NOMEM, "out of memory (folded stacks)");
    for (size_t i = 1; i < c->n; i++)
        o->off[c->nodes[i].parent + 1]++;
    for (size_t i = 0; i < c->n; i++)
        o->off[i + 1] += o->off[i];
    uint32_t *cur = malloc((c->n ? c->n : 1) * sizeof *cur);
    if (!cur)
        return sv_error_set(c->err, SV_ERR_NOMEM, "out of memory (folded stacks)");
    memcpy(cur, o->off, c->n * sizeof *cur);
    for (size_t i = 1; i < c->n; i++)
        o->child[cur[c->nodes[i].parent]++] = (uint32_t)i;
    free(cur);
    return SV_OK;
}

/* Families by name: region names by their bytes, rank frames by rank (their ids are in
 * rank order and come after every region name). */
static void sort_family(const fold_ctx *c, uint32_t *v, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        uint32_t x = v[i];
        size_t j = i;
        while (j > 0) {
            uint32_t a = c->nodes[v[j - 1]].name, b = c->nodes[x].name;
            bool after =
                a >= c->nnames || b >= c->nnames ? a > b : strcmp(c->raw[a], c->raw[b]) > 0;
            if (!after)
                break;
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
}

typedef struct dfs_frame {
    uint32_t node, next;
    size_t len; /* path length before this node's frame */
} dfs_frame;

static sv_err write_lines(const fold_ctx *c, const fold_out *o, FILE *fp)
{
    strbuf path, line;
    sb_init(&path);
    sb_init(&line);
    dfs_frame *st = malloc((c->n ? c->n : 1) * sizeof *st);
    if (!st)
        return sv_error_set(c->err, SV_ERR_NOMEM, "out of memory (folded stacks)");
    size_t sp = 0;
    st[sp++] = (dfs_frame){0, o->off[0], 0};
    sv_err rc = SV_OK;
    while (sp > 0 && rc == SV_OK) {
        dfs_frame *top = &st[sp - 1];
        if (top->next == o->off[top->node + 1]) {
            sp--;
            continue;
        }
        uint32_t kid = o->child[top->next++];
        size_t len = path.len;
        if (len)
            sb_putc(&path, ';');
        sb_puts(&path, c->names[c->nodes[kid].name]);
        if (c->nodes[kid].w > 0) {
            sb_putn(&line, path.s, path.len);
            sb_printf(&line, " %lld\n", (long long)c->nodes[kid].w);
            if (line.len >= EXPORT_FLUSH_AT)
                rc = export_flush(&line, fp, c->err);
        }
        st[sp++] = (dfs_frame){kid, o->off[kid], len};
        /* Leaving a node cuts the path back to its parent's. */
        while (sp > 1 && st[sp - 1].next == o->off[st[sp - 1].node + 1]) {
            path.len = st[sp - 1].len;
            if (path.s)
                path.s[path.len] = '\0';
            sp--;
        }
    }
    if (rc == SV_OK)
        rc = path.oom ? sv_error_set(c->err, SV_ERR_NOMEM, "out of memory (folded stacks)")
                      : export_flush(&line, fp, c->err);
    free(st);
    sb_free(&path);
    sb_free(&line);
    return rc;
}

sv_err export_folded(profile *p, const region_filter *f, const export_request *req, FILE *fp,
                     sv_error *err)
{
    int64_t zero = export_zero(p);
    fold_ctx c = {
        .p = p, .f = f, .lo = INT64_MIN, .hi = INT64_MAX, .ranks = req->folded_ranks, .err = err};
    if (req->range.has_from)
        c.lo = ck_add(zero, req->range.from_ns);
    if (req->range.has_to)
        c.hi = ck_add(zero, req->range.to_ns);
    sv_err rc = p->cpaths ? paths_usable(&c) : profile_ensure_calls(p, err);
    if (rc == SV_OK)
        rc = build_names(&c);
    if (rc == SV_OK && !grow(&c))
        rc = sv_error_set(err, SV_ERR_NOMEM, "out of memory");
    if (rc == SV_OK) {
        c.nodes[0] = (fnode){FN_NONE, FN_NONE, 0}; /* the root */
        c.n = 1;
    }
    for (size_t k = 0; rc == SV_OK && k < p->nranks; k++)
        if (filter_match_rank(f, p->ranks[k].rank)) {
            const cpath_rank *cr = p->cpaths ? paths_of(p->cpaths, k) : NULL;
            rc = !p->cpaths ? fold_rank_calls(&c, k) : cr ? fold_rank_paths(&c, k, cr) : SV_OK;
        }
    fold_out o = {NULL, NULL};
    if (rc == SV_OK)
        rc = build_children(&c, &o);
    for (size_t i = 0; rc == SV_OK && i < c.n; i++)
        sort_family(&c, o.child + o.off[i], o.off[i + 1] - o.off[i]);
    if (rc == SV_OK)
        rc = write_lines(&c, &o, fp);
    free(o.off);
    free(o.child);
    for (size_t i = 0; c.names && i < c.nnames + p->nranks; i++)
        free(c.names[i]);
    free(c.names);
    free(c.raw);
    free(c.nodes);
    free(c.hash);
    return rc;
}
