/* load_rows_work: the work of an MPI run's processes once their rows are
 * read, and the results processes 1..N-1 send process 0 (load_rows.h).
 *
 * The results are a few records a row, native-endian 8-byte words like
 * wire.h (every process runs the same program on the same machine type):
 * "SVR1", the count, the records ('S' a region's statistics, 'X' its
 * exclusive total, 'K' a nested rank's flags after its regions' 'X'), the
 * warnings, "END!".  The reader bounds every count and string; a bad
 * stream only stops the install there (process 0 computes the rest). */
#include <stdlib.h>
#include <string.h>

#include "load_rows.h"
#include "model/stats.h"
#include "util/strbuf.h"
#include "util/text.h"

#define REC_STATS 1u
#define REC_EXCL 2u
#define REC_RANK 3u
#define NAME_MAX_BYTES ((uint64_t)1 << 20)

struct rows_work {
    size_t nranks, nregions;
    int *nest;                     /* per rank (p->ranks order): the process nesting it */
    bool *nested;                  /* per rank: its exclusive totals are in */
    size_t *rank_off;              /* per rank: the index of its first region in p->regions */
    bool *has_stats;               /* per region (p->regions order) */
    bool *has_excl;                /* per region: an 'X' record came */
    int64_t *excl;                 /* per region: its value */
    size_t redo_stats, redo_ranks; /* what load_rows_complete did itself */
};

void load_rows_redone(const rows_work *w, size_t *stats, size_t *ranks)
{
    *stats = w ? w->redo_stats : 0;
    *ranks = w ? w->redo_ranks : 0;
}

void rows_work_free(rows_work *w)
{
    if (!w)
        return;
    free(w->nest);
    free(w->nested);
    free(w->rank_off);
    free(w->has_stats);
    free(w->has_excl);
    free(w->excl);
    free(w);
}

/* ------------------------------------------------------------ helpers */

/* The regions of the ranks whose keep[k] is false, held out of the profile
 * while a finish step nests the others, and their nesting flags (which the
 * step resets on every rank it meets). */
typedef struct held {
    region **regions;
    size_t n, cap;
    bool held, explicit_ids;
    uint32_t lanes;
} held;

static held *hold_ranks(profile *p, const bool *keep)
{
    held *h = calloc(p->nranks ? p->nranks : 1, sizeof *h);
    if (!h)
        return NULL;
    for (size_t k = 0; k < p->nranks; k++) {
        rank_data *rk = &p->ranks[k];
        if (keep[k])
            continue;
        h[k] = (held){rk->regions, rk->nregions,     rk->regions_cap,
                      true,        rk->explicit_ids, rk->ninferred_lanes};
        rk->regions = NULL;
        rk->nregions = rk->regions_cap = 0;
    }
    return h;
}

/* Ranks are sorted by number already, so the finish step moved none. */
static void release_ranks(profile *p, held *h)
{
    for (size_t k = 0; k < p->nranks; k++) {
        rank_data *rk = &p->ranks[k];
        if (!h[k].held)
            continue;
        free(rk->regions);
        rk->regions = h[k].regions;
        rk->nregions = h[k].n;
        rk->regions_cap = h[k].cap;
        rk->explicit_ids = h[k].explicit_ids;
        rk->ninferred_lanes = h[k].lanes;
    }
    free(h);
}

/* Nests the ranks whose keep[k] is true and no other.  p->regions lacks
 * the others' regions afterwards: a finish step without nesting rebuilds
 * it. */
static sv_err nest_ranks(profile *p, const bool *keep, sv_error *err)
{
    held *h = hold_ranks(p, keep);
    if (!h)
        return sv_error_set(err, SV_ERR_NOMEM, "%s: out of memory", p->path);
    sv_err e = profile_finish_steps(p, false, true, err);
    release_ranks(p, h);
    return e;
}

static bool all_minus_one(const int64_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] != -1)
            return false;
    return true;
}

/* The columnar loader's rule, which a part's load leaves to whoever holds
 * every row of the rank: call ids that are -1 in every row of a rank
 * (native data) are no call graph, and go (tests/gen/FIXTURES.md
 * col3_mixed_ids.h5). */
