/* The direct chunk reader (load/h5chunk.h) against libhdf5's own H5Dread,
 * byte for byte: generated datasets with odd chunk sizes, partial last
 * chunks, unallocated chunks (fill values), every filter order, skipped
 * filters, byte orders and widths; the cases it must leave to H5Dread
 * (other filters, layouts, a corrupt chunk) still read through
 * h5u_col_read as H5Dread reads them; then every 1-D integer dataset of
 * every fixture and, when present, every shared profile. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "load/h5chunk.h"
#include "load/h5util.h"
#include "load/h5util_cols.h"
#include "testutil.h"

/* ------------------------------------------------------------ reference */

/* Elements [off, off + cnt) of ds through H5Dread, into a buffer first set
 * to a pattern (so an element H5Dread leaves alone is seen). */
static uint64_t *ref_read(hid_t ds, uint64_t off, size_t cnt, bool as_unsigned)
{
    uint64_t *v = malloc((cnt ? cnt : 1) * sizeof *v);
    assert_non_null(v);
    memset(v, 0xa5, (cnt ? cnt : 1) * sizeof *v);
    hid_t fs = H5Dget_space(ds);
    hsize_t start = off, count = cnt;
    hid_t ms = H5Screate_simple(1, &count, NULL);
    assert_true(H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL) >= 0);
    herr_t rc =
        H5Dread(ds, as_unsigned ? H5T_NATIVE_UINT64 : H5T_NATIVE_INT64, ms, fs, H5P_DEFAULT, v);
    H5Sclose(ms);
    H5Sclose(fs);
    assert_true(rc >= 0);
    return v;
}

static void assert_same(const uint64_t *want, const uint64_t *got, size_t cnt, const char *what,
                        uint64_t off)
{
    for (size_t i = 0; i < cnt; i++)
        if (want[i] != got[i]) {
            print_message("%s: element %llu differs\n", what, (unsigned long long)(off + i));
            assert_int_equal(want[i], got[i]);
        }
}

/* The fast path's read of [off, off + cnt) equals H5Dread's; false when the
 * fast path gave this read up (then nothing is compared). */
static bool fast_equals(h5c_col *c, hid_t ds, uint64_t off, size_t cnt, bool as_unsigned,
                        const char *what)
{
    uint64_t *got = malloc((cnt ? cnt : 1) * sizeof *got);
    assert_non_null(got);
    memset(got, 0x5a, (cnt ? cnt : 1) * sizeof *got);
    bool ok = h5c_read(c, off, cnt, got, as_unsigned);
    if (ok) {
        uint64_t *want = ref_read(ds, off, cnt, as_unsigned);
        assert_same(want, got, cnt, what, off);
        free(want);
    }
    free(got);
    return ok;
}

/* Whole, the first and last elements, across chunk edges, odd slices. */
static size_t walk_ranges(h5c_col *c, hid_t ds, uint64_t n, uint64_t cdim, bool as_unsigned,
                          const char *what)
{
    size_t taken = 0, tried = 0;
    uint64_t r[][2] = {{0, n},           {0, 1},
                       {n - 1, 1},       {cdim - 1, 2},
                       {cdim / 2, cdim}, {cdim + 3, 3 * cdim + 5},
                       {n / 3, n / 3},   {n - cdim / 2 - 1, cdim / 2 + 1}};
    for (size_t k = 0; k < sizeof r / sizeof r[0]; k++) {
        uint64_t off = r[k][0], cnt = r[k][1];
        if (off >= n || cnt == 0 || cnt > n - off)
            continue;
        tried++;
        bool t = fast_equals(c, ds, off, (size_t)cnt, as_unsigned, what);
        if (!t)
            print_message("%s: [%llu, +%llu) left to H5Dread\n", what, (unsigned long long)off,
                          (unsigned long long)cnt);
        taken += t;
    }
    return tried == taken ? taken : 0;
}

/* ------------------------------------------------------------ generated */

typedef struct gen_file {
    char dir[256], path[300];
    hid_t f;
} gen_file;

static void gen_open(gen_file *g)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(g->dir, sizeof g->dir, "%s/svh5c.XXXXXX", tmp ? tmp : "/tmp");
    assert_non_null(mkdtemp(g->dir));
    snprintf(g->path, sizeof g->path, "%s/gen.h5", g->dir);
    g->f = H5Fcreate(g->path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(g->f >= 0);
}

