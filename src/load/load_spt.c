/* load_spt: a native trace (.spt) of the C API without HDF5 or of the
 * Fortran API: one rank per file, regions of start and end times, no ids
 * (doc/FORMAT.md "Native traces").
 *
 * The whole layout is checked as it is read, every length and count
 * against the bytes the file has left before anything is allocated, so a
 * damaged trace fails with one line naming the file and the offset, and a
 * trace that claims more calls than it holds never allocates for them. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load_rows.h"
#include "load_sink_ops.h"
#include "loader_internal.h"
#include "model/budget.h"
#include "util/hash.h"
#include "util/text.h"

#define SPT_MAGIC "SCOPEPRF"
#define SPT_HEADER 24
/* Bytes read between two progress reports. */
#define SPT_TICK ((uint64_t)16 << 20)

typedef struct spt_in {
    ld_ctx *c;
    FILE *fp;
    uint64_t off, size;
    bool be; /* the writer's byte order is big-endian */
    int version;
    uint64_t ticked;
    sv_error *err;
} spt_in;

/* Region names seen in this file (open addressing over the staged names). */
typedef struct spt_names {
    char **v;
    size_t cap, n;
} spt_names;

bool ld_spt_magic(const unsigned char *head, size_t n)
{
    return n >= 8 && memcmp(head, SPT_MAGIC, 8) == 0;
}

