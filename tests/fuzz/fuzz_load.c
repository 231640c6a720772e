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
#include "fuzz_common.h"
#include "load/loader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_env *env = fuzz_env_get("fuzz_load");
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
