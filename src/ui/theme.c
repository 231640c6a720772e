/* theme: role colours, the monochrome rendering and the glyph tables. */
#include "theme.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grid.h"
#include "util/hash.h"

/* FNV-1a: stable across runs and platforms, unlike a pointer hash. */
int theme_region_role(const char *name)
{
    uint32_t h = sv_fnv32_str(name ? name : "");
    return ROLE_BAR0 + (int)(h % THEME_NBARS);
}

/* Bars carry dark text on a coloured background so a name stays readable
 * inside its bar; the eight backgrounds avoid white and black, which would
 * vanish against one terminal theme or the other. */
static const short bar_bg[THEME_NBARS] = {THEME_BLUE,   THEME_GREEN,   THEME_CYAN,   THEME_MAGENTA,
                                          THEME_YELLOW, THEME_RED,     THEME_BLUE,   THEME_GREEN,
                                          THEME_CYAN,   THEME_MAGENTA, THEME_YELLOW, THEME_RED,
                                          THEME_BLUE,   THEME_GREEN,   THEME_CYAN,   THEME_MAGENTA};

/* Sixteen light, mutually distinct xterm-256 backgrounds (dark text stays
 * readable on each): blues, greens, cyans, purples, yellows, reds. */
static const short bar_bg256[THEME_NBARS] = {75,  114, 80,  176, 221, 210, 147, 150,
                                             116, 183, 229, 216, 153, 193, 218, 180};

theme_style theme_color_style(int role)
{
    if (role >= ROLE_BAR0 && role < ROLE_COUNT) {
        int k = role - ROLE_BAR0;
        /* Six hues; the repeats are told apart by bold text. */
        return (theme_style){THEME_BLACK, bar_bg[k], k >= 6 ? GA_BOLD : 0};
    }
    switch (role) {
    case ROLE_TITLE:
        return (theme_style){THEME_BLACK, THEME_CYAN, GA_BOLD};
    case ROLE_STATUS:
        return (theme_style){THEME_BLACK, THEME_WHITE, 0};
    case ROLE_HEADER:
        return (theme_style){THEME_CYAN, THEME_DEFAULT, GA_BOLD};
    case ROLE_SELECTED:
        return (theme_style){THEME_BLACK, THEME_YELLOW, GA_BOLD};
    case ROLE_DIM:
        return (theme_style){THEME_DEFAULT, THEME_DEFAULT, GA_DIM};
    case ROLE_WARNING:
        return (theme_style){THEME_RED, THEME_DEFAULT, GA_BOLD};
    case ROLE_AWAIT:
        return (theme_style){THEME_WHITE, THEME_DEFAULT, GA_DIM};
    case ROLE_DENSE:
        return (theme_style){THEME_YELLOW, THEME_DEFAULT, GA_BOLD};
    case ROLE_SEARCH:
        return (theme_style){THEME_BLACK, THEME_GREEN, GA_BOLD};
    case ROLE_SRC_KEYWORD:
        return (theme_style){THEME_MAGENTA, THEME_DEFAULT, GA_BOLD};
    case ROLE_SRC_STRING:
        return (theme_style){THEME_GREEN, THEME_DEFAULT, 0};
    case ROLE_SRC_COMMENT:
        return (theme_style){THEME_BLUE, THEME_DEFAULT, GA_DIM};
    case ROLE_SRC_DECORATOR:
        return (theme_style){THEME_YELLOW, THEME_DEFAULT, 0};
    case ROLE_SRC_NUMBER:
        return (theme_style){THEME_CYAN, THEME_DEFAULT, 0};
    case ROLE_HEAT0:
        return (theme_style){THEME_BLACK, THEME_BLUE, 0};
    case ROLE_HEAT1:
        return (theme_style){THEME_BLACK, THEME_CYAN, 0};
    case ROLE_HEAT2:
        return (theme_style){THEME_BLACK, THEME_YELLOW, 0};
    case ROLE_HEAT3:
        return (theme_style){THEME_BLACK, THEME_RED, GA_BOLD};
    case ROLE_SLOWER:
        return (theme_style){THEME_BLACK, THEME_RED, 0};
    case ROLE_SLOWER_MORE:
        return (theme_style){THEME_WHITE, THEME_RED, GA_BOLD};
    case ROLE_FASTER:
        return (theme_style){THEME_BLACK, THEME_BLUE, 0};
    case ROLE_FASTER_MORE:
        return (theme_style){THEME_WHITE, THEME_BLUE, GA_BOLD};
    default:
        return (theme_style){THEME_DEFAULT, THEME_DEFAULT, 0};
    }
}

