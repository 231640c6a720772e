/* h5util_f64: float columns and matrices (line-profile times, LIKWID
 * counters), with the same checks as h5u_read_i64 (h5util.c). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "h5util.h"
#include "h5util_internal.h"

/* Shape of ds: at most maxnd dimensions (a scalar counts as 1-D of 1). */
static h5u_status f64_shape(hid_t ds, int maxnd, hsize_t dims[2], char *why, size_t whylen)
{
    hid_t space = H5Dget_space(ds);
    if (space < 0)
        return h5u_fail(why, whylen, "unreadable dataspace");
    H5S_class_t cls = H5Sget_simple_extent_type(space);
    h5u_status st = H5U_OK;
    dims[0] = dims[1] = 1;
    if (cls == H5S_NULL) {
        dims[0] = 0;
    } else if (cls == H5S_SIMPLE) {
        int nd = H5Sget_simple_extent_ndims(space);
        if (nd < 1 || nd > maxnd) {
            h5u_set_why(why, whylen, "%d-D, not %s", nd < 0 ? 0 : nd, maxnd == 1 ? "1-D" : "2-D");
            st = H5U_BAD;
        } else if (H5Sget_simple_extent_dims(space, dims, NULL) < 0) {
            st = h5u_fail(why, whylen, "bad dataspace");
        }
    } else if (cls != H5S_SCALAR) {
        h5u_set_why(why, whylen, "bad dataspace");
        st = H5U_BAD;
    }
    H5Sclose(space);
    H5Eclear2(H5E_DEFAULT);
    return st;
}

static h5u_status f64_read_open(h5u_reader *rd, hid_t ds, bool filtered, int maxnd, double **out,
                                hsize_t dims[2], char *why, size_t whylen)
{
    hid_t type = H5Dget_type(ds);
    if (type < 0)
        return h5u_fail(why, whylen, "unreadable type");
    H5T_class_t cls = H5Tget_class(type);
    size_t esize = H5Tget_size(type);
    H5Tclose(type);
    if (cls != H5T_INTEGER && cls != H5T_FLOAT) {
        h5u_set_why(why, whylen, "%s, not a number", cls == H5T_STRING ? "string" : "other type");
        return H5U_BAD;
    }
    h5u_status st = f64_shape(ds, maxnd, dims, why, whylen);
    if (st != H5U_OK)
        return st;
    uint64_t cnt = (uint64_t)dims[0] * (dims[1] ? dims[1] : 1);
    if ((dims[1] && cnt / dims[1] != dims[0]) ||
        !h5u_count_plausible(rd, ds, filtered, cnt, esize < 8 ? 8 : esize)) {
        h5u_set_why(why, whylen, "claims %llu elements, more than the file can hold",
                    (unsigned long long)cnt);
        return H5U_BAD;
    }
    if (cnt == 0)
        dims[0] = dims[1] = 0;
    if (!h5u_charge(rd, ds, cnt * sizeof(double)))
        return H5U_NOMEM;
    double *buf = malloc((cnt ? cnt : 1) * sizeof *buf);
    if (!buf)
        return H5U_NOMEM;
    if (cnt > 0 && H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
        free(buf);
        return h5u_fail(why, whylen, "read failed");
    }
    *out = buf;
    return H5U_OK;
}

static h5u_status f64_read(h5u_reader *rd, hid_t loc, const char *name, int maxnd, double **out,
                           hsize_t dims[2], char *why, size_t whylen)
{
    *out = NULL;
    dims[0] = dims[1] = 0;
    hid_t ds;
    bool filtered;
    h5u_status st = h5u_open_checked(rd, loc, name, &ds, &filtered, why, whylen);
    if (st != H5U_OK)
        return st;
    st = f64_read_open(rd, ds, filtered, maxnd, out, dims, why, whylen);
    rd->bytes_done += H5Dget_storage_size(ds);
    H5Dclose(ds);
    if (st != H5U_OK)
        dims[0] = dims[1] = 0;
    return st;
}

h5u_status h5u_read_f64(h5u_reader *rd, hid_t loc, const char *name, double **out, size_t *n,
                        char *why, size_t whylen)
{
    hsize_t dims[2];
    h5u_status st = f64_read(rd, loc, name, 1, out, dims, why, whylen);
    *n = (size_t)dims[0];
    return st;
}

h5u_status h5u_read_f64_2d(h5u_reader *rd, hid_t loc, const char *name, double **out, size_t *rows,
                           size_t *cols, char *why, size_t whylen)
{
    hsize_t dims[2];
    h5u_status st = f64_read(rd, loc, name, 2, out, dims, why, whylen);
    *rows = (size_t)dims[0];
    *cols = (size_t)dims[1];
    return st;
}
