/* loader: walks a scope-profiler file and fills the model through the
 * producer API of profile.h.
 *
 * A region is first read into a staging struct and validated; only a good
 * one is handed to rank_add_region(), so dropping a bad region never has to
 * undo anything in the profile.  Everything libhdf5-specific (and every
 * defensive check on sizes and layouts) lives in h5util.c. */
#include "loader.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "h5util.h"
#include "strbuf.h"
#include "text.h"

#include "loader_internal.h"

/* ------------------------------------------------------------ messages */

static size_t ld_append(char *line, size_t cap, size_t o, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static size_t ld_append(char *line, size_t cap, size_t o, const char *fmt, ...)
{
    if (o >= cap - 1)
        return o;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(line + o, cap - o, fmt, ap);
    va_end(ap);
    if (k < 0)
        return o;
    return (size_t)k >= cap - o ? cap - 1 : o + (size_t)k;
}

/* "PATH: rank N: region NAME: KIND ITEM: " + fmt, names escaped. */
static void ld_vline(const ld_ctx *c, char *line, size_t cap, const char *reg, const char *kind,
                     const char *item, const char *fmt, va_list ap)
    __attribute__((format(printf, 7, 0)));

static void ld_vline(const ld_ctx *c, char *line, size_t cap, const char *reg, const char *kind,
                     const char *item, const char *fmt, va_list ap)
{
    char esc[LD_ESC_NAME];
    size_t o = ld_append(line, cap, 0, "%s", c->path);
    if (c->rank >= 0)
        o = ld_append(line, cap, o, ": rank %d", c->rank);
    if (reg) {
        text_escape_buf(esc, sizeof esc, reg);
        o = ld_append(line, cap, o, ": region %s", esc);
    }
    if (kind) {
        text_escape_buf(esc, sizeof esc, item ? item : "");
        o = ld_append(line, cap, o, ": %s %s", kind, esc);
    }
    o = ld_append(line, cap, o, ": ");
    if (o < cap - 1)
        vsnprintf(line + o, cap - o, fmt, ap);
}

void ld_warn(ld_ctx *c, const char *reg, const char *kind, const char *item, const char *fmt, ...)
{
    char line[LD_LINE];
    va_list ap;
    va_start(ap, fmt);
    ld_vline(c, line, sizeof line, reg, kind, item, fmt, ap);
    va_end(ap);
    profile_warn(c->p, "%s", line);
}

sv_err ld_nomem(const ld_ctx *c, sv_error *err)
{
    return sv_error_set(err, SV_ERR_NOMEM, "%s: out of memory", c->path);
}

void ld_progress(const ld_ctx *c)
{
    if (!c->opt || !c->opt->progress)
        return;
    uint64_t total = c->rd.file_size;
    uint64_t done = c->rd.bytes_done < total ? c->rd.bytes_done : total;
    c->opt->progress(c->opt->progress_ctx, done, total);
}

/* ------------------------------------------------------------ address set */

static uint64_t addr_hash(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

static bool addr_set_grow(addr_set *s)
{
    size_t cap = s->cap ? s->cap * 2 : 64;
    uint64_t *v = malloc(cap * sizeof *v);
    if (!v)
        return false;
    for (size_t i = 0; i < cap; i++)
        v[i] = UINT64_MAX;
    for (size_t i = 0; i < s->cap; i++) {
        if (s->v[i] == UINT64_MAX)
            continue;
        size_t j = addr_hash(s->v[i]) & (cap - 1);
        while (v[j] != UINT64_MAX)
            j = (j + 1) & (cap - 1);
        v[j] = s->v[i];
    }
    free(s->v);
    s->v = v;
    s->cap = cap;
    return true;
}

/* Adds a; 1 when new, 0 when already there, -1 on NOMEM. */
int ld_addr_set_add(addr_set *s, uint64_t a)
{
    if ((s->n + 1) * 2 > s->cap && !addr_set_grow(s))
        return -1;
    size_t j = addr_hash(a) & (s->cap - 1);
    while (s->v[j] != UINT64_MAX) {
        if (s->v[j] == a)
            return 0;
        j = (j + 1) & (s->cap - 1);
    }
    s->v[j] = a;
    s->n++;
    return 1;
}

void ld_addr_set_clear(addr_set *s)
{
    for (size_t i = 0; i < s->cap; i++)
        s->v[i] = UINT64_MAX;
    s->n = 0;
}

/* ------------------------------------------------------------ staging */
void ld_free_strv(char **v, size_t n)
{
    if (!v)
        return;
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

/* Hands a validated staged region to the model. */
sv_err ld_stage_commit(rank_data *rk, const char *name, region *tmp)
{
    region *r = rank_add_region(rk, name);
    if (!r)
        return SV_ERR_NOMEM;
    char *nm = r->name;
    int rank = r->rank;
    rank_data *owner = r->owner;
    *r = *tmp;
    r->name = nm;
    r->rank = rank;
    r->owner = owner;
    memset(tmp, 0, sizeof *tmp);
    return SV_OK;
}

/* ------------------------------------------------------------ validation */

/* Index of the first call with end < start, or n.  The first pass only
 * accumulates a flag so the compiler can vectorise it. */
size_t ld_first_end_before_start(const int64_t *s, const int64_t *e, size_t n)
{
    int bad = 0;
    for (size_t i = 0; i < n; i++)
        bad |= e[i] < s[i];
    if (!bad)
        return n;
    size_t i = 0;
    while (e[i] >= s[i])
        i++;
    return i;
}

/* Index of the first value outside [lo, hi], or n. */
size_t ld_first_outside(const int64_t *v, size_t n, int64_t lo, int64_t hi)
{
    int64_t mn = INT64_MAX, mx = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        mn = v[i] < mn ? v[i] : mn;
        mx = v[i] > mx ? v[i] : mx;
    }
    if (n == 0 || (mn >= lo && mx <= hi))
        return n;
    size_t i = 0;
    while (v[i] >= lo && v[i] <= hi)
        i++;
    return i;
}

/* Index of the first await time outside [0, end - start], or n. */
size_t ld_first_bad_await(const int64_t *a, const int64_t *s, const int64_t *e, size_t n)
{
    int bad = 0;
    for (size_t i = 0; i < n; i++)
        bad |= (a[i] < 0) | ((uint64_t)a[i] > (uint64_t)e[i] - (uint64_t)s[i]);
    if (!bad)
        return n;
    size_t i = 0;
    while (a[i] >= 0 && (uint64_t)a[i] <= (uint64_t)e[i] - (uint64_t)s[i])
        i++;
    return i;
}

void ld_drop_col(int64_t **col)
{
    free(*col);
    *col = NULL;
}

/* ------------------------------------------------------------ ranks */

/* "rank<N>", N a decimal number without sign that fits an int. */
bool ld_parse_rank(const char *name, int *rank)
{
    if (strncmp(name, "rank", 4) != 0 || name[4] == '\0')
        return false;
    long long v = 0;
    for (const char *s = name + 4; *s; s++) {
        if (*s < '0' || *s > '9')
            return false;
        v = v * 10 + (*s - '0');
        if (v > INT_MAX)
            return false;
    }
    *rank = (int)v;
    return true;
}

bool ld_rank_exists(const profile *p, int rank)
{
    for (size_t i = 0; i < p->nranks; i++)
        if (p->ranks[i].rank == rank)
            return true;
    return false;
}

/* ------------------------------------------------------------ metadata */

static sv_err meta_append(ld_ctx *c, char *key, h5u_text_kind kind, char *text)
{
    profile *p = c->p;
    if (p->nmeta == c->meta_cap) {
        size_t cap = c->meta_cap ? c->meta_cap * 2 : 16;
        meta_entry *v = realloc(p->meta, cap * sizeof *v);
        if (!v)
            return SV_ERR_NOMEM;
        p->meta = v;
        c->meta_cap = cap;
    }
    static const meta_kind kinds[] = {
        [H5U_TEXT_STRING] = META_STRING,
        [H5U_TEXT_INT] = META_INT,
        [H5U_TEXT_FLOAT] = META_FLOAT,
        [H5U_TEXT_BOOL] = META_BOOL,
    };
    p->meta[p->nmeta++] = (meta_entry){key, kinds[kind], text};
    return SV_OK;
}

static sv_err load_meta_attr(ld_ctx *c, hid_t g, const char *key)
{
    char why[H5U_WHY_MAX];
    h5u_text_kind kind;
    char *text;
    bool cut;
    h5u_status st = h5u_attr_text(&c->rd, g, key, &kind, &text, &cut, why, sizeof why);
    if (st == H5U_NOMEM)
        return SV_ERR_NOMEM;
    if (st != H5U_OK) {
        ld_warn(c, NULL, "attribute", key, "%s; ignored", why);
        return SV_OK;
    }
    if (cut)
        ld_warn(c, NULL, "attribute", key, "metadata value cut to %zu bytes",
                (size_t)SV_STRING_MAX);
    char *k = h5u_strndup_cut(key, strlen(key), NULL);
    if (!k || meta_append(c, k, kind, text) != SV_OK) {
        free(k);
        free(text);
        return SV_ERR_NOMEM;
    }
    return SV_OK;
}

static sv_err load_metadata(ld_ctx *c, hid_t f)
{
    char why[H5U_WHY_MAX];
    hid_t g = H5Gopen2(f, "metadata", H5P_DEFAULT);
    if (g < 0) {
        h5u_error_desc(why, sizeof why);
        ld_warn(c, NULL, "group", "metadata", "cannot open: %s; ignored", why);
        return SV_OK;
    }
    h5u_strs names;
    h5u_status st = h5u_attr_names(g, &names, why, sizeof why);
    sv_err e = st == H5U_NOMEM ? SV_ERR_NOMEM : SV_OK;
    if (st == H5U_BAD)
        ld_warn(c, NULL, "group", "metadata", "%s; ignored", why);
    for (size_t i = 0; st == H5U_OK && !e && i < names.n; i++)
        e = load_meta_attr(c, g, names.v[i]);
    h5u_strs_free(&names);
    H5Gclose(g);
    return e;
}

/* ------------------------------------------------------------ file */

static sv_err load_top_entry(ld_ctx *c, hid_t f, h5u_entry *en)
{
    int rank;
    h5u_entry_kind(f, en);
    if (en->kind == H5U_SOFT || en->kind == H5U_EXTERNAL) {
        ld_warn(c, NULL, "link", en->name, "%s link not followed",
                en->kind == H5U_SOFT ? "soft" : "external");
        return SV_OK;
    }
    if (strcmp(en->name, "metadata") == 0) {
        if (en->kind == H5U_GROUP)
            return load_metadata(c, f);
        ld_warn(c, NULL, "link", en->name, "not a group; ignored");
        return SV_OK;
    }
    if (!ld_parse_rank(en->name, &rank)) {
        ld_warn(c, NULL, en->kind == H5U_GROUP ? "group" : "link", en->name,
                "not a rank group or metadata; ignored");
        return SV_OK;
    }
    if (en->kind != H5U_GROUP) {
        ld_warn(c, NULL, "link", en->name, "not a group; ignored");
        return SV_OK;
    }
    if (ld_rank_exists(c->p, rank)) {
        ld_warn(c, NULL, "group", en->name, "another group already holds rank %d; ignored", rank);
        return SV_OK;
    }
    return ld_load_rank_group(c, f, en->name, rank);
}

static sv_err load_file(ld_ctx *c, hid_t f, sv_error *err)
{
    char why[H5U_WHY_MAX];
    h5u_list l;
    h5u_status st = h5u_list_group(f, &l, why, sizeof why);
    if (st == H5U_NOMEM)
        return ld_nomem(c, err);
    if (st != H5U_OK)
        return sv_error_set(err, SV_ERR_DAMAGED, "%s: damaged HDF5 file: %s", c->path, why);
    sv_err e = SV_OK;
    for (size_t i = 0; !e && i < l.n; i++)
        e = load_top_entry(c, f, &l.v[i]);
    h5u_list_free(&l);
    return e == SV_ERR_NOMEM ? ld_nomem(c, err) : e;
}

/* Whole-file checks before libhdf5 sees the path. */
static sv_err check_path(const char *path, const char *epath, uint64_t *size, sv_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return sv_error_set(err, SV_ERR_IO, "%s: %s", epath, strerror(errno));
    if (S_ISDIR(st.st_mode))
        return sv_error_set(err, SV_ERR_IO, "%s: is a directory", epath);
    if (!S_ISREG(st.st_mode))
        return sv_error_set(err, SV_ERR_IO, "%s: not a regular file", epath);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return sv_error_set(err, SV_ERR_IO, "%s: %s", epath, strerror(errno));
    close(fd);
    if (st.st_size == 0)
        return sv_error_set(err, SV_ERR_NOT_HDF5, "%s: not an HDF5 file (empty)", epath);
    *size = (uint64_t)st.st_size;
    return SV_OK;
}

/* Opens the file and loads it into c->p; closes everything it opened. */
static sv_err load_path(ld_ctx *c, const char *path, sv_error *err)
{
    char why[H5U_WHY_MAX];
    htri_t is = H5Fis_hdf5(path);
    if (is <= 0) {
        H5Eclear2(H5E_DEFAULT);
        return sv_error_set(err, SV_ERR_NOT_HDF5, "%s: not an HDF5 file", c->path);
    }
    if (h5u_reader_init(&c->rd, c->p->file_size) != H5U_OK)
        return ld_nomem(c, err);
    hid_t f = h5u_open_file(path, why, sizeof why);
    sv_err e;
    if (f < 0) {
        e = sv_error_set(err, SV_ERR_DAMAGED, "%s: damaged or truncated HDF5 file: %s", c->path,
                         why);
    } else {
        e = load_file(c, f, err);
        H5Fclose(f);
    }
    h5u_reader_close(&c->rd);
    H5Eclear2(H5E_DEFAULT);
    return e;
}

/* The load, or with probe only its walk (no profile is kept). */
static sv_err load_main(const char *path, const load_options *opt, bool probe, profile **out,
                        sv_error *err)
{
    ld_ctx c;
    memset(&c, 0, sizeof c);
    c.opt = opt;
    c.rank = -1;
    c.rd.dapl = -1;
    c.rd.probe = probe;
    text_escape_buf(c.path, sizeof c.path, path);
    uint64_t size = 0;
    sv_err e = check_path(path, c.path, &size, err);
    if (e)
        return e;
    h5u_setup();
    bool nomem = false;
    if (probe)
        h5u_watch_nomem(&nomem);
    c.p = profile_new(path);
    if (!c.p)
        return ld_nomem(&c, err);
    c.p->file_size = size;
    e = load_path(&c, path, err);
    free(c.seen.v);
    /* Whatever the walk made of it: an allocation refused under the probe's
     * limit would be a huge one, and slow, in-process. */
    if (probe) {
        h5u_setup();
        if (nomem)
            e = ld_nomem(&c, err);
    }
    if (!e && !probe)
        e = profile_finish(c.p, err);
    if (e || probe) {
        profile_free(c.p);
        return e;
    }
    c.rd.bytes_done = size;
    ld_progress(&c);
    *out = c.p;
    return SV_OK;
}

sv_err profile_load(const char *path, const load_options *opt, profile **out, sv_error *err)
{
    sv_error_clear(err);
    if (out)
        *out = NULL;
    if (!path || !out)
        return sv_error_set(err, SV_ERR_USAGE, "profile_load: no path");
    return load_main(path, opt, false, out, err);
}

sv_err loader_probe_walk(const char *path, const load_options *opt, sv_error *err)
{
    profile *p = NULL;
    sv_error_clear(err);
    if (!path)
        return sv_error_set(err, SV_ERR_USAGE, "loader_probe_walk: no path");
    return load_main(path, opt, true, &p, err);
}
