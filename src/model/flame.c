/* flame: flame graph frames from the call tree or a comparison, and their
 * layout (flame.h). */
#include "flame.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/checked.h"
#include "util/hash.h"

/* The inverted graph walks every path up to the root: on a profile whose
 * paths are this many levels deep in all, it says so instead of stalling. */
#define FLAME_INVERT_STEPS_MAX ((uint64_t)64 << 20)

static sv_err nomem(sv_error *err)
{
    return sv_error_set(err, SV_ERR_NOMEM, "out of memory (flame graph)");
}

static flame *flame_alloc(size_t cap)
{
    flame *f = calloc(1, sizeof *f);
    if (f && !(f->nodes = malloc((cap ? cap : 1) * sizeof *f->nodes))) {
        free(f);
        return NULL;
    }
    return f;
}

void flame_free(flame *f)
{
    if (!f)
        return;
    calltree_free(f->tree);
    free(f->nodes);
    free(f->child_off);
    free(f->child);
    free(f->names);
    free(f->reps);
    free(f);
}

/* ------------------------------------------------------------ children */

typedef struct sort_item {
    uint32_t parent, node, name;
    int64_t key, first;
} sort_item;

static int cmp_item(const void *a, const void *b)
{
    const sort_item *x = a, *y = b;
    if (x->parent != y->parent)
        return x->parent < y->parent ? -1 : 1;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    if (x->first != y->first)
        return x->first < y->first ? -1 : 1;
    if (x->name != y->name)
        return x->name < y->name ? -1 : 1;
    return (x->node > y->node) - (x->node < y->node);
}

void flame_sort(flame *f, flame_order order)
{
    size_t m = f->n > 1 ? f->n - 1 : 0;
    sort_item *v = malloc((m ? m : 1) * sizeof *v);
    if (!v)
        return; /* the order stays as it was: still a correct graph */
    for (size_t i = 1; i < f->n; i++) {
        const flame_node *nd = &f->nodes[i];
        /* heaviest first: the key is the negated weight (weights are >= 0) */
        v[i - 1] = (sort_item){nd->parent, (uint32_t)i, nd->name,
                               order == FLAME_ORDER_HEAVY ? -nd->weight : 0, nd->first};
    }
    qsort(v, m, sizeof *v, cmp_item);
    /* the items are grouped by parent in child_off's order of families */
    for (size_t k = 0; k < m; k++)
        f->child[k] = v[k].node;
    free(v);
}

static sv_err build_children(flame *f, sv_error *err)
{
    f->child_off = calloc(f->n + 1, sizeof *f->child_off);
    f->child = malloc((f->n > 1 ? f->n - 1 : 1) * sizeof *f->child);
    if (!f->child_off || !f->child)
        return nomem(err);
    for (size_t i = 1; i < f->n; i++)
        f->child_off[f->nodes[i].parent + 1]++;
    for (size_t i = 0; i < f->n; i++)
        f->child_off[i + 1] += f->child_off[i];
    flame_sort(f, FLAME_ORDER_FIRST);
    return SV_OK;
}

/* ---------------------------------------------------------- from a tree */

static sv_err take_names(flame *f, const calltree *t, sv_error *err)
{
    f->nnames = t->nnames;
    f->names = malloc((t->nnames ? t->nnames : 1) * sizeof *f->names);
    f->reps = malloc((t->nnames ? t->nnames : 1) * sizeof *f->reps);
    if (!f->names || !f->reps)
        return nomem(err);
    for (size_t i = 0; i < t->nnames; i++) {
        f->names[i] = t->names[i].name;
        f->reps[i] = t->names[i].rep;
    }
    return SV_OK;
}

static void top_down(flame *f, const calltree *t)
{
    for (size_t i = 0; i < t->n; i++) {
        const ct_node *c = &t->nodes[i];
        f->nodes[i] = (flame_node){.name = c->name,
                                   .parent = c->parent == CT_NONE ? FLAME_NONE : c->parent,
                                   .depth = i ? c->depth + 1 : 0,
                                   .weight = c->incl_ns,
                                   .self = i ? c->excl_ns : 0,
                                   .calls = i ? calltree_node_calls(t, (uint32_t)i) : t->ncalls,
                                   .first = c->first_ns,
                                   .diff_path = FLAME_NONE};
    }
    f->n = t->n;
}

typedef struct inv_build {
    flame *f;
    size_t cap;
    uint32_t *hash; /* node indices, FLAME_NONE empty; hcap a power of two */
    size_t hcap;
} inv_build;

