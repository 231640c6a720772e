/* h5chunk: chunks located once, read in long runs, decoded on threads.
 * What it takes and what it leaves to H5Dread: h5chunk.h. */
#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>

#include "h5chunk.h"
#include "model/par.h"
#include "util/hooks.h"

/* Stored bytes of the filtered chunks read (and decoded) at a time: large
 * enough for long sequential reads and for every thread to have chunks,
 * small beside the columns themselves. */
#define H5C_BATCH_BYTES ((size_t)8 << 20)
/* Larger chunks (the whole chunk is decoded in one thread's scratch) are
 * left to H5Dread. */
#define H5C_CHUNK_MAX ((size_t)16 << 20)
#define H5C_MAX_FILTERS 8

enum { H5C_DEFLATE = 1, H5C_SHUFFLE = 2 };

typedef struct h5c_chunk {
    uint32_t size; /* stored bytes, 0: not allocated */
    uint32_t mask; /* filters skipped (bit i: pipeline filter i) */
} h5c_chunk;

struct h5c_col {
    hid_t ds;
    uint64_t n;    /* elements */
    uint64_t cdim; /* elements per chunk */
    size_t esize;  /* bytes per element in the file */
    bool is_signed, big_endian;
    int nfilters;
    int filter[H5C_MAX_FILTERS]; /* pipeline order, H5C_DEFLATE or H5C_SHUFFLE */
    bool fill_ok;                /* unallocated chunks read as fill_i64/fill_u64 */
    int64_t fill_i64;
    uint64_t fill_u64;
    uint8_t *batch; /* batch_lim (or one chunk) of stored bytes, for one read */
    size_t batch_cap, batch_lim;
    int threads;
    par_crew *crew; /* h5c_set_crew's, or NULL: par_run */
};

/* --- opening: what the fast path takes --- */

static bool pipeline_ok(h5c_col *c, hid_t dcpl)
{
    int nf = H5Pget_nfilters(dcpl);
    if (nf < 0 || nf > H5C_MAX_FILTERS)
        return false;
    c->nfilters = nf;
    for (int i = 0; i < nf; i++) {
        unsigned flags = 0, cd[4] = {0};
        size_t ncd = 4;
        char name[32];
        H5Z_filter_t id =
            H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, cd, sizeof name, name, NULL);
        if (id == H5Z_FILTER_DEFLATE)
            c->filter[i] = H5C_DEFLATE;
        else if (id == H5Z_FILTER_SHUFFLE && (ncd == 0 || cd[0] == c->esize))
            c->filter[i] = H5C_SHUFFLE;
        else
            return false;
    }
    return true;
}

/* The fill value as H5Dread gives it for an unallocated chunk, when that is
 * certain: written at allocation or when set, and defined. */
static void fill_value(h5c_col *c, hid_t dcpl)
{
    H5D_fill_time_t when;
    H5D_fill_value_t status;
    c->fill_ok = H5Pget_fill_time(dcpl, &when) >= 0 && when != H5D_FILL_TIME_NEVER &&
                 H5Pfill_value_defined(dcpl, &status) >= 0 && status != H5D_FILL_VALUE_UNDEFINED &&
                 H5Pget_fill_value(dcpl, H5T_NATIVE_INT64, &c->fill_i64) >= 0 &&
                 H5Pget_fill_value(dcpl, H5T_NATIVE_UINT64, &c->fill_u64) >= 0;
}

static bool type_ok(h5c_col *c)
{
    hid_t t = H5Dget_type(c->ds);
    if (t < 0)
        return false;
    H5T_order_t order = H5Tget_order(t);
    c->esize = H5Tget_size(t);
    c->is_signed = H5Tget_sign(t) == H5T_SGN_2;
    c->big_endian = order == H5T_ORDER_BE;
    bool ok = H5Tget_class(t) == H5T_INTEGER && (order == H5T_ORDER_LE || order == H5T_ORDER_BE) &&
              (c->esize == 1 || c->esize == 2 || c->esize == 4 || c->esize == 8) &&
              H5Tget_precision(t) == 8 * c->esize && H5Tget_offset(t) == 0;
    H5Tclose(t);
    return ok;
}

