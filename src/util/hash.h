/* hash: the one hash of the open-addressing tables (call tree nodes, the
 * comparison's names and paths).  Header-only. */
#ifndef SV_HASH_H
#define SV_HASH_H

#include <stdint.h>

/* A 64-bit integer key, mixed so that nearby keys spread over the table
 * (MurmurHash3's finaliser). */
static inline uint64_t sv_hash_u64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

/* A NUL-terminated string: FNV-1a over its bytes, then mixed. */
static inline uint64_t sv_hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return sv_hash_u64(h);
}

#endif