static size_t inv_slot(const inv_build *b, uint32_t parent, uint32_t name)
{
    size_t mask = b->hcap - 1;
    size_t h = (size_t)sv_hash_u64(((uint64_t)parent << 32) | name) & mask;
    while (b->hash[h] != FLAME_NONE) {
        const flame_node *nd = &b->f->nodes[b->hash[h]];
        if (nd->parent == parent && nd->name == name)
            break;
        h = (h + 1) & mask;
    }
    return h;
}

static bool inv_grow(inv_build *b)
{
    flame *f = b->f;
    if (f->n == b->cap) {
        size_t nc = b->cap * 2;
        flame_node *nn = realloc(f->nodes, nc * sizeof *nn);
        if (!nn)
            return false;
        f->nodes = nn;
        b->cap = nc;
    }
    if ((f->n + 1) * 2 <= b->hcap)
        return true;
    size_t hc = b->hcap ? b->hcap * 2 : 1024;
    uint32_t *nh = malloc(hc * sizeof *nh);
    if (!nh)
        return false;
    memset(nh, 0xff, hc * sizeof *nh);
    free(b->hash);
    b->hash = nh;
    b->hcap = hc;
    for (size_t i = 1; i < f->n; i++)
        b->hash[inv_slot(b, f->nodes[i].parent, f->nodes[i].name)] = (uint32_t)i;
    return true;
}

static uint32_t inv_intern(inv_build *b, uint32_t parent, uint32_t name)
{
    size_t h = inv_slot(b, parent, name);
    if (b->hash[h] != FLAME_NONE)
        return b->hash[h];
    if (b->f->n >= FLAME_NONE - 1 || !inv_grow(b))
        return FLAME_NONE;
    h = inv_slot(b, parent, name);
    flame *f = b->f;
    uint32_t k = (uint32_t)f->n++;
    f->nodes[k] = (flame_node){.name = name,
                               .parent = parent,
                               .depth = f->nodes[parent].depth + 1,
                               .first = INT64_MAX,
                               .diff_path = FLAME_NONE};
    b->hash[h] = k;
    return k;
}

static void inv_add(flame_node *nd, const ct_node *c, int64_t calls)
{
    nd->weight = ck_add(nd->weight, c->excl_ns);
    nd->self = nd->weight;
    nd->calls += calls;
    if (c->first_ns < nd->first)
        nd->first = c->first_ns;
}

/* Each call path of the tree, read from its leaf up, adds its exclusive
 * time to every frame of the reversed path. */
static sv_err inverted(flame *f, const calltree *t, sv_error *err)
{
    uint64_t steps = 0;
    for (size_t i = 1; i < t->n; i++)
        steps += t->nodes[i].depth + 1;
    if (steps > FLAME_INVERT_STEPS_MAX)
        return sv_error_set(err, SV_ERR_NOMEM,
                            "the inverted graph would walk %llu frames of call paths (at most "
                            "%llu): too deep",
                            (unsigned long long)steps, (unsigned long long)FLAME_INVERT_STEPS_MAX);
    inv_build b = {.f = f, .cap = t->n ? t->n : 1};
    if (!inv_grow(&b)) /* the first hash table */
        return nomem(err);
    f->nodes[0] = (flame_node){.parent = FLAME_NONE,
                               .calls = t->ncalls,
                               .first = t->nodes[0].first_ns,
                               .diff_path = FLAME_NONE};
    f->n = 1;
    sv_err e = SV_OK;
    for (size_t i = 1; !e && i < t->n; i++) {
        const ct_node *c = &t->nodes[i];
        int64_t calls = calltree_node_calls(t, (uint32_t)i);
        f->nodes[0].weight = ck_add(f->nodes[0].weight, c->excl_ns);
        uint32_t inv = 0;
        for (uint32_t a = (uint32_t)i; !e && a != 0 && a != CT_NONE; a = t->nodes[a].parent) {
            inv = inv_intern(&b, inv, t->nodes[a].name);
            if (inv == FLAME_NONE)
                e = nomem(err);
            else
                inv_add(&f->nodes[inv], c, calls);
        }
    }
    free(b.hash);
    return e;
}

