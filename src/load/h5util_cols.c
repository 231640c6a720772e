/* h5util_cols: column readers for the columnar layouts (schema 2 and 3):
 * slices of long 1-D integer datasets read straight into the caller's
 * arrays, unsigned 64-bit index columns, the summary_statistics compound,
 * and the check for a compression filter this libhdf5 lacks. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5chunk.h"
#include "h5util_cols.h"
#include "h5util_internal.h"
#include "util/bigmem.h"

/* As h5util.c's column buffers (util/bigmem.h). */
int64_t *h5u_alloc_i64(size_t n)
{
    return bigmem_column((n ? n : 1) * sizeof(int64_t));
}

const char *h5u_filter_name(unsigned id)
{
    switch (id) {
    case 1:
        return "deflate";
    case 2:
        return "shuffle";
    case 3:
        return "fletcher32";
    case 4:
        return "szip";
    case 5:
        return "nbit";
    case 6:
        return "scaleoffset";
    case 307:
        return "bzip2";
    case 32000:
        return "lzf";
    case 32001:
        return "blosc";
    case 32004:
        return "lz4";
    case 32008:
        return "bitshuffle";
    case 32015:
        return "zstd";
    case 32017:
        return "sz";
    default:
        return NULL;
    }
}

/* H5U_BAD naming the first filter of ds that libhdf5 cannot apply. */
static h5u_status check_filters(hid_t ds, char *why, size_t whylen)
{
    hid_t dcpl = H5Dget_create_plist(ds);
    if (dcpl < 0)
        return h5u_fail(why, whylen, "cannot read its properties");
    int nf = H5Pget_nfilters(dcpl);
    h5u_status st = H5U_OK;
    for (int i = 0; st == H5U_OK && i < nf; i++) {
        unsigned flags = 0;
        size_t nelem = 0;
        char name[64];
        H5Z_filter_t id =
            H5Pget_filter2(dcpl, (unsigned)i, &flags, &nelem, NULL, sizeof name, name, NULL);
        if (id < 0) {
            st = h5u_fail(why, whylen, "unreadable filter pipeline");
            break;
        }
        if (H5Zfilter_avail(id) > 0)
            continue;
        H5Eclear2(H5E_DEFAULT);
        const char *known = h5u_filter_name((unsigned)id);
        if (known)
            h5u_set_why(why, whylen,
                        "compressed with filter %s (%d), which this libhdf5 lacks; "
                        "decompress it with 'h5repack -f NONE in.h5 out.h5'",
                        known, (int)id);
        else
            h5u_set_why(why, whylen,
                        "compressed with filter %d, which this libhdf5 lacks; "
                        "decompress it with 'h5repack -f NONE in.h5 out.h5'",
                        (int)id);
        st = H5U_BAD;
    }
    H5Pclose(dcpl);
    return st;
}