static void drop_fake_ids(rank_data *rk)
{
    bool real = false;
    for (size_t j = 0; j < rk->nregions && !real; j++) {
        const region *r = rk->regions[j];
        real = r->call_ids && !all_minus_one(r->call_ids, r->n);
    }
    for (size_t j = 0; j < rk->nregions && !real; j++) {
        region *r = rk->regions[j];
        free(r->call_ids);
        free(r->parent_ids);
        r->call_ids = r->parent_ids = NULL;
    }
}

/* Statistics copied around exclusive_total_ns, which the nesting owns (as
 * stats_compute_region does). */
static void put_stats(region *r, const region_stats *st)
{
    const size_t at = offsetof(region_stats, exclusive_total_ns);
    const size_t past = at + sizeof st->exclusive_total_ns;
    memcpy(&r->st, st, at);
    memcpy((char *)&r->st + past, (const char *)st + past, sizeof *st - past);
}

static int cmp_ptr(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t) * (void *const *)a, y = (uintptr_t) * (void *const *)b;
    return (x > y) - (x < y);
}

/* ------------------------------------------------------------ process 0 */

/* Process 0's statistics, and the serial run's drops: a region whose
 * durations are invalid goes, with the warning compute_rank_stats gives
 * (finish.c).  Whose statistics these are: own[] collects them. */
static sv_err own_stats(profile *p, const int *stats, region **own, size_t *nown, sv_error *err)
{
    size_t i = 0;
    for (size_t k = 0; k < p->nranks; k++) {
        rank_data *rk = &p->ranks[k];
        size_t keep = 0;
        for (size_t j = 0; j < rk->nregions; j++, i++) {
            region *r = rk->regions[j];
            int who = i < p->nregions && p->regions[i] == r ? stats[i] : 0;
            sv_error e1;
            sv_err e = SV_OK;
            bool mine = who == 0 || !stats_durations_valid(r);
            if (r->has_event_data && mine)
                e = stats_compute_region(r, &e1);
            if (e == SV_ERR_NOMEM)
                return sv_error_set(err, e, "%s: %s", p->path, e1.msg);
            if (e) {
                char name[160];
                text_escape_buf(name, sizeof name, r->name);
                profile_warn(p, "%s: rank %d: region %s: %s; region dropped", p->path, rk->rank,
                             name, e1.msg);
                region_free(r);
                continue;
            }
            if (mine || !r->has_event_data)
                own[(*nown)++] = r;
            rk->regions[keep++] = r;
        }
        rk->nregions = keep;
    }
    return SV_OK;
}

static sv_err work_tables(profile *p, rows_work *w, const int *nest, region **own, size_t nown)
{
    w->nranks = p->nranks;
    w->nregions = p->nregions;
    size_t nr = p->nranks ? p->nranks : 1, ng = p->nregions ? p->nregions : 1;
    w->nest = malloc(nr * sizeof *w->nest);
    w->nested = calloc(nr, sizeof *w->nested);
    w->rank_off = calloc(nr, sizeof *w->rank_off);
    w->has_stats = calloc(ng, sizeof *w->has_stats);
    w->has_excl = calloc(ng, sizeof *w->has_excl);
    w->excl = calloc(ng, sizeof *w->excl);
    if (!w->nest || !w->nested || !w->rank_off || !w->has_stats || !w->has_excl || !w->excl)
        return SV_ERR_NOMEM;
    size_t off = 0;
    for (size_t k = 0; k < p->nranks; k++) {
        w->nest[k] = nest[k];
        w->nested[k] = nest[k] == 0;
        w->rank_off[k] = off;
        off += p->ranks[k].nregions;
    }
    qsort(own, nown, sizeof *own, cmp_ptr);
    for (size_t i = 0; i < p->nregions; i++)
        w->has_stats[i] = bsearch(&p->regions[i], own, nown, sizeof *own, cmp_ptr) != NULL;
    return SV_OK;
}

