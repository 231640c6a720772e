/* gen_spt: writes native traces (.spt), the binary per-rank files of the
 * C API without HDF5 (version 2) and of the Fortran API (version 1), in
 * either byte order.  Shares no code with the reader (src/load/load_spt.c). */
#ifndef SV_GEN_SPT_H
#define SV_GEN_SPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct gen_spt_region {
    const char *name;
    const char *source; /* version 2: source file, NULL = unknown ("") */
    int32_t line;       /* version 2: source line, -1 = unknown */
    size_t n;
    const int64_t *start, *end; /* n each */
} gen_spt_region;

typedef struct gen_spt {
    int32_t version; /* written as is: 1 and 2 are the real ones */
    bool big_endian;
    int32_t rank;
    const gen_spt_region *regions;
    size_t nregions;
} gen_spt;

/* The trace's bytes (malloc'ed, *len long), or NULL when out of memory. */
unsigned char *gen_spt_encode(const gen_spt *t, size_t *len);
/* Writes the trace to path; false (errno set) on failure. */
bool gen_spt_write(const char *path, const gen_spt *t);
/* Writes len bytes to path; false on failure. */
bool gen_spt_write_bytes(const char *path, const unsigned char *b, size_t len);

/* svgen spt DIR NCALLS: a 4-rank run in DIR, run_rank0000R.spt, rank 0
 * version 2 little-endian, 1 version 2 big-endian, 2 version 1
 * little-endian, 3 version 1 big-endian; NCALLS calls per rank of main >
 * step > (solve > rhs, io/checkpoint), a few ranks' steps slower. */
void gen_spt_scenario(const char *dir, const int64_t *nums);

#endif
