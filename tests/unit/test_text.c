/* Escaping of untrusted strings for text and JSON outputs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/text.h"
#include "util/timefmt.h"

static char *esc(const char *s)
{
    strbuf b;
    sb_init(&b);
    text_escape(&b, s, (size_t)-1);
    return sb_take(&b);
}

static char *jesc(const char *s)
{
    strbuf b;
    sb_init(&b);
    json_escape(&b, s);
    return sb_take(&b);
}

static void test_text_escape(void **state)
{
    (void)state;
    char *s = esc("evil\x1b[31mred\x07\r\n\tok");
    assert_string_equal(s, "evil\\x1b[31mred\\x07\\r\\n\\tok");
    free(s);
    s = esc("C1 \xc2\x9b and bad \xff\xfe and \xe2\x80\xae rtl");
    assert_string_equal(s, "C1 \\u009b and bad \\xff\\xfe and \\u202e rtl");
    free(s);
    s = esc("wide \xe6\x97\xa5\xe6\x9c\xac ok"); /* 日本 passes through */
    assert_string_equal(s, "wide \xe6\x97\xa5\xe6\x9c\xac ok");
    free(s);
    s = esc("overlong \xc0\xaf surrogate \xed\xa0\x80");
    assert_string_equal(s, "overlong \\xc0\\xaf surrogate \\xed\\xa0\\x80");
    free(s);
}

static void test_json_escape(void **state)
{
    (void)state;
    char *s = jesc("q\"b\\\x1b]52;c;SGVsbG8=\x07\xc2\x85\xff");
    assert_string_equal(s, "\"q\\\"b\\\\\\u001b]52;c;SGVsbG8=\\u0007\\u0085\\ufffd\"");
    free(s);
}

static void test_escape_buf_cuts(void **state)
{
    (void)state;
    char buf[12];
    text_escape_buf(buf, sizeof buf, "abcdefghijklmnopqrstuvwxyz");
    assert_int_equal(strlen(buf), 11);
    assert_non_null(strstr(buf, "..."));
    text_escape_buf(buf, sizeof buf, "\x1b");
    assert_string_equal(buf, "\\x1b");
}

static void test_is_clean(void **state)
{
    (void)state;
    assert_true(text_is_clean("MainThread \xe6\x97\xa5"));
    assert_false(text_is_clean("a\x1b"));
    assert_false(text_is_clean("\xff"));
}

static void test_timefmt(void **state)
{
    (void)state;
    char b[32];
    assert_string_equal(timefmt_ns(b, sizeof b, 850), "850 ns");
    assert_string_equal(timefmt_ns(b, sizeof b, 12345), "12.35 us");
    assert_string_equal(timefmt_ns(b, sizeof b, 1234000000), "1.234 s");
    assert_string_equal(timefmt_ns(b, sizeof b, 999960), "1.000 ms");
    /* The range rule: 2^64 ns and beyond, and what is not finite, is unknown
     * ("-"); just below 2^64 ns is 18446744073.7 s. */
    assert_string_equal(timefmt_ns(b, sizeof b, 18446744073709549568.0), "18446744073.7 s");
    assert_string_equal(timefmt_ns(b, sizeof b, 18446744073709551616.0), "-");
    assert_string_equal(timefmt_ns(b, sizeof b, -1e299), "-");
    assert_string_equal(timefmt_ns(b, sizeof b, 1.0 / 0.0), "-");
    assert_true(timefmt_in_range_s(18446744073.0));
    assert_false(timefmt_in_range_s(18446744074.0));
    assert_string_equal(fmt_double_exact(b, sizeof b, 0.1), "0.1");
    assert_string_equal(fmt_double_exact(b, sizeof b, 6e-07), "6e-07");
    assert_string_equal(fmt_double_exact(b, sizeof b, 1000.003382258), "1000.003382258");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text_escape),     cmocka_unit_test(test_json_escape),
        cmocka_unit_test(test_escape_buf_cuts), cmocka_unit_test(test_is_clean),
        cmocka_unit_test(test_timefmt),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
