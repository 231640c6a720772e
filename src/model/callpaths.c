/* callpaths: the call-path totals' storage (callpaths.h). */
#include "callpaths.h"

#include <stdlib.h>

void call_paths_free(call_paths *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->nranks; i++)
        free(c->ranks[i].v);
    free(c->ranks);
    free(c);
}
