/* The first-fit lane sweep (model/nest_sweep.h) on hand-made calls, the
 * answers worked out by hand from doc/FORMAT.md's rule: nesting, touching
 * ends, a zero-length call at an end, a partial overlap opening a second
 * lane, the limit of NEST_LANES_MAX lanes, and a failing pop. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "model/nest_sweep.h"

/* A caller's open call: the span first, then what it records. */
typedef struct tcall {
    nest_span sp;
    int id;
} tcall;

/* The pops seen, in order, and the calls' lanes and parents. */
typedef struct trec {
    int popped[600];
    size_t popped_lane[600];
    int64_t popped_before[600];
    size_t npopped;
    int fail_at; /* the pop (0-based) the callback refuses, -1 none */
} trec;

static bool on_pop(void *ctx, size_t lane, void *call, int64_t s)
{
    trec *r = ctx;
    if (r->fail_at >= 0 && r->npopped == (size_t)r->fail_at)
        return false;
    r->popped[r->npopped] = ((tcall *)call)->id;
    r->popped_lane[r->npopped] = lane;
    r->popped_before[r->npopped] = s;
    r->npopped++;
    return true;
}

/* Places call id [s, e] by first fit; *parent: the id of the top it
 * joins, -1 when top-level.  The lane, SIZE_MAX on failure. */
static size_t place(nest_sweep *sw, trec *r, int64_t s, int64_t e, int id, int *parent)
{
    size_t l = nest_sweep_first_fit(sw, s, e, on_pop, r);
    if (l == SIZE_MAX)
        return l;
    const tcall *top = nest_lane_top(sw, &sw->lanes[l]);
    *parent = top ? top->id : -1;
    tcall *c = nest_lane_push(sw, l);
    assert_non_null(c);
    *c = (tcall){{s, e}, id};
    return l;
}

/* A [0, 100] holds B [10, 50] holding C [20, 30]; D [60, 90] comes after
 * B ended: C and B are popped (innermost first) before D joins A. */
static void test_nested(void **state)
{
    (void)state;
    nest_sweep sw;
    nest_sweep_init(&sw, sizeof(tcall));
    trec r = {.fail_at = -1};
    int p;
    assert_int_equal(place(&sw, &r, 0, 100, 0, &p), 0);
    assert_int_equal(p, -1);
    assert_int_equal(place(&sw, &r, 10, 50, 1, &p), 0);
    assert_int_equal(p, 0);
    assert_int_equal(place(&sw, &r, 20, 30, 2, &p), 0);
    assert_int_equal(p, 1);
    assert_int_equal(r.npopped, 0);
    assert_int_equal(place(&sw, &r, 60, 90, 3, &p), 0);
    assert_int_equal(p, 0);
    assert_int_equal(r.npopped, 2);
    assert_int_equal(r.popped[0], 2);
    assert_int_equal(r.popped[1], 1);
    assert_int_equal(r.popped_before[0], 60);
    assert_int_equal(sw.nlanes, 1);
    assert_int_equal(sw.lanes[0].sp, 2); /* A and D open */
    assert_false(sw.capped);
    nest_sweep_free(&sw);
}

/* B [10, 20] starts where A [0, 10] ends: A is popped, B is top-level on
 * the same lane.  A zero-length call Z [20, 20] at B's end is inside B;
 * identical intervals nest, the first outside. */
static void test_touching(void **state)
{
    (void)state;
    nest_sweep sw;
    nest_sweep_init(&sw, sizeof(tcall));
    trec r = {.fail_at = -1};
    int p;
    assert_int_equal(place(&sw, &r, 0, 10, 0, &p), 0);
    assert_int_equal(place(&sw, &r, 10, 20, 1, &p), 0);
    assert_int_equal(p, -1);
    assert_int_equal(r.npopped, 1);
    assert_int_equal(r.popped[0], 0);
    assert_int_equal(place(&sw, &r, 20, 20, 2, &p), 0);
    assert_int_equal(p, 1);
    assert_int_equal(place(&sw, &r, 30, 40, 3, &p), 0);
    assert_int_equal(place(&sw, &r, 30, 40, 4, &p), 0);
    assert_int_equal(p, 3);
    assert_int_equal(sw.nlanes, 1);
    nest_sweep_free(&sw);
}