sv_err load_rows_own(profile *p, int count, rows_work **out, sv_error *err)
{
    *out = NULL;
    size_t ng = p->nregions ? p->nregions : 1, nr = p->nranks ? p->nranks : 1;
    rows_work *w = calloc(1, sizeof *w);
    int *stats = malloc(ng * sizeof *stats), *nest = malloc(nr * sizeof *nest);
    region **own = malloc(ng * sizeof *own);
    bool *keep = malloc(nr * sizeof *keep);
    sv_err e =
        !w || !stats || !nest || !own || !keep || !load_rows_plan_profile(p, count, stats, nest)
            ? SV_ERR_NOMEM
            : SV_OK;
    size_t nown = 0;
    if (!e)
        e = own_stats(p, stats, own, &nown, err);
    for (size_t k = 0; !e && k < p->nranks; k++)
        keep[k] = nest[k] == 0;
    if (!e)
        e = nest_ranks(p, keep, err);
    if (!e)
        e = profile_finish_steps(p, false, false, err); /* p->regions whole again */
    if (!e && work_tables(p, w, nest, own, nown))
        e = SV_ERR_NOMEM;
    if (e == SV_ERR_NOMEM && !err->code)
        sv_error_set(err, e, "%s: out of memory", p->path);
    free(stats);
    free(nest);
    free(own);
    free(keep);
    if (e) {
        rows_work_free(w);
        return e;
    }
    *out = w;
    return SV_OK;
}

/* ------------------------------------------------------------ reading */

typedef struct rd {
    const unsigned char *p;
    size_t left;
    bool bad;
} rd;

static uint64_t rd_u64(rd *r)
{
    uint64_t v = 0;
    if (r->bad || r->left < sizeof v) {
        r->bad = true;
        return 0;
    }
    memcpy(&v, r->p, sizeof v);
    r->p += sizeof v;
    r->left -= sizeof v;
    return v;
}

static const unsigned char *rd_bytes(rd *r, uint64_t n)
{
    if (r->bad || n > r->left) {
        r->bad = true;
        return NULL;
    }
    const unsigned char *v = r->p;
    r->p += n;
    r->left -= (size_t)n;
    return v;
}

/* A NUL-terminated copy of a string field, or NULL (bad or NOMEM). */
static char *rd_str(rd *r)
{
    uint64_t n = rd_u64(r);
    if (n > NAME_MAX_BYTES)
        r->bad = true;
    const unsigned char *s = rd_bytes(r, n);
    char *v = s ? malloc((size_t)n + 1) : NULL;
    if (!v) {
        r->bad = true;
        return NULL;
    }
    memcpy(v, s, (size_t)n);
    v[n] = '\0';
    return v;
}

static int cmp_rank_key(const void *key, const void *elem)
{
    int a = *(const int *)key, b = ((const rank_data *)elem)->rank;
    return (a > b) - (a < b);
}

static int cmp_region_key(const void *key, const void *elem)
{
    return strcmp((const char *)key, (*(region *const *)elem)->name);
}

/* The index of rank `rank` in p->ranks, or -1. */
static long find_rank(const profile *p, int rank)
{
    const rank_data *rk = bsearch(&rank, p->ranks, p->nranks, sizeof *p->ranks, cmp_rank_key);
    return rk ? (long)(rk - p->ranks) : -1;
}

/* The index in p->regions of region `name` of rank `rank`, or -1. */
static long find_region(const profile *p, const rows_work *w, int rank, const char *name)
{
    long k = find_rank(p, rank);
    if (k < 0)
        return -1;
    const rank_data *rk = &p->ranks[k];
    region *const *r =
        bsearch(name, rk->regions, rk->nregions, sizeof *rk->regions, cmp_region_key);
    return r ? (long)(w->rank_off[k] + (size_t)(r - rk->regions)) : -1;
}

/* A rank's flags: its exclusive totals count only when every region of
 * the rank came with one (else process 0 nests it itself). */
