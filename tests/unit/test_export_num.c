/* The export writers' number formatting (export_us_at, export_i64_at), checked against
 * printf over edge values and a pseudo-random sweep. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cli/export_internal.h"

/* ns as printf writes microseconds with three decimals, for the comparison. */
static void printf_us(char *buf, size_t len, int64_t ns)
{
    uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    snprintf(buf, len, "%s%llu.%03llu", ns < 0 ? "-" : "", (unsigned long long)(a / 1000),
             (unsigned long long)(a % 1000));
}

static void check_one(int64_t v)
{
    char want[64], got[EXPORT_NUM_MAX + 1];
    printf_us(want, sizeof want, v);
    char *end = export_us_at(got, v);
    assert_true(end - got <= EXPORT_NUM_MAX);
    *end = '\0';
    assert_string_equal(got, want);
    snprintf(want, sizeof want, "%lld", (long long)v);
    end = export_i64_at(got, v);
    assert_true(end - got <= EXPORT_NUM_MAX);
    *end = '\0';
    assert_string_equal(got, want);
}

static void test_edges(void **state)
{
    (void)state;
    static const int64_t v[] = {0,         1,    9,     10,    99,        100,       999,
                                1000,      1001, 1099,  9999,  10000,     12345,     100000,
                                -1,        -999, -1000, -1001, INT64_MAX, INT64_MIN, INT64_MIN + 1,
                                1000000007};
    for (size_t k = 0; k < sizeof v / sizeof *v; k++)
        check_one(v[k]);
    /* each digit count's edges: the writer counts the digits before writing them */
    for (int64_t p = 1; p <= INT64_MAX / 10; p *= 10) {
        check_one(p * 10 - 1);
        check_one(p * 10);
        check_one(-p * 10);
        check_one(p * 10 + 1);
    }
}

static void test_sweep(void **state)
{
    (void)state;
    uint64_t x = 88172645463325252u; /* xorshift64: every magnitude, both signs */
    for (int k = 0; k < 200000; k++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        int64_t v = (int64_t)(x >> (k % 64));
        check_one(k % 2 ? -v : v);
    }
}

static void test_strbuf(void **state)
{
    (void)state;
    strbuf b;
    sb_init(&b);
    export_put_us(&b, 12345);
    sb_putc(&b, ' ');
    export_put_i64(&b, -42);
    assert_false(b.oom);
    assert_string_equal(b.s, "12.345 -42");
    assert_int_equal(b.len, strlen("12.345 -42"));
    sb_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_edges),
        cmocka_unit_test(test_sweep),
        cmocka_unit_test(test_strbuf),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