static bool layout_ok(h5c_col *c, hid_t dcpl)
{
    hsize_t cdim = 0;
    if (H5Pget_layout(dcpl) != H5D_CHUNKED || H5Pget_chunk(dcpl, 1, &cdim) != 1 || cdim == 0)
        return false;
    c->cdim = cdim;
    return c->esize * cdim <= H5C_CHUNK_MAX;
}

/* Not while a SWMR writer appends: libhdf5's read refreshes what it sees. */
static bool file_ok(h5c_col *c)
{
    hid_t f = H5Iget_file_id(c->ds);
    unsigned intent = 0;
    bool ok = f >= 0 && H5Fget_intent(f, &intent) >= 0 && !(intent & H5F_ACC_SWMR_READ);
    /* The loader holds the file open: this only drops the reference taken. */
    if (f >= 0)
        H5Fclose(f);
    return ok;
}

h5c_col *h5c_open(hid_t ds, uint64_t n)
{
    if (hook_is(HOOK_H5READ, "1") || n == 0)
        return NULL;
    h5c_col *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->ds = ds;
    c->n = n;
    hid_t dcpl = H5Dget_create_plist(ds);
    bool ok = dcpl >= 0 && type_ok(c) && layout_ok(c, dcpl) && pipeline_ok(c, dcpl) && file_ok(c);
    if (ok)
        fill_value(c, dcpl);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    H5Eclear2(H5E_DEFAULT);
    if (ok)
        c->threads = par_threads();
    if (!ok) {
        h5c_close(c);
        return NULL;
    }
    return c;
}

void h5c_close(h5c_col *c)
{
    if (!c)
        return;
    free(c->batch);
    free(c);
}

/* --- locating --- */

/* The most a chunk's stored bytes can be: deflate's worst case. */
static size_t stored_max(const h5c_col *c)
{
    size_t cbytes = c->cdim * c->esize;
    return cbytes + cbytes / 8 + 4096;
}

/* Chunk i's stored size (0: not allocated); false when libhdf5 cannot say,
 * or claims more than deflate can make of a chunk (libhdf5's to report). */
static bool chunk_size(const h5c_col *c, uint64_t i, uint32_t *size)
{
    hsize_t coord = i * c->cdim, bytes = 0;
    if (H5Dget_chunk_storage_size(c->ds, &coord, &bytes) < 0) {
        /* libhdf5 1.10 fails here for some unallocated chunks: ask the
         * slower call (it walks the chunk index) whether this one is. */
        unsigned mask = 0;
        haddr_t addr = 0;
        H5Eclear2(H5E_DEFAULT);
        if (H5Dget_chunk_info_by_coord(c->ds, &coord, &mask, &addr, &bytes) < 0 ||
            addr != HADDR_UNDEF) {
            H5Eclear2(H5E_DEFAULT);
            return false;
        }
        bytes = 0;
    }
    if (bytes > stored_max(c))
        return false;
    *size = (uint32_t)bytes;
    return true;
}

/* Chunk i's stored bytes into buf (size bytes) and its filter mask. */
static bool chunk_read(const h5c_col *c, uint64_t i, void *buf, uint32_t *mask)
{
    hsize_t coord = i * c->cdim;
    if (H5Dread_chunk(c->ds, H5P_DEFAULT, &coord, mask, buf) < 0) {
        H5Eclear2(H5E_DEFAULT);
        return false;
    }
    return true;
}

/* --- converting --- */

static uint64_t load_elem(const uint8_t *p, size_t esize, bool be)
{
    uint64_t v = 0;
    for (size_t b = 0; b < esize; b++)
        v |= (uint64_t)p[be ? esize - 1 - b : b] << (8 * b);
    return v;
}

