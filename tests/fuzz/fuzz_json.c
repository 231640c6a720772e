/* fuzz_json: libFuzzer target for JSON profiles, from the document's bytes
 * to a screen, as fuzz_load does for HDF5 files: each input that the loader
 * takes for JSON (a '{' first, or gzip's magic; others are skipped, they
 * are fuzz_load's) is written over one temporary file, loaded in-process
 * under a memory budget, every statistic and the per-call nesting computed,
 * the batch outputs written into /dev/null and one headless screen drawn
 * after a few keys.  No third-party code here is known to crash: every
 * crash is scopeview's (or yajl's, zlib's) to fix. */
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli/outputs.h"
#include "model/filter.h"
#include "load/loader.h"
#include "model/budget.h"
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
    snprintf(env->path, sizeof env->path, "%s/fuzz_json.XXXXXX", dir ? dir : "/tmp");
    env->fd = mkstemp(env->path);
    env->null = fopen("/dev/null", "w");
    if (env->fd < 0 || !env->null) {
        perror("fuzz_json: setup");
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

/* What the loader reads as JSON (load_json.h's sniff, spelled out here). */
static bool fuzz_is_json(const uint8_t *d, size_t n)
{
    if (n >= 2 && d[0] == 0x1f && d[1] == 0x8b)
        return true;
    size_t i = 0;
    while (i < n && (d[i] == ' ' || d[i] == '\t' || d[i] == '\n' || d[i] == '\r'))
        i++;
    return i < n && d[i] == '{';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!fuzz_is_json(data, size))
        return -1; /* not added to the corpus */
    fuzz_env *env = fuzz_env_get();
    if (!fuzz_write(env->fd, data, size))
        return 0;
    profile *p = NULL;
    sv_error err;
    /* gzip bombs stay within a budget, as --memory keeps the viewer's */
    load_budget b = {.limit = (uint64_t)256 << 20};
    load_options lo = {.budget = &b};
    sv_err e = profile_load(env->path, &lo, &p, &err);
    budget_free(&b);
    if (e != SV_OK)
        return 0;
    fuzz_stats(p);
    fuzz_outputs(p, env->null);
    profile_free(p);
    return 0;
}
