/* config: parsing the user's config file (see config.h for the syntax). */
#include "settings.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grid.h"
#include "keys.h"
#include "util/text.h"

#define CONFIG_MAX_BYTES (1u << 20) /* a config file, not a data file */
#define MAX_WORDS 8

static const char *const scope_words[] = {"all", "rank", "thread"};
static const char *const sort_words[CFG_SORT_COUNT] = {
    "calls", "incl", "excl", "mean", "max", "par", "await", "gpu", "name",
};

bool settings_defaults(sv_settings *c)
{
    memset(c, 0, sizeof *c);
    c->theme = THEME_NAME_DEFAULT;
    theme_palette_init(&c->pal, c->theme);
    c->default_view = VIEW_TIMELINE;
    c->tree_scope = CFG_SCOPE_ALL;
    c->tree_sort = CFG_SORT_INCL;
    c->tree_sort_asc = false;
    c->source_width = 0;
    return keymap_defaults(&c->keys);
}

static int word_index(const char *w, const char *const *words, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(w, words[i]) == 0)
            return (int)i;
    return -1;
}

/* One line being applied: its words and where to report. */
typedef struct cfg_line {
    sv_settings *c;
    const char *fname;
    size_t lineno;
    char *w[MAX_WORDS];
    char shown[MAX_WORDS][64]; /* the words escaped, for messages */
    size_t n;
    strbuf *err;
} cfg_line;