/* cnt elements of file bytes src into dst (int64 or uint64), as libhdf5's
 * conversion does for the cases h5c_read admits (all exact). */
static void convert(const h5c_col *c, const uint8_t *src, size_t cnt, uint64_t *dst)
{
    size_t es = c->esize;
    if (es == 8 && !c->big_endian) {
        memcpy(dst, src, cnt * 8);
        return;
    }
    unsigned shift = (unsigned)(64 - 8 * es);
    for (size_t i = 0; i < cnt; i++) {
        uint64_t v = load_elem(src + i * es, es, c->big_endian);
        if (c->is_signed && shift)
            v = (uint64_t)(((int64_t)(v << shift)) >> shift);
        dst[i] = v;
    }
}

/* Plain: every chunk's stored bytes are the values as the caller wants
 * them (no filters, little-endian 64-bit, an exact conversion). */
static bool plain(const h5c_col *c)
{
    return c->nfilters == 0 && c->esize == 8 && !c->big_endian;
}

/* --- decoding --- */

typedef struct h5c_task_set {
    const h5c_col *c;
    uint64_t first; /* chunk index of the batch's first chunk */
    size_t nchunks;
    size_t ntasks;
    const h5c_chunk *k; /* each chunk's size and mask */
    const size_t *boff; /* each chunk's stored bytes in c->batch */
    uint64_t off;       /* the read's first element */
    size_t cnt;
    uint64_t *dst;
    bool as_unsigned;
    bool *failed; /* per task */
} h5c_task_set;

#ifdef __SSE2__
#include <emmintrin.h>

/* Sixteen 8-byte elements from the eight byte streams: three rounds of
 * interleaving (bytes, pairs, quads) put each element's bytes together. */
static inline void unshuffle16(const uint8_t *in, size_t ne, uint8_t *out)
{
    __m128i v[8], a[8], b[8];
    for (size_t k = 0; k < 8; k++)
        v[k] = _mm_loadu_si128((const __m128i *)(const void *)(in + k * ne));
    for (size_t k = 0; k < 4; k++) { /* a[2k]: elements 0-7, a[2k+1]: 8-15, bytes 2k, 2k+1 */
        a[2 * k] = _mm_unpacklo_epi8(v[2 * k], v[2 * k + 1]);
        a[2 * k + 1] = _mm_unpackhi_epi8(v[2 * k], v[2 * k + 1]);
    }
    for (size_t h = 0; h < 2; h++) /* b[4h + q]: elements 4q.. of bytes 4h..4h+3 */
        for (size_t g = 0; g < 2; g++) {
            b[4 * h + 2 * g] = _mm_unpacklo_epi16(a[4 * h + g], a[4 * h + 2 + g]);
            b[4 * h + 2 * g + 1] = _mm_unpackhi_epi16(a[4 * h + g], a[4 * h + 2 + g]);
        }
    for (size_t q = 0; q < 4; q++) { /* elements 4q, 4q+1 and 4q+2, 4q+3 */
        _mm_storeu_si128((__m128i *)(void *)(out + q * 32), _mm_unpacklo_epi32(b[q], b[4 + q]));
        _mm_storeu_si128((__m128i *)(void *)(out + q * 32 + 16),
                         _mm_unpackhi_epi32(b[q], b[4 + q]));
    }
}
#endif

/* w[r] holds byte c of row r at bits 8c..8c+7: transposes the 8x8 byte
 * matrix in place (2x2 blocks of 4, of 2, then of single bytes swapped). */
