/* load_json: see load_json.h.  The input (zlib's gzread reads gzip and
 * plain text alike), yajl's callbacks, the stack of open containers with
 * the JSON path of messages, the document's top level and its metadata. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <yajl/yajl_parse.h>
#include <zlib.h>

#include "load_json_internal.h"
#include "model/budget.h"
#include "util/text.h"

/* Bytes read and parsed at a time. */
#define JL_CHUNK ((size_t)1 << 18)
/* Progress is reported every this many compressed bytes. */
#define JL_PROGRESS ((uint64_t)4 << 20)
#define JL_META_MAX 1024

static const char *const jl_format = "scope-profiler-profile";

enum {
    RK_FORMAT,
    RK_VERSION,
    RK_EXPORTER,
    RK_TIME_UNIT,
    RK_NUM_RANKS,
    RK_EVENTS,
    RK_METADATA,
    RK_REGIONS,
    RK_THREADS,
    RK_TASKS,
    RK_LIKWID,
    RK_LINES,
    RK_N
};
static const char *const root_keys[RK_N] = {
    "format",   "format_version", "exporter", "time_unit", "num_ranks", "event_data_available",
    "metadata", "regions",        "threads",  "tasks",     "likwid",    "line_profile"};

/* ------------------------------------------------------------ messages */

void jl_path(const jl_ctx *j, char *buf, size_t cap)
{
    size_t o = 0;
    buf[0] = '\0';
    for (int d = 1; d < j->depth && o + 1 < cap; d++) {
        const jl_frame *f = &j->st[d];
        char esc[JL_KEY_MAX + 16];
        int k;
        if (f->is_array) {
            k = snprintf(buf + o, cap - o, "[%zu]", f->count);
        } else {
            if (!f->key_text[0] && f->count == 0)
                break; /* an object before its first key */
            text_escape_buf(esc, sizeof esc, f->key_text);
            k = snprintf(buf + o, cap - o, "%s%s", o ? "." : "", esc);
        }
        if (k < 0 || (size_t)k >= cap - o)
            break;
        o += (size_t)k;
    }
    if (!buf[0])
        snprintf(buf, cap, "(top level)");
}

static uint64_t jl_offset(const jl_ctx *j)
{
    return j->fed + (j->yh && !j->ended ? yajl_get_bytes_consumed(j->yh) : 0);
}

int jl_fail(jl_ctx *j, const char *fmt, ...)
{
    if (j->failed)
        return 0;
    char path[300], msg[400];
    jl_path(j, path, sizeof path);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    sv_error_set(j->err, SV_ERR_FORMAT, "%s: JSON %s (byte %llu): %s", j->c->path, path,
                 (unsigned long long)jl_offset(j), msg);
    j->failed = true;
    return 0;
}

int jl_nomem(jl_ctx *j)
{
    if (!j->failed)
        ld_nomem(j->c, j->err);
    j->failed = true;
    return 0;
}

void jl_warn(jl_ctx *j, const char *fmt, ...)
{
    char path[300], msg[400];
    jl_path(j, path, sizeof path);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    profile_warn(j->c->p, "%s: JSON %s: %s", j->c->path, path, msg);
}

bool jl_charge(jl_ctx *j, uint64_t bytes, const char *what)
{
    if (budget_charge(j->c->rd.budget, bytes, what))
        return true;
    jl_nomem(j);
    return false;
}

const char *jl_type_name(jl_vt t)
{
    static const char *const names[] = {"null",   "boolean", "integer", "number",
                                        "string", "object",  "array"};
    return names[t];
}

int jl_bad_type(jl_ctx *j, const jl_val *v, const char *want)
{
    return jl_fail(j, "not %s (%s %s)", want, strchr("aeiou", jl_type_name(v->t)[0]) ? "an" : "a",
                   jl_type_name(v->t));
}

int jl_key_id(const char *const *keys, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(keys[i], key) == 0)
            return (int)i;
    return -1;
}

