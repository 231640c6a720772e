/* The config file: key bindings, themes and colours, settings, bad lines
 * (a message with the line number, the rest applied) and the
 * --dump-config round trip. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "ui/settings.h"
#include "ui/grid.h"
#include "ui/keys.h"

static sv_settings *fresh(void)
{
    sv_settings *c = malloc(sizeof *c);
    assert_non_null(c);
    assert_true(settings_defaults(c));
    return c;
}

static void test_bind(void **state)
{
    (void)state;
    sv_settings *c = fresh();
    strbuf err;
    sb_init(&err);
    const char *text = "# my keys\n"
                       "bind tree x expand\n"
                       "bind global <Backspace> help\n"
                       "bind timeline z none\n"
                       "bind generic Space page-down\n"
                       "  bind regions <lt> sort-invert   \r\n"
                       "bind calls # help # a comment after a statement\n"
                       "set source-width 12 # columns\n";
    assert_int_equal(settings_parse(c, text, "cfg", &err), 0);
    assert_int_equal(err.len, 0);
    assert_int_equal(keymap_lookup(&c->keys, SCOPE_TREE, 'x'), CMD_EXPAND);
    assert_int_equal(keymap_lookup(&c->keys, SCOPE_TIMELINE, 'x'), CMD_NONE);
    assert_int_equal(keymap_lookup(&c->keys, SCOPE_INFO, SVK_BASE + 100), CMD_NONE);
    assert_int_equal(keymap_lookup(&c->keys, SCOPE_CALLS, SVK_BACKSPACE), CMD_HELP);
    /* none unbinds in the view and shadows the global key */
    assert_int_equal(keymap_lookup(&c->keys, SCOPE_TIMELINE, 'z'), CMD_NONE);
    assert_int_equal(keymap_lookup(&c->keys, SCOPE_INFO, ' '), CMD_PGDN);
    assert_int_equal(keymap_lookup(&c->keys, SCOPE_REGIONS, '<'), CMD_SORT_INVERT);
    assert_int_equal(keymap_lookup(&c->keys, SCOPE_CALLS, '#'), CMD_HELP);
    assert_int_equal(c->source_width, 12);
    /* the untouched keys keep their defaults */
    assert_int_equal(keymap_lookup(&c->keys, SCOPE_TREE, 'e'), CMD_EXPAND);
    assert_int_equal(keymap_lookup(&c->keys, SCOPE_TIMELINE, '+'), CMD_ZOOM_IN);
    sb_free(&err);
    free(c);
}

static void test_theme_and_colors(void **state)
{
    (void)state;
    sv_settings *c = fresh();
    /* default: the built-in colours */
    assert_int_equal(c->pal.s8[ROLE_TITLE].fg, theme_color_style(ROLE_TITLE).fg);
    assert_int_equal(c->pal.s256[ROLE_BAR0 + 3].bg, theme_color_style256(ROLE_BAR0 + 3).bg);
    assert_false(c->pal.mono);
    assert_int_equal(settings_parse(c, "theme light\n", "cfg", NULL), 0);
    assert_int_equal(c->theme, THEME_NAME_LIGHT);
    assert_int_equal(c->pal.s8[ROLE_NORMAL].fg, THEME_BLACK);
    assert_int_equal(c->pal.s8[ROLE_NORMAL].bg, THEME_WHITE);
    assert_int_equal(c->pal.s256[ROLE_HEADER].bg, THEME_WHITE);
    assert_int_equal(settings_parse(c, "theme dark\n", "cfg", NULL), 0);
    assert_int_equal(c->pal.s8[ROLE_NORMAL].fg, THEME_WHITE);
    assert_int_equal(c->pal.s8[ROLE_NORMAL].bg, THEME_BLACK);
    assert_int_equal(settings_parse(c, "theme mono\n", "cfg", NULL), 0);
    assert_true(c->pal.mono);
    /* colours by role, after the theme */
    assert_int_equal(settings_parse(c,
                                    "theme default\n"
                                    "color title white blue bold underline\n"
                                    "color bar3 black 214\n",
                                    "cfg", NULL),
                     0);
    assert_false(c->pal.mono);
    theme_style t = c->pal.s256[ROLE_TITLE];
    assert_int_equal(t.fg, THEME_WHITE);
    assert_int_equal(t.bg, THEME_BLUE);
    assert_int_equal(t.attr, GA_BOLD | GA_UNDERLINE);
    assert_int_equal(c->pal.s256[ROLE_BAR0 + 3].bg, 214);
    assert_int_equal(c->pal.s8[ROLE_BAR0 + 3].bg, 214 % 8); /* 8 colours: its low bits */
    assert_int_equal(theme_palette_style(&c->pal, ROLE_TITLE, false).bg, THEME_BLUE);
    free(c);
}

