/* fuzz_json: libFuzzer target for JSON profiles, from the document's bytes
 * to a screen, as fuzz_load does for HDF5 files: each input that the loader
 * takes for JSON (a '{' first, or gzip's magic; others are skipped, they
 * are fuzz_load's) is written over one temporary file, loaded in-process
 * under a memory budget, every statistic and the per-call nesting computed,
 * the batch outputs written into /dev/null and one headless screen drawn
 * after a few keys.  No third-party code here is known to crash: every
 * crash is scopeview's (or yajl's, zlib's) to fix. */
#include "fuzz_common.h"
#include "load/loader.h"
#include "model/budget.h"

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
    fuzz_env *env = fuzz_env_get("fuzz_json");
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
