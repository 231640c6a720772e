/* fuzz_common: the targets' shared harness (fuzz_common.h). */
#include "fuzz_common.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli/outputs.h"
#include "model/filter.h"
#include "model/region.h"
#include "ui/app.h"

/* Per-process state libFuzzer's callback cannot carry: created once. */
static fuzz_env fuzz_the_env = {.fd = -1};

static void fuzz_cleanup(void)
{
    unlink(fuzz_the_env.path);
}

fuzz_env *fuzz_env_get(const char *target)
{
    fuzz_env *env = &fuzz_the_env;
    if (env->fd >= 0)
        return env;
    /* run.sh names a private directory: a crashed worker leaves its file. */
    const char *dir = getenv("FUZZ_LOAD_TMPDIR");
    if (!dir)
        dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
    snprintf(env->path, sizeof env->path, "%s/%s.XXXXXX", dir ? dir : "/tmp", target);
    env->fd = mkstemp(env->path);
    env->null = fopen("/dev/null", "w");
    if (env->fd < 0 || !env->null) {
        perror(target);
        abort();
    }
    atexit(fuzz_cleanup);
    return env;
}

bool fuzz_write(int fd, const uint8_t *data, size_t size)
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

void fuzz_stats(profile *p)
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

void fuzz_outputs(profile *p, FILE *null)
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