static void gen_reopen(gen_file *g)
{
    H5Fclose(g->f);
    g->f = H5Fopen(g->path, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(g->f >= 0);
}

static void gen_close(gen_file *g)
{
    H5Fclose(g->f);
    unlink(g->path);
    rmdir(g->dir);
}

/* A value pattern with small and large values, negatives and all bytes. */
static int64_t pattern(uint64_t i)
{
    uint64_t x = i * 0x9e3779b97f4a7c15ull;
    switch (i % 4) {
    case 0:
        return (int64_t)(i * 1000 + 17);
    case 1:
        return -(int64_t)(i % 5000);
    case 2:
        return (int64_t)(x >> 1);
    default:
        return (int64_t)x;
    }
}

enum { F_SHUFFLE = 1, F_DEFLATE = 2, F_DEFLATE_FIRST = 4, F_FLETCHER = 8, F_CONTIG = 16 };

typedef struct gen_ds {
    const char *name;
    hid_t type; /* file type */
    uint64_t n, cdim;
    int filters;
    bool set_fill, fill_never;
    int64_t fill;
    /* Only these element ranges are written (else all): chunks outside
     * stay unallocated. */
    uint64_t part[2][2];
    int nparts;
} gen_ds;

static void gen_write(hid_t f, const gen_ds *d)
{
    hsize_t dim = d->n, cdim = d->cdim;
    hid_t space = H5Screate_simple(1, &dim, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (!(d->filters & F_CONTIG)) {
        assert_true(H5Pset_chunk(dcpl, 1, &cdim) >= 0);
        if (d->filters & F_DEFLATE_FIRST)
            H5Pset_deflate(dcpl, 4);
        if (d->filters & F_SHUFFLE)
            H5Pset_shuffle(dcpl);
        if ((d->filters & F_DEFLATE) && !(d->filters & F_DEFLATE_FIRST))
            H5Pset_deflate(dcpl, 4);
        if (d->filters & F_FLETCHER)
            H5Pset_fletcher32(dcpl);
    }
    if (d->set_fill)
        H5Pset_fill_value(dcpl, H5T_NATIVE_INT64, &d->fill);
    if (d->fill_never)
        H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
    hid_t ds = H5Dcreate2(f, d->name, d->type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    assert_true(ds >= 0);
    int64_t *v = malloc(d->n * sizeof *v);
    assert_non_null(v);
    bool wide_u = H5Tget_sign(d->type) == H5T_SGN_NONE && H5Tget_size(d->type) == 8;
    for (uint64_t i = 0; i < d->n; i++) {
        int64_t x = pattern(i);
        /* Values the file type holds, so the write converts nothing away. */
        size_t bits = 8 * H5Tget_size(d->type);
        if (bits < 64)
            x = H5Tget_sign(d->type) == H5T_SGN_NONE ? (int64_t)((uint64_t)x >> (64 - bits))
                                                     : x >> (64 - bits);
        v[i] = x;
    }
    hid_t mt = wide_u ? H5T_NATIVE_UINT64 : H5T_NATIVE_INT64;
    if (d->nparts == 0) {
        assert_true(H5Dwrite(ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
    } else {
        for (int p = 0; p < d->nparts; p++) {
            hsize_t start = d->part[p][0], count = d->part[p][1];
            hid_t ms = H5Screate_simple(1, &count, NULL);
            H5Sselect_hyperslab(space, H5S_SELECT_SET, &start, NULL, &count, NULL);
            assert_true(H5Dwrite(ds, mt, ms, space, H5P_DEFAULT, v + start) >= 0);
            H5Sclose(ms);
        }
    }
    free(v);
    H5Dclose(ds);
    H5Pclose(dcpl);
    H5Sclose(space);
}

#define DS(nm, ty, len, chunk, filt)                                                               \
    {                                                                                              \
        .name = nm, .type = ty, .n = len, .cdim = chunk, .filters = filt                           \
    }
#define HOLES(nm, ty, len, chunk, filt, setf, never, fv, np, ...)                                  \
    {                                                                                              \
        .name = nm, .type = ty, .n = len, .cdim = chunk, .filters = filt, .set_fill = setf,        \
        .fill_never = never, .fill = fv, .part = {__VA_ARGS__}, .nparts = np                       \
    }

/* Writes d, reopens the file, and compares every range both ways; returns
 * whether the fast path took the dataset and every read. */
static bool gen_case(const gen_ds *d)
{
    gen_file g;
    gen_open(&g);
    gen_write(g.f, d);
    gen_reopen(&g);
    hid_t ds = H5Dopen2(g.f, d->name, H5P_DEFAULT);
    assert_true(ds >= 0);
    bool uns = H5Tget_sign(d->type) == H5T_SGN_NONE;
    h5c_col *c = h5c_open(ds, d->n);
    bool took = c != NULL;
    if (c) {
        took = walk_ranges(c, ds, d->n, d->cdim, uns, d->name) > 0;
        /* The conversions it leaves to libhdf5 are refused, not guessed. */
        if (uns && H5Tget_size(d->type) == 8) {
            uint64_t x;
            assert_false(h5c_read(c, 0, 1, &x, false));
        }
        if (!uns) {
            uint64_t x;
            assert_false(h5c_read(c, 0, 1, &x, true));
        }
        h5c_close(c);
    }
    H5Dclose(ds);
    gen_close(&g);
    return took;
}

static void test_layouts(void **state)
{
    (void)state;
    const gen_ds cases[] = {
        /* The writer's columns: 1,024-element chunks, gzip + shuffle. */
        DS("gzip1024", H5T_STD_I64LE, 10000, 1024, F_SHUFFLE | F_DEFLATE),
        /* Plain chunks of an odd size, a partial last one. */
        DS("plain777", H5T_STD_I64LE, 10007, 777, 0),
        DS("plainone", H5T_STD_I64LE, 100, 100, 0),
        DS("deflate", H5T_STD_I64LE, 5003, 333, F_DEFLATE),
        DS("shuffle", H5T_STD_I64LE, 5003, 301, F_SHUFFLE),
        /* Deflate first, then shuffle: the pipeline undone in its order. */
        DS("defl_shuf", H5T_STD_I64LE, 4099, 512, F_DEFLATE | F_SHUFFLE | F_DEFLATE_FIRST),
        DS("be64", H5T_STD_I64BE, 3001, 129, F_SHUFFLE | F_DEFLATE),
        DS("be64plain", H5T_STD_I64BE, 3001, 129, 0),
        DS("i32", H5T_STD_I32LE, 4001, 250, F_SHUFFLE | F_DEFLATE),
        DS("u32be", H5T_STD_U32BE, 4001, 250, F_DEFLATE),
        DS("i16", H5T_STD_I16LE, 4001, 999, F_SHUFFLE),
        DS("u8", H5T_STD_U8LE, 4001, 1000, F_DEFLATE),
        DS("i8", H5T_STD_I8LE, 4001, 600, 0),
        DS("u64", H5T_STD_U64LE, 4001, 500, F_SHUFFLE | F_DEFLATE),
        DS("u64plain", H5T_STD_U64LE, 4001, 500, 0),
        /* Unallocated chunks: the user's fill value, then the default 0. */
        HOLES("holes", H5T_STD_I64LE, 6000, 512, F_SHUFFLE | F_DEFLATE, true, false, -7, 2,
              {0, 600}, {3000, 100}),
        HOLES("holes0", H5T_STD_I64LE, 6000, 512, F_DEFLATE, false, false, 0, 1, {1024, 10}),
        HOLES("holesplain", H5T_STD_I64LE, 6000, 512, 0, true, false, 99, 1, {0, 700}),
        HOLES("holes32", H5T_STD_I32LE, 6000, 512, F_SHUFFLE, true, false, -3, 1, {5000, 1000}),
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bool took = gen_case(&cases[i]);
        if (!took)
            print_message("fast path not taken for %s\n", cases[i].name);
        assert_true(took);
    }
}

/* What the fast path leaves to H5Dread: it does not open, or gives the read
 * up, and h5u_col_read still returns H5Dread's values. */
static void test_left_to_h5dread(void **state)
{
    (void)state;
    const gen_ds cases[] = {
        DS("fletcher", H5T_STD_I64LE, 3000, 256, F_SHUFFLE | F_DEFLATE | F_FLETCHER),
        DS("contig", H5T_STD_I64LE, 3000, 256, F_CONTIG),
        HOLES("never", H5T_STD_I64LE, 3000, 256, F_DEFLATE, true, true, 5, 1, {0, 256}),
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const gen_ds *d = &cases[i];
        gen_file g;
        gen_open(&g);
        gen_write(g.f, d);
        gen_reopen(&g);
        hid_t ds = H5Dopen2(g.f, d->name, H5P_DEFAULT);
        h5c_col *c = h5c_open(ds, d->n);
        if (c) { /* "never": opened, but the unallocated chunks are refused */
            int64_t *v = malloc(d->n * sizeof *v);
            assert_false(h5c_read(c, 0, d->n, v, false));
            assert_true(h5c_read(c, 0, 256, v, false));
            free(v);
            h5c_close(c);
        }
        H5Dclose(ds);
        h5u_reader rd;
        assert_int_equal(h5u_reader_init(&rd, 1u << 30), H5U_OK);
        h5u_col col;
        char why[H5U_WHY_MAX];
        if (d->fill_never) { /* H5Dread leaves unwritten elements alone */
            H5Fclose(g.f), gen_close(&g), h5u_reader_close(&rd);
            continue;
        }
        assert_int_equal(h5u_col_open(&rd, g.f, d->name, &col, why, sizeof why), H5U_OK);
        int64_t *got = malloc(d->n * sizeof *got);
        assert_int_equal(h5u_col_read(&col, 0, d->n, got, false, why, sizeof why), H5U_OK);
        uint64_t *want = ref_read(col.ds, 0, d->n, false);
        assert_same(want, (const uint64_t *)got, d->n, d->name, 0);
        free(want);
        free(got);
        h5u_col_close(&col);
        h5u_reader_close(&rd);
        gen_close(&g);
    }
}

/* Chunks written raw (H5Dwrite_chunk): one with the deflate filter marked
 * skipped in its mask, which the fast path must not inflate; one whose
 * deflate stream is damaged, which both paths refuse. */
static void test_raw_chunks(void **state)
{
    (void)state;
    gen_file g;
    gen_open(&g);
    hsize_t dim = 2048, cdim = 1024;
    hid_t space = H5Screate_simple(1, &dim, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 1, &cdim);
    H5Pset_shuffle(dcpl);
    H5Pset_deflate(dcpl, 4);
    hid_t ds = H5Dcreate2(g.f, "raw", H5T_STD_I64LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    int64_t v[1024];
    for (int i = 0; i < 1024; i++)
        v[i] = pattern((uint64_t)i) >> 8;
    /* Chunk 0: shuffled by hand, deflate skipped (mask bit 1). */
    uint8_t sh[8192];
    for (int i = 0; i < 1024; i++)
        for (int b = 0; b < 8; b++)
            sh[b * 1024 + i] = (uint8_t)((uint64_t)v[i] >> (8 * b));
    hsize_t o0 = 0, o1 = 1024;
    assert_true(H5Dwrite_chunk(ds, H5P_DEFAULT, 2u, &o0, sizeof sh, sh) >= 0);
    /* Chunk 1: plain data, both filters skipped. */
    assert_true(H5Dwrite_chunk(ds, H5P_DEFAULT, 3u, &o1, sizeof v, v) >= 0);
    H5Dclose(ds);
    ds = H5Dcreate2(g.f, "bad", H5T_STD_I64LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    uint8_t junk[300];
    for (int i = 0; i < 300; i++)
        junk[i] = (uint8_t)(i * 37 + 1);
    assert_true(H5Dwrite_chunk(ds, H5P_DEFAULT, 0u, &o0, sizeof junk, junk) >= 0);
    H5Dclose(ds);
    H5Pclose(dcpl);
    H5Sclose(space);
    gen_reopen(&g);

    ds = H5Dopen2(g.f, "raw", H5P_DEFAULT);
    h5c_col *c = h5c_open(ds, 2048);
    assert_non_null(c);
    assert_true(fast_equals(c, ds, 0, 2048, false, "raw"));
    int64_t one;
    assert_true(h5c_read(c, 1500, 1, &one, false));
    assert_int_equal(one, pattern(1500 - 1024) >> 8);
    h5c_close(c);
    H5Dclose(ds);

    ds = H5Dopen2(g.f, "bad", H5P_DEFAULT);
    c = h5c_open(ds, 2048);
    assert_non_null(c);
    int64_t *buf = malloc(2048 * sizeof *buf);
    assert_false(h5c_read(c, 0, 2048, buf, false));
    h5c_close(c);
    H5Dclose(ds);
    h5u_reader rd;
    assert_int_equal(h5u_reader_init(&rd, 1u << 30), H5U_OK);
    h5u_col col;
    char why[H5U_WHY_MAX];
    assert_int_equal(h5u_col_open(&rd, g.f, "bad", &col, why, sizeof why), H5U_OK);
    assert_int_equal(h5u_col_read(&col, 0, 2048, buf, false, why, sizeof why), H5U_BAD);
    assert_non_null(strstr(why, "read failed"));
    h5u_col_close(&col);
    h5u_reader_close(&rd);
    free(buf);
    gen_close(&g);
}

/* ------------------------------------------------------------ files */

typedef struct walk_ctx {
    size_t datasets, taken;
} walk_ctx;

static herr_t visit(hid_t obj, const char *name, const H5O_info_t *info, void *data)
{
    walk_ctx *w = data;
    if (info->type != H5O_TYPE_DATASET)
        return 0;
    hid_t ds = H5Dopen2(obj, name, H5P_DEFAULT);
    if (ds < 0)
        return 0;
    hid_t t = H5Dget_type(ds), sp = H5Dget_space(ds);
    hsize_t n = 0;
    bool col = H5Tget_class(t) == H5T_INTEGER && H5Sget_simple_extent_ndims(sp) == 1 &&
               H5Sget_simple_extent_dims(sp, &n, NULL) == 1 && n > 0;
    bool uns = col && H5Tget_sign(t) == H5T_SGN_NONE;
    hid_t dcpl = H5Dget_create_plist(ds);
    hsize_t cdim = 1;
    if (col && H5Pget_layout(dcpl) == H5D_CHUNKED)
        H5Pget_chunk(dcpl, 1, &cdim);
    H5Pclose(dcpl);
    H5Tclose(t);
    H5Sclose(sp);
    h5c_col *c = col ? h5c_open(ds, n) : NULL;
    if (col)
        w->datasets++;
    if (c) {
        w->taken += walk_ranges(c, ds, n, cdim, uns, name) > 0;
        h5c_close(c);
    }
    H5Dclose(ds);
    H5Eclear2(H5E_DEFAULT);
    return 0;
}

static void walk_file(const char *path, walk_ctx *w)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) { /* a damaged fixture: the loader's tests cover it */
        H5Eclear2(H5E_DEFAULT);
        return;
    }
    H5Ovisit2(f, H5_INDEX_NAME, H5_ITER_NATIVE, visit, w, H5O_INFO_BASIC);
    H5Eclear2(H5E_DEFAULT);
    H5Fclose(f);
}

static void walk_dir(const char *dir, walk_ctx *w, int depth)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char p[1024];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        size_t len = strlen(e->d_name);
        if (len > 3 && strcmp(e->d_name + len - 3, ".h5") == 0)
            walk_file(p, w);
        else if (depth < 4)
            walk_dir(p, w, depth + 1);
    }
    closedir(d);
}

static void test_fixtures(void **state)
{
    (void)state;
    char dir[512];
    sv_fixture_path(dir, sizeof dir, "");
    walk_ctx w = {0};
    walk_dir(dir, &w, 0);
    print_message("fixtures: %zu integer columns, %zu through the fast path\n", w.datasets,
                  w.taken);
    assert_true(w.datasets > 50);
    assert_true(w.taken > 20);
}

static void test_shared(void **state)
{
    (void)state;
    if (!sv_shared_available())
        skip();
    char dir[512];
    sv_shared_path(dir, sizeof dir, "data");
    walk_ctx w = {0};
    walk_dir(dir, &w, 0);
    print_message("shared profiles: %zu integer columns, %zu through the fast path\n", w.datasets,
                  w.taken);
    assert_true(w.datasets > 0);
}

int main(void)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layouts),    cmocka_unit_test(test_left_to_h5dread),
        cmocka_unit_test(test_raw_chunks), cmocka_unit_test(test_fixtures),
        cmocka_unit_test(test_shared),
    };
    return sv_shared_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
