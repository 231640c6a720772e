/* fuzz_spt: libFuzzer target for native traces (.spt, load_spt.c).
 *
 * Every input is made a trace by its first eight bytes ("SCOPEPRF"), so
 * the fuzzer spends its time on the layout behind them: written to one
 * temporary file (in /dev/shm when it exists), loaded in-process, then
 * every statistic, the per-call nesting and --json into /dev/null.  A
 * trace is read by scopeview's own code only: any crash is a bug. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/outputs.h"
#include "load/loader.h"
#include "model/filter.h"
#include "model/region.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct fuzz_env {
    int fd;
    char path[PATH_MAX];
    FILE *null;
} fuzz_env;

static fuzz_env fuzz_the_env = {.fd = -1};

static void fuzz_cleanup(void)
{
    unlink(fuzz_the_env.path);
}

static fuzz_env *fuzz_env_get(void)
{
    fuzz_env *env = &fuzz_the_env;
    if (env->fd >= 0)
        return env;
    const char *dir = getenv("FUZZ_LOAD_TMPDIR");
    if (!dir)
        dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
    snprintf(env->path, sizeof env->path, "%s/fuzz_spt.XXXXXX", dir ? dir : "/tmp");
    env->fd = mkstemp(env->path);
    env->null = fopen("/dev/null", "w");
    if (env->fd < 0 || !env->null) {
        perror("fuzz_spt: setup");
        abort();
    }
    atexit(fuzz_cleanup);
    return env;
}

/* The input with "SCOPEPRF" over its first bytes. */
static bool fuzz_write(int fd, const uint8_t *data, size_t size)
{
    if (ftruncate(fd, 0) != 0)
        return false;
    uint8_t *b = malloc(size ? size : 1);
    if (!b)
        return false;
    memcpy(b, data, size);
    memcpy(b, "SCOPEPRF", size < 8 ? size : 8);
    size_t done = 0;
    while (done < size) {
        ssize_t k = pwrite(fd, b + done, size - done, (off_t)done);
        if (k <= 0)
            break;
        done += (size_t)k;
    }
    free(b);
    return done == size;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_env *env = fuzz_env_get();
    if (!fuzz_write(env->fd, data, size))
        return 0;
    profile *p = NULL;
    sv_error err;
    if (profile_load(env->path, NULL, &p, &err) != SV_OK)
        return 0;
    volatile double sink = 0;
    for (size_t i = 0; i < p->nregions; i++)
        for (int k = 0; k < RSTAT_COUNT; k++) {
            double v;
            if (region_stat(p->regions[i], (region_stat_id)k, &v))
                sink += v;
        }
    (void)sink;
    profile_ensure_calls(p, &err);
    region_filter f;
    filter_init(&f);
    out_json(p, &f, env->null, &err);
    fflush(env->null);
    filter_free(&f);
    profile_free(p);
    return 0;
}
