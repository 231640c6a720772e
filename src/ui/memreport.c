/* memreport: the headless run's allocated bytes (memreport.h). */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

#include "model/footprint.h"
#include "memreport.h"
#include "util/hooks.h"

void memreport_maybe(const profile *p)
{
    const char *v = hook_value(HOOK_REPORT_BYTES);
    if (!v || !*v || (v[0] == '0' && !v[1]))
        return;
    size_t calls = 0;
    for (size_t i = 0; p && i < p->nregions; i++)
        calls += p->regions[i]->has_event_data ? p->regions[i]->n : 0;
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33)
    /* glibc sums every arena: worker threads' allocations count too. */
    struct mallinfo2 mi = mallinfo2();
    /* The columns received in shared memory are the model's too, not malloc's. */
    size_t shared = p ? p->shared_len : 0;
    fprintf(stderr, "scopeview: resident bytes %zu calls %zu", mi.uordblks + mi.hblkhd + shared,
            calls);
#else
    fprintf(stderr, "scopeview: resident bytes unknown calls %zu", calls);
#endif
    /* The model's own arrays (footprint.h: columns and nesting; the
     * timeline index is the view's), beside everything allocated. */
    footprint fp = {0};
    if (p)
        footprint_model(p, &fp);
    fprintf(stderr, " model %zu\n", footprint_total(&fp));
}
