/* test_ooc_excl: the sweep's exclusive-time shadow stack (ooc_excl.h) on
 * calls made here, each answer worked out by hand from doc/FORMAT.md's
 * rule (the duration less the union of the direct children, each clipped
 * to the call, never negative): disjoint, overlapping and identical
 * children, children past the parent's end, zero-length calls, grandchildren
 * not counted, depth jumps of several levels, tags, a cleared stack. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "ooc/ooc_excl.h"

/* Pops down to depth, each popped call's tag and exclusive time checked
 * against the next pair of want (tag, time). */
static const int64_t *pop_to(ooc_excl_stack *st, size_t depth, const int64_t *want)
{
    while (ooc_excl_depth(st) > depth) {
        uint64_t tag;
        int64_t x = ooc_excl_pop(st, &tag);
        assert_int_equal(tag, want[0]);
        assert_int_equal(x, want[1]);
        want += 2;
    }
    return want;
}

static void push(ooc_excl_stack *st, int64_t s, int64_t e, uint64_t tag)
{
    assert_true(ooc_excl_push(st, s, e, tag));
}

static void test_disjoint(void **state)
{
    (void)state;
    ooc_excl_stack st = {0};
    push(&st, 0, 100, 1);
    push(&st, 10, 20, 2);
    const int64_t w1[] = {2, 10};
    pop_to(&st, 1, w1);
    push(&st, 30, 60, 3);
    const int64_t w2[] = {3, 30, 1, 100 - 10 - 30};
    pop_to(&st, 0, w2);
    ooc_excl_free(&st);
}

static void test_overlapping(void **state)
{
    (void)state;
    /* [0, 100] holds [10, 50] and [30, 70] (on other stacks they would
     * be partial overlaps; here both are its children): union [10, 70],
     * 60 long, counted once; then [70, 80] touching the union's end */
    ooc_excl_stack st = {0};
    push(&st, 0, 100, 7);
    push(&st, 10, 50, 8);
    const int64_t w1[] = {8, 40};
    pop_to(&st, 1, w1);
    push(&st, 30, 70, 9);
    pop_to(&st, 1, (const int64_t[]){9, 40});
    push(&st, 70, 80, 10);
    pop_to(&st, 1, (const int64_t[]){10, 10});
    push(&st, 40, 60, 11); /* inside the union already: adds nothing */
    pop_to(&st, 0, (const int64_t[]){11, 20, 7, 100 - 70});
    ooc_excl_free(&st);
}

static void test_past_the_end(void **state)
{
    (void)state;
    /* [0, 50] with a child [40, 90] running past its end: clipped to
     * [40, 50]; a child [60, 70] wholly after it adds nothing; a child
     * before its start [-20, 10] clipped to [0, 10] */
    ooc_excl_stack st = {0};
    push(&st, 0, 50, 1);
    push(&st, 40, 90, 2);
    pop_to(&st, 1, (const int64_t[]){2, 50});
    push(&st, 60, 70, 3);
    pop_to(&st, 0, (const int64_t[]){3, 10, 1, 40});
    push(&st, 100, 150, 4);
    push(&st, 80, 110, 5); /* starts before its parent: clipped to [100, 110] */
    pop_to(&st, 0, (const int64_t[]){5, 30, 4, 40});
    ooc_excl_free(&st);
}

static void test_identical_and_zero(void **state)
{
    (void)state;
    /* identical intervals nest: the inner covers the outer wholly (0 own),
     * a zero-length child adds nothing, a zero-length call is 0 */
    ooc_excl_stack st = {0};
    push(&st, 10, 30, 1);
    push(&st, 10, 30, 2);
    push(&st, 15, 15, 3);
    pop_to(&st, 0, (const int64_t[]){3, 0, 2, 20, 1, 0});
    ooc_excl_free(&st);
}

static void test_depth_jumps(void **state)
{
    (void)state;
    /* a > b > c > d, then a call at depth 1 (under a) pops d, c and b at
     * once; grandchildren count only for their own parent */
    ooc_excl_stack st = {0};
    push(&st, 0, 1000, 1);  /* a */
    push(&st, 100, 500, 2); /* b: a's union [100, 500] */
    push(&st, 200, 400, 3); /* c: b's union [200, 400] */
    push(&st, 250, 300, 4); /* d: c's union [250, 300] */
    assert_int_equal(ooc_excl_depth(&st), 4);
    assert_int_equal(ooc_excl_top(&st)->tag, 4);
    pop_to(&st, 1, (const int64_t[]){4, 50, 3, 150, 2, 200});
    push(&st, 450, 700, 5); /* a's union now [100, 700] */
    pop_to(&st, 0, (const int64_t[]){5, 250, 1, 400});
    assert_null(ooc_excl_top(&st));
    /* a cleared stack starts afresh */
    push(&st, 0, 10, 6);
    push(&st, 2, 4, 7);
    ooc_excl_clear(&st);
    push(&st, 5, 9, 8);
    int64_t x = ooc_excl_pop(&st, NULL);
    assert_int_equal(x, 4);
    ooc_excl_free(&st);
}

static void test_saturates(void **state)
{
    (void)state;
    /* an interval whose length passes INT64_MAX is not a wrapped number */
    ooc_excl_stack st = {0};
    push(&st, INT64_MIN / 2 - 10, INT64_MAX / 2 + 10, 1);
    int64_t x = ooc_excl_pop(&st, NULL);
    assert_true(x > 0);
    ooc_excl_free(&st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_disjoint),     cmocka_unit_test(test_overlapping),
        cmocka_unit_test(test_past_the_end), cmocka_unit_test(test_identical_and_zero),
        cmocka_unit_test(test_depth_jumps),  cmocka_unit_test(test_saturates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
