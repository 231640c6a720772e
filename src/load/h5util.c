#include "h5util.h"
#include "h5util_internal.h"

#include "model/budget.h"
#include "h5util_cols.h"

#include <H5PLpublic.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/profile.h"
#include "util/strbuf.h"
#include "util/text.h"
#include "util/bigmem.h"
#include "util/hooks.h"

void h5u_set_why(char *why, size_t len, const char *fmt, ...)
{
    if (!why || len == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
}

h5u_status h5u_fail(char *why, size_t len, const char *what)
{
    char desc[H5U_WHY_MAX];
    h5u_error_desc(desc, sizeof desc);
    h5u_set_why(why, len, "%s: %s", what, desc);
    return H5U_BAD;
}

/* Filter plugins load from libhdf5's plugin path (HDF5_PLUGIN_PATH);
 * lzf and zstd are registered when no plugin gives them (h5util_filters.c):
 * only a filter truly unavailable gets the repack message (h5util_cols.c). */
void h5u_setup(void)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    H5PLset_loading_state(H5PL_FILTER_PLUGIN);
    h5u_register_filters();
    H5Eclear2(H5E_DEFAULT);
}

typedef struct walk_ctx {
    char *buf;
    size_t cap;
    bool got;
} walk_ctx;

static herr_t walk_cb(unsigned n, const H5E_error2_t *e, void *data)
{
    (void)n;
    walk_ctx *w = data;
    if (!w->got && e->desc && e->desc[0]) {
        text_escape_buf(w->buf, w->cap, e->desc);
        w->got = true;
    }
    return 0;
}

void h5u_error_desc(char *buf, size_t cap)
{
    if (!buf || cap == 0)
        return;
    walk_ctx w = {buf, cap, false};
    /* Upward starts at the innermost entry, where the fault was found. */
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, walk_cb, &w);
    H5Eclear2(H5E_DEFAULT);
    if (!w.got)
        snprintf(buf, cap, "unknown HDF5 error");
}

/* Every object is read once, so a bigger metadata cache only holds dead
 * entries: the default one grows to 12 MiB of chunk-index nodes on 3 000
 * regions (about 60 MiB of heap), while a fixed 2 MiB one keeps the same
 * hit rate and loads such a file in half the time. */
static herr_t set_small_mdc(hid_t fapl)
{
    H5AC_cache_config_t c;
    c.version = H5AC__CURR_CACHE_CONFIG_VERSION;
    if (H5Pget_mdc_config(fapl, &c) < 0)
        return -1;
    c.set_initial_size = 1;
    c.initial_size = (size_t)2 << 20;
    c.max_size = (size_t)2 << 20;
    c.min_size = (size_t)1 << 20;
    c.incr_mode = H5C_incr__off;
    c.flash_incr_mode = H5C_flash_incr__off;
    c.decr_mode = H5C_decr__off;
    return H5Pset_mdc_config(fapl, &c);
}

hid_t h5u_open_file(const char *path, char *why, size_t whylen)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0) {
        h5u_fail(why, whylen, "cannot create access properties");
        return -1;
    }
    /* A profile still open for writing by h5py must stay viewable; strong
     * close makes H5Fclose release the file even if an id leaked. */
    hid_t f = -1;
    if (H5Pset_file_locking(fapl, 0, 1) < 0 || H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) < 0 ||
        set_small_mdc(fapl) < 0)
        h5u_fail(why, whylen, "cannot set access properties");
    else if ((f = H5Fopen(path, H5F_ACC_RDONLY, fapl)) < 0)
        h5u_error_desc(why, whylen);
    /* A writer holds it (the superblock says so): a SWMR writer's file reads
     * with SWMR-read; another writer's (or one that died) cannot be read. */
    if (f < 0 && strstr(why, "already open for write")) {
        f = H5Fopen(path, H5F_ACC_RDONLY | H5F_ACC_SWMR_READ, fapl);
        H5Eclear2(H5E_DEFAULT);
        if (f < 0) {
            snprintf(why, whylen, "%s",
                     "the file is being written by another program (or one that stopped "
                     "without closing it; h5clear -s clears that mark)");
            f = H5U_OPEN_BUSY;
        }
    }
    H5Pclose(fapl);
    return f;
}

