/* ooc_excl: the shadow stack's storage (ooc_excl.h). */
#include "ooc_excl.h"

#include <stdlib.h>

#include "util/grow.h"

bool ooc_excl_room(ooc_excl_stack *st)
{
    return sv_grow((void **)&st->v, &st->cap, st->sp + 1, sizeof *st->v, 16);
}

void ooc_excl_free(ooc_excl_stack *st)
{
    free(st->v);
    *st = (ooc_excl_stack){0};
}
