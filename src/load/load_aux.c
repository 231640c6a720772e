/* load_aux: see load_aux.h.
 *
 * Layouts (doc/FORMAT.md, "Auxiliary records"):
 *   line_profile/<i>/        attrs region, filename, function, first_lineno,
 *                            unit [, source, source_first_lineno];
 *                            datasets line_numbers i8, hits i8, times f8
 *   perf_events/<region>/    attrs calls, event_names; dataset values u8
 *                            (a name holding '/' is nested groups)
 *   likwid/regions/<tag>/    attrs tag, group_name, event_names, ...;
 *                            datasets call_counts [threads],
 *                            events [event x thread], metrics, times, cpus
 * LIKWID events are kept summed over the threads (counts add up); the
 * derived metrics (CPI, bandwidths) do not add up and are not read. */
#include "load_aux.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/text.h"

/* Nesting of perf_events names with '/' followed at most this deep. */
#define AUX_DEPTH_MAX 32
#define AUX_LINE 512
#define AUX_ESC 160

typedef struct aux_ctx {
    h5u_reader *rd;
    profile *p;
    rank_data *rk;
    char file[AUX_ESC]; /* escaped */
    size_t lines_cap, perf_cap;
    haddr_t seen[AUX_DEPTH_MAX]; /* groups on the current perf_events path */
} aux_ctx;

