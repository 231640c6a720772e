/* gen: the HDF5 writer behind svgen (see gen.h). */
#include "gen.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ errors */

_Noreturn void gen_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("svgen: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

void *gen_alloc(size_t nmemb, size_t size)
{
    void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
    if (!p)
        gen_die("out of memory (%zu x %zu bytes)", nmemb, size);
    return p;
}

char *gen_strdup(const char *s)
{
    size_t len = strlen(s);
    char *p = gen_alloc(len + 1, 1);
    memcpy(p, s, len + 1);
    return p;
}

typedef struct err_text {
    char buf[200];
} err_text;

/* The innermost entry is the most specific ("file exists", "no space"...). */
static herr_t innermost_cb(unsigned n, const H5E_error2_t *e, void *data)
{
    err_text *t = data;
    if (n == 0 && e->desc)
        snprintf(t->buf, sizeof t->buf, "%s", e->desc);
    return 0;
}

/* Object names may be hostile on purpose: never echo control bytes. */
static void safe_name(const char *name, char *out, size_t cap)
{
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)name; *p && o + 5 < cap; p++) {
        if (*p < 0x20 || *p >= 0x7f)
            o += (size_t)snprintf(out + o, cap - o, "\\x%02x", *p);
        else
            out[o++] = (char)*p;
    }
    out[o] = '\0';
}

static void check(int64_t rc, const char *what, const char *name)
{
    if (rc >= 0)
        return;
    err_text t = {"unknown HDF5 error"};
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, innermost_cb, &t);
    char shown[120];
    safe_name(name ? name : "", shown, sizeof shown);
    gen_die("%s '%s' failed: %s", what, shown, t.buf);
}

/* --------------------------------------------------- files and groups */

hid_t gen_file_create(const char *path)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    check(f, "creating file", path);
    return f;
}

void gen_close(hid_t id)
{
    herr_t rc;
    switch (H5Iget_type(id)) {
    case H5I_FILE:
        rc = H5Fclose(id);
        break;
    case H5I_GROUP:
        rc = H5Gclose(id);
        break;
    case H5I_DATASET:
        rc = H5Dclose(id);
        break;
    case H5I_DATATYPE:
        rc = H5Tclose(id);
        break;
    default:
        rc = H5Idec_ref(id);
        break;
    }
    check(rc, "closing", "HDF5 object");
}

static hid_t open_or_create_child(hid_t loc, const char *name)
{
    htri_t exists = H5Lexists(loc, name, H5P_DEFAULT);
    check(exists, "looking up group", name);
    hid_t g = exists ? H5Gopen2(loc, name, H5P_DEFAULT)
                     : H5Gcreate2(loc, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    check(g, "creating group", name);
    return g;
}

hid_t gen_group(hid_t loc, const char *path)
{
    char *copy = gen_strdup(path);
    hid_t cur = H5Iinc_ref(loc) < 0 ? -1 : loc;
    check(cur, "opening group", path);
    char *save = NULL;
    for (char *part = strtok_r(copy, "/", &save); part; part = strtok_r(NULL, "/", &save)) {
        hid_t next = open_or_create_child(cur, part);
        H5Idec_ref(cur);
        cur = next;
    }
    free(copy);
    return cur;
}

hid_t gen_rank(hid_t file, int rank)
{
    char name[32];
    snprintf(name, sizeof name, "rank%d", rank);
    return gen_group(file, name);
}

/* ------------------------------------------------------- attributes */

static void attr_write(hid_t loc, const char *name, hid_t ftype, hid_t mtype, size_t n,
                       const void *buf)
{
    hsize_t dim = n;
    hid_t space = n ? H5Screate_simple(1, &dim, NULL) : H5Screate(H5S_SCALAR);
    check(space, "creating dataspace for attribute", name);
    hid_t a = H5Acreate2(loc, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT);
    check(a, "creating attribute", name);
    check(H5Awrite(a, mtype, buf), "writing attribute", name);
    check(H5Aclose(a), "closing attribute", name);
    check(H5Sclose(space), "closing dataspace of", name);
}

void gen_attr_raw(hid_t loc, const char *name, hid_t type, size_t n, const void *buf)
{
    attr_write(loc, name, type, type, n, buf);
}

static hid_t vlen_utf8_type(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    check(t, "copying", "string type");
    check(H5Tset_size(t, H5T_VARIABLE), "sizing", "string type");
    check(H5Tset_cset(t, H5T_CSET_UTF8), "setting cset of", "string type");
    return t;
}

void gen_attr_str(hid_t loc, const char *name, const char *value)
{
    hid_t t = vlen_utf8_type();
    gen_attr_raw(loc, name, t, 0, &value);
    gen_close(t);
}

void gen_attr_strs(hid_t loc, const char *name, const char *const *values, size_t n)
{
    hid_t t = vlen_utf8_type();
    gen_attr_raw(loc, name, t, n, values);
    gen_close(t);
}

void gen_attr_int(hid_t loc, const char *name, int64_t value)
{
    attr_write(loc, name, H5T_STD_I64LE, H5T_NATIVE_INT64, 0, &value);
}

void gen_attr_float(hid_t loc, const char *name, double value)
{
    attr_write(loc, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 0, &value);
}

void gen_attr_bool(hid_t loc, const char *name, bool value)
{
    hid_t t = gen_bool_type();
    int8_t v = value ? 1 : 0;
    gen_attr_raw(loc, name, t, 0, &v);
    gen_close(t);
}

void gen_attrs(hid_t loc, const gen_kv *kv, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        switch (kv[i].kind) {
        case GEN_STR:
            gen_attr_str(loc, kv[i].key, kv[i].s);
            break;
        case GEN_INT:
            gen_attr_int(loc, kv[i].key, kv[i].i);
            break;
        case GEN_FLOAT:
            gen_attr_float(loc, kv[i].key, kv[i].f);
            break;
        case GEN_BOOL:
            gen_attr_bool(loc, kv[i].key, kv[i].i != 0);
            break;
        }
    }
}

