/* util/timefmt.c timefmt_parse_ns: the ruler's times read back exactly, every value by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "util/timefmt.h"

static int64_t parsed(const char *s)
{
    int64_t v = -1;
    assert_true(timefmt_parse_ns(s, &v));
    return v;
}

static void test_units(void **state)
{
    (void)state;
    assert_int_equal(parsed("20 ns"), 20);
    assert_int_equal(parsed("20ns"), 20);
    assert_int_equal(parsed("200 us"), 200000);
    assert_int_equal(parsed("200\xc2\xb5s"), 200000);
    assert_int_equal(parsed("1.5 ms"), 1500000);
    assert_int_equal(parsed("1.538 s"), 1538000000);
    assert_int_equal(parsed("2"), 2000000000);
    assert_int_equal(parsed("0.000000001"), 1);
    assert_int_equal(parsed(".5ms"), 500000);
    assert_int_equal(parsed("0"), 0);
}

/* One rule for nanoseconds: whole ones print whole, also a quotient that
 * misses the integer by a rounding error (90 ns over 3 hits, in seconds);
 * a fraction the shown digits keep stays. */
static void test_format_ns(void **state)
{
    (void)state;
    char b[32];
    assert_string_equal(timefmt_ns(b, sizeof b, 50.0), "50 ns");
    assert_string_equal(timefmt_ns(b, sizeof b, 90e-9 / 3 * 1e9), "30 ns");
    assert_string_equal(timefmt_ns(b, sizeof b, 29.9999999), "30 ns");
    assert_string_equal(timefmt_ns(b, sizeof b, 333.3333), "333.3 ns");
    assert_string_equal(timefmt_ns(b, sizeof b, 60.5), "60.50 ns");
    assert_string_equal(timefmt_ns(b, sizeof b, 1.5), "1.500 ns");
    assert_string_equal(timefmt_ns(b, sizeof b, -0.0000001), "0 ns");
    assert_string_equal(timefmt_ns(b, sizeof b, 1500.0), "1.500 us");
}

/* The digits are never read through a double: 0.1 + 0.2 s is 300 ms exactly, and a value
 * near INT64_MAX ns keeps its last digit. */
static void test_exact(void **state)
{
    (void)state;
    assert_int_equal(parsed("0.3 s"), 300000000);
    assert_int_equal(parsed("9223372036.854775807 s"), INT64_MAX);
    assert_int_equal(parsed("9223372036854775807 ns"), INT64_MAX);
    assert_int_equal(parsed("1.000000000000 us"), 1000); /* zeros past the ns are fine */
}

static void test_refused(void **state)
{
    (void)state;
    const char *bad[] = {"",
                         "ms",
                         "1x",
                         "-1 ms",
                         "1.5 ns",
                         "0.0000000001",
                         "1e3",
                         " 1 ms",
                         "1..2",
                         "9223372036.854775808 s",
                         "99999999999999999999 ns",
                         "1 ms ",
                         "1,5 ms"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int64_t v = 7;
        if (timefmt_parse_ns(bad[i], &v))
            fail_msg("'%s' was taken as %lld ns", bad[i], (long long)v);
        assert_int_equal(v, 7);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_units),
        cmocka_unit_test(test_format_ns),
        cmocka_unit_test(test_exact),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
