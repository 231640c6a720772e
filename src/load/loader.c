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
#include "load_aux.h"
#include "util/strbuf.h"
#include "util/text.h"

#include "load_json.h"
#include "load_sink_ops.h"
#include "loader_internal.h"
#include "stream_col.h"
#include "util/hash.h"

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
    return sv_hash_u64(x);
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

#define LD_META_MAX 1024

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
    /* libhdf5 finds an attribute of a compact (old-format) object header by
     * comparing names one by one: opening n of them costs n^2 / 2 string
     * compares (80 000 took 43 s), so only the first LD_META_MAX are read. */
    size_t n = st == H5U_OK ? names.n : 0;
    if (n > LD_META_MAX) {
        ld_warn(c, NULL, "group", "metadata", "%zu attributes; the first %d (by name) kept", n,
                LD_META_MAX);
        n = LD_META_MAX;
    }
    for (size_t i = 0; !e && i < n; i++) {
        e = load_meta_attr(c, g, names.v[i]);
        if (i % 256 == 255)
            ld_progress(c); /* the isolated load's watchdog sees work going on */
    }
    h5u_strs_free(&names);
    H5Gclose(g);
    return e;
}

/* ------------------------------------------------------------ file */

static sv_err ld_set_rank(ld_ctx *c, sv_error *err);

/* Keys of /metadata the layout needs, as integers (-1 when absent). */
static int64_t meta_int(const profile *p, size_t from, const char *key)
{
    for (size_t i = from; i < p->nmeta; i++)
        if (p->meta[i].kind == META_INT && strcmp(p->meta[i].key, key) == 0)
            return strtoll(p->meta[i].text, NULL, 10);
    return -1;
}

/* scope_profiler_schema: absent = 1; an integer 1..3 (doc/FORMAT.md, "Which layout a file has"). */
static sv_err read_schema(ld_ctx *c, hid_t f, sv_error *err)
{
    c->schema = 1;
    if (H5Aexists(f, "scope_profiler_schema") <= 0) {
        H5Eclear2(H5E_DEFAULT);
        return SV_OK;
    }
    hid_t a = H5Aopen(f, "scope_profiler_schema", H5P_DEFAULT);
    hid_t t = a >= 0 ? H5Aget_type(a) : -1;
    H5T_class_t cls = t >= 0 ? H5Tget_class(t) : H5T_NO_CLASS;
    if (t >= 0)
        H5Tclose(t);
    if (a >= 0)
        H5Aclose(a);
    H5Eclear2(H5E_DEFAULT);
    char why[H5U_WHY_MAX];
    int64_t v = 0;
    if (cls != H5T_INTEGER)
        return sv_error_set(err, SV_ERR_FORMAT,
                            "%s: attribute scope_profiler_schema is not an integer (%s)", c->path,
                            cls == H5T_ENUM ? "a boolean" : "another type");
    if (h5u_attr_i64(f, "scope_profiler_schema", &v, why, sizeof why) != H5U_OK)
        return sv_error_set(err, SV_ERR_FORMAT, "%s: attribute scope_profiler_schema: %s", c->path,
                            why);
    if (v < 1)
        return sv_error_set(err, SV_ERR_FORMAT,
                            "%s: scope_profiler_schema %lld is not a schema version", c->path,
                            (long long)v);
    if (v > 3)
        return sv_error_set(err, SV_ERR_FORMAT,
                            "%s: scope_profiler_schema %lld is newer than this scopeview reads "
                            "(schemas 1 to 3); upgrade scopeview",
                            c->path, (long long)v);
    c->schema = (int)v;
    c->p->schema = (int)v;
    return SV_OK;
}

