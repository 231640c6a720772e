/* The shared table helper: which columns fit, where they go, the header's
 * sort mark, cursor and scrolling, sort keys and clicks.  Positions are
 * worked out by hand from the rules in table.h: a one-column left margin,
 * one column between columns, the flex column takes what is left. */
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "view/table.h"

enum { C_NAME, C_A, C_B, C_C, C_N };

static const table_col cols[C_N] = {
    [C_NAME] = {"Name", 10, 0, true, true},
    [C_A] = {"A", 8, 0, false, false},
    [C_B] = {"B", 8, 2, false, false}, /* dropped first */
    [C_C] = {"C", 8, 1, false, false},
};

static char *row_text(const grid *g, int y)
{
    char *all = grid_to_text(g);
    assert_non_null(all);
    char *line = all;
    for (int i = 0; i < y && line; i++) {
        line = strchr(line, '\n');
        line = line ? line + 1 : NULL;
    }
    assert_non_null(line);
    char *end = strchr(line, '\n');
    size_t n = end ? (size_t)(end - line) : strlen(line);
    char *out = malloc(n + 1);
    assert_non_null(out);
    memcpy(out, line, n);
    out[n] = '\0';
    free(all);
    return out;
}

static void test_layout_wide(void **state)
{
    (void)state;
    grid g = {0};
    assert_true(grid_resize(&g, 60, 10));
    table t;
    table_init(&t, cols, C_N, C_A, true);
    table_layout(&t, &g, (rect){0, 0, 60, 10});
    /* needed 1 + 10 + 8 + 8 + 8 + 3 = 38: 22 spare go to the name */
    assert_int_equal(t.shown, 0xF);
    assert_int_equal(t.x[C_NAME], 1);
    assert_int_equal(t.w[C_NAME], 32);
    assert_int_equal(t.x[C_A], 34);
    assert_int_equal(t.x[C_B], 43);
    assert_int_equal(t.x[C_C], 52);
    assert_int_equal(t.w[C_C], 8);
    assert_int_equal(t.body_y, 1);
    assert_int_equal(t.page, 9);
    grid_free(&g);
}

static void test_layout_narrow(void **state)
{
    (void)state;
    grid g = {0};
    assert_true(grid_resize(&g, 60, 10));
    table t;
    table_init(&t, cols, C_N, C_A, true);
    /* Everything needs 1 + 10 + 3 * 8 + 3 = 38.  At 37 B goes (29 for the
     * rest); the marker fits in Name's header (10 + 8 spare - "Name" - 1 =
     * 13 >= 4), so Name takes the whole spare: 18. */
    table_layout(&t, &g, (rect){0, 0, 37, 10});
    assert_false(table_col_shown(&t, C_B));
    assert_true(table_col_shown(&t, C_C));
    assert_int_equal(t.nmore, 1);
    assert_int_equal(t.more_col, C_NAME);
    assert_int_equal(t.w[C_NAME], 18);
    assert_int_equal(t.x[C_C], 1 + 18 + 1 + 8 + 1);
    /* At 30 too (spare 1: 10 + 1 - 4 - 1 = 6 >= 4): Name 11, C still shown. */
    table_layout(&t, &g, (rect){0, 0, 30, 10});
    assert_true(table_col_shown(&t, C_C));
    assert_int_equal(t.w[C_NAME], 11);
    /* At 20 C goes too; Name and A exactly, the marker in Name's header. */
    table_layout(&t, &g, (rect){0, 0, 20, 10});
    assert_int_equal(t.shown, (1u << C_NAME) | (1u << C_A));
    assert_int_equal(t.nmore, 2);
    assert_int_equal(t.w[C_NAME], 10);
    /* the sort column stays: sorting by B drops C instead */
    t.sort_col = C_B;
    table_layout(&t, &g, (rect){0, 0, 37, 10});
    assert_true(table_col_shown(&t, C_B));
    assert_false(table_col_shown(&t, C_C));
    /* a hidden column never shows */
    t.hidden = 1u << C_C;
    table_layout(&t, &g, (rect){0, 0, 60, 10});
    assert_false(table_col_shown(&t, C_C));
    assert_int_equal(t.w[C_NAME], 60 - (1 + 8 + 8 + 2));
    grid_free(&g);
}

/* Sideways: Right skips the first data column, the rest follow in order;
 * the header ends with the count of those not shown. */
