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
