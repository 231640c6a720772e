/* h5util_text: attribute values as text (metadata): numbers as Python
 * prints them, h5py booleans, enums, string arrays; and attribute names.
 * Split from h5util.c, whose attribute helpers it shares
 * (h5util_internal.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5util.h"
#include "h5util_internal.h"
#include "util/strbuf.h"

/* At most this many elements of an array attribute are shown as text. */
#define TEXT_ARRAY_MAX 100

/* ------------------------------------------------------------ text */

void h5u_format_double(char *buf, size_t cap, double v)
{
    h5u_format_real(buf, cap, v, false);
}

/* Does text e read back as v (as a float when single)? */
static bool reads_back(const char *e, double v, bool single)
{
    double r = strtod(e, NULL);
    return single ? (float)r == (float)v : r == v;
}

void h5u_format_real(char *buf, size_t cap, double v, bool single)
{
    if (isnan(v)) {
        snprintf(buf, cap, "nan");
        return;
    }
    if (isinf(v)) {
        snprintf(buf, cap, v < 0 ? "-inf" : "inf");
        return;
    }
    char e[40];
    int p = 1;
    for (; p < 17; p++) {
        snprintf(e, sizeof e, "%.*e", p - 1, v);
        if (reads_back(e, v, single))
            break;
    }
    snprintf(e, sizeof e, "%.*e", p - 1, v);
    const char *x = strchr(e, 'e');
    int exp = x ? atoi(x + 1) : 0;
    /* Python's repr: positional for 1e-4 <= |v| < 1e16, else scientific. */
    if (exp < -4 || exp >= 16) {
        snprintf(buf, cap, "%s", e);
        return;
    }
    int decimals = p - 1 - exp;
    snprintf(buf, cap, "%.*f", decimals > 0 ? decimals : 0, v);
    if (!strchr(buf, '.') && strlen(buf) + 2 < cap)
        strcat(buf, ".0");
}

/* h5py's bool: an enum of exactly the members FALSE and TRUE. */
static bool is_h5py_bool(hid_t type)
{
    if (H5Tget_class(type) != H5T_ENUM || H5Tget_nmembers(type) != 2)
        return false;
    bool f = false, t = false;
    for (unsigned i = 0; i < 2; i++) {
        char *m = H5Tget_member_name(type, i);
        if (!m)
            continue;
        f |= strcmp(m, "FALSE") == 0;
        t |= strcmp(m, "TRUE") == 0;
        H5free_memory(m);
    }
    return f && t;
}

static void text_sep(strbuf *b, uint64_t i, uint64_t n)
{
    if (n != 1)
        sb_puts(b, i == 0 ? "[" : ", ");
}

static h5u_status text_strings(h5u_reader *rd, h5u_attr_h *h, strbuf *b, bool *cut, char *why,
                               size_t whylen)
{
    h5u_strs s;
    h5u_status st =
        h5u_read_strs_obj(h->a, true, -1, h->type, h->space, (size_t)h->n, &s, why, whylen);
    (void)rd;
    if (st != H5U_OK)
        return st;
    for (size_t i = 0; i < s.n && i < TEXT_ARRAY_MAX; i++) {
        text_sep(b, i, s.n);
        sb_puts(b, s.v[i]);
    }
    *cut |= s.ncut > 0;
    h5u_strs_free(&s);
    return H5U_OK;
}

/* Reads the whole attribute in memory type mt (element size msize). */
static h5u_status read_all(h5u_attr_h *h, hid_t mt, size_t msize, void **buf, char *why,
                           size_t whylen)
{
    *buf = malloc(h->n ? h->n * msize : 1);
    if (!*buf)
        return H5U_NOMEM;
    if (h->n && H5Aread(h->a, mt, *buf) < 0) {
        free(*buf);
        *buf = NULL;
        return h5u_fail(why, whylen, "read failed");
    }
    return H5U_OK;
}

static h5u_status text_numbers(h5u_attr_h *h, H5T_class_t cls, strbuf *b, h5u_text_kind *kind,
                               char *why, size_t whylen)
{
    bool boolean = is_h5py_bool(h->type);
    /* float32 shows as numpy prints it: 0.1, not 0.10000000149011612. */
    bool single = cls == H5T_FLOAT && H5Tget_size(h->type) <= 4;
    bool is_unsigned = cls == H5T_INTEGER && H5Tget_sign(h->type) == H5T_SGN_NONE;
    hid_t mt = cls == H5T_FLOAT ? H5T_NATIVE_DOUBLE
               : is_unsigned    ? H5T_NATIVE_UINT64
                                : H5T_NATIVE_INT64;
    void *buf;
    h5u_status st = read_all(h, mt, 8, &buf, why, whylen);
    if (st != H5U_OK)
        return st;
    *kind = cls == H5T_FLOAT ? H5U_TEXT_FLOAT : boolean ? H5U_TEXT_BOOL : H5U_TEXT_INT;
    for (uint64_t i = 0; i < h->n && i < TEXT_ARRAY_MAX; i++) {
        text_sep(b, i, h->n);
        char num[40];
        if (cls == H5T_FLOAT)
            h5u_format_real(num, sizeof num, ((double *)buf)[i], single);
        else if (is_unsigned)
            snprintf(num, sizeof num, "%llu", (unsigned long long)((uint64_t *)buf)[i]);
        else if (boolean && ((int64_t *)buf)[i] >= 0 && ((int64_t *)buf)[i] <= 1)
            snprintf(num, sizeof num, "%s", ((int64_t *)buf)[i] ? "True" : "False");
        else
            snprintf(num, sizeof num, "%lld", (long long)((int64_t *)buf)[i]);
        sb_puts(b, num);
    }
    free(buf);
    return H5U_OK;
}