void gen_metadata(hid_t file, const gen_kv *kv, size_t n)
{
    hid_t g = gen_group(file, "metadata");
    gen_attrs(g, kv, n);
    gen_close(g);
}

/* ----------------------------------------------------------- types */

hid_t gen_bool_type(void)
{
    hid_t t = H5Tenum_create(H5T_NATIVE_INT8);
    check(t, "creating", "bool enum");
    int8_t no = 0, yes = 1;
    check(H5Tenum_insert(t, "FALSE", &no), "inserting FALSE into", "bool enum");
    check(H5Tenum_insert(t, "TRUE", &yes), "inserting TRUE into", "bool enum");
    return t;
}

hid_t gen_fixed_str_type(size_t size, H5T_str_t pad, H5T_cset_t cset)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    check(t, "copying", "string type");
    check(H5Tset_size(t, size), "sizing", "fixed string type");
    check(H5Tset_strpad(t, pad), "setting padding of", "fixed string type");
    check(H5Tset_cset(t, cset), "setting cset of", "fixed string type");
    return t;
}

char *gen_pack_fixed(const char *const *strs, size_t n, size_t size, char padchar)
{
    char *buf = gen_alloc(n, size);
    memset(buf, padchar, n * size);
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(strs[i]);
        memcpy(buf + i * size, strs[i], len < size ? len : size);
    }
    return buf;
}

/* --------------------------------------------------------- datasets */

/* h5py's guess_chunk() for a 1-D dataset: aim at 8 KiB..1 MiB chunks,
 * growing with the dataset, by halving the whole shape.  An empty dataset is
 * sized as if it held 1024 elements, as h5py does. */
static hsize_t h5py_guess_chunk(hsize_t n, size_t typesize)
{
    const double base = 16.0 * 1024, lo = 8.0 * 1024, hi = 1024.0 * 1024;
    double chunk = n ? (double)n : 1024.0;
    double target = base * pow(2.0, log10(chunk * (double)typesize / (1024.0 * 1024.0)));
    target = target > hi ? hi : target < lo ? lo : target;
    for (;;) {
        double bytes = chunk * (double)typesize;
        if ((bytes < target || fabs(bytes - target) / target < 0.5) && bytes < hi)
            break;
        if (chunk <= 1)
            break;
        chunk = ceil(chunk / 2.0);
    }
    return (hsize_t)chunk;
}

hsize_t gen_guess_chunk(hsize_t n, size_t typesize)
{
    return h5py_guess_chunk(n, typesize);
}

/* h5py's defaults: no object timestamps (so identical data gives identical
 * bytes), and chunks guessed from the shape with every dimension unlimited. */
static hid_t dataset_dcpl(int rank, const hsize_t *dims, size_t typesize, bool chunked,
                          const char *name)
{
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    check(dcpl, "creating property list for", name);
    check(H5Pset_obj_track_times(dcpl, 0), "disabling timestamps of", name);
    if (!chunked)
        return dcpl;
    hsize_t chunk[H5S_MAX_RANK];
    for (int i = 0; i < rank; i++)
        chunk[i] = rank == 1 ? h5py_guess_chunk(dims[0], typesize) : (dims[i] ? dims[i] : 1);
    check(H5Pset_chunk(dcpl, rank, chunk), "setting chunk size of", name);
    return dcpl;
}

/* libhdf5 allocates and zeroes a conversion buffer (1 MiB by default) for
 * every write that converts, e.g. variable-length strings: thousands of small
 * writes then spend seconds in page faults.  Size it to the data instead. */
static void write_all(hid_t d, hid_t mtype, size_t npoints, const void *buf, const char *name)
{
    size_t need = npoints * 16, bufsize = need < 4096 ? 4096 : need > (1 << 20) ? 1 << 20 : need;
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    check(dxpl, "creating transfer property list for", name);
    check(H5Pset_buffer(dxpl, bufsize, NULL, NULL), "sizing conversion buffer of", name);
    check(H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, dxpl, buf), "writing dataset", name);
    check(H5Pclose(dxpl), "closing transfer property list of", name);
}

