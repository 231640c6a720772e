/* Keys: the --keys syntax, the key contract of the default key map, labels. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ui/keys.h"

static long parse(const char *s, int *out, size_t max)
{
    char msg[128];
    return keys_parse(s, out, max, msg, sizeof msg);
}

static void test_parse_named(void **state)
{
    (void)state;
    int k[32];
    long n = parse("jj<Enter>/so<Tab>", k, 32);
    assert_int_equal(n, 7);
    assert_int_equal(k[0], 'j');
    assert_int_equal(k[1], 'j');
    assert_int_equal(k[2], SVK_ENTER);
    assert_int_equal(k[3], '/');
    assert_int_equal(k[4], 's');
    assert_int_equal(k[5], 'o');
    assert_int_equal(k[6], SVK_TAB);
    const char *names = "<Enter><Esc><Tab><Left><Right><Up><Down><PgUp><PgDn><Home><End><F1>"
                        "<BTab><Backspace><Resize>";
    int want[] = {SVK_ENTER, SVK_ESC,  SVK_TAB,  SVK_LEFT,      SVK_RIGHT,
                  SVK_UP,    SVK_DOWN, SVK_PGUP, SVK_PGDN,      SVK_HOME,
                  SVK_END,   SVK_F1,   SVK_BTAB, SVK_BACKSPACE, SVK_RESIZE};
    n = parse(names, k, 32);
    assert_int_equal(n, 15);
    for (int i = 0; i < 15; i++)
        assert_int_equal(k[i], want[i]);
    assert_int_equal(parse("<enter><ESC>", k, 32), 2); /* names ignore case */
    assert_int_equal(k[0], SVK_ENTER);
    assert_int_equal(k[1], SVK_ESC);
}

static void test_parse_literal_lt(void **state)
{
    (void)state;
    int k[32];
    /* '<' that does not start a name is itself. */
    assert_int_equal(parse("<", k, 32), 1);
    assert_int_equal(k[0], '<');
    assert_int_equal(parse("<<>", k, 32), 3);
    assert_int_equal(k[0], '<');
    assert_int_equal(k[1], '<');
    assert_int_equal(k[2], '>');
    assert_int_equal(parse("<a>", k, 32), 3); /* one letter is not a name */
    assert_int_equal(parse("<Enter", k, 32), 6);
    assert_int_equal(k[0], '<');
    assert_int_equal(parse("<lt><gt>", k, 32), 2);
    assert_int_equal(k[0], '<');
    assert_int_equal(k[1], '>');
    assert_int_equal(parse("", k, 32), 0);
    assert_int_equal(parse(NULL, k, 32), 0);
}

static void test_parse_errors(void **state)
{
    (void)state;
    int k[4];
    char msg[128] = "";
    assert_int_equal(keys_parse("a<Entr>b", k, 4, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "<Entr>"));
    assert_int_equal(keys_parse("abcde", k, 4, msg, sizeof msg), -1);
    assert_int_equal(keys_parse("a\xff", k, 4, msg, sizeof msg), -1);
    assert_null(strchr(msg, '\xff')); /* the message is escaped */
    /* UTF-8 text types code points. */
    assert_int_equal(keys_parse("\xe6\x97\xa5", k, 4, msg, sizeof msg), 1);
    assert_int_equal(k[0], 0x65E5);
}

/* The key contract of the views and the keys the man page names, in the views
 * where each key means something (the zoom keys in the timeline, the tree's
 * expand and scope keys, ...); GLOBAL keys work in every view. */
