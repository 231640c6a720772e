/* hash: the hashes of every table and every stable choice (open-addressing
 * tables, the MPI run's owner of a row, a region's colour, warning kinds).
 * Header-only. */
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

/* Two keys at once (a thread and a task). */
static inline uint64_t sv_hash_pair(uint64_t a, uint64_t b)
{
    return sv_hash_u64(a ^ sv_hash_u64(b));
}

/* FNV-1a, 64 bits, a byte at a time: stable across runs, processes and
 * platforms, for choices that must agree between them. */
#define SV_FNV64_INIT 1469598103934665603ULL

static inline uint64_t sv_fnv64_byte(uint64_t h, unsigned char c)
{
    return (h ^ c) * 1099511628211ULL;
}

static inline uint64_t sv_fnv64_str(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = sv_fnv64_byte(h, (unsigned char)*s);
    return h;
}

/* A NUL-terminated string for a table: FNV-1a over its bytes, then mixed. */
static inline uint64_t sv_hash_str(const char *s)
{
    return sv_hash_u64(sv_fnv64_str(SV_FNV64_INIT, s));
}

/* FNV-1a, 32 bits: a small stable number from a name (a region's colour). */
static inline uint32_t sv_fnv32_str(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 16777619u;
    }
    return h;
}

#endif