sv_err flame_build(profile *p, calltree_scope scope, flame_mode mode, const region_filter *filter,
                   flame **out, sv_error *err)
{
    *out = NULL;
    calltree *t = NULL;
    sv_err e = calltree_build(p, scope, false, filter, &t, err);
    if (e)
        return e;
    flame *f = flame_alloc(t->n);
    if (!f) {
        calltree_free(t);
        return nomem(err);
    }
    f->tree = t;
    f->mode = mode == FLAME_INVERTED ? FLAME_INVERTED : FLAME_TOP_DOWN;
    f->scope = scope;
    e = take_names(f, t, err);
    if (!e && f->mode == FLAME_INVERTED)
        e = inverted(f, t, err);
    else if (!e)
        top_down(f, t);
    if (!e)
        e = build_children(f, err);
    if (e) {
        flame_free(f);
        return e;
    }
    *out = f;
    return SV_OK;
}

/* ---------------------------------------------------------- from a diff */

static int64_t side_total(const diff_row *r, int side)
{
    double v;
    if (!r->s[side].present || !diff_side_value(r, side, DV_TOTAL, &v) || !(v > 0))
        return 0;
    return v >= 9.2e18 ? INT64_MAX : (int64_t)llround(v);
}

static flame_node diff_node(const diff_result *d, uint32_t path, uint32_t parent, uint32_t depth)
{
    const diff_row *r = &d->paths[path];
    double excl = 0;
    bool has_excl = diff_side_value(r, DIFF_NEW, DV_EXCL, &excl);
    return (flame_node){.name = r->name == DIFF_NONE ? 0 : r->name,
                        .parent = parent,
                        .depth = depth,
                        .weight = side_total(r, DIFF_NEW),
                        .self = has_excl && excl > 0 ? (int64_t)llround(excl) : 0,
                        .calls = r->s[DIFF_NEW].has_calls ? r->s[DIFF_NEW].calls : 0,
                        .first = INT64_MAX,
                        .base = side_total(r, DIFF_BASE),
                        .flag = (int8_t)r->flag,
                        .state = (uint8_t)r->state,
                        .diff_path = path};
}

/* Walks the comparison's path tree from the root (parents before their
 * children), keeping the paths present in the new run. */
static sv_err diff_walk(flame *f, const diff_result *d, sv_error *err)
{
    uint32_t *stack = malloc((d->npaths ? d->npaths : 1) * 2 * sizeof *stack);
    if (!stack)
        return nomem(err);
    size_t k = 0;
    f->nodes[0] = (flame_node){.parent = FLAME_NONE, .first = INT64_MAX, .diff_path = 0};
    f->n = 1;
    stack[k++] = 0; /* (path, its flame node) pairs */
    stack[k++] = 0;
    while (k) {
        uint32_t node = stack[--k], path = stack[--k];
        for (uint32_t i = d->child_off[path]; i < d->child_off[path + 1]; i++) {
            uint32_t c = d->child[i];
            if (d->paths[c].state == DS_GONE)
                continue; /* nor its subtree: every path under it is gone too */
            uint32_t id = (uint32_t)f->n++;
            f->nodes[id] = diff_node(d, c, node, f->nodes[node].depth + 1);
            if (node == 0) {
                f->nodes[0].weight = ck_add(f->nodes[0].weight, f->nodes[id].weight);
                f->nodes[0].base = ck_add(f->nodes[0].base, f->nodes[id].base);
                f->nodes[0].calls += f->nodes[id].calls;
            }
            stack[k++] = c;
            stack[k++] = id;
        }
    }
    free(stack);
    return SV_OK;
}

/* Paths under a gone path, which diff_walk skips with it. */
static size_t gone_below(const diff_result *d)
{
    size_t n = 0;
    for (size_t i = 1; i < d->npaths; i++)
        n += d->paths[i].state == DS_GONE;
    return n;
}

sv_err flame_from_diff(const diff_result *d, flame **out, sv_error *err)
{
    *out = NULL;
    flame *f = flame_alloc(d->npaths);
    if (!f)
        return nomem(err);
    f->mode = FLAME_DIFF;
    f->scope = (calltree_scope){d->opt.rank, -1, 0, 0, LANE_RANK, 0};
    f->nnames = d->nnames;
    f->names = malloc((d->nnames ? d->nnames : 1) * sizeof *f->names);
    f->reps = calloc(d->nnames ? d->nnames : 1, sizeof *f->reps);
    sv_err e = f->names && f->reps ? SV_OK : nomem(err);
    for (size_t i = 0; !e && i < d->nnames; i++)
        f->names[i] = d->names[i];
    if (!e && d->npaths)
        e = diff_walk(f, d, err);
    if (!e) {
        f->gone = gone_below(d);
        e = build_children(f, err);
    }
    if (e) {
        flame_free(f);
        return e;
    }
    *out = f;
    return SV_OK;
}

