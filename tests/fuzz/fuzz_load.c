/* fuzz_load: libFuzzer target for the whole path from file bytes to a screen.
 *
 * Each input is written over one temporary file (in /dev/shm when it
 * exists: no disk I/O; a memfd will not do, libhdf5 resolves the real path
 * of what it opens), then: profile_load in-process (no probe
 * child: crashes must happen here, where the sanitizers see them), every
 * statistic of every region, the per-call nesting, the batch outputs into
 * /dev/null and one headless screen after a few keys through every view.
 *
 * libhdf5 is not instrumented and crashes on some malformed files by
 * itself; tests/fuzz/run.sh tells those apart from crashes in scopeview. */
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli/outputs.h"
#include "model/filter.h"
#include "load/loader.h"
#include "model/region.h"
#include "ui/app.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Per-process state libFuzzer's callback cannot carry: created once. */
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
    /* run.sh names a private directory: a crashed worker leaves its file. */
    const char *dir = getenv("FUZZ_LOAD_TMPDIR");
    if (!dir)
        dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
    snprintf(env->path, sizeof env->path, "%s/fuzz_load.XXXXXX", dir ? dir : "/tmp");
    env->fd = mkstemp(env->path);
    env->null = fopen("/dev/null", "w");
    if (env->fd < 0 || !env->null) {
        perror("fuzz_load: setup");
        abort();
    }
    atexit(fuzz_cleanup);
    return env;
}

static bool fuzz_write(int fd, const uint8_t *data, size_t size)
{
    if (ftruncate(fd, 0) != 0)
        return false;
    size_t done = 0;
    while (done < size) {
        ssize_t k = pwrite(fd, data + done, size - done, (off_t)done);
        if (k <= 0)
            return false;
        done += (size_t)k;
    }
    return true;
}

static void fuzz_stats(profile *p)
{
    volatile double sink = 0;
    for (size_t i = 0; i < p->nregions; i++) {
        const region *r = p->regions[i];
        for (int k = 0; k < RSTAT_COUNT; k++) {
            double v;
            if (region_stat(r, (region_stat_id)k, &v))
                sink += v;
        }
    }
    (void)sink;
    sv_error err;
    profile_ensure_calls(p, &err);
}

static void fuzz_outputs(profile *p, FILE *null)
{
    region_filter f;
    sv_error err;
    filter_init(&f);
    out_json(p, &f, null, &err);
    out_csv(p, &f, null, &err);
    out_summary(p, &f, null, &err);
    app_options ao = {
        .path = p->path,
        .headless = true,
        .cols = 100,
        .rows = 30,
        .keys = "<Tab><Down><Enter><Tab><Down><Tab><Tab><Tab>",
        .filter = &f,
    };
    app_run(p, &ao, null);
    fflush(null);
    filter_free(&f);
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
    fuzz_stats(p);
    fuzz_outputs(p, env->null);
    profile_free(p);
    return 0;
}