h5u_status h5u_col_open(h5u_reader *rd, hid_t loc, const char *name, h5u_col *col, char *why,
                        size_t whylen)
{
    memset(col, 0, sizeof *col);
    col->ds = -1;
    col->space = -1;
    bool filtered = false;
    h5u_status st = h5u_open_checked(rd, loc, name, &col->ds, &filtered, why, whylen);
    if (st != H5U_OK)
        return st;
    hid_t type = H5Dget_type(col->ds);
    if (type < 0) {
        st = h5u_fail(why, whylen, "unreadable type");
        goto fail;
    }
    H5T_class_t cls = H5Tget_class(type);
    size_t esize = H5Tget_size(type);
    col->is_unsigned = cls == H5T_INTEGER && H5Tget_sign(type) == H5T_SGN_NONE;
    col->wide_unsigned = col->is_unsigned && esize >= 8;
    H5Tclose(type);
    if (cls != H5T_INTEGER && cls != H5T_ENUM) {
        h5u_set_why(why, whylen, "%s, not integer", cls == H5T_FLOAT ? "float" : "not a number");
        st = H5U_BAD;
        goto fail;
    }
    col->space = H5Dget_space(col->ds);
    int nd = col->space < 0 ? -1 : H5Sget_simple_extent_ndims(col->space);
    hsize_t dim = 0;
    if (nd == 1 && H5Sget_simple_extent_dims(col->space, &dim, NULL) < 0)
        nd = -1;
    if (nd == 0 && H5Sget_simple_extent_type(col->space) == H5S_NULL)
        nd = 1, dim = 0;
    if (nd != 1) {
        H5Eclear2(H5E_DEFAULT);
        h5u_set_why(why, whylen, "%d-D, not 1-D", nd < 0 ? 0 : nd);
        st = H5U_BAD;
        goto fail;
    }
    if (!h5u_count_plausible(rd, col->ds, filtered, dim, esize)) {
        h5u_set_why(why, whylen, "claims %llu elements, more than the file can hold",
                    (unsigned long long)dim);
        st = H5U_BAD;
        goto fail;
    }
    if (filtered && (st = check_filters(col->ds, why, whylen)) != H5U_OK)
        goto fail;
    col->n = (uint64_t)dim;
    col->rd = rd;
    col->fast = h5c_open(col->ds, col->n);
    return H5U_OK;
fail:
    h5u_col_close(col);
    return st;
}

void h5u_col_close(h5u_col *col)
{
    h5c_close(col->fast);
    col->fast = NULL;
    if (col->space >= 0)
        H5Sclose(col->space);
    if (col->ds >= 0) {
        if (col->rd)
            col->rd->bytes_done += H5Dget_storage_size(col->ds);
        H5Dclose(col->ds);
    }
    col->space = col->ds = -1;
}

static h5u_status read_h5(h5u_col *col, uint64_t off, size_t cnt, void *dst, bool wide, char *why,
                          size_t whylen)
{
    hsize_t start = off, count = cnt;
    hid_t ms = H5Screate_simple(1, &count, NULL);
    if (ms < 0 || H5Sselect_hyperslab(col->space, H5S_SELECT_SET, &start, NULL, &count, NULL) < 0) {
        if (ms >= 0)
            H5Sclose(ms);
        return h5u_fail(why, whylen, "bad dataspace");
    }
    herr_t rc = H5Dread(col->ds, wide ? H5T_NATIVE_UINT64 : H5T_NATIVE_INT64, ms, col->space,
                        H5P_DEFAULT, dst);
    H5Sclose(ms);
    if (rc < 0)
        return h5u_fail(why, whylen, "read failed");
    return H5U_OK;
}

static h5u_status check_wide(const h5u_col *col, uint64_t off, size_t cnt, const void *dst,
                             bool as_unsigned, char *why, size_t whylen)
{
    if (!as_unsigned && col->wide_unsigned) {
        const uint64_t *u = dst;
        for (size_t i = 0; i < cnt; i++)
            if (u[i] > (uint64_t)INT64_MAX) {
                h5u_set_why(why, whylen, "value %llu at element %llu is beyond 2^63",
                            (unsigned long long)u[i], (unsigned long long)(off + i));
                return H5U_BAD;
            }
    }
    return H5U_OK;
}

h5u_status h5u_col_read(h5u_col *col, uint64_t off, size_t cnt, void *dst, bool as_unsigned,
                        char *why, size_t whylen)
{
    if (cnt == 0)
        return H5U_OK;
    if (off > col->n || cnt > col->n - off) {
        h5u_set_why(why, whylen, "elements %llu..%llu past its end (%llu)", (unsigned long long)off,
                    (unsigned long long)(off + cnt), (unsigned long long)col->n);
        return H5U_BAD;
    }
    /* uint64 read as int64 would clamp values beyond 2^63 without a word:
     * read the bits, then refuse such a value. */
    bool wide = as_unsigned || col->wide_unsigned;
    bool direct = col->fast && (uint64_t)cnt >= h5c_chunk_elems(col->fast);
    if (!direct || !h5c_read(col->fast, off, cnt, dst, wide)) {
        h5u_status st = read_h5(col, off, cnt, dst, wide, why, whylen);
        if (st != H5U_OK)
            return st;
    }
    return check_wide(col, off, cnt, dst, as_unsigned, why, whylen);
}