static void *vlen_alloc(size_t size, void *info)
{
    (void)info;
    return malloc(size ? size : 1);
}

static void vlen_free(void *mem, void *info)
{
    (void)info;
    free(mem);
}

bool h5u_read_before(h5u_reader *rd, hid_t ds)
{
    if (!rd->budget)
        return false;
    /* Addresses are per file (a C-API file set opens several): the key is
     * the file number in the top 16 bits and the address below. */
    H5O_info_t oi;
    bool ok = H5Oget_info2(ds, &oi, H5O_INFO_BASIC) >= 0;
    H5Eclear2(H5E_DEFAULT);
    if (!ok || (uint64_t)oi.addr >> 48 || (uint64_t)oi.fileno >> 16)
        return false;
    return budget_seen(rd->budget, (uint64_t)oi.fileno << 48 | (uint64_t)oi.addr);
}

bool h5u_charge(h5u_reader *rd, hid_t ds, uint64_t bytes)
{
    if (!rd->budget)
        return true;
    char what[120] = "";
    if (H5Iget_name(ds, what, sizeof what) < 0)
        snprintf(what, sizeof what, "a dataset");
    H5Eclear2(H5E_DEFAULT);
    return budget_charge(rd->budget, bytes, what);
}

h5u_status h5u_reader_init(h5u_reader *rd, uint64_t file_size)
{
    rd->file_size = file_size;
    rd->bytes_done = 0;
    rd->log_reads = hook_is(HOOK_READ_LOG, "1");
    rd->dapl = H5Pcreate(H5P_DATASET_ACCESS);
    rd->dxpl = H5Pcreate(H5P_DATASET_XFER);
    /* Each column is read once, whole: a chunk cache only adds copies. */
    if (rd->dapl < 0 || rd->dxpl < 0 || H5Pset_chunk_cache(rd->dapl, 0, 0, 1.0) < 0 ||
        H5Pset_vlen_mem_manager(rd->dxpl, vlen_alloc, NULL, vlen_free, NULL) < 0) {
        H5Eclear2(H5E_DEFAULT);
        h5u_reader_close(rd);
        return H5U_NOMEM;
    }
    return H5U_OK;
}

void h5u_reader_close(h5u_reader *rd)
{
    if (rd->dapl >= 0)
        H5Pclose(rd->dapl);
    if (rd->dxpl >= 0)
        H5Pclose(rd->dxpl);
    rd->dapl = rd->dxpl = -1;
}

/* ------------------------------------------------------------ listing */

typedef struct list_ctx {
    h5u_list *l;
    bool nomem;
} list_ctx;

static h5u_kind kind_of_link(const char *name, const H5L_info_t *info, haddr_t *addr)
{
    *addr = HADDR_UNDEF;
    if (info->type == H5L_TYPE_SOFT)
        return H5U_SOFT;
    if (info->type != H5L_TYPE_HARD)
        return H5U_EXTERNAL;
    /* "." would name the group itself through the path interface. */
    if (strcmp(name, ".") == 0)
        return H5U_OTHER;
    *addr = info->u.address;
    return H5U_UNKNOWN;
}

/* The type of object `name` below g. */
static h5u_kind object_kind(hid_t g, const char *name)
{
    H5O_info_t oi;
    if (H5Oget_info_by_name2(g, name, &oi, H5O_INFO_BASIC, H5P_DEFAULT) < 0) {
        H5Eclear2(H5E_DEFAULT);
        return H5U_OTHER;
    }
    if (oi.type == H5O_TYPE_GROUP)
        return H5U_GROUP;
    if (oi.type == H5O_TYPE_DATASET)
        return H5U_DATASET;
    return H5U_OTHER;
}

h5u_kind h5u_entry_kind(hid_t g, h5u_entry *e)
{
    if (e->kind == H5U_UNKNOWN)
        e->kind = object_kind(g, e->name);
    return e->kind;
}