static void aux_warn(aux_ctx *c, const char *rec, const char *item, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* "FILE: rank N: RECORD: ITEM: reason" (record and item escaped). */
static void aux_warn(aux_ctx *c, const char *rec, const char *item, const char *fmt, ...)
{
    char line[AUX_LINE], esc[AUX_ESC];
    int o = snprintf(line, sizeof line, "%s: rank %d", c->file, c->rk->rank);
    if (rec && o >= 0 && (size_t)o < sizeof line) {
        text_escape_buf(esc, sizeof esc, rec);
        o += snprintf(line + o, sizeof line - (size_t)o, ": %s", esc);
    }
    if (item && o >= 0 && (size_t)o < sizeof line) {
        text_escape_buf(esc, sizeof esc, item);
        o += snprintf(line + o, sizeof line - (size_t)o, ": %s", esc);
    }
    if (o >= 0 && (size_t)o < sizeof line - 2) {
        line[o++] = ':';
        line[o++] = ' ';
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(line + o, sizeof line - (size_t)o, fmt, ap);
        va_end(ap);
    }
    profile_warn(c->p, "%s", line);
}

static char *aux_strdup(const char *s)
{
    size_t len = strlen(s);
    char *d = malloc(len + 1);
    if (d)
        memcpy(d, s, len + 1);
    return d;
}

/* ------------------------------------------------------------ attributes */

/* Optional scalar string attribute: *out NULL when absent; H5U_BAD (with
 * why) when present but unreadable. */
static h5u_status aux_attr_str(aux_ctx *c, hid_t g, const char *name, char **out, char *why,
                               size_t whylen)
{
    *out = NULL;
    if (H5Aexists(g, name) <= 0) {
        H5Eclear2(H5E_DEFAULT);
        return H5U_OK;
    }
    h5u_strs s;
    h5u_status st = h5u_attr_strs(c->rd, g, name, &s, why, whylen);
    if (st != H5U_OK)
        return st;
    if (s.n != 1) {
        snprintf(why, whylen, "%zu strings, expected one", s.n);
        h5u_strs_free(&s);
        return H5U_BAD;
    }
    *out = s.v[0];
    s.v[0] = NULL;
    h5u_strs_free(&s);
    return H5U_OK;
}

static bool aux_has_attr(hid_t g, const char *name)
{
    htri_t r = H5Aexists(g, name);
    H5Eclear2(H5E_DEFAULT);
    return r > 0;
}

/* ------------------------------------------------------------ line profiles */

static h5u_status lp_attrs(aux_ctx *c, hid_t g, line_profile *lp, const char **bad, char *why,
                           size_t whylen)
{
    static const char *const names[] = {"region", "filename", "function", "source"};
    char **dst[] = {&lp->region, &lp->filename, &lp->function, &lp->source};
    for (size_t i = 0; i < 4; i++) {
        h5u_status st = aux_attr_str(c, g, names[i], dst[i], why, whylen);
        if (st != H5U_OK) {
            *bad = names[i];
            return st;
        }
    }
    *bad = "unit";
    if (!aux_has_attr(g, "unit")) {
        snprintf(why, whylen, "missing");
        return H5U_BAD;
    }
    h5u_status st = h5u_attr_f64(g, "unit", &lp->unit_s, why, whylen);
    if (st != H5U_OK)
        return st;
    if (!(lp->unit_s > 0) || !isfinite(lp->unit_s)) {
        snprintf(why, whylen, "%g is not a positive time unit", lp->unit_s);
        return H5U_BAD;
    }
    static const char *const ints[] = {"first_lineno", "source_first_lineno"};
    int64_t *idst[] = {&lp->first_lineno, &lp->source_first_lineno};
    for (size_t i = 0; i < 2; i++) {
        *bad = ints[i];
        if (aux_has_attr(g, ints[i]) &&
            (st = h5u_attr_i64(g, ints[i], idst[i], why, whylen)) != H5U_OK)
            return st;
    }
    if (lp->source && !aux_has_attr(g, "source_first_lineno"))
        lp->source_first_lineno = lp->first_lineno;
    return H5U_OK;
}

static h5u_status lp_columns(aux_ctx *c, hid_t g, line_profile *lp, const char **bad, char *why,
                             size_t whylen)
{
    size_t n[3] = {0, 0, 0};
    h5u_status st;
    *bad = "line_numbers";
    if ((st = h5u_read_i64(c->rd, g, "line_numbers", &lp->lineno, &n[0], why, whylen)))
        return st;
    *bad = "hits";
    if ((st = h5u_read_i64(c->rd, g, "hits", &lp->hits, &n[1], why, whylen)))
        return st;
    *bad = "times";
    if ((st = h5u_read_f64(c->rd, g, "times", &lp->times, &n[2], why, whylen)))
        return st;
    if (n[0] != n[1] || n[0] != n[2]) {
        *bad = "line_numbers, hits, times";
        snprintf(why, whylen, "lengths differ (%zu, %zu, %zu)", n[0], n[1], n[2]);
        return H5U_BAD;
    }
    lp->n = n[0];
    for (size_t i = 0; i < lp->n; i++) {
        if (lp->hits[i] < 0) {
            *bad = "hits";
            snprintf(why, whylen, "negative count at row %zu", i);
            return H5U_BAD;
        }
        if (!(lp->times[i] >= 0) || !isfinite(lp->times[i])) {
            *bad = "times";
            snprintf(why, whylen, "negative or not finite at row %zu", i);
            return H5U_BAD;
        }
    }
    return H5U_OK;
}

static sv_err lp_append(aux_ctx *c, line_profile *lp)
{
    rank_data *rk = c->rk;
    if (rk->nlines == c->lines_cap) {
        size_t cap = c->lines_cap ? c->lines_cap * 2 : 4;
        line_profile *v = realloc(rk->lines, cap * sizeof *v);
        if (!v)
            return SV_ERR_NOMEM;
        rk->lines = v;
        c->lines_cap = cap;
    }
    rk->lines[rk->nlines++] = *lp;
    memset(lp, 0, sizeof *lp);
    return SV_OK;
}

static sv_err lp_load_one(aux_ctx *c, hid_t parent, const char *name)
{
    char rec[AUX_ESC];
    snprintf(rec, sizeof rec, "line_profile/%s", name);
    hid_t g = H5Gopen2(parent, name, H5P_DEFAULT);
    char why[H5U_WHY_MAX];
    if (g < 0) {
        h5u_error_desc(why, sizeof why);
        aux_warn(c, rec, NULL, "cannot open as a group: %s; record dropped", why);
        return SV_OK;
    }
    line_profile lp;
    memset(&lp, 0, sizeof lp);
    const char *bad = NULL;
    h5u_status st = lp_attrs(c, g, &lp, &bad, why, sizeof why);
    bool attr = st != H5U_OK;
    if (st == H5U_OK)
        st = lp_columns(c, g, &lp, &bad, why, sizeof why);
    H5Gclose(g);
    sv_err e = SV_OK;
    if (st == H5U_NOMEM) {
        e = SV_ERR_NOMEM;
    } else if (st != H5U_OK) {
        aux_warn(c, rec, NULL, "%s %s: %s; record dropped", attr ? "attribute" : "dataset", bad,
                 why);
    } else {
        e = lp_append(c, &lp);
    }
    line_profile_clear(&lp);
    return e;
}

/* Record names are "0", "1", ...: numeric order is the writer's order. */
static int lp_name_cmp(const void *a, const void *b)
{
    const h5u_entry *x = a, *y = b;
    size_t lx = strlen(x->name), ly = strlen(y->name);
    if (lx != ly)
        return lx < ly ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* ------------------------------------------------------------ perf records */

static sv_err perf_append(aux_ctx *c, perf_record *pr)
{
    rank_data *rk = c->rk;
    if (rk->nperf == c->perf_cap) {
        size_t cap = c->perf_cap ? c->perf_cap * 2 : 4;
        perf_record *v = realloc(rk->perf, cap * sizeof *v);
        if (!v)
            return SV_ERR_NOMEM;
        rk->perf = v;
        c->perf_cap = cap;
    }
    rk->perf[rk->nperf++] = *pr;
    memset(pr, 0, sizeof *pr);
    return SV_OK;
}

/* Names from attribute event_names, taken over by pr. */
static h5u_status perf_names(aux_ctx *c, hid_t g, perf_record *pr, size_t *n, char *why,
                             size_t whylen)
{
    h5u_strs s;
    h5u_status st = h5u_attr_strs(c->rd, g, "event_names", &s, why, whylen);
    if (st != H5U_OK)
        return st;
    pr->names = s.v;
    *n = s.n;
    return H5U_OK;
}

/* A record's outcome: appended, dropped with a warning, or out of memory. */
static sv_err perf_finish(aux_ctx *c, perf_record *pr, h5u_status st, const char *rec,
                          const char *bad, const char *why)
{
    sv_err e = SV_OK;
    if (st == H5U_NOMEM)
        e = SV_ERR_NOMEM;
    else if (st != H5U_OK)
        aux_warn(c, rec, bad, "%s; record dropped", why);
    else
        e = perf_append(c, pr);
    perf_record_clear(pr);
    return e;
}

/* perf_events/<region>: g is the region's group. */
static sv_err perf_load_one(aux_ctx *c, hid_t g, const char *rname)
{
    char rec[AUX_ESC], why[H5U_WHY_MAX] = "";
    snprintf(rec, sizeof rec, "perf_events/%s", rname);
    perf_record pr;
    memset(&pr, 0, sizeof pr);
    pr.calls = -1;
    pr.kind = aux_strdup("perf_events");
    pr.region = aux_strdup(rname);
    if (!pr.kind || !pr.region)
        return perf_finish(c, &pr, H5U_NOMEM, rec, NULL, why);
    size_t nn = 0, nv = 0;
    const char *bad = "attribute calls";
    h5u_status st = H5U_OK;
    if (aux_has_attr(g, "calls"))
        st = h5u_attr_i64(g, "calls", &pr.calls, why, sizeof why);
    if (st == H5U_OK && pr.calls < -1) {
        snprintf(why, sizeof why, "negative (%lld)", (long long)pr.calls);
        st = H5U_BAD;
    }
    if (st == H5U_OK) {
        bad = "attribute event_names";
        st = perf_names(c, g, &pr, &nn, why, sizeof why);
        pr.n = nn; /* so that a failure below frees them */
    }
    if (st == H5U_OK) {
        bad = "dataset values";
        st = h5u_read_f64(c->rd, g, "values", &pr.values, &nv, why, sizeof why);
    }
    if (st == H5U_OK && nv != nn) {
        bad = "dataset values";
        snprintf(why, sizeof why, "%zu values for %zu event names", nv, nn);
        st = H5U_BAD;
    }
    return perf_finish(c, &pr, st, rec, bad, why);
}

/* Is addr on the current path (a hard-link cycle)? */
static bool perf_seen(const aux_ctx *c, haddr_t addr, int depth)
{
    for (int i = 0; i < depth; i++)
        if (c->seen[i] == addr)
            return true;
    return false;
}

/* The children of g: a group holding `values` is a region; any other group
 * is a '/' in a region name, followed down. */
static sv_err perf_walk(aux_ctx *c, hid_t g, const char *prefix, int depth)
{
    h5u_list l;
    char why[H5U_WHY_MAX];
    h5u_status st = h5u_list_group(g, &l, why, sizeof why);
    if (st == H5U_NOMEM)
        return SV_ERR_NOMEM;
    if (st != H5U_OK) {
        aux_warn(c, "perf_events", prefix[0] ? prefix : NULL, "%s; skipped", why);
        return SV_OK;
    }
    sv_err e = SV_OK;
    for (size_t i = 0; i < l.n && !e; i++) {
        h5u_entry *en = &l.v[i];
        size_t len = strlen(prefix) + strlen(en->name) + 2;
        char *name = malloc(len);
        if (!name) {
            e = SV_ERR_NOMEM;
            break;
        }
        snprintf(name, len, "%s%s%s", prefix, prefix[0] ? "/" : "", en->name);
        if (h5u_entry_kind(g, en) != H5U_GROUP) {
            aux_warn(c, "perf_events", name, "not a group; ignored");
        } else if (depth >= AUX_DEPTH_MAX || perf_seen(c, en->addr, depth)) {
            aux_warn(c, "perf_events", name, "nested too deep or in a cycle; ignored");
        } else {
            hid_t sub = H5Gopen2(g, en->name, H5P_DEFAULT);
            if (sub < 0) {
                h5u_error_desc(why, sizeof why);
                aux_warn(c, "perf_events", name, "cannot open: %s; ignored", why);
            } else {
                c->seen[depth] = en->addr;
                htri_t hv = H5Lexists(sub, "values", H5P_DEFAULT);
                H5Eclear2(H5E_DEFAULT);
                e = hv > 0 ? perf_load_one(c, sub, name) : perf_walk(c, sub, name, depth + 1);
                H5Gclose(sub);
            }
        }
        free(name);
    }
    h5u_list_free(&l);
    return e;
}

/* ------------------------------------------------------------ LIKWID */

/* likwid/regions/<tag>: events summed over the threads. */
static h5u_status lk_read(aux_ctx *c, hid_t g, perf_record *pr, const char **bad, char *why,
                          size_t whylen)
{
    size_t nn = 0, rows = 0, cols = 0, ncc = 0;
    double *m = NULL;
    int64_t *cc = NULL;
    *bad = "attribute event_names";
    h5u_status st = perf_names(c, g, pr, &nn, why, whylen);
    pr->n = nn;
    if (st == H5U_OK) {
        *bad = "dataset events";
        st = h5u_read_f64_2d(c->rd, g, "events", &m, &rows, &cols, why, whylen);
    }
    if (st == H5U_OK && rows != nn) {
        snprintf(why, whylen, "%zu rows for %zu event names", rows, nn);
        st = H5U_BAD;
    }
    if (st == H5U_OK && H5Lexists(g, "call_counts", H5P_DEFAULT) > 0) {
        *bad = "dataset call_counts";
        st = h5u_read_i64(c->rd, g, "call_counts", &cc, &ncc, why, whylen);
    }
    H5Eclear2(H5E_DEFAULT);
    if (st == H5U_OK) {
        pr->values = calloc(nn ? nn : 1, sizeof *pr->values);
        if (!pr->values)
            st = H5U_NOMEM;
        for (size_t i = 0; st == H5U_OK && i < nn; i++)
            for (size_t j = 0; j < cols; j++)
                pr->values[i] += m[i * cols + j];
        if (cc) {
            pr->calls = 0;
            for (size_t j = 0; j < ncc; j++)
                if (cc[j] > 0 && pr->calls <= INT64_MAX - cc[j])
                    pr->calls += cc[j];
        }
    }
    free(m);
    free(cc);
    return st;
}

static sv_err lk_load_one(aux_ctx *c, hid_t parent, const char *gname)
{
    char rec[AUX_ESC], why[H5U_WHY_MAX] = "";
    snprintf(rec, sizeof rec, "likwid/regions/%s", gname);
    perf_record pr;
    memset(&pr, 0, sizeof pr);
    pr.calls = -1;
    const char *bad = NULL;
    hid_t g = H5Gopen2(parent, gname, H5P_DEFAULT);
    if (g < 0) {
        h5u_error_desc(why, sizeof why);
        aux_warn(c, rec, NULL, "cannot open as a group: %s; record dropped", why);
        return SV_OK;
    }
    pr.kind = aux_strdup("likwid");
    h5u_status st = pr.kind ? H5U_OK : H5U_NOMEM;
    if (st == H5U_OK) {
        bad = "attribute tag";
        st = aux_attr_str(c, g, "tag", &pr.region, why, sizeof why);
    }
    if (st == H5U_OK && !pr.region && !(pr.region = aux_strdup(gname)))
        st = H5U_NOMEM;
    if (st == H5U_OK)
        st = lk_read(c, g, &pr, &bad, why, sizeof why);
    H5Gclose(g);
    return perf_finish(c, &pr, st, rec, bad, why);
}

/* ------------------------------------------------------------ groups */

typedef sv_err (*aux_child_fn)(aux_ctx *c, hid_t parent, const char *name);

/* Opens group `path` below rg and calls fn on each of its children (in
 * numeric order when sorted); a missing group is no record. */
static sv_err aux_each(aux_ctx *c, hid_t rg, const char *path, aux_child_fn fn, bool sorted)
{
    if (H5Lexists(rg, path, H5P_DEFAULT) <= 0) {
        H5Eclear2(H5E_DEFAULT);
        return SV_OK;
    }
    char why[H5U_WHY_MAX];
    hid_t g = H5Gopen2(rg, path, H5P_DEFAULT);
    if (g < 0) {
        h5u_error_desc(why, sizeof why);
        aux_warn(c, path, NULL, "not a readable group: %s; skipped", why);
        return SV_OK;
    }
    h5u_list l;
    h5u_status st = h5u_list_group(g, &l, why, sizeof why);
    sv_err e = SV_OK;
    if (st == H5U_NOMEM)
        e = SV_ERR_NOMEM;
    else if (st != H5U_OK)
        aux_warn(c, path, NULL, "%s; skipped", why);
    if (st == H5U_OK) {
        if (sorted)
            qsort(l.v, l.n, sizeof *l.v, lp_name_cmp);
        for (size_t i = 0; i < l.n && !e; i++)
            e = fn(c, g, l.v[i].name);
        h5u_list_free(&l);
    }
    H5Gclose(g);
    return e;
}

static void aux_file_name(aux_ctx *c, hid_t rg)
{
    char raw[1024];
    ssize_t n = H5Fget_name(rg, raw, sizeof raw);
    if (n < 0) {
        H5Eclear2(H5E_DEFAULT);
        raw[0] = '\0';
    }
    text_escape_buf(c->file, sizeof c->file, n > 0 ? raw : (c->p->path ? c->p->path : "?"));
}

sv_err load_aux_rank(h5u_reader *rd, profile *p, rank_data *rk, hid_t rg, sv_error *err)
{
    aux_ctx c;
    memset(&c, 0, sizeof c);
    c.rd = rd;
    c.p = p;
    c.rk = rk;
    c.lines_cap = rk->nlines;
    c.perf_cap = rk->nperf;
    aux_file_name(&c, rg);
    sv_err e = aux_each(&c, rg, "line_profile", lp_load_one, true);
    if (!e && H5Lexists(rg, "perf_events", H5P_DEFAULT) > 0) {
        hid_t g = H5Gopen2(rg, "perf_events", H5P_DEFAULT);
        if (g < 0) {
            aux_warn(&c, "perf_events", NULL, "not a readable group; skipped");
        } else {
            e = perf_walk(&c, g, "", 0);
            H5Gclose(g);
        }
    }
    H5Eclear2(H5E_DEFAULT);
    if (!e && H5Lexists(rg, "likwid", H5P_DEFAULT) > 0)
        e = aux_each(&c, rg, "likwid/regions", lk_load_one, false);
    H5Eclear2(H5E_DEFAULT);
    if (e == SV_ERR_NOMEM)
        return sv_error_set(err, SV_ERR_NOMEM, "%s: rank %d: out of memory", c.file, rk->rank);
    return e;
}