/* Heat: light blue, light yellow, orange, red; the change: light and
 * strong red, light and strong blue. */
static const short flame_bg256[ROLE_BAR0 - ROLE_HEAT0] = {153, 229, 215, 203, 217, 160, 153, 27};

theme_style theme_color_style256(int role)
{
    if (role >= ROLE_BAR0 && role < ROLE_COUNT)
        return (theme_style){THEME_BLACK, bar_bg256[role - ROLE_BAR0], 0};
    if (role >= ROLE_HEAT0 && role < ROLE_BAR0)
        return (theme_style){role == ROLE_SLOWER_MORE || role == ROLE_FASTER_MORE ? THEME_WHITE
                                                                                  : THEME_BLACK,
                             flame_bg256[role - ROLE_HEAT0], 0};
    return theme_color_style(role);
}

bool theme_no_color(const char *no_color_env)
{
    return no_color_env && *no_color_env;
}

/* Without colour: bars are reverse video, the selection is bold underlined
 * and not reversed (so a selected bar stands out among reversed ones), the
 * awaited share is dim and relies on its hatch glyph. */
int theme_mono_attr(int role)
{
    if (role >= ROLE_BAR0 && role < ROLE_COUNT)
        return GA_REVERSE;
    switch (role) {
    case ROLE_HEAT0:
    case ROLE_FASTER:
        return GA_DIM;
    case ROLE_HEAT1:
        return 0;
    case ROLE_HEAT2:
    case ROLE_SLOWER:
        return GA_REVERSE;
    case ROLE_HEAT3:
    case ROLE_SLOWER_MORE:
        return GA_REVERSE | GA_BOLD;
    case ROLE_FASTER_MORE:
        return GA_DIM | GA_UNDERLINE;
    case ROLE_TITLE:
    case ROLE_STATUS:
        return GA_REVERSE;
    case ROLE_HEADER:
    case ROLE_WARNING:
    case ROLE_DENSE:
    case ROLE_SRC_KEYWORD:
    case ROLE_SRC_DECORATOR:
        return GA_BOLD;
    case ROLE_SELECTED:
        return GA_BOLD | GA_UNDERLINE;
    case ROLE_SEARCH:
        return GA_BOLD | GA_UNDERLINE | GA_REVERSE;
    case ROLE_DIM:
    case ROLE_AWAIT:
    case ROLE_SRC_COMMENT:
        return GA_DIM;
    default:
        return 0;
    }
}

/* --- palettes --- */

static const char *const theme_names[] = {"default", "dark", "light", "mono"};

/* Text roles on an explicit background: dark and light themes. */
static void palette_background(theme_palette *p, short fg, short bg, short head, short dim)
{
    for (int r = 0; r < ROLE_BAR0; r++) {
        theme_style *st[2] = {&p->s8[r], &p->s256[r]};
        for (int k = 0; k < 2; k++) {
            if (st[k]->bg == THEME_DEFAULT)
                st[k]->bg = bg;
            if (st[k]->fg == THEME_DEFAULT)
                st[k]->fg = fg;
        }
    }
    p->s8[ROLE_HEADER].fg = p->s256[ROLE_HEADER].fg = head;
    p->s8[ROLE_DIM].fg = p->s256[ROLE_DIM].fg = dim;
    p->s8[ROLE_AWAIT].fg = p->s256[ROLE_AWAIT].fg = dim;
}

void theme_palette_init(theme_palette *p, theme_name name)
{
    for (int r = 0; r < ROLE_COUNT; r++) {
        p->s8[r] = theme_color_style(r);
        p->s256[r] = theme_color_style256(r);
    }
    p->mono = name == THEME_NAME_MONO;
    if (name == THEME_NAME_DARK)
        palette_background(p, THEME_WHITE, THEME_BLACK, THEME_CYAN, THEME_WHITE);
    else if (name == THEME_NAME_LIGHT)
        palette_background(p, THEME_BLACK, THEME_WHITE, THEME_BLUE, THEME_BLACK);
}

theme_style theme_palette_style(const theme_palette *p, int role, bool c256)
{
    if (!p || role < 0 || role >= ROLE_COUNT)
        return c256 ? theme_color_style256(role) : theme_color_style(role);
    return c256 ? p->s256[role] : p->s8[role];
}