char *jl_strdup(jl_ctx *j, const jl_val *v)
{
    bool cut = false;
    size_t len = strnlen(v->s, v->len); /* a \u0000 ends the string, as in HDF5 */
    char *d = h5u_strndup_cut(v->s, len, &cut);
    if (!d) {
        jl_nomem(j);
        return NULL;
    }
    if (cut)
        jl_warn(j, "string of %zu bytes cut to %zu", len, (size_t)SV_STRING_MAX);
    return d;
}

/* ------------------------------------------------------------ frames */

int jl_push(jl_ctx *j, jl_kind kind, bool is_array)
{
    if (j->depth >= JL_DEPTH_MAX)
        return jl_fail(j, "nested deeper than %d containers", JL_DEPTH_MAX);
    jl_frame *f = &j->st[j->depth++];
    f->kind = (uint8_t)kind;
    f->is_array = is_array;
    f->key = -1;
    f->count = 0;
    f->key_text[0] = '\0';
    return 1;
}

/* A value that is not read: a container is walked over. */
int jl_skip(jl_ctx *j, const jl_val *v)
{
    if (v->t == JV_MAP || v->t == JV_ARRAY)
        return jl_push(j, JF_SKIP, v->t == JV_ARRAY);
    return 1;
}

/* ------------------------------------------------------------ metadata */

static int meta_append(jl_ctx *j, char *key, meta_kind kind, char *text)
{
    profile *p = j->c->p;
    if (p->nmeta >= JL_META_MAX) {
        if (p->nmeta == JL_META_MAX)
            jl_warn(j, "more than %d metadata keys; the first %d kept", JL_META_MAX, JL_META_MAX);
        free(key);
        free(text);
        return 1;
    }
    if (p->nmeta == j->meta_cap) {
        size_t cap = j->meta_cap ? j->meta_cap * 2 : 16;
        meta_entry *m = realloc(p->meta, cap * sizeof *m);
        if (!m) {
            free(key);
            free(text);
            return jl_nomem(j);
        }
        p->meta = m;
        j->meta_cap = cap;
    }
    p->meta[p->nmeta++] = (meta_entry){key, kind, text};
    return 1;
}

/* A scalar as metadata text, as the HDF5 attributes show: True/False,
 * floats as Python's repr. */
static void scalar_text(strbuf *b, const jl_val *v, meta_kind *kind)
{
    char num[48];
    switch (v->t) {
    case JV_BOOL:
        *kind = META_BOOL;
        sb_puts(b, v->i ? "True" : "False");
        break;
    case JV_INT:
        *kind = META_INT;
        sb_printf(b, "%lld", (long long)v->i);
        break;
    case JV_DOUBLE:
        *kind = META_FLOAT;
        h5u_format_double(num, sizeof num, v->d);
        sb_puts(b, num);
        break;
    case JV_STRING: {
        *kind = META_STRING;
        size_t len = strnlen(v->s, v->len);
        sb_putn(b, v->s, len < SV_STRING_MAX ? len : SV_STRING_MAX);
        break;
    }
    default:
        *kind = META_STRING;
        sb_puts(b, "None"); /* a non-finite float is written as null */
        break;
    }
}

static int meta_key_dup(jl_ctx *j, char **key)
{
    *key = strdup(j->st[j->depth - 1].key_text[0] ? j->meta_key : "");
    return *key ? 1 : jl_nomem(j);
}

static int meta_value(jl_ctx *j, jl_frame *f, const jl_val *v)
{
    strbuf *b = &j->meta_text;
    if (f->kind == JF_META_VAL) {
        if (f->count)
            sb_puts(b, ", ");
        if (!f->is_array) {
            sb_puts(b, f->key_text);
            sb_puts(b, ": ");
        }
    } else {
        sb_reset(b);
    }
    if (v->t == JV_MAP || v->t == JV_ARRAY) {
        sb_puts(b, v->t == JV_MAP ? "{" : "[");
        return jl_push(j, JF_META_VAL, v->t == JV_ARRAY);
    }
    meta_kind kind;
    scalar_text(b, v, &kind);
    if (f->kind == JF_META_VAL)
        return b->oom ? jl_nomem(j) : 1;
    char *key, *text = b->oom ? NULL : strdup(b->s ? b->s : "");
    if (!text || !meta_key_dup(j, &key)) {
        free(text);
        return jl_nomem(j);
    }
    return meta_append(j, key, kind, text);
}

