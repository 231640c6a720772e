/* testutil: small helpers shared by the cmocka tests (no cmocka inside). */
#ifndef SV_TESTUTIL_H
#define SV_TESTUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Path of fixture NAME written by `svgen fixtures`: $SV_TOP_BUILDDIR (set by
 * make check), else the build dir compiled in, + "/tests/fixtures/NAME". */
const char *sv_fixture_path(char *buf, size_t len, const char *name);

/* Path of REL below the shared directory: $SV_SHARED_DIR, else
 * SV_TOP_SRCDIR "/../shared". */
const char *sv_shared_path(char *buf, size_t len, const char *rel);

/* True when the shared reference data (data/real) is there. */
bool sv_shared_available(void);

/* The exit status of a test program some of whose tests also cross-check
 * against the shared data: failed (cmocka's count).  Without the shared
 * data a line says that those cross-checks were left out; the program's
 * own tests, on generated fixtures, still decide. */
int sv_shared_exit(int failed);

/* The i-th directory of profiles the tests walk: 0 the generated fixtures,
 * then, when the shared data is there, its data/real, data/extended and
 * data/upstream.  buf, or NULL past the last. */
const char *sv_profile_dir(size_t i, char *buf, size_t len);

bool sv_file_exists(const char *path);

/* 64-bit FNV-1a of a file's bytes, and its size.  false when unreadable. */
bool sv_file_checksum(const char *path, uint64_t *sum, uint64_t *size);

/* Bytes read back from memory, at most piece at a time (0: as many as
 * asked): odd-sized pieces exercise a receiver's buffering.
 * sv_mem_read is a wire_src read function over an sv_mem_src. */
typedef struct sv_mem_src {
    const unsigned char *b;
    size_t len, pos, piece;
} sv_mem_src;
ssize_t sv_mem_read(void *ctx, void *buf, size_t n);

/* A whole file, NUL-terminated, malloc'ed; NULL when unreadable. */
char *sv_slurp(const char *path, size_t *len);

#endif
