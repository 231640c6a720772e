/* The command table: every command named, bound and documented once; key
 * names that parse; views.def agreeing with the views; help lines made from
 * the key map (so a rebinding shows in the help). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ui/keys.h"
#include "ui/view.h"

static keymap *defaults(void)
{
    keymap *km = malloc(sizeof *km);
    assert_non_null(km);
    assert_true(keymap_defaults(km));
    return km;
}

/* Every command has one unique name that looks it up again. */
static void test_names(void **state)
{
    (void)state;
    for (int c = 0; c < CMD_COUNT; c++) {
        const char *name = command_name((ui_cmd)c);
        assert_non_null(name);
        assert_int_equal(command_lookup(name), c);
        for (const char *p = name; *p; p++)
            assert_true((*p >= 'a' && *p <= 'z') || *p == '-');
    }
    assert_int_equal(command_lookup("no-such-command"), -1);
    assert_int_equal(command_lookup("zoom-in"), CMD_ZOOM_IN);
    assert_int_equal(command_lookup("view-tree"), CMD_VIEW_TREE);
    for (int s = 0; s < SCOPE_COUNT; s++)
        assert_int_equal(scope_lookup(scope_name((key_scope)s)), s);
    assert_int_equal(scope_lookup("generic"), SCOPE_GLOBAL);
    assert_int_equal(scope_lookup("nowhere"), -1);
}

/* Each command is declared by one CMD row (KEY rows only re-bind), every
 * key name parses, and no row binds a key another row of the same scope
 * binds (the later would silently win). */
static void test_rows(void **state)
{
    (void)state;
    size_t n;
    const cmd_row *t = commands_table(&n);
    int declared[CMD_COUNT] = {0};
    size_t tokens = 0;
    for (size_t i = 0; i < n; i++) {
        if (t[i].kind == ROW_CMD)
            declared[t[i].cmd]++;
        if (t[i].kind == ROW_KEY)
            assert_true(declared[t[i].cmd] == 1); /* declared above */
        if (t[i].kind != ROW_CMD && t[i].kind != ROW_KEY)
            continue;
        for (const char *s = t[i].keys; *s;) {
            size_t len = strcspn(s, " ");
            if (len) {
                if (keys_token(s, len) == SVK_NONE)
                    fail_msg("row %zu: unknown key name '%.*s'", i, (int)len, s);
                tokens++;
            }
            s += len;
            s += strspn(s, " ");
        }
    }
    for (int c = 1; c < CMD_COUNT; c++)
        if (declared[c] != 1)
            fail_msg("%s declared %d times", command_name((ui_cmd)c), declared[c]);
    keymap *km = defaults();
    assert_int_equal(km->n, tokens); /* no (scope, key) twice */
    free(km);
}

/* Every command can be reached by a key in some scope. */
static void test_reachable(void **state)
{
    (void)state;
    keymap *km = defaults();
    for (int c = 1; c < CMD_COUNT; c++) {
        size_t keys = 0;
        int k;
        for (int s = 0; s < SCOPE_COUNT; s++)
            keys += keymap_keys(km, (key_scope)s, (ui_cmd)c, &k, 1);
        if (keys == 0)
            fail_msg("%s has no key", command_name((ui_cmd)c));
    }
    free(km);
}

/* views.def and the registry agree: ids index the registry, names match. */
static void test_views(void **state)
{
    (void)state;
    static const char *const names[] = {
#define VIEW(id, name, ops, key) name,
#include "ui/views.def"
#undef VIEW
    };
    size_t n;
    const view_ops *const *reg = views_registry(&n);
    assert_int_equal(n, VIEW_COUNT);
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(reg[i]->name, names[i]);
        assert_string_equal(scope_name((key_scope)i), names[i]);
    }
    assert_string_equal(reg[VIEW_CALLS]->name, "calls");
    assert_true(CMD_IS_VIEW(CMD_VIEW(VIEW_INFO)));
    assert_int_equal(CMD_VIEW_ID(CMD_VIEW_TREE), VIEW_TREE);
    assert_false(CMD_IS_VIEW(CMD_QUIT));
}

static const help_line *find_line(const help_line *l, size_t n, const char *text)
{
    for (size_t i = 0; i < n; i++)
        if (strstr(l[i].text, text))
            return &l[i];
    return NULL;
}

/* The keys of the line whose text has text ("" and a failure if none). */
static const char *line_keys(const help_line *l, size_t n, const char *text)
{
    const help_line *h = find_line(l, n, text);
    if (!h)
        fail_msg("no help line says '%s'", text);
    return h ? h->keys : "";
}

/* Help lines: grouped keys read across, the view keys list the views, and a
 * rebinding shows. */
static void test_help_lines(void **state)
{
    (void)state;
    keymap *km = defaults();
    help_line *l = malloc(64 * sizeof *l);
    assert_non_null(l);
    size_t n = commands_help(km, SCOPE_GLOBAL, l, 64);
    assert_true(n > 10 && n <= 64);
    assert_string_equal(line_keys(l, n, "move left"), "Left Right h l");
    assert_string_equal(line_keys(l, n, "open a view"), "1 2 3 4 5 6 7 8 9 D B");
    assert_non_null(find_line(l, n, "open a view by number: 1 timeline, 2 tree, 3 regions"));
    assert_null(find_line(l, n, "zoom in")); /* the timeline's own */
    n = commands_help(km, SCOPE_TIMELINE, l, 64);
    assert_string_equal(line_keys(l, n, "zoom in"), "+ = -");
    assert_string_equal(line_keys(l, n, "fit the whole"), "0");
    assert_true(keymap_bind(km, SCOPE_TIMELINE, 'x', CMD_ZOOM_FIT));
    n = commands_help(km, SCOPE_TIMELINE, l, 64);
    assert_string_equal(line_keys(l, n, "fit the whole"), "0 x");
    n = commands_help(km, SCOPE_HELP, l, 64);
    assert_string_equal(line_keys(l, n, "scroll a page"), "PgUp PgDn Space Enter");
    /* Every scope documents something. */
    for (int s = 0; s < SCOPE_COUNT; s++)
        assert_true(commands_help(km, (key_scope)s, l, 64) > 0);
    free(l);
    free(km);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),      cmocka_unit_test(test_rows),
        cmocka_unit_test(test_reachable),  cmocka_unit_test(test_views),
        cmocka_unit_test(test_help_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