static herr_t list_cb(hid_t g, const char *name, const H5L_info_t *info, void *data)
{
    (void)g;
    list_ctx *c = data;
    h5u_list *l = c->l;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        h5u_entry *v = realloc(l->v, cap * sizeof *v);
        if (!v) {
            c->nomem = true;
            return -1;
        }
        l->v = v;
        l->cap = cap;
    }
    h5u_entry *e = &l->v[l->n];
    e->name = strdup(name);
    if (!e->name) {
        c->nomem = true;
        return -1;
    }
    e->kind = kind_of_link(name, info, &e->addr);
    l->n++;
    return 0;
}

h5u_status h5u_list_group(hid_t g, h5u_list *out, char *why, size_t whylen)
{
    memset(out, 0, sizeof *out);
    list_ctx c = {out, false};
    herr_t rc = H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, NULL, list_cb, &c);
    if (c.nomem) {
        H5Eclear2(H5E_DEFAULT);
        h5u_list_free(out);
        return H5U_NOMEM;
    }
    if (rc < 0) {
        h5u_list_free(out);
        return h5u_fail(why, whylen, "cannot list group");
    }
    return H5U_OK;
}

void h5u_list_free(h5u_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i].name);
    free(l->v);
    memset(l, 0, sizeof *l);
}

long h5u_list_find(const h5u_list *l, const char *name)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i].name, name) == 0)
            return (long)i;
    return -1;
}

hsize_t h5u_num_attrs(hid_t loc, const char *name)
{
    H5O_info_t oi;
    if (H5Oget_info_by_name2(loc, name, &oi, H5O_INFO_NUM_ATTRS, H5P_DEFAULT) < 0) {
        H5Eclear2(H5E_DEFAULT);
        return 0;
    }
    return oi.num_attrs;
}

/* ------------------------------------------------------------ checks */

static const char *class_name(H5T_class_t c)
{
    switch (c) {
    case H5T_INTEGER:
        return "integer";
    case H5T_FLOAT:
        return "float";
    case H5T_TIME:
        return "time";
    case H5T_STRING:
        return "string";
    case H5T_BITFIELD:
        return "bitfield";
    case H5T_OPAQUE:
        return "opaque";
    case H5T_COMPOUND:
        return "compound";
    case H5T_REFERENCE:
        return "reference";
    case H5T_ENUM:
        return "enum";
    case H5T_VLEN:
        return "variable-length";
    case H5T_ARRAY:
        return "array";
    default:
        return "unknown";
    }
}

/* Opens a dataset, refusing layouts that would reach outside the file.
 * *filtered tells whether its data may be compressed. */
static h5u_status open_dataset(h5u_reader *rd, hid_t loc, const char *name, hid_t *ds,
                               bool *filtered, char *why, size_t whylen)
{
    *ds = H5Dopen2(loc, name, rd->dapl);
    if (*ds < 0) {
        /* Listings do not look types up: say so when it is a group. */
        char desc[H5U_WHY_MAX];
        h5u_error_desc(desc, sizeof desc);
        h5u_kind k = object_kind(loc, name);
        if (k != H5U_DATASET)
            h5u_set_why(why, whylen, "not a dataset (%s)", k == H5U_GROUP ? "a group" : "no data");
        else
            h5u_set_why(why, whylen, "cannot open: %s", desc);
        return H5U_BAD;
    }
    hid_t dcpl = H5Dget_create_plist(*ds);
    if (dcpl < 0) {
        h5u_fail(why, whylen, "cannot read its properties");
        H5Dclose(*ds);
        return H5U_BAD;
    }
    H5D_layout_t layout = H5Pget_layout(dcpl);
    int next = H5Pget_external_count(dcpl);
    int nfilters = H5Pget_nfilters(dcpl);
    H5Pclose(dcpl);
    H5Eclear2(H5E_DEFAULT);
    h5u_status st = H5U_OK;
    if (layout == H5D_VIRTUAL) {
        h5u_set_why(why, whylen, "virtual dataset refused");
        st = H5U_REFUSED;
    } else if (next != 0) {
        h5u_set_why(why, whylen, "external storage refused");
        st = H5U_REFUSED;
    } else if (layout < 0 || nfilters < 0) {
        h5u_set_why(why, whylen, "unreadable layout");
        st = H5U_BAD;
    } else if (nfilters > 0) {
        st = h5u_check_filters(*ds, why, whylen); /* names lzf and the like */
    }
    if (st != H5U_OK) {
        H5Dclose(*ds);
        return st;
    }
    *filtered = nfilters > 0;
    return H5U_OK;
}