/* storage_layout: "columnar" (also when absent) or "aggregate". */
static sv_err read_layout(ld_ctx *c, hid_t f, bool *aggregate, sv_error *err)
{
    *aggregate = false;
    if (H5Aexists(f, "storage_layout") <= 0) {
        H5Eclear2(H5E_DEFAULT);
        return SV_OK;
    }
    char why[H5U_WHY_MAX], esc[LD_ESC_NAME];
    h5u_strs s;
    h5u_status st = h5u_attr_strs(&c->rd, f, "storage_layout", &s, why, sizeof why);
    if (st == H5U_NOMEM)
        return ld_nomem(c, err);
    if (st != H5U_OK || s.n != 1) {
        if (st == H5U_OK)
            h5u_strs_free(&s);
        return sv_error_set(err, SV_ERR_FORMAT, "%s: attribute storage_layout: %s", c->path,
                            st == H5U_OK ? "not one string" : why);
    }
    sv_err e = SV_OK;
    if (strcmp(s.v[0], "aggregate") == 0)
        *aggregate = true;
    else if (strcmp(s.v[0], "columnar") != 0) {
        text_escape_buf(esc, sizeof esc, s.v[0]);
        e = sv_error_set(err, SV_ERR_FORMAT,
                         "%s: storage_layout %s is not one scopeview reads (columnar, aggregate)",
                         c->path, esc);
    }
    h5u_strs_free(&s);
    return e;
}

/* The rank a rank<N> group's auxiliary records belong to. */
static sv_err load_aux_group(ld_ctx *c, hid_t f, const char *gname, int rank, sv_error *err)
{
    rank_data *rk = NULL;
    for (size_t i = 0; i < c->p->nranks; i++)
        if (c->p->ranks[i].rank == rank)
            rk = &c->p->ranks[i];
    if (!rk) {
        ld_warn(c, NULL, "group", gname, "records of a rank without regions; ignored");
        return SV_OK;
    }
    hid_t rg = H5Gopen2(f, gname, H5P_DEFAULT);
    if (rg < 0) {
        char why[H5U_WHY_MAX];
        h5u_error_desc(why, sizeof why);
        ld_warn(c, NULL, "group", gname, "cannot open: %s; skipped", why);
        return SV_OK;
    }
    c->rank = rank;
    sv_err e = load_aux_rank(&c->rd, c->p, rk, rg, err);
    c->rank = -1;
    H5Gclose(rg);
    return e;
}

static sv_err load_top_entry(ld_ctx *c, hid_t f, h5u_entry *en, sv_error *err)
{
    int rank;
    h5u_entry_kind(f, en);
    if (en->kind == H5U_SOFT || en->kind == H5U_EXTERNAL) {
        ld_warn(c, NULL, "link", en->name, "%s link not followed",
                en->kind == H5U_SOFT ? "soft" : "external");
        return SV_OK;
    }
    if (strcmp(en->name, "metadata") == 0)
        return SV_OK; /* read first, by load_file */
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
    /* One group hard-linked as rank0..rankN would load N copies of itself. */
    int fresh = ld_addr_set_add(&c->rank_groups, (uint64_t)en->addr);
    if (fresh < 0)
        return SV_ERR_NOMEM;
    if (fresh == 0) {
        ld_warn(c, NULL, "group", en->name,
                "the same group as an earlier rank group (a hard link); ignored");
        return SV_OK;
    }
    sv_err e = ld_load_rank_group(c, f, en->name, rank);
    return e ? e : load_aux_group(c, f, en->name, rank, err);
}

/* Root items of the columnar layouts; rank<N> groups hold only auxiliary
 * records there (never regions, never ranks of their own). */
static sv_err columnar_top_entry(ld_ctx *c, hid_t f, h5u_entry *en, sv_error *err)
{
    static const char *const known[] = {"metadata", "region_table", "rank_region_index",
                                        "events",   "thread_table", "task_table"};
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
        if (strcmp(en->name, known[k]) == 0)
            return SV_OK;
    int rank;
    if (ld_parse_rank(en->name, &rank) && h5u_entry_kind(f, en) == H5U_GROUP)
        return load_aux_group(c, f, en->name, c->rank_override >= 0 ? c->rank_override : rank, err);
    ld_warn(c, NULL, h5u_entry_kind(f, en) == H5U_GROUP ? "group" : "link", en->name,
            "not part of the columnar layout; ignored");
    return SV_OK;
}

