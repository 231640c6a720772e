/* theme: colours named by role, with monochrome and ASCII fallbacks. */
#ifndef SV_THEME_H
#define SV_THEME_H

#include <stdbool.h>
#include <stdint.h>

typedef enum theme_role {
    ROLE_NORMAL,
    ROLE_TITLE,      /* top bar */
    ROLE_STATUS,     /* bottom bar */
    ROLE_HEADER,     /* table headers, ruler */
    ROLE_SELECTED,   /* cursor row / selected call */
    ROLE_DIM,        /* secondary text */
    ROLE_WARNING,
    ROLE_AWAIT,      /* the awaited share of a call */
    ROLE_DENSE,      /* a cell holding several calls */
    ROLE_SEARCH,     /* search matches */
    ROLE_SRC_KEYWORD,
    ROLE_SRC_STRING,
    ROLE_SRC_COMMENT,
    ROLE_SRC_DECORATOR,
    ROLE_SRC_NUMBER,
    ROLE_BAR0,       /* region colours: ROLE_BAR0 + (hash % THEME_NBARS) */
    THEME_NBARS = 16,
    ROLE_COUNT = ROLE_BAR0 + 16
} theme_role;

/* A stable colour for a region name (same name, same colour, every run). */
int theme_region_role(const char *name);

/* Colours for the terminal backend, without curses: the numbers are the
 * eight ANSI colours (curses COLOR_BLACK..COLOR_WHITE), -1 the terminal's
 * default. */
enum { THEME_DEFAULT = -1, THEME_BLACK, THEME_RED, THEME_GREEN, THEME_YELLOW, THEME_BLUE,
       THEME_MAGENTA, THEME_CYAN, THEME_WHITE };

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

/* The glyphs views draw with: Unicode in a UTF-8 locale, ASCII with --ascii
 * or another locale.  Views take them from here, never spell them out, so
 * the ASCII fallback is complete. */
typedef struct theme_glyphs {
    uint32_t bar;         /* a cell of a call holding its thread: '█' / '#' */
    uint32_t await;       /* hatch over the awaited share of a call: '░' / '/' */
    uint32_t dense[3];    /* a cell holding 2-3, 4-9, 10+ calls */
    uint32_t ellipsis;    /* marks cut text: '…' / '~' */
    uint32_t hline;       /* '─' / '-' */
    uint32_t vline;       /* '│' / '|' */
    uint32_t tick;        /* ruler tick: '┬' / '+' */
    uint32_t collapsed;   /* tree node with hidden children: '▸' / '+' */
    uint32_t expanded;    /* tree node showing children: '▾' / '-' */
    uint32_t sort_up;     /* '▲' / '^' */
    uint32_t sort_down;   /* '▼' / 'v' */
    uint32_t marker;      /* cursor / selection marker: '▶' / '>' */
    /* Tree guides, each two columns wide: "├─" "└─" "│ " / "|-" "`-" "| " */
    const char *tree_tee;
    const char *tree_last;
    const char *tree_vert;
} theme_glyphs;

const theme_glyphs *theme_glyphs_get(bool ascii);

#endif