static void test_settings(void **state)
{
    (void)state;
    sv_settings *c = fresh();
    assert_int_equal(c->default_view, VIEW_TIMELINE);
    assert_int_equal(c->tree_sort, CFG_SORT_INCL);
    assert_int_equal(settings_parse(c,
                                    "set default-view tree\n"
                                    "set tree-scope rank\n"
                                    "set tree-sort excl\n"
                                    "set source-width 60\n",
                                    "cfg", NULL),
                     0);
    assert_int_equal(c->default_view, VIEW_TREE);
    assert_int_equal(c->tree_scope, CFG_SCOPE_RANK);
    assert_int_equal(c->tree_sort, CFG_SORT_EXCL);
    assert_false(c->tree_sort_asc);
    assert_int_equal(c->source_width, 60);
    assert_int_equal(
        settings_parse(c, "set tree-sort name asc\nset tree-scope thread\n", "c", NULL), 0);
    assert_int_equal(c->tree_sort, CFG_SORT_NAME);
    assert_true(c->tree_sort_asc);
    assert_int_equal(c->tree_scope, CFG_SCOPE_THREAD);
    free(c);
}

/* Bad lines: one message each, naming the file and line; the good lines
 * around them apply. */
static void test_bad_lines(void **state)
{
    (void)state;
    sv_settings *c = fresh();
    strbuf err;
    sb_init(&err);
    const char *text = "bind tree x expand\n"          /* 1 good */
                       "bind tree y no-such-command\n" /* 2 bad command */
                       "set source-width 60\n"         /* 3 good */
                       "frobnicate\n"                  /* 4 bad statement */
                       "\n"                            /* 5 blank */
                       "set tree-sort sideways\n"      /* 6 bad value */
                       "bind nowhere q quit\n"         /* 7 bad view */
                       "color title white\n"           /* 8 too few words */
                       "color title mauve black\n"     /* 9 bad colour */
                       "theme sepia\n"                 /* 10 bad theme */
                       "set source-width -3\n"         /* 11 bad number */
                       "bind tree xyz quit\n"          /* 12 bad key */
                       "set default-view tree\n";      /* 13 good */
    assert_int_equal(settings_parse(c, text, "my.conf", &err), 9);
    const char *want[] = {"my.conf:2: no command 'no-such-command'",
                          "my.conf:4: unknown statement 'frobnicate'",
                          "my.conf:6: tree-sort is",
                          "my.conf:7: no view 'nowhere'",
                          "my.conf:8: color wants",
                          "my.conf:9: no colour 'mauve'",
                          "my.conf:10: theme wants",
                          "my.conf:11: source-width is",
                          "my.conf:12: no key 'xyz'"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (!strstr(err.s, want[i]))
            fail_msg("no '%s' in:\n%s", want[i], err.s);
    assert_int_equal(keymap_lookup(&c->keys, SCOPE_TREE, 'x'), CMD_EXPAND);
    assert_int_equal(c->source_width, 60);
    assert_int_equal(c->default_view, VIEW_TREE);
    assert_int_equal(c->tree_sort, CFG_SORT_INCL); /* the bad value left it */
    /* A hostile word is escaped in the message. */
    sb_reset(&err);
    assert_int_equal(settings_parse(c, "bind tree \x1b[31m quit\n", "f", &err), 1);
    assert_null(strchr(err.s, '\x1b'));
    sb_free(&err);
    free(c);
}

/* The dumped defaults read back give the same configuration, even over a
 * changed one with no key bindings at all. */
static void test_dump_round_trip(void **state)
{
    (void)state;
    sv_settings *want = fresh(), *got = fresh();
    assert_int_equal(
        settings_parse(got,
                       "theme light\ncolor title red red\nset default-view info\n"
                       "set tree-sort gpu asc\nset source-width 7\nset tree-scope rank\n",
                       "x", NULL),
        0);
    got->keys.n = 0;
    strbuf dump, err;
    sb_init(&dump);
    sb_init(&err);
    settings_dump_defaults(&dump);
    assert_non_null(strstr(dump.s, "bind timeline + zoom-in\n"));
    assert_non_null(strstr(dump.s, "set tree-sort incl desc\n"));
    assert_int_equal(settings_parse(got, dump.s, "dump", &err), 0);
    assert_int_equal(err.len, 0);
    assert_int_equal(got->keys.n, want->keys.n);
    assert_memory_equal(got->keys.e, want->keys.e, want->keys.n * sizeof want->keys.e[0]);
    assert_memory_equal(&got->pal, &want->pal, sizeof want->pal);
    assert_int_equal(got->theme, want->theme);
    assert_int_equal(got->default_view, want->default_view);
    assert_int_equal(got->tree_scope, want->tree_scope);
    assert_int_equal(got->tree_sort, want->tree_sort);
    assert_int_equal(got->tree_sort_asc, want->tree_sort_asc);
    assert_int_equal(got->source_width, want->source_width);
    sb_free(&dump);
    sb_free(&err);
    free(want);
    free(got);
}

static void test_load(void **state)
{
    (void)state;
    sv_settings *c = fresh();
    strbuf err;
    sb_init(&err);
    assert_int_equal(settings_load(c, "/nonexistent/scopeview.conf", false, &err), 0);
    assert_int_equal(err.len, 0);
    assert_int_equal(settings_load(c, "/nonexistent/scopeview.conf", true, &err),
                     SETTINGS_UNREADABLE);
    assert_non_null(strstr(err.s, "/nonexistent/scopeview.conf: "));
    char path[] = "/tmp/sv-config-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fputs("set source-width 33\nbogus\n", f);
    fclose(f);
    sb_reset(&err);
    assert_int_equal(settings_load(c, path, true, &err), 1);
    assert_int_equal(c->source_width, 33);
    assert_non_null(strstr(err.s, ":2: unknown statement 'bogus'"));
    remove(path);
    char buf[256];
    setenv("XDG_CONFIG_HOME", "/xdg", 1);
    assert_string_equal(settings_default_path(buf, sizeof buf), "/xdg/scopeview/config");
    unsetenv("XDG_CONFIG_HOME");
    setenv("HOME", "/home/u", 1);
    assert_string_equal(settings_default_path(buf, sizeof buf), "/home/u/.config/scopeview/config");
    sb_free(&err);
    free(c);
}

/* A FIFO, a directory, a device and a file over 1 MiB cannot be read as a
 * config file: one message each and SETTINGS_UNREADABLE, at once (the FIFO
 * without a writer would block a plain open; the alarm turns that into a
 * failure instead of a hang). */
static void test_not_regular(void **state)
{
    (void)state;
    sv_settings *c = fresh();
    strbuf err;
    sb_init(&err);
    char dir[] = "/tmp/sv-config-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char fifo[64], big[64];
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    snprintf(big, sizeof big, "%s/big", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    FILE *f = fopen(big, "w");
    assert_non_null(f);
    for (int i = 0; i < (1 << 20) / 16 + 1; i++)
        fputs("# a comment ...\n", f);
    fclose(f);
    const struct {
        const char *path, *why;
    } cases[] = {
        {fifo, ": not a regular file"},
        {dir, ": a directory, not a config file"},
        {"/dev/zero", ": not a regular file"},
        {big, ": larger than 1 MiB"},
    };
    alarm(10);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int must = 0; must < 2; must++) {
            sb_reset(&err);
            assert_int_equal(settings_load(c, cases[i].path, must, &err), SETTINGS_UNREADABLE);
            char want[128];
            snprintf(want, sizeof want, "%s%s\n", cases[i].path, cases[i].why);
            assert_string_equal(err.s, want);
        }
    }
    alarm(0);
    remove(fifo);
    remove(big);
    rmdir(dir);
    sb_free(&err);
    free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bind),
        cmocka_unit_test(test_theme_and_colors),
        cmocka_unit_test(test_settings),
        cmocka_unit_test(test_bad_lines),
        cmocka_unit_test(test_dump_round_trip),
        cmocka_unit_test(test_load),
        cmocka_unit_test(test_not_regular),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
