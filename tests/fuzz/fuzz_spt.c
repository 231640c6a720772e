/* fuzz_spt: libFuzzer target for native traces (.spt, load_spt.c).
 *
 * Every input is made a trace by its first eight bytes ("SCOPEPRF"), so
 * the fuzzer spends its time on the layout behind them: written to one
 * temporary file (in /dev/shm when it exists), loaded in-process, then
 * every statistic, the per-call nesting and --json into /dev/null.  A
 * trace is read by scopeview's own code only: any crash is a bug. */
#include <stdlib.h>
#include <string.h>

#include "cli/outputs.h"
#include "fuzz_common.h"
#include "load/loader.h"
#include "model/filter.h"

/* The input with "SCOPEPRF" over its first bytes. */
static bool fuzz_write_trace(int fd, const uint8_t *data, size_t size)
{
    uint8_t *b = malloc(size ? size : 1);
    if (!b)
        return false;
    memcpy(b, data, size);
    memcpy(b, "SCOPEPRF", size < 8 ? size : 8);
    bool ok = fuzz_write(fd, b, size);
    free(b);
    return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_env *env = fuzz_env_get("fuzz_spt");
    if (!fuzz_write_trace(env->fd, data, size))
        return 0;
    profile *p = NULL;
    sv_error err;
    if (profile_load(env->path, NULL, &p, &err) != SV_OK)
        return 0;
    fuzz_stats(p);
    region_filter f;
    filter_init(&f);
    out_json(p, &f, env->null, &err);
    fflush(env->null);
    filter_free(&f);
    profile_free(p);
    return 0;
}