/* The top-level names, for the message of a file without regions. */
static void top_names(const h5u_list *l, char *buf, size_t cap)
{
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < l->n && o + 8 < cap; i++) {
        char esc[64];
        text_escape_buf(esc, sizeof esc, l->v[i].name);
        int k = snprintf(buf + o, cap - o, "%s%s", i ? ", " : "", esc);
        if (k < 0 || (size_t)k >= cap - o) {
            snprintf(buf + o, cap - o, ", ...");
            break;
        }
        o += (size_t)k;
    }
}

/* No region container scopeview knows: an error naming what is there,
 * never an empty success.  A file with only /metadata (a run that
 * recorded nothing) still opens. */
static sv_err check_recognised(ld_ctx *c, const h5u_list *l, sv_error *err)
{
    bool other = false, container = false;
    int rank;
    for (size_t i = 0; i < l->n; i++) {
        const char *nm = l->v[i].name;
        if (c->schema >= 2 ? strcmp(nm, "rank_region_index") == 0 : ld_parse_rank(nm, &rank))
            container = true;
        else if (strcmp(nm, "metadata") != 0)
            other = true;
    }
    if (container || (l->n > 0 && !other))
        return SV_OK;
    char names[300];
    top_names(l, names, sizeof names);
    if (l->n == 0)
        return sv_error_set(err, SV_ERR_FORMAT,
                            "%s: not a scope-profiler profile: the file is empty", c->path);
    return sv_error_set(err, SV_ERR_FORMAT,
                        "%s: not a scope-profiler profile: no %s (top-level groups: %s)", c->path,
                        c->schema >= 2 ? "rank_region_index" : "rank<N> group", names);
}

