#include "memprof.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

void mp_col(int64_t **dst, const int64_t *src, size_t n)
{
    *dst = malloc((n ? n : 1) * sizeof **dst);
    assert_non_null(*dst);
    if (n)
        memcpy(*dst, src, n * sizeof **dst);
}

region *mp_region(rank_data *rk, const char *name, size_t n, const int64_t *start,
                  const int64_t *end)
{
    region *r = rank_add_region(rk, name);
    assert_non_null(r);
    r->has_event_data = true;
    r->n = n;
    mp_col(&r->start_ns, start, n);
    mp_col(&r->end_ns, end, n);
    return r;
}

void mp_finish(profile *p)
{
    sv_error err;
    sv_error_clear(&err);
    sv_err e = profile_finish(p, &err);
    if (e)
        fail_msg("profile_finish: %s", err.msg);
}

profile *mp_ranks_profile(int nranks)
{
    profile *p = profile_new("mem");
    for (int k = 0; k < nranks; k++) {
        rank_data *rk = profile_add_rank(p, k);
        int64_t o = (int64_t)k * 10000;
        int64_t as[] = {o, o + 100}, ae[] = {o + 1000, o + 200};
        int64_t bs[] = {o + 10, o + 300, o + 300}, be[] = {o + 50, o + 400, o + 400};
        int64_t cs[] = {o + 40, o + 900}, ce[] = {o + 60, o + 1200};
        mp_region(rk, "a", 2, as, ae);
        mp_region(rk, "b", 3, bs, be);
        mp_region(rk, "c", 2, cs, ce);
        int64_t ds[64], de[64];
        for (int i = 0; i < k && i < 64; i++) {
            ds[i] = o + 2000 + 10 * i;
            de[i] = ds[i] + 5;
        }
        if (k > 0)
            mp_region(rk, "d", (size_t)(k < 64 ? k : 64), ds, de);
    }
    mp_finish(p);
    return p;
}