/* The end of an array or object inside metadata: the outermost one is
 * the value. */
static int meta_val_end(jl_ctx *j, const jl_frame *f)
{
    strbuf *b = &j->meta_text;
    sb_puts(b, f->is_array ? "]" : "}");
    if (j->st[j->depth - 1].kind != JF_META)
        return b->oom ? jl_nomem(j) : 1;
    char *key, *text = b->oom ? NULL : strdup(b->s);
    if (!text || !meta_key_dup(j, &key)) {
        free(text);
        return jl_nomem(j);
    }
    return meta_append(j, key, META_STRING, text);
}

/* ------------------------------------------------------------ the top level */

static int root_string(jl_ctx *j, int key, const jl_val *v)
{
    char esc[120];
    char *s = strndup(v->s, v->len < 100 ? v->len : 100);
    if (!s)
        return jl_nomem(j);
    text_escape_buf(esc, sizeof esc, s);
    free(s);
    bool same = key == RK_FORMAT ? v->len == strlen(jl_format) && !memcmp(v->s, jl_format, v->len)
                                 : v->len == 11 && !memcmp(v->s, "nanoseconds", 11);
    if (key == RK_FORMAT && !same)
        return jl_fail(j, "format \"%s\" is not a scope-profiler profile (\"%s\")", esc, jl_format);
    if (key == RK_TIME_UNIT && !same)
        return jl_fail(j, "time_unit \"%s\" is not one scopeview reads (\"nanoseconds\")", esc);
    j->has_format |= key == RK_FORMAT;
    return 1;
}

static int root_scalar(jl_ctx *j, int key, const jl_val *v)
{
    switch (key) {
    case RK_FORMAT:
    case RK_TIME_UNIT:
        return v->t == JV_STRING ? root_string(j, key, v) : jl_bad_type(j, v, "a string");
    case RK_EXPORTER:
        return v->t == JV_STRING || v->t == JV_NULL ? 1 : jl_bad_type(j, v, "a string");
    case RK_VERSION:
        if (v->t != JV_INT)
            return jl_bad_type(j, v, "an integer");
        if (v->i != 1)
            return jl_fail(j,
                           "format_version %lld is not one this scopeview reads (1); upgrade "
                           "scopeview",
                           (long long)v->i);
        j->has_version = true;
        return 1;
    case RK_NUM_RANKS:
        if (v->t != JV_INT)
            return jl_bad_type(j, v, "an integer");
        if (v->i < 0 || v->i > 65536)
            return jl_fail(j, "num_ranks %lld is outside 0..65536", (long long)v->i);
        j->num_ranks = v->i;
        j->has_num_ranks = true;
        return 1;
    case RK_EVENTS:
        if (v->t != JV_BOOL)
            return jl_bad_type(j, v, "a boolean");
        j->events_available = v->i != 0;
        return 1;
    default:
        return jl_bad_type(j, v, key == RK_REGIONS ? "an array" : "an object");
    }
}

static int root_value(jl_ctx *j, jl_frame *f, const jl_val *v)
{
    int key = f->key;
    if (key < 0) {
        jl_warn(j, "key not part of format_version 1; ignored");
        return jl_skip(j, v);
    }
    if (j->root_seen & (1u << key))
        return jl_fail(j, "repeated key");
    j->root_seen |= 1u << key;
    if (key == RK_METADATA && v->t == JV_MAP)
        return jl_push(j, JF_META, false);
    if (key == RK_REGIONS && v->t == JV_ARRAY)
        return jl_push(j, JF_REGIONS, true);
    if (key >= RK_THREADS && v->t == JV_MAP) {
        static const int sections[] = {JS_THREADS, JS_TASKS, JS_LIKWID, JS_LINES};
        j->section = sections[key - RK_THREADS];
        return jl_push(j, JF_RANKMAP, false);
    }
    if ((key == RK_METADATA || key >= RK_THREADS) && v->t == JV_NULL)
        return 1;
    return root_scalar(j, key, v);
}