static sv_err load_meta_first(ld_ctx *c, hid_t f, h5u_list *l)
{
    long mi = h5u_list_find(l, "metadata");
    if (mi < 0)
        return SV_OK;
    if (h5u_entry_kind(f, &l->v[mi]) != H5U_GROUP) {
        ld_warn(c, NULL, "link", "metadata", "not a group; ignored");
        return SV_OK;
    }
    size_t before = c->p->nmeta;
    sv_err e = load_metadata(c, f);
    c->mpi_size = meta_int(c->p, before, "mpi_size");
    c->mpi_rank = meta_int(c->p, before, "mpi_rank");
    /* In a file set only the first file's metadata is the profile's (a
     * native trace before it has none). */
    if (c->meta_taken) {
        for (size_t i = before; i < c->p->nmeta; i++) {
            free(c->p->meta[i].key);
            free(c->p->meta[i].text);
        }
        c->p->nmeta = before;
    }
    c->meta_taken = true;
    return e;
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
    bool aggregate = false;
    sv_err e = read_schema(c, f, err);
    if (!e && c->schema < 2 && c->opt && c->opt->index_only)
        e = sv_error_set(err, SV_ERR_USAGE, "%s: schema 1 has no index to read alone", c->path);
    if (!e && c->schema >= 2)
        e = read_layout(c, f, &aggregate, err);
    if (!e)
        e = check_recognised(c, &l, err);
    if (!e && (e = load_meta_first(c, f, &l)) == SV_ERR_NOMEM)
        e = ld_nomem(c, err);
    if (!e && c->in_set)
        e = ld_set_rank(c, err);
    if (!e && c->skip_file) {
        h5u_list_free(&l);
        return SV_OK;
    }
    if (!e && c->schema >= 2)
        e = ld_load_columnar(c, f, &l, aggregate, err);
    for (size_t i = 0; !e && i < l.n; i++)
        e = c->schema >= 2 ? columnar_top_entry(c, f, &l.v[i], err)
                           : load_top_entry(c, f, &l.v[i], err);
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

/* The rank of one file of a set: metadata mpi_rank, else the name's. */
static sv_err ld_set_rank(ld_ctx *c, sv_error *err)
{
    if (c->schema < 2)
        return sv_error_set(err, SV_ERR_FORMAT,
                            "%s: schema 1 file; only columnar rank files (the C API's "
                            "PREFIX_rankNNNNN.h5) open together as one profile",
                            c->path);
    int64_t r = c->mpi_rank >= 0 && c->mpi_rank <= INT_MAX ? c->mpi_rank : c->name_rank;
    if (r < 0)
        return sv_error_set(err, SV_ERR_FORMAT,
                            "%s: cannot tell this file's rank (no metadata mpi_rank, no "
                            "_rank<N> in its name)",
                            c->path);
    if (ld_rank_exists(c->p, (int)r)) {
        /* Two native traces of one rank are two runs mixed up: refused. */
        for (size_t k = 0; k < c->set_index; k++)
            if (c->set_ranks[k] == (int)r && c->formats[k] &&
                strncmp(c->formats[k], "native", 6) == 0)
                return ld_set_claimed(c, (int)r, err);
        ld_warn(c, NULL, NULL, NULL, "rank %lld came already from another file; file skipped",
                (long long)r);
        c->skip_file = true;
    }
    c->rank_override = (int)r;
    return SV_OK;
}

sv_err ld_set_claimed(ld_ctx *c, int rank, sv_error *err)
{
    char other[LD_ESC_PATH] = "another file";
    for (size_t k = 0; k < c->set_index; k++)
        if (c->set_ranks[k] == rank)
            text_escape_buf(other, sizeof other, c->p->paths[k]);
    return sv_error_set(err, SV_ERR_FORMAT,
                        "%s: rank %d, which %s claims too (two files of one rank)", c->path, rank,
                        other);
}

/* N of a name ending "_rank<N>.h5", or -1. */
static int name_rank(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *r = NULL;
    for (const char *s = strstr(base, "_rank"); s; s = strstr(s + 1, "_rank"))
        r = s;
    if (!r)
        return -1;
    r += 5;
    long long v = 0;
    const char *d = r;
    while (*d >= '0' && *d <= '9' && v <= INT_MAX)
        v = v * 10 + (*d++ - '0');
    if (d == r || v > INT_MAX || strcmp(d, ".h5") != 0)
        return -1;
    return (int)v;
}

/* A native trace (load_spt.c), told by its first bytes: 1 loaded (or
 * failed: *e), 0 not one, the file left to libhdf5. */
static int load_native(ld_ctx *c, const char *path, uint64_t size, sv_err *e, sv_error *err)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        *e = sv_error_set(err, SV_ERR_IO, "%s: %s", c->path, strerror(errno));
        return 1;
    }
    unsigned char head[8];
    size_t got = fread(head, 1, sizeof head, fp);
    if (!ld_spt_magic(head, got)) {
        fclose(fp);
        return 0;
    }
    rewind(fp);
    c->rd.file_size = c->p->file_size;
    c->rd.bytes_done = c->p->file_size - size;
    c->rd.budget = c->opt ? c->opt->budget : NULL;
    *e = ld_load_spt(c, fp, size, err);
    fclose(fp);
    if (!*e && ld_note_format(c, "native trace, version %d, %s-endian, rank %d", c->spt_version,
                              c->spt_big_endian ? "big" : "little", c->set_ranks[c->set_index]))
        *e = ld_nomem(c, err);
    return 1;
}

/* Opens the file and loads it into c->p; closes everything it opened. */
/* The file's first bytes: a JSON profile (gzip'd or not) is told by its
 * content, never by its name. */
static bool is_json(const char *path)
{
    unsigned char head[256];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, head, sizeof head);
    close(fd);
    return n > 0 && ld_json_sniff(head, (size_t)n);
}