const char *theme_name_str(theme_name t)
{
    return (int)t >= 0 && (size_t)t < sizeof theme_names / sizeof theme_names[0] ? theme_names[t]
                                                                                 : NULL;
}

int theme_name_lookup(const char *s)
{
    for (size_t i = 0; s && i < sizeof theme_names / sizeof theme_names[0]; i++)
        if (strcmp(s, theme_names[i]) == 0)
            return (int)i;
    return -1;
}

/* Indexed by role, up to the bars (named bar0 .. bar15). */
static const char *const role_names[ROLE_BAR0] = {
    "normal",      "title",         "status",      "header", "selected",    "dim",
    "warning",     "await",         "dense",       "search", "src-keyword", "src-string",
    "src-comment", "src-decorator", "src-number",  "heat0",  "heat1",       "heat2",
    "heat3",       "slower",        "slower-more", "faster", "faster-more",
};

const char *theme_role_name(int role, char *buf, size_t len)
{
    if (role >= 0 && role < ROLE_BAR0 && role_names[role])
        snprintf(buf, len, "%s", role_names[role]);
    else if (role >= ROLE_BAR0 && role < ROLE_COUNT)
        snprintf(buf, len, "bar%d", role - ROLE_BAR0);
    else
        return NULL;
    return buf;
}

int theme_role_lookup(const char *s)
{
    for (int r = 0; s && r < ROLE_COUNT; r++) {
        char buf[32];
        const char *name = theme_role_name(r, buf, sizeof buf);
        if (name && strcmp(name, s) == 0)
            return r;
    }
    return -1;
}

static const char *const color_names[] = {"black", "red",     "green", "yellow",
                                          "blue",  "magenta", "cyan",  "white"};

int theme_color_lookup(const char *s)
{
    if (!s)
        return -2;
    if (strcmp(s, "default") == 0)
        return THEME_DEFAULT;
    for (int c = 0; c < 8; c++)
        if (strcmp(s, color_names[c]) == 0)
            return c;
    char *end;
    long v = strtol(s, &end, 10);
    return *s >= '0' && *s <= '9' && *end == '\0' && v >= 0 && v <= 255 ? (int)v : -2;
}

const char *theme_color_name(int color, char *buf, size_t len)
{
    if (color == THEME_DEFAULT)
        snprintf(buf, len, "default");
    else if (color >= 0 && color < 8)
        snprintf(buf, len, "%s", color_names[color]);
    else
        snprintf(buf, len, "%d", color);
    return buf;
}

int theme_attr_lookup(const char *s)
{
    static const struct {
        const char *name;
        int flag;
    } attrs[] = {{"normal", 0},
                 {"bold", GA_BOLD},
                 {"dim", GA_DIM},
                 {"reverse", GA_REVERSE},
                 {"underline", GA_UNDERLINE}};
    for (size_t i = 0; s && i < sizeof attrs / sizeof attrs[0]; i++)
        if (strcmp(s, attrs[i].name) == 0)
            return attrs[i].flag;
    return -1;
}

static const theme_glyphs glyphs_unicode = {
    .bar = 0x2588,
    .await = 0x2591,
    .dense = {0x2236, 0x2237, 0x2593},
    .ellipsis = 0x2026,
    .hline = 0x2500,
    .vline = 0x2502,
    .tick = 0x252C,
    .collapsed = 0x25B8,
    .expanded = 0x25BE,
    .sort_up = 0x25B2,
    .sort_down = 0x25BC,
    .marker = 0x25B6,
    .cursor_col = 0x2506,
    .sel_edge = 0x254E,
    .tree_tee = "\u251c\u2500",
    .tree_last = "\u2514\u2500",
    .tree_vert = "\u2502 ",
};

static const theme_glyphs glyphs_ascii = {
    .bar = '#',
    .await = '/',
    .dense = {':', '%', '@'},
    .ellipsis = '~',
    .hline = '-',
    .vline = '|',
    .tick = '+',
    .collapsed = '+',
    .expanded = '-',
    .sort_up = '^',
    .sort_down = 'v',
    .marker = '>',
    .cursor_col = '.',
    .sel_edge = ':',
    .tree_tee = "|-",
    .tree_last = "`-",
    .tree_vert = "| ",
};

const theme_glyphs *theme_glyphs_get(bool ascii)
{
    return ascii ? &glyphs_ascii : &glyphs_unicode;
}
