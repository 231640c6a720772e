/* util/checked.h at the edges of int64: every result by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "util/checked.h"

#define MAX INT64_MAX
#define MIN INT64_MIN

static void test_add(void **state)
{
    (void)state;
    assert_true(ck_add(1, 2) == 3);
    assert_true(ck_add(MAX, 0) == MAX);
    assert_true(ck_add(MAX, 1) == MAX);
    assert_true(ck_add(MAX, MAX) == MAX);
    assert_true(ck_add(MIN, -1) == MIN);
    assert_true(ck_add(MIN, MIN) == MIN);
    assert_true(ck_add(MIN, MAX) == -1);
    assert_true(ck_add(MAX - 5, 5) == MAX);
    assert_true(ck_add(MAX - 5, 6) == MAX);
}

static void test_sub(void **state)
{
    (void)state;
    assert_true(ck_sub(5, 7) == -2);
    assert_true(ck_sub(MAX, -1) == MAX);
    assert_true(ck_sub(MAX, MIN) == MAX);
    assert_true(ck_sub(MIN, 1) == MIN);
    assert_true(ck_sub(MIN, MAX) == MIN);
    assert_true(ck_sub(0, MIN) == MAX);
    assert_true(ck_sub(-1, MIN) == MAX);
    assert_true(ck_sub(MIN, MIN) == 0);
    assert_true(ck_sub(MAX, MAX) == 0);
    /* The --events case: a start 2^62 + 2^62 after the profile's zero. */
    assert_true(ck_sub((int64_t)1 << 62, -((int64_t)1 << 62)) == MAX);
    assert_true(ck_sub(-2, MAX) == MIN);
}

static void test_mul(void **state)
{
    (void)state;
    assert_true(ck_mul(3, -4) == -12);
    assert_true(ck_mul(MAX, 2) == MAX);
    assert_true(ck_mul(MAX, -2) == MIN);
    assert_true(ck_mul(MIN, -1) == MAX);
    assert_true(ck_mul(MIN, 1) == MIN);
    assert_true(ck_mul(MIN, 2) == MIN);
    assert_true(ck_mul(MIN, MIN) == MAX);
    assert_true(ck_mul(0, MIN) == 0);
    assert_true(ck_mul((int64_t)1 << 31, (int64_t)1 << 31) == (int64_t)1 << 62);
    assert_true(ck_mul((int64_t)1 << 32, (int64_t)1 << 32) == MAX);
}

static void test_neg_abs_diff(void **state)
{
    (void)state;
    assert_true(ck_neg(MIN) == MAX);
    assert_true(ck_neg(MAX) == MIN + 1);
    assert_true(ck_neg(0) == 0);
    assert_true(ck_abs(MIN) == MAX);
    assert_true(ck_abs(-7) == 7);
    assert_true(ck_diff_f64(MAX, MIN) == 18446744073709551615.0);
    assert_true(ck_diff_f64(MIN, MAX) == -18446744073709551615.0);
    assert_true(ck_diff_f64(10, 3) == 7.0);
    int64_t r = 0;
    assert_false(ck_sub_ok(MAX, -1, &r));
    assert_true(ck_sub_ok(MAX, 1, &r) && r == MAX - 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_add),
        cmocka_unit_test(test_sub),
        cmocka_unit_test(test_mul),
        cmocka_unit_test(test_neg_abs_diff),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
