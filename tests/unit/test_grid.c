/* The grid: display widths, escapes, clipping and cuts, without a terminal.
 * Expected widths are counted by hand from the Unicode East Asian Width
 * of each character (CJK and emoji 2, combining marks and joiners 0). */
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "ui/grid.h"
#include "ui/theme.h"

static grid make_grid(int cols, int rows, bool ascii)
{
    grid g = {0};
    g.ascii = ascii;
    assert_true(grid_resize(&g, cols, rows));
    return g;
}

/* Row y of the grid as text (trailing spaces trimmed); caller frees. */
static char *row_text(const grid *g, int y)
{
    char *all = grid_to_text(g);
    assert_non_null(all);
    char *line = all;
    for (int i = 0; i < y; i++)
        line = strchr(line, '\n') + 1;
    size_t n = strcspn(line, "\n");
    char *out = malloc(n + 1);
    assert_non_null(out);
    memcpy(out, line, n);
    out[n] = '\0';
    free(all);
    return out;
}

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void test_widths(void **state)
{
    (void)state;
    assert_int_equal(text_display_width("abc"), 3);
    assert_int_equal(text_display_width("\xe6\x97\xa5\xe6\x9c\xac"), 4); /* 日本 */
    assert_int_equal(text_display_width("\xf0\x9f\x98\x80"), 2);         /* 😀 */
    assert_int_equal(text_display_width("e\xcc\x81"), 1);                /* e + U+0301 */
    /* 👨‍👩‍👧: three emoji joined by U+200D; joiners are dropped, so 3 x 2. */
    assert_int_equal(text_display_width("\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9\xe2\x80\x8d"
                                        "\xf0\x9f\x91\xa7"),
                     6);
    assert_int_equal(text_display_width("a\xe2\x80\x8b"
                                        "b"),
                     2); /* zero-width space */
    assert_int_equal(text_display_width(""), 0);
    assert_int_equal(text_display_width(NULL), 0);
}

static void test_escape_widths(void **state)
{
    (void)state;
    assert_int_equal(text_display_width("\x1b[31m"), 8);     /* \x1b + [31m */
    assert_int_equal(text_display_width("\xff"), 4);         /* \xff */
    assert_int_equal(text_display_width("\xc2\x9b"), 6);     /* \u009b (C1 CSI) */
    assert_int_equal(text_display_width("\t"), 2);           /* \t */
    assert_int_equal(text_display_width("\xe2\x80\xae"), 6); /* \u202e (RTL override) */
    grid g = make_grid(10, 1, true);
    assert_int_equal(grid_text_width(&g, "caf\xc3\xa9"), 9); /* caf\u00e9 */
    assert_int_equal(grid_text_widthn(&g, "abcdef", 2), 2);
    grid_free(&g);
}

static void test_escapes_drawn(void **state)
{
    (void)state;
    grid g = make_grid(40, 2, false);
    int w = grid_put_text(&g, 0, 0, 40, "evil\x1b[31mred\x07", ROLE_NORMAL, 0);
    assert_int_equal(w, 19);
    char *t = row_text(&g, 0);
    assert_string_equal(t, "evil\\x1b[31mred\\x07");
    free(t);
    grid_put_text(&g, 0, 1, 40, "a\xff\xfe\xc2\x9b\r", ROLE_NORMAL, 0);
    t = row_text(&g, 1);
    assert_string_equal(t, "a\\xff\\xfe\\u009b\\r");
    free(t);
    /* No cell holds a control character. */
    for (int i = 0; i < g.cols * g.rows; i++)
        assert_true(g.cells[i].ch == 0 || (g.cells[i].ch >= 0x20 && g.cells[i].ch != 0x7f));
    grid_free(&g);
}

static void test_cut_with_ellipsis(void **state)
{
    (void)state;
    grid g = make_grid(20, 4, false);
    assert_int_equal(grid_put_text(&g, 0, 0, 4, "abcdef", ROLE_NORMAL, 0), 4);
    char *t = row_text(&g, 0);
    assert_string_equal(t, "abc\xe2\x80\xa6"); /* abc… */
    free(t);
    assert_int_equal(grid_put_text(&g, 0, 1, 4, "abcd", ROLE_NORMAL, 0), 4); /* exact fit */
    t = row_text(&g, 1);
    assert_string_equal(t, "abcd");
    free(t);
    /* 日本語 in 4 columns: 日 (2) fits before the ellipsis column, 本 (2)
     * would not; the gap is padded so the ellipsis ends the field. */
    assert_int_equal(grid_put_text(&g, 0, 2, 4, "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", 0, 0), 4);
    t = row_text(&g, 2);
    assert_string_equal(t, "\xe6\x97\xa5 \xe2\x80\xa6");
    free(t);
    assert_int_equal(grid_put_text(&g, 0, 3, 6, "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", 0, 0), 6);
    t = row_text(&g, 3);
    assert_string_equal(t, "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e");
    free(t);
    grid_free(&g);

    g = make_grid(10, 1, true);
    grid_put_text(&g, 0, 0, 5, "abcdefgh", ROLE_NORMAL, 0);
    t = row_text(&g, 0);
    assert_string_equal(t, "abcd~");
    free(t);
    grid_free(&g);
}