static void test_contract(void **state)
{
    (void)state;
    keymap *km = malloc(sizeof *km);
    assert_non_null(km);
    assert_true(keymap_defaults(km));
    struct {
        key_scope scope;
        int key;
        ui_cmd cmd;
    } want[] = {
        {SCOPE_GLOBAL, 'q', CMD_QUIT},
        {SCOPE_GLOBAL, '?', CMD_HELP},
        {SCOPE_GLOBAL, SVK_F1, CMD_HELP},
        {SCOPE_GLOBAL, SVK_ESC, CMD_BACK},
        {SCOPE_GLOBAL, SVK_LEFT, CMD_LEFT},
        {SCOPE_GLOBAL, 'h', CMD_LEFT},
        {SCOPE_GLOBAL, SVK_RIGHT, CMD_RIGHT},
        {SCOPE_GLOBAL, 'l', CMD_RIGHT},
        {SCOPE_GLOBAL, SVK_UP, CMD_UP},
        {SCOPE_GLOBAL, 'k', CMD_UP},
        {SCOPE_GLOBAL, SVK_DOWN, CMD_DOWN},
        {SCOPE_GLOBAL, 'j', CMD_DOWN},
        {SCOPE_TIMELINE, '+', CMD_ZOOM_IN},
        {SCOPE_TIMELINE, '=', CMD_ZOOM_IN},
        {SCOPE_TIMELINE, '-', CMD_ZOOM_OUT},
        {SCOPE_TIMELINE, '0', CMD_ZOOM_FIT},
        {SCOPE_TIMELINE, 'z', CMD_ZOOM_SEL},
        {SCOPE_TIMELINE, '[', CMD_PREV_CALL},
        {SCOPE_TIMELINE, ']', CMD_NEXT_CALL},
        {SCOPE_GLOBAL, SVK_ENTER, CMD_ENTER},
        {SCOPE_GLOBAL, SVK_TAB, CMD_NEXT_VIEW},
        {SCOPE_GLOBAL, SVK_BTAB, CMD_PREV_VIEW},
        {SCOPE_GLOBAL, '1', CMD_VIEW_TIMELINE},
        {SCOPE_GLOBAL, '2', CMD_VIEW_TREE},
        {SCOPE_GLOBAL, '3', CMD_VIEW_REGIONS},
        {SCOPE_GLOBAL, '4', CMD_VIEW_CALLS},
        {SCOPE_GLOBAL, '5', CMD_VIEW_INFO},
        {SCOPE_GLOBAL, '/', CMD_SEARCH},
        {SCOPE_GLOBAL, 'n', CMD_SEARCH_NEXT},
        {SCOPE_GLOBAL, 'N', CMD_SEARCH_PREV},
        {SCOPE_GLOBAL, 'f', CMD_FILTER},
        {SCOPE_GLOBAL, 's', CMD_SOURCE},
        {SCOPE_GLOBAL, 'd', CMD_DRILL},
        {SCOPE_GLOBAL, 'S', CMD_SLOWEST},
        {SCOPE_TREE, 'e', CMD_EXPAND},
        {SCOPE_TREE, 'c', CMD_COLLAPSE},
        {SCOPE_TREE, 'E', CMD_EXPAND_ALL},
        {SCOPE_TREE, 'C', CMD_COLLAPSE_ALL},
        {SCOPE_TREE, '<', CMD_SORT_PREV},
        {SCOPE_TREE, '>', CMD_SORT_NEXT},
        {SCOPE_TREE, 'I', CMD_SORT_INVERT},
        {SCOPE_TREE, 'r', CMD_SCOPE},
        {SCOPE_TREE, 'R', CMD_FOLD_RECURSION},
        {SCOPE_REGIONS, 'b', CMD_RANK_BREAKDOWN},
        {SCOPE_GLOBAL, SVK_PGUP, CMD_PGUP},
        {SCOPE_GLOBAL, SVK_PGDN, CMD_PGDN},
        {SCOPE_GLOBAL, SVK_HOME, CMD_HOME},
        {SCOPE_GLOBAL, SVK_END, CMD_END},
        {SCOPE_GLOBAL, SVK_WHEEL_UP, CMD_WHEEL_UP},
        {SCOPE_GLOBAL, SVK_WHEEL_DOWN, CMD_WHEEL_DOWN},
        {SCOPE_GLOBAL, SVK_CLICK, CMD_CLICK},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        assert_int_equal(keymap_lookup(km, want[i].scope, want[i].key), want[i].cmd);
    assert_int_equal(keymap_lookup(km, SCOPE_GLOBAL, 'x'), CMD_NONE);
    assert_int_equal(keymap_lookup(km, SCOPE_TIMELINE, SVK_NONE), CMD_NONE);
    /* The other views' own keys: sort and scope in the calls and regions. */
    assert_int_equal(keymap_lookup(km, SCOPE_CALLS, 'r'), CMD_SCOPE);
    assert_int_equal(keymap_lookup(km, SCOPE_CALLS, '<'), CMD_SORT_PREV);
    assert_int_equal(keymap_lookup(km, SCOPE_REGIONS, 'I'), CMD_SORT_INVERT);
    assert_int_equal(keymap_lookup(km, SCOPE_TIMELINE, 'e'), CMD_EXPAND);
    /* The source pane's J K { } and the help's Space. */
    assert_int_equal(keymap_lookup(km, SCOPE_SOURCE, 'J'), CMD_DOWN);
    assert_int_equal(keymap_lookup(km, SCOPE_SOURCE, '{'), CMD_PGUP);
    assert_int_equal(keymap_lookup(km, SCOPE_HELP, ' '), CMD_PGDN);
    free(km);
}

/* Per-view keys are real: a view's key does not leak into the others. */
static void test_view_keys_scoped(void **state)
{
    (void)state;
    keymap *km = malloc(sizeof *km);
    assert_non_null(km);
    assert_true(keymap_defaults(km));
    assert_int_equal(keymap_lookup(km, SCOPE_TREE, 'z'), CMD_NONE);
    assert_int_equal(keymap_lookup(km, SCOPE_INFO, 'e'), CMD_NONE);
    assert_int_equal(keymap_lookup(km, SCOPE_TIMELINE, 'b'), CMD_NONE);
    assert_int_equal(keymap_lookup(km, SCOPE_REGIONS, 'r'), CMD_NONE);
    assert_int_equal(keymap_lookup(km, SCOPE_GLOBAL, 'J'), CMD_NONE);
    assert_int_equal(keymap_lookup(km, SCOPE_INFO, ' '), CMD_NONE);
    free(km);
}

/* A view's binding shadows the global one; an unbound (CMD_NONE) one too. */
static void test_view_table_first(void **state)
{
    (void)state;
    keymap *km = malloc(sizeof *km);
    assert_non_null(km);
    assert_true(keymap_defaults(km));
    assert_true(keymap_bind(km, SCOPE_TREE, 'j', CMD_PGDN));
    assert_true(keymap_bind(km, SCOPE_TREE, 'x', CMD_DRILL));
    assert_true(keymap_bind(km, SCOPE_TREE, 'q', CMD_NONE));
    assert_int_equal(keymap_lookup(km, SCOPE_TREE, 'j'), CMD_PGDN);
    assert_int_equal(keymap_lookup(km, SCOPE_TREE, 'x'), CMD_DRILL);
    assert_int_equal(keymap_lookup(km, SCOPE_TREE, 'k'), CMD_UP);
    assert_int_equal(keymap_lookup(km, SCOPE_TREE, 'q'), CMD_NONE);
    assert_int_equal(keymap_lookup(km, SCOPE_REGIONS, 'j'), CMD_DOWN);
    assert_int_equal(keymap_lookup(km, SCOPE_REGIONS, 'q'), CMD_QUIT);
    /* Rebinding replaces, not adds. */
    size_t n = km->n;
    assert_true(keymap_bind(km, SCOPE_TREE, 'x', CMD_SCOPE));
    assert_int_equal(km->n, n);
    assert_int_equal(keymap_lookup(km, SCOPE_TREE, 'x'), CMD_SCOPE);
    free(km);
}

static void test_labels(void **state)
{
    (void)state;
    char b[16];
    assert_string_equal(keys_label(SVK_ENTER, b, sizeof b), "Enter");
    assert_string_equal(keys_label(SVK_F1, b, sizeof b), "F1");
    assert_string_equal(keys_label(SVK_BTAB, b, sizeof b), "S-Tab");
    assert_string_equal(keys_label('q', b, sizeof b), "q");
    assert_string_equal(keys_label('<', b, sizeof b), "<");
    assert_string_equal(keys_label(' ', b, sizeof b), "Space");
    assert_string_equal(keys_label(0x65E5, b, sizeof b), "\xe6\x97\xa5");
    assert_string_equal(keys_label(0x1b, b, sizeof b), "0x1b"); /* never raw */
    /* Each label parses back to its key. */
    int keys[] = {SVK_ENTER, SVK_ESC, SVK_PGDN, SVK_F1, SVK_BTAB};
    for (size_t i = 0; i < 5; i++) {
        char s[32];
        int k[2];
        snprintf(s, sizeof s, "<%s>", keys_label(keys[i], b, sizeof b));
        assert_int_equal(parse(s, k, 2), 1);
        assert_int_equal(k[0], keys[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_named),      cmocka_unit_test(test_parse_literal_lt),
        cmocka_unit_test(test_parse_errors),     cmocka_unit_test(test_contract),
        cmocka_unit_test(test_view_table_first), cmocka_unit_test(test_labels),
        cmocka_unit_test(test_view_keys_scoped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