static sv_err load_path(ld_ctx *c, const char *path, uint64_t size, sv_error *err)
{
    char why[H5U_WHY_MAX];
    if (c->opt && c->opt->index_only && (is_json(path) || profile_path_is_native(path)))
        return sv_error_set(err, SV_ERR_USAGE, "%s: no index to read alone", c->path);
    if (is_json(path))
        return ld_load_json(c, path, size, err);
    sv_err ne = SV_OK;
    if (load_native(c, path, size, &ne, err))
        return ne;
    htri_t is = H5Fis_hdf5(path);
    if (is <= 0) {
        H5Eclear2(H5E_DEFAULT);
        return sv_error_set(err, SV_ERR_NOT_HDF5, "%s: not an HDF5 file or a native trace",
                            c->path);
    }
    if (h5u_reader_init(&c->rd, size) != H5U_OK)
        return ld_nomem(c, err);
    hid_t f = h5u_open_file(path, why, sizeof why);
    sv_err e;
    if (f == H5U_OPEN_BUSY) {
        e = sv_error_set(err, SV_ERR_IO, "%s: %s; try again when it is closed", c->path, why);
    } else if (f < 0) {
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

/* The ranks a file set lacks below its highest: one warning. */
static void warn_missing_ranks(ld_ctx *c)
{
    profile *p = c->p;
    int top = -1;
    for (size_t i = 0; i < p->nranks; i++)
        top = p->ranks[i].rank > top ? p->ranks[i].rank : top;
    char list[200];
    size_t o = 0, miss = 0;
    for (int r = 0; r < top && r < 1000000; r++) {
        if (ld_rank_exists(p, r))
            continue;
        if (miss++ < 10 && o + 16 < sizeof list)
            o += (size_t)snprintf(list + o, sizeof list - o, "%s%d", o ? ", " : "", r);
    }
    if (miss)
        profile_warn(p, "%s and the other files: the set has no file for rank%s %s%s (of 0..%d)",
                     c->path, miss > 1 ? "s" : "", list, miss > 10 ? ", ..." : "", top);
}

/* Sets p->paths to the set's paths. */
static bool set_paths(profile *p, const char *const *paths, size_t n)
{
    char **v = calloc(n, sizeof *v);
    if (!v)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!(v[i] = strdup(paths[i]))) {
            ld_free_strv(v, i);
            return false;
        }
    ld_free_strv(p->paths, p->npaths);
    p->paths = v;
    p->npaths = n;
    return true;
}

/* What the file being loaded is, for the info view (p->path_formats). */
sv_err ld_note_format(ld_ctx *c, const char *fmt, ...)
{
    char line[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    free(c->formats[c->set_index]);
    c->formats[c->set_index] = strdup(line);
    return c->formats[c->set_index] ? SV_OK : SV_ERR_NOMEM;
}

static const char *layout_word(const profile *p)
{
    return p->layout == LAYOUT_AGGREGATE  ? "aggregate"
           : p->layout == LAYOUT_COLUMNAR ? "columnar"
                                          : "groups";
}

/* Loads one file of the n: its format noted, its rank recorded. */
static sv_err load_one(ld_ctx *c, const char *path, uint64_t size, sv_error *err)
{
    sv_err e = load_path(c, path, size, err);
    if (e || c->formats[c->set_index])
        return e; /* a native trace noted itself */
    if (c->in_set && !c->skip_file)
        c->set_ranks[c->set_index] = c->rank_override;
    if (c->p->format != PFMT_HDF5) /* a JSON profile holds a whole run: never in a set */
        e = ld_note_format(c, "JSON profile%s, format_version 1, %s",
                           c->p->format == PFMT_JSON_GZIP ? " (gzip)" : "", layout_word(c->p));
    else if (!c->in_set)
        e = ld_note_format(c, "HDF5, schema %d, %s", c->schema, layout_word(c->p));
    else
        e = ld_note_format(c, "HDF5, schema %d, %s, %s %d", c->schema, layout_word(c->p),
                           c->skip_file ? "skipped: a second file of rank" : "rank",
                           c->rank_override);
    return e ? ld_nomem(c, err) : SV_OK;
}

/* Loads the n paths into c->p (n > 1: a file set). */
static sv_err load_files(ld_ctx *c, const char *const *paths, size_t n, sv_error *err)
{
    sv_err e = SV_OK;
    c->in_set = n > 1;
    c->set_ranks = malloc(n * sizeof *c->set_ranks);
    c->formats = calloc(n, sizeof *c->formats);
    if (!c->set_ranks || !c->formats)
        return ld_nomem(c, err);
    for (size_t k = 0; k < n; k++)
        c->set_ranks[k] = -1;
    for (size_t k = 0; !e && k < n; k++) {
        text_escape_buf(c->path, sizeof c->path, paths[k]);
        uint64_t size = 0;
        e = check_path(paths[k], c->path, &size, err);
        if (e)
            break;
        c->p->file_size += size;
        c->set_index = k;
        c->skip_file = false;
        c->mpi_rank = c->mpi_size = -1;
        c->rank_override = -1;
        c->name_rank = name_rank(paths[k]);
        e = load_one(c, paths[k], size, err);
    }
    if (!e) {
        c->p->path_formats = c->formats;
        c->formats = NULL;
    }
    if (!e && n > 1) {
        text_escape_buf(c->path, sizeof c->path, paths[0]);
        warn_missing_ranks(c);
    }
    return e;
}

static sv_err load_run(const char *const *paths, size_t n, const load_options *opt, profile **out,
                       sv_error *err)
{
    ld_ctx c;
    memset(&c, 0, sizeof c);
    c.opt = opt;
    c.rank = -1;
    c.rank_override = -1;
    c.rd.dapl = -1;
    c.rd.budget = opt ? opt->budget : NULL;
    text_escape_buf(c.path, sizeof c.path, paths[0]);
    h5u_setup();
    c.p = profile_new(paths[0]);
    if (!c.p || (n > 1 && !set_paths(c.p, paths, n))) {
        profile_free(c.p);
        return ld_nomem(&c, err);
    }
    sv_err e = load_files(&c, paths, n, err);
    sg_free(&c); /* out of core, schema 1 (stream_col.h) */
    free(c.set_ranks);
    ld_free_strv(c.formats, n);
    free(c.seen.v);
    free(c.rank_groups.v);
    free(c.ranks.v);
    if (!e) /* the sink's last steps (load_sink.h step 5) */
        e = ld_sink(&c)->ops->finish(ld_sink(&c), &c, err);
    if (!e)
        profile_stored_min_start(c.p);
    if (e) {
        profile_free(c.p);
        return e;
    }
    c.rd.bytes_done = c.rd.file_size = c.p->file_size;
    ld_progress(&c);
    *out = c.p;
    return SV_OK;
}

/* The paths with each directory expanded to its run's files. */
static sv_err load_main(const char *const *paths, size_t n, const load_options *opt, profile **out,
                        sv_error *err)
{
    char **v;
    size_t nv;
    sv_err e = profile_run_paths(paths, n, &v, &nv, err);
    if (e)
        return e;
    e = load_run((const char *const *)v, nv, opt, out, err);
    profile_run_paths_free(v, nv);
    return e;
}

sv_err profile_load(const char *path, const load_options *opt, profile **out, sv_error *err)
{
    sv_error_clear(err);
    if (out)
        *out = NULL;
    if (!path || !out)
        return sv_error_set(err, SV_ERR_USAGE, "profile_load: no path");
    return load_main(&path, 1, opt, out, err);
}

sv_err profile_load_set(const char *const *paths, size_t n, const load_options *opt, profile **out,
                        sv_error *err)
{
    sv_error_clear(err);
    if (out)
        *out = NULL;
    if (!paths || n == 0 || !out)
        return sv_error_set(err, SV_ERR_USAGE, "profile_load_set: no path");
    for (size_t i = 0; i < n; i++)
        if (!paths[i])
            return sv_error_set(err, SV_ERR_USAGE, "profile_load_set: no path");
    return load_main(paths, n, opt, out, err);
}