static inline void transpose8x8(uint64_t w[8])
{
    for (int r = 0; r < 4; r++) {
        uint64_t t = ((w[r] >> 32) ^ w[r + 4]) & UINT64_C(0x00000000FFFFFFFF);
        w[r] ^= t << 32;
        w[r + 4] ^= t;
    }
    for (int r = 0; r < 8; r += (r & 1) ? 3 : 1) { /* 0, 1, 4, 5 */
        uint64_t t = ((w[r] >> 16) ^ w[r + 2]) & UINT64_C(0x0000FFFF0000FFFF);
        w[r] ^= t << 16;
        w[r + 2] ^= t;
    }
    for (int r = 0; r < 8; r += 2) {
        uint64_t t = ((w[r] >> 8) ^ w[r + 1]) & UINT64_C(0x00FF00FF00FF00FF);
        w[r] ^= t << 8;
        w[r + 1] ^= t;
    }
}

/* Shuffle's inverse: byte b of element i is at b * (nbytes / es) + i; bytes
 * past the last whole element stay where they are. */
static void unshuffle(const uint8_t *in, uint8_t *out, size_t nbytes, size_t es)
{
    size_t ne = nbytes / es;
    if (es == 8) { /* the columns' case: eight elements at a time, a byte transpose */
        size_t i = 0;
#ifdef __SSE2__
        for (; i + 16 <= ne; i += 16)
            unshuffle16(in + i, ne, out + i * 8);
#endif
        for (; i + 8 <= ne; i += 8) {
            uint64_t w[8];
            for (size_t b = 0; b < 8; b++)
                memcpy(&w[b], in + b * ne + i, 8);
            transpose8x8(w);
            memcpy(out + i * 8, w, 64);
        }
        for (; i < ne; i++) {
            uint64_t v = 0;
            for (size_t b = 0; b < 8; b++)
                v |= (uint64_t)in[b * ne + i] << (8 * b);
            memcpy(out + i * 8, &v, 8);
        }
    } else {
        for (size_t b = 0; b < es; b++) {
            const uint8_t *s = in + b * ne;
            for (size_t i = 0; i < ne; i++)
                out[i * es + b] = s[i];
        }
    }
    memcpy(out + ne * es, in + ne * es, nbytes - ne * es);
}

/* Undoes the pipeline of chunk k (last filter first, skipping the masked
 * ones) from its stored bytes; the whole chunk's bytes, or NULL.  The last
 * step writes into direct when given (a whole chunk as the caller wants
 * it), else into s0 or s1. */
static const uint8_t *decode(const h5c_col *c, const h5c_chunk *k, const uint8_t *stored,
                             uint8_t *s0, uint8_t *s1, uint8_t *direct,
                             struct libdeflate_decompressor *z)
{
    size_t cbytes = c->cdim * c->esize, have = k->size;
    const uint8_t *cur = stored;
    int last = 0;
    while (last < c->nfilters && (k->mask & (1u << last)))
        last++;
    for (int i = c->nfilters - 1; i >= 0; i--) {
        if (k->mask & (1u << i))
            continue;
        uint8_t *out = i == last && direct ? direct : cur == s0 ? s1 : s0;
        if (c->filter[i] == H5C_DEFLATE) {
            size_t got = 0;
            if (libdeflate_zlib_decompress(z, cur, have, out, cbytes, &got) != LIBDEFLATE_SUCCESS ||
                got != cbytes)
                return NULL;
            have = got;
        } else {
            unshuffle(cur, out, have, c->esize);
        }
        cur = out;
    }
    return have == cbytes ? cur : NULL;
}