static void test_sideways(void **state)
{
    (void)state;
    grid g = {0};
    assert_true(grid_resize(&g, 40, 5));
    table t;
    table_init(&t, cols, C_N, C_A, true);
    table_layout(&t, &g, (rect){0, 0, 37, 5}); /* A, C shown, B hidden */
    table_draw_header(&t, &g, 0);
    char *h = row_text(&g, 0);
    /* Name 18 at 1 with "▸ 1 more" right-aligned in its header (10..17),
     * A at 20 to 27, C at 29 to 36. */
    assert_string_equal(h, " Name     ▸ 1 more        ▼A        C");
    free(h);
    table_layout(&t, &g, (rect){0, 0, 45, 5}); /* everything: 38 */
    assert_int_equal(t.nmore, 0);
    table_layout(&t, &g, (rect){0, 0, 37, 5});
    assert_int_equal(table_on_cmd(&t, CMD_RIGHT, 0, 0), TABLE_MOVED);
    assert_int_equal(t.hscroll, 1);
    /* Scrolled by one: A skipped, B and C follow Name in order (29, spare 8). */
    table_layout(&t, &g, (rect){0, 0, 37, 5});
    assert_int_equal(t.shown, (1u << C_NAME) | (1u << C_B) | (1u << C_C));
    assert_int_equal(t.nmore, 1);
    /* Right again: only C after Name; then Right stops at the last column. */
    table_on_cmd(&t, CMD_RIGHT, 0, 0);
    table_layout(&t, &g, (rect){0, 0, 37, 5});
    assert_int_equal(t.shown, (1u << C_NAME) | (1u << C_C));
    assert_int_equal(t.nmore, 2);
    table_on_cmd(&t, CMD_RIGHT, 0, 0);
    assert_int_equal(t.hscroll, 2);
    /* Left back to the fit by priority. */
    table_on_cmd(&t, CMD_LEFT, 0, 0);
    table_on_cmd(&t, CMD_LEFT, 0, 0);
    assert_int_equal(table_on_cmd(&t, CMD_LEFT, 0, 0), TABLE_MOVED);
    assert_int_equal(t.hscroll, 0);
    /* Everything fits: no marker, Right does nothing. */
    table_layout(&t, &g, (rect){0, 0, 60, 5});
    assert_int_equal(t.nmore, 0);
    table_on_cmd(&t, CMD_RIGHT, 0, 0);
    table_layout(&t, &g, (rect){0, 0, 60, 5});
    assert_int_equal(t.nmore, 0);
    table_on_cmd(&t, CMD_RIGHT, 0, 0);
    assert_int_equal(t.hscroll, 0);
    grid_free(&g);
}

/* The compare view's shape: the first data column is dropped first by
 * priority and a pinned mark ends the row.  Right then starts at that first
 * column (else it could never be shown) and the mark stays while scrolled. */
enum { P_NAME, P_BASE, P_NEW, P_DELTA, P_MARK, P_N };
static const table_col pcols[P_N] = {
    [P_NAME] = {"Name", 10, 0, true, true},
    [P_BASE] = {"Base", 8, 2, false, false}, /* dropped first */
    [P_NEW] = {"New", 8, 1, false, false},
    [P_DELTA] = {"Delta", 8, 0, false, false},
    [P_MARK] = {"", 6, 0, true, false, false, true},
};

static void test_sideways_first_and_pinned(void **state)
{
    (void)state;
    grid g = {0};
    assert_true(grid_resize(&g, 40, 5));
    table t;
    table_init(&t, pcols, P_N, P_DELTA, true);
    /* 36 columns: Name 10 + New + Delta + mark = 1 + 10+1+8+1+8+1+6 = 36: Base dropped */
    table_layout(&t, &g, (rect){0, 0, 36, 5});
    assert_int_equal(t.shown, (1u << P_NAME) | (1u << P_NEW) | (1u << P_DELTA) | (1u << P_MARK));
    assert_int_equal(t.lead, 0);
    /* Right: in order from Base; Base and New fit before the mark, Delta not */
    table_on_cmd(&t, CMD_RIGHT, 0, 0);
    table_layout(&t, &g, (rect){0, 0, 36, 5});
    assert_int_equal(t.shown, (1u << P_NAME) | (1u << P_BASE) | (1u << P_NEW) | (1u << P_MARK));
    /* Right twice more: New then Delta first, the mark always there */
    table_on_cmd(&t, CMD_RIGHT, 0, 0);
    table_layout(&t, &g, (rect){0, 0, 36, 5});
    assert_int_equal(t.shown, (1u << P_NAME) | (1u << P_NEW) | (1u << P_DELTA) | (1u << P_MARK));
    table_on_cmd(&t, CMD_RIGHT, 0, 0);
    table_layout(&t, &g, (rect){0, 0, 36, 5});
    assert_int_equal(t.shown, (1u << P_NAME) | (1u << P_DELTA) | (1u << P_MARK));
    /* the last step: Right stays */
    table_on_cmd(&t, CMD_RIGHT, 0, 0);
    assert_int_equal(t.hscroll, 3);
    grid_free(&g);
}