static void apply_rank(profile *p, rows_work *w, int rank, bool explicit_ids, uint32_t lanes,
                       uint64_t nx)
{
    long k = find_rank(p, rank);
    if (k < 0 || w->nested[k] || w->nest[k] == 0)
        return;
    rank_data *rk = &p->ranks[k];
    if (nx != rk->nregions)
        return;
    for (size_t j = 0; j < rk->nregions; j++)
        if (!w->has_excl[w->rank_off[k] + j])
            return;
    for (size_t j = 0; j < rk->nregions; j++)
        rk->regions[j]->st.exclusive_total_ns = w->excl[w->rank_off[k] + j];
    rk->explicit_ids = explicit_ids;
    rk->ninferred_lanes = lanes;
    w->nested[k] = true;
}

static void add_warning(profile *p, char *s)
{
    for (size_t i = 0; i < p->nwarnings; i++)
        if (strcmp(p->warnings[i], s) == 0) {
            free(s);
            return;
        }
    if (p->nwarnings == p->nwarnings_cap) {
        size_t cap = p->nwarnings_cap ? p->nwarnings_cap * 2 : 8;
        char **v = realloc(p->warnings, cap * sizeof *v);
        if (!v) {
            free(s);
            return;
        }
        p->warnings = v;
        p->nwarnings_cap = cap;
    }
    p->warnings[p->nwarnings++] = s;
}

static void apply_record(profile *p, rows_work *w, rd *r)
{
    uint64_t kind = rd_u64(r);
    int rank = (int)(int64_t)rd_u64(r);
    char *name = kind == REC_RANK ? NULL : rd_str(r);
    if (kind == REC_STATS) {
        region_stats st;
        const unsigned char *b = rd_bytes(r, sizeof st);
        long i = b && name ? find_region(p, w, rank, name) : -1;
        if (i >= 0 && !w->has_stats[i] && p->regions[i]->has_event_data) {
            memcpy(&st, b, sizeof st);
            put_stats(p->regions[i], &st);
            w->has_stats[i] = true;
        }
    } else if (kind == REC_EXCL) {
        int64_t v = (int64_t)rd_u64(r);
        long i = !r->bad && name ? find_region(p, w, rank, name) : -1;
        if (i >= 0) {
            w->excl[i] = v;
            w->has_excl[i] = true;
        }
    } else if (kind == REC_RANK) {
        bool explicit_ids = rd_u64(r) != 0;
        uint32_t lanes = (uint32_t)rd_u64(r);
        uint64_t nx = rd_u64(r);
        if (!r->bad)
            apply_rank(p, w, rank, explicit_ids, lanes, nx);
    } else {
        r->bad = true;
    }
    free(name);
}

bool load_rows_apply(profile *p, rows_work *w, const void *buf, size_t len)
{
    rd r = {buf, len, false};
    const unsigned char *magic = rd_bytes(&r, 4);
    if (!magic || memcmp(magic, "SVR1", 4) != 0)
        return false;
    uint64_t n = rd_u64(&r);
    for (uint64_t i = 0; i < n && !r.bad; i++)
        apply_record(p, w, &r);
    uint64_t nw = rd_u64(&r);
    for (uint64_t i = 0; i < nw && !r.bad; i++) {
        char *s = rd_str(&r);
        if (s)
            add_warning(p, s);
    }
    const unsigned char *end = rd_bytes(&r, 4);
    return !r.bad && end && memcmp(end, "END!", 4) == 0;
}

sv_err load_rows_complete(profile *p, rows_work *w, sv_error *err)
{
    bool *keep = calloc(p->nranks ? p->nranks : 1, sizeof *keep);
    if (!keep)
        return sv_error_set(err, SV_ERR_NOMEM, "%s: out of memory", p->path);
    sv_err e = SV_OK;
    for (size_t i = 0; !e && i < p->nregions; i++) {
        if (w->has_stats[i] || !p->regions[i]->has_event_data)
            continue;
        sv_error e1;
        e = stats_compute_region(p->regions[i], &e1); /* durations checked valid */
        if (e)
            sv_error_set(err, e, "%s: %s", p->path, e1.msg);
        w->has_stats[i] = !e;
        w->redo_stats++;
    }
    bool more = false;
    for (size_t k = 0; k < p->nranks; k++) {
        more |= keep[k] = !w->nested[k];
        w->redo_ranks += keep[k];
    }
    if (!e && more)
        e = nest_ranks(p, keep, err);
    free(keep);
    if (!e)
        e = profile_finish_steps(p, false, false, err);
    if (!e)
        profile_stored_min_start(p);
    return e;
}