void gen_dataset_raw(hid_t loc, const char *name, hid_t ftype, hid_t mtype, int rank,
                     const hsize_t *dims, const void *buf, bool chunked)
{
    hsize_t maxdims[H5S_MAX_RANK];
    for (int i = 0; i < rank; i++)
        maxdims[i] = chunked ? H5S_UNLIMITED : dims[i];
    hid_t space = H5Screate_simple(rank, dims, maxdims);
    check(space, "creating dataspace for dataset", name);
    hid_t dcpl = dataset_dcpl(rank, dims, H5Tget_size(ftype), chunked, name);
    hid_t d = H5Dcreate2(loc, name, ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    check(d, "creating dataset", name);
    hssize_t npoints = H5Sget_simple_extent_npoints(space);
    if (npoints > 0)
        write_all(d, mtype, (size_t)npoints, buf, name);
    check(H5Pclose(dcpl), "closing property list of", name);
    check(H5Dclose(d), "closing dataset", name);
    check(H5Sclose(space), "closing dataspace of", name);
}

void gen_col_typed(hid_t loc, const char *name, hid_t ftype, hid_t mtype, const void *data,
                   size_t n)
{
    hsize_t dim = n;
    gen_dataset_raw(loc, name, ftype, mtype, 1, &dim, data, true);
}

void gen_col_i64(hid_t loc, const char *name, const int64_t *data, size_t n)
{
    gen_col_typed(loc, name, H5T_STD_I64LE, H5T_NATIVE_INT64, data, n);
}

void gen_col_strs(hid_t loc, const char *name, const char *const *strs, size_t n)
{
    hid_t t = vlen_utf8_type();
    hsize_t dim = n;
    gen_dataset_raw(loc, name, t, t, 1, &dim, strs, false);
    gen_close(t);
}

/* Small fixed tables (threads, tasks) are contiguous, as h5py writes them
 * without maxshape. */
static void table_i64(hid_t loc, const char *name, const int64_t *data, size_t n)
{
    hsize_t dim = n;
    gen_dataset_raw(loc, name, H5T_STD_I64LE, H5T_NATIVE_INT64, 1, &dim, data, false);
}

/* --------------------------------------------------------- regions */

static void write_cols(hid_t g, const gen_cols *c)
{
    const struct {
        const char *name;
        const int64_t *data;
    } ints[] = {
        {"start_times", c->start},       {"end_times", c->end},
        {"call_ids", c->call_ids},       {"parent_ids", c->parent_ids},
        {"thread_ids", c->thread_ids},   {"task_ids", c->task_ids},
        {"await_times", c->await_times}, {"gpu_durations", c->gpu_durations},
    };
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
        if (ints[i].data)
            gen_col_i64(g, ints[i].name, ints[i].data, c->n);
    if (c->event_metadata)
        gen_col_strs(g, "event_metadata", c->event_metadata, c->n);
}

hid_t gen_region(hid_t rank, const char *name, const gen_cols *cols)
{
    hid_t regions = gen_group(rank, "regions");
    hid_t g = gen_group(regions, name);
    gen_close(regions);
    if (cols)
        write_cols(g, cols);
    return g;
}

void gen_region_source(hid_t region, const gen_source *src)
{
    if (src->file)
        gen_attr_str(region, "source_file", src->file);
    if (src->lineno > 0)
        gen_attr_int(region, "source_lineno", src->lineno);
    if (src->text)
        gen_attr_str(region, "source_text", src->text);
}

void gen_summary(hid_t region, const char *group, const gen_kv *kv, size_t n)
{
    hid_t g = gen_group(region, group);
    gen_attrs(g, kv, n);
    gen_close(g);
}

void gen_thread_table(hid_t rank, const char *const *names, const int64_t *ident,
                      const int64_t *native_id, size_t n)
{
    hid_t g = gen_group(rank, "threads");
    gen_col_strs(g, "name", names, n);
    table_i64(g, "ident", ident, n);
    table_i64(g, "native_id", native_id, n);
    gen_close(g);
}

void gen_task_table(hid_t rank, const char *const *names, const int64_t *thread, size_t n)
{
    hid_t g = gen_group(rank, "tasks");
    gen_col_strs(g, "name", names, n);
    table_i64(g, "thread", thread, n);
    gen_close(g);
}

/* ------------------------------------------------------------ PRNG */

uint64_t gen_rng_next(gen_rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

int64_t gen_rng_range(gen_rng *r, int64_t lo, int64_t hi)
{
    if (hi <= lo)
        return lo;
    uint64_t span = (uint64_t)(hi - lo) + 1;
    return lo + (int64_t)(gen_rng_next(r) % span);
}

double gen_rng_unit(gen_rng *r)
{
    return (double)(gen_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}
