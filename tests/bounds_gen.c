/* bounds_gen: writes the resource-bound profiles of tests/hostile.sh with the
 * generator API (tests/gen/gen.h), for what `svgen` has no scenario for.
 *
 *   bounds_gen claims PATH      datasets that claim billions of elements in a
 *                               file of a few KiB (chunked, nothing stored)
 *   bounds_gen threads PATH N   a thread table of N rows, 2 N calls on them
 *   bounds_gen regions PATH N   N top-level regions of one call each
 *
 * Exact contents are in the comments of each writer; hostile.sh checks them
 * by hand-computed counts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/gen.h"

#define BASE_NS 1000000000LL

/* A 1-D chunked, extendible dataset of n elements with nothing written:
 * libhdf5 reports the extent, but no chunk exists (reads give the fill). */
static void claim_dataset(hid_t loc, const char *name, hid_t ftype, hsize_t n, bool deflate)
{
    hsize_t maxdim = H5S_UNLIMITED, chunk = 1024;
    hid_t space = H5Screate_simple(1, &n, &maxdim);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (space < 0 || dcpl < 0 || H5Pset_chunk(dcpl, 1, &chunk) < 0 ||
        (deflate && H5Pset_deflate(dcpl, 6) < 0))
        gen_die("claims: cannot set up dataset %s", name);
    hid_t d = H5Dcreate2(loc, name, ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (d < 0)
        gen_die("claims: cannot create dataset %s", name);
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(space);
}

static hid_t vlen_str_type(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t < 0 || H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0)
        gen_die("claims: string type");
    return t;
}

/* rank0: `big` start/end of 4e9 elements; `zipped` the same, deflated;
 * `meta` one real call whose event_metadata claims 3e9 strings; `good`
 * start=[0] end=[10].  Thread table: `name` claims 2e9 strings.  Expected:
 * good and meta load (meta without event_metadata), big and zipped are
 * dropped, the thread table is dropped; warnings say why. */
static void write_claims(const char *path)
{
    hid_t f = gen_file_create(path);
    hid_t rk = gen_rank(f, 0);
    const int64_t s0[] = {BASE_NS}, e0[] = {BASE_NS + 10};
    hid_t g = gen_region(rk, "good", &(gen_cols){.n = 1, .start = s0, .end = e0});
    gen_close(g);
    const hsize_t huge = 4000000000ULL;
    g = gen_region(rk, "big", NULL);
    claim_dataset(g, "start_times", H5T_STD_I64LE, huge, false);
    claim_dataset(g, "end_times", H5T_STD_I64LE, huge, false);
    gen_close(g);
    g = gen_region(rk, "zipped", NULL);
    claim_dataset(g, "start_times", H5T_STD_I64LE, huge, true);
    claim_dataset(g, "end_times", H5T_STD_I64LE, huge, true);
    gen_close(g);
    g = gen_region(rk, "meta", &(gen_cols){.n = 1, .start = s0, .end = e0});
    hid_t st = vlen_str_type();
    claim_dataset(g, "event_metadata", st, 3000000000ULL, false);
    gen_close(g);
    hid_t th = gen_group(rk, "threads");
    claim_dataset(th, "name", st, 2000000000ULL, false);
    H5Tclose(st);
    gen_close(th);
    gen_close(rk);
    gen_close(f);
}

/* rank0: a thread table of n rows named "T<row>"; region `work` has 2 n
 * back-to-back calls of 100 ns, call i on thread i % n, and region `inner`
 * one call nested in each of the first n `work` calls (same thread). */
static void write_threads(const char *path, size_t n)
{
    char **names = gen_alloc(n, sizeof *names);
    int64_t *ident = gen_alloc(n, sizeof *ident);
    int64_t *start = gen_alloc(2 * n, sizeof *start), *end = gen_alloc(2 * n, sizeof *end);
    int64_t *tid = gen_alloc(2 * n, sizeof *tid);
    for (size_t i = 0; i < n; i++) {
        char buf[32];
        snprintf(buf, sizeof buf, "T%zu", i);
        names[i] = gen_strdup(buf);
        ident[i] = (int64_t)i + 1000;
    }
    for (size_t i = 0; i < 2 * n; i++) {
        start[i] = BASE_NS + (int64_t)i * 100;
        end[i] = start[i] + 100;
        tid[i] = (int64_t)(i % n);
    }
    hid_t f = gen_file_create(path);
    hid_t rk = gen_rank(f, 0);
    gen_thread_table(rk, (const char *const *)names, ident, ident, n);
    hid_t g = gen_region(rk, "work",
                         &(gen_cols){.n = 2 * n, .start = start, .end = end, .thread_ids = tid});
    gen_close(g);
    for (size_t i = 0; i < n; i++) {
        start[i] += 10;
        end[i] -= 10;
    }
    g = gen_region(rk, "inner", &(gen_cols){.n = n, .start = start, .end = end, .thread_ids = tid});
    gen_close(g);
    gen_close(rk);
    gen_close(f);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    free(ident);
    free(start);
    free(end);
    free(tid);
}

/* A one-element int64 dataset stored in its object header. */
static void compact_i64(hid_t loc, const char *name, int64_t v)
{
    hsize_t one = 1;
    hid_t space = H5Screate_simple(1, &one, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (space < 0 || dcpl < 0 || H5Pset_layout(dcpl, H5D_COMPACT) < 0)
        gen_die("regions: cannot set up dataset %s", name);
    hid_t d = H5Dcreate2(loc, name, H5T_STD_I64LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (d < 0 || H5Dwrite(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, &v) < 0)
        gen_die("regions: cannot write dataset %s", name);
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(space);
}

/* rank0: n regions "r<i>" (i zero-padded to 6 digits), region i one call
 * [BASE + 10 i, BASE + 10 i + 5].  Written small (the 1.8 format: links
 * in object headers, a dense link index for `regions`, compact datasets):
 * about 1 KiB a region instead of the 6 KiB h5py's layout takes. */
static void write_regions(const char *path, size_t n)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0 || H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_LATEST) < 0)
        gen_die("regions: file access properties");
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (f < 0)
        gen_die("regions: cannot create %s", path);
    H5Pclose(fapl);
    hid_t rk = gen_rank(f, 0);
    hid_t regions = gen_group(rk, "regions");
    for (size_t i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "r%06zu", i);
        hid_t g = gen_group(regions, name);
        compact_i64(g, "start_times", BASE_NS + (int64_t)i * 10);
        compact_i64(g, "end_times", BASE_NS + (int64_t)i * 10 + 5);
        gen_close(g);
    }
    gen_close(regions);
    gen_close(rk);
    gen_close(f);
}

static size_t count_arg(const char *s)
{
    char *endp;
    unsigned long long v = strtoull(s, &endp, 10);
    if (*endp || v == 0 || v > 10000000)
        gen_die("bad count '%s' (1..10000000)", s);
    return (size_t)v;
}

int main(int argc, char **argv)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (argc == 3 && strcmp(argv[1], "claims") == 0)
        write_claims(argv[2]);
    else if (argc == 4 && strcmp(argv[1], "threads") == 0)
        write_threads(argv[2], count_arg(argv[3]));
    else if (argc == 4 && strcmp(argv[1], "regions") == 0)
        write_regions(argv[2], count_arg(argv[3]));
    else {
        fprintf(stderr, "usage: bounds_gen claims PATH | threads PATH N | regions PATH N\n");
        return 2;
    }
    return 0;
}