/* -------------------------------------------------------------- shares */

double flame_share_parent(const flame *f, uint32_t node)
{
    const flame_node *nd = &f->nodes[node];
    if (nd->parent == FLAME_NONE)
        return 1.0;
    int64_t w = f->nodes[nd->parent].weight;
    return w > 0 ? (double)nd->weight / (double)w : 0.0;
}

double flame_share_scope(const flame *f, uint32_t node)
{
    int64_t w = f->nodes[0].weight;
    return w > 0 ? (double)f->nodes[node].weight / (double)w : 0.0;
}

bool flame_is_under(const flame *f, uint32_t node, uint32_t root)
{
    if (node >= f->n || root >= f->n || f->nodes[node].depth < f->nodes[root].depth)
        return false;
    while (f->nodes[node].depth > f->nodes[root].depth)
        node = f->nodes[node].parent;
    return node == root;
}

/* -------------------------------------------------------------- layout */

/* floor(o * w / r) exactly, for 0 <= o <= r. */
static int cell_of(int64_t o, int w, int64_t r)
{
    if (r <= 0 || o <= 0)
        return 0;
    if (o >= r)
        return w;
#ifdef __SIZEOF_INT128__
    __extension__ typedef unsigned __int128 u128;
    return (int)((u128)(uint64_t)o * (u128)(unsigned)w / (u128)(uint64_t)r);
#else
    return (int)floorl((long double)o * w / (long double)r);
#endif
}

typedef struct layout_buf {
    flame_box *v;
    size_t n, cap;
} layout_buf;

static bool box_push(layout_buf *b, flame_box x)
{
    if (b->n == b->cap) {
        size_t nc = b->cap ? b->cap * 2 : 64;
        flame_box *nv = realloc(b->v, nc * sizeof *nv);
        if (!nv)
            return false;
        b->v = nv;
        b->cap = nc;
    }
    b->v[b->n++] = x;
    return true;
}

/* The children of box k, cut at its right edge; the box's span is its
 * own weight, or less when it was cut itself. */
static bool layout_children(const flame *f, layout_buf *b, size_t k, int width, int64_t total)
{
    flame_box p = b->v[k];
    int64_t at = p.offset, cut = p.offset + p.span;
    for (uint32_t i = f->child_off[p.node]; i < f->child_off[p.node + 1] && at < cut; i++) {
        uint32_t c = f->child[i];
        int64_t w = f->nodes[c].weight;
        int64_t e = w > cut - at ? cut : at + w;
        int x0 = cell_of(at, width, total), x1 = cell_of(e, width, total);
        if (x1 > x0 && !box_push(b, (flame_box){c, p.row + 1, x0, x1, at, e - at}))
            return false;
        at = e;
    }
    return true;
}

bool flame_layout(const flame *f, uint32_t root, int width, uint32_t rows, flame_box **out,
                  size_t *n)
{
    *out = NULL;
    *n = 0;
    if (root >= f->n || width <= 0 || rows == 0)
        return true;
    layout_buf b = {0};
    int64_t total = f->nodes[root].weight;
    if (!box_push(&b, (flame_box){root, 0, 0, width, 0, total}))
        return false;
    /* breadth first: the boxes are their own queue, row after row */
    for (size_t k = 0; k < b.n; k++) {
        if (b.v[k].row + 1 >= rows || total <= 0)
            continue;
        if (!layout_children(f, &b, k, width, total)) {
            free(b.v);
            return false;
        }
    }
    *out = b.v;
    *n = b.n;
    return true;
}

/* ------------------------------------------------------------- matches */

int64_t flame_match_time(const flame *f, uint32_t root, const uint8_t *match)
{
    if (root >= f->n)
        return 0;
    if (root && match[f->nodes[root].name])
        return f->nodes[root].weight;
    uint32_t *stack = malloc(f->n * sizeof *stack);
    if (!stack)
        return 0;
    int64_t sum = 0;
    size_t k = 0;
    stack[k++] = root;
    while (k) {
        uint32_t x = stack[--k];
        for (uint32_t i = f->child_off[x]; i < f->child_off[x + 1]; i++) {
            uint32_t c = f->child[i];
            if (match[f->nodes[c].name])
                sum = ck_add(sum, f->nodes[c].weight);
            else
                stack[k++] = c;
        }
    }
    free(stack);
    return sum;
}
