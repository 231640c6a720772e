/* hooks: the environment variables scopeview reads, in one table
 * (hooks.def), so that every knob and test hook is documented once and can
 * be found.  No source reads a SCOPEVIEW_ variable by getenv() directly
 * (tests/hooks.sh checks).
 *
 * Test hooks hold or force a path for a test (a background job held until
 * the headless screen says <Ready>, a file cut while it is read).  A build
 * configured with --disable-test-hooks compiles them out: hook_value()
 * then answers NULL for every TEST row, as if the variable were unset. */
#ifndef SV_HOOKS_H
#define SV_HOOKS_H

#include <stdbool.h>

typedef enum hook_kind { HOOK_USER, HOOK_DEBUG, HOOK_TEST } hook_kind;

typedef enum hook_id {
#define HOOK(id, name, kind, values, help) HOOK_##id,
#include "hooks.def"
#undef HOOK
    HOOK_COUNT
} hook_id;

typedef struct hook_info {
    const char *name, *values, *help;
    hook_kind kind;
} hook_info;

/* The row of id (name, values, help), for the documentation test. */
const hook_info *hook_row(hook_id id);

/* The variable's value, or NULL when it is unset, empty, or a test hook in
 * a build without them. */
const char *hook_value(hook_id id);

/* Whether the variable is set to exactly `value`. */
bool hook_is(hook_id id, const char *value);

#endif