/* Can n elements of esize bytes plausibly be stored in this file?  Plain
 * data must fit in the file; compressed data in its storage times the best
 * ratio of any built-in filter. */
static bool count_plausible(const h5u_reader *rd, hid_t ds, bool filtered, uint64_t n, size_t esize)
{
    if (esize == 0)
        esize = 1;
    if (n > SIZE_MAX / 8 || n > UINT64_MAX / esize)
        return false;
    uint64_t bytes = n * esize;
    if (!filtered)
        return bytes <= rd->file_size;
    uint64_t storage = ds >= 0 ? H5Dget_storage_size(ds) : 0;
    if (storage > rd->file_size)
        return false;
    return bytes / H5U_MAX_RATIO <= storage + 4096;
}

/* Number of elements of a scalar or 1-D space (1-D only when !scalar_ok). */
static h5u_status space_count(hid_t space, bool scalar_ok, uint64_t *n, char *why, size_t whylen)
{
    H5S_class_t cls = H5Sget_simple_extent_type(space);
    if (cls == H5S_SCALAR) {
        if (!scalar_ok) {
            h5u_set_why(why, whylen, "scalar, not 1-D");
            return H5U_BAD;
        }
        *n = 1;
        return H5U_OK;
    }
    if (cls == H5S_NULL) {
        *n = 0;
        return H5U_OK;
    }
    int nd = H5Sget_simple_extent_ndims(space);
    if (cls != H5S_SIMPLE || nd != 1) {
        H5Eclear2(H5E_DEFAULT);
        h5u_set_why(why, whylen, "%d-D, not 1-D", nd < 0 ? 0 : nd);
        return H5U_BAD;
    }
    hsize_t dim;
    if (H5Sget_simple_extent_dims(space, &dim, NULL) < 0)
        return h5u_fail(why, whylen, "bad dataspace");
    *n = dim;
    return H5U_OK;
}

static bool is_integer_class(hid_t type)
{
    H5T_class_t c = H5Tget_class(type);
    /* h5py stores bool as an enum over int8; every enum is integer-based. */
    return c == H5T_INTEGER || c == H5T_ENUM;
}

/* ------------------------------------------------------------ columns */

/* Columns come from util/bigmem.h (huge pages, prefaulted). */
static int64_t *alloc_i64(size_t n)
{
    return bigmem_column((n ? n : 1) * sizeof(int64_t));
}

static h5u_status check_open(h5u_reader *rd, hid_t ds, bool filtered, bool strings, uint64_t *n,
                             char *why, size_t whylen);

