/* h5util_filters: the decoders of the third-party filters scope-profiler
 * writes with hdf5_compression="lzf" (h5py's filter 32000) and "zstd"
 * (hdf5plugin's 32015), registered with H5Zregister when no plugin gives
 * them.  Stock libhdf5 decodes neither; Debian has no zstd plugin, and its
 * lzf plugin (hdf5-plugin-lzf) expects lzf_decompress from the program
 * that loads it, so scopeview decodes both itself, with liblzf and libzstd.
 *
 * Each decoder writes at most H5U_MAX_RATIO times the stored bytes (the
 * bound count_plausible allows a compressed column): a chunk that claims
 * more is refused, never allocated.  They return 0 (the read fails, and
 * the column is dropped with libhdf5's reason) on damaged data and when
 * asked to compress: scopeview only reads. */
#include <errno.h>
#include <lzf.h>
#include <zstd.h>

#include "h5util.h"
#include "h5util_internal.h"

#define H5U_LZF_FILTER 32000
#define H5U_ZSTD_FILTER 32015

static size_t out_cap(size_t nbytes)
{
    return nbytes <= SIZE_MAX / H5U_MAX_RATIO - 4096 ? nbytes * H5U_MAX_RATIO + 4096 : SIZE_MAX;
}

/* h5py's lzf: one raw lzf block per chunk; cd_values[2], when set, is the
 * chunk's size (h5py's lzf_filter.c).  Without it the buffer grows. */
static size_t lzf_filter(unsigned flags, size_t cd_nelmts, const unsigned cd_values[],
                         size_t nbytes, size_t *buf_size, void **buf)
{
    if (!(flags & H5Z_FLAG_REVERSE) || nbytes > UINT_MAX)
        return 0;
    size_t cap = out_cap(nbytes);
    cap = cap < UINT_MAX ? cap : UINT_MAX;
    size_t size = cd_nelmts >= 3 && cd_values[2] ? cd_values[2] : *buf_size;
    if (size == 0 || size > cap)
        return 0;
    for (;;) {
        void *out = H5allocate_memory(size, false);
        if (!out)
            return 0;
        errno = 0;
        unsigned n = lzf_decompress(*buf, (unsigned)nbytes, out, (unsigned)size);
        if (n > 0) {
            H5free_memory(*buf);
            *buf = out;
            *buf_size = size;
            return n;
        }
        H5free_memory(out);
        if (errno != E2BIG || size >= cap)
            return 0;
        size = size < cap / 2 ? size * 2 : cap;
    }
}

/* One chunk's zstd frames into a buffer of at most H5U_MAX_RATIO times
 * the stored bytes (the bound count_plausible allows a compressed
 * column): a chunk that claims more is refused, never allocated.  0 (the
 * read fails) on a damaged frame, or when compressing is asked. */
static size_t zstd_filter(unsigned flags, size_t cd_nelmts, const unsigned cd_values[],
                          size_t nbytes, size_t *buf_size, void **buf)
{
    (void)cd_nelmts;
    (void)cd_values;
    if (!(flags & H5Z_FLAG_REVERSE))
        return 0; /* scopeview only reads */
    size_t cap =
        nbytes <= SIZE_MAX / H5U_MAX_RATIO - 4096 ? nbytes * H5U_MAX_RATIO + 4096 : SIZE_MAX;
    unsigned long long want = ZSTD_getFrameContentSize(*buf, nbytes);
    size_t size = want == ZSTD_CONTENTSIZE_ERROR     ? 0
                  : want == ZSTD_CONTENTSIZE_UNKNOWN ? (nbytes < cap / 4 ? nbytes * 4 : cap)
                  : want > cap                       ? 0
                                                     : (size_t)want;
    if (size == 0 && want != 0)
        return 0;
    ZSTD_DCtx *dc = ZSTD_createDCtx();
    void *out = dc ? H5allocate_memory(size ? size : 1, false) : NULL;
    ZSTD_outBuffer ob = {out, size, 0};
    ZSTD_inBuffer ib = {*buf, nbytes, 0};
    size_t rc = 1;
    /* Frames until the input is used up; an unknown size grows to cap. */
    while (out && ib.pos < ib.size) {
        if (ob.pos == ob.size) {
            size_t grown = ob.size == 0 ? 4096 : ob.size < cap / 2 ? ob.size * 2 : cap;
            grown = grown < cap ? grown : cap;
            void *v = grown > ob.size ? H5resize_memory(out, grown) : NULL;
            if (!v)
                break;
            ob.dst = out = v;
            ob.size = grown;
        }
        rc = ZSTD_decompressStream(dc, &ob, &ib);
        if (ZSTD_isError(rc))
            break;
    }
    ZSTD_freeDCtx(dc);
    if (!out || ib.pos < ib.size || ZSTD_isError(rc) || rc != 0) {
        H5free_memory(out);
        return 0;
    }
    H5free_memory(*buf);
    *buf = out;
    *buf_size = ob.size;
    return ob.pos;
}

void h5u_register_filters(void)
{
    static const H5Z_class2_t lzf = {H5Z_CLASS_T_VERS, H5U_LZF_FILTER, 0, 1, "lzf", NULL, NULL,
                                     lzf_filter};
    static const H5Z_class2_t zstd = {H5Z_CLASS_T_VERS, H5U_ZSTD_FILTER, 0, 1, "zstd", NULL, NULL,
                                      zstd_filter};
    if (H5Zfilter_avail(H5U_LZF_FILTER) <= 0)
        H5Zregister(&lzf);
    if (H5Zfilter_avail(H5U_ZSTD_FILTER) <= 0)
        H5Zregister(&zstd);
}
