/* fuzz_common: what the libFuzzer targets (fuzz_load, fuzz_json, fuzz_spt)
 * share: one temporary file each input is written over, and the work done
 * on a loaded profile (every statistic, the per-call nesting, the batch
 * outputs into /dev/null and a headless screen through every view). */
#ifndef SV_FUZZ_COMMON_H
#define SV_FUZZ_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct fuzz_env {
    int fd;
    char path[4096];
    FILE *null;
} fuzz_env;

/* The process's file (in $FUZZ_LOAD_TMPDIR, /dev/shm or $TMPDIR), named
 * after the target, made once and removed at exit. */
fuzz_env *fuzz_env_get(const char *target);

/* The file holds exactly data (size bytes). */
bool fuzz_write(int fd, const uint8_t *data, size_t size);

/* Every statistic of every region, then the per-call nesting. */
void fuzz_stats(profile *p);

/* --json, --csv and --summary into null, then one headless screen after a
 * walk through the views. */
void fuzz_outputs(profile *p, FILE *null);

#endif