/* ------------------------------------------------------------ dispatch */

static int on_value(jl_ctx *j, const jl_val *v)
{
    jl_frame *f = &j->st[j->depth - 1];
    int r;
    switch ((jl_kind)f->kind) {
    case JF_TOP:
        if (v->t != JV_MAP)
            return jl_fail(j, "the document is %s %s, not an object",
                           strchr("aeiou", jl_type_name(v->t)[0]) ? "an" : "a", jl_type_name(v->t));
        r = jl_push(j, JF_ROOT, false);
        break;
    case JF_ROOT:
        r = root_value(j, f, v);
        break;
    case JF_META:
    case JF_META_VAL:
        r = meta_value(j, f, v);
        break;
    case JF_REGIONS:
        r = jl_regions_value(j, v);
        break;
    case JF_REGION:
        r = jl_region_value(j, f, v);
        break;
    case JF_COL:
        r = jl_col_value(j, v);
        break;
    case JF_TAGS:
        r = jl_tags_value(j, v);
        break;
    case JF_AGG:
        r = jl_agg_value(j, f, v);
        break;
    case JF_RANKMAP:
        r = jl_rankmap_value(j, f, v);
        break;
    case JF_ROWS:
        r = jl_rows_value(j, v);
        break;
    case JF_ROW:
        r = jl_row_value(j, f, v);
        break;
    case JF_ROW_ARR:
        r = jl_row_arr_value(j, v);
        break;
    case JF_LK_TAGS:
    case JF_LK_REC:
    case JF_LK_ARR:
    case JF_LK_ROW:
        r = jl_lk_value(j, f, v);
        break;
    case JF_SKIP:
    default:
        r = jl_skip(j, v);
        break;
    }
    /* A scalar is done; a container counts in its parent when it ends. */
    if (r && v->t != JV_MAP && v->t != JV_ARRAY)
        f->count++;
    return r;
}

static int on_end(jl_ctx *j)
{
    jl_frame f = j->st[--j->depth];
    int r = 1;
    switch ((jl_kind)f.kind) {
    case JF_META_VAL:
        r = meta_val_end(j, &f);
        break;
    case JF_REGION:
        j->depth++; /* the region's own path in its messages */
        r = jl_region_end(j);
        j->depth--;
        break;
    case JF_ROW:
        j->depth++;
        r = jl_row_end(j);
        j->depth--;
        break;
    case JF_LK_REC:
        j->depth++;
        r = jl_lk_end(j);
        j->depth--;
        break;
    default:
        break;
    }
    if (j->depth > 0)
        j->st[j->depth - 1].count++;
    return r;
}

/* ------------------------------------------------------------ callbacks */

static int cb_null(void *ctx)
{
    jl_ctx *j = ctx;
    j->called = true;
    return on_value(j, &(jl_val){.t = JV_NULL});
}

static int cb_bool(void *ctx, int b)
{
    jl_ctx *j = ctx;
    j->called = true;
    return on_value(j, &(jl_val){.t = JV_BOOL, .i = b != 0});
}

static int cb_int(void *ctx, long long x)
{
    jl_ctx *j = ctx;
    j->called = true;
    /* The bulk of a profile: a per-call column. */
    jl_vec *c = j->col;
    if (j->st[j->depth - 1].kind == JF_COL && c->n < c->cap) {
        c->v[c->n++] = x;
        j->st[j->depth - 1].count++;
        return 1;
    }
    return on_value(j, &(jl_val){.t = JV_INT, .i = x});
}