static void test_put_and_header(void **state)
{
    (void)state;
    grid g = {0};
    assert_true(grid_resize(&g, 40, 5));
    table t;
    table_init(&t, cols, C_N, C_A, true);
    table_layout(&t, &g, (rect){0, 0, 40, 5}); /* name 12: x 1, A 14, B 23, C 32 */
    table_draw_header(&t, &g, 0);
    table_put(&t, &g, C_NAME, 1, "élan", ROLE_NORMAL, 0);
    table_put(&t, &g, C_A, 1, "12", ROLE_NORMAL, 0);
    table_put(&t, &g, C_C, 1, "123456789", ROLE_NORMAL, 0); /* cut at 8 */
    char *h = row_text(&g, 0), *r = row_text(&g, 1);
    assert_string_equal(h, " Name               ▼A        B        C");
    assert_string_equal(r, " élan               12          1234567…");
    free(h);
    free(r);
    g.ascii = true;
    t.sort_col = C_NAME;
    t.sort_desc = false;
    table_draw_header(&t, &g, 0);
    h = row_text(&g, 0);
    assert_string_equal(h, " Name^               A        B        C");
    free(h);
    grid_free(&g);
}

static void test_cursor(void **state)
{
    (void)state;
    grid g = {0};
    assert_true(grid_resize(&g, 60, 10));
    table t;
    table_init(&t, cols, C_N, C_A, true);
    table_layout(&t, &g, (rect){0, 0, 60, 10}); /* page 9 */
    table_set_rows(&t, 100);
    table_goto(&t, 50);
    assert_int_equal(t.cursor, 50);
    assert_int_equal(t.top, 42);
    assert_int_equal(table_row_y(&t, 50), 9);
    assert_int_equal(table_row_y(&t, 41), -1);
    assert_int_equal(table_on_cmd(&t, CMD_PGDN, 0, 0), TABLE_MOVED);
    assert_int_equal(t.cursor, 58);
    assert_int_equal(table_on_cmd(&t, CMD_END, 0, 0), TABLE_MOVED);
    assert_int_equal(t.cursor, 99);
    assert_int_equal(t.top, 91);
    assert_int_equal(table_on_cmd(&t, CMD_HOME, 0, 0), TABLE_MOVED);
    assert_int_equal(t.cursor, 0);
    assert_int_equal(t.top, 0);
    /* at an edge the key is still taken */
    assert_int_equal(table_on_cmd(&t, CMD_UP, 0, 0), TABLE_MOVED);
    assert_int_equal(t.cursor, 0);
    assert_int_equal(table_on_cmd(&t, CMD_ZOOM_IN, 0, 0), TABLE_IGNORED);
    /* fewer rows: the cursor comes back inside */
    table_goto(&t, 99);
    table_set_rows(&t, 5);
    assert_int_equal(t.cursor, 4);
    assert_int_equal(t.top, 0);
    table_set_rows(&t, 0);
    assert_int_equal(t.cursor, 0);
    grid_free(&g);
}

static void test_sort_keys_and_clicks(void **state)
{
    (void)state;
    grid g = {0};
    assert_true(grid_resize(&g, 60, 10));
    table t;
    table_init(&t, cols, C_N, C_A, true);
    table_layout(&t, &g, (rect){0, 0, 37, 10}); /* B not shown */
    assert_int_equal(table_on_cmd(&t, CMD_SORT_NEXT, 0, 0), TABLE_SORTED);
    assert_int_equal(t.sort_col, C_C); /* B skipped */
    assert_true(t.sort_desc);
    table_on_cmd(&t, CMD_SORT_NEXT, 0, 0);
    assert_int_equal(t.sort_col, C_NAME); /* wraps; names A to Z */
    assert_false(t.sort_desc);
    table_on_cmd(&t, CMD_SORT_PREV, 0, 0);
    assert_int_equal(t.sort_col, C_C);
    table_on_cmd(&t, CMD_SORT_INVERT, 0, 0);
    assert_false(t.sort_desc);
    /* a click on a title sorts by it, a second one inverts */
    table_layout(&t, &g, (rect){0, 2, 60, 8}); /* header on row 2 */
    assert_int_equal(table_on_cmd(&t, CMD_CLICK, t.x[C_A] + 3, 2), TABLE_SORTED);
    assert_int_equal(t.sort_col, C_A);
    assert_true(t.sort_desc);
    table_on_cmd(&t, CMD_CLICK, t.x[C_A], 2);
    assert_false(t.sort_desc);
    /* a click on a row moves the cursor there */
    table_set_rows(&t, 20);
    assert_int_equal(table_on_cmd(&t, CMD_CLICK, 5, 5), TABLE_MOVED);
    assert_int_equal(t.cursor, 2);
    assert_int_equal(table_on_cmd(&t, CMD_CLICK, 5, 0), TABLE_IGNORED);
    grid_free(&g);
}

int main(void)
{
    /* widths by wcwidth, as the UI sets it up */
    if (!setlocale(LC_CTYPE, "C.UTF-8"))
        setlocale(LC_CTYPE, "en_US.UTF-8");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout_wide),
        cmocka_unit_test(test_layout_narrow),
        cmocka_unit_test(test_put_and_header),
        cmocka_unit_test(test_cursor),
        cmocka_unit_test(test_sort_keys_and_clicks),
        cmocka_unit_test(test_sideways),
        cmocka_unit_test(test_sideways_first_and_pinned),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