/* A middle cut keeps the last third (13 / 3 = 4 columns: "-0_1") and
 * ends the head with the ellipsis: 9 + 1 + 4 = 14 columns. */
static void test_middle_cut(void **state)
{
    (void)state;
    grid g = make_grid(30, 4, false);
    assert_int_equal(grid_put_text_mid(&g, 0, 0, 14, "r0 ThreadPoolExecutor-0_1", 0, 0), 14);
    char *t = row_text(&g, 0);
    assert_string_equal(t, "r0 Thread\xe2\x80\xa6-0_1");
    free(t);
    assert_int_equal(grid_put_text_mid(&g, 0, 1, 14, "r0 MainThread", 0, 0), 13); /* fits */
    t = row_text(&g, 1);
    assert_string_equal(t, "r0 MainThread");
    free(t);
    grid_put_text_mid(&g, 0, 2, 7, "ThreadPoolExecutor-0_1", 0, 0); /* narrow: end cut */
    t = row_text(&g, 2);
    assert_string_equal(t, "Thread\xe2\x80\xa6");
    free(t);
    grid_free(&g);
    g = make_grid(30, 1, true);
    grid_put_text_mid(&g, 0, 0, 14, "r0 ThreadPoolExecutor-0_1", 0, 0);
    t = row_text(&g, 0);
    assert_string_equal(t, "r0 Thread~-0_1");
    free(t);
    grid_free(&g);
}

static void test_clipping(void **state)
{
    (void)state;
    grid g = make_grid(5, 2, false);
    assert_int_equal(grid_put_text(&g, 3, 0, 100, "abcdef", ROLE_NORMAL, 0), 2); /* "a…" */
    assert_int_equal(grid_put_text(&g, 5, 0, 10, "x", ROLE_NORMAL, 0), 0);
    assert_int_equal(grid_put_text(&g, 0, 2, 10, "x", ROLE_NORMAL, 0), 0);
    assert_int_equal(grid_put_text(&g, 0, -1, 10, "x", ROLE_NORMAL, 0), 0);
    assert_int_equal(grid_put_text(&g, -1, 0, 10, "x", ROLE_NORMAL, 0), 0);
    assert_int_equal(grid_put_text(&g, 0, 1, 0, "x", ROLE_NORMAL, 0), 0);
    grid_put_cp(&g, 9, 9, 'x', ROLE_NORMAL, 0); /* ignored, no crash */
    grid_fill(&g, (rect){-3, -3, 100, 100}, '.', ROLE_NORMAL, 0);
    char *t = grid_to_text(&g);
    assert_string_equal(t, ".....\n.....\n");
    free(t);
    grid_free(&g);
}

static void test_wide_pairs(void **state)
{
    (void)state;
    grid g = make_grid(5, 3, false);
    /* A wide character cannot start in the last column. */
    grid_put_cp(&g, 4, 0, 0x65E5, ROLE_NORMAL, 0);
    assert_int_equal(g.cells[4].ch, ' ');
    /* Overwriting the right half of 日 blanks its left half. */
    grid_put_cp(&g, 0, 1, 0x65E5, ROLE_NORMAL, 0);
    assert_int_equal(g.cells[5 + 1].ch, 0);
    grid_put_cp(&g, 1, 1, 'x', ROLE_NORMAL, 0);
    char *t = row_text(&g, 1);
    assert_string_equal(t, " x");
    free(t);
    /* A fill of wide characters over an odd width pads the last column. */
    grid_fill(&g, (rect){0, 2, 5, 1}, 0x65E5, ROLE_NORMAL, 0);
    t = row_text(&g, 2);
    assert_string_equal(t, "\xe6\x97\xa5\xe6\x97\xa5");
    free(t);
    assert_int_equal(g.cells[14].ch, ' ');
    /* Control code points given directly are replaced. */
    grid_put_cp(&g, 0, 0, 0x1b, ROLE_NORMAL, 0);
    assert_int_equal(g.cells[0].ch, '?');
    assert_int_equal(grid_cp_width(&g, 0x65E5), 2);
    assert_int_equal(grid_cp_width(&g, 'a'), 1);
    grid_free(&g);
}

static void test_to_text(void **state)
{
    (void)state;
    grid g = make_grid(4, 3, false);
    grid_put_text(&g, 1, 0, 3, "ab", ROLE_NORMAL, 0);
    grid_put_text(&g, 0, 2, 4, "\xe6\x97\xa5x", ROLE_NORMAL, 0);
    char *t = grid_to_text(&g);
    assert_string_equal(t, " ab\n\n\xe6\x97\xa5x\n");
    free(t);
    assert_true(grid_resize(&g, 1, 1));
    t = grid_to_text(&g);
    assert_string_equal(t, "\n");
    free(t);
    assert_false(grid_resize(&g, 100000, 1));
    assert_int_equal(g.cols, 1);
    grid_free(&g);
}

/* A 10 MB string: drawing costs the visible width, and measuring it is one
 * linear pass. */
