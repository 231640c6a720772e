/* keys: key codes, the --keys string syntax, and key → command tables. */
#ifndef SV_KEYS_H
#define SV_KEYS_H

#include <stddef.h>

/* Keys: a Unicode code point, or one of these (above the Unicode range). */
enum sv_key {
    SVK_NONE = 0,
    SVK_BASE = 0x110000,
    SVK_ENTER,
    SVK_ESC,
    SVK_TAB,
    SVK_BTAB,
    SVK_LEFT,
    SVK_RIGHT,
    SVK_UP,
    SVK_DOWN,
    SVK_PGUP,
    SVK_PGDN,
    SVK_HOME,
    SVK_END,
    SVK_F1,
    SVK_BACKSPACE,
    SVK_RESIZE,
    SVK_WHEEL_UP,   /* mouse wheel, at the last mouse position */
    SVK_WHEEL_DOWN,
    SVK_CLICK       /* left click, at the last mouse position */
};

typedef enum ui_cmd {
    CMD_NONE,
    CMD_QUIT,          /* q: closes a sub-screen first */
    CMD_HELP,          /* ? F1 */
    CMD_BACK,          /* Esc */
    CMD_LEFT,
    CMD_RIGHT,
    CMD_UP,
    CMD_DOWN,
    CMD_PGUP,
    CMD_PGDN,
    CMD_HOME,
    CMD_END,
    CMD_ENTER,         /* Enter: select / open / expand */
    CMD_NEXT_VIEW,     /* Tab */
    CMD_PREV_VIEW,     /* Shift-Tab */
    CMD_VIEW_1,        /* 1..5: CMD_VIEW_1 + n - 1 */
    CMD_VIEW_2,
    CMD_VIEW_3,
    CMD_VIEW_4,
    CMD_VIEW_5,
    CMD_SEARCH,        /* / */
    CMD_SEARCH_NEXT,   /* n */
    CMD_SEARCH_PREV,   /* N */
    CMD_FILTER,        /* f: narrow the view to matching regions */
    CMD_SOURCE,        /* s: source pane */
    CMD_ZOOM_IN,       /* + = */
    CMD_ZOOM_OUT,      /* - */
    CMD_ZOOM_FIT,      /* 0 */
    CMD_ZOOM_SEL,      /* z */
    CMD_PREV_CALL,     /* [ */
    CMD_NEXT_CALL,     /* ] */
    CMD_DRILL,         /* d: calls of the selected region */
    CMD_SLOWEST,       /* S: slowest call of the region on its slowest rank */
    CMD_EXPAND,        /* e */
    CMD_COLLAPSE,      /* c */
    CMD_EXPAND_ALL,    /* E */
    CMD_COLLAPSE_ALL,  /* C */
    CMD_SORT_PREV,     /* < */
    CMD_SORT_NEXT,     /* > */
    CMD_SORT_INVERT,   /* I */
    CMD_SCOPE,         /* r: cycle scope (all ranks / one rank / one thread) */
    CMD_FOLD_RECURSION,/* R */
    CMD_RANK_BREAKDOWN,/* b: per-rank rows in the regions table */
    CMD_WHEEL_UP,
    CMD_WHEEL_DOWN,
    CMD_CLICK,
    CMD_COUNT
} ui_cmd;

typedef struct key_binding {
    int key;
    ui_cmd cmd;
} key_binding;

/* The global table (q ? F1 Esc arrows hjkl Tab 1-5 / n N s ...). */
extern const key_binding keys_global[];

/* The command for key: the view's table first, then the global one. */
ui_cmd keys_lookup(const key_binding *view_table, int key);

/* Parses a --keys string ("jj<Enter>/solve<Enter>n") into key codes.
 * Returns the number of keys, or -1 on an unknown <Name> (msg says which). */
long keys_parse(const char *s, int *out, size_t max, char *msg, size_t msglen);

/* A short label for a key ("Enter", "q", "F1") for the help screen. */
const char *keys_label(int key, char *buf, size_t len);

#endif