static int cb_double(void *ctx, double d)
{
    jl_ctx *j = ctx;
    j->called = true;
    return on_value(j, &(jl_val){.t = JV_DOUBLE, .d = d});
}

static int cb_string(void *ctx, const unsigned char *s, size_t len)
{
    jl_ctx *j = ctx;
    j->called = true;
    return on_value(j, &(jl_val){.t = JV_STRING, .s = (const char *)s, .len = len});
}

static int cb_start_map(void *ctx)
{
    jl_ctx *j = ctx;
    j->called = true;
    return on_value(j, &(jl_val){.t = JV_MAP});
}

static int cb_start_array(void *ctx)
{
    jl_ctx *j = ctx;
    j->called = true;
    return on_value(j, &(jl_val){.t = JV_ARRAY});
}

static int cb_end(void *ctx)
{
    jl_ctx *j = ctx;
    j->called = true;
    return on_end(j);
}

static int cb_map_key(void *ctx, const unsigned char *s, size_t len)
{
    jl_ctx *j = ctx;
    j->called = true;
    jl_frame *f = &j->st[j->depth - 1];
    size_t n = strnlen((const char *)s, len);
    size_t k = n < JL_KEY_MAX - 1 ? n : JL_KEY_MAX - 1;
    memcpy(f->key_text, s, k);
    f->key_text[k] = '\0';
    f->key = -1;
    if (f->kind == JF_ROOT && n == k)
        f->key = (int16_t)jl_key_id(root_keys, RK_N, f->key_text);
    /* keys that are names (metadata keys, LIKWID tags) are kept whole */
    if (f->kind == JF_META || f->kind == JF_LK_TAGS) {
        free(j->meta_key);
        if (!(j->meta_key = h5u_strndup_cut((const char *)s, n, NULL)))
            return jl_nomem(j);
    }
    return 1;
}

static const yajl_callbacks jl_callbacks = {
    cb_null,      cb_bool,    cb_int, cb_double,      NULL,   cb_string,
    cb_start_map, cb_map_key, cb_end, cb_start_array, cb_end,
};

/* ------------------------------------------------------------ the file */

bool ld_json_sniff(const unsigned char *head, size_t n)
{
    if (n >= 2 && head[0] == 0x1f && head[1] == 0x8b)
        return true;
    for (size_t i = 0; i < n; i++) {
        if (head[i] == ' ' || head[i] == '\t' || head[i] == '\n' || head[i] == '\r')
            continue;
        return head[i] == '{';
    }
    return false;
}

/* yajl's own message for a document it refuses, at the byte it stopped. */
static void parse_error(jl_ctx *j, const unsigned char *buf, size_t n)
{
    if (j->failed)
        return;
    unsigned char *m = yajl_get_error(j->yh, 0, buf, n);
    char msg[200];
    snprintf(msg, sizeof msg, "%s", m ? (const char *)m : "malformed");
    if (m)
        yajl_free_error(j->yh, m);
    size_t len = strlen(msg);
    while (len && (msg[len - 1] == '\n' || msg[len - 1] == ' '))
        msg[--len] = '\0';
    if (strstr(msg, "integer overflow"))
        jl_fail(j, "integer out of range (beyond 64 bits)");
    else
        jl_fail(j, "malformed JSON: %s", msg);
}

static void gz_fail(jl_ctx *j, gzFile gz)
{
    int zerr = 0;
    const char *m = gzerror(gz, &zerr);
    const char *sep = m ? strstr(m, ": ") : NULL; /* zlib's "<fd:N>: " */
    m = sep ? sep + 2 : m;
    sv_error_set(j->err, SV_ERR_DAMAGED, "%s: gzip: %s (compressed byte %lld)", j->c->path,
                 zerr == Z_ERRNO ? strerror(errno)
                 : m && m[0]     ? m
                                 : "gzip stream damaged",
                 (long long)gzoffset(gz));
    j->failed = true;
}