/* The checks (h5u_check_dataset's) and the read itself, on an open dataset. */
static h5u_status read_i64_open(h5u_reader *rd, hid_t ds, bool filtered, int64_t **out, size_t *n,
                                char *why, size_t whylen)
{
    uint64_t cnt = 0;
    h5u_status st = check_open(rd, ds, filtered, false, &cnt, why, whylen);
    if (st != H5U_OK)
        return st;
    if (!h5u_charge(rd, ds, cnt * sizeof(int64_t)))
        return H5U_NOMEM;
    int64_t *buf = alloc_i64((size_t)cnt);
    if (!buf)
        return H5U_NOMEM;
    if (cnt > 0 && H5Dread(ds, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
        free(buf);
        return h5u_fail(why, whylen, "read failed");
    }
    *out = buf;
    *n = (size_t)cnt;
    return H5U_OK;
}

h5u_status h5u_read_i64(h5u_reader *rd, hid_t loc, const char *name, int64_t **out, size_t *n,
                        char *why, size_t whylen)
{
    *out = NULL;
    *n = 0;
    hid_t ds;
    bool filtered;
    h5u_log_read(rd, loc, name);
    h5u_status st = open_dataset(rd, loc, name, &ds, &filtered, why, whylen);
    if (st != H5U_OK)
        return st;
    st = read_i64_open(rd, ds, filtered, out, n, why, whylen);
    rd->bytes_done += H5Dget_storage_size(ds);
    H5Dclose(ds);
    return st;
}

/* ------------------------------------------------------------ strings */

/* len cut to SV_STRING_MAX, backed off to the start of a UTF-8 sequence
 * (at most 3 bytes, so invalid text still gets cut). */
static size_t cut_len(const char *s, size_t len, bool *cut)
{
    if (len <= SV_STRING_MAX)
        return len;
    len = SV_STRING_MAX;
    for (int k = 0; k < 3 && len > 0 && ((unsigned char)s[len] & 0xC0) == 0x80; k++)
        len--;
    if (cut)
        *cut = true;
    return len;
}

char *h5u_strndup_cut(const char *s, size_t len, bool *cut)
{
    len = cut_len(s, len, cut);
    char *d = malloc(len + 1);
    if (!d)
        return NULL;
    memcpy(d, s, len);
    d[len] = '\0';
    return d;
}

void h5u_strs_free(h5u_strs *s)
{
    if (s->v)
        for (size_t i = 0; i < s->n; i++)
            free(s->v[i]);
    free(s->v);
    memset(s, 0, sizeof *s);
}

static h5u_status read_raw(hid_t obj, bool attr, hid_t mt, void *buf)
{
    herr_t rc = attr ? H5Aread(obj, mt, buf) : H5Dread(obj, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
    return rc < 0 ? H5U_BAD : H5U_OK;
}

/* A dataset's strings through the malloc transfer plist: out->v takes the
 * strings libhdf5 allocated (one column can hold millions). */
static h5u_status read_vlen_owned(hid_t ds, hid_t dxpl, hid_t mt, h5u_strs *out, char *why,
                                  size_t whylen)
{
    if (out->n && H5Dread(ds, mt, H5S_ALL, H5S_ALL, dxpl, out->v) < 0)
        return h5u_fail(why, whylen, "read failed");
    for (size_t i = 0; i < out->n; i++) {
        if (!out->v[i] && !(out->v[i] = strdup("")))
            return H5U_NOMEM;
        bool cut = false;
        size_t len = strlen(out->v[i]);
        size_t keep = cut_len(out->v[i], len, &cut);
        if (!cut)
            continue;
        out->v[i][keep] = '\0';
        out->ncut++;
        /* Give the cut-off tail back (shrinking cannot fail in practice;
         * if it does the string stays as it is). */
        char *small = realloc(out->v[i], keep + 1);
        if (small)
            out->v[i] = small;
    }
    return H5U_OK;
}

static h5u_status read_vlen_strs(hid_t obj, bool attr, hid_t dxpl, hid_t ftype, hid_t space,
                                 h5u_strs *out, char *why, size_t whylen)
{
    hid_t mt = H5Tcopy(H5T_C_S1);
    if (mt < 0 || H5Tset_size(mt, H5T_VARIABLE) < 0 || H5Tset_cset(mt, H5Tget_cset(ftype)) < 0) {
        if (mt >= 0)
            H5Tclose(mt);
        return h5u_fail(why, whylen, "string type");
    }
    if (!attr && dxpl >= 0) {
        h5u_status st = read_vlen_owned(obj, dxpl, mt, out, why, whylen);
        H5Tclose(mt);
        return st;
    }
    char **raw = calloc(out->n ? out->n : 1, sizeof *raw);
    if (!raw) {
        H5Tclose(mt);
        return H5U_NOMEM;
    }
    h5u_status st = out->n ? read_raw(obj, attr, mt, raw) : H5U_OK;
    if (st != H5U_OK)
        h5u_fail(why, whylen, "read failed");
    for (size_t i = 0; st == H5U_OK && i < out->n; i++) {
        const char *s = raw[i] ? raw[i] : "";
        bool cut = false;
        out->v[i] = h5u_strndup_cut(s, strlen(s), &cut);
        out->ncut += cut;
        if (!out->v[i])
            st = H5U_NOMEM;
    }
    if (out->n)
        H5Dvlen_reclaim(mt, space, H5P_DEFAULT, raw);
    free(raw);
    H5Tclose(mt);
    return st;
}

static h5u_status read_fixed_strs(hid_t obj, bool attr, hid_t ftype, h5u_strs *out, char *why,
                                  size_t whylen)
{
    size_t size = H5Tget_size(ftype);
    if (size == 0) {
        h5u_set_why(why, whylen, "string of size 0");
        return H5U_BAD;
    }
    H5T_str_t pad = H5Tget_strpad(ftype);
    /* The file type itself as memory type: same size, cset and padding. */
    hid_t mt = H5Tcopy(ftype);
    if (mt < 0)
        return h5u_fail(why, whylen, "string type");
    char *buf = malloc(out->n ? out->n * size : 1);
    if (!buf) {
        H5Tclose(mt);
        return H5U_NOMEM;
    }
    h5u_status st = out->n ? read_raw(obj, attr, mt, buf) : H5U_OK;
    if (st != H5U_OK)
        h5u_fail(why, whylen, "read failed");
    for (size_t i = 0; st == H5U_OK && i < out->n; i++) {
        const char *s = buf + i * size;
        size_t len = strnlen(s, size);
        if (pad == H5T_STR_SPACEPAD)
            while (len > 0 && s[len - 1] == ' ')
                len--;
        bool cut = false;
        out->v[i] = h5u_strndup_cut(s, len, &cut);
        out->ncut += cut;
        if (!out->v[i])
            st = H5U_NOMEM;
    }
    free(buf);
    H5Tclose(mt);
    return st;
}

/* Strings of a dataset or attribute whose type, space and (checked) count
 * are known. */
static h5u_status read_strs_obj(hid_t obj, bool attr, hid_t dxpl, hid_t ftype, hid_t space,
                                size_t n, h5u_strs *out, char *why, size_t whylen)
{
    memset(out, 0, sizeof *out);
    H5T_class_t cls = H5Tget_class(ftype);
    if (cls != H5T_STRING) {
        h5u_set_why(why, whylen, "%s, not string", class_name(cls));
        return H5U_BAD;
    }
    htri_t var = H5Tis_variable_str(ftype);
    if (var < 0)
        return h5u_fail(why, whylen, "string type");
    out->v = calloc(n ? n : 1, sizeof *out->v);
    if (!out->v)
        return H5U_NOMEM;
    out->n = n;
    h5u_status st = var ? read_vlen_strs(obj, attr, dxpl, ftype, space, out, why, whylen)
                        : read_fixed_strs(obj, attr, ftype, out, why, whylen);
    if (st != H5U_OK)
        h5u_strs_free(out);
    return st;
}

h5u_status h5u_read_strs(h5u_reader *rd, hid_t loc, const char *name, h5u_strs *out, char *why,
                         size_t whylen)
{
    memset(out, 0, sizeof *out);
    hid_t ds;
    bool filtered;
    h5u_log_read(rd, loc, name);
    h5u_status st = open_dataset(rd, loc, name, &ds, &filtered, why, whylen);
    if (st != H5U_OK)
        return st;
    hid_t type = H5Dget_type(ds);
    hid_t space = H5Dget_space(ds);
    uint64_t n = 0;
    if (type < 0 || space < 0)
        st = h5u_fail(why, whylen, "unreadable type or dataspace");
    else
        st = space_count(space, true, &n, why, whylen);
    if (st == H5U_OK && !count_plausible(rd, ds, filtered, n, H5Tget_size(type))) {
        h5u_set_why(why, whylen, "claims %llu strings, more than the file can hold",
                    (unsigned long long)n);
        st = H5U_BAD;
    }
    if (st == H5U_OK && n > 1 && h5u_read_before(rd, ds)) {
        h5u_set_why(why, whylen,
                    "the same dataset as one read before (a hard link); not read again");
        st = H5U_BAD;
    }
    /* A pointer and at least one byte per string, or the fixed size. */
    if (st == H5U_OK &&
        !h5u_charge(rd, ds,
                    n * (sizeof(char *) + (H5Tis_variable_str(type) > 0 ? 1 : H5Tget_size(type)))))
        st = H5U_NOMEM;
    if (st == H5U_OK)
        st = read_strs_obj(ds, false, rd->dxpl, type, space, (size_t)n, out, why, whylen);
    rd->bytes_done += H5Dget_storage_size(ds);
    if (space >= 0)
        H5Sclose(space);
    if (type >= 0)
        H5Tclose(type);
    H5Dclose(ds);
    return st;
}

/* An open attribute (h5util_internal.h). */
typedef h5u_attr_h attr_h;

static void attr_close(attr_h *h)
{
    if (h->space >= 0)
        H5Sclose(h->space);
    if (h->type >= 0)
        H5Tclose(h->type);
    if (h->a >= 0)
        H5Aclose(h->a);
}

static h5u_status attr_open(uint64_t file_size, hid_t loc, const char *name, bool array_ok,
                            attr_h *h, char *why, size_t whylen)
{
    h->type = h->space = -1;
    h->a = H5Aopen(loc, name, H5P_DEFAULT);
    if (h->a < 0)
        return h5u_fail(why, whylen, "cannot open");
    h->type = H5Aget_type(h->a);
    h->space = H5Aget_space(h->a);
    if (h->type < 0 || h->space < 0) {
        h5u_fail(why, whylen, "unreadable type or dataspace");
        attr_close(h);
        return H5U_BAD;
    }
    h5u_status st = space_count(h->space, true, &h->n, why, whylen);
    if (st == H5U_OK && !array_ok && h->n != 1) {
        h5u_set_why(why, whylen, "%llu elements, expected one", (unsigned long long)h->n);
        st = H5U_BAD;
    }
    size_t esize = H5Tget_size(h->type);
    if (st == H5U_OK && (h->n > SIZE_MAX / 16 || h->n * (esize ? esize : 1) > file_size)) {
        h5u_set_why(why, whylen, "claims %llu elements, more than the file can hold",
                    (unsigned long long)h->n);
        st = H5U_BAD;
    }
    if (st != H5U_OK)
        attr_close(h);
    return st;
}

h5u_status h5u_attr_strs(h5u_reader *rd, hid_t loc, const char *name, h5u_strs *out, char *why,
                         size_t whylen)
{
    memset(out, 0, sizeof *out);
    attr_h h;
    h5u_status st = attr_open(rd->file_size, loc, name, true, &h, why, whylen);
    if (st != H5U_OK)
        return st;
    st = read_strs_obj(h.a, true, -1, h.type, h.space, (size_t)h.n, out, why, whylen);
    attr_close(&h);
    return st;
}

/* ------------------------------------------------------------ numbers */

static h5u_status attr_number(hid_t loc, const char *name, bool float_ok, hid_t mt, void *v,
                              char *why, size_t whylen)
{
    attr_h h;
    /* One element: its size cannot exceed what attr_open allows. */
    h5u_status st = attr_open(UINT64_MAX, loc, name, false, &h, why, whylen);
    if (st != H5U_OK)
        return st;
    H5T_class_t cls = H5Tget_class(h.type);
    if (!is_integer_class(h.type) && !(float_ok && cls == H5T_FLOAT)) {
        h5u_set_why(why, whylen, "%s, not %s", class_name(cls), float_ok ? "a number" : "integer");
        st = H5U_BAD;
    } else if (H5Aread(h.a, mt, v) < 0) {
        st = h5u_fail(why, whylen, "read failed");
    }
    attr_close(&h);
    return st;
}

h5u_status h5u_attr_i64(hid_t loc, const char *name, int64_t *v, char *why, size_t whylen)
{
    return attr_number(loc, name, false, H5T_NATIVE_INT64, v, why, whylen);
}

h5u_status h5u_attr_f64(hid_t loc, const char *name, double *v, char *why, size_t whylen)
{
    return attr_number(loc, name, true, H5T_NATIVE_DOUBLE, v, why, whylen);
}

void h5u_log_read(const h5u_reader *rd, hid_t loc, const char *name)
{
    if (!rd->log_reads)
        return;
    char at[256] = "";
    if (name[0] != '/' && H5Iget_name(loc, at, sizeof at) < 0)
        at[0] = 0;
    H5Eclear2(H5E_DEFAULT);
    char path[600], esc[1200];
    snprintf(path, sizeof path, "%s%s%s", at, at[0] && strcmp(at, "/") ? "/" : "", name);
    text_escape_buf(esc, sizeof esc, path);
    fprintf(stderr, "scopeview: read %s\n", esc);
}

/* h5u_check_dataset's checks of the open dataset, in the readers' order. */
static h5u_status check_open(h5u_reader *rd, hid_t ds, bool filtered, bool strings, uint64_t *n,
                             char *why, size_t whylen)
{
    hid_t type = H5Dget_type(ds);
    if (type < 0)
        return h5u_fail(why, whylen, "unreadable type");
    H5T_class_t cls = H5Tget_class(type);
    size_t esize = H5Tget_size(type);
    bool ok = strings || is_integer_class(type);
    H5Tclose(type);
    if (!ok) {
        h5u_set_why(why, whylen, "%s, not integer", class_name(cls));
        return H5U_BAD;
    }
    hid_t space = H5Dget_space(ds);
    if (space < 0)
        return h5u_fail(why, whylen, "unreadable dataspace");
    h5u_status st = space_count(space, strings, n, why, whylen);
    H5Sclose(space);
    if (st != H5U_OK)
        return st;
    if (!count_plausible(rd, ds, filtered, *n, esize)) {
        h5u_set_why(why, whylen, "claims %llu %s, more than the file can hold",
                    (unsigned long long)*n, strings ? "strings" : "elements");
        return H5U_BAD;
    }
    /* Counted as read: a hard link to it is refused later as after a read. */
    if ((!strings || *n > 1) && h5u_read_before(rd, ds)) {
        h5u_set_why(why, whylen,
                    "the same dataset as one read before (a hard link); not read again");
        return H5U_BAD;
    }
    return H5U_OK;
}

h5u_status h5u_check_dataset(h5u_reader *rd, hid_t loc, const char *name, bool strings, uint64_t *n,
                             char *why, size_t whylen)
{
    hid_t ds;
    bool filtered;
    *n = 0;
    h5u_status st = open_dataset(rd, loc, name, &ds, &filtered, why, whylen);
    if (st != H5U_OK)
        return st;
    st = check_open(rd, ds, filtered, strings, n, why, whylen);
    H5Dclose(ds);
    return st;
}

/* ------------------------------------------------------------ internal (h5util_internal.h) */

h5u_status h5u_open_checked(h5u_reader *rd, hid_t loc, const char *name, hid_t *ds, bool *filtered,
                            char *why, size_t whylen)
{
    h5u_log_read(rd, loc, name);
    return open_dataset(rd, loc, name, ds, filtered, why, whylen);
}

bool h5u_count_plausible(const h5u_reader *rd, hid_t ds, bool filtered, uint64_t n, size_t esize)
{
    return count_plausible(rd, ds, filtered, n, esize);
}

/* The attribute helpers h5util_text.c shares. */
h5u_status h5u_attr_open(uint64_t file_size, hid_t loc, const char *name, bool array_ok,
                         h5u_attr_h *h, char *why, size_t whylen)
{
    return attr_open(file_size, loc, name, array_ok, h, why, whylen);
}

void h5u_attr_close(h5u_attr_h *h)
{
    attr_close(h);
}

h5u_status h5u_read_strs_obj(hid_t obj, bool attr, hid_t dxpl, hid_t ftype, hid_t space, size_t n,
                             h5u_strs *out, char *why, size_t whylen)
{
    return read_strs_obj(obj, attr, dxpl, ftype, space, n, out, why, whylen);
}

const char *h5u_class_name(H5T_class_t c)
{
    return class_name(c);
}
