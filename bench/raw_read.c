/* raw_read: the floor for `make bench`.  Reads every dataset of an HDF5
 * file into memory with libhdf5 and nothing else: one H5Dread per dataset,
 * the chunk cache off, the file's own (native) element type, every buffer
 * kept until the end as a viewer would keep it.
 *
 * Buffers are allocated as the loader allocates columns (huge-page hint
 * from 4 MiB, pages faulted in by one madvise from 64 KiB): the floor
 * should not pay page faults the viewer avoids.
 *
 * Prints one JSON line: datasets read, column bytes (numeric datasets at
 * their native size; variable-length strings as one pointer per element
 * plus each string's bytes with its NUL), seconds from open to close, and
 * this process's peak RSS in KiB. */
#include <hdf5.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>

#define HUGE_MIN ((size_t)4 << 20)
#define HUGE_ALIGN ((size_t)2 << 20)
#define POPULATE_MIN ((size_t)64 << 10)

/* A buffer read so far: vlen holds the element count of a string array
 * whose strings libhdf5 malloc'ed one by one, 0 for plain data. */
typedef struct rr_buf {
    void *p;
    size_t vlen;
} rr_buf;

/* What has been read so far; buffers are freed only at the very end. */
typedef struct rr_state {
    hid_t dapl;
    size_t ndatasets;
    uint64_t bytes;
    rr_buf *bufs;
    size_t nbufs, cap;
    bool failed;
} rr_state;

static void prefault(void *p, size_t bytes)
{
#ifdef MADV_POPULATE_WRITE
    uintptr_t a = ((uintptr_t)p + 4095) & ~(uintptr_t)4095;
    uintptr_t e = ((uintptr_t)p + bytes) & ~(uintptr_t)4095;
    if (e > a)
        madvise((void *)a, e - a, MADV_POPULATE_WRITE);
#else
    (void)p;
    (void)bytes;
#endif
}

static void *rr_alloc(size_t bytes)
{
    if (bytes < HUGE_MIN) {
        void *p = malloc(bytes ? bytes : 1);
        if (p && bytes >= POPULATE_MIN)
            prefault(p, bytes);
        return p;
    }
    size_t sz = (bytes + HUGE_ALIGN - 1) & ~(HUGE_ALIGN - 1);
    void *p;
    if (posix_memalign(&p, HUGE_ALIGN, sz) != 0)
        return NULL;
    madvise(p, sz, MADV_HUGEPAGE);
    return p;
}

static bool rr_keep(rr_state *st, void *buf, size_t vlen)
{
    if (st->nbufs == st->cap) {
        size_t cap = st->cap ? st->cap * 2 : 256;
        rr_buf *v = realloc(st->bufs, cap * sizeof *v);
        if (!v)
            return false;
        st->bufs = v;
        st->cap = cap;
    }
    st->bufs[st->nbufs++] = (rr_buf){buf, vlen};
    return true;
}

static void rr_free(rr_buf *b)
{
    for (size_t i = 0; i < b->vlen; i++)
        free(((char **)b->p)[i]);
    free(b->p);
}

/* Variable-length strings stay as libhdf5 allocated them (one malloc each),
 * as the loader keeps them. */
static bool read_vlen(rr_state *st, hid_t ds, hid_t ftype, size_t n)
{
    hid_t mt = H5Tcopy(H5T_C_S1);
    H5Tset_size(mt, H5T_VARIABLE);
    H5Tset_cset(mt, H5Tget_cset(ftype));
    char **v = malloc((n ? n : 1) * sizeof *v);
    bool ok = v && (n == 0 || H5Dread(ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
    if (ok) {
        uint64_t b = n * sizeof *v;
        for (size_t i = 0; i < n; i++)
            b += v[i] ? strlen(v[i]) + 1 : 0;
        st->bytes += b;
    }
    H5Tclose(mt);
    if (ok && rr_keep(st, v, n))
        return true;
    free(v);
    return false;
}

static bool read_fixed(rr_state *st, hid_t ds, hid_t ftype, size_t n)
{
    hid_t mt = H5Tget_native_type(ftype, H5T_DIR_ASCEND);
    if (mt < 0)
        return false;
    size_t bytes = n * H5Tget_size(mt);
    void *buf = rr_alloc(bytes);
    bool ok = buf && (n == 0 || H5Dread(ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0);
    H5Tclose(mt);
    if (ok)
        st->bytes += bytes;
    if (ok && rr_keep(st, buf, 0))
        return true;
    free(buf);
    return false;
}

static bool read_dataset(rr_state *st, hid_t loc, const char *name)
{
    hid_t ds = H5Dopen2(loc, name, st->dapl);
    if (ds < 0)
        return false;
    hid_t type = H5Dget_type(ds), space = H5Dget_space(ds);
    hssize_t n = H5Sget_simple_extent_npoints(space);
    bool ok = type >= 0 && space >= 0 && n >= 0;
    if (ok && H5Tis_variable_str(type) > 0)
        ok = read_vlen(st, ds, type, (size_t)n);
    else if (ok)
        ok = read_fixed(st, ds, type, (size_t)n);
    H5Sclose(space);
    H5Tclose(type);
    H5Dclose(ds);
    st->ndatasets += ok;
    return ok;
}

static herr_t visit_cb(hid_t obj, const char *name, const H5O_info_t *info, void *data)
{
    rr_state *st = data;
    if (info->type != H5O_TYPE_DATASET)
        return 0;
    if (!read_dataset(st, obj, name)) {
        fprintf(stderr, "raw_read: cannot read dataset %s\n", name);
        st->failed = true;
        return -1;
    }
    return 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: raw_read FILE.h5\n");
        return 2;
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    rr_state st = {0};
    double t0 = now_s();
    st.dapl = H5Pcreate(H5P_DATASET_ACCESS);
    H5Pset_chunk_cache(st.dapl, 0, 0, 1.0);
    hid_t f = H5Fopen(argv[1], H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) {
        fprintf(stderr, "raw_read: cannot open %s\n", argv[1]);
        return 1;
    }
    H5Ovisit2(f, H5_INDEX_NAME, H5_ITER_INC, visit_cb, &st, H5O_INFO_BASIC);
    H5Fclose(f);
    H5Pclose(st.dapl);
    double secs = now_s() - t0;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    unsigned maj, min, rel;
    H5get_libversion(&maj, &min, &rel);
    printf("{\"datasets\": %zu, \"column_bytes\": %llu, \"seconds\": %.6f, \"max_rss_kib\": %ld, "
           "\"hdf5\": \"%u.%u.%u\"}\n",
           st.ndatasets, (unsigned long long)st.bytes, secs, ru.ru_maxrss, maj, min, rel);
    for (size_t i = 0; i < st.nbufs; i++)
        rr_free(&st.bufs[i]);
    free(st.bufs);
    return st.failed ? 1 : 0;
}