static sv_err spt_fail(spt_in *in, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static sv_err spt_fail(spt_in *in, uint64_t off, const char *fmt, ...)
{
    char what[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return sv_error_set(in->err, SV_ERR_FORMAT,
                        "%s: damaged native trace at offset %" PRIu64 ": %s", in->c->path, off,
                        what);
}

static uint64_t spt_left(const spt_in *in)
{
    return in->size - in->off;
}

/* Reads n bytes at the current offset; a short file fails naming what. */
static sv_err spt_read(spt_in *in, void *buf, size_t n, const char *what)
{
    if (n > spt_left(in))
        return spt_fail(in, in->off, "truncated: %s needs %zu bytes, %" PRIu64 " left", what, n,
                        spt_left(in));
    if (n && fread(buf, 1, n, in->fp) != n)
        return sv_error_set(in->err, SV_ERR_IO, "%s: read error at offset %" PRIu64 ": %s",
                            in->c->path, in->off, ferror(in->fp) ? strerror(errno) : "short read");
    in->off += n;
    if (in->off - in->ticked >= SPT_TICK) {
        in->ticked = in->off;
        in->c->rd.bytes_done = in->c->rd.file_size - in->size + in->off;
        ld_progress(in->c);
    }
    return SV_OK;
}

static uint64_t spt_word(const unsigned char *b, size_t n, bool be)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v |= (uint64_t)b[be ? i : n - 1 - i] << (8 * (n - 1 - i));
    return v;
}

static sv_err spt_i32(spt_in *in, int32_t *v, const char *what)
{
    unsigned char b[4];
    sv_err e = spt_read(in, b, 4, what);
    if (!e)
        *v = (int32_t)(uint32_t)spt_word(b, 4, in->be);
    return e;
}

static sv_err spt_i64(spt_in *in, int64_t *v, const char *what)
{
    unsigned char b[8];
    sv_err e = spt_read(in, b, 8, what);
    if (!e)
        *v = (int64_t)spt_word(b, 8, in->be);
    return e;
}

/* The version field decides the byte order: exactly one reading of it is
 * 1 or 2 (the magic reads the same both ways). */
static sv_err spt_header(spt_in *in, int32_t *rank, int64_t *nregions)
{
    unsigned char h[SPT_HEADER];
    if (in->size < SPT_HEADER)
        return spt_fail(in, in->size, "truncated: the header needs %d bytes, the file has %" PRIu64,
                        SPT_HEADER, in->size);
    sv_err e = spt_read(in, h, SPT_HEADER, "the header");
    if (e)
        return e;
    int32_t le = (int32_t)(uint32_t)spt_word(h + 8, 4, false);
    int32_t be = (int32_t)(uint32_t)spt_word(h + 8, 4, true);
    if (le == 1 || le == 2) {
        in->be = false;
        in->version = le;
    } else if (be == 1 || be == 2) {
        in->be = true;
        in->version = be;
    } else {
        return spt_fail(in, 8,
                        "unknown format version %" PRId32 " (big-endian %" PRId32
                        "); this scopeview reads versions 1 and 2",
                        le, be);
    }
    *rank = (int32_t)(uint32_t)spt_word(h + 12, 4, in->be);
    *nregions = (int64_t)spt_word(h + 16, 8, in->be);
    if (*rank < 0)
        return spt_fail(in, 12, "negative rank %" PRId32, *rank);
    if (*nregions < 0)
        return spt_fail(in, 16, "negative region count %" PRId64, *nregions);
    /* The smallest region: a name length and a call count (v2: a source
     * length and a line too). */
    uint64_t least = in->version == 2 ? 20 : 12;
    if ((uint64_t)*nregions > spt_left(in) / least)
        return spt_fail(in, 16,
                        "region count %" PRId64 " is more than the %" PRIu64 " bytes left can hold",
                        *nregions, spt_left(in));
    return SV_OK;
}

/* A length-prefixed UTF-8 string (no NUL, valid UTF-8). */
static sv_err spt_string(spt_in *in, const char *what, char **out)
{
    uint64_t at = in->off;
    int32_t len;
    sv_err e = spt_i32(in, &len, what);
    if (e)
        return e;
    if (len < 0)
        return spt_fail(in, at, "negative %s length %" PRId32, what, len);
    if ((uint64_t)len > spt_left(in))
        return spt_fail(in, at, "%s length %" PRId32 " is more than the %" PRIu64 " bytes left",
                        what, len, spt_left(in));
    if ((size_t)len > SV_STRING_MAX)
        return spt_fail(in, at, "%s length %" PRId32 " is over the %zu bytes scopeview keeps", what,
                        len, SV_STRING_MAX);
    char *s = malloc((size_t)len + 1);
    if (!s)
        return SV_ERR_NOMEM;
    uint64_t from = in->off;
    if ((e = spt_read(in, s, (size_t)len, what))) {
        free(s);
        return e;
    }
    s[len] = '\0';
    for (size_t i = 0; i < (size_t)len;) {
        uint32_t cp;
        size_t k = s[i] ? utf8_decode(s + i, (size_t)len - i, &cp) : 0;
        if (k == 0) {
            bool nul = s[i] == '\0';
            free(s);
            return spt_fail(in, from + i, "the %s is not valid UTF-8%s", what,
                            nul ? " (a NUL byte)" : "");
        }
        i += k;
    }
    *out = s;
    return SV_OK;
}

/* Reads n int64 values into a fresh column charged to the budget. */
static sv_err spt_column(spt_in *in, size_t n, const char *name, const char *what, int64_t **out)
{
    char item[LD_LINE / 2];
    snprintf(item, sizeof item, "rank %d region %s %s", in->c->rank, name, what);
    if (!budget_charge(in->c->rd.budget, (uint64_t)n * 8, item))
        return SV_ERR_NOMEM;
    int64_t *v = malloc(n ? n * 8 : 1);
    if (!v)
        return SV_ERR_NOMEM;
    sv_err e = spt_read(in, v, n * 8, what);
    if (e) {
        free(v);
        return e;
    }
    unsigned char *p = (unsigned char *)v;
    for (size_t i = 0; i < n; i++)
        v[i] = (int64_t)spt_word(p + 8 * i, 8, in->be);
    *out = v;
    return SV_OK;
}

/* 1 when name is new in this file (and recorded), 0 when seen, -1 NOMEM. */
static int spt_names_add(spt_names *s, char *name)
{
    if ((s->n + 1) * 2 > s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        char **v = calloc(cap, sizeof *v);
        if (!v)
            return -1;
        for (size_t i = 0; i < s->cap; i++) {
            if (!s->v[i])
                continue;
            size_t j = sv_hash_str(s->v[i]) & (cap - 1);
            while (v[j])
                j = (j + 1) & (cap - 1);
            v[j] = s->v[i];
        }
        free(s->v);
        s->v = v;
        s->cap = cap;
    }
    size_t j = sv_hash_str(name) & (s->cap - 1);
    while (s->v[j]) {
        if (strcmp(s->v[j], name) == 0)
            return 0;
        j = (j + 1) & (s->cap - 1);
    }
    s->v[j] = name;
    s->n++;
    return 1;
}

static void spt_names_free(spt_names *s)
{
    for (size_t i = 0; i < s->cap; i++)
        free(s->v[i]);
    free(s->v);
    memset(s, 0, sizeof *s);
}

/* The call count of region `name`: at most what the bytes left hold. */
static sv_err spt_count(spt_in *in, const char *name, size_t *n)
{
    uint64_t at = in->off;
    int64_t v;
    sv_err e = spt_i64(in, &v, "a call count");
    if (e)
        return e;
    char esc[LD_ESC_NAME];
    text_escape_buf(esc, sizeof esc, name);
    if (v < 0)
        return spt_fail(in, at, "region %s: negative call count %" PRId64, esc, v);
    if ((uint64_t)v > spt_left(in) / 16)
        return spt_fail(
            in, at, "region %s: %" PRId64 " calls need %" PRIu64 " bytes, %" PRIu64 " left", esc, v,
            (uint64_t)v > UINT64_MAX / 16 ? UINT64_MAX : (uint64_t)v * 16, spt_left(in));
    *n = (size_t)v;
    return SV_OK;
}

/* Whether this process loads region name of rk (an MPI run's share,
 * load_rows.h; every region otherwise). */
static bool spt_owns(const ld_ctx *c, const rank_data *rk, const char *name)
{
    return ld_sink(c)->ops->owns(ld_sink(c), rk->rank, name);
}

/* The staged region's columns, checked, then committed (or dropped with a
 * warning when a call ends before it starts, as in the HDF5 layouts). */
static sv_err spt_calls(spt_in *in, rank_data *rk, const char *name, region *t)
{
    sv_err e = spt_column(in, t->n, name, "start_times", &t->start_ns);
    if (!e)
        e = spt_column(in, t->n, name, "end_times", &t->end_ns);
    if (e || !spt_owns(in->c, rk, name))
        return e;
    size_t bad = ld_first_end_before_start(t->start_ns, t->end_ns, t->n);
    if (bad < t->n) {
        ld_warn(in->c, name, NULL, NULL,
                "end < start at call %zu (start %" PRId64 ", end %" PRId64 "); region dropped", bad,
                t->start_ns[bad], t->end_ns[bad]);
        return SV_OK;
    }
    t->has_event_data = true;
    rk->ncalls += t->n;
    return ld_stage_commit(rk, name, t);
}

/* One region: its name, [v2: source file and line], its calls. */
static sv_err spt_region(spt_in *in, rank_data *rk, spt_names *seen)
{
    uint64_t at = in->off;
    char *name = NULL, *src = NULL;
    int32_t line = -1;
    region t;
    memset(&t, 0, sizeof t);
    sv_err e = spt_string(in, "region name", &name);
    if (e)
        return e;
    int fresh = spt_names_add(seen, name); /* seen owns name from here */
    if (fresh <= 0) {
        char esc[LD_ESC_NAME];
        text_escape_buf(esc, sizeof esc, name);
        free(name);
        return fresh < 0 ? SV_ERR_NOMEM : spt_fail(in, at, "region %s comes twice", esc);
    }
    if (in->version == 2 && !(e = spt_string(in, "source file", &src)))
        e = spt_i32(in, &line, "a source line");
    if (!e)
        e = spt_count(in, name, &t.n);
    if (!e && rk->ncalls + t.n > SV_RANK_CALLS_MAX)
        e = spt_fail(in, at, "more than %zu calls on one rank", SV_RANK_CALLS_MAX);
    if (!e && src && src[0]) {
        t.source_file = src;
        src = NULL;
    }
    t.has_lineno = line >= 0;
    t.source_lineno = line >= 0 ? line : 0;
    if (!e)
        e = spt_calls(in, rk, name, &t);
    free(src);
    region_clear(&t);
    return e;
}

sv_err ld_load_spt(ld_ctx *c, FILE *fp, uint64_t size, sv_error *err)
{
    spt_in in = {.c = c, .fp = fp, .size = size, .err = err};
    int32_t rank = 0;
    int64_t nregions = 0;
    sv_err e = spt_header(&in, &rank, &nregions);
    if (e)
        return e;
    c->spt_version = in.version;
    c->spt_big_endian = in.be;
    if (ld_rank_exists(c->p, rank))
        return ld_set_claimed(c, rank, err);
    c->set_ranks[c->set_index] = rank;
    if (c->p->layout == LAYOUT_GROUPS) /* no HDF5 file before: a set has no schema-1 file */
        c->p->layout = LAYOUT_NATIVE;
    rank_data *rk = profile_add_rank(c->p, rank);
    if (!rk)
        return ld_nomem(c, err);
    c->rank = rank;
    spt_names seen = {0};
    for (int64_t i = 0; !e && i < nregions; i++)
        e = spt_region(&in, rk, &seen);
    spt_names_free(&seen);
    c->rank = -1;
    if (!e && spt_left(&in) > 0)
        e = spt_fail(&in, in.off, "%" PRIu64 " trailing bytes after the last region",
                     spt_left(&in));
    /* Over the budget: the isolated load names the biggest columns (budget.h). */
    return e == SV_ERR_NOMEM ? ld_nomem(c, err) : e;
}