static int line_error(const cfg_line *l, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* "FILE:LINE: message"; the words in it come from l->shown (escaped). */
static int line_error(const cfg_line *l, const char *fmt, ...)
{
    if (l->err) {
        char msg[256], file[256];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        text_escape_buf(file, sizeof file, l->fname);
        sb_printf(l->err, "%s:%zu: %s\n", file, l->lineno, msg);
    }
    return 1;
}

/* "x", "Enter", "<Enter>", "<x>": a key, or SVK_NONE. */
static int key_word(const char *w)
{
    size_t len = strlen(w);
    if (len > 2 && w[0] == '<' && w[len - 1] == '>')
        return keys_token(w + 1, len - 2);
    return keys_token(w, len);
}

static int do_bind(cfg_line *l)
{
    if (l->n != 4)
        return line_error(l, "bind wants VIEW KEY COMMAND");
    int scope = scope_lookup(l->shown[1]);
    if (scope < 0)
        return line_error(l, "no view '%s' (global, a view's name, source or help)", l->shown[1]);
    int key = key_word(l->shown[2]);
    if (key == SVK_NONE)
        return line_error(l, "no key '%s' (one character or a name such as Enter or F1)",
                          l->shown[2]);
    int cmd = command_lookup(l->shown[3]);
    if (cmd < 0)
        return line_error(l, "no command '%s' (scopeview --dump-config lists them)", l->shown[3]);
    if (!keymap_bind(&l->c->keys, (key_scope)scope, key, (ui_cmd)cmd))
        return line_error(l, "too many key bindings");
    return 0;
}

static int do_theme(cfg_line *l)
{
    int t = l->n == 2 ? theme_name_lookup(l->w[1]) : -1;
    if (t < 0)
        return line_error(l, "theme wants default, dark, light or mono, not '%s'",
                          l->n > 1 ? l->shown[1] : "");
    /* A theme replaces the colours: color lines after it adjust it. */
    l->c->theme = (theme_name)t;
    theme_palette_init(&l->c->pal, l->c->theme);
    return 0;
}

static int do_color(cfg_line *l)
{
    if (l->n < 4)
        return line_error(l, "color wants ROLE FG BG [ATTR...]");
    int role = theme_role_lookup(l->shown[1]);
    if (role < 0)
        return line_error(l, "no colour role '%s' (title, header, selected, bar0..bar15, ...)",
                          l->shown[1]);
    int fg = theme_color_lookup(l->w[2]), bg = theme_color_lookup(l->shown[3]);
    if (fg < -1 || bg < -1)
        return line_error(l, "no colour '%s' (default, black, red, ..., white, or 0..255)",
                          fg < -1 ? l->w[2] : l->shown[3]);
    int attr = 0;
    for (size_t i = 4; i < l->n; i++) {
        int a = theme_attr_lookup(l->w[i]);
        if (a < 0)
            return line_error(l, "no attribute '%s' (bold, dim, reverse, underline)", l->shown[i]);
        attr |= a;
    }
    theme_style st = {(short)fg, (short)bg, attr};
    /* An 8-colour terminal gets the nearest of its eight: the low bits. */
    theme_style st8 = {(short)(fg > 7 ? fg % 8 : fg), (short)(bg > 7 ? bg % 8 : bg), attr};
    l->c->pal.s256[role] = st;
    l->c->pal.s8[role] = st8;
    return 0;
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

static int do_set(cfg_line *l)
{
    if (l->n < 3)
        return line_error(l, "set wants NAME VALUE");
    const char *name = l->w[1], *v = l->w[2], *vs = l->shown[2];
    sv_settings *c = l->c;
    if (strcmp(name, "default-view") == 0 && l->n == 3) {
        int s = scope_lookup(v);
        if (s < 0 || s >= VIEW_COUNT)
            return line_error(l, "no view '%s'", vs);
        c->default_view = (view_id)s;
    } else if (strcmp(name, "tree-scope") == 0 && l->n == 3) {
        int s = word_index(v, scope_words, 3);
        if (s < 0)
            return line_error(l, "tree-scope is all, rank or thread, not '%s'", vs);
        c->tree_scope = s;
    } else if (strcmp(name, "tree-sort") == 0 && l->n <= 4) {
        int s = word_index(v, sort_words, CFG_SORT_COUNT);
        const char *dir = l->n == 4 ? l->w[3] : "desc";
        if (s < 0)
            return line_error(l,
                              "tree-sort is calls, incl, excl, mean, max, par, await, gpu or "
                              "name, not '%s'",
                              vs);
        if (strcmp(dir, "asc") != 0 && strcmp(dir, "desc") != 0)
            return line_error(l, "tree-sort's order is asc or desc, not '%s'", l->shown[3]);
        c->tree_sort = s;
        c->tree_sort_asc = strcmp(dir, "asc") == 0;
    } else if (strcmp(name, "source-width") == 0 && l->n == 3) {
        if (parse_int(v, 0, 1000, &c->source_width))
            return line_error(l, "source-width is a number of columns (0: automatic), not '%s'",
                              vs);
    } else {
        return line_error(l,
                          "no setting '%s' with these values (default-view, tree-scope, "
                          "tree-sort, source-width)",
                          l->shown[1]);
    }
    return 0;
}

/* A word starting with '#' starts a comment, except the key of a bind
 * line ("bind global # help"). */
static bool comment_word(const cfg_line *l, const char *tok)
{
    return tok[0] == '#' && !(l->n == 2 && strcmp(l->w[0], "bind") == 0);
}

/* Splits s at blanks into l->w, up to a comment; false when there are too
 * many words. */
static bool split_words(cfg_line *l, char *s)
{
    l->n = 0;
    for (char *tok = strtok(s, " \t\r"); tok; tok = strtok(NULL, " \t\r")) {
        if (comment_word(l, tok))
            break;
        if (l->n == MAX_WORDS)
            return false;
        text_escape_buf(l->shown[l->n], sizeof l->shown[l->n], tok);
        l->w[l->n++] = tok;
    }
    return true;
}

static int apply_line(cfg_line *l, char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    if (*s == '#' || *s == '\0' || *s == '\r')
        return 0;
    if (!split_words(l, s))
        return line_error(l, "too many words");
    if (l->n == 0)
        return 0;
    const char *verb = l->w[0];
    if (strcmp(verb, "bind") == 0)
        return do_bind(l);
    if (strcmp(verb, "theme") == 0)
        return do_theme(l);
    if (strcmp(verb, "color") == 0 || strcmp(verb, "colour") == 0)
        return do_color(l);
    if (strcmp(verb, "set") == 0)
        return do_set(l);
    return line_error(l, "unknown statement '%s' (bind, theme, color, set)", l->shown[0]);
}

int settings_parse(sv_settings *c, const char *text, const char *fname, strbuf *err)
{
    cfg_line l = {.c = c, .fname = fname ? fname : "config", .err = err};
    int bad = 0;
    const char *p = text ? text : "";
    while (*p) {
        size_t len = strcspn(p, "\n");
        l.lineno++;
        char line[1024];
        if (len >= sizeof line) {
            bad += line_error(&l, "line longer than 1023 bytes");
        } else {
            memcpy(line, p, len);
            line[len] = '\0';
            bad += apply_line(&l, line);
        }
        p += len;
        if (*p == '\n')
            p++;
    }
    return bad;
}

/* Why path cannot be read as a config file, or NULL when text holds it.
 * O_NONBLOCK so that a FIFO never blocks the open; only a regular file of at
 * most CONFIG_MAX_BYTES is read at all (a FIFO, a directory, /dev/zero are
 * refused on their type, before any read). */
static const char *read_config(const char *path, char **text, size_t *len, int *err_no)
{
    *text = NULL;
    *err_no = 0;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        *err_no = errno;
        return strerror(errno);
    }
    struct stat st;
    const char *why = NULL;
    if (fstat(fd, &st) != 0)
        why = strerror(errno);
    else if (S_ISDIR(st.st_mode))
        why = "a directory, not a config file";
    else if (!S_ISREG(st.st_mode))
        why = "not a regular file";
    else if (st.st_size > (off_t)CONFIG_MAX_BYTES)
        why = "larger than 1 MiB";
    else if (!(*text = malloc(CONFIG_MAX_BYTES + 1)))
        why = "out of memory";
    size_t n = 0;
    while (!why && n <= CONFIG_MAX_BYTES) {
        ssize_t r = read(fd, *text + n, CONFIG_MAX_BYTES + 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            why = "read error";
        else if (r == 0)
            break;
        else
            n += (size_t)r;
    }
    close(fd);
    if (!why && n > CONFIG_MAX_BYTES) /* it grew after the fstat */
        why = "larger than 1 MiB";
    if (!why && memchr(*text, '\0', n))
        why = "not a text file (a NUL byte)";
    if (why) {
        free(*text);
        *text = NULL;
        return why;
    }
    (*text)[n] = '\0';
    *len = n;
    return NULL;
}

int settings_load(sv_settings *c, const char *path, bool must_exist, strbuf *err)
{
    char *text;
    size_t n;
    int err_no;
    const char *why = read_config(path, &text, &n, &err_no);
    if (why) {
        if (err_no == ENOENT && !must_exist)
            return 0;
        if (err)
            sb_printf(err, "%s: %s\n", path, why);
        return SETTINGS_UNREADABLE;
    }
    int bad = settings_parse(c, text, path, err);
    free(text);
    return bad;
}

const char *settings_default_path(char *buf, size_t len)
{
    const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    if (xdg && xdg[0] == '/')
        snprintf(buf, len, "%s/scopeview/config", xdg);
    else if (home && home[0])
        snprintf(buf, len, "%s/.config/scopeview/config", home);
    else {
        if (len)
            buf[0] = '\0';
        return NULL;
    }
    return buf;
}

static void dump_colors(strbuf *out, const theme_palette *p)
{
    sb_puts(out, "# Colours by role: color ROLE FG BG [ATTR...], FG and BG one of default black\n"
                 "# red green yellow blue magenta cyan white or 0..255 (256-colour terminals),\n"
                 "# ATTR bold dim reverse underline.  The default theme's, for reference:\n");
    for (int r = 0; r < ROLE_COUNT; r++) {
        char rn[32], fg[16], bg[16];
        theme_style st = p->s256[r];
        sb_printf(out, "# color %s %s %s", theme_role_name(r, rn, sizeof rn),
                  theme_color_name(st.fg, fg, sizeof fg), theme_color_name(st.bg, bg, sizeof bg));
        static const struct {
            int flag;
            const char *name;
        } attrs[] = {{GA_BOLD, "bold"},
                     {GA_DIM, "dim"},
                     {GA_REVERSE, "reverse"},
                     {GA_UNDERLINE, "underline"}};
        for (size_t a = 0; a < sizeof attrs / sizeof attrs[0]; a++)
            if (st.attr & attrs[a].flag)
                sb_printf(out, " %s", attrs[a].name);
        sb_putc(out, '\n');
    }
}

static void dump_keys(strbuf *out, const keymap *km)
{
    sb_puts(out, "\n# Keys: bind VIEW KEY COMMAND.  VIEW is global (every view, unless the view\n"
                 "# binds the key itself), a view's name, source (the source pane) or help;\n"
                 "# KEY one character or a name (Enter Esc Tab S-Tab Left Right Up Down PgUp\n"
                 "# PgDn Home End F1 Backspace Space); COMMAND none unbinds.\n");
    for (size_t i = 0; i < km->n; i++) {
        char label[32];
        const keymap_entry *e = &km->e[i];
        sb_printf(out, "bind %s %s %s\n", scope_name((key_scope)e->scope),
                  keys_label(e->key, label, sizeof label), command_name((ui_cmd)e->cmd));
    }
}

void settings_dump_defaults(strbuf *out)
{
    sv_settings *c = malloc(sizeof *c);
    if (!c || !settings_defaults(c)) {
        free(c);
        sb_puts(out, "# out of memory\n");
        return;
    }
    sb_puts(out, "# scopeview config: the built-in defaults (scopeview --dump-config).\n"
                 "# Save as ~/.config/scopeview/config ($XDG_CONFIG_HOME/scopeview/config) or\n"
                 "# pass --config FILE, then edit.  '#' at the start of a line is a comment.\n\n"
                 "# theme default|dark|light|mono: default keeps the terminal's background\n");
    sb_printf(out, "theme %s\n\n", theme_name_str(c->theme));
    dump_colors(out, &c->pal);
    char name[32];
    snprintf(name, sizeof name, "%s", scope_name((key_scope)c->default_view));
    sb_printf(out,
              "\n# The view shown first\nset default-view %s\n"
              "# The tree's first scope: all (ranks merged), rank (the first rank), thread\n"
              "set tree-scope %s\n"
              "# The tree's sort: calls incl excl mean max par await gpu name, then asc|desc\n"
              "set tree-sort %s %s\n"
              "# Columns of the source pane beside a view (0: two fifths of the screen)\n"
              "set source-width %d\n",
              name, scope_words[c->tree_scope], sort_words[c->tree_sort],
              c->tree_sort_asc ? "asc" : "desc", c->source_width);
    dump_keys(out, &c->keys);
    free(c);
}
