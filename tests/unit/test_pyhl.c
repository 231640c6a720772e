/* The Python highlighter: every expectation is written by hand, one letter
 * per byte of the line:  . text  k keyword  s string  c comment
 * d decorator  n number. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "view/pyhl.h"

/* Classifies one line from *st and spells the kinds as letters. */
static char *kinds_of(pyhl_state *st, const char *line)
{
    static const char letters[] = ".kscdn";
    size_t n = strlen(line);
    uint8_t *k = malloc(n + 1);
    char *out = malloc(n + 1);
    assert_non_null(k);
    assert_non_null(out);
    pyhl_line(st, line, n, k);
    for (size_t i = 0; i < n; i++) {
        assert_true(k[i] < sizeof letters - 1);
        out[i] = letters[k[i]];
    }
    out[n] = '\0';
    free(k);
    return out;
}

/* One line from a fresh state; the state after it must be closed too. */
static void check_line(const char *line, const char *want)
{
    pyhl_state st = {0};
    char *got = kinds_of(&st, line);
    assert_string_equal(got, want);
    free(got);
    assert_int_equal(st.quote, 0);
}

static void check_next(pyhl_state *st, const char *line, const char *want)
{
    char *got = kinds_of(st, line);
    assert_string_equal(got, want);
    free(got);
}

static void test_decorators(void **state)
{
    (void)state;
    check_line("@app.route(\"/x\")", "dddddddddd.ssss.");
    check_line("    @property", "....ddddddddd");
    check_line("@ functools.cache", "ddddddddddddddddd");
    /* Matrix multiplication is not a decorator. */
    check_line("x = a @ b", ".........");
}

static void test_keywords(void **state)
{
    (void)state;
    check_line("def f(x): return None", "kkk.......kkkkkk.kkkk");
    check_line("async with lock: await q", "kkkkk.kkkk.......kkkkk..");
    check_line("define = 1", ".........n");
    check_line("x.if_ = y_else", "..............");
    assert_true(pyhl_is_keyword("await", 5));
    assert_true(pyhl_is_keyword("nonlocal", 8));
    assert_false(pyhl_is_keyword("Non", 3));
    assert_false(pyhl_is_keyword("match", 5)); /* soft keywords stay names */
}

static void test_comments(void **state)
{
    (void)state;
    check_line("x = 1  # note \"q\"", "....n..cccccccccc");
    check_line("\"#not\" # yes", "ssssss.ccccc");
    check_line("# def 'x'", "ccccccccc");
}

static void test_strings(void **state)
{
    (void)state;
    check_line("'it\"s'", "ssssss");
    check_line("\"say 'hi'\" + x", "ssssssssss....");
    check_line("\"a\\\"b\" c", "ssssss..");
    check_line("r\"\\\"\" x", "sssss..");
    check_line("rb'x' + B\"y\"", "sssss...ssss");
    check_line("ub'x'", "..sss"); /* not a prefix: a name, then a string */
    check_line("\"\xff\xfe\"", "ssss");
}

static void test_triple_quoted(void **state)
{
    (void)state;
    pyhl_state st = {0};
    check_next(&st, "s = \"\"\"doc", "....ssssss");
    assert_int_equal(st.quote, '"');
    assert_true(st.triple);
    check_next(&st, "it's \"x\" # no", "sssssssssssss");
    check_next(&st, "end\"\"\" + 1", "ssssss...n");
    assert_int_equal(st.quote, 0);
    check_next(&st, "x = '''a''' # c", "....sssssss.ccc");
}

static void test_string_line_ends(void **state)
{
    (void)state;
    pyhl_state st = {0};
    /* An unterminated string ends with its line... */
    check_next(&st, "\"abc", "ssss");
    assert_int_equal(st.quote, 0);
    check_next(&st, "x", ".");
    /* ...unless a backslash continues it. */
    check_next(&st, "\"ab\\", "ssss");
    assert_int_equal(st.quote, '"');
    check_next(&st, "cd\" x", "sss..");
    assert_int_equal(st.quote, 0);
}

static void test_fstrings(void **state)
{
    (void)state;
    check_line("f\"a{x + 1}b\" if y", "ssss....nsss.kk..");
    check_line("f\"{d['k']}!\"", "sss..sss.sss");
    check_line("f\"{{x}}\"", "ssssssss");
    check_line("f\"{a if b else c}\"", "sss..kk...kkkk..ss");
    check_line("F'{x[\"#\"]}'", "sss..sss.ss");
    /* A field inside a triple-quoted f-string may span lines. */
    pyhl_state st = {0};
    check_next(&st, "f'''{x +", "sssss...");
    assert_int_equal(st.fdepth, 1);
    check_next(&st, "1}'''", "nssss");
    assert_int_equal(st.quote, 0);
}

static void test_numbers(void **state)
{
    (void)state;
    check_line("x = 0x1F + 3.5e-7 - .5j", "....nnnn...nnnnnn...nnn");
    check_line("0xE-1", "nnn.n");
    check_line("x1 = 1_000", ".....nnnnn");
    check_line("a.b", "...");
}

static void test_hostile_bytes(void **state)
{
    (void)state;
    /* Control bytes are plain text; escaping them is the drawing's job. */
    check_line("a\x1b[31m", "...nnn");
    check_line("", "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decorators),    cmocka_unit_test(test_keywords),
        cmocka_unit_test(test_comments),      cmocka_unit_test(test_strings),
        cmocka_unit_test(test_triple_quoted), cmocka_unit_test(test_string_line_ends),
        cmocka_unit_test(test_fstrings),      cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_hostile_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
