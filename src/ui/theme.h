/* theme: colours named by role, with monochrome and ASCII fallbacks. */
#ifndef SV_THEME_H
#define SV_THEME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum theme_role {
    ROLE_NORMAL,
    ROLE_TITLE,    /* top bar */
    ROLE_STATUS,   /* bottom bar */
    ROLE_HEADER,   /* table headers, ruler */
    ROLE_SELECTED, /* cursor row / selected call */
    ROLE_DIM,      /* secondary text */
    ROLE_WARNING,
    ROLE_AWAIT,  /* the awaited share of a call */
    ROLE_DENSE,  /* a cell holding several calls */
    ROLE_SEARCH, /* search matches */
    ROLE_SRC_KEYWORD,
    ROLE_SRC_STRING,
    ROLE_SRC_COMMENT,
    ROLE_SRC_DECORATOR,
    ROLE_SRC_NUMBER,
    ROLE_HEAT0, /* flame graph self-time heat, cold to hot: ROLE_HEAT0 .. + 3 */
    ROLE_HEAT1,
    ROLE_HEAT2,
    ROLE_HEAT3,
    ROLE_SLOWER, /* differential flame graph: slower (more: _MORE), faster */
    ROLE_SLOWER_MORE,
    ROLE_FASTER,
    ROLE_FASTER_MORE,
    ROLE_BAR0, /* region colours: ROLE_BAR0 + (hash % THEME_NBARS) */
    THEME_NBARS = 16,
    ROLE_COUNT = ROLE_BAR0 + 16
} theme_role;

/* A stable colour for a region name (same name, same colour, every run). */
int theme_region_role(const char *name);

/* Colours for the terminal backend, without curses: the numbers are the
 * eight ANSI colours (curses COLOR_BLACK..COLOR_WHITE), -1 the terminal's
 * default. */
enum {
    THEME_DEFAULT = -1,
    THEME_BLACK,
    THEME_RED,
    THEME_GREEN,
    THEME_YELLOW,
    THEME_BLUE,
    THEME_MAGENTA,
    THEME_CYAN,
    THEME_WHITE
};

typedef struct theme_style {
    short fg, bg; /* THEME_* colours */
    int attr;     /* GA_* flags added to the colours */
} theme_style;

/* The colour style of a role on an 8-colour terminal (bars 8..15 repeat
 * the hues of 0..7 in bold). */
theme_style theme_color_style(int role);

/* The same on a 256-colour terminal: sixteen distinct bar backgrounds
 * (xterm-256 palette numbers), the other roles as on 8 colours. */
theme_style theme_color_style256(int role);

/* Whether NO_COLOR (https://no-color.org) asks for no colours: the value
 * of that variable (NULL: unset) is present and not empty. */
bool theme_no_color(const char *no_color_env);

/* The monochrome rendering of a role (TERM=vt100, no colours, --mono):
 * GA_* flags only, chosen so that bars, await shading, density, search
 * matches and the selection stay distinct without colour. */
int theme_mono_attr(int role);

/* --- palettes: a theme and the user's `color` lines (config.c) --- */

typedef enum theme_name {
    THEME_NAME_DEFAULT,
    THEME_NAME_DARK,
    THEME_NAME_LIGHT,
    THEME_NAME_MONO
} theme_name;

/* The colours the terminal backend uses: per role, for 8 and for 256
 * colours; mono: no colours at all (as --mono). */
typedef struct theme_palette {
    theme_style s8[ROLE_COUNT];
    theme_style s256[ROLE_COUNT];
    bool mono;
} theme_palette;

/* default: the built-in colours on the terminal's own background; dark:
 * light text on black; light: dark text on white; mono: no colours. */
void theme_palette_init(theme_palette *p, theme_name name);
/* The style of role for a terminal with 256 colours or not. */
theme_style theme_palette_style(const theme_palette *p, int role, bool c256);

/* Names for the config file, NULL / -1 when out of range or unknown:
 * themes ("dark"), roles ("title", "bar3"), colours ("default", "red",
 * 0..255), GA_* attributes ("bold"). */
const char *theme_name_str(theme_name t);
int theme_name_lookup(const char *s);
const char *theme_role_name(int role, char *buf, size_t len);
int theme_role_lookup(const char *s);
int theme_color_lookup(const char *s); /* THEME_DEFAULT .. 255; -2 unknown */
const char *theme_color_name(int color, char *buf, size_t len);
int theme_attr_lookup(const char *s); /* a GA_* flag, 0 for "normal", -1 unknown */

/* The glyphs views draw with: Unicode in a UTF-8 locale, ASCII with --ascii
 * or another locale.  Views take them from here, never spell them out, so
 * the ASCII fallback is complete. */
typedef struct theme_glyphs {
    uint32_t bar;        /* a cell of a call holding its thread: '█' / '#' */
    uint32_t await;      /* hatch over the awaited share of a call: '░' / '/' */
    uint32_t dense[3];   /* a cell holding 2-3, 4-9, 10+ calls */
    uint32_t ellipsis;   /* marks cut text: '…' / '~' */
    uint32_t hline;      /* '─' / '-' */
    uint32_t vline;      /* '│' / '|' */
    uint32_t tick;       /* ruler tick: '┬' / '+' */
    uint32_t collapsed;  /* tree node with hidden children: '▸' / '+' */
    uint32_t expanded;   /* tree node showing children: '▾' / '-' */
    uint32_t sort_up;    /* '▲' / '^' */
    uint32_t sort_down;  /* '▼' / 'v' */
    uint32_t marker;     /* cursor / selection marker: '▶' / '>' */
    uint32_t cursor_col; /* the timeline's cursor column down empty lanes: '┆' / '.' */
    uint32_t sel_edge;   /* the selected call's first and last columns: '╎' / ':' */
    /* Tree guides, each two columns wide: "├─" "└─" "│ " / "|-" "`-" "| " */
    const char *tree_tee;
    const char *tree_last;
    const char *tree_vert;
} theme_glyphs;

const theme_glyphs *theme_glyphs_get(bool ascii);

#endif