static void jl_progress(jl_ctx *j, gzFile gz, uint64_t *next)
{
    z_off_t o = gzoffset(gz);
    if (o < 0 || (uint64_t)o < *next)
        return;
    j->c->rd.bytes_done = (uint64_t)o;
    ld_progress(j->c);
    *next = (uint64_t)o + JL_PROGRESS;
}

/* Feeds the whole text to yajl; false when the parse failed (err set). */
static bool parse_all(jl_ctx *j, gzFile gz, unsigned char *buf)
{
    uint64_t next = JL_PROGRESS;
    for (;;) {
        int k = gzread(gz, buf, (unsigned)JL_CHUNK);
        if (k < 0) {
            gz_fail(j, gz);
            return false;
        }
        if (k == 0) {
            /* a truncated gzip stream ends without an error from gzread */
            int zerr = Z_OK;
            gzerror(gz, &zerr);
            if (zerr != Z_OK) {
                gz_fail(j, gz);
                return false;
            }
            break;
        }
        j->called = false;
        if (yajl_parse(j->yh, buf, (size_t)k) != yajl_status_ok) {
            parse_error(j, buf, (size_t)k);
            return false;
        }
        j->fed += (uint64_t)k;
        j->quiet = j->called ? 0 : j->quiet + (uint64_t)k;
        if (j->quiet > JL_TOKEN_MAX) {
            jl_fail(j, "a string or number longer than %llu MiB",
                    (unsigned long long)(JL_TOKEN_MAX >> 20));
            return false;
        }
        jl_progress(j, gz, &next);
    }
    if (yajl_complete_parse(j->yh) != yajl_status_ok) {
        j->ended = true; /* the fault is at the end of the text */
        parse_error(j, buf, 0);
        return false;
    }
    if (!j->has_format)
        return sv_error_set(j->err, SV_ERR_FORMAT,
                            "%s: not a scope-profiler profile: a JSON object without \"format\"",
                            j->c->path),
               false;
    if (!j->has_version)
        return sv_error_set(j->err, SV_ERR_FORMAT, "%s: JSON profile without format_version",
                            j->c->path),
               false;
    return true;
}

static void jl_free(jl_ctx *j)
{
    jl_regions_free(j);
    jl_aux_free(j);
    free(j->meta_key);
    sb_free(&j->meta_text);
}

sv_err ld_load_json(ld_ctx *c, const char *path, uint64_t size, sv_error *err)
{
    if (c->in_set)
        return sv_error_set(err, SV_ERR_FORMAT,
                            "%s: a JSON profile holds a whole run; open it on its own", c->path);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    gzFile gz = fd >= 0 ? gzdopen(fd, "rb") : NULL;
    if (!gz) {
        sv_err e = sv_error_set(err, SV_ERR_IO, "%s: %s", c->path,
                                fd < 0 ? strerror(errno) : "out of memory");
        if (fd >= 0)
            close(fd);
        return e;
    }
    gzbuffer(gz, 1u << 17);
    jl_ctx *j = calloc(1, sizeof *j);
    unsigned char *buf = malloc(JL_CHUNK);
    if (j)
        j->yh = yajl_alloc(&jl_callbacks, NULL, j);
    if (!j || !buf || !j->yh) {
        if (j && j->yh)
            yajl_free(j->yh);
        free(j);
        free(buf);
        gzclose(gz);
        return ld_nomem(c, err);
    }
    j->c = c;
    j->err = err;
    j->events_available = true;
    j->depth = 1; /* JF_TOP */
    c->rd.file_size = size;
    c->p->legacy = false;
    c->p->schema = 3;
    c->p->format = gzdirect(gz) ? PFMT_JSON : PFMT_JSON_GZIP;
    bool ok = parse_all(j, gz, buf);
    free(buf);
    yajl_free(j->yh);
    j->yh = NULL;
    gzclose(gz);
    sv_err e = ok ? jl_commit(j) : err->code ? err->code : SV_ERR_FORMAT;
    if (e == SV_ERR_NOMEM && !err->msg[0])
        ld_nomem(c, err);
    jl_free(j);
    free(j);
    return e;
}