static bool run_chunk(const h5c_task_set *s, uint64_t ci, uint8_t *s0, uint8_t *s1,
                      struct libdeflate_decompressor *z)
{
    const h5c_col *c = s->c;
    const h5c_chunk *k = &s->k[ci - s->first];
    uint64_t a = ci * c->cdim, b = a + c->cdim;
    uint64_t lo = a > s->off ? a : s->off, hi = b < s->off + s->cnt ? b : s->off + s->cnt;
    uint64_t *dst = s->dst + (lo - s->off);
    size_t cnt = (size_t)(hi - lo);
    if (k->size == 0) {
        uint64_t v = s->as_unsigned ? c->fill_u64 : (uint64_t)c->fill_i64;
        for (size_t i = 0; i < cnt; i++)
            dst[i] = v;
        return c->fill_ok;
    }
    /* A whole chunk of what the caller wants is decoded in place. */
    uint8_t *direct = c->esize == 8 && !c->big_endian && lo == a && hi == b ? (uint8_t *)dst : NULL;
    const uint8_t *bytes = decode(c, k, c->batch + s->boff[ci - s->first], s0, s1, direct, z);
    if (!bytes)
        return false;
    if (bytes != direct)
        convert(c, bytes + (lo - a) * c->esize, cnt, dst);
    return true;
}

static void decode_task(void *ctx, size_t t)
{
    const h5c_task_set *s = ctx;
    size_t per = (s->nchunks + s->ntasks - 1) / s->ntasks;
    size_t from = t * per, to = from + per < s->nchunks ? from + per : s->nchunks;
    size_t smax = stored_max(s->c);
    uint8_t *s0 = malloc(2 * smax);
    struct libdeflate_decompressor *z = libdeflate_alloc_decompressor();
    bool ok = s0 && z;
    for (size_t i = from; ok && i < to; i++)
        ok = run_chunk(s, s->first + i, s0, s0 + smax, z);
    s->failed[t] = !ok;
    if (z)
        libdeflate_free_decompressor(z);
    free(s0);
}

/* --- reading --- */

/* Elements [lo, hi) through H5Dread: the part of a plain chunk a read
 * takes, which libhdf5 reads alone (a whole chunk would be read for it). */
static bool read_part(const h5c_col *c, uint64_t lo, uint64_t hi, bool as_unsigned, uint64_t *dst)
{
    hsize_t start = lo, count = hi - lo;
    hid_t fs = H5Dget_space(c->ds), ms = H5Screate_simple(1, &count, NULL);
    bool ok = fs >= 0 && ms >= 0 &&
              H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL) >= 0 &&
              H5Dread(c->ds, as_unsigned ? H5T_NATIVE_UINT64 : H5T_NATIVE_INT64, ms, fs,
                      H5P_DEFAULT, dst) >= 0;
    if (ms >= 0)
        H5Sclose(ms);
    if (fs >= 0)
        H5Sclose(fs);
    H5Eclear2(H5E_DEFAULT);
    return ok;
}

/* The whole chunk at element a of a plain column straight into dst. */
static bool read_plain(const h5c_col *c, uint64_t a, uint64_t fill, uint64_t *dst)
{
    uint64_t i = a / c->cdim;
    uint32_t mask = 0, size = 0;
    if (chunk_read(c, i, dst, &mask))
        return true;
    /* Not allocated: the fill value, else libhdf5's to say what it is. */
    if (!c->fill_ok || !chunk_size(c, i, &size) || size != 0)
        return false;
    for (uint64_t j = 0; j < c->cdim; j++)
        dst[j] = fill;
    return true;
}

static bool plain_range(h5c_col *c, uint64_t off, size_t cnt, bool as_unsigned, uint64_t *dst)
{
    uint64_t fill = as_unsigned ? c->fill_u64 : (uint64_t)c->fill_i64;
    for (uint64_t a = off / c->cdim * c->cdim; a < off + cnt; a += c->cdim) {
        uint64_t lo = a > off ? a : off, hi = a + c->cdim < off + cnt ? a + c->cdim : off + cnt;
        bool ok = lo == a && hi == a + c->cdim
                      ? read_plain(c, a, fill, dst + (lo - off))
                      : read_part(c, lo, hi, as_unsigned, dst + (lo - off));
        if (!ok)
            return false;
    }
    return true;
}

static bool grow_batch(h5c_col *c, size_t cap)
{
    if (c->batch && c->batch_cap >= cap)
        return true;
    free(c->batch);
    c->batch_cap = 0;
    if (!(c->batch = malloc(cap)))
        return false;
    c->batch_cap = cap;
    return true;
}