static void test_huge_string(void **state)
{
    (void)state;
    size_t n = 10u << 20;
    char *s = malloc(n + 1);
    assert_non_null(s);
    for (size_t i = 0; i + 3 <= n; i += 3)
        memcpy(s + i, "\xe6\x97\xa5", 3); /* 日 */
    size_t used = n - n % 3;
    s[used - 1] = '\x1b'; /* an escape at the very end, in a broken sequence */
    s[used] = '\0';
    grid g = make_grid(80, 2, false);
    double t0 = seconds_now();
    for (int i = 0; i < 10000; i++)
        assert_int_equal(grid_put_text(&g, 0, 0, 80, s, ROLE_NORMAL, 0), 80);
    /* 10000 draws of 80 columns: microseconds each.  Reading the whole
     * string (even a strlen) each time would take seconds. */
    assert_true(seconds_now() - t0 < 1.0);
    char *row = row_text(&g, 0);
    assert_int_equal(text_display_width(row), 80);
    free(row);
    t0 = seconds_now();
    int w = text_display_width(s);
    assert_true(seconds_now() - t0 < 5.0);
    /* 3495253 three-byte slots: 3495252 whole 日 (2 columns each), then the
     * last one's first two bytes as \xe6 \x97 and the ESC as \x1b (4 each). */
    assert_int_equal(w, (int)(used / 3 - 1) * 2 + 12);
    /* A run of zero-width characters is skipped, not drawn. */
    for (size_t i = 0; i + 3 <= n; i += 3)
        memcpy(s + i, "\xe2\x80\x8b", 3);
    s[used] = '\0';
    assert_int_equal(grid_put_text(&g, 0, 1, 80, s, ROLE_NORMAL, 0), 0);
    free(s);
    grid_free(&g);
}

/* NO_COLOR: present and not empty (no-color.org); 256 colours: sixteen
 * distinct bar backgrounds, the non-bar roles as on 8 colours. */
static void test_theme_colors(void **state)
{
    (void)state;
    assert_false(theme_no_color(NULL));
    assert_false(theme_no_color(""));
    assert_true(theme_no_color("1"));
    assert_true(theme_no_color("0")); /* any value counts */
    for (int a = ROLE_BAR0; a < ROLE_COUNT; a++) {
        theme_style sa = theme_color_style256(a);
        assert_true(sa.bg >= 16 && sa.bg <= 255);
        for (int b = ROLE_BAR0; b < a; b++)
            assert_int_not_equal(sa.bg, theme_color_style256(b).bg);
    }
    assert_int_equal(ROLE_COUNT - ROLE_BAR0, 16);
    assert_int_equal(theme_color_style256(ROLE_HEADER).fg, theme_color_style(ROLE_HEADER).fg);
}

static void test_theme(void **state)
{
    (void)state;
    int a = theme_region_role("solve");
    assert_int_equal(theme_region_role("solve"), a);
    assert_true(a >= ROLE_BAR0 && a < ROLE_COUNT);
    assert_true(theme_region_role(NULL) >= ROLE_BAR0);
    const theme_glyphs *gl = theme_glyphs_get(true);
    uint32_t cps[] = {gl->bar,      gl->await,   gl->dense[0],  gl->dense[1], gl->dense[2],
                      gl->ellipsis, gl->hline,   gl->vline,     gl->tick,     gl->collapsed,
                      gl->expanded, gl->sort_up, gl->sort_down, gl->marker};
    for (size_t i = 0; i < sizeof cps / sizeof cps[0]; i++)
        assert_true(cps[i] >= 0x20 && cps[i] < 0x7f);
    const char *strs[] = {gl->tree_tee, gl->tree_last, gl->tree_vert};
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(strlen(strs[i]), 2);
        assert_int_equal(text_display_width(theme_glyphs_get(false)->tree_tee), 2);
    }
    /* Without colour the bar, await, selection and dense roles still differ. */
    assert_int_not_equal(theme_mono_attr(ROLE_BAR0), theme_mono_attr(ROLE_AWAIT));
    assert_int_not_equal(theme_mono_attr(ROLE_BAR0), theme_mono_attr(ROLE_SELECTED));
    assert_int_not_equal(theme_mono_attr(ROLE_AWAIT), theme_mono_attr(ROLE_DENSE));
    assert_int_not_equal(theme_mono_attr(ROLE_NORMAL), theme_mono_attr(ROLE_SELECTED));
}

int main(void)
{
    if (!setlocale(LC_CTYPE, "C.UTF-8"))
        setlocale(LC_CTYPE, "en_US.UTF-8");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_widths),        cmocka_unit_test(test_escape_widths),
        cmocka_unit_test(test_escapes_drawn), cmocka_unit_test(test_cut_with_ellipsis),
        cmocka_unit_test(test_clipping),      cmocka_unit_test(test_wide_pairs),
        cmocka_unit_test(test_to_text),       cmocka_unit_test(test_huge_string),
        cmocka_unit_test(test_theme),         cmocka_unit_test(test_theme_colors),
        cmocka_unit_test(test_middle_cut),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
