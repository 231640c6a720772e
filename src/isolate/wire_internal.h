/* wire_internal: what the writer (wire.c) and the reader (wire_recv.c) of the
 * byte stream share: its markers and limits. */
#ifndef SV_WIRE_INTERNAL_H
#define SV_WIRE_INTERNAL_H

#include <fcntl.h>

#include "wire.h"

#define WIRE_MAGIC "SVW1"
#define WIRE_END "END!"
#define WIRE_NULL UINT64_MAX
#define WIRE_BUF (1u << 16)
/* No string the loader keeps is longer (SV_STRING_MAX plus escaping of a
 * warning or a name): a longer one is a malformed stream. */
#define WIRE_STR_MAX (8 * SV_STRING_MAX)
/* An optional section between the model and "END!" (wire.h). */
#define WIRE_SECTION "SEC1"
/* A column's first word: absent, its bytes follow, or it lies in the
 * shared memory (offset and byte length follow: wire.h). */
#define WIRE_COL_ABSENT 0
#define WIRE_COL_INLINE 1
#define WIRE_COL_SHARED 2
/* Shared columns start at multiples of this (a cache line). */
#define WIRE_SHM_ALIGN 64
/* The seals a shared mapping must carry before the receiver maps it. */
#define WIRE_SHM_SEALS (F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL)

#endif