/* B [5, 15] overlaps A [0, 10] partly: lane 0 does not fit, lane 1 opens.
 * C [12, 14]: lane 0's A ended at 10, popped; C is top-level on lane 0
 * though B, on lane 1, contains it (the first lane that fits wins).
 * D [13, 30] overlaps C partly and B partly: lane 2. */
static void test_overlap(void **state)
{
    (void)state;
    nest_sweep sw;
    nest_sweep_init(&sw, sizeof(tcall));
    trec r = {.fail_at = -1};
    int p;
    assert_int_equal(place(&sw, &r, 0, 10, 0, &p), 0);
    assert_int_equal(place(&sw, &r, 5, 15, 1, &p), 1);
    assert_int_equal(p, -1);
    assert_int_equal(sw.nlanes, 2);
    assert_int_equal(place(&sw, &r, 12, 14, 2, &p), 0);
    assert_int_equal(p, -1);
    assert_int_equal(r.npopped, 1);
    assert_int_equal(r.popped[0], 0);
    assert_int_equal(r.popped_lane[0], 0);
    assert_int_equal(place(&sw, &r, 13, 30, 3, &p), 2);
    assert_int_equal(p, -1);
    assert_int_equal(sw.nlanes, 3);
    assert_false(sw.capped);
    nest_sweep_free(&sw);
}

/* Call i = [i, 1000 + i], i = 0 .. 256: each overlaps every earlier one
 * partly.  Calls 0 .. 255 open lanes 0 .. 255; call 256 finds no lane
 * within the limit and goes to the last, where call 255, not containing
 * it, is popped: the lane then holds call 256 alone, top-level. */
static void test_limit(void **state)
{
    (void)state;
    assert_int_equal(NEST_LANES_MAX, 256);
    nest_sweep sw;
    nest_sweep_init(&sw, sizeof(tcall));
    trec r = {.fail_at = -1};
    int p;
    for (int i = 0; i < 256; i++) {
        assert_int_equal(place(&sw, &r, i, 1000 + i, i, &p), i);
        assert_int_equal(p, -1);
    }
    assert_false(sw.capped);
    assert_int_equal(r.npopped, 0);
    assert_int_equal(place(&sw, &r, 256, 1256, 256, &p), 255);
    assert_int_equal(p, -1);
    assert_true(sw.capped);
    assert_int_equal(sw.nlanes, 256);
    assert_int_equal(r.npopped, 1);
    assert_int_equal(r.popped[0], 255);
    assert_int_equal(r.popped_lane[0], 255);
    assert_int_equal(sw.lanes[255].sp, 1);
    assert_int_equal(((const tcall *)nest_lane_top(&sw, &sw.lanes[255]))->id, 256);
    /* [300, 400] is inside every open call: lane 0, child of call 0 */
    assert_int_equal(place(&sw, &r, 300, 400, 257, &p), 0);
    assert_int_equal(p, 0);
    nest_sweep_free(&sw);
}

/* A pop the caller refuses (out of memory) stops the placement. */
static void test_pop_fails(void **state)
{
    (void)state;
    nest_sweep sw;
    nest_sweep_init(&sw, sizeof(tcall));
    trec r = {.fail_at = 0};
    int p;
    assert_int_equal(place(&sw, &r, 0, 10, 0, &p), 0);
    assert_int_equal(place(&sw, &r, 20, 30, 1, &p), SIZE_MAX);
    assert_int_equal(r.npopped, 0);
    /* the forced lanes of a caller that knows them */
    assert_true(nest_sweep_lanes_to(&sw, 5));
    assert_int_equal(sw.nlanes, 5);
    assert_int_equal(sw.lanes[4].sp, 0);
    nest_sweep_free(&sw);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nested),    cmocka_unit_test(test_touching),
        cmocka_unit_test(test_overlap),   cmocka_unit_test(test_limit),
        cmocka_unit_test(test_pop_fails),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
