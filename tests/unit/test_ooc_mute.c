/* ooc_scan_mute_others: an export's open keeps its own sink fed and the overview's
 * accumulators quiet: each muted sink is told once why its product is empty and gets no
 * call, swept or flattened, after it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "ooc/ooc_scan.h"

typedef struct tsink {
    size_t calls, flat, lost;
    char why[64];
} tsink;

static bool t_call(void *self, const ooc_call *c)
{
    (void)c;
    ((tsink *)self)->calls++;
    return true;
}

static void t_lose(void *self, const char *why)
{
    tsink *t = self;
    t->lost++;
    snprintf(t->why, sizeof t->why, "%s", why);
}

static bool t_flat(void *self, const ooc_call *c)
{
    (void)c;
    ((tsink *)self)->flat++;
    return true;
}

static void t_free(void *self)
{
    (void)self; /* the test's own */
}

static const ooc_sink_ops kept_ops = {"kept", t_call, t_lose, t_free};
static const ooc_sink_ops muted_ops = {"muted", t_call, t_lose, t_free};
static const ooc_flat_ops flat_ops = {t_flat};

/* One row: (0, 10) holding (2, 5) and (6, 8). */
static const int64_t starts[] = {0, 2, 6}, ends[] = {10, 5, 8};

static int one_refill(void *ctx, ooc_src *src)
{
    bool *done = ctx;
    src->base = *done ? 3 : 0;
    if (*done)
        return 0;
    *done = true;
    src->s = starts;
    src->e = ends;
    src->len = 3;
    return 1;
}

static void sweep(ooc_scan *sc, size_t rank, bool flat)
{
    bool done = false;
    ooc_src src = {.reg = 0, .n = 3, .refill = one_refill, .ctx = &done};
    if (flat)
        assert_int_equal(ooc_scan_flat(sc, rank, &src, 1), 0);
    else
        assert_int_equal(ooc_scan_rank(sc, rank, &src, 1, false, OOC_SCAN_LANES_UNKNOWN), 0);
}

static void test_mute(void **state)
{
    (void)state;
    ooc_scan sc;
    assert_true(ooc_scan_init(&sc, 0, 10, 2, OOC_MAP_CELLS_MAX));
    tsink kept = {0}, muted = {0};
    assert_true(ooc_scan_add_sink(&sc, &muted_ops, &muted));
    assert_true(ooc_scan_add_flat(&sc, &flat_ops, &muted));
    assert_true(ooc_scan_add_sink(&sc, &kept_ops, &kept));
    assert_true(ooc_scan_add_flat(&sc, &flat_ops, &kept));
    tsink stranger = {0}; /* a lanes hook only for a registered sink */
    assert_false(ooc_scan_add_lanes(&sc, NULL, &stranger));
    ooc_scan_mute_others(&sc, &kept, "an export makes no overview");
    assert_int_equal(muted.lost, 1);
    assert_string_equal(muted.why, "an export makes no overview");
    assert_int_equal(kept.lost, 0);
    sweep(&sc, 0, false);
    assert_int_equal(kept.calls, 3);
    assert_int_equal(muted.calls, 0);
    sweep(&sc, 1, true); /* flattened: the kept sink's flat hook, and its lose only */
    assert_int_equal(kept.flat, 3);
    assert_int_equal(muted.flat, 0);
    assert_int_equal(muted.lost, 1);
    /* still registered: its product can still be taken */
    assert_ptr_equal(ooc_scan_take_sink(&sc, &muted_ops), &muted);
    assert_ptr_equal(ooc_scan_take_sink(&sc, &kept_ops), &kept);
    ooc_scan_free(&sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mute),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