h5u_status h5u_read_index(h5u_reader *rd, hid_t loc, const char *name, uint64_t **out, size_t *n,
                          size_t *nnegative, char *why, size_t whylen)
{
    *out = NULL;
    *n = 0;
    *nnegative = 0;
    h5u_col col;
    h5u_status st = h5u_col_open(rd, loc, name, &col, why, whylen);
    if (st != H5U_OK)
        return st;
    size_t cnt = (size_t)col.n;
    uint64_t *v = malloc((cnt ? cnt : 1) * sizeof *v);
    if (!v) {
        h5u_col_close(&col);
        return H5U_NOMEM;
    }
    /* Signed columns go through int64 so a negative value is seen, not
     * clamped to 0 by the conversion. */
    st = h5u_col_read(&col, 0, cnt, v, col.is_unsigned, why, whylen);
    if (st == H5U_OK && !col.is_unsigned)
        for (size_t i = 0; i < cnt; i++)
            if ((int64_t)v[i] < 0) {
                (*nnegative)++;
                v[i] = UINT64_MAX;
            }
    h5u_col_close(&col);
    if (st != H5U_OK) {
        free(v);
        return st;
    }
    *out = v;
    *n = cnt;
    return H5U_OK;
}

h5u_status h5u_read_sumstats(h5u_reader *rd, hid_t loc, const char *name, h5u_sumstat **out,
                             size_t *n, char *why, size_t whylen)
{
    *out = NULL;
    *n = 0;
    hid_t ds;
    bool filtered;
    h5u_status st = h5u_open_checked(rd, loc, name, &ds, &filtered, why, whylen);
    if (st != H5U_OK)
        return st;
    hid_t ft = H5Dget_type(ds), space = H5Dget_space(ds);
    hid_t mt = H5Tcreate(H5T_COMPOUND, sizeof(h5u_sumstat));
    uint64_t cnt = 0;
    if (ft < 0 || space < 0 || mt < 0) {
        st = h5u_fail(why, whylen, "unreadable type or dataspace");
        goto done;
    }
    if (H5Tget_class(ft) != H5T_COMPOUND) {
        h5u_set_why(why, whylen, "not a compound");
        st = H5U_BAD;
        goto done;
    }
    static const char *const names[] = {"total", "minimum",       "maximum",    "first",
                                        "last",  "start_minimum", "end_maximum"};
    for (int k = 0; k < 7; k++)
        if (H5Tget_member_index(ft, names[k]) < 0) {
            H5Eclear2(H5E_DEFAULT);
            h5u_set_why(why, whylen, "no field %s", names[k]);
            st = H5U_BAD;
            goto done;
        }
    H5Tinsert(mt, "total", HOFFSET(h5u_sumstat, total), H5T_NATIVE_INT64);
    H5Tinsert(mt, "minimum", HOFFSET(h5u_sumstat, minimum), H5T_NATIVE_INT64);
    H5Tinsert(mt, "maximum", HOFFSET(h5u_sumstat, maximum), H5T_NATIVE_INT64);
    H5Tinsert(mt, "first", HOFFSET(h5u_sumstat, first), H5T_NATIVE_INT64);
    H5Tinsert(mt, "last", HOFFSET(h5u_sumstat, last), H5T_NATIVE_INT64);
    H5Tinsert(mt, "start_minimum", HOFFSET(h5u_sumstat, start_minimum), H5T_NATIVE_INT64);
    H5Tinsert(mt, "end_maximum", HOFFSET(h5u_sumstat, end_maximum), H5T_NATIVE_INT64);
    bool gpu =
        H5Tget_member_index(ft, "gpu_count") >= 0 && H5Tget_member_index(ft, "gpu_total") >= 0;
    bool mom = H5Tget_member_index(ft, "mean") >= 0 && H5Tget_member_index(ft, "m2") >= 0;
    H5Eclear2(H5E_DEFAULT);
    if (gpu) {
        H5Tinsert(mt, "gpu_count", HOFFSET(h5u_sumstat, gpu_count), H5T_NATIVE_UINT64);
        H5Tinsert(mt, "gpu_total", HOFFSET(h5u_sumstat, gpu_total), H5T_NATIVE_INT64);
    }
    if (mom) {
        H5Tinsert(mt, "mean", HOFFSET(h5u_sumstat, mean), H5T_NATIVE_DOUBLE);
        H5Tinsert(mt, "m2", HOFFSET(h5u_sumstat, m2), H5T_NATIVE_DOUBLE);
    }
    int nd = H5Sget_simple_extent_ndims(space);
    hsize_t dim = 0;
    if (nd != 1 || H5Sget_simple_extent_dims(space, &dim, NULL) < 0) {
        H5Eclear2(H5E_DEFAULT);
        h5u_set_why(why, whylen, "not 1-D");
        st = H5U_BAD;
        goto done;
    }
    cnt = dim;
    if (!h5u_count_plausible(rd, ds, filtered, cnt, H5Tget_size(ft))) {
        h5u_set_why(why, whylen, "claims %llu rows, more than the file can hold",
                    (unsigned long long)cnt);
        st = H5U_BAD;
        goto done;
    }
    if (filtered && (st = check_filters(ds, why, whylen)) != H5U_OK)
        goto done;
    h5u_sumstat *v = calloc(cnt ? (size_t)cnt : 1, sizeof *v);
    if (!v) {
        st = H5U_NOMEM;
        goto done;
    }
    if (cnt && H5Dread(ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0) {
        free(v);
        st = h5u_fail(why, whylen, "read failed");
        goto done;
    }
    for (size_t i = 0; i < cnt; i++)
        v[i].has_gpu = gpu, v[i].has_moments = mom;
    *out = v;
    *n = (size_t)cnt;
done:
    if (mt >= 0)
        H5Tclose(mt);
    if (ft >= 0)
        H5Tclose(ft);
    if (space >= 0)
        H5Sclose(space);
    rd->bytes_done += H5Dget_storage_size(ds);
    H5Dclose(ds);
    return st;
}

h5u_status h5u_dataset_filters(h5u_reader *rd, hid_t loc, const char *name, char *why,
                               size_t whylen)
{
    hid_t ds;
    bool filtered;
    h5u_status st = h5u_open_checked(rd, loc, name, &ds, &filtered, why, whylen);
    if (st != H5U_OK)
        return st;
    if (filtered)
        st = check_filters(ds, why, whylen);
    H5Dclose(ds);
    return st;
}

/* Fixed-length strings: each cut at its first NUL (NULLPAD) or trailing
 * spaces (SPACEPAD). */
static h5u_status whole_fixed(hid_t ds, hid_t ftype, h5u_strs *out, char *why, size_t whylen)
{
    size_t size = H5Tget_size(ftype);
    if (size == 0) {
        h5u_set_why(why, whylen, "string of size 0");
        return H5U_BAD;
    }
    H5T_str_t pad = H5Tget_strpad(ftype);
    hid_t mt = H5Tcopy(ftype);
    char *buf = out->n && size <= SIZE_MAX / out->n ? malloc(out->n * size) : NULL;
    h5u_status st = mt < 0 ? h5u_fail(why, whylen, "string type") : H5U_OK;
    if (st == H5U_OK && out->n && !buf)
        st = H5U_NOMEM;
    if (st == H5U_OK && out->n && H5Dread(ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
        st = h5u_fail(why, whylen, "read failed");
    for (size_t i = 0; st == H5U_OK && i < out->n; i++) {
        const char *s = buf + i * size;
        size_t len = strnlen(s, size);
        if (pad == H5T_STR_SPACEPAD)
            while (len > 0 && s[len - 1] == ' ')
                len--;
        if (!(out->v[i] = strndup(s, len)))
            st = H5U_NOMEM;
    }
    free(buf);
    if (mt >= 0)
        H5Tclose(mt);
    return st;
}

static h5u_status whole_vlen(h5u_reader *rd, hid_t ds, hid_t ftype, h5u_strs *out, char *why,
                             size_t whylen)
{
    hid_t mt = H5Tcopy(H5T_C_S1);
    if (mt < 0 || H5Tset_size(mt, H5T_VARIABLE) < 0 || H5Tset_cset(mt, H5Tget_cset(ftype)) < 0) {
        if (mt >= 0)
            H5Tclose(mt);
        return h5u_fail(why, whylen, "string type");
    }
    /* rd->dxpl allocates the strings with malloc: out->v owns them. */
    h5u_status st = H5U_OK;
    if (out->n && H5Dread(ds, mt, H5S_ALL, H5S_ALL, rd->dxpl, out->v) < 0)
        st = h5u_fail(why, whylen, "read failed");
    for (size_t i = 0; st == H5U_OK && i < out->n; i++)
        if (!out->v[i] && !(out->v[i] = strdup("")))
            st = H5U_NOMEM;
    H5Tclose(mt);
    return st;
}

h5u_status h5u_read_strs_whole(h5u_reader *rd, hid_t loc, const char *name, h5u_strs *out,
                               char *why, size_t whylen)
{
    memset(out, 0, sizeof *out);
    hid_t ds;
    bool filtered;
    h5u_status st = h5u_open_checked(rd, loc, name, &ds, &filtered, why, whylen);
    if (st != H5U_OK)
        return st;
    hid_t ft = H5Dget_type(ds), space = H5Dget_space(ds);
    hsize_t dim = 0;
    int nd = space >= 0 ? H5Sget_simple_extent_ndims(space) : -1;
    if (ft < 0 || space < 0)
        st = h5u_fail(why, whylen, "unreadable type or dataspace");
    else if (H5Tget_class(ft) != H5T_STRING) {
        h5u_set_why(why, whylen, "not strings");
        st = H5U_BAD;
    } else if (nd != 1 || H5Sget_simple_extent_dims(space, &dim, NULL) < 0) {
        H5Eclear2(H5E_DEFAULT);
        h5u_set_why(why, whylen, "not 1-D");
        st = H5U_BAD;
    } else if (!h5u_count_plausible(rd, ds, filtered, dim, H5Tget_size(ft))) {
        h5u_set_why(why, whylen, "claims %llu strings, more than the file can hold",
                    (unsigned long long)dim);
        st = H5U_BAD;
    } else if (filtered) {
        st = check_filters(ds, why, whylen);
    }
    if (st == H5U_OK) {
        out->n = (size_t)dim;
        out->v = calloc(out->n ? out->n : 1, sizeof *out->v);
        if (!out->v)
            st = H5U_NOMEM;
    }
    if (st == H5U_OK) {
        htri_t var = H5Tis_variable_str(ft);
        st = var > 0 ? whole_vlen(rd, ds, ft, out, why, whylen)
                     : whole_fixed(ds, ft, out, why, whylen);
    }
    if (st != H5U_OK)
        h5u_strs_free(out);
    if (ft >= 0)
        H5Tclose(ft);
    if (space >= 0)
        H5Sclose(space);
    rd->bytes_done += H5Dget_storage_size(ds);
    H5Dclose(ds);
    return st;
}

h5u_status h5u_check_filters(hid_t ds, char *why, size_t whylen)
{
    return check_filters(ds, why, whylen);
}
