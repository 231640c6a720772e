/* Keys: the --keys syntax, the key contract of the global table, labels. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "view/keys.h"

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

/* The key contract of issue 3 and the keys issue 4 names. */
static void test_contract(void **state)
{
    (void)state;
    struct {
        int key;
        ui_cmd cmd;
    } want[] = {
        {'q', CMD_QUIT},
        {'?', CMD_HELP},
        {SVK_F1, CMD_HELP},
        {SVK_ESC, CMD_BACK},
        {SVK_LEFT, CMD_LEFT},
        {'h', CMD_LEFT},
        {SVK_RIGHT, CMD_RIGHT},
        {'l', CMD_RIGHT},
        {SVK_UP, CMD_UP},
        {'k', CMD_UP},
        {SVK_DOWN, CMD_DOWN},
        {'j', CMD_DOWN},
        {'+', CMD_ZOOM_IN},
        {'=', CMD_ZOOM_IN},
        {'-', CMD_ZOOM_OUT},
        {'0', CMD_ZOOM_FIT},
        {'z', CMD_ZOOM_SEL},
        {'[', CMD_PREV_CALL},
        {']', CMD_NEXT_CALL},
        {SVK_ENTER, CMD_ENTER},
        {SVK_TAB, CMD_NEXT_VIEW},
        {SVK_BTAB, CMD_PREV_VIEW},
        {'1', CMD_VIEW_1},
        {'2', CMD_VIEW_2},
        {'3', CMD_VIEW_3},
        {'4', CMD_VIEW_4},
        {'5', CMD_VIEW_5},
        {'/', CMD_SEARCH},
        {'n', CMD_SEARCH_NEXT},
        {'N', CMD_SEARCH_PREV},
        {'f', CMD_FILTER},
        {'s', CMD_SOURCE},
        {'d', CMD_DRILL},
        {'S', CMD_SLOWEST},
        {'e', CMD_EXPAND},
        {'c', CMD_COLLAPSE},
        {'E', CMD_EXPAND_ALL},
        {'C', CMD_COLLAPSE_ALL},
        {'<', CMD_SORT_PREV},
        {'>', CMD_SORT_NEXT},
        {'I', CMD_SORT_INVERT},
        {'r', CMD_SCOPE},
        {'R', CMD_FOLD_RECURSION},
        {'b', CMD_RANK_BREAKDOWN},
        {SVK_PGUP, CMD_PGUP},
        {SVK_PGDN, CMD_PGDN},
        {SVK_HOME, CMD_HOME},
        {SVK_END, CMD_END},
        {SVK_WHEEL_UP, CMD_WHEEL_UP},
        {SVK_WHEEL_DOWN, CMD_WHEEL_DOWN},
        {SVK_CLICK, CMD_CLICK},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        assert_int_equal(keys_lookup(NULL, want[i].key), want[i].cmd);
    assert_int_equal(keys_lookup(NULL, 'x'), CMD_NONE);
    assert_int_equal(keys_lookup(NULL, SVK_NONE), CMD_NONE);
    /* No key is bound twice in the global table. */
    for (size_t i = 0; keys_global[i].key; i++)
        for (size_t j = i + 1; keys_global[j].key; j++)
            assert_int_not_equal(keys_global[i].key, keys_global[j].key);
}

static void test_view_table_first(void **state)
{
    (void)state;
    const key_binding view[] = {{'j', CMD_PGDN}, {'x', CMD_DRILL}, {0, CMD_NONE}};
    assert_int_equal(keys_lookup(view, 'j'), CMD_PGDN);
    assert_int_equal(keys_lookup(view, 'x'), CMD_DRILL);
    assert_int_equal(keys_lookup(view, 'k'), CMD_UP);
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