/* Other enums show their member names. */
static h5u_status text_enum(h5u_attr_h *h, strbuf *b, char *why, size_t whylen)
{
    hid_t mt = H5Tget_native_type(h->type, H5T_DIR_DEFAULT);
    if (mt < 0)
        return h5u_fail(why, whylen, "enum type");
    size_t msize = H5Tget_size(mt);
    void *buf;
    h5u_status st = msize == 0 ? H5U_BAD : read_all(h, mt, msize, &buf, why, whylen);
    for (uint64_t i = 0; st == H5U_OK && i < h->n && i < TEXT_ARRAY_MAX; i++) {
        text_sep(b, i, h->n);
        char name[128];
        if (H5Tenum_nameof(mt, (char *)buf + i * msize, name, sizeof name) < 0) {
            H5Eclear2(H5E_DEFAULT);
            snprintf(name, sizeof name, "?");
        }
        sb_puts(b, name);
    }
    if (st == H5U_OK)
        free(buf);
    H5Tclose(mt);
    return st;
}

static h5u_status attr_text_body(h5u_reader *rd, h5u_attr_h *h, strbuf *b, h5u_text_kind *kind,
                                 bool *cut, char *why, size_t whylen)
{
    H5T_class_t cls = H5Tget_class(h->type);
    *kind = H5U_TEXT_STRING;
    h5u_status st = H5U_OK;
    if (cls == H5T_STRING)
        st = text_strings(rd, h, b, cut, why, whylen);
    else if (cls == H5T_INTEGER || cls == H5T_FLOAT || (cls == H5T_ENUM && is_h5py_bool(h->type)))
        st = text_numbers(h, cls, b, kind, why, whylen);
    else if (cls == H5T_ENUM)
        st = text_enum(h, b, why, whylen);
    else
        sb_printf(b, "<%s value>", h5u_class_name(cls));
    if (st == H5U_OK && h->n != 1 &&
        (cls == H5T_STRING || cls == H5T_INTEGER || cls == H5T_FLOAT || cls == H5T_ENUM)) {
        if (h->n == 0)
            sb_puts(b, "[");
        sb_puts(b, h->n > TEXT_ARRAY_MAX ? ", ...]" : "]");
    }
    return st;
}

h5u_status h5u_attr_text(h5u_reader *rd, hid_t loc, const char *name, h5u_text_kind *kind,
                         char **text, bool *cut, char *why, size_t whylen)
{
    *text = NULL;
    *cut = false;
    h5u_attr_h h;
    h5u_status st = h5u_attr_open(rd->file_size, loc, name, true, &h, why, whylen);
    if (st != H5U_OK)
        return st;
    strbuf b;
    sb_init(&b);
    st = attr_text_body(rd, &h, &b, kind, cut, why, whylen);
    h5u_attr_close(&h);
    if (st == H5U_OK && b.oom)
        st = H5U_NOMEM;
    if (st == H5U_OK) {
        *text = h5u_strndup_cut(b.s ? b.s : "", b.len, cut);
        if (!*text)
            st = H5U_NOMEM;
    }
    sb_free(&b);
    return st;
}

typedef struct names_ctx {
    h5u_strs *out;
    size_t cap;
    bool nomem;
} names_ctx;

static herr_t names_cb(hid_t loc, const char *name, const H5A_info_t *info, void *data)
{
    (void)loc;
    (void)info;
    names_ctx *c = data;
    if (c->out->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 16;
        char **v = realloc(c->out->v, cap * sizeof *v);
        if (!v) {
            c->nomem = true;
            return -1;
        }
        c->out->v = v;
        c->cap = cap;
    }
    char *s = strdup(name);
    if (!s) {
        c->nomem = true;
        return -1;
    }
    c->out->v[c->out->n++] = s;
    return 0;
}

h5u_status h5u_attr_names(hid_t loc, h5u_strs *out, char *why, size_t whylen)
{
    memset(out, 0, sizeof *out);
    names_ctx c = {out, 0, false};
    herr_t rc = H5Aiterate2(loc, H5_INDEX_NAME, H5_ITER_INC, NULL, names_cb, &c);
    if (c.nomem) {
        H5Eclear2(H5E_DEFAULT);
        h5u_strs_free(out);
        return H5U_NOMEM;
    }
    if (rc < 0) {
        h5u_strs_free(out);
        return h5u_fail(why, whylen, "cannot list attributes");
    }
    return H5U_OK;
}