/* The stored bytes of chunks [i, i + nb) into c->batch, one after another,
 * as many as fit (at least one): *nb becomes how many. */
static bool fill_batch(h5c_col *c, uint64_t i, size_t *nb, h5c_chunk *k, size_t *boff)
{
    size_t want = *nb, pos = 0, got = 0;
    for (; got < want; got++) {
        if (!chunk_size(c, i + got, &k[got].size))
            return false;
        if (got > 0 && pos + k[got].size > c->batch_lim)
            break;
        if (!grow_batch(c, pos + k[got].size > c->batch_lim ? pos + k[got].size : c->batch_lim))
            return false;
        boff[got] = pos;
        k[got].mask = 0;
        if (k[got].size && !chunk_read(c, i + got, c->batch + pos, &k[got].mask))
            return false;
        pos += k[got].size;
    }
    *nb = got;
    return true;
}

/* Filtered (or converted) chunks from c0 on, as many as fit the batch: read
 * one after another, decoded on the threads.  *next: the first not done. */
static bool read_batch(h5c_col *c, uint64_t c0, uint64_t c1, uint64_t off, size_t cnt,
                       uint64_t *dst, bool as_unsigned, uint64_t *next)
{
    /* A batch of small chunks holds at most this many. */
    size_t nb = c1 - c0 + 1 < 65536 ? (size_t)(c1 - c0 + 1) : 65536;
    h5c_chunk *k = malloc(nb * sizeof *k);
    size_t *boff = malloc(nb * sizeof *boff);
    bool *failed = calloc(nb, sizeof *failed);
    bool ok = k && boff && failed && fill_batch(c, c0, &nb, k, boff);
    if (ok) {
        size_t ntasks = (size_t)c->threads * 4;
        if (ntasks > nb)
            ntasks = nb;
        h5c_task_set s = {c, c0, nb, ntasks, k, boff, off, cnt, dst, as_unsigned, failed};
        par_job job = {.ntasks = ntasks, .fn = decode_task, .ctx = &s};
        if (c->crew)
            par_crew_run(c->crew, &job);
        else
            par_run(&job, c->threads);
        for (size_t t = 0; t < ntasks; t++)
            ok = ok && !failed[t];
    }
    free(k);
    free(boff);
    free(failed);
    *next = c0 + nb;
    return ok;
}

void h5c_set_crew(h5c_col *c, par_crew *cr)
{
    c->crew = cr;
}

uint64_t h5c_chunk_elems(const h5c_col *c)
{
    return c->cdim;
}

bool h5c_read(h5c_col *c, uint64_t off, size_t cnt, void *dst, bool as_unsigned)
{
    if (cnt == 0)
        return true;
    /* Exact conversions only: signed to int64, unsigned below 64 bits to
     * int64, unsigned to uint64 (libhdf5 clamps the others). */
    if (as_unsigned ? c->is_signed : (!c->is_signed && c->esize == 8))
        return false;
    if (off > c->n || cnt > c->n - off)
        return false;
    if (plain(c))
        return plain_range(c, off, cnt, as_unsigned, dst);
    /* The batch is the read's own: a streamed read of a slice holds no more
     * than about the slice (its stored bytes are rarely more than its
     * values), and no column keeps a buffer between reads, so the streamed
     * readers' many open columns stay within their budget. */
    c->batch_lim = cnt < H5C_BATCH_BYTES / 8 ? cnt * 8 : H5C_BATCH_BYTES;
    uint64_t c0 = off / c->cdim, c1 = (off + cnt - 1) / c->cdim;
    bool ok = true;
    while (ok && c0 <= c1)
        ok = read_batch(c, c0, c1, off, cnt, dst, as_unsigned, &c0);
    free(c->batch);
    c->batch = NULL;
    c->batch_cap = 0;
    return ok;
}
