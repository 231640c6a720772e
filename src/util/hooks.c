#include "hooks.h"

#include <stdlib.h>
#include <string.h>

static const hook_info hook_rows[HOOK_COUNT] = {
#define HOOK(id, name, kind, values, help) [HOOK_##id] = {name, values, help, HOOK_##kind},
#include "hooks.def"
#undef HOOK
};

const hook_info *hook_row(hook_id id)
{
    return id < HOOK_COUNT ? &hook_rows[id] : NULL;
}

const char *hook_value(hook_id id)
{
    const hook_info *h = hook_row(id);
    if (!h)
        return NULL;
#ifdef SV_NO_TEST_HOOKS
    if (h->kind == HOOK_TEST)
        return NULL;
#endif
    const char *v = getenv(h->name);
    return v && *v ? v : NULL;
}

bool hook_is(hook_id id, const char *value)
{
    const char *v = hook_value(id);
    return v && strcmp(v, value) == 0;
}
