/* hash: the hashes of every table and every stable choice (open-addressing
 * tables, the MPI run's owner of a row, a region's colour, warning kinds),
 * and sv_itab, an open-addressing table of record indices. */
#ifndef SV_HASH_H
#define SV_HASH_H

#include <stdbool.h>
#include <stddef.h>
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

/* sv_itab: the indices of the caller's records by key (linear probing,
 * at most half full).  The table keeps no keys: the caller hashes them and
 * says whether record i holds the one looked for, so the records stay in
 * one array of the caller's (in insertion order) and one table serves
 * every record type.  {0}: empty, no storage. */
typedef struct sv_itab {
    uint32_t *slot; /* record index + 1, 0 empty */
    size_t cap;     /* a power of two, or 0 */
    size_t n;       /* indices held */
} sv_itab;

/* Whether record i holds key (both the caller's, ctx its records). */
typedef bool (*sv_itab_eq)(const void *ctx, uint32_t i, const void *key);
/* The hash of record i's key, the one its lookups give (for a rehash). */
typedef uint64_t (*sv_itab_hash)(const void *ctx, uint32_t i);

/* The index of the record holding key, whose hash is h; UINT32_MAX when
 * none does.  Inline with eq a known function, the compare is too. */
static inline uint32_t sv_itab_find(const sv_itab *t, uint64_t h, sv_itab_eq eq, const void *ctx,
                                    const void *key)
{
    if (!t->cap)
        return UINT32_MAX;
    size_t mask = t->cap - 1;
    for (size_t k = (size_t)h & mask; t->slot[k]; k = (k + 1) & mask)
        if (eq(ctx, t->slot[k] - 1, key))
            return t->slot[k] - 1;
    return UINT32_MAX;
}

/* Twice the room (first slots at least, a power of two), every index
 * placed again by hash; false on NOMEM (the table as it was). */
bool sv_itab_grow(sv_itab *t, size_t first, sv_itab_hash hash, const void *ctx);

/* Adds record i (index below UINT32_MAX), whose key of hash h the table
 * does not hold (sv_itab_find missed it), growing it first when it would
 * be over half full.  false on NOMEM (the table as it was). */
static inline bool sv_itab_add(sv_itab *t, uint64_t h, uint32_t i, size_t first, sv_itab_hash hash,
                               const void *ctx)
{
    if (2 * (t->n + 1) > t->cap && !sv_itab_grow(t, first, hash, ctx))
        return false;
    size_t mask = t->cap - 1, k = (size_t)h & mask;
    while (t->slot[k])
        k = (k + 1) & mask;
    t->slot[k] = i + 1;
    t->n++;
    return true;
}

/* Forgets every index, keeping the storage. */
void sv_itab_clear(sv_itab *t);
void sv_itab_free(sv_itab *t);

#endif