/* ------------------------------------------------------------ process k */

static void put_u64(strbuf *b, uint64_t v)
{
    sb_putn(b, (const char *)&v, sizeof v);
}

static void put_str(strbuf *b, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    put_u64(b, n);
    sb_putn(b, s ? s : "", n);
}

static void put_head(strbuf *b, unsigned kind, int rank, const char *name)
{
    put_u64(b, kind);
    put_u64(b, (uint64_t)(int64_t)rank);
    if (kind != REC_RANK)
        put_str(b, name);
}

static bool in_list(const load_nest_list *l, int rank)
{
    for (size_t i = 0; l && i < l->n; i++)
        if (l->rank[i] == rank)
            return true;
    return false;
}

/* The records: every region's statistics, then, when the nesting went
 * well, each nested rank's exclusive totals and flags. */
static size_t put_records(strbuf *b, const profile *q, const bool *nested, bool count_only)
{
    size_t n = 0;
    for (size_t k = 0; k < q->nranks; k++) {
        const rank_data *rk = &q->ranks[k];
        for (size_t j = 0; j < rk->nregions; j++) {
            const region *r = rk->regions[j];
            if (!r->has_event_data)
                continue;
            n++;
            if (count_only)
                continue;
            put_head(b, REC_STATS, rk->rank, r->name);
            sb_putn(b, (const char *)&r->st, sizeof r->st);
        }
    }
    for (size_t k = 0; nested && k < q->nranks; k++) {
        const rank_data *rk = &q->ranks[k];
        if (!nested[k])
            continue;
        n += rk->nregions + 1;
        for (size_t j = 0; !count_only && j < rk->nregions; j++) {
            put_head(b, REC_EXCL, rk->rank, rk->regions[j]->name);
            put_u64(b, (uint64_t)rk->regions[j]->st.exclusive_total_ns);
        }
        if (count_only)
            continue;
        put_head(b, REC_RANK, rk->rank, NULL);
        put_u64(b, rk->explicit_ids);
        put_u64(b, rk->ninferred_lanes);
        put_u64(b, rk->nregions);
    }
    return n;
}

sv_err load_rows_encode(profile *q, const load_nest_list *nests, char **buf, size_t *len,
                        sv_error *err)
{
    *buf = NULL;
    *len = 0;
    size_t w0 = q->nwarnings;
    bool *keep = calloc(q->nranks ? q->nranks : 1, sizeof *keep);
    if (!keep)
        return sv_error_set(err, SV_ERR_NOMEM, "%s: out of memory", q->path);
    bool any = false;
    for (size_t k = 0; k < q->nranks; k++) {
        keep[k] = !(nests && nests->oom) && in_list(nests, q->ranks[k].rank);
        any |= keep[k];
        if (keep[k] && q->layout == LAYOUT_COLUMNAR)
            drop_fake_ids(&q->ranks[k]);
    }
    sv_error e1;
    sv_error_clear(&e1);
    bool nested = any && nest_ranks(q, keep, &e1) == SV_OK;
    strbuf b;
    sb_init(&b);
    sb_putn(&b, "SVR1", 4);
    put_u64(&b, put_records(&b, q, nested ? keep : NULL, true));
    put_records(&b, q, nested ? keep : NULL, false);
    size_t from = w0 < q->nwarnings ? w0 : q->nwarnings;
    put_u64(&b, q->nwarnings - from);
    for (size_t i = from; i < q->nwarnings; i++)
        put_str(&b, q->warnings[i]);
    sb_putn(&b, "END!", 4);
    free(keep);
    if (b.oom) {
        sb_free(&b);
        return sv_error_set(err, SV_ERR_NOMEM, "%s: out of memory", q->path);
    }
    *buf = b.s;
    *len = b.len;
    return SV_OK;
}
